package io.almanac.internal.protocol;

import io.almanac.Decision;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.UsageRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;

/**
 * What a task entity is told and what it answers: the commands of its audiences and their replies.
 * Each audience has its own sealed interface: {@link TriggerCommand} (the trigger singleton), {@link
 * ExecutorCommand} (the node's executor and the jobs it runs), {@link OperatorCommand} (operators
 * through the facade), {@link QueryCommand} (reads) and {@link SelfCommand} (the entity's own timers
 * and recovery). Not persisted: the journal holds only {@link TaskJournal.Event}s. INTERNAL API.
 */
public final class TaskProtocol {

  private TaskProtocol() {}

  /** What a task entity is told or asked: one of the audiences' commands. */
  public sealed interface Command extends AlmanacSerializable
      permits TriggerCommand, ExecutorCommand, OperatorCommand, QueryCommand, SelfCommand, InputCommand {
    /** @return where the reply goes, or null for a command that gets none */
    default ActorRef<?> replyTo() {
      return null;
    }
  }

  /** From the trigger singleton: fires, catch-ups and wake-ups. */
  public sealed interface TriggerCommand extends Command permits Fire, CatchUp, Wake {}

  /**
   * From the node's executor and the jobs it runs: admissions (the executor is the one admission
   * authority: an attempt starts only on its {@link Admitted}), heartbeats, results and effects.
   */
  public sealed interface ExecutorCommand extends Command permits Admitted, Queued, Heartbeat, FinishAttempt, ReportProgress,
      RecordEffect, RecordStep, PoolWait, PoolBudgetSpent, InterruptAttempt {}

  /** From operators, through the facade: the spec and the operator actions (R31). */
  public sealed interface OperatorCommand extends Command
      permits Define, Pause, Resume, RunNow, PauseBy, ResumeBy, RunNowBy, Backfill, Retry, Resolve, Cancel, CancelAll,
      Remove, RaiseBudget, WithSpec {}

  /** Reads: they never change anything. */
  public sealed interface QueryCommand extends Command
      permits GetTask, GetWindows, GetWindow, GetInterventionQueue, GetUpstreamReport, GetUsage, ReadWithSpec {}

  /** From the entity itself: its lease timers, its unanswered offers, its recovery and its gate checks. */
  public sealed interface SelfCommand extends Command permits LeaseTimer, OfferUnanswered, Recovered, GateChecked,
      DeadlineTimer {}

  /** From outside the schedule (R9): published events, and upstream successes forwarded by the trigger. */
  public sealed interface InputCommand extends Command permits PublishEvent, PublishEvents, UpstreamSucceeded {}

  /**
   * An event of a type the task listens to (R9).
   *
   * @param type the event type
   * @param eventId its id
   * @param eventTime its own time, or null
   * @param summary its summary, or null
   * @param replyTo what the task did with it
   * @param spec the task's spec as the trigger has it registered (a task whose entity has not recorded
   *     it yet records it in the same write as the event), or null
   */
  public record PublishEvent(String type, String eventId, Instant eventTime, String summary,
      ActorRef<StatusReply<EventOutcome>> replyTo, SpecRecord spec) implements InputCommand {

    /** An event without the spec (the entity has it). */
    public PublishEvent(String type, String eventId, Instant eventTime, String summary,
        ActorRef<StatusReply<EventOutcome>> replyTo) {
      this(type, eventId, eventTime, summary, replyTo, null);
    }
  }

  /**
   * One event of a batch (R9): what {@link PublishEvent} carries, without the reply address.
   *
   * @param type the event type
   * @param eventId its id
   * @param eventTime its own time, or null
   * @param summary its summary, or null
   */
  public record BatchedEvent(String type, String eventId, Instant eventTime, String summary)
      implements AlmanacSerializable {

    /** @return this event as a single publish (no reply address, no spec), for the deciders */
    public PublishEvent asPublish() {
      return new PublishEvent(type, eventId, eventTime, summary, null, null);
    }
  }

