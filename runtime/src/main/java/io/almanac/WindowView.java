package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.time.Instant;
import java.util.Map;

/**
 * One window of a task as an operator sees it (R29's instance row). Times are UTC instants (R26);
 * render them in the task's zone only for display. Made by the runtime and read by callers: it has
 * no public constructor, so that a part added later changes no caller's build (the runtime and its
 * modules make views with {@link Builder}, which is INTERNAL API). Two views are equal when all their
 * parts are, like a record's; {@link #toString()} names every part.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonDeserialize(builder = WindowView.Builder.class)
public final class WindowView {
  private final String taskId;
  private final WindowKey window;
  private final Instant start;
  private final Instant end;
  private final Instant dueAt;
  private final InstanceStatus status;
  private final RunKind runKind;
  private final int attempt;
  private final int retries;
  private final int maxRetries;
  private final Instant leaseUntil;
  private final Instant retryDueAt;
  private final String summary;
  private final String artifactUri;
  private final String reason;
  private final Map<String, String> effects;
  private final Instant createdAt;
  private final Instant updatedAt;
  private final Instant startedAt;
  private final Instant waitUntil;
  private final Events events;
  private final Instant deadlineMissedAt;
  private final PoolWait poolWait;
  private final Usage usage;
  private final SkipReason skipReason;
  private final long version;
  private final Progress progress;
  private final MissReason missReason;
  private final EndCause endCause;

  private WindowView(Builder b) {
    this.taskId = b.taskId;
    this.window = b.window;
    this.start = b.start;
    this.end = b.end;
    this.dueAt = b.dueAt;
    this.status = b.status;
    this.runKind = b.runKind;
    this.attempt = b.attempt;
    this.retries = b.retries;
    this.maxRetries = b.maxRetries;
    this.leaseUntil = b.leaseUntil;
    this.retryDueAt = b.retryDueAt;
    this.summary = b.summary;
    this.artifactUri = b.artifactUri;
    this.reason = b.reason;
    this.effects = b.effects;
    this.createdAt = b.createdAt;
    this.updatedAt = b.updatedAt;
    this.startedAt = b.startedAt;
    this.waitUntil = b.waitUntil;
    this.events = b.events;
    this.deadlineMissedAt = b.deadlineMissedAt;
    this.poolWait = b.poolWait;
    this.usage = b.usage;
    this.skipReason = b.skipReason;
    this.version = b.version;
    this.progress = b.progress;
    this.missReason = b.missReason;
    this.endCause = b.endCause;
  }

  /**
   * INTERNAL API: for the runtime and its modules (the HTTP API's SQL source, tests); a user reads
   * views, never makes one.
   *
   * @return a builder with every part null or 0
   * @hidden
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the task */
  public String taskId() {
    return taskId;
  }

  /** @return the window's key, e.g. {@code 2026-11-29} */
  public WindowKey window() {
    return window;
  }

  /** @return the window's start */
  public Instant start() {
    return start;
  }

  /** @return the window's end */
  public Instant end() {
    return end;
  }

  /** @return when the window fired (or was due) */
  public Instant dueAt() {
    return dueAt;
  }

  /** @return the instance's status (R20) */
  public InstanceStatus status() {
    return status;
  }

  /** @return why the current or last attempt runs (R18) */
  public RunKind runKind() {
    return runKind;
  }

  /** @return the number of the current or last attempt (0 before the first), the fencing token */
  public int attempt() {
    return attempt;
  }

  /** @return how many retries have been scheduled so far */
  public int retries() {
    return retries;
  }

  /** @return the task's retry cap (R15) */
  public int maxRetries() {
    return maxRetries;
  }

  /** @return when the running attempt's lease expires, or null */
  public Instant leaseUntil() {
    return leaseUntil;
  }

  /** @return when the next retry is due, or null */
  public Instant retryDueAt() {
    return retryDueAt;
  }

  /** @return the bounded summary of the success, or null */
  public String summary() {
    return summary;
  }

  /** @return where the success's full output is, or null */
  public String artifactUri() {
    return artifactUri;
  }

  /** @return why it failed, was skipped, missed, cancelled or resolved, or null */
  public String reason() {
    return reason;
  }

  /** @return the window's effect ledger (R19): effect key to recorded value */
  public Map<String, String> effects() {
    return effects;
  }

  /** @return when the instance was created */
  public Instant createdAt() {
    return createdAt;
  }

  /** @return when it last changed */
  public Instant updatedAt() {
    return updatedAt;
  }

  /** @return when the current or last attempt started, or null before the first */
  public Instant startedAt() {
    return startedAt;
  }

  /**
   * @return the deadline of a {@link InstanceStatus#WAITING} window (for its dependency or condition), null in any
   *     other status
   */
  public Instant waitUntil() {
    return waitUntil;
  }

  /** @return the events of an event-triggered task counted on this window, or null when none */
  public Events events() {
    return events;
  }

  /**
   * @return when the window was recorded as having missed its task's deadline ({@link TaskSpec#deadline()}: not
   *     SUCCEEDED by its due time plus the deadline while still open), or null
   */
  public Instant deadlineMissedAt() {
    return deadlineMissedAt;
  }

  /**
   * @return the resource pool ({@link PoolSpec}) a {@link InstanceStatus#PENDING} window waits for before its
   *     attempt may start, or null: not waiting, and in any other status (the wait ends when the window starts or
   *     reaches a done status)
   */
  public PoolWait poolWait() {
    return poolWait;
  }

  /**
   * @return what the window's attempts reported using ({@link JobResult#withUsage(io.almanac.Usage)}), summed, or
   *     null when none reported usage
   */
  public Usage usage() {
    return usage;
  }

  /**
   * @return why a {@link InstanceStatus#SKIPPED} window was skipped (e.g. {@link SkipReason#BUDGET_EXHAUSTED},
   *     {@link SkipReason#EXCLUDED}), so that code need not read it out of {@code reason}; null in any other status,
   *     and where the source keeps no typed reason
   */
  public SkipReason skipReason() {
    return skipReason;
  }

  /**
   * @return the window's version: one more at each change of its status or attempt; an operator's action that
   *     expects it ({@link Expecting#version(long)}) is refused, changing nothing, once the window moved on (the HTTP
   *     API's {@code ETag}); 0 where the source keeps none (the SQL instance table)
   */
  public long version() {
    return version;
  }

  /** @return the running attempt's live progress ({@link JobContext#progress(double, String)}), or null */
  public Progress progress() {
    return progress;
  }

  /**
   * @return why a {@link InstanceStatus#MISSED} window was missed ({@link MissReason#OUTSIDE_HORIZON}, {@link
   *     MissReason#BACKFILL_NOT_ALLOWED}), so that code need not read it out of {@code reason}; null in any other
   *     status, and where the source keeps no typed reason
   */
  public MissReason missReason() {
    return missReason;
  }

  /**
   * @return why its last attempt, or the window, ended without a success ({@link EndCause}), while it is FAILED,
   *     TIMED_OUT, INTERRUPTED, RETRY_WAIT, FINAL_FAILED or CANCELLED; null in any other status, and where the source
   *     keeps no typed cause
   */
  public EndCause endCause() {
    return endCause;
  }

  /**
   * The typed cause of a window that did not run or did not succeed: its {@link #skipReason()} when SKIPPED, its
   * {@link #missReason()} when MISSED, its {@link #endCause()} when it ended otherwise (the HTTP API's {@code
   * reasonCode}).
   *
   * @return the cause, or null: in any other status, and where the source keeps none
   */
  public ReasonCode reasonCode() {
    return skipReason != null ? skipReason : missReason != null ? missReason : endCause;
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
   * @param live the running attempt's live progress, or null
   * @return this view with that progress
   */
  public WindowView withProgress(Progress live) {
    return Builder.from(this).progress(live).build();
  }

  /**
   * @param other another object
   * @return whether it is a view with equal parts
   */
  @Override
  public boolean equals(Object other) {
    return this == other || other instanceof WindowView o && java.util.Arrays.equals(parts(), o.parts());
  }

  /** @return a hash of every part */
  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(parts());
  }

  /** @return every part, named, as a record shows them */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("WindowView[");
    Object[] parts = parts();
    for (int i = 0; i < parts.length; i++) {
      b.append(i == 0 ? "" : ", ").append(NAMES[i]).append('=').append(parts[i]);
    }
    return b.append(']').toString();
  }

  private static final String[] NAMES = {
      "taskId", "window", "start", "end", "dueAt", "status", "runKind", "attempt", "retries", "maxRetries",
      "leaseUntil", "retryDueAt", "summary", "artifactUri", "reason", "effects", "createdAt", "updatedAt",
      "startedAt", "waitUntil", "events", "deadlineMissedAt", "poolWait", "usage", "skipReason", "version",
      "progress", "missReason", "endCause"};

  private Object[] parts() {
    return new Object[] {
        taskId, window, start, end, dueAt, status, runKind, attempt, retries, maxRetries, leaseUntil, retryDueAt,
        summary, artifactUri, reason, effects, createdAt, updatedAt, startedAt, waitUntil, events, deadlineMissedAt,
        poolWait, usage, skipReason, version, progress, missReason, endCause};
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

  /**
   * INTERNAL API: makes a {@link WindowView}, part by part (for the runtime and its modules: a user
   * reads views, never makes one). A part not set is null or 0; the JSON of a view between
   * nodes is read through it too, so a part a node did not send reads so.
   *
   * @hidden
   */
  @JsonPOJOBuilder(withPrefix = "")
  public static final class Builder {
    private String taskId;
    private WindowKey window;
    private Instant start;
    private Instant end;
    private Instant dueAt;
    private InstanceStatus status;
    private RunKind runKind;
    private int attempt;
    private int retries;
    private int maxRetries;
    private Instant leaseUntil;
    private Instant retryDueAt;
    private String summary;
    private String artifactUri;
    private String reason;
    private Map<String, String> effects;
    private Instant createdAt;
    private Instant updatedAt;
    private Instant startedAt;
    private Instant waitUntil;
    private Events events;
    private Instant deadlineMissedAt;
    private PoolWait poolWait;
    private Usage usage;
    private SkipReason skipReason;
    private long version;
    private Progress progress;
    private MissReason missReason;
    private EndCause endCause;

    private Builder() {}

    private static Builder from(WindowView v) {
      Builder b = new Builder();
      b.taskId = v.taskId;
      b.window = v.window;
      b.start = v.start;
      b.end = v.end;
      b.dueAt = v.dueAt;
      b.status = v.status;
      b.runKind = v.runKind;
      b.attempt = v.attempt;
      b.retries = v.retries;
      b.maxRetries = v.maxRetries;
      b.leaseUntil = v.leaseUntil;
      b.retryDueAt = v.retryDueAt;
      b.summary = v.summary;
      b.artifactUri = v.artifactUri;
      b.reason = v.reason;
      b.effects = v.effects;
      b.createdAt = v.createdAt;
      b.updatedAt = v.updatedAt;
      b.startedAt = v.startedAt;
      b.waitUntil = v.waitUntil;
      b.events = v.events;
      b.deadlineMissedAt = v.deadlineMissedAt;
      b.poolWait = v.poolWait;
      b.usage = v.usage;
      b.skipReason = v.skipReason;
      b.version = v.version;
      b.progress = v.progress;
      b.missReason = v.missReason;
      b.endCause = v.endCause;
      return b;
    }

    /**
     * @param v taskId, see {@link WindowView#taskId()}
     * @return this builder
     */
    public Builder taskId(String v) {
      taskId = v;
      return this;
    }

    /**
     * @param v window, see {@link WindowView#window()}
     * @return this builder
     */
    public Builder window(WindowKey v) {
      window = v;
      return this;
    }

    /**
     * @param v start, see {@link WindowView#start()}
     * @return this builder
     */
    public Builder start(Instant v) {
      start = v;
      return this;
    }

    /**
     * @param v end, see {@link WindowView#end()}
     * @return this builder
     */
    public Builder end(Instant v) {
      end = v;
      return this;
    }

    /**
     * @param v dueAt, see {@link WindowView#dueAt()}
     * @return this builder
     */
    public Builder dueAt(Instant v) {
      dueAt = v;
      return this;
    }

    /**
     * @param v status, see {@link WindowView#status()}
     * @return this builder
     */
    public Builder status(InstanceStatus v) {
      status = v;
      return this;
    }

    /**
     * @param v runKind, see {@link WindowView#runKind()}
     * @return this builder
     */
    public Builder runKind(RunKind v) {
      runKind = v;
      return this;
    }

    /**
     * @param v attempt, see {@link WindowView#attempt()}
     * @return this builder
     */
    public Builder attempt(int v) {
      attempt = v;
      return this;
    }

    /**
     * @param v retries, see {@link WindowView#retries()}
     * @return this builder
     */
    public Builder retries(int v) {
      retries = v;
      return this;
    }

    /**
     * @param v maxRetries, see {@link WindowView#maxRetries()}
     * @return this builder
     */
    public Builder maxRetries(int v) {
      maxRetries = v;
      return this;
    }

    /**
     * @param v leaseUntil, see {@link WindowView#leaseUntil()}
     * @return this builder
     */
    public Builder leaseUntil(Instant v) {
      leaseUntil = v;
      return this;
    }

    /**
     * @param v retryDueAt, see {@link WindowView#retryDueAt()}
     * @return this builder
     */
    public Builder retryDueAt(Instant v) {
      retryDueAt = v;
      return this;
    }

    /**
     * @param v summary, see {@link WindowView#summary()}
     * @return this builder
     */
    public Builder summary(String v) {
      summary = v;
      return this;
    }

    /**
     * @param v artifactUri, see {@link WindowView#artifactUri()}
     * @return this builder
     */
    public Builder artifactUri(String v) {
      artifactUri = v;
      return this;
    }

    /**
     * @param v reason, see {@link WindowView#reason()}
     * @return this builder
     */
    public Builder reason(String v) {
      reason = v;
      return this;
    }

    /**
     * @param v effects, see {@link WindowView#effects()}
     * @return this builder
     */
    public Builder effects(Map<String, String> v) {
      effects = v;
      return this;
    }

    /**
     * @param v createdAt, see {@link WindowView#createdAt()}
     * @return this builder
     */
    public Builder createdAt(Instant v) {
      createdAt = v;
      return this;
    }

    /**
     * @param v updatedAt, see {@link WindowView#updatedAt()}
     * @return this builder
     */
    public Builder updatedAt(Instant v) {
      updatedAt = v;
      return this;
    }

    /**
     * @param v startedAt, see {@link WindowView#startedAt()}
     * @return this builder
     */
    public Builder startedAt(Instant v) {
      startedAt = v;
      return this;
    }

    /**
     * @param v waitUntil, see {@link WindowView#waitUntil()}
     * @return this builder
     */
    public Builder waitUntil(Instant v) {
      waitUntil = v;
      return this;
    }

    /**
     * @param v events, see {@link WindowView#events()}
     * @return this builder
     */
    public Builder events(Events v) {
      events = v;
      return this;
    }

    /**
     * @param v deadlineMissedAt, see {@link WindowView#deadlineMissedAt()}
     * @return this builder
     */
    public Builder deadlineMissedAt(Instant v) {
      deadlineMissedAt = v;
      return this;
    }

    /**
     * @param v poolWait, see {@link WindowView#poolWait()}
     * @return this builder
     */
    public Builder poolWait(PoolWait v) {
      poolWait = v;
      return this;
    }

    /**
     * @param v usage, see {@link WindowView#usage()}
     * @return this builder
     */
    public Builder usage(Usage v) {
      usage = v;
      return this;
    }

    /**
     * @param v skipReason, see {@link WindowView#skipReason()}
     * @return this builder
     */
    public Builder skipReason(SkipReason v) {
      skipReason = v;
      return this;
    }

    /**
     * @param v version, see {@link WindowView#version()}
     * @return this builder
     */
    public Builder version(long v) {
      version = v;
      return this;
    }

    /**
     * @param v progress, see {@link WindowView#progress()}
     * @return this builder
     */
    public Builder progress(Progress v) {
      progress = v;
      return this;
    }

    /**
     * @param v missReason, see {@link WindowView#missReason()}
     * @return this builder
     */
    public Builder missReason(MissReason v) {
      missReason = v;
      return this;
    }

    /**
     * @param v endCause, see {@link WindowView#endCause()}
     * @return this builder
     */
    public Builder endCause(EndCause v) {
      endCause = v;
      return this;
    }

    /** @return the view */
    public WindowView build() {
      return new WindowView(this);
    }
  }
}
