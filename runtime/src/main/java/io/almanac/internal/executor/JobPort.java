package io.almanac.internal.executor;

import io.almanac.JobResult;
import io.almanac.WindowView;
import io.almanac.journal.AttemptLog;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletionStage;

/**
 * All a job's threads may ask of the node: messages to the attempt's task entity and to the
 * executor, and the node lease (a memory read). Thread-safe; the job's context and its runner hold
 * this port and immutable data, never an actor. INTERNAL API.
 */
interface JobPort {

  /** @return how long an ask of the node waits for its answer (almanac.executor.ask-timeout) */
  Duration askTimeout();

  /** Whether the node holds its executor lease now (a memory read). */
  boolean leaseValid();

  /** Asks the task to extend the attempt's lease; the executor is told the new deadline. */
  CompletionStage<Instant> heartbeat(AttemptItem item, int attempt);

  /** Asks the task to record an effect (or an intent) in the window's ledger, waiting at most {@code wait} for its answer. */
  CompletionStage<TaskProtocol.EffectReply> recordEffect(AttemptItem item, int attempt, String key, String value,
      boolean intent, Duration wait);

  /** @return the bounds of durable steps (almanac.task), checked in the job's thread before a step is sent */
  io.almanac.internal.protocol.StepBounds stepBounds();

  /** Asks the task to record a durable step's result for the window, waiting at most {@code wait} for its answer. */
  CompletionStage<TaskProtocol.StepReply> recordStep(AttemptItem item, int attempt, String name, String type,
      String result, io.almanac.journal.UsageRecord usage, Duration took, Duration wait);

  /** A step with usage was recorded: the executor adds its cost to the attempt's pools (counted once, as the task's budget counts it). */
  void stepUsed(AttemptItem item, int attempt, io.almanac.journal.UsageRecord usage);

  /**
   * The job ended in its slot under a valid lease: tells the executor (which gives the slot back at
   * once) and asks its task to record the result (with the steps it replayed and its log); the
   * answer goes to the executor, which tracks the attempt until then.
   */
  void reportResult(AttemptItem item, int attempt, JobResult result, Duration took, java.util.List<String> replayedSteps,
      AttemptLog log);

  /** The job ended after it gave up its slot, or while the lease is in doubt: the executor decides. */
  void jobEnded(AttemptItem item, int attempt, JobResult result, Duration took, java.util.List<String> replayedSteps,
      AttemptLog log);

  /** Tells the task the attempt's live progress (not answered, not persisted). */
  void live(AttemptItem item, int attempt, WindowView.Progress progress);

  /** Runs {@code task} once after {@code delay}, on the node's scheduler (a throttled update's trailing send). */
  void later(Duration delay, Runnable task);
}
