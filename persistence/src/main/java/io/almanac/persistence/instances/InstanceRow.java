package io.almanac.persistence.instances;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import java.time.Instant;
import java.util.Objects;

/**
 * One row of the instance table: one window of one task as the journal last left it (R29). Times
 * are UTC instants (R26).
 *
 * @param taskId the task
 * @param windowKey the window's key, e.g. {@code 2026-11-29}
 * @param windowStart the window's start
 * @param windowEnd the window's end, or null
 * @param status the instance's status (R20)
 * @param attempt the current or last attempt number (0 before the first)
 * @param retryCount retries scheduled since the window was (re)opened
 * @param maxRetry the task's retry cap when the row was last written
 * @param runKind why the current or last attempt runs (R18), or null
 * @param resultSummary the bounded success summary, or null
 * @param failReason the last failure, skip, miss, cancel or resolve reason, or null
 * @param scheduledAt when the window fired or was due, or null
 * @param startedAt when the current or last attempt started, or null
 * @param finishedAt when the last attempt ended or the window reached a done status without one
 *     (skipped, missed, cancelled, resolved); null while it is pending or running
 * @param createdAt when the instance was created
 * @param updatedAt when it last changed (the time of the journal event)
 * @param lastSeq the task journal's sequence number of the last event applied to the row
 * @param movedAt when retention moved the row to the history table; null for a live row
 * @param waitUntil the deadline of a WAITING window (for its dependency or condition); null in any
 *     other status
 * @param eventCount the distinct events of an event-triggered task counted on the window (0 for none)
 * @param eventDuplicates repeated deliveries of event ids already counted on it (0 for none)
 * @param firstEventId the id of the first event counted on it, or null
 * @param lastEventId the id of the latest event counted on it, or null
 * @param tokensIn tokens the window's attempts reported sending, summed (0 for none)
 * @param tokensOut tokens they reported receiving, summed (0 for none)
 * @param cost the cost they reported, summed, or null when none reported usage
 * @param model the model the latest attempt that named one reported, or null
 * @param deadlineMissedAt when the window was recorded as having missed its task's deadline, or null
 *     (set once, it stays)
 * @param poolWaitPool the resource pool a PENDING window waits for, or null when it does not wait
 *     (cleared when the window starts or reaches a done status)
 * @param poolWaitReason why that pool has no room (FULL, RATE or PAUSED), or null when not waiting
 * @param poolWaitUntil when that wait ends at the latest, or null when not known or not waiting
 * @param reasonCode the typed cause of a window that did not run ({@link io.almanac.SkipReason} when
 *     SKIPPED, {@link io.almanac.MissReason} when MISSED), the {@code reason_code} column; null in any
 *     other status, and in rows projected before the column existed (a rebuild fills it)
 */
