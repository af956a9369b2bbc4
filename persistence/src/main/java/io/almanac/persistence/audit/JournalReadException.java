package io.almanac.persistence.audit;

import io.almanac.AlmanacException;

/**
 * The journal could not be read: the database is unreachable or locked (an H2 file is open in a
 * running node), its tables are missing, an event does not deserialize, or the read timed out.
 */
public class JournalReadException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what could not be read and why
   * @param cause the underlying failure
   */
  public JournalReadException(String message, Throwable cause) {
    super(message, cause);
  }
}
