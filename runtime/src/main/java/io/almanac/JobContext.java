package io.almanac;

import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.CompletionStage;

/** What a running attempt knows and can do (R18, R19, R27). */
public interface JobContext {

  /** @return the task's id */
  String taskId();

  /** @return the window this attempt runs for */
  WindowKey window();

  /** @return the window's start (UTC) */
  Instant windowStart();

  /** @return the window's end (UTC) */
  Instant windowEnd();

  /**
   * @return when the window was scheduled to fire (UTC): the cron's firing for a time trigger, the
   *     operator's request for a manual run; a retry or a backfill keeps its window's original
   *     instant, so a job can tell how late it runs
   */
  Instant scheduledAt();

  /** @return the task's zone, for display and for local-time logic inside the job */
  ZoneId zone();

  /** @return the attempt number, starting at 1; it is the attempt's fencing token */
  int attempt();

  /**
   * @return whether this is a first run, a retry, a backfill, a manual run (R18) or a resume of an
   *     interrupted attempt ({@link RunKind#RESUME})
   */
  RunKind runKind();

  /**
   * @return a key unique to (task, window), the same for every attempt of the window: pass it to
   *     downstream systems that deduplicate, e.g. as an idempotency header
   */
  String idempotencyKey();

  /** @return when the current lease expires; past it the attempt is TIMED_OUT and cancelled (R23) */
  Instant deadline();

  /**
   * Tells Almanac the attempt is alive and extends its lease.
   *
   * @return the new deadline; fails if the attempt no longer holds the window (its result will not
   *     count), in which case the job should stop
   */
  CompletionStage<Instant> heartbeat();

  /** @return true once the attempt has been cancelled (lease expired, operator cancel, superseded) */
  boolean isCancelled();

  /**
   * Whether this attempt may still act: it was not cancelled, and its node holds the executor's
   * lease (in a cluster: a lease row in the journal's database, renewed every few seconds; a node
   * frozen or cut off from the database past its lease loses it, and another node may then run the
   * window's retry). A memory read: check it right before every external effect the {@link
   * #ledger()} does not guard, and stop without the effect when it is false. The ledger checks it
   * itself and fails with {@link LeaseLostException}.
   *
   * <p>The bound: once this turns false the node cancels every job it runs within {@code
   * almanac.executor.check-interval} (interrupts the thread, cancels the stage) and reports nothing
   * for them, and a retry starts elsewhere only after the lease has ended by the database's clock,
   * which is at least the lease's {@code safety-margin} after this turned false. An effect made
   * without checking, by a job that ignores cancellation, may overlap a retry.
   *
   * @return true while the attempt holds its lease
   */
  boolean holdsLease();

  /** @return a stage that completes when the attempt is cancelled */
  CompletionStage<Void> cancellation();

  /**
   * Whether this attempt's node is stopping (a coordinated shutdown: SIGTERM, a deploy). The job may
   * go on: the node waits up to {@code almanac.executor.shutdown-grace} for it to end and records
   * its result as usual. One still running then is recorded INTERRUPTED (not failed, no retry spent)
   * and cancelled, and its window runs again at once (run kind {@link RunKind#RESUME}), on another
   * node in a cluster or at the next start embedded. A long job can use this to reach a point it can
   * resume from (its {@link #ledger()} keeps what it did) and return, or to return early with a
   * result. Distinct from {@link #isCancelled()}: stopping asks, cancelling ends.
   *
   * @return true once the node began to stop
   */
  default boolean isStopping() {
    return false;
  }

  /**
   * @return a stage that completes when this attempt's node begins to stop (see {@link
   *     #isStopping()}); it never completes for a node that does not stop while the job runs
   */
  default CompletionStage<Void> stopping() {
    return new java.util.concurrent.CompletableFuture<>();
  }

  /** @return the window's effect ledger (R19) */
  EffectLedger ledger();
}
