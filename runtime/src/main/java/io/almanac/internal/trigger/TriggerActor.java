package io.almanac.internal.trigger;

import io.almanac.Alert;
import io.almanac.AlertSink;
import io.almanac.Decision;
import io.almanac.InvalidSpecException;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.internal.protocol.TriggerProtocol.CheckDependencies;
import io.almanac.internal.protocol.TriggerProtocol.Command;
import io.almanac.internal.protocol.TriggerProtocol.GetStatus;
import io.almanac.internal.protocol.TriggerProtocol.MarkActive;
import io.almanac.internal.protocol.TriggerProtocol.Quiesce;
import io.almanac.internal.protocol.TriggerProtocol.Register;
import io.almanac.internal.protocol.TriggerProtocol.Remove;
import io.almanac.internal.protocol.TriggerProtocol.SubscriberList;
import io.almanac.internal.protocol.TriggerProtocol.Subscribers;
import io.almanac.internal.protocol.TriggerProtocol.TaskWakes;
import io.almanac.internal.protocol.TriggerProtocol.TriggerStatus;
import io.almanac.internal.protocol.TriggerProtocol.UpstreamDone;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TriggerJournal;
import io.almanac.journal.TriggerJournal.Event;
import io.almanac.journal.TriggerJournal.HandedOver;
import io.almanac.journal.TriggerJournal.Progressed;
import io.almanac.journal.TriggerJournal.State;
import io.almanac.journal.TriggerJournal.TaskRemoved;
import io.almanac.journal.TriggerJournal.TaskSetAside;
import io.almanac.journal.TriggerJournal.TasksRegistered;
import io.almanac.schedule.DueWindow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The trigger (a cluster singleton): wakes tasks when something is due. It does not own truth: a
 * fire is a hint and the task entity decides from its own state (R5, principle 2).
 *
 * <ul>
 *   <li>Keeps the next due instant of every task (its next cron firing, and the wake-up its entity
 *       reported: a retry's due time, a lease's expiry) in its {@link DueQueue} and arms one timer
 *       for the earliest: the work per tick is proportional to what is due, not to the number of tasks.
 *   <li>Delivers each fire at least once (ask, retried until acknowledged: {@link InFlightFires}).
 *   <li>Persists a {@link Watermark}: every fire due at or before it was acknowledged. After downtime
 *       or a failover it fires the windows due since the watermark as catch-up; each task's catch-up
 *       policy (mode and horizon) decides whether they run or are recorded as missed (R12, R14).
 *   <li>Persists which tasks may have active windows, and wakes them after a restart, so a retry or
 *       a lease expiry is never forgotten (principle 5).
 *   <li>Answers which tasks an event type triggers and tells a task's dependents of its successes
 *       ({@link Subscriptions}, R9).
 *   <li>Logs a heartbeat line once a minute (R25).
 * </ul>
 *
 * The decisions are in those pure classes; this actor handles the messages, persists and sends.
 * Triggering and backfill stay separate paths (R11): this actor only says "window W of task T is
 * due"; catch-up runs are rate-limited where they execute (the executor, R17). INTERNAL API.
 */
