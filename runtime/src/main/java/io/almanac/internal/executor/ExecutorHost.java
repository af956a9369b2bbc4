package io.almanac.internal.executor;

import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Instant;

/**
 * What the executor's helpers ({@link PoolWaits}, {@link ResultRouting}, {@link Draining}, {@link
 * JobSlots}, {@link NodeLease}) ask of the executor actor that owns them: each step that involves
 * another helper goes through it. Called only on the actor's thread.
 *
 * INTERNAL API.
 */
interface ExecutorHost {
  /** Runs started attempts while a slot is free, then admits queued windows while there is room. */
  void admit();

  /** Answers the drain's waiters if the drain is over. */
  void checkDrained();

  /** Updates the node's gauges of the queues and running jobs. */
  void gauges();

  /** @return whether the executor holds its lease and may run jobs */
  boolean mayRun();

  /** @return whether the node is draining (nothing more is admitted) */
  boolean draining();

  /** Runs a started attempt in a free slot; {@code since}: when its start arrived here (null: not known). */
  void run(AttemptItem item, TaskProtocol.AttemptGrant grant, Instant now, Instant since);

  /** Lets go a started attempt whose lease ended before it got a slot. */
  void dropExpired(AttemptItem item, int attempt, Instant leaseUntil);

  /** @return the executor's identity now */
  String executorId();

  /** Looks at an offer again (one that waited for an attempt of its window to leave its slot). */
  void offer(ExecutorProtocol.Offer offer);

  /**
   * A window is admitted here: its attempt's span begins (when the node traces attempts).
   *
   * @return the span's trace context for the {@code Admitted} message, or null
   */
  String traceAdmitted(String taskId, String window);

  /** @return whether the lease is no longer valid although it was held (then lost: every job is cancelled) */
  boolean fenceBroken();
}
