package io.almanac;

import java.time.Instant;
import java.util.Map;

/**
 * One window of a task as an operator sees it (R29's instance row). Times are UTC instants (R26);
 * render them in the task's zone only for display. Made by the runtime and read by callers.
 *
 * @param taskId the task
 * @param window the window's key, e.g. {@code 2026-11-29}
 * @param start the window's start
 * @param end the window's end
 * @param dueAt when the window fired (or was due)
 * @param status the instance's status (R20)
 * @param runKind why the current or last attempt runs (R18)
 * @param attempt the number of the current or last attempt (0 before the first), the fencing token
 * @param retries how many retries have been scheduled so far
 * @param maxRetries the task's retry cap (R15)
 * @param leaseUntil when the running attempt's lease expires, or null
 * @param retryDueAt when the next retry is due, or null
 * @param summary the bounded summary of the success, or null
 * @param artifactUri where the success's full output is, or null
 * @param reason why it failed, was skipped, missed, cancelled or resolved, or null
 * @param effects the window's effect ledger (R19): effect key to recorded value
 * @param createdAt when the instance was created
 * @param updatedAt when it last changed
 * @param startedAt when the current or last attempt started, or null before the first
 * @param waitUntil the deadline of a {@link InstanceStatus#WAITING} window (for its dependency or
 *     condition), null in any other status
 * @param events the events of an event-triggered task counted on this window, or null when none
 * @param deadlineMissedAt when the window was recorded as having missed its task's deadline ({@link
 *     TaskSpec#deadline()}: not SUCCEEDED by its due time plus the deadline while still open), or null
 * @param poolWait the resource pool ({@link PoolSpec}) a {@link InstanceStatus#PENDING} window waits
 *     for before its attempt may start, or null: not waiting, and in any other status (the wait ends
 *     when the window starts or reaches a done status)
 * @param usage what the window's attempts reported using ({@link JobResult#withUsage(io.almanac.Usage)}), summed,
 *     or null when none reported usage
 * @param skipReason why a {@link InstanceStatus#SKIPPED} window was skipped (e.g. {@link
 *     SkipReason#BUDGET_EXHAUSTED}, {@link SkipReason#EXCLUDED}), so that code need not read it out of
 *     {@code reason}; null in any other status, and where the source keeps no typed reason (the SQL
 *     instance table)
 * @param version the window's version: one more at each change of its status or attempt; an operator's
 *     action that expects it ({@link Expecting#version(long)}) is refused, changing nothing, once the
 *     window moved on (the HTTP API's {@code ETag}); 0 where the source keeps none (the SQL instance table)
 */
