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
}
