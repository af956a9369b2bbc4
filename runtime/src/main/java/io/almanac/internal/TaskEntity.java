package io.almanac.internal;

import io.almanac.BackfillPolicy;
import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.JobResult;
import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.Window;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import io.almanac.Alert;
import io.almanac.IllegalTransitionException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReply;
import org.apache.pekko.persistence.typed.javadsl.EffectBuilder;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehaviorWithEnforcedReplies;
import org.apache.pekko.persistence.typed.javadsl.ReplyEffect;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;
import org.slf4j.Logger;

/**
 * One task: its spec and the state machine of its windows (R20). The single writer of its windows,
 * so PENDING to RUNNING is a compare-and-set by construction (R5, R21). Every decision, including
 * not running a window, is an event persisted before it takes effect (R7). Persistence id
 * {@code task|<id>}. INTERNAL API: users go through the public facade.
 */
public final class TaskEntity
    extends EventSourcedBehaviorWithEnforcedReplies<TaskEntity.Command, TaskEntity.Event, TaskEntity.State> {

  /** The sharding type key of task entities. */
  public static final EntityTypeKey<Command> TYPE_KEY = EntityTypeKey.create(Command.class, "almanac-task");

  // ---------------------------------------------------------------------------------------------
  // Commands

  /** What a task entity is told or asked. */
  public interface Command extends AlmanacSerializable {}

  /** Define or update the task's spec. */
  public record Define(TaskSpec spec, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** A window is due (from the trigger; a hint: duplicates are acknowledged and ignored, R5). */
  public record Fire(
      WindowKey window, Instant start, Instant end, Instant dueAt, FireKind kind, ActorRef<StatusReply<FireOutcome>> replyTo)
      implements Command {}

  /**
   * The windows of this task due while the trigger was down, older than the latest one: each goes to
   * the backfill policy (R12, R14), all in one journal write (from the trigger after a restart or
   * failover; windows already known are acknowledged as duplicates, R5).
   *
   * @param windows the windows, each as a catch-up fire would carry it
   * @param replyTo one outcome per window, in order
   */
  public record CatchUp(List<DueFire> windows, ActorRef<StatusReply<CatchUpOutcome>> replyTo) implements Command {}

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
    /** Due while the trigger was down or behind: handed to the backfill policy (R12, R14). */
    CATCH_UP
  }

  /**
   * The executor asks to start the next attempt of a PENDING window (R21).
   *
   * @param window the window
   * @param executorId the executor's identity (node address and incarnation): an attempt whose
   *     executor is gone is timed out without waiting for its lease
   * @param executor where to send a cancellation, or null
   * @param replyTo the grant or the refusal
   */
  public record StartAttempt(
      WindowKey window, String executorId, ActorRef<Executor.Command> executor, ActorRef<StatusReply<AttemptGrant>> replyTo)
      implements Command {
    /**
     * @param window the window
     * @param replyTo the grant or the refusal
     */
    public StartAttempt(WindowKey window, ActorRef<StatusReply<AttemptGrant>> replyTo) {
      this(window, null, null, replyTo);
    }
  }

  /**
   * Something may be due (from the trigger at a retry's due time or a lease's expiry, and after a
   * restart): time out expired or orphaned attempts, release due retries, re-dispatch PENDING
   * windows, and report the next wake-up.
   */
  public record Wake(ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** After recovery: time out attempts whose executor is gone (sent to itself). */
  private record CheckExecutors() implements Command {}

  /** The running attempt is alive: extend its lease (R23). */
  public record Heartbeat(WindowKey window, int attempt, ActorRef<StatusReply<LeaseGranted>> replyTo) implements Command {}

  /** The attempt ended with this result. */
  public record FinishAttempt(
      WindowKey window, int attempt, JobResult result, Duration duration, ActorRef<StatusReply<Done>> replyTo)
      implements Command {}

  /** The attempt's lease is due to expire (from the trigger); times it out if it has (R23). */
  public record ExpireLease(WindowKey window, int attempt, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** A waiting retry is due (from the trigger): RETRY_WAIT to PENDING. */
  public record ReleaseRetry(WindowKey window, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /**
   * Record an effect in the window's ledger unless it is there already (R19). With {@code intent}
   * the effect is about to run (value ignored); without, it ran and produced {@code value}.
   */
  public record RecordEffect(
      WindowKey window, int attempt, String key, String value, boolean intent, ActorRef<StatusReply<EffectReply>> replyTo)
      implements Command {
    /** Records a completed effect. */
    public RecordEffect(WindowKey window, int attempt, String key, String value, ActorRef<StatusReply<EffectReply>> replyTo) {
      this(window, attempt, key, value, false, replyTo);
    }
  }

  /** Stop firing windows until resumed (R31); fires meanwhile are recorded as skipped. */
  public record Pause(ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Fire windows again (R31). */
  public record Resume(ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Run the window that contains now, as a manual run (R31). */
  public record RunNow(ActorRef<StatusReply<FireOutcome>> replyTo) implements Command {}

  /** Schedule every window due in (from, to] as a backfill (R31). */
  public record Backfill(Instant from, Instant to, ActorRef<StatusReply<BackfillReport>> replyTo) implements Command {}

  /** Run a FINAL_FAILED, cancelled, skipped or missed window again (R15, R31). */
  public record Retry(WindowKey window, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Mark a FINAL_FAILED window resolved by an operator (R15). */
  public record Resolve(WindowKey window, String note, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Cancel a pending, running or retry-waiting window (R31). */
  public record Cancel(WindowKey window, String reason, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Ask for the task's view. */
  public record GetTask(ActorRef<StatusReply<TaskInfo>> replyTo) implements Command {}

  /** Ask for the hot windows, oldest first. */
  public record GetWindows(ActorRef<StatusReply<WindowList>> replyTo) implements Command {}

  /** Ask for one window. */
  public record GetWindow(WindowKey window, ActorRef<StatusReply<WindowList>> replyTo) implements Command {}

  /** Ask for the FINAL_FAILED windows waiting for an operator (R15, R31). */
  public record GetInterventionQueue(ActorRef<StatusReply<WindowList>> replyTo) implements Command {}

  // ---------------------------------------------------------------------------------------------
  // Replies

  /** What the entity decided about a fire. */
  public record FireOutcome(String window, Decision decision, String reason) implements AlmanacSerializable {}

  /** The decision about a fire. */
  public enum Decision {
    /** A new instance was created (or a done one reopened), PENDING. */
    SCHEDULED,
    /** The window already had an instance; nothing changed (R5). */
    DUPLICATE,
    /** Recorded as SKIPPED with its reason (R7). */
    SKIPPED,
    /** Recorded as MISSED with its reason (R12, R14). */
    MISSED,
    /** The window is older than the hot state (R30); nothing changed. Its history is in the journal. */
    ARCHIVED
  }

  /** Permission to run one attempt: the attempt number is its fencing token. */
  public record AttemptGrant(
      String taskId,
      String window,
      int attempt,
      RunKind kind,
      Instant leaseUntil,
      Instant windowStart,
      Instant windowEnd,
      Map<String, String> effects,
      List<String> pendingEffects)
      implements AlmanacSerializable {}

  /** The lease after a heartbeat. */
  public record LeaseGranted(Instant leaseUntil) implements AlmanacSerializable {}

  /**
   * Whether the effect (or its intent) was recorded now, the value the ledger holds for its key
   * (null while only an intent is recorded), and whether an intent without an end is recorded.
   */
  public record EffectReply(boolean recordedNow, String value, boolean pending) implements AlmanacSerializable {}

  /** The outcome of every window a backfill covered. */
  public record BackfillReport(List<FireOutcome> outcomes) implements AlmanacSerializable {}

  /** A task's view. */
  public record TaskInfo(TaskView view) implements AlmanacSerializable {}

  /** Windows' views. */
  public record WindowList(List<WindowView> windows) implements AlmanacSerializable {}

  // ---------------------------------------------------------------------------------------------
  // Events (past tense; data only; never renamed without a migration)

  /** Something that happened to the task; the journal is the truth. */
  public interface Event extends AlmanacSerializable {
    /** @return when it happened (from the entity's clock) */
    Instant at();
  }

  /** An event about one window. */
  public interface WindowEvent extends Event {
    /** @return the window key */
    String window();
  }

  /** The task's spec was defined or changed. */
  public record SpecDefined(TaskSpec spec, Instant at) implements Event {}

  /** The task was paused. */
  public record TaskPaused(Instant at) implements Event {}

  /** The task was resumed. */
  public record TaskResumed(Instant at) implements Event {}

  /** The window's instance was created, or reopened, as PENDING. */
  public record InstanceScheduled(String window, Instant start, Instant end, Instant dueAt, RunKind kind, Instant at)
      implements WindowEvent {}

  /** A due window did not run (R7). When the window already exists its status is unchanged. */
  public record FireSkipped(
      String window, Instant start, Instant end, Instant dueAt, SkipReason reason, String detail, Instant at)
      implements WindowEvent {}

  /** A past window is not caught up (R12, R14). */
  public record WindowMissed(
      String window, Instant start, Instant end, Instant dueAt, MissReason reason, String detail, Instant at)
      implements WindowEvent {}

  /**
   * PENDING to RUNNING: attempt {@code attempt}, run by {@code executor}, holds the lease until
   * {@code leaseUntil}.
   */
  public record AttemptStarted(String window, int attempt, RunKind kind, Instant leaseUntil, String executor, Instant at)
      implements WindowEvent {}

  /** A heartbeat extended the running attempt's lease. */
  public record LeaseExtended(String window, int attempt, Instant leaseUntil, Instant at) implements WindowEvent {}

  /** The attempt succeeded (R22). */
  public record AttemptSucceeded(
      String window, int attempt, Duration duration, String summary, String artifactUri, Instant at)
      implements WindowEvent {}

  /** The attempt failed (R22). */
  public record AttemptFailed(String window, int attempt, Duration duration, String reason, Instant at)
      implements WindowEvent {}

  /** The attempt's lease expired (R23). */
  public record AttemptTimedOut(String window, int attempt, Instant leaseUntil, Duration duration, Instant at)
      implements WindowEvent {}

  /** A result arrived from an attempt that no longer holds the window; kept for audit only. */
  public record LateResultRecorded(String window, int attempt, JobResult.Outcome outcome, String detail, Instant at)
      implements WindowEvent {}

  /** A retry was scheduled (R13, R15). */
  public record RetryScheduled(String window, int retryNumber, Instant dueAt, Instant at) implements WindowEvent {}

  /** The window failed for good and waits in the intervention queue (R15). */
  public record InstanceFinalFailed(String window, String reason, Instant at) implements WindowEvent {}

  /** An operator resolved a FINAL_FAILED window. */
  public record InstanceResolved(String window, String note, Instant at) implements WindowEvent {}

  /** The window's instance was cancelled. */
  public record InstanceCancelled(String window, int attempt, String reason, Instant at) implements WindowEvent {}

  /** An effect is about to run: if no {@link EffectRecorded} follows, its outcome is unknown (R19). */
  public record EffectIntended(String window, int attempt, String key, Instant at) implements WindowEvent {}

  /** An effect was recorded in the window's ledger (R19). */
  public record EffectRecorded(String window, int attempt, String key, String value, Instant at)
      implements WindowEvent {}

  // ---------------------------------------------------------------------------------------------
  // State

  /**
   * The task's state: immutable; the event handler builds the next one.
   *
   * @param spec the task's spec, null until defined
   * @param paused whether the task is paused
   * @param windows the hot windows by key
   * @param archivedThrough the latest start of a window that left the hot state, or null
   * @param archivedCount how many windows left the hot state
   * @param samples recent attempt durations
   */
  public record State(
      TaskSpec spec,
      boolean paused,
      Map<String, WindowState> windows,
      Instant archivedThrough,
      long archivedCount,
      DurationSamples samples)
      implements AlmanacSerializable {

    /** Canonical constructor: the window map is never null and never shared mutable. */
    public State {
      windows = windows == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(windows));
    }

    static State empty(int sampleCapacity) {
      return new State(null, false, Map.of(), null, 0, DurationSamples.empty(sampleCapacity));
    }

    boolean defined() {
      return spec != null;
    }

    Optional<WindowState> window(String key) {
      return Optional.ofNullable(windows.get(key));
    }

    boolean archived(Instant start) {
      return archivedThrough != null && !start.isAfter(archivedThrough);
    }

    /**
     * The task's fresh instances a new on-time fire overlaps with (R6): first runs and their retries
     * that are running or waiting to run or retry. Backfills and manual runs are backlog: they do not
     * make fresh windows skip, and CANCEL_PREVIOUS does not cancel them (R11).
     */
    List<WindowState> activeForOverlap() {
      List<WindowState> out = new ArrayList<>();
      for (WindowState w : windows.values()) {
        boolean fresh = w.runKind() == RunKind.FIRST || w.runKind() == RunKind.RETRY;
        if (fresh && w.status().isActive()) {
          out.add(w);
        }
      }
      return out;
    }

    Optional<WindowState> running(String except) {
      for (WindowState w : windows.values()) {
        if (w.status() == InstanceStatus.RUNNING && !w.key().equals(except)) {
          return Optional.of(w);
        }
      }
      return Optional.empty();
    }

    boolean hasActive() {
      for (WindowState w : windows.values()) {
        if (w.status().isActive()) {
          return true;
        }
      }
      return false;
    }

    State withSpec(TaskSpec s) {
      return new State(s, paused, windows, archivedThrough, archivedCount, samples);
    }

    State withPaused(boolean p) {
      return new State(spec, p, windows, archivedThrough, archivedCount, samples);
    }

    State withSample(Duration d) {
      return new State(spec, paused, windows, archivedThrough, archivedCount, samples.add(d));
    }

    /**
     * The state with this window put in; then windows that are done leave the hot state (R30) when
     * there are more than {@code hot.windows()} or they ended more than {@code hot.maxAge()} before
     * this event. They stay in the journal for audit. Only event data is used (replay is
     * deterministic).
     */
    State withWindow(WindowState w, HotState hot) {
      Map<String, WindowState> next = new LinkedHashMap<>(windows);
      next.put(w.key(), w);
      Instant cutoff = w.updatedAt() == null ? null : w.updatedAt().minus(hot.maxAge());
      boolean tooOld = false;
      if (cutoff != null) {
        for (WindowState x : next.values()) {
          if (x.status().isTerminal() && x.end() != null && x.end().isBefore(cutoff)) {
            tooOld = true;
            break;
          }
        }
      }
      if (next.size() <= hot.windows() && !tooOld) {
        return new State(spec, paused, next, archivedThrough, archivedCount, samples);
      }
      List<WindowState> done = new ArrayList<>();
      for (WindowState x : next.values()) {
        if (x.status().isTerminal()) {
          done.add(x);
        }
      }
      // Windows that ran leave first; skipped, missed and cancelled ones (which an operator may still
      // backfill) only when nothing else can go. Oldest first within each group.
      done.sort(Comparator.comparing((WindowState x) -> x.status() == InstanceStatus.SUCCEEDED
              || x.status() == InstanceStatus.RESOLVED ? 0 : 1)
          .thenComparing(WindowState::start, Comparator.nullsFirst(Comparator.naturalOrder())));
      Instant through = archivedThrough;
      long count = archivedCount;
      for (WindowState x : done) {
        boolean old = cutoff != null && x.end() != null && x.end().isBefore(cutoff);
        if (next.size() <= hot.windows() && !old) {
          continue;
        }
        next.remove(x.key());
        count++;
        through = x.start() == null || (through != null && !x.start().isAfter(through)) ? through : x.start();
      }
      return new State(spec, paused, next, through, count, samples);
    }
  }

  /** How much the hot state keeps: at most {@code windows}, none done for longer than {@code maxAge}. */
  record HotState(int windows, Duration maxAge) {}

  // ---------------------------------------------------------------------------------------------


  private final String taskId;
  private final Clock clock;
  private final TaskSettings settings;
  private final TaskEnv env;
  private final ActorContext<Command> ctx;
  private final Logger log;
  private TaskSpec scheduleOf;
  private TaskSchedule schedule;
  private Duration minInterval;
  private boolean intervalWarned;
  // In memory only (principle 1: nothing here is truth; it is rebuilt from the state on demand).
  private final Map<String, ActorRef<Executor.Command>> runners = new HashMap<>();
  private final Set<String> dispatched = new HashSet<>();
  private TriggerActor.TaskWakes lastReported;

  /**
   * A task entity with no trigger, executor or alert sink, for unit tests of its state machine.
   *
   * @param taskId the task's id (the sharding entity id)
   * @param clock where time comes from (principle 3)
   * @param settings the entities' settings
   * @return the entity's behavior
   */
  public static Behavior<Command> create(String taskId, Clock clock, TaskSettings settings) {
    return create(taskId, clock, settings, TaskEnv.NONE);
  }

  /**
   * @param taskId the task's id (the sharding entity id)
   * @param clock where time comes from (principle 3)
   * @param settings the entities' settings
   * @param env the trigger, executor, alert sink and executor liveness check
   * @return the entity's behavior
   */
  public static Behavior<Command> create(String taskId, Clock clock, TaskSettings settings, TaskEnv env) {
    return Behaviors.setup(ctx -> new TaskEntity(taskId, clock, settings, env, ctx));
  }

  /**
   * @param taskId a task id
   * @return its persistence id, {@code task|<id>}
   */
  public static PersistenceId persistenceId(String taskId) {
    return PersistenceId.of("task", taskId, "|");
  }

  private TaskEntity(String taskId, Clock clock, TaskSettings settings, TaskEnv env, ActorContext<Command> ctx) {
    super(
        persistenceId(taskId),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2));
    this.taskId = Objects.requireNonNull(taskId, "taskId");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.env = Objects.requireNonNull(env, "env");
    this.ctx = ctx;
    this.log = ctx.getLog();
  }

  @Override
  public State emptyState() {
    return State.empty(settings.durationSamples());
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    org.apache.pekko.persistence.typed.javadsl.SnapshotCountRetentionCriteria criteria =
        RetentionCriteria.snapshotEvery(settings.snapshotEvery(), 2);
    // Off by default: the retained journal is what keeps archived windows auditable (R28, R30).
    return settings.deleteEventsBelowSnapshot() ? criteria.withDeleteEventsOnSnapshot() : criteria;
  }

  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), state -> {
          log.debug("task '{}' recovered: {} hot windows, {} archived", taskId, state.windows().size(), state.archivedCount());
          // A restart after a failed persist reuses this instance: what was handed out before is
          // handed out again (the executor ignores a window it already holds).
          dispatched.clear();
          lastReported = null;
          if (env.executor() != null && state.defined()) {
            // Timers and in-flight work do not survive a restart: time out attempts whose executor is
            // gone, release due retries, re-dispatch PENDING windows, report the next wake-up.
            ctx.getSelf().tell(new CheckExecutors());
          }
        })
        .build();
  }

  // ---------------------------------------------------------------------------------------------
  // Command handlers

  @Override
  public CommandHandlerWithReply<Command, Event, State> commandHandler() {
    return newCommandHandlerWithReplyBuilder()
        .forAnyState()
        .onCommand(Define.class, this::onDefine)
        .onCommand(Fire.class, this::onFire)
        .onCommand(CatchUp.class, this::onCatchUp)
        .onCommand(StartAttempt.class, this::onStartAttempt)
        .onCommand(Heartbeat.class, this::onHeartbeat)
        .onCommand(FinishAttempt.class, this::onFinishAttempt)
        .onCommand(ExpireLease.class, this::onExpireLease)
        .onCommand(ReleaseRetry.class, this::onReleaseRetry)
        .onCommand(Wake.class, this::onWake)
        .onCommand(CheckExecutors.class, this::onCheckExecutors)
        .onCommand(RecordEffect.class, this::onRecordEffect)
        .onCommand(Pause.class, this::onPause)
        .onCommand(Resume.class, this::onResume)
        .onCommand(RunNow.class, this::onRunNow)
        .onCommand(Backfill.class, this::onBackfill)
        .onCommand(Retry.class, this::onRetry)
        .onCommand(Resolve.class, this::onResolve)
        .onCommand(Cancel.class, this::onCancel)
        .onCommand(GetTask.class, this::onGetTask)
        .onCommand(GetWindows.class, this::onGetWindows)
        .onCommand(GetWindow.class, this::onGetWindow)
        .onCommand(GetInterventionQueue.class, this::onGetInterventionQueue)
        .build();
  }

  /** Persists the events, then runs the side effects that follow from them (never before). */
  private EffectBuilder<Event, State> persist(List<Event> events) {
    return Effect().persist(events).thenRun(s -> afterPersist(s, events));
  }

  private EffectBuilder<Event, State> persist(Event event) {
    return persist(List.of(event));
  }

  private ReplyEffect<Event, State> onDefine(State state, Define cmd) {
    TaskSpec spec = cmd.spec();
    if (spec == null) {
      return Effect().reply(cmd.replyTo(), StatusReply.error("spec 'null' is invalid: a task needs a spec"));
    }
    try {
      spec.validate();
    } catch (InvalidSpecException e) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(e.getMessage()));
    }
    if (!taskId.equals(spec.id())) {
      return Effect().reply(cmd.replyTo(),
          StatusReply.error("id '" + spec.id() + "' is invalid: this entity is task '" + taskId + "'"));
    }
    if (spec.equals(state.spec())) {
      return Effect().reply(cmd.replyTo(), StatusReply.ack());
    }
    return persist(new SpecDefined(spec, now())).thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private ReplyEffect<Event, State> onFire(State state, Fire cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    Instant now = now();
    Decided early = decideBeforeOverlap(state, cmd, now);
    if (early != null) {
      return early.error() != null ? Effect().reply(cmd.replyTo(), StatusReply.error(early.error()))
          : persistThenReply(early.events(), cmd.replyTo(), early.outcome());
    }
    String key = cmd.window().value();
    List<WindowState> active = state.activeForOverlap();
    if (active.isEmpty()) {
      return schedule(state, cmd, RunKind.FIRST, List.of());
    }
    String previous = active.get(0).key() + " is " + active.get(0).status();
    switch (state.spec().overlap()) {
      case SKIP: {
        Decided d = skip(cmd, SkipReason.PREVIOUS_RUNNING, "window " + previous, now);
        return persistThenReply(d.events(), cmd.replyTo(), d.outcome());
      }
      case BUFFER_ONE:
        for (WindowState w : active) {
          if (w.status() == InstanceStatus.PENDING && w.runKind() == RunKind.FIRST) {
            Decided d = skip(cmd, SkipReason.BUFFER_FULL, "window " + w.key() + " is already waiting", now);
            return persistThenReply(d.events(), cmd.replyTo(), d.outcome());
          }
        }
        return schedule(state, cmd, RunKind.FIRST, List.of());
      case ALLOW:
        return schedule(state, cmd, RunKind.FIRST, List.of());
      case CANCEL_PREVIOUS:
      default:
        List<Event> cancels = new ArrayList<>();
        for (WindowState w : active) {
          Transition.check(w.status(), InstanceStatus.CANCELLED, w.key());
          cancels.add(new InstanceCancelled(w.key(), w.attempt(), "superseded by window " + key, now));
        }
        return schedule(state, cmd, RunKind.FIRST, cancels);
    }
  }

  /**
   * Windows due while the trigger was down: each decided as a catch-up fire (a duplicate, skipped
   * while paused, missed, or scheduled as a backfill), all persisted in one write. An invalid window
   * refuses the whole command and nothing is persisted.
   */
  private ReplyEffect<Event, State> onCatchUp(State state, CatchUp cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    if (cmd.windows() == null || cmd.windows().isEmpty()) {
      return Effect().reply(cmd.replyTo(), StatusReply.error("windows '" + cmd.windows() + "' is invalid: "
          + "a catch-up names at least one window"));
    }
    Instant now = now();
    List<Event> events = new ArrayList<>();
    List<FireOutcome> outcomes = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (DueFire due : cmd.windows()) {
      Decided d;
      if (due == null) {
        d = new Decided(List.of(), null, "window 'null' is invalid: a catch-up names windows");
      } else if (due.window() != null && !seen.add(due.window().value())) {
        d = new Decided(List.of(), new FireOutcome(due.window().value(), Decision.DUPLICATE, "twice in one catch-up"), null);
      } else {
        d = decideBeforeOverlap(state,
            new Fire(due.window(), due.start(), due.end(), due.dueAt(), FireKind.CATCH_UP, null), now);
      }
      if (d.error() != null) {
        return Effect().reply(cmd.replyTo(), StatusReply.error(d.error()));
      }
      events.addAll(d.events());
      outcomes.add(d.outcome());
    }
    return persistThenReply(events, cmd.replyTo(), new CatchUpOutcome(List.copyOf(outcomes)));
  }

  /** Persists the events (if any), then replies the outcome. */
  private <R> ReplyEffect<Event, State> persistThenReply(List<Event> events, ActorRef<StatusReply<R>> replyTo, R outcome) {
    return events.isEmpty() ? Effect().reply(replyTo, StatusReply.success(outcome))
        : persist(events).thenReply(replyTo, s -> StatusReply.success(outcome));
  }

  /** A fire's decision: the events to persist and the outcome, or why the fire is refused. */
  private record Decided(List<Event> events, FireOutcome outcome, String error) {}

  /**
   * Decides a fire up to its overlap policy: refused when invalid or not yet due, a duplicate when
   * the window exists (R5), skipped while paused, missed outside the horizon (R14), and a catch-up
   * fire entirely: missed, or scheduled as a backfill (R12). Null: an on-time fire, for the overlap
   * policy to decide.
   */
  private Decided decideBeforeOverlap(State state, Fire cmd, Instant now) {
    if (cmd.window() == null || cmd.start() == null || cmd.end() == null || cmd.dueAt() == null || cmd.kind() == null
        || cmd.end().isBefore(cmd.start())) {
      return new Decided(List.of(), null, "fire '" + cmd.window() + "' is invalid: window, start <= end,"
          + " dueAt and kind are required (start " + cmd.start() + ", end " + cmd.end() + ", dueAt " + cmd.dueAt() + ")");
    }
    String key = cmd.window().value();
    Optional<WindowState> existing = state.window(key);
    if (existing.isPresent() || state.archived(cmd.start())) {
      // A repeated fire is a hint the entity has already acted on (R5): no event, just the ack.
      String status = existing.map(w -> w.status().name()).orElse("ARCHIVED");
      return new Decided(List.of(), new FireOutcome(key, Decision.DUPLICATE, "window exists: " + status), null);
    }
    if (cmd.dueAt().isAfter(now.plus(settings.maxClockSkew()))) {
      // A fire from the future would run a window early (R1): refuse it; the trigger fires it when due.
      return new Decided(List.of(), null, "dueAt '" + cmd.dueAt() + "' is invalid: window '" + key
          + "' is not due yet (now " + now + ")");
    }
    TaskSpec spec = state.spec();
    if (state.paused()) {
      return skip(cmd, SkipReason.PAUSED, "task is paused", now);
    }
    if (!spec.catchUp().withinHorizon(cmd.dueAt(), now)) {
      return miss(cmd, MissReason.OUTSIDE_HORIZON, "due " + cmd.dueAt() + ", older than the catch-up horizon "
          + spec.catchUp().horizon(), now);
    }
    if (cmd.kind() != FireKind.CATCH_UP) {
      return null;
    }
    if (!spec.backfill().allowsCatchUpAt(now, cmd.start())) {
      return miss(cmd, MissReason.BACKFILL_NOT_ALLOWED, spec.backfill().mode() == BackfillPolicy.Mode.NONE
          ? "due " + cmd.dueAt() + " while the trigger was down; the task is not backfillable"
          : "due " + cmd.dueAt() + ", outside the backfill span " + spec.backfill().span(), now);
    }
    return new Decided(List.of(new InstanceScheduled(key, cmd.start(), cmd.end(), cmd.dueAt(), RunKind.BACKFILL, now)),
        new FireOutcome(key, Decision.SCHEDULED, RunKind.BACKFILL.name()), null);
  }

  private ReplyEffect<Event, State> schedule(State state, Fire cmd, RunKind kind, List<Event> before) {
    String key = cmd.window().value();
    Instant now = now();
    List<Event> events = new ArrayList<>(before);
    events.add(new InstanceScheduled(key, cmd.start(), cmd.end(), cmd.dueAt(), kind, now));
    // A fresh window that may start at once, with a job slot offered by this node's executor, is
    // started in the same journal write as its schedule: one round trip instead of two (R21 holds:
    // the start is persisted before the job runs, once per attempt).
    boolean startNow = kind == RunKind.FIRST && before.isEmpty() && env.executor() != null
        && state.running("").isEmpty() && env.gate().tryTake();
    if (!startNow) {
      return persist(events)
          .thenReply(cmd.replyTo(), s -> StatusReply.success(new FireOutcome(key, Decision.SCHEDULED, kind.name())));
    }
    Transition.check(InstanceStatus.PENDING, InstanceStatus.RUNNING, key);
    Instant leaseUntil = now.plus(currentLease(state));
    events.add(new AttemptStarted(key, 1, kind, leaseUntil, env.executorId(), now));
    runners.put(key, env.executor());
    return persist(events)
        .thenRun(s -> {
          WindowState started = s.windows().get(key);
          env.executor().tell(new Executor.RunStarted(taskId, s.spec().job(), s.spec().zone(), new AttemptGrant(taskId, key,
              started.attempt(), kind, leaseUntil, started.start(), started.end(), started.effects(), started.pendingEffects())));
        })
        .thenReply(cmd.replyTo(), s -> StatusReply.success(new FireOutcome(key, Decision.SCHEDULED, kind.name())));
  }

  private static Decided skip(Fire cmd, SkipReason reason, String detail, Instant now) {
    String key = cmd.window().value();
    return new Decided(List.of(new FireSkipped(key, cmd.start(), cmd.end(), cmd.dueAt(), reason, detail, now)),
        new FireOutcome(key, Decision.SKIPPED, reason + ": " + detail), null);
  }

  private static Decided miss(Fire cmd, MissReason reason, String detail, Instant now) {
    String key = cmd.window().value();
    return new Decided(List.of(new WindowMissed(key, cmd.start(), cmd.end(), cmd.dueAt(), reason, detail, now)),
        new FireOutcome(key, Decision.MISSED, reason + ": " + detail), null);
  }

  private ReplyEffect<Event, State> onStartAttempt(State state, StartAttempt cmd) {
    ReplyEffect<Event, State> refused = refuseUnknown(state, cmd.window(), cmd.replyTo());
    if (refused != null) {
      return refused;
    }
    WindowState w = state.windows().get(cmd.window().value());
    if (w.status() != InstanceStatus.PENDING) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(
          "window '" + w.key() + "' is " + w.status() + ", not PENDING: attempt " + w.attempt() + " already started"));
    }
    if (state.spec().overlap() != OverlapPolicy.ALLOW) {
      Optional<WindowState> other = state.running(w.key());
      if (other.isPresent()) {
        return Effect().reply(cmd.replyTo(), StatusReply.error("window '" + other.get().key()
            + "' is still RUNNING and the overlap policy is " + state.spec().overlap()));
      }
    }
    Transition.check(w.status(), InstanceStatus.RUNNING, w.key());
    Instant now = now();
    int attempt = w.attempt() + 1;
    Instant leaseUntil = now.plus(currentLease(state));
    if (cmd.executor() != null) {
      runners.put(w.key(), cmd.executor());
    }
    return persist(new AttemptStarted(w.key(), attempt, w.runKind(), leaseUntil, cmd.executorId(), now))
        .thenReply(cmd.replyTo(), s -> {
          WindowState started = s.windows().get(w.key());
          return StatusReply.success(new AttemptGrant(taskId, w.key(), attempt, w.runKind(), leaseUntil, w.start(), w.end(),
              started.effects(), started.pendingEffects()));
        });
  }

  private ReplyEffect<Event, State> onHeartbeat(State state, Heartbeat cmd) {
    Optional<WindowState> found = runningAttempt(state, cmd.window(), cmd.attempt());
    if (found.isEmpty()) {
      return notRunning(state, cmd.replyTo(), cmd.window(), cmd.attempt());
    }
    WindowState w = found.get();
    Instant now = now();
    if (now.isAfter(w.leaseUntil())) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(
          "lease of window '" + w.key() + "' attempt " + w.attempt() + " expired at " + w.leaseUntil()));
    }
    Instant leaseUntil = now.plus(currentLease(state));
    if (!leaseUntil.isAfter(w.leaseUntil())) {
      return Effect().reply(cmd.replyTo(), StatusReply.success(new LeaseGranted(w.leaseUntil())));
    }
    return persist(new LeaseExtended(w.key(), w.attempt(), leaseUntil, now))
        .thenReply(cmd.replyTo(), s -> StatusReply.success(new LeaseGranted(leaseUntil)));
  }

  private ReplyEffect<Event, State> onFinishAttempt(State state, FinishAttempt cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    Optional<String> tooBig = oversized(cmd.result());
    if (tooBig.isPresent()) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(tooBig.get()));
    }
    if (cmd.duration() == null || cmd.duration().isNegative()) {
      return Effect().reply(cmd.replyTo(), StatusReply.error("duration '" + cmd.duration() + "' is invalid: must be >= 0"));
    }
    ReplyEffect<Event, State> refused = refuseUnknown(state, cmd.window(), cmd.replyTo());
    if (refused != null) {
      return refused;
    }
    WindowState w = state.windows().get(cmd.window().value());
    if (cmd.attempt() < 1 || cmd.attempt() > w.attempt()) {
      return Effect().reply(cmd.replyTo(), StatusReply.error("attempt '" + cmd.attempt() + "' is invalid: window '"
          + w.key() + "' has started " + w.attempt() + " attempts"));
    }
    Instant now = now();
    JobResult r = cmd.result();
    if (cmd.attempt() == w.resultAttempt()) {
      // The same result delivered again (the executor retries until acknowledged): already recorded.
      return Effect().reply(cmd.replyTo(), StatusReply.ack());
    }
    if (w.status() != InstanceStatus.RUNNING || w.attempt() != cmd.attempt()) {
      return persist(late(w, cmd, "window is " + w.status() + " at attempt " + w.attempt(), now))
          .thenReply(cmd.replyTo(), s -> StatusReply.ack());
    }
    List<Event> events = new ArrayList<>();
    if (now.isAfter(w.leaseUntil())) {
      // The attempt number is a fencing token: past its lease the attempt cannot succeed the window.
      events.add(new AttemptTimedOut(w.key(), w.attempt(), w.leaseUntil(), cmd.duration(), now));
      events.addAll(afterFailure(state, w, "lease expired at " + w.leaseUntil(), now));
      events.add(late(w, cmd, "result arrived after the lease expired at " + w.leaseUntil(), now));
    } else if (r.succeeded()) {
      Transition.check(w.status(), InstanceStatus.SUCCEEDED, w.key());
      events.add(new AttemptSucceeded(w.key(), w.attempt(), cmd.duration(), r.summary(), r.artifactUri(), now));
    } else {
      Transition.check(w.status(), InstanceStatus.FAILED, w.key());
      events.add(new AttemptFailed(w.key(), w.attempt(), cmd.duration(), r.reason(), now));
      events.addAll(afterFailure(state, w, r.reason(), now));
    }
    return persist(events).thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private LateResultRecorded late(WindowState w, FinishAttempt cmd, String detail, Instant now) {
    JobResult r = cmd.result();
    String what = r.succeeded() ? "summary: " + r.summary() : "reason: " + r.reason();
    return new LateResultRecorded(w.key(), cmd.attempt(), r.outcome(), detail + "; " + what, now);
  }

  private ReplyEffect<Event, State> onExpireLease(State state, ExpireLease cmd) {
    Optional<WindowState> found = runningAttempt(state, cmd.window(), cmd.attempt());
    if (found.isEmpty()) {
      // Already finished, timed out or superseded: nothing to expire.
      return Effect().reply(cmd.replyTo(), StatusReply.ack());
    }
    WindowState w = found.get();
    Instant now = now();
    if (now.isBefore(w.leaseUntil())) {
      return Effect().reply(cmd.replyTo(), StatusReply.error("lease of window '" + w.key() + "' attempt " + w.attempt()
          + " runs until " + w.leaseUntil()));
    }
    return persist(timeOut(state, w, "lease expired at " + w.leaseUntil(), now)).thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private List<Event> timeOut(State state, WindowState w, String reason, Instant now) {
    Transition.check(w.status(), InstanceStatus.TIMED_OUT, w.key());
    List<Event> events = new ArrayList<>();
    // An attempt that ran its whole lease counts with the lease as a (lower bound) duration sample,
    // so a job longer than its lease makes the next lease longer (R23). An attempt whose executor
    // died says nothing about the job's duration (the node may have been down for hours): no sample.
    Duration held = null;
    if (!now.isBefore(w.leaseUntil()) && startedAt(w) != null) {
      held = Duration.between(startedAt(w), w.leaseUntil());
      held = held.isNegative() ? Duration.ZERO : held;
    }
    events.add(new AttemptTimedOut(w.key(), w.attempt(), w.leaseUntil(), held, now));
    events.addAll(afterFailure(state, w, reason, now));
    return events;
  }

  private static Instant startedAt(WindowState w) {
    return w.startedAt() != null ? w.startedAt() : w.updatedAt();
  }

  /** What follows a failed or timed-out attempt: a retry by the backfill policy, or FINAL_FAILED. */
  private List<Event> afterFailure(State state, WindowState w, String lastReason, Instant now) {
    TaskSpec spec = state.spec();
    BackfillPolicy backfill = spec.backfill();
    int cap = spec.retry().maxRetries();
    if (!backfill.allowsBackfill()) {
      return List.of(new InstanceFinalFailed(w.key(), "not retried: the task is not backfillable (R12); last: " + lastReason, now));
    }
    if (w.retries() >= cap) {
      return List.of(new InstanceFinalFailed(w.key(), "retry cap " + cap + " reached; last: " + lastReason, now));
    }
    int retryNumber = w.retries() + 1;
    long seed = (taskId + "|" + w.key()).hashCode();
    Optional<Instant> due = backfill.retryDueAt(retryNumber, now, w.start(), seed);
    if (due.isEmpty()) {
      return List.of(new InstanceFinalFailed(w.key(), "outside the backfill span " + backfill.span() + "; last: " + lastReason, now));
    }
    if (due.get().isAfter(now)) {
      return List.of(new RetryScheduled(w.key(), retryNumber, due.get(), now));
    }
    return List.of(new RetryScheduled(w.key(), retryNumber, due.get(), now),
        new InstanceScheduled(w.key(), w.start(), w.end(), w.dueAt(), RunKind.RETRY, now));
  }

  private ReplyEffect<Event, State> onReleaseRetry(State state, ReleaseRetry cmd) {
    ReplyEffect<Event, State> refused = refuseUnknown(state, cmd.window(), cmd.replyTo());
    if (refused != null) {
      return refused;
    }
    WindowState w = state.windows().get(cmd.window().value());
    if (w.status() != InstanceStatus.RETRY_WAIT) {
      return Effect().reply(cmd.replyTo(), StatusReply.ack());
    }
    Instant now = now();
    if (now.isBefore(w.retryDueAt())) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(
          "retry of window '" + w.key() + "' is not due until " + w.retryDueAt()));
    }
    return persist(new InstanceScheduled(w.key(), w.start(), w.end(), w.dueAt(), RunKind.RETRY, now))
        .thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private ReplyEffect<Event, State> onWake(State state, Wake cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    dispatched.clear(); // whatever was handed to an executor before is handed again (it deduplicates)
    return persist(due(state)).thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private ReplyEffect<Event, State> onCheckExecutors(State state, CheckExecutors cmd) {
    if (!state.defined()) {
      return Effect().noReply();
    }
    return persist(due(state)).thenNoReply();
  }

  /**
   * What is due now: expired leases and attempts whose executor is gone time out (R23, R24); due
   * retries become PENDING.
   */
  private List<Event> due(State state) {
    Instant now = now();
    List<Event> events = new ArrayList<>();
    for (WindowState w : state.windows().values()) {
      if (w.status() == InstanceStatus.RUNNING) {
        if (!now.isBefore(w.leaseUntil())) {
          events.addAll(timeOut(state, w, "lease expired at " + w.leaseUntil(), now));
        } else if (w.executor() != null && !env.executorAlive().test(w.executor())) {
          // checked only after the lease test: a lease that ended counts as a lease expiry
          events.addAll(timeOut(state, w, "executor " + w.executor() + " is gone (node restarted or left)", now));
        }
      } else if (w.status() == InstanceStatus.RETRY_WAIT && !now.isBefore(w.retryDueAt())) {
        Transition.check(w.status(), InstanceStatus.PENDING, w.key());
        events.add(new InstanceScheduled(w.key(), w.start(), w.end(), w.dueAt(), RunKind.RETRY, now));
      }
    }
    return events;
  }

  private ReplyEffect<Event, State> onRecordEffect(State state, RecordEffect cmd) {
    if (cmd.key() == null || cmd.key().isBlank()) {
      return Effect().reply(cmd.replyTo(), StatusReply.error("effect key '" + cmd.key() + "' is invalid: must not be empty"));
    }
    Optional<WindowState> found = runningAttempt(state, cmd.window(), cmd.attempt());
    if (found.isEmpty()) {
      return notRunning(state, cmd.replyTo(), cmd.window(), cmd.attempt());
    }
    WindowState w = found.get();
    String existing = w.effects().get(cmd.key());
    if (existing != null) {
      return Effect().reply(cmd.replyTo(), StatusReply.success(new EffectReply(false, existing, false)));
    }
    boolean pending = w.pendingEffects().contains(cmd.key());
    if (cmd.intent() && pending) {
      return Effect().reply(cmd.replyTo(), StatusReply.success(new EffectReply(false, null, true)));
    }
    String value = cmd.value() == null ? "" : cmd.value();
    String error = null;
    if (cmd.key().length() > settings.maxEffectKeyLength()) {
      error = "effect key '" + abbreviate(cmd.key()) + "' is invalid: " + cmd.key().length()
          + " characters, at most " + settings.maxEffectKeyLength();
    } else if (value.length() > settings.maxEffectValueLength()) {
      error = "effect value '" + abbreviate(value) + "' is invalid: " + value.length()
          + " characters, at most " + settings.maxEffectValueLength();
    } else if (!pending && w.effects().size() + w.pendingEffects().size() >= settings.maxEffectsPerWindow()) {
      error = "effect key '" + cmd.key() + "' is refused: window '" + w.key() + "' already holds "
          + w.effects().size() + " effects (almanac.task.max-effects-per-window)";
    }
    if (error != null) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(error));
    }
    if (cmd.intent()) {
      return persist(new EffectIntended(w.key(), w.attempt(), cmd.key(), now()))
          .thenReply(cmd.replyTo(), s -> StatusReply.success(new EffectReply(true, null, true)));
    }
    return persist(new EffectRecorded(w.key(), w.attempt(), cmd.key(), value, now()))
        .thenReply(cmd.replyTo(), s -> StatusReply.success(new EffectReply(true, value, false)));
  }

  private ReplyEffect<Event, State> onPause(State state, Pause cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    if (state.paused()) {
      return Effect().reply(cmd.replyTo(), StatusReply.ack());
    }
    return persist(new TaskPaused(now())).thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private ReplyEffect<Event, State> onResume(State state, Resume cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    if (!state.paused()) {
      return Effect().reply(cmd.replyTo(), StatusReply.ack());
    }
    return persist(new TaskResumed(now())).thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private ReplyEffect<Event, State> onRunNow(State state, RunNow cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    Instant now = now();
    TaskSchedule schedule = schedule(state);
    LocalDateTime local = LocalDateTime.ofInstant(now, schedule.cron().zone());
    Window window = schedule.windows().windowOf(local, now, schedule.cron().zone());
    List<Event> events = new ArrayList<>();
    FireOutcome outcome = operatorRun(state, window, now, RunKind.MANUAL, now, events);
    if (events.isEmpty()) {
      return Effect().reply(cmd.replyTo(), StatusReply.success(outcome));
    }
    return persist(events).thenReply(cmd.replyTo(), s -> StatusReply.success(outcome));
  }

  private ReplyEffect<Event, State> onBackfill(State state, Backfill cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    if (cmd.from() == null || cmd.to() == null || !cmd.from().isBefore(cmd.to())) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(
          "from '" + cmd.from() + "' is invalid: must be before to '" + cmd.to() + "'"));
    }
    Instant now = now();
    if (cmd.to().isAfter(now)) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(
          "to '" + cmd.to() + "' is invalid: a backfill covers past windows only (now " + now + ")"));
    }
    int max = settings.maxBackfillWindows();
    // One entry per window: several firings may share a window (an hourly cron with daily windows).
    Map<String, DueWindow> windows = new LinkedHashMap<>();
    Instant cursor = cmd.from();
    while (windows.size() <= max) {
      List<DueWindow> due = schedule(state).dueBetween(cursor, cmd.to(), max + 1);
      for (DueWindow d : due) {
        windows.putIfAbsent(d.key().value(), d);
      }
      if (due.size() <= max) {
        break;
      }
      cursor = due.get(due.size() - 1).dueAt();
    }
    if (windows.size() > max) {
      return Effect().reply(cmd.replyTo(), StatusReply.error("to '" + cmd.to() + "' is invalid: the range from "
          + cmd.from() + " covers more than " + max + " windows (almanac.task.max-backfill-windows); ask in parts"));
    }
    List<Event> events = new ArrayList<>();
    List<FireOutcome> outcomes = new ArrayList<>();
    for (DueWindow d : windows.values()) {
      outcomes.add(operatorRun(state, d.window(), d.dueAt(), RunKind.BACKFILL, now, events));
    }
    BackfillReport report = new BackfillReport(List.copyOf(outcomes));
    if (events.isEmpty()) {
      return Effect().reply(cmd.replyTo(), StatusReply.success(report));
    }
    return persist(events).thenReply(cmd.replyTo(), s -> StatusReply.success(report));
  }

  /** An operator's run of one window: new, reopened, or recorded as existing (R7, R31). */
  private FireOutcome operatorRun(State state, Window window, Instant dueAt, RunKind kind, Instant now, List<Event> events) {
    String key = window.key().value();
    Optional<WindowState> existing = state.window(key);
    if (existing.isEmpty() && state.archived(window.start())) {
      return new FireOutcome(key, Decision.ARCHIVED, "window is older than the hot state; see the journal (R30)");
    }
    if (existing.isEmpty()) {
      events.add(new InstanceScheduled(key, window.start(), window.end(), dueAt, kind, now));
      return new FireOutcome(key, Decision.SCHEDULED, kind.name());
    }
    WindowState w = existing.get();
    if (REOPENABLE.contains(w.status())) {
      Transition.check(w.status(), InstanceStatus.PENDING, w.key());
      events.add(new InstanceScheduled(key, w.start(), w.end(), w.dueAt(), kind, now));
      return new FireOutcome(key, Decision.SCHEDULED, kind + " (was " + w.status() + ")");
    }
    String detail = "window is " + w.status();
    events.add(new FireSkipped(key, w.start(), w.end(), w.dueAt(), SkipReason.WINDOW_EXISTS, detail, now));
    return new FireOutcome(key, Decision.SKIPPED, SkipReason.WINDOW_EXISTS + ": " + detail);
  }

  /** Statuses an operator may run again (R15, R31); RETRY_WAIT is not one: the retry cap holds. */
  private static final Set<InstanceStatus> REOPENABLE = java.util.EnumSet.of(
      InstanceStatus.FINAL_FAILED, InstanceStatus.CANCELLED, InstanceStatus.SKIPPED, InstanceStatus.MISSED);

  private ReplyEffect<Event, State> onRetry(State state, Retry cmd) {
    ReplyEffect<Event, State> refused = refuseUnknown(state, cmd.window(), cmd.replyTo());
    if (refused != null) {
      return refused;
    }
    WindowState w = state.windows().get(cmd.window().value());
    if (!REOPENABLE.contains(w.status())) {
      return Effect().reply(cmd.replyTo(), StatusReply.error("window '" + w.key() + "' is " + w.status()
          + ": only FINAL_FAILED, CANCELLED, SKIPPED or MISSED windows can be retried by an operator"));
    }
    return operatorTransition(state, cmd.window(), cmd.replyTo(), InstanceStatus.PENDING,
        x -> new InstanceScheduled(x.key(), x.start(), x.end(), x.dueAt(), RunKind.MANUAL, now()), null);
  }

  private ReplyEffect<Event, State> onResolve(State state, Resolve cmd) {
    String note = cmd.note() == null ? "resolved by an operator" : cmd.note();
    return operatorTransition(state, cmd.window(), cmd.replyTo(), InstanceStatus.RESOLVED,
        w -> new InstanceResolved(w.key(), note, now()), note);
  }

  private ReplyEffect<Event, State> onCancel(State state, Cancel cmd) {
    String reason = cmd.reason() == null ? "cancelled by an operator" : cmd.reason();
    return operatorTransition(state, cmd.window(), cmd.replyTo(), InstanceStatus.CANCELLED,
        w -> new InstanceCancelled(w.key(), w.attempt(), reason, now()), reason);
  }

  private ReplyEffect<Event, State> operatorTransition(
      State state, WindowKey window, ActorRef<StatusReply<Done>> replyTo, InstanceStatus to,
      java.util.function.Function<WindowState, Event> event, String text) {
    ReplyEffect<Event, State> refused = refuseUnknown(state, window, replyTo);
    if (refused != null) {
      return refused;
    }
    WindowState w = state.windows().get(window.value());
    if (text != null && text.length() > settings.maxReasonLength()) {
      return Effect().reply(replyTo, StatusReply.error("reason '" + abbreviate(text) + "' is invalid: "
          + text.length() + " characters, at most " + settings.maxReasonLength()));
    }
    if (!Transition.isAllowed(w.status(), to)) {
      return Effect().reply(replyTo, StatusReply.error(new IllegalTransitionException(w.status(), to, w.key()).getMessage()));
    }
    return persist(event.apply(w)).thenReply(replyTo, s -> StatusReply.ack());
  }

  private ReplyEffect<Event, State> onGetTask(State state, GetTask cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    TaskSchedule schedule = schedule(state);
    Instant now = now();
    Optional<Duration> p99 = state.samples().p99();
    Duration interval = minInterval(state);
    int queue = (int) state.windows().values().stream().filter(w -> w.status() == InstanceStatus.FINAL_FAILED).count();
    TaskView view = new TaskView(state.spec(), state.paused(), state.windows().size(), state.archivedCount(), queue,
        state.samples().count(), p99.orElse(null), currentLease(state), interval, intervalWarning(state),
        schedule.nextAfter(now).map(DueWindow::dueAt).orElse(null));
    return Effect().reply(cmd.replyTo(), StatusReply.success(new TaskInfo(view)));
  }

  private ReplyEffect<Event, State> onGetWindows(State state, GetWindows cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    return Effect().reply(cmd.replyTo(), StatusReply.success(views(state, w -> true)));
  }

  private ReplyEffect<Event, State> onGetWindow(State state, GetWindow cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    if (state.window(cmd.window().value()).isEmpty()) {
      return unknownWindow(cmd.replyTo(), cmd.window());
    }
    return Effect().reply(cmd.replyTo(), StatusReply.success(views(state, w -> w.key().equals(cmd.window().value()))));
  }

  private ReplyEffect<Event, State> onGetInterventionQueue(State state, GetInterventionQueue cmd) {
    if (!state.defined()) {
      return unknownTask(cmd.replyTo());
    }
    return Effect().reply(cmd.replyTo(), StatusReply.success(views(state, w -> w.status() == InstanceStatus.FINAL_FAILED)));
  }

  private WindowList views(State state, java.util.function.Predicate<WindowState> which) {
    // The cap that applies: a task that is not backfillable never retries (R12).
    int cap = state.spec().backfill().allowsBackfill() ? state.spec().retry().maxRetries() : 0;
    List<WindowView> out = new ArrayList<>();
    state.windows().values().stream()
        .filter(which)
        .sorted(Comparator.comparing(WindowState::start).thenComparing(WindowState::key))
        .forEach(w -> out.add(w.view(taskId, cap)));
    return new WindowList(List.copyOf(out));
  }

  // ---------------------------------------------------------------------------------------------
  // Side effects after a persist: only ever from persisted state (principle 1).

  private void afterPersist(State state, List<Event> events) {
    for (Event e : events) {
      if (e instanceof InstanceFinalFailed ff) {
        alert(Alert.Kind.FINAL_FAILED, ff.window(), "window '" + ff.window() + "' of task '" + taskId
            + "' failed for good and waits in the intervention queue: " + ff.reason(), ff.at());
      } else if (e instanceof FireSkipped fs && fs.reason() != SkipReason.WINDOW_EXISTS) {
        int streak = skipStreak(state);
        if (env.repeatedSkipAlert() > 0 && streak == env.repeatedSkipAlert()) {
          alert(Alert.Kind.REPEATED_SKIPS, fs.window(), "task '" + taskId + "' skipped " + streak
              + " windows in a row, the last '" + fs.window() + "': " + fs.reason() + " (" + fs.detail() + ")", fs.at());
        }
      } else if (e instanceof AttemptTimedOut t) {
        cancelRunner(t.window(), t.attempt(), "lease expired at " + t.leaseUntil());
      } else if (e instanceof InstanceCancelled c) {
        cancelRunner(c.window(), c.attempt(), c.reason());
      } else if (e instanceof AttemptSucceeded || e instanceof AttemptFailed) {
        runners.remove(((WindowEvent) e).window());
        checkInterval(state);
      }
      if (e instanceof AttemptSucceeded || e instanceof AttemptFailed || e instanceof AttemptTimedOut
          || e instanceof InstanceCancelled) {
        // An attempt ended: a PENDING window the executor dropped because this one was running is
        // handed out again now, not at the next wake-up (the executor ignores one it still holds).
        dispatched.clear();
      }
    }
    dispatchPending(state);
    reportWakes(state);
  }

  private void alert(Alert.Kind kind, String window, String message, Instant at) {
    if (kind == Alert.Kind.FINAL_FAILED) {
      log.error(message);
    } else {
      log.warn(message);
    }
    try {
      env.alerts().alert(new Alert(kind, taskId, window, message, at));
    } catch (RuntimeException ex) {
      log.error("alert sink failed on {}: {}", kind, ex.toString());
    }
  }

  /** How many of the latest windows (by start) were skipped in a row, for the overlap reasons. */
  private static int skipStreak(State state) {
    List<WindowState> byStart = new ArrayList<>(state.windows().values());
    byStart.sort(Comparator.comparing(WindowState::start).reversed());
    int streak = 0;
    for (WindowState w : byStart) {
      if (w.status() != InstanceStatus.SKIPPED || w.reason() == null
          || !(w.reason().startsWith(SkipReason.PREVIOUS_RUNNING.name()) || w.reason().startsWith(SkipReason.BUFFER_FULL.name()))) {
        break;
      }
      streak++;
    }
    return streak;
  }

  private void cancelRunner(String window, int attempt, String reason) {
    ActorRef<Executor.Command> runner = runners.remove(window);
    if (runner != null) {
      runner.tell(new Executor.CancelAttempt(taskId, window, attempt, reason));
    }
  }

  /** Hands PENDING windows that may start now to the node's executor (it deduplicates). */
  private void dispatchPending(State state) {
    if (env.executor() == null || !state.defined()) {
      return;
    }
    boolean allow = state.spec().overlap() == OverlapPolicy.ALLOW;
    boolean someRunning = state.running("").isPresent();
    // Fresh windows (first and manual runs) before retries before backlog (catch-up, backfills), so a
    // backlog never holds up the window that is due now (R11, R17); oldest first within each.
    List<WindowState> pending = new ArrayList<>();
    for (WindowState w : state.windows().values()) {
      if (w.status() == InstanceStatus.PENDING) {
        pending.add(w);
      }
    }
    pending.sort(Comparator.comparingInt((WindowState w) -> switch (w.runKind()) {
      case FIRST, MANUAL -> 0;
      case RETRY -> 1;
      case BACKFILL -> 2;
    }).thenComparing(WindowState::start, Comparator.nullsFirst(Comparator.naturalOrder())));
    for (WindowState w : pending) {
      if (!allow && someRunning) {
        return; // it is dispatched when the running attempt ends
      }
      String token = w.key() + "#" + w.attempt();
      if (dispatched.add(token)) {
        env.executor().tell(new Executor.Run(taskId, w.key(), state.spec().job(), w.runKind(), state.spec().zone()));
      }
      if (!allow) {
        return; // one at a time
      }
    }
  }

  /** Tells the trigger when this task next needs a wake-up (a lease's end, a retry's due time). */
  private void reportWakes(State state) {
    if (env.trigger() == null) {
      return;
    }
    Instant next = null;
    for (WindowState w : state.windows().values()) {
      Instant at = switch (w.status()) {
        case RUNNING -> w.leaseUntil();
        case RETRY_WAIT -> w.retryDueAt();
        case PENDING -> w.updatedAt().plus(settings.redispatchAfter());
        default -> null;
      };
      if (at != null && (next == null || at.isBefore(next))) {
        next = at;
      }
    }
    TriggerActor.TaskWakes wakes = new TriggerActor.TaskWakes(taskId, next, state.hasActive());
    if (!wakes.equals(lastReported)) {
      lastReported = wakes;
      env.trigger().tell(wakes);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  private Instant now() {
    return clock.instant();
  }

  private Duration currentLease(State state) {
    return state.spec().lease().leaseFor(state.samples().p99(), state.samples().count());
  }

  private TaskSchedule schedule(State state) {
    if (schedule == null || scheduleOf != state.spec()) {
      schedule = Schedules.of(state.spec());
      scheduleOf = state.spec();
      minInterval = null;
      intervalWarned = false;
    }
    return schedule;
  }

  private Duration minInterval(State state) {
    TaskSchedule s = schedule(state);
    if (minInterval == null) {
      minInterval = s.minInterval(now());
    }
    return minInterval;
  }

  private boolean intervalWarning(State state) {
    Optional<Duration> p99 = state.samples().p99();
    return p99.isPresent() && state.samples().count() >= state.spec().lease().minSamples()
        && p99.get().compareTo(minInterval(state)) > 0;
  }

  /** R8: warn once per spec when the cron fires more often than a run lasts at P99. */
  private void checkInterval(State state) {
    if (!intervalWarned && intervalWarning(state)) {
      intervalWarned = true;
      log.warn("task '{}': cron '{}' fires every {} but its P99 duration is {} (R8); with overlap {} windows will be {}",
          taskId, state.spec().cron(), minInterval(state), state.samples().p99().get(), state.spec().overlap(),
          state.spec().overlap() == OverlapPolicy.SKIP ? "skipped" : "affected");
    }
  }

  private Optional<String> oversized(JobResult r) {
    if (r == null) {
      return Optional.of("result 'null' is invalid: an attempt must report a result");
    }
    if (r.summary().length() > settings.maxSummaryLength()) {
      return Optional.of("summary '" + abbreviate(r.summary()) + "' is invalid: " + r.summary().length()
          + " characters, at most " + settings.maxSummaryLength() + " (almanac.task.max-summary-length); keep the full output"
          + " elsewhere and pass its artifactUri");
    }
    if (r.reason() != null && r.reason().length() > settings.maxReasonLength()) {
      return Optional.of("reason '" + abbreviate(r.reason()) + "' is invalid: " + r.reason().length()
          + " characters, at most " + settings.maxReasonLength() + " (almanac.task.max-reason-length)");
    }
    if (r.artifactUri() != null && r.artifactUri().length() > settings.maxArtifactUriLength()) {
      return Optional.of("artifactUri '" + abbreviate(r.artifactUri()) + "' is invalid: " + r.artifactUri().length()
          + " characters, at most " + settings.maxArtifactUriLength() + " (almanac.task.max-artifact-uri-length)");
    }
    return Optional.empty();
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }

  private Optional<WindowState> runningAttempt(State state, WindowKey window, int attempt) {
    return state.window(window.value())
        .filter(w -> w.status() == InstanceStatus.RUNNING && w.attempt() == attempt);
  }

  private <T> ReplyEffect<Event, State> notRunning(State state, ActorRef<StatusReply<T>> replyTo, WindowKey window, int attempt) {
    if (!state.defined()) {
      return unknownTask(replyTo);
    }
    String now = state.window(window.value()).map(w -> w.status() + " at attempt " + w.attempt()).orElse("unknown");
    return Effect().reply(replyTo, StatusReply.error(
        "attempt " + attempt + " of window '" + window.value() + "' does not hold the window (window is " + now + ")"));
  }

  /** The refusal for a command about a window of an undefined task or an unknown window, or null. */
  private <T> ReplyEffect<Event, State> refuseUnknown(State state, WindowKey window, ActorRef<StatusReply<T>> replyTo) {
    if (!state.defined()) {
      return unknownTask(replyTo);
    }
    return state.window(window.value()).isEmpty() ? unknownWindow(replyTo, window) : null;
  }

  private <T> ReplyEffect<Event, State> unknownTask(ActorRef<StatusReply<T>> replyTo) {
    return Effect().reply(replyTo, StatusReply.error("task '" + taskId + "' is unknown: define it first"));
  }

  private <T> ReplyEffect<Event, State> unknownWindow(ActorRef<StatusReply<T>> replyTo, WindowKey window) {
    return Effect().reply(replyTo, StatusReply.error(
        "window '" + window.value() + "' is unknown for task '" + taskId + "'"));
  }

  // ---------------------------------------------------------------------------------------------
  // Event handler: builds the next state; never validates (replay must always succeed).

  @Override
  public EventHandler<State, Event> eventHandler() {
    HotState hot = new HotState(settings.hotWindows(), settings.retention());
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(SpecDefined.class, (s, e) -> s.withSpec(e.spec()))
        .onEvent(TaskPaused.class, (s, e) -> s.withPaused(true))
        .onEvent(TaskResumed.class, (s, e) -> s.withPaused(false))
        .onEvent(InstanceScheduled.class, (s, e) -> s.withWindow(s.window(e.window())
            .map(w -> {
              WindowState.Copy c = w.copy();
              c.status = InstanceStatus.PENDING;
              c.runKind = e.kind();
              c.leaseUntil = null;
              c.executor = null;
              c.retryDueAt = null;
              if (e.kind() != RunKind.RETRY) {
                c.retries = 0;
              }
              return c.at(e.at());
            })
            .orElseGet(() -> WindowState.created(e.window(), e.start(), e.end(), e.dueAt(), InstanceStatus.PENDING, e.kind(), null, e.at())), hot))
        .onEvent(FireSkipped.class, (s, e) -> s.window(e.window()).isPresent() ? s
            : s.withWindow(WindowState.created(e.window(), e.start(), e.end(), e.dueAt(), InstanceStatus.SKIPPED, RunKind.FIRST,
                e.reason() + ": " + e.detail(), e.at()), hot))
        .onEvent(WindowMissed.class, (s, e) -> s.window(e.window()).isPresent() ? s
            : s.withWindow(WindowState.created(e.window(), e.start(), e.end(), e.dueAt(), InstanceStatus.MISSED, RunKind.BACKFILL,
                e.reason() + ": " + e.detail(), e.at()), hot))
        .onEvent(AttemptStarted.class, (s, e) -> update(s, e, hot, c -> {
          c.status = InstanceStatus.RUNNING;
          c.attempt = e.attempt();
          c.runKind = e.kind();
          c.leaseUntil = e.leaseUntil();
          c.executor = e.executor();
          c.startedAt = e.at();
          c.retryDueAt = null;
        }))
        .onEvent(LeaseExtended.class, (s, e) -> update(s, e, hot, c -> c.leaseUntil = e.leaseUntil()))
        .onEvent(AttemptSucceeded.class, (s, e) -> update(s.withSample(e.duration()), e, hot, c -> {
          c.status = InstanceStatus.SUCCEEDED;
          c.resultAttempt = e.attempt();
          c.summary = e.summary();
          c.artifactUri = e.artifactUri();
          c.reason = null;
          c.leaseUntil = null;
        }))
        .onEvent(AttemptFailed.class, (s, e) -> update(s.withSample(e.duration()), e, hot, c -> {
          c.status = InstanceStatus.FAILED;
          c.resultAttempt = e.attempt();
          c.reason = e.reason();
          c.leaseUntil = null;
        }))
        .onEvent(AttemptTimedOut.class, (s, e) -> update(e.duration() == null ? s : s.withSample(e.duration()), e, hot, c -> {
          c.status = InstanceStatus.TIMED_OUT;
          c.reason = "lease expired at " + e.leaseUntil();
          c.leaseUntil = null;
        }))
        .onEvent(LateResultRecorded.class, (s, e) -> update(s, e, hot, c -> c.resultAttempt = Math.max(c.resultAttempt, e.attempt())))
        .onEvent(RetryScheduled.class, (s, e) -> update(s, e, hot, c -> {
          c.status = InstanceStatus.RETRY_WAIT;
          c.retries = e.retryNumber();
          c.retryDueAt = e.dueAt();
        }))
        .onEvent(InstanceFinalFailed.class, (s, e) -> update(s, e, hot, c -> {
          c.status = InstanceStatus.FINAL_FAILED;
          c.reason = e.reason();
          c.leaseUntil = null;
          c.retryDueAt = null;
        }))
        .onEvent(InstanceResolved.class, (s, e) -> update(s, e, hot, c -> {
          c.status = InstanceStatus.RESOLVED;
          c.reason = e.note();
        }))
        .onEvent(InstanceCancelled.class, (s, e) -> update(s, e, hot, c -> {
          c.status = InstanceStatus.CANCELLED;
          c.reason = e.reason();
          c.leaseUntil = null;
          c.retryDueAt = null;
        }))
        .onEvent(EffectIntended.class, (s, e) -> update(s, e, hot, c -> {
          if (!c.pendingEffects.contains(e.key()) && !c.effects.containsKey(e.key())) {
            List<String> next = new ArrayList<>(c.pendingEffects);
            next.add(e.key());
            c.pendingEffects = next;
          }
        }))
        .onEvent(EffectRecorded.class, (s, e) -> update(s, e, hot, c -> {
          Map<String, String> next = new LinkedHashMap<>(c.effects);
          next.putIfAbsent(e.key(), e.value());
          c.effects = next;
          if (c.pendingEffects.contains(e.key())) {
            List<String> pending = new ArrayList<>(c.pendingEffects);
            pending.remove(e.key());
            c.pendingEffects = pending;
          }
        }))
        .build();
  }

  private static State update(State s, WindowEvent e, HotState hot, java.util.function.Consumer<WindowState.Copy> change) {
    WindowState w = s.windows().get(e.window());
    if (w == null) {
      return s; // the window left the hot state; the journal keeps the event for audit
    }
    WindowState.Copy c = w.copy();
    change.accept(c);
    return s.withWindow(c.at(e.at()), hot);
  }
}
