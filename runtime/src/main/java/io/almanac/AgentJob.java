package io.almanac;

import java.util.concurrent.CompletionStage;

/**
 * The job a task runs for each window (R27): asynchronous, possibly long (minutes), cancellable.
 * Almanac calls {@link #run(JobContext)} on its own job dispatcher, never on an actor thread; a job
 * may block that thread (it is interrupted on cancellation) or return a stage completed elsewhere
 * (it is cancelled on lease expiry).
 *
 * <p>Contract: report the outcome through the returned stage ({@link JobResult#success(String)} or
 * {@link JobResult#failure(String)}); an exception or an exceptionally completed stage counts as a
 * failure with the exception's message. Call {@link JobContext#heartbeat()} while working to keep
 * the lease; check {@link JobContext#isCancelled()} and stop early when it is true. Wrap effects
 * that must not repeat in {@link EffectLedger#once}.
 */
@FunctionalInterface
public interface AgentJob {

  /**
   * Runs one attempt of one window.
   *
   * @param context the task, window, attempt, run kind, deadline, heartbeat, cancellation and ledger
   * @return the attempt's outcome
   * @throws Exception any failure; recorded as the attempt's failure reason
   */
  CompletionStage<JobResult> run(JobContext context) throws Exception;
}
