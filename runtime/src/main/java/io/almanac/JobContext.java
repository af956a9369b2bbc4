package io.almanac;

import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

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

  /**
   * A durable step: work that may be repeated but should not be (a model call, a search, a long
   * computation). The first attempt of the window that reaches the step runs {@code body}, and its
   * result is recorded, as JSON, in the task's journal; every later attempt of the same window (a
   * retry, a resume after an interruption, an operator's retry of a FINAL_FAILED window) gets the
   * recorded result without running {@code body}. A body that throws, or whose stage fails, records
   * nothing: the next attempt runs it again.
   *
   * <p>Not the {@link #ledger() effect ledger}: the ledger is for effects that must happen at most
   * once (a message sent, a payment), and records an intent before the effect, so that an effect
   * cut off midway is never repeated blindly. A step records only after its body completed: an
   * attempt that dies inside a step runs it again next time.
   *
   * <p>Bounds: a step's result is at most {@code almanac.task.max-step-result-size} (64 KiB of JSON by
   * default) and a window records at most {@code almanac.task.max-steps-per-window} steps (100); keep
   * a large output in an artifact store and return its URI. A window that succeeded (or was cancelled,
   * skipped or resolved) keeps no steps for a later run: a run of a done window runs its steps again.
   * A context that keeps no journal (a test's own implementation of this interface) runs the body
   * every time.
   *
   * <p>The body is called on the calling thread. Chained after another step, that may be one of
   * Almanac's own threads: a body that blocks must start its work on an executor of its own, or the
   * job awaits each step on its own thread in turn.
   *
   * @param name the step's name: not blank, at most {@code almanac.task.max-step-name-length} (200)
   *     characters, reached at most once per attempt (use {@code "search-" + i} in a loop)
   * @param type the result's type; Jackson writes it as JSON and reads it back
   * @param body the step's work
   * @param <T> the result's type
   * @return the result: the body's, or the one recorded by an earlier attempt. Fails with {@link
   *     StepResultTooLargeException} when the result is over the bound, {@link
   *     StepTypeMismatchException} when a recorded result does not read as {@code type}, {@link
   *     InvalidSpecException} for a bad name, {@link LeaseLostException} when the attempt no longer
   *     holds the window, or with the body's own failure
   */
  default <T> CompletionStage<T> step(String name, Class<T> type, Supplier<? extends CompletionStage<T>> body) {
    return step(name, type, body, null);
  }

  /**
   * As {@link #step(String, Class, Supplier)}, with the step's usage: what the job used inside it
   * (a model call's tokens and cost), taken from its result by {@code usage}. The usage is recorded
   * with the step and counts toward the task's budget per day and its pools' budgets once, when the
   * step is recorded; a replay counts none. Do not report it again in the attempt's {@link
   * JobResult#withUsage(Usage)}, which is for what the attempt used outside its steps.
   *
   * @param name the step's name (see {@link #step(String, Class, Supplier)})
   * @param type the result's type
   * @param body the step's work
   * @param usage what the step used, read from its result; null, or returning null, for none
   * @param <T> the result's type
   * @return the result (see {@link #step(String, Class, Supplier)})
   */
  default <T> CompletionStage<T> step(String name, Class<T> type, Supplier<? extends CompletionStage<T>> body,
      Function<? super T, Usage> usage) {
    if (body == null) {
      return java.util.concurrent.CompletableFuture.failedFuture(
          new InvalidSpecException("step.body", null, "step '" + name + "' needs a body"));
    }
    return body.get();
  }

  /**
   * The attempt's own log: lines kept with the attempt in the window's history (bounded by {@code
   * almanac.executor.job-log.*}) and also logged through SLF4J with the task, window and attempt in
   * the MDC. See {@link JobLog}.
   *
   * @return the attempt's log
   */
  JobLog log();

  /**
   * Says how far the job is, for the dashboard's progress bar and the window's view while the attempt
   * runs ({@link WindowView#progress()}). Held in memory only, never in the journal, and sent to the
   * task at most once per {@code almanac.executor.job-log.live-interval} (the latest call wins); it is
   * gone when the attempt ends. Cheap: call it as often as is convenient.
   *
   * @param fraction how far, from 0 (started) to 1 (done)
   * @param text what the job is doing now, or null; cut to {@code almanac.executor.job-log.max-line-length}
   * @throws IllegalArgumentException if {@code fraction} is not a number from 0 to 1 (the message names
   *     the field and the value)
   */
  void progress(double fraction, String text);

  /**
   * The attempt's OpenTelemetry context: it holds the attempt's span when the node traces attempts
   * (docs/tracing.md). While the job's {@link AgentJob#run} and each {@link #step} body are called,
   * the attempt's (or the step's) context is already current on the calling thread, so a model
   * client's own spans nest under it; use this for work the job hands to threads of its own, e.g.
   * {@code executor.execute(ctx.traceContext().wrap(task))}.
   *
   * @return the attempt's context; {@code Context.root()} when the node does not trace (and in a
   *     context that keeps no trace, such as a test's own implementation of this interface)
   */
  default io.opentelemetry.context.Context traceContext() {
    return io.opentelemetry.context.Context.root();
  }
}
