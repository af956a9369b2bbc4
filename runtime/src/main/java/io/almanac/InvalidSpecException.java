package io.almanac;

import java.util.Objects;

/**
 * Bad input refused at the edge (R33): the message names the field, the value and the reason, e.g.
 * {@code cron '0 0 25 * * ?' is invalid: hour 25 is out of range 0-23}. Nothing stored changes when
 * this is thrown.
 */
public class InvalidSpecException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String value;
  private final String reason;

  /**
   * @param field the name of the setting or field that is wrong, e.g. {@code cron}
   * @param value the value given, as text (may be null)
   * @param reason why it is refused
   */
  public InvalidSpecException(String field, Object value, String reason) {
    super(field + " '" + value + "' is invalid: " + reason);
    this.field = Objects.requireNonNull(field, "field");
    this.value = value == null ? null : String.valueOf(value);
    this.reason = reason;
  }

  /**
   * Copies another refusal with the task's id in front, so a batch registration says which task.
   *
   * @param taskId the task the refusal belongs to
   * @param cause the refusal
   */
  public InvalidSpecException(String taskId, InvalidSpecException cause) {
    super("task '" + taskId + "': " + cause.getMessage(), cause);
    this.field = cause.field;
    this.value = cause.value;
    this.reason = cause.reason;
  }

  /** @return the field that was refused */
  public String field() {
    return field;
  }

  /** @return the value that was refused, as text */
  public String value() {
    return value;
  }

  /** @return why the value was refused, without the field and the value */
  public String reason() {
    return reason;
  }
}
