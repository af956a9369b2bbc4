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
  private final EventDecider events;
  private final GateDecider gates;
  // What the gate checks of waiting windows remember between polls (in memory only: lost on a
  // restart, which can only delay a release), the windows being checked, and when each was last.
  private final java.util.Map<String, GateDecider.Memory> gateMemory = new java.util.HashMap<>();
  private final java.util.Map<String, Instant> lastCheck = new java.util.HashMap<>();
  private final java.util.Set<String> checking = new java.util.HashSet<>();
  // Windows whose condition call has not returned (touched from the call's thread too: concurrent).
  private final java.util.Set<String> callsRunning = java.util.concurrent.ConcurrentHashMap.newKeySet();
  // In memory only (principle 1: nothing here is truth; it is rebuilt from the state on demand).
  private final TaskDispatch dispatch;
  private final LeaseTimers leases;
  private Held held;
  /** The write on its way answers a fire: its wake-up report goes in that answer, not in a message of its own. */
  private boolean wakesInReply;
  /**
   * Whether some task depends on this one, as the last fire said (until one does, after a
   * recovery): only then is each success announced to the trigger.
   */
  private boolean announce = true;
  /** The wake-up report for that answer, computed after the write. */
  private TriggerActor.TaskWakes replyWakes;

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
    this.hot = new HotState(settings.hotWindows(), settings.retention(), settings.eventIdsKept());
    this.fires = new FireDecider(settings);
    this.attempts = new AttemptLifecycle(taskId, settings);
    this.effects = new EffectRules(settings);
    this.operator = new OperatorActions(taskId, settings);
    this.events = new EventDecider(fires);
    this.gates = new GateDecider(fires);
    this.views = new TaskViews(taskId, clock, log);
    this.dispatch = new TaskDispatch(taskId, env, ctx.getSelf(), settings.redispatchAfter());
  }

  @Override
  public State emptyState() {
    return State.empty(settings.durationSamples());
  }

  @Override
  public java.util.Optional<Integer> stashCapacity() {
    // Explicit, so that the publishes each node may queue here (almanac.task.max-pending-publishes) are
    // checked against it at start; Pekko drops what does not fit.
    return java.util.Optional.of(settings.stashCapacity());
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
          wakesInReply = false;
          replyWakes = null;
          announce = true;
          gateMemory.clear();
          lastCheck.clear();
          checking.clear();
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
        .onCommand(GateChecked.class, (s, c) -> {
          checking.remove(c.window());
          return Effect().noReply();
        })
        .onCommand(SelfCommand.class, (s, c) -> Effect().noReply())
        .onCommand(GetUpstreamReport.class, this::onUpstreamReport)
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
        .onCommand(UpstreamSucceeded.class, (s, c) -> Effect().noReply())
        .onCommand(Wake.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.ack())) // nothing is due any more
        .onCommand(GateChecked.class, (s, c) -> {
          checking.remove(c.window());
          return Effect().noReply();
        })
        .onCommand(SelfCommand.class, (s, c) -> Effect().noReply())
        .onAnyCommand((s, c) -> refuse(c, operator.refuseRemoved(s).refusal()));
    shared(b.forState(State::defined))
        // trigger
        .onCommand(Fire.class, this::onFire)
        .onCommand(CatchUp.class, (s, c) -> settledFirst(s, Origin.CATCH_UP, c.replyTo(),
            x -> fires.catchUp(x, c.windows(), now())))
        .onCommand(Wake.class, this::onWake)
        // events and dependencies (R9)
        .onCommand(PublishEvent.class, this::onPublish)
        .onCommand(UpstreamSucceeded.class, this::onUpstreamSucceeded)
        .onCommand(GateChecked.class, this::onGateChecked)
        // executor
        .onCommand(Admitted.class, this::onAdmitted)
        .onCommand(Queued.class, (s, c) -> Effect().noReply())
        // self
        .onCommand(LeaseTimer.class, this::onLeaseTimer)
        .onCommand(OfferUnanswered.class, (s, c) -> Effect().noReply())
        .onCommand(Recovered.class, (s, c) -> persist(s, null, attempts.settle(s, env.executors(), now()),
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
        .onCommand(GetTask.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(new TaskInfo(views.view(s)))))
        .onCommand(GetWindows.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(views.windows(s, w -> true))))
        .onCommand(GetWindow.class, this::onGetWindow)
        .onCommand(GetUpstreamReport.class, this::onUpstreamReport)
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
    return Effect().persist(events).thenRun(s -> afterPersist(before, origin, s, TaskJournal.expand(events)));
  }

  /** Carries out a decision: the refusal, or the events (if any) and then the reply. */
  private <R> ReplyEffect<Event, State> run(State state, Decided<R> d, ActorRef<StatusReply<R>> replyTo) {
    return run(state, null, d, replyTo);
  }

  /**
   * Carries out a fire's decision; the answer carries the task's wake-up report (the trigger needs no
   * message of its own for it).
   */
  private ReplyEffect<Event, State> answerFire(State state, Origin origin, Decided<FireOutcome> d,
      ActorRef<StatusReply<FireOutcome>> replyTo) {
    if (d.refused()) {
      return Effect().reply(replyTo, StatusReply.error(d.refusal()));
    }
    if (d.events().isEmpty()) {
      TriggerActor.TaskWakes w = dispatch.wakesForReply(state, gateWake(state, now()), lastSequenceNumber(ctx));
      return Effect().reply(replyTo, StatusReply.success(d.reply().apply(state).withWakes(w)));
    }
    wakesInReply = true;
    return persist(state, origin, d.events()).thenReply(replyTo, s -> StatusReply.success(d.reply().apply(s).withWakes(takeReplyWakes())));
  }

  private TriggerActor.TaskWakes takeReplyWakes() {
    TriggerActor.TaskWakes w = replyWakes;
    replyWakes = null;
    return w;
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
    List<Event> settled = attempts.settle(state, env.executors(), now());
    return run(state, origin, decide.apply(Evolve.fold(state, settled, hot)).after(settled), replyTo);
  }

  /**
   * A fire. A fresh window that may start at once is first offered to the node's executor (the
   * task's other commands wait): admitted, it is scheduled and started in one write; queued, it is
   * scheduled alone and starts when admitted (R20, R21).
   */
  private ReplyEffect<Event, State> onFire(State state, Fire cmd) {
    announce = cmd.announce();
    List<Event> settled = attempts.settle(state, env.executors(), now());
    State s = Evolve.fold(state, settled, hot);
    Decided<FireOutcome> decided = fires.fire(s, cmd, now());
    Decided<FireOutcome> d = decided.after(settled);
    if (d.refused() || !dispatch.hasExecutor() || !Reactions.startsAtOnce(s, decided.events())) {
      return answerFire(state, Origin.of(cmd.kind()), d, cmd.replyTo());
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
    wakesInReply = true;
    if (!(cmd instanceof Admitted a)) {
      return persist(state, Origin.of(h.fire().kind()), h.decided().events())
          .thenReply(trigger, s -> StatusReply.success(h.decided().reply().apply(s).withWakes(takeReplyWakes())))
          .thenUnstashAll();
    }
    // the fresh window's schedule and start: one event, one row. Reactions.startsAtOnce: the fire
    // decided exactly one InstanceScheduled of a first run, the last event (after what settling the
    // task's dead attempts wrote first, Decided.after)
    AttemptStarted started = attempts.firstStart(h.decidedOn(), window, a.executorId(), now());
    List<Event> events = new ArrayList<>(h.decided().events());
    int last = events.size() - 1;
    events.set(last, TaskJournal.WindowStarted.of((TaskJournal.InstanceScheduled) events.get(last), started));
    return persist(state, Origin.of(h.fire().kind()), events)
        .thenRun(s -> trigger.tell(StatusReply.success(h.decided().reply().apply(s).withWakes(takeReplyWakes()))))
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

  /** An event of the task's type (R9): decided on the state with dead attempts settled, like a fire. */
  private ReplyEffect<Event, State> onPublish(State state, PublishEvent cmd) {
    return settledFirst(state, Origin.ON_TIME, cmd.replyTo(), s -> {
      try {
        return events.publish(s, cmd, views.schedule(s), now());
      } catch (io.almanac.AlmanacException e) { // the task's window spec threw, or its stored spec is refused today
        return Decided.refuse(RefusedException.Reason.SCHEDULE_FAILED, "task '" + taskId + "' cannot map the event to a window: "
            + e.getMessage());
      }
    });
  }

  /** Answers a dependent task's question about this task's windows (R9). */
  private ReplyEffect<Event, State> onUpstreamReport(State state, GetUpstreamReport cmd) {
    io.almanac.schedule.TaskSchedule schedule = null;
    if (state.defined() && !state.removed()) {
      try {
        schedule = views.schedule(state);
      } catch (RuntimeException e) {
        log.debug("task '{}': no schedule to report expected windows from: {}", taskId, e.toString());
      }
    }
    try {
      return Effect().reply(cmd.replyTo(), StatusReply.success(
          DependencyCheck.report(taskId, state, schedule, cmd.key(), cmd.from(), cmd.to())));
    } catch (RuntimeException e) { // its cron's firings cannot be computed: the dependent records that it did not answer
      return Effect().reply(cmd.replyTo(), StatusReply.error(new RefusedException(RefusedException.Reason.SCHEDULE_FAILED,
          "task '" + taskId + "' cannot list its windows: " + e.getMessage())));
    }
  }

  /** An upstream task succeeded (told by the trigger): check the mapped window now, or record a late success. */
  private ReplyEffect<Event, State> onUpstreamSucceeded(State state, UpstreamSucceeded cmd) {
    GateDecider.Upstream u;
    try {
      u = gates.upstreamSucceeded(state, cmd, views.schedule(state), now());
    } catch (RuntimeException e) {
      log.warn("task '{}': upstream success of '{}' for {} not handled: {}", taskId, cmd.upstream(), cmd.window(), e.toString());
      return Effect().noReply();
    }
    return persist(state, null, u.events()).thenRun(s -> {
      if (u.checkWindow() != null) {
        s.window(u.checkWindow()).ifPresent(w -> probe(s, w, now()));
      }
    }).thenNoReply();
  }

  /** A gate check came back: release, keep waiting, or end the wait at its deadline (R9). */
  private ReplyEffect<Event, State> onGateChecked(State state, GateChecked cmd) {
    checking.remove(cmd.window());
    List<Event> settled = attempts.settle(state, env.executors(), now());
    State s = Evolve.fold(state, settled, hot);
    GateDecider.Result r = gates.checked(s, cmd, gateMemory.get(cmd.window()), now());
    gateMemory.put(cmd.window(), r.memory());
    List<Event> all = new ArrayList<>(settled);
    all.addAll(r.events());
    return persist(state, Origin.ON_TIME, all).thenNoReply();
  }

  /**
   * Checks a waiting window's gates: asks each upstream task for its windows and polls the
   * condition (on the blocking dispatcher, within its timeout); the answers come back as one {@link
   * GateChecked}. One check per window at a time.
   */
  private void probe(State state, io.almanac.journal.WindowState w, Instant now) {
    String key = w.key();
    if (!checking.add(key)) {
      return;
    }
    lastCheck.put(key, now);
    io.almanac.journal.SpecRecord spec = state.spec();
    java.util.Map<String, UpstreamReport> reports = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.Map<String, String> errors = new java.util.concurrent.ConcurrentHashMap<>();
    List<java.util.concurrent.CompletableFuture<?>> parts = new ArrayList<>();
    if (spec.dependency() != null) {
      for (String upstream : spec.dependency().upstream()) {
        if (env.tasks() == null) {
          errors.put(upstream, "no route to other tasks on this node");
          continue;
        }
        parts.add(Asks.<Command, StatusReply<UpstreamReport>>ask(env.tasks().apply(upstream),
                r -> new GetUpstreamReport(key, w.start(), w.end(), r), UPSTREAM_ASK_TIMEOUT, ctx.getSystem().scheduler())
            .toCompletableFuture()
            .handle((reply, error) -> {
              if (error != null) {
                errors.put(upstream, String.valueOf(error.getMessage()));
              } else if (reply.isError()) {
                errors.put(upstream, String.valueOf(reply.getError().getMessage()));
              } else {
                reports.put(upstream, reply.getValue());
              }
              return null;
            }));
      }
    }
    java.util.concurrent.CompletableFuture<Boolean> polled = null;
    if (spec.condition() != null) {
      polled = pollCondition(spec.condition(), w);
      parts.add(polled.handle((v, e) -> null));
    }
    java.util.concurrent.CompletableFuture<Boolean> condition = polled;
    ctx.pipeToSelf(java.util.concurrent.CompletableFuture.allOf(parts.toArray(new java.util.concurrent.CompletableFuture[0])),
        (v, e) -> {
          Boolean holds = null;
          String error = null;
          if (condition != null) {
            try {
              holds = condition.join();
              if (holds == null) {
                error = "answered null";
              }
            } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException ex) {
              Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
              error = cause instanceof java.util.concurrent.TimeoutException
                  ? "timed out after " + spec.condition().timeout() : cause.toString();
            }
          }
          return new GateChecked(key, spec.dependency() == null ? null : java.util.Map.copyOf(reports),
              java.util.Map.copyOf(errors), holds, error == null ? null : truncate(error));
        });
  }

  private static final Duration UPSTREAM_ASK_TIMEOUT = Duration.ofSeconds(10);

  private static String truncate(String s) {
    return s.length() <= 500 ? s : s.substring(0, 500) + "...";
  }

  /** One poll of the task's condition for a window, on the blocking dispatcher, within its timeout. */
  private java.util.concurrent.CompletableFuture<Boolean> pollCondition(io.almanac.journal.SpecRecord.Condition c,
      io.almanac.journal.WindowState w) {
    io.almanac.Condition condition = env.conditions() == null ? null : env.conditions().apply(c.name());
    if (condition == null) {
      return java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException("condition '" + c.name()
          + "' is not registered on this node"));
    }
    if (!callsRunning.add(w.key())) {
      // the last call has outlived its timeout and still runs: no second one beside it (threads are not leaked)
      return java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException("the previous poll of condition '"
          + c.name() + "' has not returned yet"));
    }
    int poll = gateMemory.getOrDefault(w.key(), GateDecider.Memory.NONE).polls() + 1;
    io.almanac.Condition.ConditionContext cc = new io.almanac.Condition.ConditionContext(taskId, io.almanac.WindowKey.of(w.key()),
        w.start(), w.end(), poll);
    java.util.concurrent.Executor blocking = ctx.getSystem().dispatchers()
        .lookup(org.apache.pekko.actor.typed.DispatcherSelector.blocking());
    String key = w.key();
    java.util.concurrent.CompletableFuture<Boolean> call = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
          try {
            return condition.check(cc);
          } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        }, blocking)
        .thenCompose(stage -> stage == null
            ? java.util.concurrent.CompletableFuture.<Boolean>failedFuture(new IllegalStateException("returned no stage"))
            : stage.toCompletableFuture());
    // the call counts as running until it ends itself, not at its timeout; its answer is passed on only
    // after that, so the next poll, started on the answer, never finds it still running
    java.util.concurrent.CompletableFuture<Boolean> ended = call.whenComplete((v, e) -> callsRunning.remove(key));
    return ended.copy().orTimeout(c.timeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** Starts the checks that are due: each waiting window once per poll interval, and at its deadline. */
  private void probeDue(State state, Instant now) {
    if (!state.defined() || state.removed()) {
      return;
    }
    Duration every = Gates.pollEvery(state.spec(), settings.dependencyPoll());
    for (io.almanac.journal.WindowState w : state.table().live()) {
      if (w.status() != io.almanac.InstanceStatus.WAITING) {
        continue;
      }
      Instant last = lastCheck.get(w.key());
      boolean due = last == null || !now.isBefore(last.plus(every.dividedBy(2)))
          || (w.waitUntil() != null && !now.isBefore(w.waitUntil()));
      if (due) {
        probe(state, w, now);
      }
    }
    gateMemory.keySet().removeIf(k -> state.window(k).map(x -> x.status() != io.almanac.InstanceStatus.WAITING).orElse(true));
    lastCheck.keySet().removeIf(k -> state.window(k).map(x -> x.status() != io.almanac.InstanceStatus.WAITING).orElse(true));
  }

  private ReplyEffect<Event, State> onLeaseTimer(State state, LeaseTimer cmd) {
    leases.fired(cmd.window());
    List<Event> events = attempts.settle(state, env.executors(), now());
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
    env.skips().written(taskId, events);
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
    leases.arm(state, now(), env.executors(), env.goneRecheck());
    dispatch.offerPending(state);
    announceSuccesses(state, events);
    // one instant for the checks started and the next wake reported: read twice, a clock that moved
    // between the two (a poll that took a moment) skipped a poll interval
    Instant now = now();
    probeDue(state, now);
    if (wakesInReply) {
      wakesInReply = false;
      replyWakes = dispatch.wakesForReply(state, gateWake(state, now), lastSequenceNumber(ctx));
    } else {
      dispatch.reportWakes(state, gateWake(state, now), lastSequenceNumber(ctx));
    }
  }

  /** Tells the trigger of each window that succeeded (or was resolved), for the tasks that depend on this one (R9). */
  private void announceSuccesses(State state, List<Event> written) {
    if (env.trigger() == null || !announce) {
      return;
    }
    for (Event e : written) {
      if (e instanceof TaskJournal.AttemptSucceeded || e instanceof TaskJournal.InstanceResolved) {
        String key = ((TaskJournal.WindowEvent) e).window();
        state.window(key).ifPresent(w -> env.trigger().tell(new TriggerActor.UpstreamDone(taskId, key, w.start(), w.end(), e.at())));
      }
    }
  }

  private Instant now() {
    return clock.instant();
  }

  /** When the task's waiting windows next need a look (a poll, a deadline), or null. */
  private Instant gateWake(State state, Instant now) {
    return Gates.nextWake(taskId, state, settings.dependencyPoll(), now);
  }

  // ---------------------------------------------------------------------------------------------
  // Event handler: the one evolve (it never validates: replay must always succeed).

  @Override
  public EventHandler<State, Event> eventHandler() {
    Evolve.Violations violations = Evolve.Violations.logTo(log, "task '" + taskId + "'");
    return newEventHandlerBuilder().forAnyState().onAnyEvent((s, e) -> Evolve.apply(s, e, hot, violations));
  }
}