public record WindowView(
    String taskId,
    WindowKey window,
    Instant start,
    Instant end,
    Instant dueAt,
    InstanceStatus status,
    RunKind runKind,
    int attempt,
    int retries,
    int maxRetries,
    Instant leaseUntil,
    Instant retryDueAt,
    String summary,
    String artifactUri,
    String reason,
    Map<String, String> effects,
    Instant createdAt,
    Instant updatedAt,
    Instant startedAt,
    Instant waitUntil,
    Events events,
    Instant deadlineMissedAt,
    PoolWait poolWait,
    Usage usage,
    SkipReason skipReason,
    long version,
    Progress progress) {

  /**
   * A view without live progress: the shape before it existed, kept so that code built against it
   * still links.
   *
   * @param taskId the task
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when the window fired (or was due)
   * @param status the instance's status
   * @param runKind why the current or last attempt runs
   * @param attempt the current or last attempt
   * @param retries retries scheduled so far
   * @param maxRetries the task's retry cap
   * @param leaseUntil the running attempt's lease, or null
   * @param retryDueAt the next retry's due time, or null
   * @param summary the success's summary, or null
   * @param artifactUri the success's artifact, or null
   * @param reason why it failed, was skipped, missed, cancelled or resolved, or null
   * @param effects the window's effect ledger
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param startedAt when the current or last attempt started, or null
   * @param waitUntil the deadline of a WAITING window, or null
   * @param events the events counted on the window, or null
   * @param deadlineMissedAt when the window missed its deadline, or null
   * @param poolWait the pool a PENDING window waits for, or null
   * @param usage what its attempts reported using, or null
   * @param skipReason why a SKIPPED window was skipped, or null
   * @param version the window's version
   */
  public WindowView(String taskId, WindowKey window, Instant start, Instant end, Instant dueAt, InstanceStatus status,
      RunKind runKind, int attempt, int retries, int maxRetries, Instant leaseUntil, Instant retryDueAt, String summary,
      String artifactUri, String reason, Map<String, String> effects, Instant createdAt, Instant updatedAt,
      Instant startedAt, Instant waitUntil, Events events, Instant deadlineMissedAt, PoolWait poolWait, Usage usage,
      SkipReason skipReason, long version) {
    this(taskId, window, start, end, dueAt, status, runKind, attempt, retries, maxRetries, leaseUntil, retryDueAt, summary,
        artifactUri, reason, effects, createdAt, updatedAt, startedAt, waitUntil, events, deadlineMissedAt, poolWait, usage,
        skipReason, version, null);
  }

  /**
   * @param live the running attempt's live progress, or null
   * @return this view with that progress
   */
  public WindowView withProgress(Progress live) {
    return new WindowView(taskId, window, start, end, dueAt, status, runKind, attempt, retries, maxRetries, leaseUntil,
        retryDueAt, summary, artifactUri, reason, effects, createdAt, updatedAt, startedAt, waitUntil, events,
        deadlineMissedAt, poolWait, usage, skipReason, version, live);
  }

  /**
   * A view without a version: the shape before it existed, kept so that code built against it still
   * links (version 0).
   *
   * @param taskId the task
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when the window fired (or was due)
   * @param status the instance's status
   * @param runKind why the current or last attempt runs
   * @param attempt the current or last attempt
   * @param retries retries scheduled so far
   * @param maxRetries the task's retry cap
   * @param leaseUntil the running attempt's lease, or null
   * @param retryDueAt the next retry's due time, or null
   * @param summary the success's summary, or null
   * @param artifactUri the success's artifact, or null
   * @param reason why it failed, was skipped, missed, cancelled or resolved, or null
   * @param effects the window's effect ledger
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param startedAt when the current or last attempt started, or null
   * @param waitUntil the deadline of a WAITING window, or null
   * @param events the events counted on the window, or null
   * @param deadlineMissedAt when the window missed its deadline, or null
   * @param poolWait the pool a PENDING window waits for, or null
   * @param usage what its attempts reported using, or null
   * @param skipReason why a SKIPPED window was skipped, or null
   */
  public WindowView(String taskId, WindowKey window, Instant start, Instant end, Instant dueAt, InstanceStatus status,
      RunKind runKind, int attempt, int retries, int maxRetries, Instant leaseUntil, Instant retryDueAt, String summary,
      String artifactUri, String reason, Map<String, String> effects, Instant createdAt, Instant updatedAt,
      Instant startedAt, Instant waitUntil, Events events, Instant deadlineMissedAt, PoolWait poolWait, Usage usage,
      SkipReason skipReason) {
    this(taskId, window, start, end, dueAt, status, runKind, attempt, retries, maxRetries, leaseUntil, retryDueAt, summary,
        artifactUri, reason, effects, createdAt, updatedAt, startedAt, waitUntil, events, deadlineMissedAt, poolWait, usage,
        skipReason, 0);
  }

  /**
   * A view without a typed skip reason: the shape before it existed, kept so that code built
   * against it still links.
   *
   * @param taskId the task
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when the window fired (or was due)
   * @param status the instance's status
   * @param runKind why the current or last attempt runs
   * @param attempt the current or last attempt
   * @param retries retries scheduled so far
   * @param maxRetries the task's retry cap
   * @param leaseUntil the running attempt's lease, or null
   * @param retryDueAt the next retry's due time, or null
   * @param summary the success's summary, or null
   * @param artifactUri the success's artifact, or null
   * @param reason why it failed, was skipped, missed, cancelled or resolved, or null
   * @param effects the window's effect ledger
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param startedAt when the current or last attempt started, or null
   * @param waitUntil the deadline of a WAITING window, or null
   * @param events the events counted on the window, or null
   * @param deadlineMissedAt when the window missed its deadline, or null
   * @param poolWait the pool a PENDING window waits for, or null
   * @param usage what its attempts reported using, or null
   */
  public WindowView(String taskId, WindowKey window, Instant start, Instant end, Instant dueAt, InstanceStatus status,
      RunKind runKind, int attempt, int retries, int maxRetries, Instant leaseUntil, Instant retryDueAt, String summary,
      String artifactUri, String reason, Map<String, String> effects, Instant createdAt, Instant updatedAt,
      Instant startedAt, Instant waitUntil, Events events, Instant deadlineMissedAt, PoolWait poolWait, Usage usage) {
    this(taskId, window, start, end, dueAt, status, runKind, attempt, retries, maxRetries, leaseUntil, retryDueAt, summary,
        artifactUri, reason, effects, createdAt, updatedAt, startedAt, waitUntil, events, deadlineMissedAt, poolWait, usage,
        null);
  }

  /**
   * A view without a pool wait, usage or typed skip reason: the shape before they were shown, kept so that code built
   * against it still links.
   *
   * @param taskId the task
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when the window fired (or was due)
   * @param status the instance's status
   * @param runKind why the current or last attempt runs
   * @param attempt the current or last attempt
   * @param retries retries scheduled so far
   * @param maxRetries the task's retry cap
   * @param leaseUntil the running attempt's lease, or null
   * @param retryDueAt the next retry's due time, or null
   * @param summary the success's summary, or null
   * @param artifactUri the success's artifact, or null
   * @param reason why it failed, was skipped, missed, cancelled or resolved, or null
   * @param effects the window's effect ledger
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param startedAt when the current or last attempt started, or null
   * @param waitUntil the deadline of a WAITING window, or null
   * @param events the events counted on the window, or null
   * @param deadlineMissedAt when the window missed its deadline, or null
   */
  public WindowView(String taskId, WindowKey window, Instant start, Instant end, Instant dueAt, InstanceStatus status,
      RunKind runKind, int attempt, int retries, int maxRetries, Instant leaseUntil, Instant retryDueAt, String summary,
      String artifactUri, String reason, Map<String, String> effects, Instant createdAt, Instant updatedAt,
      Instant startedAt, Instant waitUntil, Events events, Instant deadlineMissedAt) {
    this(taskId, window, start, end, dueAt, status, runKind, attempt, retries, maxRetries, leaseUntil, retryDueAt, summary,
        artifactUri, reason, effects, createdAt, updatedAt, startedAt, waitUntil, events, deadlineMissedAt, null, null, null);
  }

  /**
   * A view without a deadline mark: the shape before deadlines existed, kept so that code built
   * against it still links.
   *
   * @param taskId the task
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when the window fired (or was due)
   * @param status the instance's status
   * @param runKind why the current or last attempt runs
   * @param attempt the current or last attempt
   * @param retries retries scheduled so far
   * @param maxRetries the task's retry cap
   * @param leaseUntil the running attempt's lease, or null
   * @param retryDueAt the next retry's due time, or null
   * @param summary the success's summary, or null
   * @param artifactUri the success's artifact, or null
   * @param reason why it failed, was skipped, missed, cancelled or resolved, or null
   * @param effects the window's effect ledger
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param startedAt when the current or last attempt started, or null
   * @param waitUntil the deadline of a WAITING window, or null
   * @param events the events counted on the window, or null
   */
  public WindowView(String taskId, WindowKey window, Instant start, Instant end, Instant dueAt, InstanceStatus status,
      RunKind runKind, int attempt, int retries, int maxRetries, Instant leaseUntil, Instant retryDueAt, String summary,
      String artifactUri, String reason, Map<String, String> effects, Instant createdAt, Instant updatedAt,
      Instant startedAt, Instant waitUntil, Events events) {
    this(taskId, window, start, end, dueAt, status, runKind, attempt, retries, maxRetries, leaseUntil, retryDueAt, summary,
        artifactUri, reason, effects, createdAt, updatedAt, startedAt, waitUntil, events, null, null, null, null);
  }

  /**
   * Whether an operator may run this window again: a retry, a run now or a backfill reopens it
   * (FINAL_FAILED, CANCELLED, SKIPPED or MISSED); the task decides by the same rule.
   *
   * @return true if it may be run again
   */
  public boolean reopenable() {
    return io.almanac.internal.task.OperatorRun.REOPENABLE.contains(status);
  }

  /**
   * The events counted on a window of an event-triggered task: a storm of events makes one
   * instance, with its counts and its first and last event ids.
   *
   * @param received distinct event ids that mapped to the window
   * @param duplicates repeated deliveries of ids already received
   * @param firstId the first event's id, or null
   * @param lastId the latest event's id, or null
   */
  public record Events(long received, long duplicates, String firstId, String lastId) {}

  /**
   * What a PENDING window waits for: a resource pool without room ({@link PoolSpec}). The window
   * starts when every pool its task names has room.
   *
   * @param pool the pool's name
   * @param reason why it has no room: {@link PoolWaitReason#FULL}, {@link PoolWaitReason#RATE} or
   *     {@link PoolWaitReason#PAUSED}
   * @param until when the wait ends at the latest (a pause's end, the next rate token), or null when
   *     not known (a full pool)
   * @param since when the wait was recorded, or null when not known
   */
  public record PoolWait(String pool, PoolWaitReason reason, Instant until, Instant since) {}

  /**
   * What a window's attempts reported using, summed over its attempts (see {@link io.almanac.Usage} for the
   * unit and precision of the cost).
   *
   * @param tokensIn tokens sent
   * @param tokensOut tokens received
   * @param cost the cost, a decimal amount in the operator's unit
   * @param model the model the latest attempt that named one reported, or null
   */
  public record Usage(long tokensIn, long tokensOut, java.math.BigDecimal cost, String model) {}

  /**
   * What a running attempt says while it runs: its progress ({@link JobContext#progress(double,
   * String)}) and its latest log lines ({@link JobContext#log()}). Sent by the executor at most once per
   * {@code almanac.executor.job-log.live-interval}, held in the task's memory (never in the journal) and
   * dropped when the attempt ends; a node that restarts has none until the job reports again.
   *
   * @param attempt the attempt that reported it
   * @param fraction how far the job says it is, from 0 to 1, or null when it reported none (only log lines)
   * @param text what it says it is doing, or null
   * @param at when it reported it (the executor's clock)
   * @param latest its latest log lines, oldest first (at most {@code almanac.executor.job-log.live-lines})
   */
  public record Progress(int attempt, Double fraction, String text, Instant at,
      java.util.List<io.almanac.journal.LogLine> latest) {
    /** Copies the lines. */
    public Progress {
      latest = latest == null ? java.util.List.of() : java.util.List.copyOf(latest);
    }
  }
}
