package io.almanac.persistence.instances;

import io.almanac.AlmanacException;

/**
 * The instance table could not be read: the database failed (unreachable, a timeout, an SQL
 * error). Distinct from a refusal of the node: the HTTP API answers it 503 {@code unavailable}
 * without the database's text, which it logs.
 */
public class InstanceStoreException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed
   * @param cause the database's failure
   */
  public InstanceStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