  /**
   * Several events of types the task listens to, decided one by one in their order as {@link
   * PublishEvent}s are and recorded in one write (R9). A refusal of any of them refuses them all:
   * nothing is stored.
   *
   * @param events the events, in order (not empty)
   * @param replyTo what the task did with each, in the same order
   * @param spec the task's spec as the trigger has it registered, or null (see {@link PublishEvent})
   */
  public record PublishEvents(List<BatchedEvent> events, ActorRef<StatusReply<EventOutcomes>> replyTo, SpecRecord spec)
      implements InputCommand {

    /** Canonical constructor: the list is copied. */
    public PublishEvents {
      events = List.copyOf(events);
    }
  }

  /**
   * What a task did with each event of a {@link PublishEvents}.
   *
   * @param outcomes one per event, in the order sent
   */
  public record EventOutcomes(List<EventOutcome> outcomes) implements AlmanacSerializable {

    /** Canonical constructor: the list is copied. */
    public EventOutcomes {
      outcomes = List.copyOf(outcomes);
    }
  }

  /**
   * What a task did with an event.
   *
   * @param window the window it mapped to
   * @param outcome what it did
   * @param detail why
   */
  public record EventOutcome(String window, io.almanac.PublishResult.Outcome outcome, String detail)
      implements AlmanacSerializable {}

  /**
   * An upstream task succeeded for a window (from the trigger, which knows who depends on whom): a
   * waiting window is checked now rather than at its next poll; a window that did not meet its
   * dependency in time is released; one that already ran follows its on-upstream-rerun option.
   *
   * @param upstream the upstream task
   * @param window its window's key
   * @param start its window's start
   * @param end its window's end
   * @param succeededAt when it succeeded
   */
  public record UpstreamSucceeded(String upstream, String window, Instant start, Instant end, Instant succeededAt)
      implements InputCommand {}

  /**
   * Ask a task, as an upstream, for its windows that a dependent's window waits for (R9).
   *
   * @param key the dependent window's key (for SAME_WINDOW)
   * @param from the dependent window's start
   * @param to the dependent window's end
   * @param replyTo the report
   */
  public record GetUpstreamReport(String key, Instant from, Instant to, ActorRef<StatusReply<UpstreamReport>> replyTo)
      implements QueryCommand {}

  /**
   * An upstream task's windows as a dependent sees them.
   *
   * @param taskId the upstream task
   * @param defined whether it is defined (and not removed)
   * @param windows its hot windows with the asked key or starting in the asked range
   * @param expected the keys of the windows its schedule fires whose start lies in the range, in order
   *     (empty for a task without a time trigger)
   */
  public record UpstreamReport(String taskId, boolean defined, List<UpstreamWindow> windows, List<String> expected)
      implements AlmanacSerializable {}

  /**
   * One upstream window.
   *
   * @param key its key
   * @param start its start
   * @param end its end
   * @param status its status
   * @param updatedAt when it last changed (when it succeeded, for a SUCCEEDED one)
   */
  public record UpstreamWindow(String key, Instant start, Instant end, io.almanac.InstanceStatus status, Instant updatedAt)
      implements AlmanacSerializable {}

  /**
   * A check of a waiting window's gates came back (from the entity's own probe).
   *
   * @param window the window
   * @param upstream the upstream reports by task id (null when the task has no dependency); a
   *     report that could not be had is absent
   * @param upstreamErrors why reports are absent, by task id
   * @param conditionHolds whether the condition held (null when not polled, or it failed)
   * @param conditionError why the poll failed, or null
   */
  public record GateChecked(String window, Map<String, UpstreamReport> upstream, Map<String, String> upstreamErrors,
      Boolean conditionHolds, String conditionError) implements SelfCommand {}

