package io.almanac.internal.task;

import io.almanac.AlmanacException;
import io.almanac.InstanceStatus;
import io.almanac.RefusedException;
import io.almanac.RefusedException.Reason;
import io.almanac.internal.meter.AttemptMdc;
import io.almanac.internal.meter.NodeMeters.Origin;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol.*;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.internal.task.AttemptLifecycle.Settled;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.pekko.Done;
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
 * One task: its spec and the state machine of its windows (R20); persistence id {@code task|<id>}.
 * The single writer of its windows, so PENDING to RUNNING is a compare-and-set by construction (R5,
 * R21); every decision, including not running a window, is an event persisted before it takes
 * effect (R7). A shell: the pure core ({@link FireDecider}, {@link AttemptLifecycle}, {@link
 * LeaseExpiry}, {@link GateDecider}, {@link OperatorActions}, {@link Reactions}, ...) decides; this
 * class persists, then carries out what follows: its lease timers ({@link LeaseTimers}), the
 * executor's admission ({@link HeldFire}), and gate checks, whose I/O its child {@link GateProbe}
 * does. INTERNAL API: users go through the public facade.
 */
public final class TaskEntity extends EventSourcedBehaviorWithEnforcedReplies<Command, Event, State> {

  /** The sharding type key of task entities. */
  public static final EntityTypeKey<Command> TYPE_KEY = EntityTypeKey.create(Command.class, "almanac-task");

  private static final String OFFER_TIMER = "offer";

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
  private final StepRules steps;
  private final OperatorActions operator;
  private final EventDecider events;
  private final GateDecider gates;
  // In memory only, on the entity's thread only: nothing here is truth (principle 1); forgotten on recovery.
  private final GateWatch gateWatch;
  private final TaskDispatch dispatch;
  private final LeaseTimers leases;
  private final DeadlineTimers deadlines;
  private HeldFire held;
  /** The command handler as built (a command with the registered spec is handed to it on the state that spec defines). */
  private CommandHandlerWithReply<Command, Event, State> built;
  /** While a command that came with a spec not recorded yet is decided: the spec's events, and the state before them. */
  private Specced specFirst;
  private State specFirstOn;
  /** Whether some task depends on this one, as the last fire said: only then are successes announced. */
  private boolean announce = true;

  /** A task entity with no trigger, executor or alert sink, for unit tests of its state machine. */
  public static Behavior<Command> create(String taskId, Clock clock, TaskSettings settings) {
    return create(taskId, clock, settings, TaskEnv.NONE);
  }