public record InstanceRow(
    String taskId,
    String windowKey,
    Instant windowStart,
    Instant windowEnd,
    InstanceStatus status,
    int attempt,
    int retryCount,
    int maxRetry,
    RunKind runKind,
    String resultSummary,
    String failReason,
    Instant scheduledAt,
    Instant startedAt,
    Instant finishedAt,
    Instant createdAt,
    Instant updatedAt,
    long lastSeq,
    Instant movedAt,
    Instant waitUntil,
    long eventCount,
    long eventDuplicates,
    String firstEventId,
    String lastEventId,
    long tokensIn,
    long tokensOut,
    java.math.BigDecimal cost,
    String model,
    Instant deadlineMissedAt,
    String poolWaitPool,
    io.almanac.PoolWaitReason poolWaitReason,
    Instant poolWaitUntil,
    io.almanac.ReasonCode reasonCode) {

  /**
   * A row without a typed reason code (as rows were before it was kept).
   *
   * @param taskId the task
   * @param windowKey the window's key
   * @param windowStart the window's start
   * @param windowEnd the window's end, or null
   * @param status the instance's status
   * @param attempt the current or last attempt number
   * @param retryCount retries scheduled since the window was (re)opened
   * @param maxRetry the task's retry cap
   * @param runKind why the current or last attempt runs, or null
   * @param resultSummary the success summary, or null
   * @param failReason the last reason, or null
   * @param scheduledAt when the window fired or was due, or null
   * @param startedAt when the current or last attempt started, or null
   * @param finishedAt when the last attempt ended or the window reached a done status, or null
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param lastSeq the sequence number of the last event applied
   * @param movedAt when retention moved the row, or null for a live row
   * @param waitUntil the deadline of a WAITING window, or null
   * @param eventCount the distinct events counted on the window
   * @param eventDuplicates repeated deliveries counted on it
   * @param firstEventId the first event's id, or null
   * @param lastEventId the latest event's id, or null
   * @param tokensIn tokens the window's attempts reported sending, summed
   * @param tokensOut tokens they reported receiving, summed
   * @param cost the cost they reported, summed, or null
   * @param model the model the latest attempt that named one reported, or null
   * @param deadlineMissedAt when the window missed its task's deadline, or null
   * @param poolWaitPool the resource pool a PENDING window waits for, or null
   * @param poolWaitReason why that pool has no room, or null
   * @param poolWaitUntil when that wait ends at the latest, or null
   */
  public InstanceRow(String taskId, String windowKey, Instant windowStart, Instant windowEnd, InstanceStatus status,
      int attempt, int retryCount, int maxRetry, RunKind runKind, String resultSummary, String failReason,
      Instant scheduledAt, Instant startedAt, Instant finishedAt, Instant createdAt, Instant updatedAt, long lastSeq,
      Instant movedAt, Instant waitUntil, long eventCount, long eventDuplicates, String firstEventId, String lastEventId,
      long tokensIn, long tokensOut, java.math.BigDecimal cost, String model, Instant deadlineMissedAt,
      String poolWaitPool, io.almanac.PoolWaitReason poolWaitReason, Instant poolWaitUntil) {
    this(taskId, windowKey, windowStart, windowEnd, status, attempt, retryCount, maxRetry, runKind, resultSummary,
        failReason, scheduledAt, startedAt, finishedAt, createdAt, updatedAt, lastSeq, movedAt, waitUntil, eventCount,
        eventDuplicates, firstEventId, lastEventId, tokensIn, tokensOut, cost, model, deadlineMissedAt, poolWaitPool,
        poolWaitReason, poolWaitUntil, null);
  }

  /**
   * A row without a missed deadline or a pool wait (as rows were before they were kept).
   *
   * @param taskId the task
   * @param windowKey the window's key
   * @param windowStart the window's start
   * @param windowEnd the window's end, or null
   * @param status the instance's status
   * @param attempt the current or last attempt number
   * @param retryCount retries scheduled since the window was (re)opened
   * @param maxRetry the task's retry cap
   * @param runKind why the current or last attempt runs, or null
   * @param resultSummary the success summary, or null
   * @param failReason the last reason, or null
   * @param scheduledAt when the window fired or was due, or null
   * @param startedAt when the current or last attempt started, or null
   * @param finishedAt when the last attempt ended or the window reached a done status, or null
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param lastSeq the sequence number of the last event applied
   * @param movedAt when retention moved the row, or null for a live row
   * @param waitUntil the deadline of a WAITING window, or null
   * @param eventCount the distinct events counted on the window
   * @param eventDuplicates repeated deliveries counted on it
   * @param firstEventId the first event's id, or null
   * @param lastEventId the latest event's id, or null
   * @param tokensIn tokens the window's attempts reported sending, summed
   * @param tokensOut tokens they reported receiving, summed
   * @param cost the cost they reported, summed, or null
   * @param model the model the latest attempt that named one reported, or null
   */
  public InstanceRow(String taskId, String windowKey, Instant windowStart, Instant windowEnd, InstanceStatus status,
      int attempt, int retryCount, int maxRetry, RunKind runKind, String resultSummary, String failReason,
      Instant scheduledAt, Instant startedAt, Instant finishedAt, Instant createdAt, Instant updatedAt, long lastSeq,
      Instant movedAt, Instant waitUntil, long eventCount, long eventDuplicates, String firstEventId, String lastEventId,
      long tokensIn, long tokensOut, java.math.BigDecimal cost, String model) {
    this(taskId, windowKey, windowStart, windowEnd, status, attempt, retryCount, maxRetry, runKind, resultSummary,
        failReason, scheduledAt, startedAt, finishedAt, createdAt, updatedAt, lastSeq, movedAt, waitUntil, eventCount,
        eventDuplicates, firstEventId, lastEventId, tokensIn, tokensOut, cost, model, null, null, null, null);
  }

  /**
   * A row without usage (as rows were before usage was reported).
   *
   * @param taskId the task
   * @param windowKey the window's key
   * @param windowStart the window's start
   * @param windowEnd the window's end, or null
   * @param status the instance's status
   * @param attempt the current or last attempt number
   * @param retryCount retries scheduled since the window was (re)opened
   * @param maxRetry the task's retry cap
   * @param runKind why the current or last attempt runs, or null
   * @param resultSummary the success summary, or null
   * @param failReason the last reason, or null
   * @param scheduledAt when the window fired or was due, or null
   * @param startedAt when the current or last attempt started, or null
   * @param finishedAt when the last attempt ended or the window reached a done status, or null
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param lastSeq the sequence number of the last event applied
   * @param movedAt when retention moved the row, or null for a live row
   * @param waitUntil the deadline of a WAITING window, or null
   * @param eventCount the distinct events counted on the window
   * @param eventDuplicates repeated deliveries counted on it
   * @param firstEventId the first event's id, or null
   * @param lastEventId the latest event's id, or null
   */
  public InstanceRow(String taskId, String windowKey, Instant windowStart, Instant windowEnd, InstanceStatus status,
      int attempt, int retryCount, int maxRetry, RunKind runKind, String resultSummary, String failReason,
      Instant scheduledAt, Instant startedAt, Instant finishedAt, Instant createdAt, Instant updatedAt, long lastSeq,
      Instant movedAt, Instant waitUntil, long eventCount, long eventDuplicates, String firstEventId, String lastEventId) {
    this(taskId, windowKey, windowStart, windowEnd, status, attempt, retryCount, maxRetry, runKind, resultSummary,
        failReason, scheduledAt, startedAt, finishedAt, createdAt, updatedAt, lastSeq, movedAt, waitUntil, eventCount,
        eventDuplicates, firstEventId, lastEventId, 0, 0, null, null);
  }

  /**
   * A row without a wait deadline or events (a window of a time-triggered task that does not wait).
   *
   * @param taskId the task
   * @param windowKey the window's key
   * @param windowStart the window's start
   * @param windowEnd the window's end, or null
   * @param status the instance's status
   * @param attempt the current or last attempt number
   * @param retryCount retries scheduled since the window was (re)opened
   * @param maxRetry the task's retry cap
   * @param runKind why the current or last attempt runs, or null
   * @param resultSummary the success summary, or null
   * @param failReason the last reason, or null
   * @param scheduledAt when the window fired or was due, or null
   * @param startedAt when the current or last attempt started, or null
   * @param finishedAt when the last attempt ended or the window reached a done status, or null
   * @param createdAt when the instance was created
   * @param updatedAt when it last changed
   * @param lastSeq the sequence number of the last event applied
   * @param movedAt when retention moved the row, or null for a live row
   */
  public InstanceRow(String taskId, String windowKey, Instant windowStart, Instant windowEnd, InstanceStatus status,
      int attempt, int retryCount, int maxRetry, RunKind runKind, String resultSummary, String failReason,
      Instant scheduledAt, Instant startedAt, Instant finishedAt, Instant createdAt, Instant updatedAt, long lastSeq,
      Instant movedAt) {
    this(taskId, windowKey, windowStart, windowEnd, status, attempt, retryCount, maxRetry, runKind, resultSummary,
        failReason, scheduledAt, startedAt, finishedAt, createdAt, updatedAt, lastSeq, movedAt, null, 0, 0, null, null);
  }

  /** Canonical constructor: the key, start, status and times are required. */
  public InstanceRow {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(windowKey, "windowKey");
    Objects.requireNonNull(windowStart, "windowStart");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
  }

  /**
   * @param u what an attempt of the window reported it used, or null
   * @return this row with it added to the window's sums (the model replaced when it names one)
   */
  public InstanceRow withUsage(io.almanac.journal.UsageRecord u) {
    if (u == null) {
      return this;
    }
    java.math.BigDecimal add = java.math.BigDecimal.valueOf(u.costMicros(), 6);
    return new InstanceRow(taskId, windowKey, windowStart, windowEnd, status, attempt, retryCount, maxRetry, runKind,
        resultSummary, failReason, scheduledAt, startedAt, finishedAt, createdAt, updatedAt, lastSeq, movedAt, waitUntil,
        eventCount, eventDuplicates, firstEventId, lastEventId, tokensIn + u.tokensIn(), tokensOut + u.tokensOut(),
        cost == null ? add : cost.add(add), u.model() != null ? u.model() : model, deadlineMissedAt, poolWaitPool,
        poolWaitReason, poolWaitUntil, reasonCode);
  }

  /** @return this row as it is in the live table (without {@link #movedAt()}) */
  public InstanceRow live() {
    return movedAt == null ? this : new InstanceRow(taskId, windowKey, windowStart, windowEnd, status, attempt, retryCount,
        maxRetry, runKind, resultSummary, failReason, scheduledAt, startedAt, finishedAt, createdAt, updatedAt, lastSeq, null,
        waitUntil, eventCount, eventDuplicates, firstEventId, lastEventId, tokensIn, tokensOut, cost, model, deadlineMissedAt,
        poolWaitPool, poolWaitReason, poolWaitUntil, reasonCode);
  }
}