  /**
   * Define or update the task's spec: the journal's record of it ({@link SpecRecord#of}), not the
   * API's {@link TaskSpec}, so that nodes of different versions understand each other.
   */
  public record Define(SpecRecord spec, ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {}

  /**
   * A window is due (from the trigger; a hint: duplicates are acknowledged and ignored, R5).
   * {@code announce}: whether some registered task depends on this one, so that its successes are
   * told to the trigger (otherwise that message is saved). {@code spec}: the task's spec as the trigger
   * has it registered, sent until the entity acknowledged a message carrying it; an entity that has
   * not recorded that spec records it ({@code SpecDefined}) in the same write as the fire's events:
   * registering a task writes nothing to its entity (docs/registration.md).
   */
  public record Fire(
      WindowKey window, Instant start, Instant end, Instant dueAt, FireKind kind, boolean announce,
      ActorRef<StatusReply<FireOutcome>> replyTo, SpecRecord spec)
      implements TriggerCommand {

    /**
     * A fire without the spec (the trigger knows the entity recorded the spec it has registered).
     *
     * @param window the window
     * @param start its start
     * @param end its end
     * @param dueAt when it was due
     * @param kind on time or catch-up
     * @param announce whether some registered task depends on this one
     * @param replyTo where the outcome goes
     */
    public Fire(WindowKey window, Instant start, Instant end, Instant dueAt, FireKind kind, boolean announce,
        ActorRef<StatusReply<FireOutcome>> replyTo) {
      this(window, start, end, dueAt, kind, announce, replyTo, null);
    }

    /**
     * A fire whose task may have dependents (it announces its successes).
     *
     * @param window the window
     * @param start its start
     * @param end its end
     * @param dueAt when it was due
     * @param kind on time or catch-up
     * @param replyTo where the outcome goes
     */
    public Fire(WindowKey window, Instant start, Instant end, Instant dueAt, FireKind kind,
        ActorRef<StatusReply<FireOutcome>> replyTo) {
      this(window, start, end, dueAt, kind, true, replyTo);
    }
  }

  /**
   * The windows of this task due while the trigger was down, older than the latest one: each goes to
   * the catch-up policy (R12, R14), all in one journal write (from the trigger after a restart or
   * failover; windows already known are acknowledged as duplicates, R5).
   *
   * @param windows the windows, each as a catch-up fire would carry it
   * @param replyTo one outcome per window, in order
   * @param spec the task's spec as the trigger has it registered, when the trigger does not know the
   *     entity recorded it (recorded in the same write as the windows), or null
   */
  public record CatchUp(List<DueFire> windows, ActorRef<StatusReply<CatchUpOutcome>> replyTo, SpecRecord spec)
      implements TriggerCommand {

    /** A catch-up without the spec (the entity has it). */
    public CatchUp(List<DueFire> windows, ActorRef<StatusReply<CatchUpOutcome>> replyTo) {
      this(windows, replyTo, null);
    }
  }

  /**
   * A window due while the trigger was down (see {@link CatchUp}).
   *
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when it was due
   */
  public record DueFire(WindowKey window, Instant start, Instant end, Instant dueAt) implements AlmanacSerializable {}

  /**
   * The outcome of each window of a {@link CatchUp}, in order.
   *
   * @param outcomes one per window
   */
  public record CatchUpOutcome(List<FireOutcome> outcomes) implements AlmanacSerializable {}

  /** How the trigger came to fire a window. Persisted by name. */
  public enum FireKind {
    /** Due now, fired on time. */
    ON_TIME,
    /** Due while the trigger was down or behind: handed to the catch-up policy (R12, R14). */
    CATCH_UP
  }

  /**
   * The node's executor has reserved a job slot for this PENDING window (the answer to its {@link
   * ExecutorProtocol.Offer}): start the window's next attempt now (R21). The entity answers {@link
   * ExecutorProtocol.Started} with the attempt's grant, in the same journal write as the window's schedule
   * when the offer came from a fire, or {@link ExecutorProtocol.Declined} when the window may no longer start
   * (it ended, was cancelled, or another window runs under a non-ALLOW overlap policy).
   *
   * @param window the window
   * @param executorId the executor's identity (node address and incarnation), recorded with the
   *     attempt: an attempt whose executor is gone is timed out without waiting for its lease
   * @param replyTo the executor
   * @param traceparent the W3C trace context of the attempt's span, which the executor began as it
   *     admitted the window, recorded with the start; null when the node does not trace (docs/tracing.md)
   */
  public record Admitted(WindowKey window, String executorId, ActorRef<ExecutorProtocol.AdmissionAnswer> replyTo,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) String traceparent)
      implements ExecutorCommand {
    /** An admission without a trace context. */
    public Admitted(WindowKey window, String executorId, ActorRef<ExecutorProtocol.AdmissionAnswer> replyTo) {
      this(window, executorId, replyTo, null);
    }
  }