  /** The entity of a task, with its clock (principle 3), settings and what it talks to besides its journal. */
  public static Behavior<Command> create(String taskId, Clock clock, TaskSettings settings, TaskEnv env) {
    return Behaviors.withMdc(Command.class, java.util.Map.of(AttemptMdc.MDC_TASK, taskId),
        Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new TaskEntity(taskId, clock, settings, env, ctx, timers))));
  }

  /** The persistence id of a task, {@code task|<id>}. */
  public static PersistenceId persistenceId(String taskId) {
    return PersistenceId.ofUniqueId(TaskJournal.persistenceId(taskId));
  }

  private TaskEntity(String taskId, Clock clock, TaskSettings settings, TaskEnv env, ActorContext<Command> ctx,
      TimerScheduler<Command> timers) {
    super(persistenceId(taskId), SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2)
        .withStopChildren(false));
    this.taskId = Objects.requireNonNull(taskId, "taskId");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.env = Objects.requireNonNull(env, "env");
    this.ctx = ctx;
    this.timers = timers;
    this.leases = new LeaseTimers(timers);
    this.deadlines = new DeadlineTimers(timers);
    this.log = ctx.getLog();
    this.hot = new HotState(settings.hotWindows(), settings.retention(), settings.eventIdsKept());
    this.fires = new FireDecider(settings);
    // skip ranges: a covered window writes nothing; meters, tally and alert all the same
    this.fires.onCovered((range, kind, n, window, at) -> env.covered(taskId, range, kind == FireKind.CATCH_UP, n, window, at, log));
    this.attempts = new AttemptLifecycle(taskId, settings);
    this.effects = new EffectRules(settings);
    this.steps = new StepRules(settings.steps());
    this.operator = new OperatorActions(taskId, settings);
    this.events = new EventDecider(fires);
    this.gates = new GateDecider(fires);
    this.views = new TaskViews(taskId, clock, log);
    this.dispatch = new TaskDispatch(taskId, env, ctx.getSelf(), settings.redispatchAfter(), settings.dependencyPoll());
    // the probe outlives a restart (withStopChildren(false)): a condition call still running keeps its slot
    this.gateWatch = new GateWatch(() -> ctx.spawnAnonymous(GateProbe.create(taskId, env, settings.upstreamAskTimeout(),
        ctx.getSelf())));
  }

  @Override
  public State emptyState() {
    return State.empty(settings.durationSamples());
  }

  @Override
  public java.util.Optional<Integer> stashCapacity() {
    // explicit: checked at start against almanac.task.max-pending-publishes; Pekko drops what does not fit
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
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), this::onRecovered).build();
  }

  private void onRecovered(State state) {
    log.debug("task '{}' recovered: {} hot windows, {} archived", taskId, state.windows().size(), state.archivedCount());
    // A restart after a failed persist reuses this instance: nothing in memory survives it.
    dispatch.reset();
    timers.cancelAll();
    leases.forgetAll();
    deadlines.rearm(state, now()); // one that passed while the task was down or passivated is due at once
    gateWatch.clear();
    held = null;
    announce = true;
    env.meters().interventionQueue(taskId, state);
    if (env.executor() != null) {
      // Slots reserved for this entity and not answered are freed; its PENDING windows are offered again.
      env.executor().tell(new ExecutorProtocol.TaskRecovered(taskId));
      if (state.defined()) {
        ctx.getSelf().tell(new Recovered()); // settles, then re-arms the lease timers after the write
      }
    }
  }

  // Command handlers, per state: each asks the pure core, then persists what it decided.

  @Override
  public CommandHandlerWithReply<Command, Event, State> commandHandler() {
    CommandHandlerWithReplyBuilder<Command, Event, State> b = newCommandHandlerWithReplyBuilder();
    b.forState(s -> held != null).onAnyCommand(this::whileHeld);
    // the facade's commands and reads with the registered spec, in every state (docs/registration.md)
    b.forState(s -> true)
        .onCommand(WithSpec.class, this::withSpecCommand)
        .onCommand(ReadWithSpec.class, this::readWithSpec);
    b.forState(s -> !s.defined())
        .onCommand(Define.class, (s, c) -> run(s, null, operator.define(s, c.spec(), now()), c.replyTo()))
        // the trigger (or a publish) brings the spec the task was registered with: recorded with what it asks
        .onCommand(TaskEntity::carriesSpec, this::withSpec)
        .onCommand(GateChecked.class, this::dropGateCheck)
        .onCommand(SelfCommand.class, (s, c) -> Effect().noReply())
        .onCommand(GetUpstreamReport.class, this::onUpstreamReport)
        .onCommand(Admitted.class, (s, c) -> decline(c, Reason.UNKNOWN_TASK, "task '" + taskId + "' is unknown"))
        .onAnyCommand((s, c) -> refuse(c, new RefusedException(Reason.UNKNOWN_TASK,
            "task '" + taskId + "' is unknown: define it first")));
    // Removed: the history answers queries; a new Define brings the task back. Results of attempts the
    // removal cancelled are still recorded (as late results, for audit); everything else is refused.
    shared(b.forState(State::removed))
        // registered anew since the removal (the trigger fires only registered tasks): defined again with it
        .onCommand(TaskEntity::carriesSpec, this::withSpec)
        .onCommand(Admitted.class, (s, c) -> decline(c, Reason.REMOVED, operator.refuseRemoved(s).refusal().getMessage()))
        .onCommand(Queued.class, (s, c) -> Effect().noReply())
        .onCommand(UpstreamSucceeded.class, (s, c) -> Effect().noReply())
        .onCommand(Wake.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.ack())) // nothing is due any more
        .onCommand(GateChecked.class, this::dropGateCheck)
        .onCommand(SelfCommand.class, (s, c) -> Effect().noReply())
        .onAnyCommand((s, c) -> refuse(c, operator.refuseRemoved(s).refusal()));
    shared(b.forState(State::defined))
        // trigger
        .onCommand(Fire.class, this::onFire)
        .onCommand(CatchUp.class, this::onCatchUp)
        .onCommand(Wake.class, this::onWake)
        // events and dependencies (R9)
        .onCommand(PublishEvent.class, this::onPublish)
        .onCommand(PublishEvents.class, this::onPublishAll)
        .onCommand(UpstreamSucceeded.class, this::onUpstreamSucceeded)
        .onCommand(GateChecked.class, this::onGateChecked)
        // executor
        .onCommand(Admitted.class, this::onAdmitted)
        .onCommand(Queued.class, (s, c) -> Effect().noReply())
        .onCommand(PoolWait.class, (s, c) -> AttemptLifecycle.poolWaited(s, c, now()).map(e -> persist(s, null, List.of(e))
            .thenNoReply()).orElseGet(() -> Effect().noReply()))
        .onCommand(PoolBudgetSpent.class, (s, c) -> AttemptLifecycle.poolBudgetSpent(s, c, now())
            .map(e -> persist(s, null, List.of(e)).thenNoReply()).orElseGet(() -> Effect().noReply()))
        // self
        .onCommand(LeaseTimer.class, this::onLeaseTimer)
        .onCommand(OfferUnanswered.class, (s, c) -> Effect().noReply())
        .onCommand(DeadlineTimer.class, this::onDeadlineTimer)
        .onCommand(Recovered.class, (s, c) -> persist(s, null, settled(s).events(), attempts.dueRetries(s, now())).thenNoReply())
        // operators
        .onCommand(Pause.class, (s, c) -> run(s, null, operator.pause(s, now()), c.replyTo()))
        .onCommand(Resume.class, (s, c) -> run(s, null, operator.resume(s, attempts.retriesDue(s, now()), now()),
            c.replyTo()))
        .onCommand(RunNow.class, (s, c) -> run(s, Origin.MANUAL, operator.withSchedule(() -> views.schedule(s),
            x -> operator.runNow(s, x, now())), c.replyTo()))
        .onCommand(PauseBy.class, (s, c) -> run(s, null, operator.pause(s, c.actor(), c.note(), now()),
            c.replyTo()))
        .onCommand(ResumeBy.class, (s, c) -> run(s, null, operator.resume(s, c.actor(), c.note(), attempts.retriesDue(s, now()), now()),
            c.replyTo()))
        .onCommand(RunNowBy.class, (s, c) -> run(s, Origin.MANUAL, operator.withSchedule(() -> views.schedule(s),
            x -> operator.runNow(s, x, c.actor(), c.note(), now())), c.replyTo()))
        .onCommand(Backfill.class, (s, c) -> run(s, Origin.BACKFILL, operator.withSchedule(() -> views.schedule(s),
            x -> operator.backfill(s, x, c.from(), c.to(), c.actor(), c.note(), now()).dryRun(c.dryRun())), c.replyTo()))
        .onCommand(Retry.class, (s, c) -> run(s, Origin.MANUAL, operator.retry(s, c.window(), c.actor(), c.note(), c.expecting(), now()), c.replyTo()))
        .onCommand(Resolve.class, (s, c) -> run(s, null, operator.resolve(s, c.window(), c.note(), c.actor(), c.expecting(), now()), c.replyTo()))
        .onCommand(Cancel.class, (s, c) -> run(s, null, operator.cancel(s, c.window(), c.reason(), c.actor(), c.expecting(), now()), c.replyTo()))
        .onCommand(CancelAll.class, (s, c) -> run(s, null, operator.cancelAll(s, c.from(), c.to(), c.kind(), c.reason(),
            c.actor(), now()).dryRun(c.dryRun()), c.replyTo()))
        // budgets
        .onCommand(RaiseBudget.class, (s, c) -> run(s, null, operator.raiseBudget(s, c.amount(), c.note(), c.actor(), now()), c.replyTo()));
    built = b.build();
    return built;
  }

  /**
   * An operator's command with the registered spec: decided on the state that spec defines; its
   * {@code SpecDefined} goes ahead of the command's events in their write ({@link #run}), and is not
   * written when the command is refused.
   */
  private ReplyEffect<Event, State> withSpecCommand(State state, WithSpec c) {
    Specced sp = specced(state, c.spec());
    if (sp.refusal() != null) {
      return refuse(c, sp.refusal());
    }
    if (sp.events().isEmpty()) {
      return built.apply(state, c.command());
    }
    specFirst = sp;
    specFirstOn = state;
    try {
      return built.apply(sp.state(), c.command());
    } finally {
      specFirst = null;
      specFirstOn = null;
    }
  }

  /** What a defined and a removed task handle alike: the spec, a removal, the attempts' reports, the queries. */
  private CommandHandlerWithReplyBuilderByState<Command, Event, State, State> shared(
      CommandHandlerWithReplyBuilderByState<Command, Event, State, State> b) {
    return b
        .onCommand(Define.class, (s, c) -> run(s, null, operator.define(s, c.spec(), now()), c.replyTo()))
        .onCommand(Remove.class, (s, c) -> run(s, null, operator.remove(s, now()), c.replyTo()))
        .onCommand(Heartbeat.class, (s, c) -> run(s, null, attempts.heartbeat(s, c.window(), c.attempt(), now()), c.replyTo()))
        .onCommand(FinishAttempt.class, (s, c) -> {
          views.live().ended(c.window().value(), c.attempt());
          return run(s, null, attempts.finish(s, c, now()), c.replyTo());
        })
        .onCommand(ReportProgress.class, (s, c) -> {
          views.live().report(s, c.window().value(), c.attempt(), c.progress());
          return Effect().noReply();
        })
        .onCommand(InterruptAttempt.class, (s, c) -> {
          views.live().ended(c.window().value(), c.attempt());
          return run(s, null, attempts.interrupted(s, c, now()), c.replyTo());
        })
        .onCommand(RecordEffect.class, (s, c) -> run(s, null, effects.record(s, c, now()), c.replyTo()))
        .onCommand(RecordStep.class, (s, c) -> run(s, null, steps.record(s, c, now()), c.replyTo()))
        .onCommand(GetTask.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(new TaskInfo(views.view(s)))))
        .onCommand(GetWindows.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(views.windows(s, w -> true))))
        .onCommand(GetWindow.class, (s, c) -> run(s, null, views.window(s, c.window(), attempts::unknownWindow), c.replyTo()))
        .onCommand(GetUpstreamReport.class, this::onUpstreamReport)
        .onCommand(GetInterventionQueue.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(
            views.windows(s, w -> w.status() == InstanceStatus.FINAL_FAILED))))
        .onCommand(GetUsage.class, (s, c) -> Effect().reply(c.replyTo(), StatusReply.success(new UsageInfo(
            OperatorActions.usage(taskId, s, now())))));
  }

  /**
   * A read of a task never written, with its registered spec: answered on the state that spec
   * defines, nothing written (a read creates no entity; its first fire, wake-up, event or operator
   * command records the spec).
   */
  private ReplyEffect<Event, State> readWithSpec(State state, ReadWithSpec c) {
    Specced sp = specced(state, c.spec());
    if (sp.refusal() != null) {
      return refuse(c, sp.refusal());
    }
    return query(sp.state(), c.query());
  }

  @SuppressWarnings("unchecked")
  private ReplyEffect<Event, State> query(State s, QueryCommand q) {
    if (!s.defined()) {
      return refuse(q, notDefined(s).refusal());
    }
    if (q instanceof GetTask c) {
      return Effect().reply(c.replyTo(), StatusReply.success(new TaskInfo(views.view(s))));
    }
    if (q instanceof GetWindows c) {
      return Effect().reply(c.replyTo(), StatusReply.success(views.windows(s, w -> true)));
    }
    if (q instanceof GetInterventionQueue c) {
      return Effect().reply(c.replyTo(), StatusReply.success(views.windows(s, w -> w.status() == InstanceStatus.FINAL_FAILED)));
    }
    if (q instanceof GetUsage c) {
      return Effect().reply(c.replyTo(), StatusReply.success(new UsageInfo(OperatorActions.usage(taskId, s, now()))));
    }
    if (q instanceof GetWindow c) {
      Decided<WindowList> d = views.window(s, c.window(), attempts::unknownWindow);
      return d.refused() ? Effect().reply(c.replyTo(), StatusReply.error(d.refusal()))
          : Effect().reply(c.replyTo(), StatusReply.success(d.reply().apply(s)));
    }
    return refuse(q, new RefusedException(Reason.INVALID_ARGUMENT, "not a read answered with a spec: " + q));
  }

  /** Persists the events (in one write), then runs the side effects that follow from them (never before). */
  @SafeVarargs
  private EffectBuilder<Event, State> persist(State before, Origin origin, List<Event>... parts) {
    List<Event> asked = parts.length == 1 ? parts[0] : Stream.of(parts).flatMap(List::stream).toList();
    Evolve.Applied applied = Evolve.applyAll(before, asked, hot, Evolve.Violations.IGNORE); // its window changes
    List<Event> events = PauseOnFailures.withPause(before, asked, applied, now()); // a pause changes no window
    return Effect().persist(events).thenRun(s -> afterPersist(before, origin, s, TaskJournal.expand(events),
        applied.changes()));
  }

  /** Carries out a decision: the refusal, or the events (if any) and then the reply; origin: what brought it about (meters). */
  private <R> ReplyEffect<Event, State> run(State decidedOn, Origin origin, Decided<R> decided, ActorRef<StatusReply<R>> replyTo) {
    State state = decidedOn;
    Decided<R> d = decided;
    // the registered spec the command came with, recorded first; not for a refusal nor for a decision
    // that writes nothing (a dry run, a read): answered on the state that spec defines
    if (specFirst != null && !d.refused() && !d.events().isEmpty()) {
      d = specFirst.then(d);
      state = specFirstOn;
      specFirst = null;
    }
    if (d.refused()) {
      return Effect().reply(replyTo, StatusReply.error(d.refusal()));
    }
    if (d.events().isEmpty()) {
      return Effect().reply(replyTo, StatusReply.success(d.reply().apply(state)));
    }
    Decided<R> done = d;
    return persist(state, origin, d.events()).thenReply(replyTo, s -> StatusReply.success(done.reply().apply(s)));
  }

  /** The state with dead attempts settled, so one whose executor died never counts as the previous run (R6, R24). */
  private Settled settled(State state) {
    return attempts.settled(state, env.executors(), now(), hot);
  }

  /** Decides on the state with dead attempts settled first, in the same write. */
  private <R> ReplyEffect<Event, State> decideSettled(State state, Origin origin, ActorRef<StatusReply<R>> replyTo,
      Function<State, Decided<R>> decide) {
    Settled x = settled(state);
    return run(state, origin, x.then(decide.apply(x.state())), replyTo);
  }

  /**
   * The spec a message brings (the trigger's registration of the task), recorded ahead of what the
   * message decides, in the same write: registering a task writes nothing to its entity, which
   * records its spec when it first has something to do (docs/registration.md).
   *
   * @param events the definition ({@code SpecDefined}), none when this spec is recorded already
   * @param state the state after it
   * @param refusal why the spec is refused (it is the trigger's, validated at registration: not expected)
   */
  private record Specced(List<Event> events, State state, AlmanacException refusal) {
    <R> Decided<R> then(Decided<R> decided) {
      return events.isEmpty() ? decided : decided.after(events);
    }
  }

  private Specced specced(State state, io.almanac.journal.SpecRecord sent) {
    if (sent == null || (state.defined() && !state.removed() && sent.equals(state.spec()))) {
      return new Specced(List.of(), state, null);
    }
    Decided<Done> d = operator.define(state, sent, now());
    if (d.refused()) {
      log.warn("task '{}': the spec sent with a message is refused: {}", taskId, d.refusal().getMessage());
      return new Specced(List.of(), state, d.refusal());
    }
    if (!d.events().isEmpty()) {
      log.debug("task '{}': records its registered spec with the message that brought it", taskId);
    }
    return new Specced(d.events(), Evolve.fold(state, d.events(), hot), null);
  }

  /** Whether a message brings the task's registered spec (a fire, a catch-up, a wake-up, an event). */
  private static boolean carriesSpec(Command c) {
    return c instanceof Fire f ? f.spec() != null : c instanceof CatchUp u ? u.spec() != null
        : c instanceof Wake w ? w.spec() != null : c instanceof PublishEvent p ? p.spec() != null
        : c instanceof PublishEvents b && b.spec() != null;
  }

  private ReplyEffect<Event, State> withSpec(State state, Command c) {
    return c instanceof Fire f ? onFire(state, f) : c instanceof CatchUp u ? onCatchUp(state, u)
        : c instanceof Wake w ? onWake(state, w) : c instanceof PublishEvent p ? onPublish(state, p)
        : onPublishAll(state, (PublishEvents) c);
  }

  /** The refusal of a message to a task still undefined or removed after its spec (if any) was taken. */
  private <R> Decided<R> notDefined(State state) {
    return state.defined() ? operator.refuseRemoved(state) : Decided.refuse(Reason.UNKNOWN_TASK,
        "task '" + taskId + "' is unknown: define it first");
  }

  private ReplyEffect<Event, State> onCatchUp(State state, CatchUp c) {
    Specced sp = specced(state, c.spec());
    if (sp.refusal() != null || !sp.state().defined() || sp.state().removed()) {
      return Effect().reply(c.replyTo(), StatusReply.error(sp.refusal() != null ? sp.refusal() : notDefined(sp.state()).refusal()));
    }
    Settled x = settled(sp.state());
    return run(state, Origin.CATCH_UP, sp.then(x.then(fires.catchUp(x.state(), c.windows(), now()))), c.replyTo());
  }

  private ReplyEffect<Event, State> onPublish(State state, PublishEvent c) {
    Specced sp = specced(state, c.spec());
    if (sp.refusal() != null || !sp.state().defined() || sp.state().removed()) {
      return Effect().reply(c.replyTo(), StatusReply.error(sp.refusal() != null ? sp.refusal() : notDefined(sp.state()).refusal()));
    }
    State s = sp.state();
    Settled x = settled(s);
    return run(state, Origin.ON_TIME, sp.then(x.then(events.publishScheduled(taskId, x.state(), c,
        () -> views.schedule(x.state()), now()))), c.replyTo());
  }

  /** Several events, decided in order, recorded in one write (with the spec they brought and the settling, if any). */
  private ReplyEffect<Event, State> onPublishAll(State state, PublishEvents c) {
    Specced sp = specced(state, c.spec());
    if (sp.refusal() != null || !sp.state().defined() || sp.state().removed()) {
      return Effect().reply(c.replyTo(), StatusReply.error(sp.refusal() != null ? sp.refusal() : notDefined(sp.state()).refusal()));
    }
    Settled x = settled(sp.state());
    return run(state, Origin.ON_TIME, sp.then(x.then(events.publishAll(taskId, x.state(), c.events(),
        () -> views.schedule(x.state()), now(), hot))), c.replyTo());
  }

  /** A fire, on the settled state: a fresh window that may start at once is first offered ({@link HeldFire}). */
  private ReplyEffect<Event, State> onFire(State original, Fire cmd) {
    Specced sp = specced(original, cmd.spec());
    if (sp.refusal() != null || !sp.state().defined() || sp.state().removed()) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(sp.refusal() != null ? sp.refusal()
          : notDefined(sp.state()).refusal()));
    }
    State state = original;
    announce = cmd.announce();
    Settled x = settled(sp.state());
    Decided<FireOutcome> own = fires.fire(x.state(), cmd, now());
    Decided<FireOutcome> d = sp.then(x.then(own));
    if (HeldFire.applies(d, own.events(), x.state(), dispatch.hasExecutor())) {
      held = new HeldFire(cmd, d, x.state());
      timers.startSingleTimer(OFFER_TIMER, new OfferUnanswered(held.window()), io.almanac.spi.Saturating.timerDelay(settings.offerTimeout()));
      dispatch.offerFresh(held.window());
      return Effect().noReply();
    }
    return answerFire(state, Origin.of(cmd.kind()), d, cmd.replyTo());
  }

  /** Carries out a fire's decision; the answer carries the task's wake-up report (no message of its own). */
  private ReplyEffect<Event, State> answerFire(State state, Origin origin, Decided<FireOutcome> d,
      ActorRef<StatusReply<FireOutcome>> replyTo) {
    if (d.refused()) {
      return Effect().reply(replyTo, StatusReply.error(d.refusal()));
    }
    if (d.events().isEmpty()) {
      TriggerProtocol.TaskWakes w = dispatch.wakesForReply(state, now(), lastSequenceNumber(ctx));
      return Effect().reply(replyTo, StatusReply.success(d.reply().apply(state).withWakes(w)));
    }
    dispatch.answersFire();
    return persist(state, origin, d.events())
        .thenReply(replyTo, s -> StatusReply.success(d.reply().apply(s).withWakes(dispatch.takeReplyWakes())));
  }

  /** While a fire waits for the executor's answer, only that answer is handled; the rest waits. */
  private ReplyEffect<Event, State> whileHeld(State state, Command cmd) {
    if (!held.answeredBy(cmd)) {
      return Effect().stash();
    }
    HeldFire h = held;
    held = null;
    timers.cancel(OFFER_TIMER);
    if (!(cmd instanceof Admitted a)) { // queued or unanswered: the schedule alone (the decision has its events)
      return answerFire(state, h.origin(), h.decided(), h.fire().replyTo()).thenUnstashAll();
    }
    ActorRef<StatusReply<FireOutcome>> trigger = h.fire().replyTo();
    dispatch.answersFire();
    HeldFire.Start start = h.admitted(attempts, a.executorId(), a.traceparent(), now());
    return persist(state, h.origin(), start.events())
        .thenRun(s -> trigger.tell(StatusReply.success(h.outcome(s, dispatch.takeReplyWakes()))))
        .thenReply(a.replyTo(), s -> new ExecutorProtocol.Started(s.spec().job(), s.spec().zone(), attempts.grant(s, start.started())))
        .thenUnstashAll();
  }

  /** The executor reserved a slot for a PENDING window: start it, or decline so the slot is freed. */
  private ReplyEffect<Event, State> onAdmitted(State state, Admitted cmd) {
    Decided<AttemptGrant> d = attempts.start(state, cmd.window(), cmd.executorId(), cmd.traceparent(), now());
    if (d.refused()) {
      return decline(cmd, ((RefusedException) d.refusal()).reason(), d.refusal().getMessage());
    }
    return persist(state, null, d.events()).thenReply(cmd.replyTo(),
        s -> new ExecutorProtocol.Started(s.spec().job(), s.spec().zone(), d.reply().apply(s)));
  }

  private ReplyEffect<Event, State> decline(Admitted cmd, Reason reason, String why) {
    return Effect().reply(cmd.replyTo(), new ExecutorProtocol.Declined(taskId, cmd.window().value(), reason, why));
  }

  private ReplyEffect<Event, State> onWake(State state, Wake cmd) {
    Specced sp = specced(state, cmd.spec());
    if (sp.refusal() != null || !sp.state().defined()) {
      return Effect().reply(cmd.replyTo(), StatusReply.error(sp.refusal() != null ? sp.refusal() : notDefined(sp.state()).refusal()));
    }
    if (sp.state().removed()) {
      return Effect().reply(cmd.replyTo(), StatusReply.ack()); // nothing is due any more
    }
    State s = sp.state();
    dispatch.forgetOffers(); // whatever was offered before is offered again (the executor ignores what it holds)
    leases.forgetAll(); // and every lease timer re-armed by the clock now (it may have stepped)
    deadlines.forget();
    return persist(state, null, sp.events(), attempts.dueRetries(s, now()), Deadlines.missed(s, now()))
        .thenReply(cmd.replyTo(), x -> StatusReply.ack());
  }

  /** The deadline timer went off: record the windows whose deadline passed; re-armed after the write (empty when early). */
  private ReplyEffect<Event, State> onDeadlineTimer(State state, DeadlineTimer cmd) {
    deadlines.forget();
    return persist(state, null, Deadlines.missed(state, now())).thenNoReply();
  }

  /** A lease timer went off: settle what LeaseExpiry says is over (a timer early by the clock is re-armed after the write). */
  private ReplyEffect<Event, State> onLeaseTimer(State state, LeaseTimer cmd) {
    leases.fired(cmd.window());
    return persist(state, null, settled(state).events()).thenNoReply();
  }

  /** Answers a dependent task's question about this task's windows (R9). */
  private ReplyEffect<Event, State> onUpstreamReport(State state, GetUpstreamReport cmd) {
    return Effect().reply(cmd.replyTo(), DependencyCheck.answer(taskId, state, () -> views.schedule(state), cmd, log));
  }

  /** An upstream task succeeded (told by the trigger): check the mapped window now, or record a late success. */
  private ReplyEffect<Event, State> onUpstreamSucceeded(State state, UpstreamSucceeded cmd) {
    GateDecider.Upstream u = gates.upstreamSucceeded(state, cmd, () -> views.schedule(state), now());
    if (u.failure() != null) {
      log.warn("task '{}': upstream success of '{}' for {} not handled: {}", taskId, cmd.upstream(), cmd.window(), u.failure());
      return Effect().noReply();
    }
    return persist(state, null, u.events()).thenRun(s -> gateWatch.checkNow(s, u.checkWindow(), now())).thenNoReply();
  }

  /** A gate check came back: release, keep waiting, or end the wait at its deadline (R9). */
  private ReplyEffect<Event, State> onGateChecked(State state, GateChecked cmd) {
    GateDecider.Memory memory = gateWatch.checked(cmd.window());
    Settled x = settled(state);
    GateDecider.Result r = gates.checked(x.state(), cmd, memory, now());
    gateWatch.remember(cmd.window(), r.memory());
    return persist(state, Origin.ON_TIME, x.events(), r.events()).thenNoReply();
  }

  private ReplyEffect<Event, State> dropGateCheck(State state, GateChecked cmd) {
    gateWatch.checked(cmd.window());
    return Effect().noReply();
  }

  /** Refuses a command with a reply (commands without one are dropped). */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private ReplyEffect<Event, State> refuse(Command cmd, Throwable refusal) {
    ActorRef replyTo = cmd.replyTo();
    return replyTo == null ? Effect().noReply() : Effect().reply(replyTo, StatusReply.error(refusal));
  }

  // After a persist: only ever from persisted state (principle 1), as Reactions decides.

  private void afterPersist(State before, Origin origin, State state, List<Event> written,
      List<io.almanac.journal.WindowChange> changes) {
    env.written(taskId, origin, before, state, written, changes, announce, log);
    if (Reactions.attemptFinished(changes)) {
      views.checkInterval(state);
    }
    leases.arm(state, now(), env.executors(), env.goneRecheck());
    deadlines.arm(state, now());
    dispatch.offerPending(state, written, changes);
    // one instant for the checks started and the wake reported (a clock read twice could skip a poll)
    Instant now = now();
    gateWatch.checkDue(state, settings.dependencyPoll(), now);
    dispatch.afterWrite(state, now, lastSequenceNumber(ctx));
  }

  private Instant now() {
    return clock.instant();
  }

  // Event handler: the one evolve (it never validates: replay must always succeed).

  @Override
  public EventHandler<State, Event> eventHandler() {
    Evolve.Violations violations = Evolve.Violations.logTo(log, "task '" + taskId + "'");
    return newEventHandlerBuilder().forAnyState().onAnyEvent((s, e) -> Evolve.apply(s, e, hot, violations));
  }
}
