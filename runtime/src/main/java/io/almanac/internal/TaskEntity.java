package io.almanac.internal;

import io.almanac.schedule.TaskSchedule;
import io.almanac.journal.TaskJournal;

import io.almanac.internal.TaskProtocol.*;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.TaskJournal.*;
import io.almanac.journal.WindowState;
import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import io.almanac.Alert;
import io.almanac.RefusedException;
import io.almanac.ScheduleComputationException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
import org.apache.pekko.persistence.typed.javadsl.CommandHandlerWithReplyBuilder;
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
    extends EventSourcedBehaviorWithEnforcedReplies<TaskProtocol.Command, Event, State> {

  /** The sharding type key of task entities. */
  public static final EntityTypeKey<Command> TYPE_KEY = EntityTypeKey.create(Command.class, "almanac-task");

  // ---------------------------------------------------------------------------------------------
  // Commands

  /** After recovery: time out attempts whose executor is gone (sent to itself). */
  private record CheckExecutors() implements Command {}


  // ---------------------------------------------------------------------------------------------


  private final String taskId;
  private final Clock clock;
  private final TaskSettings settings;
  private final TaskEnv env;
  private final ActorContext<Command> ctx;
  private final Logger log;
  private final TaskViews views;
  // In memory only (principle 1: nothing here is truth; it is rebuilt from the state on demand).
  private final Map<String, ActorRef<Executor.Command>> runners = new HashMap<>();
  private final Set<String> dispatched = new HashSet<>();
  private TriggerActor.TaskWakes lastReported;
  // The pure core: every decision is made there; this class persists and sends.
  private final HotState hot;
  private final FireDecider fires;
  private final AttemptLifecycle attempts;
  private final EffectRules effects;
  private final OperatorActions operator;

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
    return PersistenceId.ofUniqueId(TaskJournal.persistenceId(taskId));
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
    this.hot = new HotState(settings.hotWindows(), settings.retention());
    this.fires = new FireDecider(settings);
    this.attempts = new AttemptLifecycle(taskId, settings);
    this.effects = new EffectRules(settings);
    this.operator = new OperatorActions(taskId, settings);
    this.views = new TaskViews(taskId, clock, log);
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
  // Command handlers: per state; each asks the pure core, then persists what it decided.

  @Override
  public CommandHandlerWithReply<Command, Event, State> commandHandler() {
    CommandHandlerWithReplyBuilder<Command, Event, State> b = newCommandHandlerWithReplyBuilder();
    b.forState(s -> !s.defined())
        .onCommand(Define.class, this::onDefine)
        .onCommand(CheckExecutors.class, (s, c) -> Effect().noReply())
        .onAnyCommand(this::unknownTask);
    b.forState(State::defined)
        .onCommand(Define.class, this::onDefine)
        .onCommand(Fire.class, this::onFire)
        .onCommand(CatchUp.class, this::onCatchUp)
        .onCommand(StartAttempt.class, this::onStartAttempt)
        .onCommand(Heartbeat.class, (s, c) -> run(s, attempts.heartbeat(s, c.window(), c.attempt(), now()), c.replyTo()))
        .onCommand(FinishAttempt.class, (s, c) -> run(s, attempts.finish(s, c, now()), c.replyTo()))
        .onCommand(ExpireLease.class, (s, c) -> run(s, attempts.expireLease(s, c.window(), c.attempt(), now()), c.replyTo()))
        .onCommand(ReleaseRetry.class, (s, c) -> run(s, attempts.releaseRetry(s, c.window(), now()), c.replyTo()))
        .onCommand(Wake.class, this::onWake)
        .onCommand(CheckExecutors.class, (s, c) -> persist(attempts.due(s, env.executorAlive(), now())).thenNoReply())
        .onCommand(RecordEffect.class, (s, c) -> run(s, effects.record(s, c, now()), c.replyTo()))
        .onCommand(Pause.class, (s, c) -> run(s, operator.pause(s, now()), c.replyTo()))
        .onCommand(Resume.class, (s, c) -> run(s, operator.resume(s, now()), c.replyTo()))
        .onCommand(RunNow.class, (s, c) -> withSchedule(s, c.replyTo(), x -> operator.runNow(s, x, now())))
        .onCommand(Backfill.class, (s, c) -> withSchedule(s, c.replyTo(), x -> operator.backfill(s, x, c.from(), c.to(), now())))
        .onCommand(Retry.class, (s, c) -> run(s, operator.retry(s, c.window(), now()), c.replyTo()))
        .onCommand(Resolve.class, (s, c) -> run(s, operator.resolve(s, c.window(), c.note(), now()), c.replyTo()))
        .onCommand(Cancel.class, (s, c) -> run(s, operator.cancel(s, c.window(), c.reason(), now()), c.replyTo()))
        .onCommand(GetTask.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(new TaskInfo(views.view(s)))))
        .onCommand(GetWindows.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(views.windows(s, w -> true))))
        .onCommand(GetWindow.class, this::onGetWindow)
        .onCommand(GetInterventionQueue.class, (s, c) -> Effect().reply(c.replyTo(),
            StatusReply.success(views.windows(s, w -> w.status() == InstanceStatus.FINAL_FAILED))));
    return b.build();
  }

  /** Persists the events, then runs the side effects that follow from them (never before). */
  private EffectBuilder<Event, State> persist(List<Event> events) {
    return Effect().persist(events).thenRun(s -> afterPersist(s, events));
  }

  /** Carries out a decision: the refusal, or the events (if any) and then the reply. */
  private <R> ReplyEffect<Event, State> run(State state, Decided<R> d, ActorRef<StatusReply<R>> replyTo) {
    if (d.refused()) {
      return Effect().reply(replyTo, StatusReply.error(d.refusal()));
    }
    if (d.events().isEmpty()) {
      return Effect().reply(replyTo, StatusReply.success(d.reply().apply(state)));
    }
    return persist(d.events()).thenReply(replyTo, s -> StatusReply.success(d.reply().apply(s)));
  }

  private State fold(State state, List<Event> events) {
    State s = state;
    for (Event e : events) {
      s = Evolve.apply(s, e, hot, Evolve.Violations.IGNORE);
    }
    return s;
  }

  private ReplyEffect<Event, State> onDefine(State state, Define cmd) {
    return run(state, operator.define(state, cmd.spec(), now()), cmd.replyTo());
  }

  /**
   * A fire: dead attempts are settled first, in the same write, so an attempt whose executor died
   * with its node never counts as the previous run (R6, R24). A fresh window that may start at once,
   * with a job slot offered by this node's executor, is started in the same write as its schedule.
   */
  private ReplyEffect<Event, State> onFire(State state, Fire cmd) {
    Instant now = now();
    List<Event> settled = attempts.settle(state, env.executorAlive(), now);
    State s = settled.isEmpty() ? state : fold(state, settled);
    Decided<FireOutcome> decided = fires.fire(s, cmd, now);
    Decided<FireOutcome> d = decided.after(settled);
    if (d.refused() || env.executor() == null || !startsAtOnce(s, decided.events()) || !env.gate().tryTake()) {
      return run(state, d, cmd.replyTo());
    }
    TaskJournal.AttemptStarted started = attempts.firstStart(s, cmd.window().value(), env.executorId(), now);
    List<Event> events = new ArrayList<>(d.events());
    events.add(started);
    runners.put(started.window(), env.executor());
    return persist(events)
        .thenRun(x -> env.executor().tell(new Executor.RunStarted(taskId, x.spec().job(), x.spec().zone(),
            attempts.grant(x, started))))
        .thenReply(cmd.replyTo(), x -> StatusReply.success(d.reply().apply(x)));
  }

  /**
   * Whether the fire's decision is a fresh first run alone (no cancellation), with nothing running
   * and nothing queued before it (an older PENDING window starts first).
   */
  private static boolean startsAtOnce(State s, List<Event> decided) {
    if (decided.size() != 1 || !(decided.get(0) instanceof InstanceScheduled scheduled) || scheduled.kind() != RunKind.FIRST
        || s.running("").isPresent()) {
      return false;
    }
    for (WindowState x : s.windows().values()) {
      if (x.status() == InstanceStatus.PENDING) {
        return false;
      }
    }
    return true;
  }

  private ReplyEffect<Event, State> onCatchUp(State state, CatchUp cmd) {
    Instant now = now();
    List<Event> settled = attempts.settle(state, env.executorAlive(), now);
    return run(state, fires.catchUp(fold(state, settled), cmd.windows(), now).after(settled), cmd.replyTo());
  }

  private ReplyEffect<Event, State> onStartAttempt(State state, StartAttempt cmd) {
    Decided<AttemptGrant> d = attempts.start(state, cmd.window(), cmd.executorId(), now());
    if (!d.refused() && cmd.executor() != null) {
      runners.put(cmd.window().value(), cmd.executor());
    }
    return run(state, d, cmd.replyTo());
  }

  private ReplyEffect<Event, State> onWake(State state, Wake cmd) {
    dispatched.clear(); // whatever was handed to an executor before is handed again (it deduplicates)
    return persist(attempts.due(state, env.executorAlive(), now())).thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }



  private ReplyEffect<Event, State> onGetWindow(State state, GetWindow cmd) {
    if (state.window(cmd.window().value()).isEmpty()) {
      return run(state, attempts.unknownWindow(cmd.window()), cmd.replyTo());
    }
    return Effect().reply(cmd.replyTo(), StatusReply.success(views.windows(state, w -> w.key().equals(cmd.window().value()))));
  }


  @SuppressWarnings({"unchecked", "rawtypes"})
  private ReplyEffect<Event, State> unknownTask(State state, Command cmd) {
    ActorRef replyTo = cmd.replyTo();
    if (replyTo == null) {
      return Effect().noReply();
    }
    return Effect().reply(replyTo, StatusReply.error(
        new RefusedException(RefusedException.Reason.UNKNOWN_TASK, "task '" + taskId + "' is unknown: define it first")));
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
        views.checkInterval(state);
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
      if (w.skipReason() != SkipReason.PREVIOUS_RUNNING && w.skipReason() != SkipReason.BUFFER_FULL) {
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


  /**
   * Runs a decision that needs the task's schedule; a schedule that fails (a cron or window spec
   * that throws) refuses this command alone and never fails the entity (principle 8).
   */
  private <R> ReplyEffect<Event, State> withSchedule(State state, ActorRef<StatusReply<R>> replyTo,
      java.util.function.Function<TaskSchedule, Decided<R>> decide) {
    Decided<R> d;
    try {
      d = decide.apply(views.schedule(state));
    } catch (InvalidSpecException | ScheduleComputationException e) {
      d = Decided.refuse(RefusedException.Reason.SCHEDULE_FAILED, "task '" + taskId + "': its schedule failed: " + e.getMessage());
    }
    return run(state, d, replyTo);
  }




  // ---------------------------------------------------------------------------------------------
  // Event handler: builds the next state; never validates (replay must always succeed).

  @Override
  public EventHandler<State, Event> eventHandler() {
    HotState hot = new HotState(settings.hotWindows(), settings.retention());
    Evolve.Violations violations = (window, from, to, e) -> log.error(
        "task '{}': journal event {} asks window '{}' to go {} -> {}, which the transition table refuses (R20); "
            + "the window keeps its status", taskId, e.getClass().getSimpleName(), window, from == null ? "NEW" : from, to);
    return newEventHandlerBuilder()
        .forAnyState()
        .onAnyEvent((s, e) -> Evolve.apply(s, e, hot, violations));
  }
}
