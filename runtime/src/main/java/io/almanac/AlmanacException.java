package io.almanac;

/** Base of every exception Almanac throws to its users. */
public class AlmanacException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what went wrong, naming the field and the value where there is one */
  public AlmanacException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong
   * @param cause the underlying failure
   */
  public AlmanacException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * For failures that are flow control rather than faults ({@link OverloadedException}): thrown often
   * under load, they need no stack trace, which would cost more than the refusal itself.
   *
   * @param message what went wrong
   * @param stackTrace whether to record a stack trace
   */
  protected AlmanacException(String message, boolean stackTrace) {
    super(message, null, false, stackTrace);
  }
}
