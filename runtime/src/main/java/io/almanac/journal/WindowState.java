package io.almanac.journal;

import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot state of one window of a task: its instance's status and attempt, lease, retry due time,
 * result and effect ledger. Immutable; changed only by the entity's event handler. Part of the
 * snapshot: never rename a component without a migration. INTERNAL API.
 *
 * @param key the window key
 * @param start the window's start
 * @param end the window's end
 * @param dueAt when the window fired or was due
 * @param status the instance's status
 * @param runKind why the current or last attempt runs
 * @param attempt the current or last attempt number (0 before the first); the fencing token
 * @param retries retries scheduled since the window was (re)opened
 * @param resultAttempt the last attempt whose job result was recorded (dedupes repeated results)
 * @param startedAt when the current or last attempt started, or null
 * @param leaseUntil lease expiry of the running attempt, or null
 * @param executor the identity of the executor running the attempt, or null
 * @param retryDueAt when the waiting retry is due, or null
 * @param summary the success summary, or null
 * @param artifactUri the success artifact, or null
 * @param reason the last failure / skip / miss / cancel / resolve reason, or null
 * @param effects the window's effect ledger (R19)
 * @param pendingEffects effects whose intent was recorded but not their end (outcome unknown)
 * @param createdAt when the instance was created
 * @param updatedAt when it last changed
 * @param skipReason why the window was skipped, when it is SKIPPED (null otherwise, and in snapshots
 *     taken before this component existed)
 * @param waitUntil the deadline of a WAITING window (null otherwise, and in snapshots taken before
 *     this component existed)
 * @param events the events of an event-triggered task counted on this window, or null
 * @param deadlineMissedAt when its deadline was recorded missed ({@link TaskJournal.DeadlineMissed}),
 *     or null (and in snapshots taken before deadlines existed); set once, it stays
 * @param poolWait the resource pool a PENDING window waits for ({@link TaskJournal.PoolWaited}), or
 *     null: not waiting, in any other status, and in snapshots taken before this component existed
 * @param usage what the window's attempts reported using, summed (the model the latest that named
 *     one), or null when none reported usage (and in snapshots taken before this component existed)
 * @param version the window's version: 1 when its instance is created, one more at each change of its
 *     status or attempt (0 for a window read from a snapshot taken before this component existed, until
 *     its next change); what an operator's action expects ({@link io.almanac.Expecting}) and the HTTP
 *     API's ETag
 * @param steps the durable steps recorded for the window's attempts by name, in the order recorded
 *     ({@link TaskJournal.StepRecorded}); kept while the window may run again and dropped once it is
 *     terminal (SUCCEEDED, CANCELLED, SKIPPED, MISSED, RESOLVED), so a done window holds none; empty in
 *     snapshots taken before steps existed, and not written when empty
 * @param interruptions the window's attempts interrupted in a row ({@link TaskJournal.AttemptInterrupted}),
 *     0 after any other outcome or a schedule that is not a resume (and in snapshots taken before
 *     interruptions were recorded; not written when 0)
 * @param missReason why the window was missed, when it is MISSED (null otherwise, and in snapshots
 *     taken before this component existed; not written when null): with {@code skipReason}, the typed
 *     cause ({@link io.almanac.ReasonCode}) of a window that did not run
 * @param endCause why its last attempt, or the window, ended without a success, while it is FAILED,
 *     TIMED_OUT, INTERRUPTED, RETRY_WAIT, FINAL_FAILED or CANCELLED (null otherwise, and in snapshots
 *     taken before this component existed; not written when null)
 * @param traceparent the W3C trace context of the span of its last started attempt, when the node
 *     that started it traced attempts (docs/tracing.md): the next attempt's span links to it (null
 *     otherwise, and in snapshots taken before this component existed; not written when null)
 */
