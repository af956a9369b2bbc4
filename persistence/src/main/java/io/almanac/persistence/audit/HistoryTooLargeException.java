package io.almanac.persistence.audit;

import io.almanac.AlmanacException;

/**
 * A window's history holds more events than one read keeps in memory ({@link WindowExplanation.Digest}):
 * the read stops instead of growing without bound.
 */
public class HistoryTooLargeException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  /** @param message what was too large */
  public HistoryTooLargeException(String message) {
    super(message);
  }
}