  /**
   * The node's executor has no slot now for this window; it is queued there and an {@link Admitted}
   * follows when a slot is free. Sent only for offers that asked for it (a fire waiting to know
   * whether it starts at once).
   *
   * @param window the window
   */
  public record Queued(WindowKey window) implements ExecutorCommand {}

  /**
   * The window waits for a resource pool (told once per wait, not at every poll): the entity
   * records it if the window is still PENDING.
   *
   * @param window the window
   * @param pool the pool
   * @param reason why it has no room
   * @param until when the wait ends at the latest, if known (a pause's end, the next rate token), or null
   */
  public record PoolWait(WindowKey window, String pool, io.almanac.PoolWaitReason reason, java.time.Instant until)
      implements ExecutorCommand {}

  /**
   * A resource pool's budget for the day was spent when the window would start (the executor asked the
   * pool store and dropped the window): the entity records it SKIPPED with {@code BUDGET_EXHAUSTED} if
   * it is still PENDING and never started.
   *
   * @param window the window
   * @param pool the pool
   * @param detail why, for people (the pool, its day and zone, the cost and the limit)
   */
  public record PoolBudgetSpent(WindowKey window, String pool, String detail) implements ExecutorCommand {}

  /**
   * Something may be due (from the trigger at a retry's due time or a lease's end, and so waking a
   * passivated entity): release due retries, arm the lease timers, offer PENDING windows, and report
   * the next wake-up. {@code spec}: the task's spec as the trigger has it registered, when the trigger
   * does not know the entity recorded it (then recorded with whatever the wake-up writes), or null.
   */
  public record Wake(ActorRef<StatusReply<Done>> replyTo, SpecRecord spec) implements TriggerCommand {

    /** A wake-up without the spec (the entity has it). */
    public Wake(ActorRef<StatusReply<Done>> replyTo) {
      this(replyTo, null);
    }
  }

  /** The running attempt is alive: extend its lease (R23). */
  public record Heartbeat(WindowKey window, int attempt, ActorRef<StatusReply<LeaseGranted>> replyTo) implements ExecutorCommand {}