public final class TriggerActor
    extends EventSourcedBehavior<TriggerProtocol.Command, Event, State> {

  /** The trigger's persistence id: there is one per cluster. */
  private static final PersistenceId PERSISTENCE_ID = PersistenceId.ofUniqueId(TriggerJournal.PERSISTENCE_ID);

  // ---------------------------------------------------------------------------------------------
  // Protocol

  private enum Tick implements TriggerProtocol.Internal {
    INSTANCE
  }

  private enum HeartbeatLog implements TriggerProtocol.Internal {
    INSTANCE
  }

  /** Start the entities of the tasks registered lately that are due soon ({@link #warmIfDueSoon}). */
  private enum Warm implements TriggerProtocol.Internal {
    INSTANCE
  }

  /** A fire's (or catch-up's) answer: what the task decided, or the error; both null: send again. */
  private record FireDone(FireKey key, String outcome, Throwable error, TaskWakes wakes, SpecRecord sent)
      implements TriggerProtocol.Internal {
    FireDone(FireKey key, String outcome, Throwable error) {
      this(key, outcome, error, null, null);
    }
  }

  /** A wake-up's answer; {@code sent}: the spec the wake-up carried, or null. */
  private record WakeDone(String taskId, Throwable error, SpecRecord sent) implements TriggerProtocol.Internal {}

  /** Record that a task was set aside (sent to itself, from wherever its schedule failed). */
  private record RecordSetAside(String taskId, String reason) implements TriggerProtocol.Internal {}


  // ---------------------------------------------------------------------------------------------
  // In memory, rebuilt on recovery from the state and the clock

  private final ActorContext<Command> ctx;
  private final TimerScheduler<Command> timers;
  private final Clock clock;
  private final TriggerSettings settings;
  private final Function<String, RecipientRef<TaskProtocol.Command>> tasks;
  private final AlertSink alerts;
  private final NodeMeters meters;
  private final DueQueue queue;
  private final InFlightFires inFlight = new InFlightFires();
  private final Watermark watermark;
  private final Subscriptions subscriptions = new Subscriptions();
  /** The registered tasks' ids, sorted, and the map they were taken from (sorted again when it changes). */
  private List<String> sortedIds = List.of();
  private Map<String, SpecRecord> sortedIdsOf;
  /** The registered specs (the state's, as of the last change): what a fire or wake-up carries to an entity. */
  private Map<String, SpecRecord> specs = Map.of();
  /**
   * Per task, the spec its entity acknowledged a message carrying: a message to it carries its spec
   * until then (registration writes no entity; the entity records the spec with what the message
   * asks, docs/registration.md). In memory: after a restart each entity is sent its spec once more,
   * and one that recorded it already writes nothing.
   */
  private final Map<String, SpecRecord> delivered = new java.util.HashMap<>();
  /** Tasks registered lately, due soon, whose entities are started once registrations pause ({@link #warmIfDueSoon}). */
  private final List<String> toWarm = new ArrayList<>();
  private long ticks;
  private Instant lastTick;
  private boolean recovered;
  private boolean quiesced;

  /**
   * @param clock where time comes from
   * @param settings the trigger's settings
   * @param recentFireGrace how late a fire may still count as on time ({@code almanac.task.recent-fire-grace})
   * @param tasks how to reach a task entity by id
   * @return the trigger's behavior
   */
  public static Behavior<Command> create(
      Clock clock, TriggerSettings settings, java.time.Duration recentFireGrace, Function<String, RecipientRef<TaskProtocol.Command>> tasks) {
    return create(clock, settings, recentFireGrace, tasks, a -> { });
  }

  /**
   * @param clock where time comes from
   * @param settings the trigger's settings
   * @param recentFireGrace how late a fire may still count as on time ({@code almanac.task.recent-fire-grace})
   * @param tasks how to reach a task entity by id
   * @param alerts where a task set aside is reported
   * @return the trigger's behavior
   */
  public static Behavior<Command> create(Clock clock, TriggerSettings settings, java.time.Duration recentFireGrace,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks, AlertSink alerts) {
    return create(clock, settings, recentFireGrace, tasks, alerts, NodeMeters.NONE);
  }

  /**
   * @param clock where time comes from
   * @param settings the trigger's settings
   * @param recentFireGrace how late a fire may still count as on time ({@code almanac.task.recent-fire-grace})
   * @param tasks how to reach a task entity by id
   * @param alerts where a task set aside is reported
   * @param meters the meters of the node it runs on (its fires' answers)
   * @return the trigger's behavior
   */
  public static Behavior<Command> create(Clock clock, TriggerSettings settings, java.time.Duration recentFireGrace,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks, AlertSink alerts, NodeMeters meters) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new TriggerActor(ctx, timers, clock, settings, recentFireGrace, tasks, alerts, meters)));
  }

  private TriggerActor(ActorContext<Command> ctx, TimerScheduler<Command> timers, Clock clock, TriggerSettings settings,
      Duration recentFireGrace, Function<String, RecipientRef<TaskProtocol.Command>> tasks, AlertSink alerts,
      NodeMeters meters) {
    super(PERSISTENCE_ID, SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2));
    this.ctx = ctx;
    this.timers = timers;
    this.clock = Objects.requireNonNull(clock);
    this.settings = settings;
    this.tasks = tasks;
    this.alerts = Objects.requireNonNull(alerts, "alerts");
    this.meters = Objects.requireNonNull(meters, "meters");
    this.queue = new DueQueue(settings.maxCatchUpPerTask(), recentFireGrace, this::setAside);
    this.watermark = new Watermark(settings.persistInterval());
  }

  @Override
  public State emptyState() {
    return new State(Map.of(), null, Set.of(), null);
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    // The trigger writes its watermark about once a second: keep two snapshots and delete the events
    // below them, so its journal stays small. Recovery starts at the latest snapshot, never at a gap.
    return RetentionCriteria.snapshotEvery(settings.snapshotEvery(), 2).withDeleteEventsOnSnapshot();
  }

  @Override
  public java.util.Optional<Integer> stashCapacity() {
    // Pekko's default (4,096) is far below the wake-ups 10,000 tasks send while one write is in
    // flight, and it drops the rest.
    return java.util.Optional.of(settings.stashCapacity());
  }

  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), this::onRecovered).build();
  }

  /** Rebuilds the queue, hands over what was due while down, wakes the tasks that were active. */
  private void onRecovered(State state) {
    Instant now = clock.instant();
    watermark.reset(state.watermark());
    // A planned hand-over (the previous trigger stopped on a node leaving a cluster whose other
    // members stayed up), taken over within the lease time: not downtime, so every window due since
    // the watermark within the grace fires on time (R12 applies to downtime, not to a move). Later
    // than that, nobody took over: the cluster stopped, node after node, and this is its restart.
    boolean handOver = CatchUpPlan.handOverApplies(state.handedOverAt(), now, settings.handOverTimeout());
    state.tasks().values().forEach(spec -> subscriptions.replace(null, spec));
    specs = state.tasks();
    meters.tasksRegistered(state.tasks().keySet()); // their series at zero on this node (once per task per node)
    delivered.clear();
    DueQueue.Recovered r = queue.recover(state.tasks().values(), state.active(),
        state.watermark() == null ? now : state.watermark(), now, handOver);
    recovered = true;
    lastTick = now;
    ctx.getLog().info("trigger started: {} tasks, watermark {}, {} windows due while down handed over as catch-up, "
            + "{} on time, {} tasks with active windows woken{}{}", state.tasks().size(), state.watermark(), r.catchUp(),
        r.onTime(), state.active().size(), r.beyondCap() == 0 ? "" : ", " + r.beyondCap() + " tasks had more than "
            + settings.maxCatchUpPerTask() + " windows due (only the latest handed over)",
        handOver ? "; taking over from a trigger handed over at " + state.handedOverAt()
            + " (the windows due since, within the on-time grace, fire on time)"
            : state.handedOverAt() == null ? "" : "; the trigger handed over at " + state.handedOverAt() + " had no "
            + "successor within " + settings.handOverTimeout() + " (almanac.trigger.hand-over-timeout): the gap is downtime");
    timers.startTimerWithFixedDelay(HeartbeatLog.INSTANCE, io.almanac.spi.Saturating.timerDelay(settings.heartbeatInterval()));
    ctx.getSelf().tell(Tick.INSTANCE);
  }

  /** The queue set a task aside (its schedule threw): an alert, and a journal record of why (principle 8). */
  private void setAside(String taskId, RuntimeException e) {
    String message = "task '" + taskId + "' is set aside: its schedule failed (" + e.getMessage()
        + "); its windows are not fired until a corrected spec is registered; other tasks go on";
    ctx.getLog().error(message);
    try {
      alerts.alert(new Alert(Alert.Kind.TASK_SET_ASIDE, taskId, null, message, clock.instant()));
    } catch (RuntimeException ex) {
      ctx.getLog().error("alert sink failed on {}: {}", Alert.Kind.TASK_SET_ASIDE, ex.toString());
    }
    ctx.getSelf().tell(new RecordSetAside(taskId, e.getMessage()));
  }

  // ---------------------------------------------------------------------------------------------
  // Commands

  /** Who listens to a type; each event brings its task's spec (an entity not written yet records it). */
  private SubscriberList subscriberList(State s, String type) {
    List<String> ids = subscriptions.listeners(type);
    List<SpecRecord> listening = new ArrayList<>(ids.size());
    ids.forEach(id -> listening.add(s.tasks().get(id)));
    return new SubscriberList(ids, subscriptions.byEventTime(type), listening.contains(null) ? List.of() : listening);
  }

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Register.class, this::onRegister)
        .onCommand(Remove.class, this::onRemove)
        .onCommand(TaskWakes.class, this::onTaskWakes)
        .onCommand(MarkActive.class, this::onMarkActive)
        .onCommand(GetStatus.class, this::onGetStatus)
        .onCommand(Subscribers.class, (s, c) -> reply(c.replyTo(), subscriberList(s, c.type())))
        .onCommand(TriggerProtocol.SubscribersOfTypes.class, (s, c) -> {
          java.util.Map<String, SubscriberList> byType = new java.util.HashMap<>();
          c.types().forEach(type -> byType.put(type, subscriberList(s, type)));
          return reply(c.replyTo(), new TriggerProtocol.SubscriberLists(byType));
        })
        .onCommand(CheckDependencies.class, this::onCheckDependencies)
        .onCommand(TriggerProtocol.GetSpec.class, (s, c) -> reply(c.replyTo(), new TriggerProtocol.RegisteredSpec(
            s.tasks().get(c.taskId()))))
        .onCommand(UpstreamDone.class, this::onUpstreamDone)
        .onCommand(Quiesce.class, this::onQuiesce)
        .onCommand(FireDone.class, this::onFireDone)
        .onCommand(WakeDone.class, this::onWakeDone)
        .onCommand(RecordSetAside.class, (s, c) -> Effect().persist(new TaskSetAside(c.taskId(), c.reason(), clock.instant())))
        .onCommand(Tick.class, (s, c) -> onTick(s))
        .onCommand(HeartbeatLog.class, (s, c) -> onHeartbeatLog(s))
        .onCommand(Warm.class, (s, c) -> onWarm(s))
        .build();
  }

  private <T> Effect<Event, State> reply(ActorRef<T> replyTo, T reply) {
    replyTo.tell(reply);
    return Effect().none();
  }

  private Effect<Event, State> onRegister(State state, Register cmd) {
    List<SpecRecord> changed = new ArrayList<>();
    for (SpecRecord spec : cmd.specs()) {
      if (!spec.equals(state.tasks().get(spec.id()))) {
        changed.add(spec);
      }
    }
    if (changed.isEmpty()) {
      return reply(cmd.replyTo(), StatusReply.ack());
    }
    Instant now = clock.instant();
    Instant from = cmd.since() == null || cmd.since().isAfter(now) ? now : cmd.since();
    Map<String, SpecRecord> before = state.tasks();
    // One write for the whole batch, and none to the tasks' entities: each records its spec when it
    // first has something to do, from the message that brings it (docs/registration.md).
    return Effect().persist(new TasksRegistered(List.copyOf(changed), now, from)).thenRun(s -> {
      specs = s.tasks();
      watermark.reset(s.watermark()); // back to `from` if it had moved past it (TriggerEvolve.registered)
      List<String> first = new ArrayList<>();
      List<String> again = new ArrayList<>();
      for (SpecRecord spec : changed) {
        (before.containsKey(spec.id()) ? again : first).add(spec.id());
      }
      meters.tasksFirstRegistered(first); // their series at zero (docs/metrics.md); a new task has never succeeded
      meters.tasksRegistered(again);
      for (SpecRecord spec : changed) {
        SpecRecord previous = before.get(spec.id());
        subscriptions.replace(previous, spec);
        CatchUpPlan late = queue.register(spec, previous, from, now);
        warmIfDueSoon(spec.id(), previous, now);
        if (late != null) {
          ctx.getLog().info("one-shot task '{}' registered after its instant {}: {}", spec.id(), spec.once(),
              !late.onTime().isEmpty() ? "fired on time (within the on-time grace)"
                  : "handed to its catch-up horizon and backfill policy");
          FireKey.of(spec.id(), late).forEach(this::fire);
        }
      }
      cmd.replyTo().tell(StatusReply.ack());
      armTimer(now);
    });
  }

  /**
   * How far ahead a newly registered task's first firing makes the trigger start its entity at once
   * (below sharding's default passivation idle timeout of 2 minutes, so the entity is still in memory
   * when the window fires).
   */
  private static final Duration WARM_AHEAD = Duration.ofSeconds(60);

  /** How long registrations must pause before the tasks due soon are started (not to compete with their writes). */
  private static final Duration WARM_AFTER = Duration.ofMillis(500);

  /**
   * A task new to the trigger whose first window is due within {@link #WARM_AHEAD}: its entity is
   * started with a wake-up that writes nothing (it carries no spec: an entity never written refuses
   * it, one removed acknowledges it), so that it has read its journal before the fire; a burst of
   * tasks registered just before their due time otherwise starts every entity at the fire
   * (registration writes no entity, docs/registration.md). Started once registrations pause for
   * {@link #WARM_AFTER}, so the reads do not slow the registration's own writes.
   */
  private void warmIfDueSoon(String taskId, SpecRecord previous, Instant now) {
    if (previous != null) {
      return; // known: its entity records a changed spec with the next message
    }
    Instant next = queue.nextFiring(taskId);
    if (next != null && !next.isAfter(now.plus(WARM_AHEAD))) {
      toWarm.add(taskId);
      timers.startSingleTimer(Warm.INSTANCE, Warm.INSTANCE, WARM_AFTER); // again at each registration: after the last
    }
  }

  private Effect<Event, State> onWarm(State state) {
    for (String id : toWarm) {
      if (state.tasks().containsKey(id) && !delivered.containsKey(id)) { // still registered, not fired meanwhile
        tasks.apply(id).tell(new TaskProtocol.Wake(ctx.getSystem().ignoreRef()));
      }
    }
    toWarm.clear();
    return Effect().none();
  }

  private Effect<Event, State> onRemove(State state, Remove cmd) {
    String id = cmd.taskId();
    if (!state.tasks().containsKey(id) && !state.active().contains(id)) {
      return reply(cmd.replyTo(), StatusReply.ack());
    }
    SpecRecord spec = state.tasks().get(id);
    return Effect().persist(new TaskRemoved(id, clock.instant())).thenRun(s -> {
      specs = s.tasks();
      delivered.remove(id);
      queue.remove(id);
      subscriptions.replace(spec, null);
      watermark.forget(id);
      ctx.getLog().info("task '{}' removed: its windows are fired no more", id);
      cmd.replyTo().tell(StatusReply.ack());
    });
  }

  private Effect<Event, State> onTaskWakes(State state, TaskWakes cmd) {
    if (!queue.reportWakes(cmd.taskId(), cmd.nextWake(), cmd.seq())) {
      return Effect().none(); // unknown, or overtaken by a later report
    }
    if (cmd.nextWake() != null) {
      armTimer(clock.instant());
    }
    watermark.reported(cmd.taskId(), cmd.active(), state.active().contains(cmd.taskId()));
    return Effect().none();
  }

  private Effect<Event, State> onMarkActive(State state, MarkActive cmd) {
    if (state.active().contains(cmd.taskId())) {
      return reply(cmd.replyTo(), StatusReply.ack());
    }
    watermark.forget(cmd.taskId());
    return Effect()
        .persist(new Progressed(state.watermark(), List.of(cmd.taskId()), List.of(), clock.instant()))
        .thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private Effect<Event, State> onQuiesce(State state, Quiesce cmd) {
    // The system's address is the cluster member's (the provider's default address); no Cluster needed.
    if (!cmd.node().equals(ctx.getSystem().address().toString())) {
      return reply(cmd.replyTo(), Done.getInstance()); // another node is shutting down: the trigger stays
    }
    quiesced = true;
    if (!cmd.othersStayUp() || !recovered) {
      ctx.getLog().info("trigger quiesced: its node is shutting down and no other member stays up; watermark {}",
          watermark.current());
      return reply(cmd.replyTo(), Done.getInstance());
    }
    Instant at = clock.instant();
    return Effect().persist(new HandedOver(watermark.current(), cmd.node(), at)).thenRun(s -> {
      ctx.getLog().info("trigger quiesced: its node is leaving, other members stay up: hand-over recorded at {}, watermark {}; "
          + "a successor starting within {} fires the windows due meanwhile on time", at, watermark.current(),
          settings.handOverTimeout());
      cmd.replyTo().tell(Done.getInstance());
    });
  }

  private Effect<Event, State> onGetStatus(State state, GetStatus cmd) {
    DueQueue.Due head = queue.head();
    List<String> ids = List.of();
    if (cmd.withTaskIds()) {
      if (sortedIdsOf != state.tasks()) { // sorted again only when the registered tasks changed
        List<String> sorted = new ArrayList<>(state.tasks().keySet());
        Collections.sort(sorted);
        sortedIds = List.copyOf(sorted);
        sortedIdsOf = state.tasks();
      }
      ids = sortedIds;
    }
    // the persisted watermark: what the journal holds (a health check judges the journal by it)
    return reply(cmd.replyTo(), new TriggerStatus(state.tasks().size(), queue.size(), inFlight.size(), state.watermark(),
        lastTick, head == null ? null : head.taskId(), head == null ? null : head.at(), inFlight.sentCount(), ids, ticks));
  }

  private Effect<Event, State> onCheckDependencies(State state, CheckDependencies cmd) {
    try {
      DependencyGraph.check(state.tasks(), cmd.specs());
      return reply(cmd.replyTo(), StatusReply.ack());
    } catch (InvalidSpecException e) {
      return reply(cmd.replyTo(), StatusReply.error(e));
    }
  }

  /** Tells every task that depends on the upstream task (a hint: each checks its upstream itself). */
  private Effect<Event, State> onUpstreamDone(State state, UpstreamDone cmd) {
    for (String id : subscriptions.dependentsOf(cmd.taskId())) {
      tasks.apply(id).tell(new TaskProtocol.UpstreamSucceeded(cmd.taskId(), cmd.window(), cmd.start(), cmd.end(), cmd.at()));
    }
    return Effect().none();
  }

  private Effect<Event, State> onTick(State state) {
    if (!recovered || quiesced) {
      return Effect().none();
    }
    Instant now = clock.instant();
    lastTick = now;
    ticks++;
    DueQueue.Step step;
    while (inFlight.size() < settings.maxInFlight() && (step = queue.next(now)) != null) {
      if (step.behind() != null) {
        CatchUpPlan plan = step.behind().plan();
        ctx.getLog().warn("trigger is {} behind task '{}' (clock stepped forward or the node was paused): {} windows due "
                + "since {} handed over as after downtime: {} on time, {} to the catch-up policy",
            Duration.between(step.behind().since(), now), step.taskId(), plan.onTime().size() + plan.catchUp().size(),
            step.behind().since(), plan.onTime().size(), plan.catchUp().size());
      }
      step.fires().forEach(this::fire);
      if (step.wake()) {
        wake(step.taskId());
      }
    }
    armTimer(now);
    // Persists the watermark and activity changes, at most once per persist-interval.
    DueQueue.Due head = queue.head();
    Progressed progressed = watermark.advance(state.watermark(), now, inFlight.earliestDue(), head == null ? null : head.at());
    return progressed == null ? Effect().none() : Effect().persist(progressed);
  }

  private void armTimer(Instant now) {
    DueQueue.Due head = queue.head();
    Duration delay = settings.maxTickInterval();
    if (head != null) {
      Duration untilHead = Duration.between(now, head.at());
      if (untilHead.isNegative()) {
        untilHead = Duration.ZERO;
      }
      if (untilHead.compareTo(delay) < 0) {
        delay = untilHead;
      }
    }
    if (inFlight.size() >= settings.maxInFlight()) {
      delay = settings.retryDelay();
    }
    timers.startSingleTimer(Tick.INSTANCE, Tick.INSTANCE, io.almanac.spi.Saturating.timerDelay(delay));
  }

  private void fire(FireKey key) {
    if (inFlight.add(key)) {
      send(key);
    }
  }

  private void send(FireKey key) {
    inFlight.sent();
    SpecRecord spec = undelivered(key.taskId());
    if (key.batch() != null) {
      List<TaskProtocol.DueFire> windows = key.dueFires();
      CompletionStage<StatusReply<TaskProtocol.CatchUpOutcome>> ask = Asks.ask(tasks.apply(key.taskId()),
          replyTo -> new TaskProtocol.CatchUp(windows, replyTo, spec), settings.askTimeout(), ctx.getSystem().scheduler());
      ctx.pipeToSelf(ask, (reply, error) -> error != null ? new FireDone(key, null, error)
          : reply.isSuccess() ? new FireDone(key, summary(reply.getValue()), null, null, spec)
          : new FireDone(key, null, reply.getError()));
      return;
    }
    DueWindow d = key.due();
    CompletionStage<StatusReply<TaskProtocol.FireOutcome>> ask = Asks.ask(tasks.apply(key.taskId()),
        replyTo -> new TaskProtocol.Fire(d.key(), d.window().start(), d.window().end(), d.dueAt(), key.kind(),
            subscriptions.hasDependents(key.taskId()), replyTo, spec),
        settings.askTimeout(), ctx.getSystem().scheduler());
    ctx.pipeToSelf(ask, (reply, error) -> {
      if (error != null) {
        return new FireDone(key, null, error);
      }
      if (reply.isError()) {
        return new FireDone(key, null, reply.getError());
      }
      TaskProtocol.FireOutcome o = reply.getValue();
      return new FireDone(key, o.decision() + " (" + o.reason() + ")", null, o.wakes(), spec); // its wake-up rides along
    });
  }

  /** The task's registered spec when its entity has not acknowledged a message carrying it, else null. */
  private SpecRecord undelivered(String taskId) {
    SpecRecord spec = specs.get(taskId);
    if (spec == null) {
      return null; // not registered (removed): the entity refuses, or has its spec
    }
    SpecRecord acknowledged = delivered.get(taskId);
    return acknowledged == spec || spec.equals(acknowledged) ? null : spec;
  }

  /** The entity answered a message that carried its spec: it has recorded it (or had it). */
  private void acknowledged(String taskId, SpecRecord sent) {
    if (sent != null && sent == specs.get(taskId)) {
      delivered.put(taskId, sent);
    }
  }

  /** A catch-up's outcomes counted by decision, e.g. "{MISSED=14}". */
  private static String summary(TaskProtocol.CatchUpOutcome outcome) {
    Map<Decision, Integer> counts = new TreeMap<>();
    outcome.outcomes().forEach(o -> counts.merge(o.decision(), 1, Integer::sum));
    return counts.toString();
  }

  private Effect<Event, State> onFireDone(State state, FireDone m) {
    FireKey key = m.key();
    acknowledged(key.taskId(), m.sent());
    if (m.wakes() != null) {
      onTaskWakes(state, m.wakes()); // changes nothing persisted: its effect is none
    }
    InFlightFires.Answer answer = InFlightFires.Answer.of(m.outcome(), m.error());
    if (answer.meter() != null) {
      meters.fired(key.taskId(), key.kind(), answer.meter());
    }
    switch (answer) {
      case RETRY_DUE:
        // not when the fire is no longer in flight (a retry scheduled by an earlier instance of this
        // trigger, restarted in place, whose fires this one tracks anew)
        if (inFlight.contains(key)) {
          send(key);
        }
        return Effect().none();
      case REFUSED_RETRIED:
      case UNANSWERED:
        // At least once: try again; the entity deduplicates by window (R5).
        ctx.getLog().debug("fire of window '{}' of task '{}' not acknowledged ({}); retrying", key.window(), key.taskId(),
            m.error().toString());
        ctx.scheduleOnce(io.almanac.spi.Saturating.timerDelay(settings.retryDelay()), ctx.getSelf(), new FireDone(key, null, null));
        return Effect().none();
      case REMOVED: // in flight when the task was removed (its windows are fired no more once the removal reaches here)
        ctx.getLog().info("fire of window '{}' refused by task '{}': {}", key.window(), key.taskId(), m.error().getMessage());
        break;
      case UNKNOWN_TASK:
        ctx.getLog().warn("fire of window '{}' refused by task '{}': {}", key.window(), key.taskId(), m.error().getMessage());
        break;
      case ACKNOWLEDGED:
      default:
        ctx.getLog().debug("task '{}' window '{}': {}", key.taskId(), key.window(), m.outcome());
        break;
    }
    inFlight.done(key);
    return Effect().none();
  }

  private void wake(String taskId) {
    SpecRecord spec = undelivered(taskId);
    CompletionStage<StatusReply<Done>> ask = Asks.ask(tasks.apply(taskId), r -> new TaskProtocol.Wake(r, spec),
        settings.askTimeout(), ctx.getSystem().scheduler());
    ctx.pipeToSelf(ask, (reply, error) -> new WakeDone(taskId, error != null ? error
        : reply.isError() ? new IllegalStateException(reply.getError().getMessage()) : null, spec));
  }

  private Effect<Event, State> onWakeDone(State state, WakeDone m) {
    if (m.error() == null) {
      acknowledged(m.taskId(), m.sent());
    }
    if (m.error() != null && queue.contains(m.taskId())) {
      ctx.getLog().debug("wake of task '{}' not acknowledged ({}); retrying", m.taskId(), m.error().toString());
      queue.retryWake(m.taskId(), clock.instant().plus(settings.retryDelay()));
    }
    return Effect().none();
  }

  private Effect<Event, State> onHeartbeatLog(State state) {
    ctx.getLog().info("trigger heartbeat: {} tasks, {} queued, {} fires in flight, {} tasks active, watermark {}, next: {}",
        state.tasks().size(), queue.size(), inFlight.size(), state.active().size(), watermark.current(), queue.describeHead());
    return Effect().none();
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(TasksRegistered.class, TriggerEvolve::registered)
        .onEvent(TaskSetAside.class, (s, e) -> s) // a record of why; recovery finds the failure again
        .onEvent(TaskRemoved.class, (s, e) -> s.withoutTask(e.taskId()))
        .onEvent(Progressed.class, TriggerEvolve::progressed)
        .onEvent(HandedOver.class, TriggerEvolve::handedOver)
        .build();
  }
}
