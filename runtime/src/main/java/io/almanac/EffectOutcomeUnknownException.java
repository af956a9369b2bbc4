package io.almanac;

/**
 * An earlier attempt started an effect but did not record its end (it crashed, or its lease
 * expired): the effect may or may not have happened. Almanac does not repeat it; the job decides.
 *
 * <p>Also what {@link EffectLedger#once} and {@link EffectLedger#record} fail with when this
 * attempt's own write to the ledger got no answer from the task's journal while the attempt held its
 * lease (a journal too loaded to answer, a task's node that stopped): the message says whether the
 * effect ran. The attempt should then end (its lease is over or it was cancelled); its window is
 * timed out by its lease and retried by the task's retry policy, and the retry finds the effect
 * recorded, not begun, or of unknown outcome (this exception again: the job decides).
 */
public class EffectOutcomeUnknownException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  /**
   * @param taskId the task
   * @param window the window
   * @param key the effect's key
   */
  public EffectOutcomeUnknownException(String taskId, String window, String key) {
    super("task '" + taskId + "' window '" + window + "': effect '" + key
        + "' was started by an earlier attempt that did not record its end; its outcome is unknown");
  }

  /**
   * This attempt's own write to the ledger got no answer in time.
   *
   * @param taskId the task
   * @param window the window
   * @param key the effect's key
   * @param what what happened to the effect and its record, in words
   * @param cause why no answer came (a timeout, the attempt's cancellation)
   */
  public EffectOutcomeUnknownException(String taskId, String window, String key, String what, Throwable cause) {
    super("task '" + taskId + "' window '" + window + "': effect '" + key + "' " + what, cause);
  }
}