  /**
   * The attempt ended with this result, and left this log (its own lines and its failure's stack
   * trace, bounded by the executor; written with the attempt's end when not empty); {@code
   * replayedSteps}: the durable steps it got from their record without running them (none: not sent).
   */
  public record FinishAttempt(
      WindowKey window, int attempt, JobResult result, Duration duration,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY)
      List<String> replayedSteps,
      io.almanac.journal.AttemptLog log,
      ActorRef<StatusReply<Done>> replyTo)
      implements ExecutorCommand {
    /** Canonical constructor: the replayed steps are never null; no log reads as an empty one (a node that predates logs). */
    public FinishAttempt {
      replayedSteps = replayedSteps == null ? List.of() : List.copyOf(replayedSteps);
      log = log == null ? io.almanac.journal.AttemptLog.EMPTY : log;
    }

    /** A result of an attempt that replayed no step and left no log. */
    public FinishAttempt(WindowKey window, int attempt, JobResult result, Duration duration,
        ActorRef<StatusReply<Done>> replyTo) {
      this(window, attempt, result, duration, List.of(), io.almanac.journal.AttemptLog.EMPTY, replyTo);
    }

    /** A result with its log, of an attempt that replayed no step. */
    public FinishAttempt(WindowKey window, int attempt, JobResult result, Duration duration,
        io.almanac.journal.AttemptLog log, ActorRef<StatusReply<Done>> replyTo) {
      this(window, attempt, result, duration, List.of(), log, replyTo);
    }

    /** A result of an attempt that replayed these steps and left no log. */
    public FinishAttempt(WindowKey window, int attempt, JobResult result, Duration duration, List<String> replayedSteps,
        ActorRef<StatusReply<Done>> replyTo) {
      this(window, attempt, result, duration, replayedSteps, io.almanac.journal.AttemptLog.EMPTY, replyTo);
    }
  }

  /**
   * A running attempt's live progress and latest log lines (at most one per attempt per {@code
   * almanac.executor.job-log.live-interval}): held in the entity's memory for its views while the
   * attempt runs, never persisted, not answered.
   */
  public record ReportProgress(WindowKey window, int attempt, io.almanac.WindowView.Progress progress)
      implements ExecutorCommand {}

  /**
   * The node's executor stops an attempt that is still running for a reason of its own life, not its
   * job's (a coordinated shutdown whose {@code almanac.executor.shutdown-grace} ended): the entity
   * records it {@code INTERRUPTED} with {@code cause} and decides what follows (by default the window
   * is PENDING again with run kind RESUME, no retry spent). Fenced by the attempt number: an attempt
   * that no longer holds the window changes nothing; acknowledged either way.
   *
   * @param window the window
   * @param attempt the attempt
   * @param cause why it is interrupted
   * @param detail what the executor saw, for people
   * @param log what the job logged until then (written with the interruption when not empty)
   * @param replyTo the acknowledgement
   */
  public record InterruptAttempt(WindowKey window, int attempt, io.almanac.InterruptCause cause, String detail,
      io.almanac.journal.AttemptLog log, ActorRef<StatusReply<Done>> replyTo) implements ExecutorCommand {

    /** No log reads as an empty one (a command sent by a node that predates it). */
    public InterruptAttempt {
      log = log == null ? io.almanac.journal.AttemptLog.EMPTY : log;
    }

    /** An interruption of an attempt that logged nothing. */
    public InterruptAttempt(WindowKey window, int attempt, io.almanac.InterruptCause cause, String detail,
        ActorRef<StatusReply<Done>> replyTo) {
      this(window, attempt, cause, detail, io.almanac.journal.AttemptLog.EMPTY, replyTo);
    }
  }

  /**
   * The entity's lease timer for an attempt went off (from the entity's own timer, due when {@link
   * LeaseExpiry} says the lease is over): the one trigger of lease expiry (R23).
   */
  public record LeaseTimer(String window, int attempt) implements SelfCommand {}

  /** The executor did not answer a fire's offer in time: the fire is recorded without a start. */
  public record OfferUnanswered(String window) implements SelfCommand {}

  /** After recovery: settle attempts whose executor is gone, release due retries, offer PENDING windows. */
  public record Recovered() implements SelfCommand {}

  /** The entity's deadline timer went off: record the open windows whose deadline passed (once each). */
  public record DeadlineTimer() implements SelfCommand {}

  /**
   * Record an effect in the window's ledger unless it is there already (R19). With {@code intent}
   * the effect is about to run (value ignored); without, it ran and produced {@code value}.
   */
  public record RecordEffect(
      WindowKey window, int attempt, String key, String value, boolean intent, ActorRef<StatusReply<EffectReply>> replyTo)
      implements ExecutorCommand {
    /** Records a completed effect. */
    public RecordEffect(WindowKey window, int attempt, String key, String value, ActorRef<StatusReply<EffectReply>> replyTo) {
      this(window, attempt, key, value, false, replyTo);
    }
  }

  /**
   * Record a durable step's result for the window, unless a step of that name is recorded already
   * (then its recorded result is the answer). Only the attempt that holds the window records.
   *
   * @param window the window
   * @param attempt the attempt (its fencing token)
   * @param name the step's name
   * @param type the Java type the job asked the result as
   * @param result the step's result as JSON
   * @param usage what the job reported using inside the step, or null
   * @param duration how long the step ran
   * @param replyTo where the recorded result goes
   */
  public record RecordStep(WindowKey window, int attempt, String name, String type, String result, UsageRecord usage,
      Duration duration, ActorRef<StatusReply<StepReply>> replyTo) implements ExecutorCommand {}

  /**
   * The answer to {@link RecordStep}.
   *
   * @param recordedNow whether this command recorded it (false: a step of that name was recorded before)
   * @param result the result the window holds for the step, as JSON
   */
  public record StepReply(boolean recordedNow, String result) implements AlmanacSerializable {}

  /** Stop firing windows until resumed (R31); fires meanwhile are recorded as skipped. */
  public record Pause(ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {}

  /** Fire windows again (R31). */
  public record Resume(ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {}

  /** Run the window that contains now, as a manual run (R31). */
  public record RunNow(ActorRef<StatusReply<FireOutcome>> replyTo) implements OperatorCommand {}

  /**
   * {@link Pause} by a named operator: {@code actor} and {@code note} (who asked and why, either may
   * be null) are recorded with the event. (A command of its own, so {@code Pause::new} stays exact.)
   */
  public record PauseBy(String actor, String note, ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {}

  /** {@link Resume} by a named operator, as {@link PauseBy}. */
  public record ResumeBy(String actor, String note, ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {}

  /** {@link RunNow} by a named operator, as {@link PauseBy}. */
  public record RunNowBy(String actor, String note, ActorRef<StatusReply<FireOutcome>> replyTo) implements OperatorCommand {}

  /**
   * Schedule every window due in (from, to] as a backfill (R31); or, as a dry run, answer what that
   * would decide for each window and write nothing.
   */
  public record Backfill(Instant from, Instant to, boolean dryRun, String actor, String note,
      ActorRef<StatusReply<BackfillReport>> replyTo) implements OperatorCommand {

    /** A backfill that runs. */
    public Backfill(Instant from, Instant to, ActorRef<StatusReply<BackfillReport>> replyTo) {
      this(from, to, false, null, null, replyTo);
    }

    /** A backfill, or its dry run, without an actor. */
    public Backfill(Instant from, Instant to, boolean dryRun, ActorRef<StatusReply<BackfillReport>> replyTo) {
      this(from, to, dryRun, null, null, replyTo);
    }
  }

  /**
   * Run a FINAL_FAILED, cancelled, skipped or missed window again (R15, R31); {@code actor} and
   * {@code note} as for {@link Pause}; {@code expecting}: the window's state the retry was decided on,
   * or null (any).
   */
  public record Retry(WindowKey window, String actor, String note, io.almanac.Expecting expecting,
      ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {
    /** A retry without an expectation. */
    public Retry(WindowKey window, String actor, String note, ActorRef<StatusReply<Done>> replyTo) {
      this(window, actor, note, null, replyTo);
    }

    /** A retry without an actor. */
    public Retry(WindowKey window, ActorRef<StatusReply<Done>> replyTo) {
      this(window, null, null, null, replyTo);
    }
  }

  /** Mark a FINAL_FAILED window resolved by an operator (R15); {@code actor}: who, or null; {@code expecting} as for {@link Retry}. */
  public record Resolve(WindowKey window, String note, String actor, io.almanac.Expecting expecting,
      ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {
    /** A resolve without an expectation. */
    public Resolve(WindowKey window, String note, String actor, ActorRef<StatusReply<Done>> replyTo) {
      this(window, note, actor, null, replyTo);
    }

    /** A resolve without an actor. */
    public Resolve(WindowKey window, String note, ActorRef<StatusReply<Done>> replyTo) {
      this(window, note, null, null, replyTo);
    }
  }

  /** Cancel a pending, running or retry-waiting window (R31); {@code actor}: who, or null; {@code expecting} as for {@link Retry}. */
  public record Cancel(WindowKey window, String reason, String actor, io.almanac.Expecting expecting,
      ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {
    /** A cancel without an expectation. */
    public Cancel(WindowKey window, String reason, String actor, ActorRef<StatusReply<Done>> replyTo) {
      this(window, reason, actor, null, replyTo);
    }

    /** A cancel without an actor. */
    public Cancel(WindowKey window, String reason, ActorRef<StatusReply<Done>> replyTo) {
      this(window, reason, null, null, replyTo);
    }
  }

  /**
   * Cancel, in one write, every window that has not started (PENDING, RETRY_WAIT, WAITING) whose due
   * time is in (from, to] (null: open on that side) and whose next attempt is of the kind (null: any);
   * or, as a dry run, answer which windows that would cancel and write nothing (R31).
   */
  public record CancelAll(Instant from, Instant to, io.almanac.RunKind kind, String reason, boolean dryRun, String actor,
      ActorRef<StatusReply<CancelReport>> replyTo) implements OperatorCommand {
    /** A bulk cancel without an actor. */
    public CancelAll(Instant from, Instant to, io.almanac.RunKind kind, String reason, boolean dryRun,
        ActorRef<StatusReply<CancelReport>> replyTo) {
      this(from, to, kind, reason, dryRun, null, replyTo);
    }
  }

  /**
   * Remove the task: cancel its open windows, record {@link TaskJournal.TaskRemoved}; afterwards
   * only queries and a new {@link Define} are accepted (R31). A repeated removal is acknowledged.
   */
  public record Remove(ActorRef<StatusReply<Done>> replyTo) implements OperatorCommand {}

  /**
   * A read of a task whose entity answered that it is unknown, with the spec the trigger has
   * registered for it (registration writes no entity): answered on the task as that spec defines it,
   * with nothing written. An entity that has a spec answers the read as it is.
   *
   * @param spec the registered spec
   * @param query the read ({@link GetTask}, {@link GetWindows}, {@link GetWindow}, {@link
   *     GetInterventionQueue} or {@link GetUsage})
   */
  public record ReadWithSpec(
      SpecRecord spec,
      @com.fasterxml.jackson.annotation.JsonTypeInfo(use = com.fasterxml.jackson.annotation.JsonTypeInfo.Id.NAME)
      @com.fasterxml.jackson.annotation.JsonSubTypes({
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = GetTask.class, name = "GetTask"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = GetWindows.class, name = "GetWindows"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = GetWindow.class, name = "GetWindow"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = GetInterventionQueue.class, name = "GetInterventionQueue"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = GetUsage.class, name = "GetUsage")})
      QueryCommand query) implements QueryCommand {
    @Override
    public ActorRef<?> replyTo() {
      return query.replyTo();
    }
  }

  /**
   * An operator's command with the spec the trigger has registered for the task (registration writes
   * no entity): an entity that has not recorded that spec records it ({@code SpecDefined}) in the same
   * write as the command's events, and not at all when the command is refused; one that has it
   * carries the command out as it is.
   *
   * @param spec the registered spec
   * @param command the command
   */
  public record WithSpec(
      SpecRecord spec,
      @com.fasterxml.jackson.annotation.JsonTypeInfo(use = com.fasterxml.jackson.annotation.JsonTypeInfo.Id.NAME)
      @com.fasterxml.jackson.annotation.JsonSubTypes({
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = Define.class, name = "Define"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = Pause.class, name = "Pause"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = Resume.class, name = "Resume"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = RunNow.class, name = "RunNow"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = PauseBy.class, name = "PauseBy"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = ResumeBy.class, name = "ResumeBy"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = RunNowBy.class, name = "RunNowBy"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = Backfill.class, name = "Backfill"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = Retry.class, name = "Retry"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = Resolve.class, name = "Resolve"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = Cancel.class, name = "Cancel"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = CancelAll.class, name = "CancelAll"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = Remove.class, name = "Remove"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = RaiseBudget.class, name = "RaiseBudget")})
      OperatorCommand command) implements OperatorCommand {
    @Override
    public ActorRef<?> replyTo() {
      return command.replyTo();
    }
  }

  /** Ask for the task's view. */
  public record GetTask(ActorRef<StatusReply<TaskInfo>> replyTo) implements QueryCommand {}

  /** Ask for the hot windows, oldest first. */
  public record GetWindows(ActorRef<StatusReply<WindowList>> replyTo) implements QueryCommand {}

  /** Ask for one window. */
  public record GetWindow(WindowKey window, ActorRef<StatusReply<WindowList>> replyTo) implements QueryCommand {}

  /** Ask for the FINAL_FAILED windows waiting for an operator (R15, R31). */
  public record GetInterventionQueue(ActorRef<StatusReply<WindowList>> replyTo) implements QueryCommand {}

  // Replies

  /** What the entity decided about a fire. */
  public record FireOutcome(String window, Decision decision, String reason, TriggerProtocol.TaskWakes wakes)
      implements AlmanacSerializable {

    /**
     * @param window the window
     * @param decision what was decided
     * @param reason why
     */
    public FireOutcome(String window, Decision decision, String reason) {
      this(window, decision, reason, null);
    }

    /**
     * @param w the task's wake-up report, for the trigger
     * @return this outcome carrying it
     */
    public FireOutcome withWakes(TriggerProtocol.TaskWakes w) {
      return new FireOutcome(window, decision, reason, w);
    }
  }

  /**
   * Permission to run one attempt: the attempt number is its fencing token, and the executor
   * identity it was started under must still be the executor's (an identity that lost its lease
   * runs nothing, see {@code ExecutorFence}).
   */
  public record AttemptGrant(
      String taskId,
      String window,
      int attempt,
      RunKind kind,
      Instant leaseUntil,
      Instant windowStart,
      Instant windowEnd,
      Instant dueAt,
      Map<String, String> effects,
      List<String> pendingEffects,
      String executor,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY)
      Map<String, io.almanac.journal.WindowState.RecordedStep> steps,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) String previousTraceparent,
      @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) Instant poolWaitSince)
      implements AlmanacSerializable {

    /** Canonical constructor: the recorded steps are never null. */
    public AttemptGrant {
      steps = steps == null ? Map.of() : steps;
    }

    /**
     * A grant without trace data: no earlier attempt's trace context ({@code previousTraceparent}:
     * the span of the window's previous attempt, which this attempt's span links to) and no pool wait
     * ({@code poolWaitSince}: since when the window waited for its resource pools before this start).
     */
    public AttemptGrant(String taskId, String window, int attempt, RunKind kind, Instant leaseUntil, Instant windowStart,
        Instant windowEnd, Instant dueAt, Map<String, String> effects, List<String> pendingEffects, String executor,
        Map<String, io.almanac.journal.WindowState.RecordedStep> steps) {
      this(taskId, window, attempt, kind, leaseUntil, windowStart, windowEnd, dueAt, effects, pendingEffects, executor,
          steps, null, null);
    }

    /** A grant for a window with no recorded step. */
    public AttemptGrant(String taskId, String window, int attempt, RunKind kind, Instant leaseUntil, Instant windowStart,
        Instant windowEnd, Instant dueAt, Map<String, String> effects, List<String> pendingEffects, String executor) {
      this(taskId, window, attempt, kind, leaseUntil, windowStart, windowEnd, dueAt, effects, pendingEffects, executor,
          Map.of());
    }
  }

  /** The lease after a heartbeat. */
  public record LeaseGranted(Instant leaseUntil) implements AlmanacSerializable {}

  /**
   * Whether the effect (or its intent) was recorded now, the value the ledger holds for its key
   * (null while only an intent is recorded), and whether an intent without an end is recorded.
   */
  public record EffectReply(boolean recordedNow, String value, boolean pending) implements AlmanacSerializable {}

  /** The outcome of every window a backfill covered. */
  public record BackfillReport(List<FireOutcome> outcomes) implements AlmanacSerializable {}

  /** The windows a {@link CancelAll} cancelled (or, as a dry run, would cancel), oldest first. */
  public record CancelReport(List<WindowKey> windows) implements AlmanacSerializable {}

  /** A task's view. */
  public record TaskInfo(TaskView view) implements AlmanacSerializable {}

  /** Windows' views. */
  public record WindowList(List<WindowView> windows) implements AlmanacSerializable {}

  // Usage and budgets

  /**
   * Raise the task's budget for today (in its zone) by {@code amount}: recorded as {@link
   * TaskJournal.BudgetRaised}.
   */
  public record RaiseBudget(java.math.BigDecimal amount, String note, String actor, ActorRef<StatusReply<UsageInfo>> replyTo)
      implements OperatorCommand {
    /** A raise without an actor. */
    public RaiseBudget(java.math.BigDecimal amount, String note, ActorRef<StatusReply<UsageInfo>> replyTo) {
      this(amount, note, null, replyTo);
    }
  }

  /** Ask for what the task used today and its budget. */
  public record GetUsage(ActorRef<StatusReply<UsageInfo>> replyTo) implements QueryCommand {}

  /** The answer of {@link GetUsage} and {@link RaiseBudget}. */
  public record UsageInfo(io.almanac.DailyUsage usage) implements AlmanacSerializable {}
}