public record WindowState(
    String key,
    Instant start,
    Instant end,
    Instant dueAt,
    InstanceStatus status,
    RunKind runKind,
    int attempt,
    int retries,
    int resultAttempt,
    Instant startedAt,
    Instant leaseUntil,
    String executor,
    Instant retryDueAt,
    String summary,
    String artifactUri,
    String reason,
    Map<String, String> effects,
    List<String> pendingEffects,
    Instant createdAt,
    Instant updatedAt,
    SkipReason skipReason,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) Instant waitUntil,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) EventTally events,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) Instant deadlineMissedAt,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) PoolWait poolWait,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) UsageRecord usage,
    long version,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY)
    Map<String, RecordedStep> steps,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT) int interruptions,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    MissReason missReason,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    io.almanac.EndCause endCause,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    String traceparent) {

  /** A window as snapshots held it before trace contexts were kept (none). */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events, Instant deadlineMissedAt, PoolWait poolWait, UsageRecord usage, long version,
      Map<String, RecordedStep> steps, int interruptions, MissReason missReason, io.almanac.EndCause endCause) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        deadlineMissedAt, poolWait, usage, version, steps, interruptions, missReason, endCause, null);
  }

  /**
   * A durable step's recorded result (see {@link TaskJournal.StepRecorded}).
   *
   * @param attempt the attempt that ran it
   * @param type the Java type the job asked the result as
   * @param result its result as JSON
   * @param usage what the job reported using inside it, or null
   * @param duration how long it ran
   * @param at when it was recorded
   */
  public record RecordedStep(int attempt, String type, String result,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
      UsageRecord usage, java.time.Duration duration, Instant at) {}

  /** A window as snapshots held it before end causes were kept (none). */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events, Instant deadlineMissedAt, PoolWait poolWait, UsageRecord usage, long version,
      Map<String, RecordedStep> steps, int interruptions, MissReason missReason) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        deadlineMissedAt, poolWait, usage, version, steps, interruptions, missReason, null);
  }

  /** A window as snapshots held it before miss reasons were kept (none). */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events, Instant deadlineMissedAt, PoolWait poolWait, UsageRecord usage, long version,
      Map<String, RecordedStep> steps, int interruptions) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        deadlineMissedAt, poolWait, usage, version, steps, interruptions, (MissReason) null);
  }

  /** A window as snapshots held it before steps and interruptions were recorded (none). */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events, Instant deadlineMissedAt, PoolWait poolWait, UsageRecord usage, long version) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        deadlineMissedAt, poolWait, usage, version, Map.of(), 0);
  }

  /** A window with steps, not interrupted. */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events, Instant deadlineMissedAt, PoolWait poolWait, UsageRecord usage, long version,
      Map<String, RecordedStep> steps) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        deadlineMissedAt, poolWait, usage, version, steps, 0);
  }

  /** A window without steps, interrupted this many times in a row. */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events, Instant deadlineMissedAt, PoolWait poolWait, UsageRecord usage, long version,
      int interruptions) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        deadlineMissedAt, poolWait, usage, version, Map.of(), interruptions);
  }

  /**
   * What a PENDING window waits for: a pool without room.
   *
   * @param pool the pool's name
   * @param reason why it has no room
   * @param until when the wait ends at the latest, or null when not known
   * @param since when the wait was recorded
   */
  public record PoolWait(String pool, io.almanac.PoolWaitReason reason, Instant until, Instant since) {}

  /**
   * @param sum the window's usage so far, or null
   * @param add an attempt's usage, or null
   * @return the two summed (the model the added one's when it names one), or null when both are
   */
  static UsageRecord plus(UsageRecord sum, UsageRecord add) {
    if (add == null || sum == null) {
      return add == null ? sum : add;
    }
    return new UsageRecord(add.model() != null ? add.model() : sum.model(), sum.tokensIn() + add.tokensIn(),
        sum.tokensOut() + add.tokensOut(), sum.costMicros() + add.costMicros());
  }

  /**
   * The events counted on a window (R9): a storm makes one instance, with its count and its first
   * and last event ids.
   *
   * @param received distinct events that mapped to the window
   * @param duplicates repeated deliveries of ids already received
   * @param firstId the first event's id
   * @param lastId the latest event's id
   */
  public record EventTally(long received, long duplicates, String firstId, String lastId) {

    EventTally receivedOne(String id) {
      return new EventTally(received + 1, duplicates, firstId == null ? id : firstId, id);
    }

    EventTally duplicatedOne() {
      return new EventTally(received, duplicates + 1, firstId, lastId);
    }
  }

  /** A window as snapshots held it before its version was kept (version 0). */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events, Instant deadlineMissedAt, PoolWait poolWait, UsageRecord usage) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        deadlineMissedAt, poolWait, usage, 0);
  }

  /** A window as snapshots held it before pool waits and window usage were kept. */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events, Instant deadlineMissedAt) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        deadlineMissedAt, null, null);
  }

  /** A window as snapshots held it before deadlines existed. */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason, Instant waitUntil,
      EventTally events) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, waitUntil, events,
        null);
  }

  /** A window as snapshots held it before waits and event tallies existed. */
  public WindowState(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind runKind,
      int attempt, int retries, int resultAttempt, Instant startedAt, Instant leaseUntil, String executor,
      Instant retryDueAt, String summary, String artifactUri, String reason, Map<String, String> effects,
      List<String> pendingEffects, Instant createdAt, Instant updatedAt, SkipReason skipReason) {
    this(key, start, end, dueAt, status, runKind, attempt, retries, resultAttempt, startedAt, leaseUntil, executor,
        retryDueAt, summary, artifactUri, reason, effects, pendingEffects, createdAt, updatedAt, skipReason, null, null);
  }

  /** Canonical constructor: the ledger and the steps are never null and never shared mutable. */
  public WindowState {
    effects = effects == null || effects.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(effects));
    pendingEffects = pendingEffects == null ? List.of() : List.copyOf(pendingEffects);
    steps = steps == null || steps.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(steps));
  }

  static WindowState created(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind kind,
      String reason, SkipReason skipReason, Instant at) {
    return created(key, start, end, dueAt, status, kind, reason, skipReason, null, at);
  }

  static WindowState created(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind kind,
      String reason, SkipReason skipReason, Instant waitUntil, Instant at) {
    return created(key, start, end, dueAt, status, kind, reason, skipReason, null, waitUntil, at);
  }

  /** A window created with its typed cause: the skip reason of a SKIPPED one, the miss reason of a MISSED one. */
  static WindowState created(String key, Instant start, Instant end, Instant dueAt, InstanceStatus status, RunKind kind,
      String reason, SkipReason skipReason, MissReason missReason, Instant waitUntil, Instant at) {
    return new WindowState(key, start, end, dueAt, status, kind, 0, 0, 0, null, null, null, null, null, null, reason, Map.of(),
        List.of(), at, at, skipReason, waitUntil, null, null, null, null, 1, Map.of(), 0,
        status == InstanceStatus.MISSED ? missReason : null);
  }

  Copy copy() {
    return new Copy(this);
  }

  /**
   * @return the typed cause of a window that did not run ({@link io.almanac.ReasonCode}): its skip reason when
   *     SKIPPED, its miss reason when MISSED; null in any other status and where the state keeps none
   */
  @com.fasterxml.jackson.annotation.JsonIgnore // derived from the persisted parts, never written
  public io.almanac.ReasonCode reasonCode() {
    return status == InstanceStatus.SKIPPED ? skipReason : status == InstanceStatus.MISSED ? missReason
        : keepsEndCause(status) ? endCause : null;
  }

  /**
   * @param status a window's status
   * @return whether a window in it keeps its {@link #endCause()}: it ended without a success, or
   *     waits for a retry after one that did
   */
  public static boolean keepsEndCause(InstanceStatus status) {
    return switch (status) {
      case FAILED, TIMED_OUT, INTERRUPTED, RETRY_WAIT, FINAL_FAILED, CANCELLED -> true;
      default -> false;
    };
  }

  /**
   * @param taskId the task's id
   * @param maxRetries the task's retry cap
   * @return the public view of this window
   */
  public WindowView view(String taskId, int maxRetries) {
    return WindowView.builder().taskId(taskId).window(WindowKey.of(key)).start(start).end(end).dueAt(dueAt)
        .status(status).runKind(runKind).attempt(attempt).retries(retries).maxRetries(maxRetries)
        .leaseUntil(leaseUntil).retryDueAt(retryDueAt).summary(summary).artifactUri(artifactUri).reason(reason)
        .effects(effects).createdAt(createdAt).updatedAt(updatedAt).startedAt(startedAt)
        .waitUntil(status == InstanceStatus.WAITING ? waitUntil : null)
        .events(events == null ? null
            : new WindowView.Events(events.received(), events.duplicates(), events.firstId(), events.lastId()))
        .deadlineMissedAt(deadlineMissedAt)
        .poolWait(poolWait == null ? null
            : new WindowView.PoolWait(poolWait.pool(), poolWait.reason(), poolWait.until(), poolWait.since()))
        .usage(usage == null ? null : new WindowView.Usage(usage.tokensIn(), usage.tokensOut(),
            io.almanac.Usage.fromMicros(usage.costMicros()), usage.model()))
        .skipReason(status == InstanceStatus.SKIPPED ? skipReason : null)
        .missReason(status == InstanceStatus.MISSED ? missReason : null)
        .endCause(keepsEndCause(status) ? endCause : null).version(version).build();
  }

  /** A mutable copy used only inside the event handler to build the next immutable state. */
  static final class Copy {
    InstanceStatus status;
    RunKind runKind;
    int attempt;
    int retries;
    int resultAttempt;
    Instant startedAt;
    Instant leaseUntil;
    String executor;
    Instant retryDueAt;
    String summary;
    String artifactUri;
    String reason;
    Map<String, String> effects;
    List<String> pendingEffects;
    SkipReason skipReason;
    Instant waitUntil;
    EventTally events;
    Instant deadlineMissedAt;
    PoolWait poolWait;
    UsageRecord usage;
    Map<String, RecordedStep> steps;
    int interruptions;
    io.almanac.EndCause endCause;
    String traceparent;
    private final WindowState from;

    private Copy(WindowState w) {
      from = w;
      status = w.status;
      runKind = w.runKind;
      attempt = w.attempt;
      retries = w.retries;
      resultAttempt = w.resultAttempt;
      startedAt = w.startedAt;
      leaseUntil = w.leaseUntil;
      executor = w.executor;
      retryDueAt = w.retryDueAt;
      summary = w.summary;
      artifactUri = w.artifactUri;
      reason = w.reason;
      effects = w.effects;
      pendingEffects = w.pendingEffects;
      skipReason = w.skipReason;
      waitUntil = w.waitUntil;
      events = w.events;
      deadlineMissedAt = w.deadlineMissedAt;
      poolWait = w.poolWait;
      usage = w.usage;
      steps = w.steps;
      interruptions = w.interruptions;
      endCause = w.endCause;
      traceparent = w.traceparent;
    }

    WindowState at(Instant updatedAt) {
      return new WindowState(from.key, from.start, from.end, from.dueAt, status, runKind, attempt, retries, resultAttempt,
          startedAt, leaseUntil, executor, retryDueAt, summary, artifactUri, reason, effects, pendingEffects, from.createdAt, updatedAt,
          status == InstanceStatus.SKIPPED ? skipReason : null, status == InstanceStatus.WAITING ? waitUntil : null, events,
          deadlineMissedAt, status == InstanceStatus.PENDING ? poolWait : null, usage,
          status != from.status || attempt != from.attempt ? from.version + 1 : from.version,
          status.isTerminal() ? Map.of() : steps, // a done window keeps no steps: they are in the journal
          interruptions, status == InstanceStatus.MISSED ? from.missReason : null, keepsEndCause(status) ? endCause : null,
          traceparent);
    }
  }
}
