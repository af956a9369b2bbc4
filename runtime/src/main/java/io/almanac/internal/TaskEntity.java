package io.almanac.internal;

import io.almanac.RefusedException;
import io.almanac.internal.NodeMeters.Origin;
import io.almanac.internal.TaskProtocol.*;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.*;
import org.slf4j.Logger;

/**
 * One task: its spec and the state machine of its windows (R20). The single writer of its windows,
 * so PENDING to RUNNING is a compare-and-set by construction (R5, R21). Every decision, including
 * not running a window, is an event persisted before it takes effect (R7). Persistence id
 * {@code task|<id>}.
 *
 * <p>A shell: the decisions are made by the pure core ({@link FireDecider}, {@link
 * AttemptLifecycle}, {@link EffectRules}, {@link OperatorActions}, {@link Reactions}); this class
 * persists what they decide and then carries out what follows. It owns its attempts' lease expiry
 * (a timer per running attempt) and starts an attempt only when its node's executor admits it (see
 * {@link Executor}). INTERNAL API: users go through the public facade.
 */
public final class TaskEntity extends EventSourcedBehaviorWithEnforcedReplies<Command, Event, State> {

  /** The sharding type key of task entities. */
  public static final EntityTypeKey<Command> TYPE_KEY = EntityTypeKey.create(Command.class, "almanac-task");

  private static final String OFFER_TIMER = "offer";

  /** A fire whose window was offered to the executor; its schedule is written when it answers. */
  private record Held(Fire fire, Decided<FireOutcome> decided, State decidedOn) {}

  private final String taskId;
  private final Clock clock;
  private final TaskSettings settings;
  private final TaskEnv env;
  private final ActorContext<Command> ctx;
  private final TimerScheduler<Command> timers;
  private final Logger log;
  private final TaskViews views;
  private final HotState hot;
  private final FireDecider fires;
  private final AttemptLifecycle attempts;
  private final EffectRules effects;
  private final OperatorActions operator;
  // In memory only (principle 1: nothing here is truth; it is rebuilt from the state on demand).
  private final TaskDispatch dispatch;
  private final LeaseTimers leases;
  private Held held;

