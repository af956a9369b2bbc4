package io.almanac;

/**
 * An earlier attempt started an effect but did not record its end (it crashed, or its lease
 * expired): the effect may or may not have happened. Almanac does not repeat it; the job decides.
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
}
