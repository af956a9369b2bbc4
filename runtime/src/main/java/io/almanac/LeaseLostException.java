package io.almanac;

/**
 * The attempt no longer holds its lease, so Almanac refused to act for it: the effect ledger
 * records no intent and no effect, and a heartbeat extends nothing. Either the attempt ended (its
 * lease expired, it was cancelled or superseded) or its node lost the executor's lease (it was
 * frozen past the lease, cut off from the journal's database, or downed) and another node may
 * already run the window's retry. The job must stop and make no external effect; its result will
 * not count. See {@link JobContext#holdsLease()}.
 */
public class LeaseLostException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  /**
   * @param taskId the task
   * @param window the window
   * @param attempt the attempt
   * @param why why the lease is not held, for people
   */
  public LeaseLostException(String taskId, String window, int attempt, String why) {
    super("task '" + taskId + "' window '" + window + "' attempt " + attempt + " no longer holds its lease: " + why);
  }
}
