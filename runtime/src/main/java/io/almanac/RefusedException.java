package io.almanac;

import java.util.Objects;

/**
 * A command about a task was refused and nothing was stored. {@link #reason()} says why as a value
 * callers can branch on; the message says it in words, naming the field and the value.
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
    UNKNOWN_EVENT_TYPE
  }

  private final Reason reason;

  /**
   * @param reason why
   * @param message what was refused, naming the field and the value
   */
  public RefusedException(Reason reason, String message) {
    super(message);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** @return why the command was refused */
  public Reason reason() {
    return reason;
  }
}