  /** A task entity with no trigger, executor or alert sink, for unit tests of its state machine. */
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
    // the entity's log lines carry its task's id in the MDC, as the job's do (Executor.MDC_TASK)
    return Behaviors.withMdc(Command.class, java.util.Map.of(Executor.MDC_TASK, taskId),
        Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new TaskEntity(taskId, clock, settings, env, ctx, timers))));
  }

  /**
   * @param taskId a task id
   * @return its persistence id, {@code task|<id>}
   */
  public static PersistenceId persistenceId(String taskId) {
    return PersistenceId.ofUniqueId(TaskJournal.persistenceId(taskId));
  }

  private TaskEntity(String taskId, Clock clock, TaskSettings settings, TaskEnv env, ActorContext<Command> ctx,
      TimerScheduler<Command> timers) {
    super(persistenceId(taskId),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2));
    this.taskId = Objects.requireNonNull(taskId, "taskId");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.env = Objects.requireNonNull(env, "env");
    this.ctx = ctx;
    this.timers = timers;
    this.leases = new LeaseTimers(timers);
    this.log = ctx.getLog();
    this.hot = new HotState(settings.hotWindows(), settings.retention());
    this.fires = new FireDecider(settings);
    this.attempts = new AttemptLifecycle(taskId, settings);
    this.effects = new EffectRules(settings);
    this.operator = new OperatorActions(taskId, settings);
    this.views = new TaskViews(taskId, clock, log);
    this.dispatch = new TaskDispatch(taskId, env, ctx.getSelf(), settings.redispatchAfter());
  }

  @Override
  public State emptyState() {
    return State.empty(settings.durationSamples());
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    var criteria = RetentionCriteria.snapshotEvery(settings.snapshotEvery(), 2);
    // Off by default: the retained journal is what keeps archived windows auditable (R28, R30).
    return settings.deleteEventsBelowSnapshot() ? criteria.withDeleteEventsOnSnapshot() : criteria;
  }

  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.instance(), state -> {
          log.debug("task '{}' recovered: {} hot windows, {} archived", taskId, state.windows().size(), state.archivedCount());
          // A restart after a failed persist reuses this instance: nothing in memory survives it.
          dispatch.reset();
          timers.cancelAll();
          leases.forgetAll();
          held = null;
          env.meters().interventionQueue(taskId, state);
          if (env.executor() != null) {
            // Slots reserved for this entity and not answered are freed; its PENDING windows are offered again.
            env.executor().tell(new Executor.TaskRecovered(taskId));
            if (state.defined()) {
              ctx.getSelf().tell(new Recovered());
            }
          }
        })
        .build();
  }

  // ---------------------------------------------------------------------------------------------
  // Command handlers: per state; each asks the pure core, then persists what it decided.

  @Override
  public CommandHandlerWithReply<Command, Event, State> commandHandler() {
    CommandHandlerWithReplyBuilder<Command, Event, State> b = newCommandHandlerWithReplyBuilder();
    b.forState(s -> held != null).onAnyCommand(this::whileHeld);
    b.forState(s -> !s.defined())
        .onCommand(Define.class, (s, c) -> run(s, operator.define(s, c.spec(), now()), c.replyTo()))
        .onCommand(SelfCommand.class, (s, c) -> Effect().noReply())
        .onCommand(Admitted.class, (s, c) -> Effect().reply(c.replyTo(),
            new Executor.Declined(taskId, c.window().value(),
            RefusedException.Reason.UNKNOWN_TASK, "task '" + taskId + "' is unknown")))
        .onAnyCommand((s, c) -> refuse(c, new RefusedException(RefusedException.Reason.UNKNOWN_TASK,
            "task '" + taskId + "' is unknown: define it first")));
    // Removed: the history answers queries; a new Define brings the task back. Results of attempts the
    // removal cancelled are still recorded (as late results, for audit); everything else is refused.
    shared(b.forState(State::removed))
        .onCommand(Admitted.class, (s, c) -> Effect().reply(c.replyTo(), new Executor.Declined(taskId, c.window().value(),
            RefusedException.Reason.REMOVED, operator.refuseRemoved(s).refusal().getMessage())))
        .onCommand(Queued.class, (s, c) -> Effect().noReply())
        .onCommand(Wake.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.ack())) // nothing is due any more
        .onCommand(SelfCommand.class, (s, c) -> Effect().noReply())
        .onAnyCommand((s, c) -> refuse(c, operator.refuseRemoved(s).refusal()));
    shared(b.forState(State::defined))
        // trigger
        .onCommand(Fire.class, this::onFire)
        .onCommand(CatchUp.class, (s, c) -> settledFirst(s, Origin.CATCH_UP, c.replyTo(),
            x -> fires.catchUp(x, c.windows(), now())))
        .onCommand(Wake.class, this::onWake)
        // executor
        .onCommand(Admitted.class, this::onAdmitted)
        .onCommand(Queued.class, (s, c) -> Effect().noReply())
        // self
        .onCommand(LeaseTimer.class, this::onLeaseTimer)
        .onCommand(OfferUnanswered.class, (s, c) -> Effect().noReply())
        .onCommand(Recovered.class, (s, c) -> persist(s, null, attempts.settle(s, env.executorAlive(), now()),
            attempts.dueRetries(s, now())).thenNoReply())
        // operators
        .onCommand(Pause.class, (s, c) -> run(s, operator.pause(s, now()), c.replyTo()))
        .onCommand(Resume.class, (s, c) -> run(s, operator.resume(s, now()), c.replyTo()))
        .onCommand(RunNow.class, (s, c) -> run(s, Origin.MANUAL, operator.withSchedule(() -> views.schedule(s),
            x -> operator.runNow(s, x, now())), c.replyTo()))
        .onCommand(Backfill.class, (s, c) -> run(s, Origin.BACKFILL, operator.withSchedule(() -> views.schedule(s),
            x -> operator.backfill(s, x, c.from(), c.to(), now())), c.replyTo()))
        .onCommand(Retry.class, (s, c) -> run(s, Origin.MANUAL, operator.retry(s, c.window(), now()), c.replyTo()))
        .onCommand(Resolve.class, (s, c) -> run(s, operator.resolve(s, c.window(), c.note(), now()), c.replyTo()))
        .onCommand(Cancel.class, (s, c) -> run(s, operator.cancel(s, c.window(), c.reason(), now()), c.replyTo()));
    return b.build();
  }

  /**
   * What a defined and a removed task handle alike: the spec (a new Define brings a removed task
   * back), a removal, the results, heartbeats, effects and lease expiry of attempts (those the
   * removal cancelled are recorded as late results, for audit), and the queries (from the history).
   */
  private CommandHandlerWithReplyBuilderByState<Command, Event, State, State> shared(
      CommandHandlerWithReplyBuilderByState<Command, Event, State, State> b) {
    return b
        .onCommand(Define.class, (s, c) -> run(s, operator.define(s, c.spec(), now()), c.replyTo()))
        .onCommand(Remove.class, (s, c) -> run(s, operator.remove(s, now()), c.replyTo()))
        .onCommand(Heartbeat.class, (s, c) -> run(s, attempts.heartbeat(s, c.window(), c.attempt(), now()), c.replyTo()))
        .onCommand(FinishAttempt.class, (s, c) -> run(s, attempts.finish(s, c, now()), c.replyTo()))
        .onCommand(RecordEffect.class, (s, c) -> run(s, effects.record(s, c, now()), c.replyTo()))
        .onCommand(ExpireLease.class, (s, c) -> run(s, attempts.expireLease(s, c.window(), c.attempt(), now()), c.replyTo()))
        .onCommand(GetTask.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(new TaskInfo(views.view(s)))))
        .onCommand(GetWindows.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(views.windows(s, w -> true))))
        .onCommand(GetWindow.class, this::onGetWindow)
        .onCommand(GetInterventionQueue.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(
            views.windows(s, w -> w.status() == io.almanac.InstanceStatus.FINAL_FAILED))));
  }

  /**
   * Persists the events (in one write), then runs the side effects that follow from them (never before).
   *
   * @param before the state they are written on (the meters tell what changed)
   * @param origin what brought the write about, when it decides fires (for the meters), or null
   */
  @SafeVarargs
  private EffectBuilder<Event, State> persist(State before, Origin origin, List<Event>... parts) {
    List<Event> events = parts.length == 1 ? parts[0] : Stream.of(parts).flatMap(List::stream).toList();
    return Effect().persist(events).thenRun(s -> afterPersist(before, origin, s, events));
  }

  /** Carries out a decision: the refusal, or the events (if any) and then the reply. */
  private <R> ReplyEffect<Event, State> run(State state, Decided<R> d, ActorRef<StatusReply<R>> replyTo) {
    return run(state, null, d, replyTo);
  }

  /** Carries out a decision that decides fires, brought about by origin (see {@link NodeMeters}). */
  private <R> ReplyEffect<Event, State> run(State state, Origin origin, Decided<R> d, ActorRef<StatusReply<R>> replyTo) {
    if (d.refused()) {
      return Effect().reply(replyTo, StatusReply.error(d.refusal()));
    }
    if (d.events().isEmpty()) {
      return Effect().reply(replyTo, StatusReply.success(d.reply().apply(state)));
    }
    return persist(state, origin, d.events()).thenReply(replyTo, s -> StatusReply.success(d.reply().apply(s)));
  }

  /**
   * Decides on the state with dead attempts settled first, in the same write, so an attempt whose
   * executor died with its node never counts as the previous run (R6, R24).
   */
  private <R> ReplyEffect<Event, State> settledFirst(State state, Origin origin, ActorRef<StatusReply<R>> replyTo,
      Function<State, Decided<R>> decide) {
    List<Event> settled = attempts.settle(state, env.executorAlive(), now());
    return run(state, origin, decide.apply(Evolve.fold(state, settled, hot)).after(settled), replyTo);
  }

  /**
   * A fire. A fresh window that may start at once is first offered to the node's executor (the
   * task's other commands wait): admitted, it is scheduled and started in one write; queued, it is
   * scheduled alone and starts when admitted (R20, R21).
   */
  private ReplyEffect<Event, State> onFire(State state, Fire cmd) {
    List<Event> settled = attempts.settle(state, env.executorAlive(), now());
    State s = Evolve.fold(state, settled, hot);
    Decided<FireOutcome> decided = fires.fire(s, cmd, now());
    Decided<FireOutcome> d = decided.after(settled);
    if (d.refused() || !dispatch.hasExecutor() || !Reactions.startsAtOnce(s, decided.events())) {
      return run(state, Origin.of(cmd.kind()), d, cmd.replyTo());
    }
    held = new Held(cmd, d, s);
    timers.startSingleTimer(OFFER_TIMER, new OfferUnanswered(cmd.window().value()), settings.offerTimeout());
    dispatch.offerFresh(cmd.window().value());
    return Effect().noReply();
  }

  /** While a fire waits for the executor's answer, only that answer is handled; the rest waits. */
  private ReplyEffect<Event, State> whileHeld(State state, Command cmd) {
    String window = held.fire().window().value();
    boolean answer = cmd instanceof Admitted a && a.window().value().equals(window)
        || cmd instanceof Queued q && q.window().value().equals(window)
        || cmd instanceof OfferUnanswered o && o.window().equals(window);
    if (!answer) {
      return Effect().stash();
    }
    Held h = held;
    held = null;
    timers.cancel(OFFER_TIMER);
    ActorRef<StatusReply<FireOutcome>> trigger = h.fire().replyTo();
    if (!(cmd instanceof Admitted a)) {
      return persist(state, Origin.of(h.fire().kind()), h.decided().events())
          .thenReply(trigger, s -> StatusReply.success(h.decided().reply().apply(s))).thenUnstashAll();
    }
    List<Event> events = new ArrayList<>(h.decided().events());
    AttemptStarted started = attempts.firstStart(h.decidedOn(), window, a.executorId(), now());
    events.add(started);
    return persist(state, Origin.of(h.fire().kind()), events)
        .thenRun(s -> trigger.tell(StatusReply.success(h.decided().reply().apply(s))))
        .thenReply(a.replyTo(), s -> new Executor.Started(s.spec().job(), s.spec().zone(), attempts.grant(s, started)))
        .thenUnstashAll();
  }

  /** The executor reserved a slot for a PENDING window: start it, or decline so the slot is freed. */
  private ReplyEffect<Event, State> onAdmitted(State state, Admitted cmd) {
    Decided<AttemptGrant> d = attempts.start(state, cmd.window(), cmd.executorId(), now());
    if (d.refused()) {
      return Effect().reply(cmd.replyTo(),
          new Executor.Declined(taskId, cmd.window().value(), ((RefusedException) d.refusal()).reason(), d.refusal().getMessage()));
    }
    return persist(state, null, d.events()).thenReply(cmd.replyTo(),
        s -> new Executor.Started(s.spec().job(), s.spec().zone(), d.reply().apply(s)));
  }

  private ReplyEffect<Event, State> onWake(State state, Wake cmd) {
    dispatch.forgetOffers(); // whatever was offered before is offered again (the executor ignores what it holds)
    leases.forgetAll(); // and every lease timer re-armed by the clock now (it may have stepped)
    return persist(state, null, attempts.dueRetries(state, now())).thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private ReplyEffect<Event, State> onLeaseTimer(State state, LeaseTimer cmd) {
    leases.fired(cmd.window());
    List<Event> events = attempts.settle(state, env.executorAlive(), now());
    return persist(state, null, events).thenNoReply(); // a timer early by the clock is armed again after the (empty) write
  }

  private ReplyEffect<Event, State> onGetWindow(State state, GetWindow cmd) {
    if (state.window(cmd.window().value()).isEmpty()) {
      return run(state, attempts.unknownWindow(cmd.window()), cmd.replyTo());
    }
    return Effect().reply(cmd.replyTo(), StatusReply.success(views.windows(state, w -> w.key().equals(cmd.window().value()))));
  }

  /** Refuses a command with a reply (commands without one are dropped). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private ReplyEffect<Event, State> refuse(Command cmd, Throwable refusal) {
    ActorRef replyTo = cmd.replyTo();
    return replyTo == null ? Effect().noReply() : Effect().reply(replyTo, StatusReply.error(refusal));
  }

  // ---------------------------------------------------------------------------------------------
  // After a persist: only ever from persisted state (principle 1), as Reactions decides.

  private void afterPersist(State before, Origin origin, State state, List<Event> events) {
    env.meters().written(taskId, origin, before, state, events);
    Reactions.alerts(taskId, state, events, env.repeatedSkipAlert()).forEach(a -> env.raise(a, log));
    if (env.executor() != null) {
      Reactions.cancels(taskId, events).forEach(env.executor()::tell);
    }
    if (Reactions.attemptFinished(events)) {
      views.checkInterval(state);
    }
    if (Reactions.attemptEnded(events)) {
      dispatch.forgetOffers(); // a window held back by the ended attempt is offered now, not at the next wake-up
    }
    leases.arm(state, now());
    dispatch.offerPending(state);
    dispatch.reportWakes(state);
  }

  private Instant now() {
    return clock.instant();
  }

  // ---------------------------------------------------------------------------------------------
  // Event handler: the one evolve (it never validates: replay must always succeed).

  @Override
  public EventHandler<State, Event> eventHandler() {
    Evolve.Violations violations = Evolve.Violations.logTo(log, "task '" + taskId + "'");
    return newEventHandlerBuilder().forAnyState().onAnyEvent((s, e) -> Evolve.apply(s, e, hot, violations));
  }
}
