package io.almanac;

import java.util.Objects;

/**
 * Bad input refused at the edge (R33): the message names the field, the value and the reason, e.g.
 * {@code cron '0 0 25 * * ?' is invalid: hour 25 is out of range 0-23}. Nothing stored changes when
 * this is thrown.
 *
 * <p>Messages are bounded whatever the input: every echoed text (field, value, task id) is cut to
 * {@value #MAX_ECHO_LENGTH} characters plus {@code … (N chars)}, control and invisible characters in
 * it are shown as a backslash, u and four hex digits, and the whole message is at most {@value
 * #MAX_MESSAGE_LENGTH} characters.
 */
public class InvalidSpecException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  /** Most characters of one echoed text (a value, a field name, a task id) in a message. */
  public static final int MAX_ECHO_LENGTH = 100;

  /** Most characters of a whole message. */
  public static final int MAX_MESSAGE_LENGTH = 1_000;

  private final String field;
  private final String value;
  private final String reason;

  /**
   * @param field the name of the setting or field that is wrong, e.g. {@code cron}
   * @param value the value given, as text; null when none was given (a missing key, a HOCON {@code
   *     null}, a null argument): the message then says the field is missing (see {@link #message});
   *     kept and shown bounded (see {@link #echo})
   * @param reason why it is refused
   */
  public InvalidSpecException(String field, Object value, String reason) {
    super(message(field, value, reason));
    this.field = Objects.requireNonNull(field, "field");
    this.value = value == null ? null : echo(value);
    this.reason = reason;
  }

  private InvalidSpecException(String field, String reason) {
    super(bound(echo(field) + " is invalid: " + reason));
    this.field = Objects.requireNonNull(field, "field");
    this.value = null;
    this.reason = reason;
  }

  /**
   * A refusal whose value is not repeated: a secret (a token), or a value whose text would not help
   * (an object where a string belongs). Worded {@code field is invalid: reason}.
   *
   * @param field the name of the setting or field that is wrong
   * @param reason why it is refused, saying what the value is like without quoting it
   * @return the refusal; its {@link #value()} is null
   */
  public static InvalidSpecException withoutValue(String field, String reason) {
    return new InvalidSpecException(field, reason);
  }

  /**
   * The one wording of a refusal (R33), bounded: {@code field 'value' is invalid: reason}; for a
   * value that was not given (null), {@code field is missing: reason}. A missing value is never shown
   * as {@code 'null'}. A field that is missing and nothing more to say is {@link #missing(String)}.
   *
   * @param field the name of the setting or field that is wrong
   * @param value the value given, or null when none was
   * @param reason why it is refused
   * @return the message
   */
  public static String message(String field, Object value, String reason) {
    if (value != null) {
      return bound(echo(field) + " '" + echo(value) + "' is invalid: " + reason);
    }
    return bound(echo(field) + " " + MISSING + ": " + reason);
  }

  /**
   * A required field or setting that was not given: {@code field is missing}.
   *
   * @param field the name of the setting or field
   * @return the refusal; its {@link #value()} is null and its {@link #reason()} {@code is missing}
   */
  public static InvalidSpecException missing(String field) {
    return missing(field, null);
  }

  /**
   * A required field or setting that was not given, with a hint: {@code field is missing: hint}.
   *
   * @param field the name of the setting or field
   * @param hint what to look at (e.g. whether a module is on the class path), or null for none
   * @return the refusal; its {@link #value()} is null and its {@link #reason()} {@code is missing} or
   *     {@code is missing: hint}
   */
  public static InvalidSpecException missing(String field, String hint) {
    String reason = hint == null ? MISSING : MISSING + ": " + hint;
    return new InvalidSpecException(bound(echo(Objects.requireNonNull(field, "field")) + " " + reason), field, null,
        reason);
  }

  private static final String MISSING = "is missing";

  /**
   * Copies another refusal with the task's id in front, so a batch registration says which task.
   *
   * @param taskId the task the refusal belongs to
   * @param cause the refusal
   */
  public InvalidSpecException(String taskId, InvalidSpecException cause) {
    super(bound("task '" + echo(taskId) + "': " + cause.getMessage()), cause);
    this.field = cause.field;
    this.value = cause.value;
    this.reason = cause.reason;
  }

  /** A refusal as it arrives from another node (see RefusalSerializer): its parts, as sent. */
  InvalidSpecException(String message, String field, String value, String reason) {
    super(message);
    this.field = field;
    this.value = value;
    this.reason = reason;
  }

  /** @return the field that was refused */
  public String field() {
    return field;
  }

  /**
   * @return the value that was refused, as text, bounded as in the message (at most {@value
   *     #MAX_ECHO_LENGTH} characters of it); null if none was given
   */
  public String value() {
    return value;
  }

  /** @return why the value was refused, without the field and the value */
  public String reason() {
    return reason;
  }

  /**
   * A value as it is echoed in a refusal: its text, with control and invisible characters (C0, DEL,
   * C1, line separators, bidi and other format characters, lone surrogates, unassigned and private
   * use) shown as a backslash, u and four hex digits, and when longer than {@value #MAX_ECHO_LENGTH} characters
   * its first {@value #MAX_ECHO_LENGTH} followed by {@code … (N chars)}.
   *
   * @param value any value, may be null
   * @return the bounded, printable text; {@code "null"} for null
   */
  public static String echo(Object value) {
    String text = String.valueOf(value);
    int length = text.length();
    int end = Math.min(length, MAX_ECHO_LENGTH);
    if (end < length && end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) {
      end--; // do not cut a surrogate pair in two
    }
    StringBuilder out = new StringBuilder(end + 24);
    for (int i = 0; i < end; i++) {
      char c = text.charAt(i);
      if (invisible(text, i)) {
        out.append(String.format("\\u%04X", (int) c));
      } else {
        out.append(c);
      }
    }
    if (end < length) {
      out.append("\u2026 (").append(length).append(" chars)");
    }
    return out.toString();
  }

  private static boolean invisible(String text, int i) {
    char c = text.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(text.charAt(i - 1));
    }
    switch (Character.getType(c)) {
      case Character.CONTROL:
      case Character.FORMAT:
      case Character.LINE_SEPARATOR:
      case Character.PARAGRAPH_SEPARATOR:
      case Character.PRIVATE_USE:
      case Character.UNASSIGNED:
        return true;
      default:
        return false;
    }
  }

  /** Cuts a whole message to {@value #MAX_MESSAGE_LENGTH} characters. */
  private static String bound(String message) {
    if (message.length() <= MAX_MESSAGE_LENGTH) {
      return message;
    }
    String suffix = "\u2026 (message cut at " + MAX_MESSAGE_LENGTH + " chars)";
    return message.substring(0, MAX_MESSAGE_LENGTH - suffix.length()) + suffix;
  }
}
