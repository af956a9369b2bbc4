package io.almanac.journal;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a task's journal holds: its events (past tense, data only) and its snapshot state. This is
 * the published format of the journal: the audit and any reader of the journal use these types and
 * {@link Evolve}, never the runtime's internals. Persisted: a type, component or enum constant is
 * never renamed without a migration ({@link JournalRenames}).
 *
 * <p>It holds its own types, not the public API's records: a task's spec is a {@link SpecRecord}
 * (converted from and to {@link io.almanac.TaskSpec} at the edges), so the API can change without a
 * journal migration. The enums it holds (statuses, run kinds, skip and miss reasons, a job's
 * outcome, the policies' modes) are shared with the API and persisted by name; their names are
 * pinned by a test ({@code PersistedEnumNamesTest}).
 */
public final class TaskJournal {

  private TaskJournal() {}

  /**
   * @param taskId a task id
   * @return the persistence id of the task's journal, {@code task|<id>}
   */
  public static String persistenceId(String taskId) {
    return "task|" + taskId;
  }

  // Events (past tense; data only; never renamed without a migration)

  /**
   * Something that happened to the task; the journal is the truth. The hierarchy is sealed: every
   * kind of event is listed here, and every reader of the journal that looks at events one kind at a
   * time does so through a {@link Visitor}, so a new kind does not compile until each of them says
   * what it does with it.
   */
  public sealed interface Event extends JournalSerializable
      permits SpecDefined, TaskPaused, TaskResumed, TaskRemoved, WindowEvent, BudgetRaised {
    /** @return when it happened (from the entity's clock) */
    Instant at();

    /**
     * @param visitor what to do with each kind of event
     * @param <R> what it returns
     * @return what the visitor returned for this event
     */
    <R> R accept(Visitor<R> visitor);
  }

  /**
   * An event about one window. Each kind states, in {@link #statusAfter}, what it does to its window's
   * status: that method is the one event-to-status mapping of the codebase. {@link Evolve} applies it
   * (checking {@link Transition}), decisions ask {@link Transition#check(InstanceStatus, WindowEvent)}
   * before they emit, and the audit and the read models fold the journal through {@link Evolve}.
   */
  public sealed interface WindowEvent extends Event
      permits InstanceScheduled, FireSkipped, WindowMissed, SkipRangeOpened, SkipRangeClosed, WindowsSkipped, AttemptStarted, WindowStarted, LeaseExtended,
          AttemptSucceeded, AttemptFailed, AttemptTimedOut, AttemptInterrupted, LateResultRecorded, RetryScheduled,
          InstanceFinalFailed, InstanceResolved, InstanceCancelled, EffectIntended, EffectRecorded, StepRecorded, StepsReplayed,
          EventReceived, EventDuplicated, WindowWaiting, WaitSatisfied, WaitEnded, ConditionCheckFailed,
          UpstreamRerunRecorded, PoolWaited, DeadlineMissed, AttemptLogged {
    /** @return the window key */
    String window();

    /**
     * What this event asks of its window's status.
     *
     * @param current the window's status before it, or null when the window has no instance
     * @return the status it asks the window to take, or null when it changes no status (leases, late
     *     results, effects, events, and a skip or miss recorded for a window that already has an
     *     instance). Whether the change is allowed is {@link Transition}'s to say.
     */
    InstanceStatus statusAfter(InstanceStatus current);

    /**
     * @return whether this kind of event can create its window's instance (a schedule, a skip, a miss
     *     or a wait: {@code statusAfter(null)} is not null)
     */
    default boolean createsInstance() {
      return statusAfter(null) != null;
    }
  }

  /**
   * What a reader of the journal does with each kind of event: one method per kind, none with a
   * default, so a new kind of event is a compile error in every reader until it is handled.
   *
   * @param <R> what it returns
   */
  public interface Visitor<R> {
    R specDefined(SpecDefined e);

    R taskPaused(TaskPaused e);

    R taskResumed(TaskResumed e);

    R taskRemoved(TaskRemoved e);

    R instanceScheduled(InstanceScheduled e);

    R fireSkipped(FireSkipped e);

    R windowMissed(WindowMissed e);

    R skipRangeOpened(SkipRangeOpened e);

    R skipRangeClosed(SkipRangeClosed e);

    R windowsSkipped(WindowsSkipped e);

    R attemptStarted(AttemptStarted e);

    /** A schedule and a start in one row: readers that look at each half see {@link WindowStarted#scheduled()} and {@link WindowStarted#started()}. */
    R windowStarted(WindowStarted e);

    R leaseExtended(LeaseExtended e);

    R attemptSucceeded(AttemptSucceeded e);

    R attemptFailed(AttemptFailed e);

    R attemptTimedOut(AttemptTimedOut e);

    R attemptInterrupted(AttemptInterrupted e);

    R lateResultRecorded(LateResultRecorded e);

    R retryScheduled(RetryScheduled e);

    R instanceFinalFailed(InstanceFinalFailed e);

    R instanceResolved(InstanceResolved e);

    R instanceCancelled(InstanceCancelled e);

    R effectIntended(EffectIntended e);

    R effectRecorded(EffectRecorded e);

    R stepRecorded(StepRecorded e);

    R stepsReplayed(StepsReplayed e);

    R eventReceived(EventReceived e);

    R eventDuplicated(EventDuplicated e);

    R windowWaiting(WindowWaiting e);

    R waitSatisfied(WaitSatisfied e);

    R waitEnded(WaitEnded e);

    R conditionCheckFailed(ConditionCheckFailed e);

    R upstreamRerunRecorded(UpstreamRerunRecorded e);

    R poolWaited(PoolWaited e);
    R deadlineMissed(DeadlineMissed e);

    R attemptLogged(AttemptLogged e);

    R budgetRaised(BudgetRaised e);
  }

  /**
   * An event an operator's action may record: it names who acted (an HTTP token's name, or the name
   * a Java API caller gave), or null when no operator did (and in events written before actors were
   * recorded).
   */
  public interface Acted {
    /** @return who acted, or null */
    String actor();
  }

  /**
   * The task's spec was defined or changed.
   *
   * @param spec the spec, as the journal holds it
   * @param at when
   */
  public record SpecDefined(SpecRecord spec, Instant at) implements Event {
    @Override
    public <R> R accept(Visitor<R> v) {
      return v.specDefined(this);
    }
  }

  /**
   * The task was paused.
   *
   * @param at when
   * @param cause why: null for an operator's pause (and in events written before causes were
   *     recorded); not written when null, so an operator's pause is written in the old shape
   * @param failures with {@link PauseCause#FAILURES}: the windows in a row that ended FINAL_FAILED, the
   *     first and the last; null otherwise (not written)
   * @param actor who paused it (an HTTP token's name, or the name a Java API caller gave), or null for
   *     the task's own pause and in events written before actors were recorded (not written when null)
   * @param note the operator's note, or null (not written when null)
   */
  public record TaskPaused(Instant at, @JsonInclude(JsonInclude.Include.NON_NULL) PauseCause cause,
      @JsonInclude(JsonInclude.Include.NON_NULL) FailureStreak failures,
      @JsonInclude(JsonInclude.Include.NON_NULL) String actor,
      @JsonInclude(JsonInclude.Include.NON_NULL) String note) implements Event, Acted {

    /** An operator's pause (as events written before causes were recorded read). */
    public TaskPaused(Instant at) {
      this(at, null, null, null, null);
    }

    /**
     * A pause as recorded before actors were recorded.
     *
     * @param at when
     * @param cause why, or null for an operator's pause
     * @param failures the failures that paused it, or null
     */
    public TaskPaused(Instant at, PauseCause cause, FailureStreak failures) {
      this(at, cause, failures, null, null);
    }

    /** @return whether the task paused itself because its windows failed ({@link PauseCause#FAILURES}) */
    public boolean onFailures() {
      return cause == PauseCause.FAILURES;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.taskPaused(this);
    }
  }

  /**
   * The task was resumed.
   *
   * @param at when
   * @param actor who resumed it, or null in events written before actors were recorded (not written when null)
   * @param note the operator's note, or null (not written when null)
   */
  public record TaskResumed(Instant at, @JsonInclude(JsonInclude.Include.NON_NULL) String actor,
      @JsonInclude(JsonInclude.Include.NON_NULL) String note) implements Event, Acted {

    /** @param at when (no actor recorded, as events written before actors were recorded read) */
    public TaskResumed(Instant at) {
      this(at, null, null);
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.taskResumed(this);
    }
  }

  /**
   * The task was removed: its trigger stopped, its open windows were cancelled (their {@link
   * InstanceCancelled} events come first, in the same write). Its history stays in the journal;
   * only queries and a new {@link SpecDefined} are accepted after it.
   */
  public record TaskRemoved(Instant at) implements Event {
    @Override
    public <R> R accept(Visitor<R> v) {
      return v.taskRemoved(this);
    }
  }

  /**
   * The window's instance was created, or reopened, as PENDING.
   *
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when it was due
   * @param kind how it runs
   * @param at when
   * @param actor the operator who ran, backfilled or retried it, or null when the schedule, a retry
   *     policy or the catch-up did (and in events written before actors were recorded); not written when null
   * @param note the operator's note, or null (not written when null)
   */
  public record InstanceScheduled(String window, Instant start, Instant end, Instant dueAt, RunKind kind, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) String actor,
      @JsonInclude(JsonInclude.Include.NON_NULL) String note)
      implements WindowEvent, Acted {

    /** A schedule without an operator (as events written before actors were recorded read). */
    public InstanceScheduled(String window, Instant start, Instant end, Instant dueAt, RunKind kind, Instant at) {
      this(window, start, end, dueAt, kind, at, null, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.PENDING;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.instanceScheduled(this);
    }
  }

  /** A due window did not run (R7). When the window already exists its status is unchanged. */
  public record FireSkipped(
      String window, Instant start, Instant end, Instant dueAt, SkipReason reason, String detail, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return current == null ? InstanceStatus.SKIPPED : null; // recorded beside an existing instance: unchanged
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.fireSkipped(this);
    }
  }

  /** A past window is not caught up (R12, R14). */
  public record WindowMissed(
      String window, Instant start, Instant end, Instant dueAt, MissReason reason, String detail, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return current == null ? InstanceStatus.MISSED : null; // recorded beside an existing instance: unchanged
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.windowMissed(this);
    }
  }

  /**
   * The first window of a streak did not run (R7), and the streak is recorded as one open {@link
   * SkipRange} (docs/skip-ranges.md): each further fire decided the same way (same outcome and
   * reason) is covered by it, with no event of its own, until a fire decided otherwise closes it
   * ({@link SkipRangeClosed}, in that fire's write). The window itself is created SKIPPED or MISSED,
   * as by {@link FireSkipped} or {@link WindowMissed}.
   *
   * @param window the first window's key
   * @param start its start
   * @param end its end
   * @param dueAt when it was due
   * @param outcome {@link InstanceStatus#SKIPPED} or {@link InstanceStatus#MISSED}
   * @param skipReason why, when skipped (not written when null)
   * @param missReason why, when missed (not written when null)
   * @param detail details for people
   * @param at when
   */
  public record SkipRangeOpened(String window, Instant start, Instant end, Instant dueAt, InstanceStatus outcome,
      @JsonInclude(JsonInclude.Include.NON_NULL) SkipReason skipReason,
      @JsonInclude(JsonInclude.Include.NON_NULL) MissReason missReason, String detail, Instant at)
      implements WindowEvent {

    /** @return the open range it records */
    public SkipRange range() {
      return new SkipRange(window, start, dueAt, null, null, null, 0, outcome, skipReason, missReason, detail, at, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return current == null ? outcome : null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.skipRangeOpened(this);
    }
  }

  /**
   * The open {@link SkipRange} that starts at {@code window} was closed: by the write of the first
   * fire decided otherwise (its events follow in the same write). Changes no status.
   *
   * @param window the range's first window
   * @param lastWindow the last window it covered
   * @param lastStart that window's start
   * @param lastDue when that window was due
   * @param count how many windows the range accounts for, its first and last included
   * @param at when
   * @param reason the words of the range's first window's reason ({@code PREVIOUS_RUNNING: window A is RUNNING}),
   *     which a read model's row of that window shows with the range's windows; null when not known (not written)
   */
  public record SkipRangeClosed(String window, String lastWindow, Instant lastStart, Instant lastDue, long count, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) String reason)
      implements WindowEvent {

    /** A close without its first window's words. */
    public SkipRangeClosed(String window, String lastWindow, Instant lastStart, Instant lastDue, long count, Instant at) {
      this(window, lastWindow, lastStart, lastDue, count, at, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.skipRangeClosed(this);
    }
  }

  /**
   * Consecutive windows that did not run for the same reason, recorded closed in one event: what a
   * catch-up writes for the windows of its batch decided alike (R12, R14). Its first window is created
   * SKIPPED or MISSED, as by {@link FireSkipped} or {@link WindowMissed}; the others are accounted for
   * by the range ({@link SkipRange}).
   *
   * @param window the first window's key
   * @param start its start
   * @param end its end
   * @param dueAt when it was due
   * @param lastWindow the last window's key
   * @param lastStart its start
   * @param lastDue when it was due
   * @param count how many windows, the first and the last included
   * @param outcome {@link InstanceStatus#SKIPPED} or {@link InstanceStatus#MISSED}
   * @param skipReason why, when skipped (not written when null)
   * @param missReason why, when missed (not written when null)
   * @param detail details for people, as of the first window
   * @param at when
   */
  public record WindowsSkipped(String window, Instant start, Instant end, Instant dueAt, String lastWindow,
      Instant lastStart, Instant lastDue, long count, InstanceStatus outcome,
      @JsonInclude(JsonInclude.Include.NON_NULL) SkipReason skipReason,
      @JsonInclude(JsonInclude.Include.NON_NULL) MissReason missReason, String detail, Instant at)
      implements WindowEvent {

    /** @return the closed range it records */
    public SkipRange range() {
      return new SkipRange(window, start, dueAt, lastWindow, lastStart, lastDue, count, outcome, skipReason, missReason,
          detail, at, at);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return current == null ? outcome : null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.windowsSkipped(this);
    }
  }

  /**
   * PENDING to RUNNING: attempt {@code attempt}, run by {@code executor}, holds the lease until
   * {@code leaseUntil}. {@code traceparent}: the W3C trace context of the attempt's span when the
   * node traces attempts (docs/tracing.md), so that the window's next attempt links to it; null
   * (and not written) without tracing and in events written before it existed.
   */
  public record AttemptStarted(String window, int attempt, RunKind kind, Instant leaseUntil, String executor, Instant at,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) String traceparent)
      implements WindowEvent {
    /** A start without a trace context. */
    public AttemptStarted(String window, int attempt, RunKind kind, Instant leaseUntil, String executor, Instant at) {
      this(window, attempt, kind, leaseUntil, executor, at, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.RUNNING;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.attemptStarted(this);
    }
  }

  /**
   * A fresh window was scheduled and its first attempt started in one step: what {@link
   * InstanceScheduled} followed by {@link AttemptStarted} record, in one journal row (the fire of a
   * window whose executor admitted it at once, R20, R21). Everything that reads the journal sees
   * the two events it stands for ({@link #expand}).
   *
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when it was due
   * @param kind why it runs (the scheduled and the started kind are the same)
   * @param attempt the attempt's number
   * @param leaseUntil the attempt's lease
   * @param executor the executor identity that runs it
   * @param at when
   * @param traceparent the attempt's trace context, or null (see {@link AttemptStarted})
   */
  public record WindowStarted(String window, Instant start, Instant end, Instant dueAt, RunKind kind, int attempt,
      Instant leaseUntil, String executor, Instant at, @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) String traceparent)
      implements WindowEvent {

    /** A window's start without a trace context. */
    public WindowStarted(String window, Instant start, Instant end, Instant dueAt, RunKind kind, int attempt,
        Instant leaseUntil, String executor, Instant at) {
      this(window, start, end, dueAt, kind, attempt, leaseUntil, executor, at, null);
    }

    /**
     * @param scheduled the window's schedule
     * @param started its first attempt's start, in the same step
     * @return the one event for both
     */
    public static WindowStarted of(InstanceScheduled scheduled, AttemptStarted started) {
      return new WindowStarted(scheduled.window(), scheduled.start(), scheduled.end(), scheduled.dueAt(), scheduled.kind(),
          started.attempt(), started.leaseUntil(), started.executor(), started.at(), started.traceparent());
    }

    /** @return the schedule it records */
    public InstanceScheduled scheduled() {
      return new InstanceScheduled(window, start, end, dueAt, kind, at);
    }

    /** @return the start it records */
    public AttemptStarted started() {
      return new AttemptStarted(window, attempt, kind, leaseUntil, executor, at, traceparent);
    }

    /** Its schedule, then its start: RUNNING (by way of PENDING, each step checked by {@link Evolve}). */
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.RUNNING;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.windowStarted(this);
    }
  }

  /**
   * The events an event stands for, in order: a {@link WindowStarted} is its schedule and its start;
   * any other event is itself. Code that looks at events one kind at a time (meters, reactions, the
   * audit) reads them through this.
   *
   * @param e an event
   * @return what it stands for
   */
  public static List<Event> expand(Event e) {
    return e instanceof WindowStarted w ? List.of(w.scheduled(), w.started()) : List.of(e);
  }

  /**
   * @param events events in journal order
   * @return what they stand for, in order (the same list when none needs expanding)
   */
  public static List<Event> expand(List<? extends Event> events) {
    boolean any = false;
    for (Event e : events) {
      any |= e instanceof WindowStarted;
    }
    if (!any) {
      @SuppressWarnings("unchecked")
      List<Event> same = (List<Event>) events;
      return same;
    }
    List<Event> out = new ArrayList<>(events.size() + 1);
    for (Event e : events) {
      out.addAll(expand(e));
    }
    return out;
  }

  /** A heartbeat extended the running attempt's lease. */
  public record LeaseExtended(String window, int attempt, Instant leaseUntil, Instant at) implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.leaseExtended(this);
    }
  }

  /**
   * The attempt succeeded (R22).
   *
   * @param usage what the attempt used, as its job reported it, or null (not reported, and in events
   *     written before usage was recorded); not written when null
   */
  public record AttemptSucceeded(
      String window, int attempt, Duration duration, String summary, String artifactUri, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) UsageRecord usage)
      implements WindowEvent {

    /** A success without usage (as events written before usage was recorded read). */
    public AttemptSucceeded(String window, int attempt, Duration duration, String summary, String artifactUri, Instant at) {
      this(window, attempt, duration, summary, artifactUri, at, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.SUCCEEDED;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.attemptSucceeded(this);
    }
  }

  /**
   * The attempt failed (R22), or its job answered throttled ({@link #throttled()}: then {@code
   * throttledFor} is the wait it asked for and {@code throttledPool} the pool it named, or null).
   *
   * @param window the window
   * @param attempt the attempt
   * @param duration how long it ran
   * @param reason why it failed
   * @param at when
   * @param throttledFor a throttled attempt's wait; null for a failure (and in events written before throttling)
   * @param throttledPool the pool a throttled result named, or null
   * @param usage what the attempt used, as its job reported it, or null (not reported, and in events
   *     written before usage was recorded); not written when null
   */
  public record AttemptFailed(String window, int attempt, Duration duration, String reason, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) Duration throttledFor,
      @JsonInclude(JsonInclude.Include.NON_NULL) String throttledPool,
      @JsonInclude(JsonInclude.Include.NON_NULL) UsageRecord usage) implements WindowEvent {
    /** A failure as recorded before throttling existed (or a plain one). */
    public AttemptFailed(String window, int attempt, Duration duration, String reason, Instant at) {
      this(window, attempt, duration, reason, at, null, null, null);
    }

    /** A failure or throttle without usage (as events written before usage was recorded read). */
    public AttemptFailed(String window, int attempt, Duration duration, String reason, Instant at, Duration throttledFor,
        String throttledPool) {
      this(window, attempt, duration, reason, at, throttledFor, throttledPool, null);
    }

    /** @return whether the job answered throttled (the attempt ended THROTTLED, not counted against the retry cap) */
    public boolean throttled() {
      return throttledFor != null;
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.FAILED;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.attemptFailed(this);
    }
  }

  /** The attempt's lease expired (R23). */
  public record AttemptTimedOut(String window, int attempt, Instant leaseUntil, Duration duration, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.TIMED_OUT;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.attemptTimedOut(this);
    }
  }

  /**
   * The attempt was interrupted by its node's life, not by its job (RUNNING to INTERRUPTED): its node
   * stopped past its grace, died, or was fenced out. Always followed in the same write by what comes
   * of it: an {@link InstanceScheduled} with {@link RunKind#RESUME} (no retry spent), an {@link
   * InstanceFinalFailed} (the task's {@code on-interruption} is FAIL), or the retry policy's decision
   * (interrupted more than {@code max-resumes} times in a row).
   *
   * @param window the window
   * @param attempt the attempt interrupted
   * @param cause why
   * @param detail what was seen, for people (the executor's identity, the grace that ended)
   * @param at when it was recorded
   */
  public record AttemptInterrupted(String window, int attempt, io.almanac.InterruptCause cause, String detail, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.INTERRUPTED;
    }

    /** @return the reason a window keeps for it: {@code interrupted (CAUSE): detail} */
    public String reason() {
      return "interrupted (" + cause + "): " + detail;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.attemptInterrupted(this);
    }
  }

  /**
   * A result arrived from an attempt that no longer holds the window; kept for audit only (and its
   * usage counts towards the day's: the money was spent).
   *
   * @param usage what the attempt used, as its job reported it, or null; not written when null
   */
  public record LateResultRecorded(String window, int attempt, JobResult.Outcome outcome, String detail, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) UsageRecord usage)
      implements WindowEvent {

    /** A late result without usage (as events written before usage was recorded read). */
    public LateResultRecorded(String window, int attempt, JobResult.Outcome outcome, String detail, Instant at) {
      this(window, attempt, outcome, detail, at, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.lateResultRecorded(this);
    }
  }

  /**
   * What an attempt logged ({@link io.almanac.JobContext#log()}) and the stack trace of its failure,
   * bounded by the executor ({@code almanac.executor.job-log.*}). Written once, in the same write as
   * the attempt's end (its success, failure or late result), and only when there is something to keep:
   * an attempt that logged nothing and did not throw writes no such event. Kept with the window's
   * history (the journal, with its retention), never in the task's hot state: folding it changes
   * nothing.
   *
   * @param window the window
   * @param attempt the attempt
   * @param lines the kept lines, in order
   * @param droppedLines how many lines were logged past the bound (0: none, not written)
   * @param stackTrace the failure's stack trace, or null (not written)
   * @param at when the attempt's end was recorded
   */
  public record AttemptLogged(String window, int attempt, List<LogLine> lines,
      @JsonInclude(JsonInclude.Include.NON_DEFAULT) int droppedLines,
      @JsonInclude(JsonInclude.Include.NON_NULL) String stackTrace, Instant at) implements WindowEvent {

    /** Keeps a copy of the lines; null lines (absent in the JSON) read as none. */
    public AttemptLogged {
      lines = lines == null ? List.of() : List.copyOf(lines);
    }

    /**
     * @param window the window
     * @param attempt the attempt
     * @param log what it left
     * @param at when
     * @return the event
     */
    public static AttemptLogged of(String window, int attempt, AttemptLog log, Instant at) {
      return new AttemptLogged(window, attempt, log.lines(), log.droppedLines(), log.stackTrace(), at);
    }

    /** @return the lines, the dropped count and the stack trace as one value */
    public AttemptLog log() {
      return new AttemptLog(lines, droppedLines, stackTrace);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.attemptLogged(this);
    }
  }

  /** A retry was scheduled (R13, R15). */
  public record RetryScheduled(String window, int retryNumber, Instant dueAt, Instant at) implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.RETRY_WAIT;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.retryScheduled(this);
    }
  }

  /**
   * The window failed for good and waits in the intervention queue (R15).
   *
   * <p>{@code reason} is the text people read and the instance table keeps ({@code fail_reason},
   * R29): the retry policy's decision, then {@code ; last: } and the failed or timed-out attempt's
   * own reason. The two facts it is made of are also carried as they are ({@code decision}, {@code
   * lastCause}), so no reader takes the text apart. Both are null in events written before they
   * existed (the JSON has no such field) and in events built with the three-argument constructor;
   * a null part is not written, so such an event is written in the old shape.
   *
   * @param window the window's key
   * @param reason the whole reason, as rendered by {@link #after}
   * @param at when
   * @param decision why no retry follows (e.g. {@code retry cap 3 reached}), or null when not recorded
   * @param lastCause the reason of the attempt that failed or timed out last, or null when not recorded
   */
  public record InstanceFinalFailed(String window, String reason, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) String decision,
      @JsonInclude(JsonInclude.Include.NON_NULL) String lastCause)
      implements WindowEvent {

    /** A final failure recorded without its parts (as events written before they existed read). */
    public InstanceFinalFailed(String window, String reason, Instant at) {
      this(window, reason, at, null, null);
    }

    /**
     * The final failure after a failed or timed-out attempt: its reason is rendered from the two facts.
     *
     * @param window the window's key
     * @param decision why no retry follows
     * @param lastCause the last attempt's reason
     * @param at when
     * @return the event, its reason {@code <decision>; last: <lastCause>}
     */
    public static InstanceFinalFailed after(String window, String decision, String lastCause, Instant at) {
      return new InstanceFinalFailed(window, decision + "; last: " + lastCause, at, decision, lastCause);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.FINAL_FAILED;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.instanceFinalFailed(this);
    }
  }

  /**
   * An operator resolved a FINAL_FAILED window.
   *
   * @param window the window's key
   * @param note the operator's note
   * @param at when
   * @param actor who resolved it, or null in events written before actors were recorded (not written when null)
   */
  public record InstanceResolved(String window, String note, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) String actor) implements WindowEvent, Acted {

    /** A resolve without its actor (as events written before actors were recorded read). */
    public InstanceResolved(String window, String note, Instant at) {
      this(window, note, at, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.RESOLVED;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.instanceResolved(this);
    }
  }

  /** Why a task paused: persisted by name with {@link TaskPaused}; an operator's pause has no cause (null). */
  public enum PauseCause {
    /** Its {@code pause-after-failures} windows in a row ended FINAL_FAILED: it paused itself. */
    FAILURES
  }

  /**
   * Windows in a row that ended FINAL_FAILED (pause on failure): how many, the first and the last.
   * Kept in the task's state (bounded: three fields) and carried by a {@link TaskPaused} it caused.
   *
   * @param count how many windows in a row
   * @param first the first window's key
   * @param last the latest window's key
   * @param pausedAt in the task's state: when this streak paused the task (null until then, and in
   *     the {@link TaskPaused} event, where it is not written)
   */
  public record FailureStreak(int count, String first, String last,
      @JsonInclude(JsonInclude.Include.NON_NULL) Instant pausedAt) {

    /**
     * @param count how many windows in a row
     * @param first the first window's key
     * @param last the latest window's key
     */
    public FailureStreak(int count, String first, String last) {
      this(count, first, last, null);
    }

    /**
     * The streak with one more window. A window the streak already counts as its first or its last
     * (an operator retried it and it failed again) is not counted twice: the streak is unchanged.
     *
     * @param streak the streak so far, or null for none
     * @param window a window that just ended FINAL_FAILED
     * @return the streak with it
     */
    public static FailureStreak plus(FailureStreak streak, String window) {
      if (streak != null && (window.equals(streak.first) || window.equals(streak.last))) {
        return streak;
      }
      return streak == null ? new FailureStreak(1, window, window)
          : new FailureStreak(streak.count + 1, streak.first, window, streak.pausedAt);
    }

    /** @return this streak as a {@link TaskPaused} event carries it (without {@link #pausedAt}) */
    public FailureStreak facts() {
      return pausedAt == null ? this : new FailureStreak(count, first, last);
    }
  }

  /**
   * A window had not SUCCEEDED by its deadline ({@code deadline} after its due time) while it was
   * still open (PENDING, WAITING, RUNNING or waiting to retry). Recorded once per window; it changes
   * no status: the window goes on as before.
   *
   * @param window the window's key
   * @param dueAt when the window was due
   * @param deadline when it had to have succeeded (its fire time, the due time plus its jitter
   *     offset if any, plus the task's deadline)
   * @param status the window's status when the deadline passed
   * @param attempt its attempt then (0 before the first)
   * @param at when it was recorded (the deadline, or later when the task was down or passivated then)
   */
  public record DeadlineMissed(String window, Instant dueAt, Instant deadline, InstanceStatus status, int attempt, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.deadlineMissed(this);
    }
  }

  /**
   * Who or what cancels a window's instance: persisted by name with {@link InstanceCancelled}, so
   * readers tell a removal, an overlap policy's cancel and an operator's cancel apart without
   * reading its reason.
   */
  public enum CancelCause {
    /** An operator cancelled it (R31); the reason is the operator's. */
    OPERATOR,
    /** The task was removed (R31): its open windows are cancelled with the removal. */
    TASK_REMOVED,
    /** The overlap policy CANCEL_PREVIOUS cancelled it when the task's next window fired (R6). */
    SUPERSEDED
  }

  /**
   * The window's instance was cancelled.
   *
   * @param window the window's key
   * @param attempt the attempt it had
   * @param reason the reason people read
   * @param at when
   * @param cause who or what cancelled it, or null in events written before it was recorded (the JSON
   *     has no such field) and in events built with the four-argument constructor; not written when null
   * @param actor with {@link CancelCause#OPERATOR}: who cancelled it; null otherwise and in events
   *     written before actors were recorded (not written when null)
   */
  public record InstanceCancelled(String window, int attempt, String reason, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) CancelCause cause,
      @JsonInclude(JsonInclude.Include.NON_NULL) String actor)
      implements WindowEvent, Acted {

    /** A cancel recorded without its cause (as events written before it existed read). */
    public InstanceCancelled(String window, int attempt, String reason, Instant at) {
      this(window, attempt, reason, at, null, null);
    }

    /**
     * A cancel recorded without its actor (as events written before actors were recorded read).
     *
     * @param window the window's key
     * @param attempt the attempt it had
     * @param reason the reason people read
     * @param at when
     * @param cause who or what cancelled it, or null
     */
    public InstanceCancelled(String window, int attempt, String reason, Instant at, CancelCause cause) {
      this(window, attempt, reason, at, cause, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.CANCELLED;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.instanceCancelled(this);
    }
  }

  /** An effect is about to run: if no {@link EffectRecorded} follows, its outcome is unknown (R19). */
  public record EffectIntended(String window, int attempt, String key, Instant at) implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.effectIntended(this);
    }
  }

  /** An effect was recorded in the window's ledger (R19). */
  public record EffectRecorded(String window, int attempt, String key, String value, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.effectRecorded(this);
    }
  }

  /**
   * A durable step of the window's job completed and its result was recorded ({@link
   * io.almanac.JobContext#step}): every later attempt of the window gets this result without running
   * the step again. Distinct from the effect ledger ({@link EffectRecorded}): a step is work that may
   * be repeated but should not be; it has no intent and no unknown outcome. Recorded only by the
   * attempt that holds the window (fenced by {@code attempt}).
   *
   * @param window the window
   * @param attempt the attempt that ran the step
   * @param name the step's name, unique within the window
   * @param type the Java type the job asked the result as, when it ran (named in the error of a
   *     later attempt that asks for a type the result does not read as)
   * @param result the step's result as JSON (bounded: {@code almanac.task.max-step-result-size})
   * @param usage what the job reported using inside the step, or null; counted toward the task's
   *     budget once, here (a replay reports none); not written when null
   * @param duration how long the step ran
   * @param at when it was recorded
   */
  public record StepRecorded(String window, int attempt, String name, String type, String result,
      @JsonInclude(JsonInclude.Include.NON_NULL) UsageRecord usage, Duration duration, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.stepRecorded(this);
    }
  }

  /**
   * An attempt got these steps' recorded results without running them ({@link StepRecorded} by an
   * earlier attempt). Told once, with the attempt's result, in the same write as its end: a replay
   * costs no write of its own, and an attempt that replayed no step writes none.
   *
   * @param window the window
   * @param attempt the attempt that replayed them
   * @param names the steps' names, in the order the attempt reached them
   * @param at when it was recorded
   */
  public record StepsReplayed(String window, int attempt, List<String> names, Instant at) implements WindowEvent {
    /** Canonical constructor: never null, never shared mutable. */
    public StepsReplayed {
      names = names == null ? List.of() : List.copyOf(names);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.stepsReplayed(this);
    }
  }

  /**
   * An event of an event-triggered task's type arrived for this window (R9) and was recorded: its
   * id is remembered (a second delivery is a duplicate) and counted on the window. When it created
   * the window, the decision that did comes first in the same write.
   *
   * @param window the window it maps to
   * @param type the event type
   * @param eventId the event's id
   * @param eventTime the event's own time, or null
   * @param summary the publisher's summary, or null
   * @param at when it arrived
   */
  public record EventReceived(String window, String type, String eventId, Instant eventTime, String summary, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.eventReceived(this);
    }
  }

  /**
   * An event id arrived again (R9): counted on the window it first mapped to; nothing else changes.
   *
   * @param window the window the id first mapped to
   * @param eventId the event's id
   * @param at when it arrived again
   */
  public record EventDuplicated(String window, String eventId, Instant at) implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.eventDuplicated(this);
    }
  }

  /**
   * A due window of a task with a dependency or condition waits for it until {@code waitUntil} (R9).
   *
   * @param window the window
   * @param start its start
   * @param end its end
   * @param dueAt when it came due
   * @param kind why it will run (a first run, or a backfill of a missed window)
   * @param waitingFor what it waits for, for people
   * @param waitUntil its deadline
   * @param at when
   */
  public record WindowWaiting(String window, Instant start, Instant end, Instant dueAt, RunKind kind, String waitingFor,
      Instant waitUntil, Instant at) implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return InstanceStatus.WAITING;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.windowWaiting(this);
    }
  }

  /**
   * What a waiting (or not-met) window waited for was met, and why; the decision that follows (its
   * schedule, or a skip by the overlap policy) comes next in the same write.
   *
   * @param window the window
   * @param detail what was met, e.g. {@code upstream order-export succeeded for 2026-11-29 at ...}
   * @param at when
   */
  public record WaitSatisfied(String window, String detail, Instant at) implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null; // the decision that follows it in the same write changes the status
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.waitSatisfied(this);
    }
  }

  /**
   * A waiting window did not run: its deadline passed first ({@link SkipReason#DEPENDENCY_NOT_MET},
   * {@link SkipReason#CONDITION_NOT_MET}), or its overlap policy skipped it when it was met; or a
   * PENDING window waiting for a resource pool whose budget for the day was spent ({@code pool} set).
   *
   * @param window the window
   * @param reason why
   * @param detail details for people
   * @param at when
   * @param pool the resource pool whose budget for the day was spent before a PENDING window started
   *     ({@link SkipReason#BUDGET_EXHAUSTED}); null otherwise (and in events written before it existed)
   */
  public record WaitEnded(String window, SkipReason reason, String detail, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) String pool) implements WindowEvent {
    /**
     * @param window the window
     * @param reason why
     * @param detail details for people
     * @param at when
     */
    public WaitEnded(String window, SkipReason reason, String detail, Instant at) {
      this(window, reason, detail, at, null);
    }

    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return current == null ? null : InstanceStatus.SKIPPED; // it ends a wait: it never creates an instance
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.waitEnded(this);
    }
  }

  /**
   * A poll of the task's condition for a waiting window failed (threw, failed or timed out); it is
   * polled again at the next poll (R9). Recorded when a run of failures starts or its error changes.
   *
   * @param window the window
   * @param condition the condition's name
   * @param error what went wrong
   * @param at when
   */
  public record ConditionCheckFailed(String window, String condition, String error, Instant at) implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.conditionCheckFailed(this);
    }
  }

  /**
   * An upstream task succeeded for a window after this task's window had already run (R9); what the
   * task's {@code on-upstream-rerun} option decided is recorded.
   *
   * @param window this task's window
   * @param upstream the upstream task
   * @param upstreamWindow its window
   * @param decision {@code KEPT} or {@code RUN_AGAIN}
   * @param detail why, for people
   * @param at when
   */
  public record UpstreamRerunRecorded(String window, String upstream, String upstreamWindow, String decision, String detail,
      Instant at) implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null; // a run again that it decided is its own schedule event
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.upstreamRerunRecorded(this);
    }
  }

  /**
   * A PENDING window waits for a resource pool (recorded at most once per pool and reason in the
   * window's attempt: when a wait starts and when a reason new to the attempt comes; not at every try
   * or flip): it starts when every pool its task names
   * has room. Changes no status.
   *
   * @param window the window
   * @param pool the pool without room
   * @param reason why: full, its rate, or paused by a throttled job
   * @param until when the wait ends at the latest, if known (a pause's end, the next rate token), or null
   * @param at when
   */
  public record PoolWaited(String window, String pool, io.almanac.PoolWaitReason reason, Instant until, Instant at)
      implements WindowEvent {
    @Override
    public InstanceStatus statusAfter(InstanceStatus current) {
      return null;
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.poolWaited(this);
    }
  }

  /**
   * An operator raised the task's budget for one day (its zone's): that day's limit is the spec's
   * budget per day plus every raise of that day; the next day starts afresh at the spec's budget.
   *
   * @param day the day raised, in the task's zone
   * @param amountMicros how much it was raised by, in millionths (more than 0)
   * @param limitMicros the day's limit after the raise, in millionths, for people and the audit
   * @param note the operator's note, or null
   * @param at when
   * @param actor who raised it, or null in events written before actors were recorded (not written when null)
   */
  public record BudgetRaised(java.time.LocalDate day, long amountMicros, long limitMicros, String note, Instant at,
      @JsonInclude(JsonInclude.Include.NON_NULL) String actor)
      implements Event, Acted {

    /** A raise without its actor (as events written before actors were recorded read). */
    public BudgetRaised(java.time.LocalDate day, long amountMicros, long limitMicros, String note, Instant at) {
      this(day, amountMicros, limitMicros, note, at, null);
    }

    @Override
    public <R> R accept(Visitor<R> v) {
      return v.budgetRaised(this);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // State

  /**
   * The task's state: immutable; the event handler builds the next one.
   *
   * @param spec the task's spec as the journal holds it, null until defined
   * @param paused whether the task is paused
   * @param windows the hot windows by key
   * @param archivedThrough the latest start of a window that left the hot state, or null
   * @param archivedCount how many windows left the hot state
   * @param samples recent attempt durations
   * @param removedAt when the task was removed ({@link TaskRemoved}), or null while it is defined
   *     (and in snapshots taken before this component existed)
   * @param eventIds the event ids an event-triggered task remembers, each with the window it mapped
   *     to, oldest first (empty in snapshots taken before this component existed)
   * @param failures the windows in a row that ended FINAL_FAILED since the last SUCCEEDED window or
   *     resume (pause on failure), or null for none (and in snapshots taken before it existed)
   * @param budget the task's usage of its current day ({@link BudgetDay}), or null before any usage,
   *     raise or budget skip (and in snapshots taken before this component existed)
   * @param openRange the task's open skip range ({@link SkipRange}, docs/skip-ranges.md), or null
   *     (not written when null)
   * @param ranges the recent closed skip ranges, oldest first: a range leaves with its first window
   *     when that leaves the hot state (R30), its other windows counted into {@code archivedCount}
   *     and {@code archivedThrough}; not written when empty
   */
  public record State(
      SpecRecord spec,
      boolean paused,
      Map<String, WindowState> windows,
      Instant archivedThrough,
      long archivedCount,
      DurationSamples samples,
      Instant removedAt,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY)
      Map<String, String> eventIds,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
      FailureStreak failures,
      @JsonInclude(JsonInclude.Include.NON_NULL) BudgetDay budget,
      @JsonInclude(JsonInclude.Include.NON_NULL) SkipRange openRange,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SkipRange> ranges)
      implements JournalSerializable {

    /**
     * Canonical constructor: the windows are a {@link WindowTable} and the event ids an ordered
     * persistent map, never null, never shared mutable; a state built from another state shares their
     * structure (a snapshot's plain maps are converted once).
     */
    public State {
      windows = WindowTable.of(windows);
      eventIds = OrderedMap.from(eventIds);
      ranges = ranges == null ? List.of() : List.copyOf(ranges);
    }

    /** A state as snapshots held it before skip ranges were kept (docs/skip-ranges.md). */
    public State(SpecRecord spec, boolean paused, Map<String, WindowState> windows, Instant archivedThrough,
        long archivedCount, DurationSamples samples, Instant removedAt, Map<String, String> eventIds,
        FailureStreak failures, BudgetDay budget) {
      this(spec, paused, windows, archivedThrough, archivedCount, samples, removedAt, eventIds, failures, budget, null,
          List.of());
    }

    /** @return the hot windows as the table they are kept in (with its indexes) */
    public WindowTable table() {
      return (WindowTable) windows;
    }

    /** A state as snapshots held it before failure streaks were kept and usage was summed. */
    public State(SpecRecord spec, boolean paused, Map<String, WindowState> windows, Instant archivedThrough,
        long archivedCount, DurationSamples samples, Instant removedAt, Map<String, String> eventIds) {
      this(spec, paused, windows, archivedThrough, archivedCount, samples, removedAt, eventIds, null, null);
    }

    /** A state as snapshots held it before event ids were remembered. */
    public State(SpecRecord spec, boolean paused, Map<String, WindowState> windows, Instant archivedThrough,
        long archivedCount, DurationSamples samples, Instant removedAt) {
      this(spec, paused, windows, archivedThrough, archivedCount, samples, removedAt, Map.of());
    }

    public static State empty(int sampleCapacity) {
      return new State(null, false, Map.of(), null, 0, DurationSamples.empty(sampleCapacity), null, Map.of(), null, null,
          null, List.of());
    }

    /**
     * @param eventId an event id
     * @return the window it mapped to when it first arrived, if this task remembers it
     */
    public Optional<String> eventWindow(String eventId) {
      return Optional.ofNullable(eventIds.get(eventId));
    }

    State withEventId(String eventId, String window, int keep) {
      if (eventIds.containsKey(eventId)) {
        return this;
      }
      OrderedMap<String, String> next = ((OrderedMap<String, String>) eventIds).plus(eventId, window);
      while (next.size() > Math.max(1, keep)) {
        next = next.minus(next.firstKey()); // the oldest id leaves
      }
      return new State(spec, paused, windows, archivedThrough, archivedCount, samples, removedAt, next, failures, budget, openRange, ranges);
    }

    /** See the record. */
    public boolean defined() {
      return spec != null;
    }

    /** @return whether the task was removed (its spec is kept for its history's queries) */
    public boolean removed() {
      return removedAt != null;
    }

    /** See the record. */
    public Optional<WindowState> window(String key) {
      return Optional.ofNullable(windows.get(key));
    }

    /** See the record. */
    public boolean archived(Instant start) {
      return archivedThrough != null && !start.isAfter(archivedThrough);
    }

    /**
     * The task's fresh instances a new on-time fire overlaps with (R6): first runs and their retries
     * that are running or waiting to run or retry. Backfills and manual runs are backlog: they do not
     * make fresh windows skip, and CANCEL_PREVIOUS does not cancel them (R11).
     */
    /** See the record. */
    public List<WindowState> activeForOverlap() {
      List<WindowState> out = new ArrayList<>();
      for (WindowState w : table().live()) {
        boolean fresh = w.runKind() == RunKind.FIRST || w.runKind() == RunKind.RETRY;
        if (fresh && w.status().isActive()) {
          out.add(w);
        }
      }
      return out;
    }

    /** See the record. */
    public Optional<WindowState> running(String except) {
      for (WindowState w : table().live()) {
        if (w.status() == InstanceStatus.RUNNING && !w.key().equals(except)) {
          return Optional.of(w);
        }
      }
      return Optional.empty();
    }

    /** See the record. */
    public boolean hasActive() {
      for (WindowState w : table().live()) {
        if (w.status().isActive()) {
          return true;
        }
      }
      return false;
    }

    State withFailures(FailureStreak f) {
      return new State(spec, paused, windows, archivedThrough, archivedCount, samples, removedAt, eventIds, f, budget, openRange, ranges);
    }

    State withSpec(SpecRecord s) {
      return new State(s, paused, windows, archivedThrough, archivedCount, samples, removedAt, eventIds, failures, budget, openRange, ranges);
    }

    State withPaused(boolean p) {
      return new State(spec, p, windows, archivedThrough, archivedCount, samples, removedAt, eventIds, failures, budget, openRange, ranges);
    }

    State withRemovedAt(Instant at) {
      return new State(spec, paused, windows, archivedThrough, archivedCount, samples, at, eventIds, failures, budget, openRange, ranges);
    }

    State withSample(Duration d) {
      return new State(spec, paused, windows, archivedThrough, archivedCount, samples.add(d), removedAt, eventIds, failures, budget, openRange, ranges);
    }

    /**
     * The state with this window put in; then windows that are done leave the hot state (R30): by age,
     * every done window that ended more than {@code hot.maxAge()} before this event; and, as a memory
     * bound only, while more than {@code hot.windows()} windows are done, the done window with the
     * oldest start, whatever its terminal status. Live and FINAL_FAILED windows never leave and never
     * count toward the bound, so a bulk action (a backfill, its bulk cancel) can push out only done
     * windows older than its own, never a recent one; and the bound is at least twice the largest
     * backfill ({@code TaskSettings}), so one backfill and its bulk cancel do not reach it. They stay in
     * the journal for audit. Only event data is used (replay is deterministic).
     */
    State withWindow(WindowState w, HotState hot) {
      WindowTable next = table().with(w);
      Instant through = archivedThrough;
      long count = archivedCount;
      while (next.doneCount() > hot.windows()) {
        WindowState x = next.nextToLeave();
        if (x == null) {
          break;
        }
        next = next.without(x.key());
        count++;
        through = later(through, x.start());
      }
      Instant cutoff = w.updatedAt() == null ? null : w.updatedAt().minus(hot.maxAge());
      while (cutoff != null) {
        WindowState x = next.earliestEnded();
        if (x == null || x.end() == null || !x.end().isBefore(cutoff)) {
          break;
        }
        next = next.without(x.key());
        count++;
        through = later(through, x.start());
      }
      List<SkipRange> kept = ranges;
      if (count != archivedCount && !ranges.isEmpty()) {
        // a closed range leaves with its first window; its other windows are counted as archived with it
        List<SkipRange> stay = new ArrayList<>(ranges.size());
        for (SkipRange r : ranges) {
          if (next.containsKey(r.firstWindow())) {
            stay.add(r);
          } else {
            count += Math.max(0, r.count() - 1);
            through = later(through, r.lastStart());
          }
        }
        kept = stay.size() == ranges.size() ? ranges : stay;
      }
      return new State(spec, paused, next, through, count, samples, removedAt, eventIds, failures, budget, openRange, kept);
    }

    // Skip ranges (docs/skip-ranges.md)

    /**
     * @param dueAt a window's due time
     * @return the skip range (open, or a recent closed one) that accounts for a window due then, if any
     */
    public Optional<SkipRange> rangeOf(Instant dueAt) {
      if (openRange != null && openRange.covers(dueAt)) {
        return Optional.of(openRange);
      }
      for (SkipRange r : ranges) {
        if (r.covers(dueAt)) {
          return Optional.of(r);
        }
      }
      return Optional.empty();
    }

    /** @return the state with this range open (any open one is replaced: the decider closes it first) */
    State withOpenRange(SkipRange r) {
      return new State(spec, paused, windows, archivedThrough, archivedCount, samples, removedAt, eventIds, failures, budget, r,
          ranges);
    }

    /**
     * @param r a closed range
     * @param wasOpen whether it is the state's open range, now closed
     * @return the state with it among the recent closed ranges; one whose first window already left
     *     the hot state leaves at once, its windows but the first (counted when it left) counted as archived
     */
    State withClosedRange(SkipRange r, boolean wasOpen) {
      SkipRange open = wasOpen ? null : openRange;
      if (!windows.containsKey(r.firstWindow())) {
        return new State(spec, paused, windows, later(archivedThrough, r.lastStart()),
            archivedCount + Math.max(0, r.count() - 1), samples, removedAt, eventIds, failures, budget, open,
            ranges);
      }
      List<SkipRange> next = new ArrayList<>(ranges);
      next.add(r);
      return new State(spec, paused, windows, archivedThrough, archivedCount, samples, removedAt, eventIds, failures, budget, open,
          next);
    }

    // Budgets: the current day's usage (see BudgetDay)

    State withBudget(BudgetDay b) {
      return new State(spec, paused, windows, archivedThrough, archivedCount, samples, removedAt, eventIds, failures, b, openRange, ranges);
    }

    /**
     * @param day a day in the task's zone
     * @return what the task used that day (a fresh day when the state holds another)
     */
    public BudgetDay budgetOn(java.time.LocalDate day) {
      return BudgetDay.of(budget, day);
    }

    private static Instant later(Instant through, Instant start) {
      return start == null || (through != null && !start.isAfter(through)) ? through : start;
    }
  }

}
