package io.almanac;

import java.util.Objects;

/**
 * A command about a task was refused and nothing was stored. {@link #reason()} says why as a value
 * callers can branch on, and {@link #field()} and {@link #value()} which input, when the refusal is
 * about one; the message says it in words, naming the field and the value.
 */
public class RefusedException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  /** Why a command was refused. */
  public enum Reason {
    /** No task with this id is defined (register it first). */
    UNKNOWN_TASK,
    /** The task has no window with this key in its hot state. */
    UNKNOWN_WINDOW,
    /** An argument is invalid (null, out of range, too long, in the wrong order). */
    INVALID_ARGUMENT,
    /** The window is not due yet; the trigger fires it when it is. */
    NOT_DUE,
    /** The attempt no longer holds the window (it finished, timed out or was superseded). */
    STALE_ATTEMPT,
    /** The window's state does not allow it now (another attempt runs, a retry is not due). */
    CONFLICT,
    /** The task's schedule failed (its cron or window spec threw): it is set aside until its spec is corrected. */
    SCHEDULE_FAILED,
    /**
     * The task was removed ({@link Almanac#remove(String)}): its history still answers queries, and
     * registering it again defines it anew; every other command is refused.
     */
    REMOVED,
    /** No registered task listens to this event type. */
    UNKNOWN_EVENT_TYPE,
    /**
     * The operator's action expected the window at another version or status ({@link Expecting}): it
     * moved on since the action was decided (HTTP 412 for an {@code If-Match}, 409 otherwise). Read the
     * window again and decide anew.
     */
    STALE_WINDOW
  }

  private final Reason reason;
  private final String field;
  private final String value;

  /**
   * @param reason why
   * @param message what was refused, naming the field and the value
   */
  public RefusedException(Reason reason, String message) {
    this(reason, null, null, message);
  }

  /**
   * A refusal about one field, with the field and the value as data beside the message.
   *
   * @param reason why
   * @param field the field refused, e.g. {@code from}; null when the refusal is not about one field
   * @param value the value refused, as the message shows it; null if none
   * @param message what was refused, in words
   */
  public RefusedException(Reason reason, String field, String value, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.field = field;
    this.value = value;
  }

  /**
   * A refusal of one field's value, worded {@code field 'value' is invalid: why}, or {@code field is
   * missing: why} when the value is null (never the text {@code 'null'}).
   *
   * @param reason why, e.g. {@link Reason#INVALID_ARGUMENT}
   * @param field the field refused, e.g. {@code from}
   * @param value the value refused, as the message shows it (the caller bounds long texts), or null
   *     when it was missing
   * @param why what is wrong with it
   * @return the refusal, its field and value as data
   */
  public static RefusedException invalid(Reason reason, String field, Object value, String why) {
    if (value == null) {
      // a null is a missing value, never the text 'null' (which a client may have sent as a string)
      return new RefusedException(reason, field, null, field + " is missing: " + why);
    }
    String shown = String.valueOf(value);
    return new RefusedException(reason, field, shown, field + " '" + shown + "' is invalid: " + why);
  }

  /** @return why the command was refused */
  public Reason reason() {
    return reason;
  }

  /** @return the field the refusal is about, or null when it is not about one field */
  public String field() {
    return field;
  }

  /** @return the value refused, as the message shows it, or null */
  public String value() {
    return value;
  }

  /**
   * @param more words to add to the message
   * @return this refusal, its reason, field and value, with {@code more} after its message
   */
  public RefusedException withMore(String more) {
    return new RefusedException(reason, field, value, getMessage() + more);
  }
}
