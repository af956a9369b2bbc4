package io.almanac.internal;

import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import io.almanac.journal.TriggerJournal;
import io.almanac.journal.TriggerJournal.Event;
import io.almanac.journal.TriggerJournal.HandedOver;
import io.almanac.journal.TriggerJournal.Progressed;
import io.almanac.journal.TriggerJournal.State;
import io.almanac.journal.TriggerJournal.TaskRemoved;
import io.almanac.journal.TriggerJournal.TaskSetAside;
import io.almanac.journal.TriggerJournal.TasksRegistered;
import io.almanac.Decision;
import io.almanac.Alert;
import io.almanac.AlertSink;
import io.almanac.InvalidSpecException;
import io.almanac.RefusedException;
import io.almanac.ScheduleComputationException;
import io.almanac.journal.SpecRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
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
 *       reported: a retry's due time, a lease's expiry) in a priority queue and arms one timer for
 *       the earliest: the work per tick is proportional to what is due, not to the number of tasks.
 *   <li>Delivers each fire at least once (ask, retried until acknowledged).
 *   <li>Persists a watermark: every fire due at or before it was acknowledged. After downtime or a
 *       failover it fires the windows due since the watermark as catch-up; each task's catch-up
 *       policy (mode and horizon) decides whether they run or are recorded as missed (R12, R14).
 *   <li>Persists which tasks may have active windows, and wakes them after a restart, so a retry or
 *       a lease expiry is never forgotten (principle 5).
 *   <li>Logs a heartbeat line once a minute (R25).
 * </ul>
 *
 * Triggering and backfill stay separate paths (R11): this actor only says "window W of task T is
 * due"; catch-up runs are rate-limited where they execute (the executor, R17). INTERNAL API.
 */
public final class TriggerActor
    extends EventSourcedBehavior<TriggerActor.Command, Event, State> {

  /** The trigger's persistence id: there is one per cluster. */
  private static final PersistenceId PERSISTENCE_ID = PersistenceId.ofUniqueId(TriggerJournal.PERSISTENCE_ID);

  // ---------------------------------------------------------------------------------------------
  // Protocol

  /** What the trigger is told. */
  public interface Command extends AlmanacSerializable {}

  /**
   * Start (or keep) firing these tasks' windows: every window due after {@code since} (when the
   * registration began, before the tasks stored their specs; null means now), so a window due while
   * the registration was on its way is fired, not lost. The specs are the journal's records of them
   * ({@link SpecRecord#of}), not the API's {@code TaskSpec}, so that nodes of different versions
   * understand each other.
   */
  public record Register(List<SpecRecord> specs, Instant since, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /**
   * A task's next wake-up and whether it has active windows (from its entity, after each change, and
   * in its answer to every fire).
   *
   * @param taskId the task
   * @param nextWake when it must next be woken, or null
   * @param active whether it has active windows
   * @param seq the entity's journal sequence number when it said so: an older one than the trigger
   *     has applied (a fire's answer overtaken by a later report) is ignored
   */
  public record TaskWakes(String taskId, Instant nextWake, boolean active, long seq) implements Command {}

  /**
   * Stop firing and waking this task, for good (persisted, so a restart does not bring it back);
   * sent by the facade after the task's entity recorded its removal. A task not registered is
   * acknowledged.
   */
  public record Remove(String taskId, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** An operator is about to act on a task: remember it may have active windows (persisted first). */
  public record MarkActive(String taskId, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /**
   * The node at {@code node} is shutting down: if the trigger runs there, it stops sending fires and
   * wake-ups (its successor on another node, or after the restart, resumes from the watermark).
   *
   * @param node the address of the node shutting down
   * @param othersStayUp whether, as that node sees it, other members of the cluster are up and stay:
   *     the trigger then records a planned hand-over ({@link TriggerJournal.HandedOver}), so its
   *     successor, if it starts within {@code almanac.trigger.hand-over-timeout}, fires the windows
   *     due meanwhile on time
   * @param replyTo answered once the trigger has stopped firing (and recorded the hand-over)
   */
  public record Quiesce(String node, boolean othersStayUp, ActorRef<Done> replyTo) implements Command {}

  /** Ask for the trigger's liveness and counters (R25). */
  public record GetStatus(ActorRef<TriggerStatus> replyTo, boolean withTaskIds) implements Command {
    /**
     * The status without the registered tasks' ids (the watchdog's and the health check's: their
     * number grows with the tasks, and these ask every few seconds).
     *
     * @param replyTo where the status goes
     */
    public GetStatus(ActorRef<TriggerStatus> replyTo) {
      this(replyTo, false);
    }

    /**
     * @param replyTo where the status goes
     * @return a status request that lists the registered tasks' ids, sorted
     */
    public static GetStatus withTaskIds(ActorRef<TriggerStatus> replyTo) {
      return new GetStatus(replyTo, true);
    }
  }

  /**
   * Which registered tasks listen to events of this type (R9).
   *
   * @param type the event type
   * @param replyTo the task ids, sorted (empty: none listens)
   */
  public record Subscribers(String type, ActorRef<SubscriberList> replyTo) implements Command {}

  /**
   * The answer to {@link Subscribers}.
   *
   * @param taskIds the tasks, sorted
   * @param byEventTime those of them that map events by their event time (they need one)
   */
  public record SubscriberList(List<String> taskIds, List<String> byEventTime) implements AlmanacSerializable {}

  /**
   * Check a registration's dependencies against the registered tasks before anything is stored
   * (R9): refused with the cycle, or the missing upstream task, named.
   *
   * @param specs the specs to register
   * @param replyTo ack, or an error naming the task, the field and the cycle
   */
  public record CheckDependencies(List<SpecRecord> specs, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /**
   * A task succeeded for a window (from its entity): the tasks that depend on it are told (R9).
   *
   * @param taskId the upstream task
   * @param window its window
   * @param start the window's start
   * @param end the window's end
   * @param at when it succeeded
   */
  public record UpstreamDone(String taskId, String window, Instant start, Instant end, Instant at) implements Command {}

  /**
   * The trigger's liveness and counters.
   *
   * @param tasks registered tasks
   * @param queued entries in the due queue
   * @param inFlight fires not yet acknowledged
   * @param watermark every fire due at or before it was acknowledged
   * @param lastTick when the trigger last looked at its queue
   * @param nextTask the task due next, or null
   * @param nextAt when it is due, or null
   * @param firesSent fires sent since start (retries included)
   * @param taskIds the registered task ids, sorted
   * @param ticks how many times this incarnation of the trigger has looked at its queue (its
   *     progress, judged without the wall clock)
   */
  public record TriggerStatus(
      int tasks, int queued, int inFlight, Instant watermark, Instant lastTick, String nextTask, Instant nextAt,
      long firesSent, List<String> taskIds, long ticks)
      implements AlmanacSerializable {}

  private enum Tick implements Command {
    INSTANCE
  }

  private enum HeartbeatLog implements Command {
    INSTANCE
  }

  /** A fire's (or catch-up's) answer: what the task decided, or the error; both null: send again. */
  private record FireDone(FireKey key, String outcome, Throwable error, TaskWakes wakes) implements Command {
    FireDone(FireKey key, String outcome, Throwable error) {
      this(key, outcome, error, null);
    }
  }

  private record WakeDone(String taskId, Throwable error) implements Command {}

  /** Record that a task was set aside (sent to itself, from wherever its schedule failed). */
  private record RecordSetAside(String taskId, String reason) implements Command {}

  // ---------------------------------------------------------------------------------------------
  // Events and state: published in io.almanac.journal.TriggerJournal (the audit reads them)

  // ---------------------------------------------------------------------------------------------
  // In-memory machinery (rebuilt on recovery from the state and the clock)

  private enum Kind {
    CRON,
    WAKE,
    REFIRE
  }

  /** A queue entry; a catch-up after downtime carries all of a task's missed windows in {@code batch}. */
  private record Due(Instant at, long seq, String taskId, Kind kind, DueWindow window, TaskProtocol.FireKind fireKind,
                     List<DueWindow> batch) {
    Due(Instant at, long seq, String taskId, Kind kind, DueWindow window, TaskProtocol.FireKind fireKind) {
      this(at, seq, taskId, kind, window, fireKind, null);
    }
  }

  /**
   * A fire in flight: one window, or a task's catch-up batch (then {@code window} names the batch
   * and {@code dueAt} is its earliest, which holds the watermark back until it is acknowledged).
   */
  private record FireKey(String taskId, String window, Instant dueAt, TaskProtocol.FireKind kind, DueWindow due,
                         List<DueWindow> batch) {}

  /** A task's entries in the queue: at most one cron firing and one wake-up, replaced in place. */
  private static final class Slot {
    SpecRecord spec;
    TaskSchedule schedule;
    Due cron;
    Due wake;
    /** Why the task's schedule was set aside (it threw), or null. */
    String setAside;
    /** The sequence number of the last wake-up report applied. */
    long wakesSeq;
  }

  private final ActorContext<Command> ctx;
  /** The registered tasks' ids, sorted, and the map they were taken from (sorted again when it changes). */
  private List<String> sortedIds = List.of();
  private Map<String, SpecRecord> sortedIdsOf;
  /** Per task: how many registered tasks depend on it. */
  private final Map<String, Integer> dependentCount = new HashMap<>();
  /** Per event type: the tasks that listen to it, and those of them that map events by their event time. */
  private final Map<String, java.util.TreeSet<String>> subscribers = new HashMap<>();
  private final Map<String, java.util.TreeSet<String>> subscribersByEventTime = new HashMap<>();
  private final TimerScheduler<Command> timers;
  private final Clock clock;
  private final TriggerSettings settings;
  private final Duration recentFireGrace;
  private final Function<String, RecipientRef<TaskProtocol.Command>> tasks;
  private final AlertSink alerts;
  private final NodeMeters meters;
  // Ordered by due instant; an entry that is replaced is removed (O(log n)), so the queue holds at
  // most two entries per task plus the catch-up fires being handed over.
  private final TreeSet<Due> queue = new TreeSet<>((a, b) -> {
    int c = a.at().compareTo(b.at());
    return c != 0 ? c : Long.compare(a.seq(), b.seq());
  });
  private final Map<String, Slot> slots = new HashMap<>();
  private final Map<String, FireKey> inFlight = new HashMap<>();
  private final TreeMap<Instant, Integer> inFlightDue = new TreeMap<>();
  private final Set<String> becameActive = new HashSet<>();
  private final Set<String> becameIdle = new HashSet<>();
  /** Who depends on whom (upstream id to dependent ids), for the registered specs it was built from. */
  private final Map<String, List<String>> dependents = new HashMap<>();
  private Map<String, SpecRecord> dependentsOf;
  private long seq;
  private long firesSent;
  private long ticks;
  private Instant lastTick;
  private Instant lastPersist = Instant.EPOCH;
  private Instant watermark;
  private boolean recovered;
  private boolean quiesced;

  /**
   * @param clock where time comes from
   * @param settings the trigger's settings
   * @param taskSettings the tasks' settings (the on-time grace)
   * @param tasks how to reach a task entity by id
   * @return the trigger's behavior
   */
  public static Behavior<Command> create(
      Clock clock, TriggerSettings settings, TaskSettings taskSettings, Function<String, RecipientRef<TaskProtocol.Command>> tasks) {
    return create(clock, settings, taskSettings, tasks, a -> { });
  }

  /**
   * @param clock where time comes from
   * @param settings the trigger's settings
   * @param taskSettings the tasks' settings (the on-time grace)
   * @param tasks how to reach a task entity by id
   * @param alerts where a task set aside is reported
   * @return the trigger's behavior
   */
  public static Behavior<Command> create(Clock clock, TriggerSettings settings, TaskSettings taskSettings,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks, AlertSink alerts) {
    return create(clock, settings, taskSettings, tasks, alerts, NodeMeters.NONE);
  }

  /**
   * @param clock where time comes from
   * @param settings the trigger's settings
   * @param taskSettings the tasks' settings (the on-time grace)
   * @param tasks how to reach a task entity by id
   * @param alerts where a task set aside is reported
   * @param meters the meters of the node it runs on (its fires' answers)
   * @return the trigger's behavior
   */
  public static Behavior<Command> create(Clock clock, TriggerSettings settings, TaskSettings taskSettings,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks, AlertSink alerts, NodeMeters meters) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new TriggerActor(ctx, timers, clock, settings, taskSettings.recentFireGrace(), tasks, alerts, meters)));
  }

  private TriggerActor(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      Clock clock,
      TriggerSettings settings,
      Duration recentFireGrace,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      AlertSink alerts,
      NodeMeters meters) {
    super(PERSISTENCE_ID, SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2));
    this.ctx = ctx;
    this.timers = timers;
    this.clock = Objects.requireNonNull(clock);
    this.settings = settings;
    this.recentFireGrace = recentFireGrace;
    this.tasks = tasks;
    this.alerts = Objects.requireNonNull(alerts, "alerts");
    this.meters = Objects.requireNonNull(meters, "meters");
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

  // ---------------------------------------------------------------------------------------------
  // Recovery: rebuild the queue, catch up what was due while down, wake tasks that were active.

  private void onRecovered(State state) {
    Instant now = clock.instant();
    watermark = state.watermark();
    Instant from = watermark == null ? now : watermark;
    // A planned hand-over (the previous trigger stopped on a node leaving a cluster whose other
    // members stayed up), taken over within the lease time: not downtime, so every window due since
    // the watermark within the grace fires on time (R12 applies to downtime, not to a move). Later
    // than that, nobody took over: the cluster stopped, node after node, and this is its restart.
    boolean handOver = CatchUpPlan.handOverApplies(state.handedOverAt(), now, settings.handOverTimeout());
    int catchUp = 0;
    int onTime = 0;
    int beyondCap = 0;
    // Fresh fires go out first, the catch-up after them, one command per task: a task's mailbox then
    // holds the window due now ahead of its older ones, which it records in one write, so a
    // recovery's backlog does not delay what is due now (R11, R17).
    Map<String, List<DueWindow>> catchUps = new LinkedHashMap<>();
    for (SpecRecord spec : state.tasks().values()) {
      Slot slot = slotFor(spec);
      if (slot.setAside != null) {
        continue;
      }
      List<DueWindow> due;
      try {
        due = dueSince(slot, from, now);
      } catch (ScheduleComputationException e) {
        setAside(slot, e);
        continue;
      }
      if (due.size() == settings.maxCatchUpPerTask() && slot.schedule.dueBetween(from, now, due.size() + 1).size() > due.size()) {
        beyondCap++;
      }
      CatchUpPlan plan = handOver ? CatchUpPlan.afterHandOver(due, now, recentFireGrace)
          : CatchUpPlan.of(due, now, recentFireGrace);
      for (DueWindow w : plan.onTime()) {
        push(new Due(now, seq++, spec.id(), Kind.REFIRE, w, TaskProtocol.FireKind.ON_TIME));
        onTime++;
      }
      catchUp += plan.catchUp().size();
      if (!plan.catchUp().isEmpty()) {
        catchUps.put(spec.id(), plan.catchUp());
      }
      scheduleNext(slot, now);
    }
    catchUps.forEach((taskId, missed) ->
        push(new Due(now, seq++, taskId, Kind.REFIRE, missed.get(0), TaskProtocol.FireKind.CATCH_UP, missed)));
    for (String id : state.active()) {
      if (slots.containsKey(id)) {
        setWake(slots.get(id), now);
      }
    }
    recovered = true;
    lastTick = now;
    ctx.getLog().info("trigger started: {} tasks, watermark {}, {} windows due while down handed over as catch-up, "
            + "{} on time, {} tasks with active windows woken{}{}", state.tasks().size(), watermark, catchUp, onTime,
        state.active().size(), beyondCap == 0 ? "" : ", " + beyondCap + " tasks had more than "
            + settings.maxCatchUpPerTask() + " windows due (only the latest handed over)",
        handOver ? "; taking over from a trigger handed over at " + state.handedOverAt()
            + " (the windows due since, within the on-time grace, fire on time)"
            : state.handedOverAt() == null ? "" : "; the trigger handed over at " + state.handedOverAt() + " had no "
            + "successor within " + settings.handOverTimeout() + " (almanac.trigger.hand-over-timeout): the gap is downtime");
    timers.startTimerWithFixedDelay(HeartbeatLog.INSTANCE, settings.heartbeatInterval());
    ctx.getSelf().tell(Tick.INSTANCE);
  }

  /**
   * The task's windows due in (from, now], at most the latest max-catch-up-per-task of them: older
   * ones stay unfired and the audit reports them (R28). Raise almanac.trigger.max-catch-up-per-task
   * to hand over more.
   */
  private List<DueWindow> dueSince(Slot slot, Instant from, Instant now) {
    int cap = settings.maxCatchUpPerTask();
    List<DueWindow> due = slot.schedule.dueBetween(from, now, cap + 1);
    if (due.size() <= cap) {
      return due;
    }
    List<DueWindow> all = slot.schedule.dueBetween(from, now, Integer.MAX_VALUE);
    return List.copyOf(all.subList(all.size() - cap, all.size()));
  }

  /**
   * The trigger is behind a task's schedule by more than the on-time grace: the wall clock stepped
   * forward (NTP, a VM resumed) or the node was paused. The windows due since are handled as after
   * downtime, not fired one by one as on time: the latest, if recent, fires on time; the older ones
   * go to the task's catch-up policy (R12, R14), each recorded once.
   */
  private void behind(Slot slot, DueWindow first, Instant now) {
    List<DueWindow> due = new ArrayList<>();
    due.add(first);
    try {
      due.addAll(dueSince(slot, first.dueAt(), now));
    } catch (ScheduleComputationException e) {
      setAside(slot, e);
      return;
    }
    if (due.size() > settings.maxCatchUpPerTask()) {
      due = due.subList(due.size() - settings.maxCatchUpPerTask(), due.size());
    }
    CatchUpPlan plan = CatchUpPlan.of(due, now, recentFireGrace);
    ctx.getLog().warn("trigger is {} behind task '{}' (clock stepped forward or the node was paused): {} windows due "
            + "since {} handed over as after downtime: {} on time, {} to the catch-up policy",
        Duration.between(first.dueAt(), now), slot.spec.id(), due.size(), first.dueAt(), plan.onTime().size(),
        plan.catchUp().size());
    for (DueWindow w : plan.onTime()) {
      fire(slot.spec.id(), w, TaskProtocol.FireKind.ON_TIME, null);
    }
    if (!plan.catchUp().isEmpty()) {
      fire(slot.spec.id(), plan.catchUp().get(0), TaskProtocol.FireKind.CATCH_UP, plan.catchUp());
    }
    scheduleNext(slot, now);
  }

  /**
   * A one-shot task registered at or after its instant (or moved to an instant already past) is
   * handed over like a window missed during downtime: fired on time if it is recent (within the
   * on-time grace), else given to the task's catch-up horizon and backfill policy, which run it or
   * record it as missed (R12, R14). Never again once handed over: a re-registration with the same
   * instant is not a new window.
   */
  private void onceAlreadyDue(Slot slot, SpecRecord previous, Instant from, Instant now) {
    SpecRecord spec = slot.spec;
    if (spec.once() == null || spec.once().isAfter(from) || slot.setAside != null
        || (previous != null && spec.once().equals(previous.once()))) {
      return;
    }
    List<DueWindow> due;
    try {
      due = slot.schedule.dueBetween(spec.once().minusNanos(1), spec.once(), 1);
    } catch (ScheduleComputationException e) {
      setAside(slot, e);
      return;
    }
    CatchUpPlan plan = CatchUpPlan.of(due, now, recentFireGrace);
    ctx.getLog().info("one-shot task '{}' registered after its instant {}: {}", spec.id(), spec.once(),
        !plan.onTime().isEmpty() ? "fired on time (within the on-time grace)" : "handed to its catch-up horizon and backfill policy");
    for (DueWindow w : plan.onTime()) {
      fire(spec.id(), w, TaskProtocol.FireKind.ON_TIME, null);
    }
    if (!plan.catchUp().isEmpty()) {
      fire(spec.id(), plan.catchUp().get(0), TaskProtocol.FireKind.CATCH_UP, plan.catchUp());
    }
  }

  private Slot slotFor(SpecRecord spec) {
    Slot slot = slots.computeIfAbsent(spec.id(), id -> new Slot());
    if (!spec.equals(slot.spec)) {
      countDependents(slot.spec, -1);
      countDependents(spec, 1);
      subscribe(slot.spec, false);
      subscribe(spec, true);
      slot.spec = spec;
      slot.setAside = null;
      try {
        slot.schedule = Schedules.of(spec.toSpec());
      } catch (InvalidSpecException e) {
        // a spec stored by an older build whose cron (or policy) today's checks refuse
        slot.schedule = null;
        setAside(slot, e);
      }
    }
    return slot;
  }

  /** Keeps, per event type, the tasks that listen to it (a publish asks for them: no walk over every task). */
  private void subscribe(SpecRecord spec, boolean add) {
    if (spec == null || spec.event() == null) {
      return;
    }
    String type = spec.event().type();
    java.util.TreeSet<String> ids = subscribers.computeIfAbsent(type, t -> new java.util.TreeSet<>());
    java.util.TreeSet<String> byTime = subscribersByEventTime.computeIfAbsent(type, t -> new java.util.TreeSet<>());
    if (add) {
      ids.add(spec.id());
      if (spec.event().mapBy() != io.almanac.EventTrigger.TimeBasis.ARRIVAL_TIME) {
        byTime.add(spec.id());
      }
    } else {
      ids.remove(spec.id());
      byTime.remove(spec.id());
    }
    if (ids.isEmpty()) {
      subscribers.remove(type);
      subscribersByEventTime.remove(type);
    }
  }

  /** Keeps, per task, how many registered tasks depend on it (a fire says whether to announce successes). */
  private void countDependents(SpecRecord spec, int delta) {
    if (spec == null || spec.dependency() == null) {
      return;
    }
    for (String u : spec.dependency().upstream()) {
      dependentCount.merge(u, delta, (a, b) -> a + b == 0 ? null : a + b);
    }
  }

  /**
   * One task's schedule threw: that task alone stops firing (its queue entries go), with an alert
   * and a journal record of why; the trigger and every other task go on (principle 8).
   */
  private void setAside(Slot slot, RuntimeException e) {
    if (slot.setAside != null) {
      return;
    }
    slot.setAside = e.getMessage();
    if (slot.cron != null) {
      queue.remove(slot.cron);
      slot.cron = null;
    }
    if (slot.wake != null) {
      queue.remove(slot.wake);
      slot.wake = null;
    }
    String message = "task '" + slot.spec.id() + "' is set aside: its schedule failed (" + e.getMessage()
        + "); its windows are not fired until a corrected spec is registered; other tasks go on";
    ctx.getLog().error(message);
    try {
      alerts.alert(new Alert(Alert.Kind.TASK_SET_ASIDE, slot.spec.id(), null, message, clock.instant()));
    } catch (RuntimeException ex) {
      ctx.getLog().error("alert sink failed on {}: {}", Alert.Kind.TASK_SET_ASIDE, ex.toString());
    }
    ctx.getSelf().tell(new RecordSetAside(slot.spec.id(), e.getMessage()));
  }

  private void scheduleNext(Slot slot, Instant after) {
    if (slot.cron != null) {
      queue.remove(slot.cron);
      slot.cron = null;
    }
    if (slot.setAside != null) {
      return;
    }
    try {
      slot.schedule.nextAfter(after).ifPresent(d -> {
        slot.cron = new Due(d.dueAt(), seq++, slot.spec.id(), Kind.CRON, d, TaskProtocol.FireKind.ON_TIME);
        push(slot.cron);
      });
    } catch (ScheduleComputationException e) {
      setAside(slot, e);
    }
  }

  private void setWake(Slot slot, Instant at) {
    if (slot.setAside != null) {
      return;
    }
    if (slot.wake != null) {
      if (slot.wake.at().equals(at)) {
        return;
      }
      queue.remove(slot.wake);
    }
    slot.wake = at == null ? null : new Due(at, seq++, slot.spec.id(), Kind.WAKE, null, null);
    if (slot.wake != null) {
      push(slot.wake);
    }
  }

  private void push(Due due) {
    queue.add(due);
  }

  // ---------------------------------------------------------------------------------------------
  // Commands

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Register.class, this::onRegister)
        .onCommand(Remove.class, this::onRemove)
        .onCommand(TaskWakes.class, this::onTaskWakes)
        .onCommand(MarkActive.class, this::onMarkActive)
        .onCommand(GetStatus.class, this::onGetStatus)
        .onCommand(Subscribers.class, this::onSubscribers)
        .onCommand(CheckDependencies.class, this::onCheckDependencies)
        .onCommand(UpstreamDone.class, this::onUpstreamDone)
        .onCommand(Quiesce.class, this::onQuiesce)
        .onCommand(FireDone.class, this::onFireDone)
        .onCommand(WakeDone.class, this::onWakeDone)
        .onCommand(RecordSetAside.class, (s, c) -> Effect().persist(new TaskSetAside(c.taskId(), c.reason(), clock.instant())))
        .onCommand(Tick.class, (s, c) -> onTick(s))
        .onCommand(HeartbeatLog.class, (s, c) -> onHeartbeatLog(s))
        .build();
  }

  private Effect<Event, State> onRegister(State state, Register cmd) {
    List<SpecRecord> changed = new ArrayList<>();
    for (SpecRecord spec : cmd.specs()) {
      if (!spec.equals(state.tasks().get(spec.id()))) {
        changed.add(spec);
      }
    }
    if (changed.isEmpty()) {
      cmd.replyTo().tell(StatusReply.ack());
      return Effect().none();
    }
    Instant now = clock.instant();
    Instant from = cmd.since() == null || cmd.since().isAfter(now) ? now : cmd.since();
    Map<String, SpecRecord> before = state.tasks();
    // Fires due after `from` are not acknowledged yet: when the watermark has moved past it (the
    // trigger ran on while the registration was on its way), it goes back to it with this event, and
    // moves on only once they are (R11, R24).
    return Effect().persist(new TasksRegistered(List.copyOf(changed), now, from)).thenRun(s -> {
      watermark = s.watermark();
      for (SpecRecord spec : changed) {
        Slot slot = slotFor(spec);
        scheduleNext(slot, from);
        onceAlreadyDue(slot, before.get(spec.id()), from, now);
      }
      cmd.replyTo().tell(StatusReply.ack());
      armTimer(now);
    });
  }

  private Effect<Event, State> onRemove(State state, Remove cmd) {
    String id = cmd.taskId();
    if (!state.tasks().containsKey(id) && !state.active().contains(id)) {
      cmd.replyTo().tell(StatusReply.ack());
      return Effect().none();
    }
    return Effect().persist(new TaskRemoved(id, clock.instant())).thenRun(s -> {
      Slot gone = slots.remove(id);
      if (gone != null) {
        countDependents(gone.spec, -1);
        subscribe(gone.spec, false);
      }
      queue.removeIf(d -> d.taskId().equals(id)); // its cron and wake-up, and a catch-up not yet sent (rare: O(queue))
      becameActive.remove(id);
      becameIdle.remove(id);
      ctx.getLog().info("task '{}' removed: its windows are fired no more", id);
      cmd.replyTo().tell(StatusReply.ack());
    });
  }

  private Effect<Event, State> onTaskWakes(State state, TaskWakes cmd) {
    Slot slot = slots.get(cmd.taskId());
    if (slot == null || cmd.seq() < slot.wakesSeq) {
      return Effect().none(); // unknown, or overtaken by a later report
    }
    slot.wakesSeq = cmd.seq();
    if (cmd.nextWake() == null) {
      setWake(slot, null);
    } else {
      setWake(slot, cmd.nextWake());
      armTimer(clock.instant());
    }
    boolean known = state.active().contains(cmd.taskId());
    if (cmd.active()) {
      becameIdle.remove(cmd.taskId());
      if (!known) {
        becameActive.add(cmd.taskId());
      }
    } else {
      becameActive.remove(cmd.taskId());
      if (known) {
        becameIdle.add(cmd.taskId());
      }
    }
    return Effect().none();
  }

  private Effect<Event, State> onMarkActive(State state, MarkActive cmd) {
    if (state.active().contains(cmd.taskId())) {
      cmd.replyTo().tell(StatusReply.ack());
      return Effect().none();
    }
    becameIdle.remove(cmd.taskId());
    becameActive.remove(cmd.taskId());
    return Effect()
        .persist(new Progressed(state.watermark(), List.of(cmd.taskId()), List.of(), clock.instant()))
        .thenReply(cmd.replyTo(), s -> StatusReply.ack());
  }

  private Effect<Event, State> onQuiesce(State state, Quiesce cmd) {
    // The system's address is the cluster member's (the provider's default address); no Cluster needed.
    if (!cmd.node().equals(ctx.getSystem().address().toString())) {
      cmd.replyTo().tell(Done.getInstance()); // another node is shutting down: the trigger stays
      return Effect().none();
    }
    quiesced = true;
    if (!cmd.othersStayUp() || !recovered) {
      ctx.getLog().info("trigger quiesced: its node is shutting down and no other member stays up; watermark {}", watermark);
      cmd.replyTo().tell(Done.getInstance());
      return Effect().none();
    }
    Instant at = clock.instant();
    return Effect().persist(new HandedOver(watermark, cmd.node(), at)).thenRun(s -> {
      ctx.getLog().info("trigger quiesced: its node is leaving, other members stay up: hand-over recorded at {}, watermark {}; "
          + "a successor starting within {} fires the windows due meanwhile on time", at, watermark,
          settings.handOverTimeout());
      cmd.replyTo().tell(Done.getInstance());
    });
  }

  private Effect<Event, State> onGetStatus(State state, GetStatus cmd) {
    Due head = peekLive();
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
    cmd.replyTo().tell(new TriggerStatus(state.tasks().size(), queue.size(), inFlight.size(), state.watermark(), lastTick,
        head == null ? null : head.taskId(), head == null ? null : head.at(), firesSent, ids, ticks));
    return Effect().none();
  }

  private Effect<Event, State> onSubscribers(State state, Subscribers cmd) {
    cmd.replyTo().tell(new SubscriberList(List.copyOf(subscribers.getOrDefault(cmd.type(), new java.util.TreeSet<>())),
        List.copyOf(subscribersByEventTime.getOrDefault(cmd.type(), new java.util.TreeSet<>()))));
    return Effect().none();
  }

  private Effect<Event, State> onCheckDependencies(State state, CheckDependencies cmd) {
    try {
      DependencyGraph.check(state.tasks(), cmd.specs());
      cmd.replyTo().tell(StatusReply.ack());
    } catch (InvalidSpecException e) {
      cmd.replyTo().tell(StatusReply.error(e));
    }
    return Effect().none();
  }

  /** Tells every task that depends on the upstream task (a hint: each checks its upstream itself). */
  private Effect<Event, State> onUpstreamDone(State state, UpstreamDone cmd) {
    if (dependentsOf != state.tasks()) { // rebuilt when the registered specs change (the map is replaced then)
      dependents.clear();
      for (SpecRecord spec : state.tasks().values()) {
        if (spec.dependency() != null) {
          for (String u : spec.dependency().upstream()) {
            dependents.computeIfAbsent(u, k -> new ArrayList<>()).add(spec.id());
          }
        }
      }
      dependentsOf = state.tasks();
    }
    for (String id : dependents.getOrDefault(cmd.taskId(), List.of())) {
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
    while (!queue.isEmpty() && !queue.first().at().isAfter(now) && inFlight.size() < settings.maxInFlight()) {
      Due due = queue.pollFirst();
      Slot slot = slots.get(due.taskId());
      if (slot == null) {
        continue;
      }
      switch (due.kind()) {
        case CRON:
          slot.cron = null;
          if (Duration.between(due.at(), now).compareTo(recentFireGrace) > 0) {
            behind(slot, due.window(), now);
          } else {
            fire(due.taskId(), due.window(), TaskProtocol.FireKind.ON_TIME, null);
            scheduleNext(slot, due.window().dueAt());
          }
          break;
        case REFIRE:
          fire(due.taskId(), due.window(), due.fireKind(), due.batch());
          break;
        case WAKE:
        default:
          slot.wake = null;
          wake(due.taskId());
          break;
      }
    }
    armTimer(now);
    return progress(state, now);
  }

  /** Persists the watermark and activity changes, at most once per persist-interval. */
  private Effect<Event, State> progress(State state, Instant now) {
    Instant candidate = now;
    if (!inFlightDue.isEmpty()) {
      candidate = min(candidate, inFlightDue.firstKey().minusNanos(1));
    }
    Due head = peekLive();
    if (head != null && !head.at().isAfter(now)) {
      candidate = min(candidate, head.at().minusNanos(1));
    }
    if (watermark == null || candidate.isAfter(watermark)) {
      watermark = candidate;
    }
    boolean moved = state.watermark() == null || watermark.isAfter(state.watermark());
    boolean activity = !becameActive.isEmpty() || !becameIdle.isEmpty();
    if ((!moved && !activity) || Duration.between(lastPersist, now).compareTo(settings.persistInterval()) < 0) {
      return Effect().none();
    }
    lastPersist = now;
    List<String> active = List.copyOf(becameActive);
    List<String> idle = List.copyOf(becameIdle);
    becameActive.clear();
    becameIdle.clear();
    return Effect().persist(new Progressed(watermark, active, idle, now));
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private Due peekLive() {
    return queue.isEmpty() ? null : queue.first();
  }

  private void armTimer(Instant now) {
    Due head = peekLive();
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
    timers.startSingleTimer(Tick.INSTANCE, Tick.INSTANCE, delay);
  }

  private void fire(String taskId, DueWindow due, TaskProtocol.FireKind kind, List<DueWindow> batch) {
    String window = batch == null ? due.key().value()
        : "catch-up " + batch.get(0).key().value() + " .. " + batch.get(batch.size() - 1).key().value();
    FireKey key = new FireKey(taskId, window, due.dueAt(), kind, due, batch);
    String id = taskId + "|" + window;
    if (inFlight.containsKey(id)) {
      return;
    }
    inFlight.put(id, key);
    inFlightDue.merge(due.dueAt(), 1, Integer::sum);
    send(key);
  }

  private void send(FireKey key) {
    firesSent++;
    if (key.batch() != null) {
      List<TaskProtocol.DueFire> windows = key.batch().stream()
          .map(d -> new TaskProtocol.DueFire(d.key(), d.window().start(), d.window().end(), d.dueAt()))
          .toList();
      pipe(key, Asks.<TaskProtocol.Command, StatusReply<TaskProtocol.CatchUpOutcome>>ask(tasks.apply(key.taskId()),
          replyTo -> new TaskProtocol.CatchUp(windows, replyTo), settings.askTimeout(), ctx.getSystem().scheduler()),
          TriggerActor::summary);
      return;
    }
    DueWindow d = key.due();
    CompletionStage<StatusReply<TaskProtocol.FireOutcome>> ask = Asks.ask(tasks.apply(key.taskId()),
        replyTo -> new TaskProtocol.Fire(d.key(), d.window().start(), d.window().end(), d.dueAt(), key.kind(),
            dependentCount.containsKey(key.taskId()), replyTo),
        settings.askTimeout(), ctx.getSystem().scheduler());
    ctx.pipeToSelf(ask, (reply, error) -> {
      if (error != null) {
        return new FireDone(key, null, error);
      }
      if (reply.isError()) {
        return new FireDone(key, null, reply.getError());
      }
      TaskProtocol.FireOutcome o = reply.getValue();
      return new FireDone(key, o.decision() + " (" + o.reason() + ")", null, o.wakes()); // its wake-up rides along
    });
  }

  private <R> void pipe(FireKey key, CompletionStage<StatusReply<R>> ask, Function<R, String> describe) {
    ctx.pipeToSelf(ask, (reply, error) -> {
      if (error != null) {
        return new FireDone(key, null, error);
      }
      return reply.isSuccess() ? new FireDone(key, describe.apply(reply.getValue()), null)
          : new FireDone(key, null, reply.getError());
    });
  }

  /** A catch-up's outcomes counted by decision, e.g. "{MISSED=14}". */
  private static String summary(TaskProtocol.CatchUpOutcome outcome) {
    Map<Decision, Integer> counts = new TreeMap<>();
    outcome.outcomes().forEach(o -> counts.merge(o.decision(), 1, Integer::sum));
    return counts.toString();
  }

  private Effect<Event, State> onFireDone(State state, FireDone m) {
    FireKey key = m.key();
    if (m.wakes() != null) {
      onTaskWakes(state, m.wakes()); // changes nothing persisted: its effect is none
    }
    if (m.outcome() != null || m.error() != null) {
      meters.fired(key.kind(), m.outcome() != null ? "acknowledged" : m.error() instanceof RefusedException ? "refused" : "unanswered");
    }
    String id = key.taskId() + "|" + key.window();
    if (m.error() != null) {
      if (m.error() instanceof RefusedException r && r.reason() == RefusedException.Reason.REMOVED) {
        // in flight when the task was removed (its windows are fired no more once the removal reaches here)
        ctx.getLog().info("fire of window '{}' refused by task '{}': {}", key.window(), key.taskId(), m.error().getMessage());
      } else if (m.error() instanceof RefusedException r && r.reason() == RefusedException.Reason.UNKNOWN_TASK) {
        ctx.getLog().warn("fire of window '{}' refused by task '{}': {}", key.window(), key.taskId(), m.error().getMessage());
      } else {
        // At least once: try again; the entity deduplicates by window (R5).
        ctx.getLog().debug("fire of window '{}' of task '{}' not acknowledged ({}); retrying", key.window(), key.taskId(),
            m.error().toString());
        ctx.scheduleOnce(settings.retryDelay(), ctx.getSelf(), new FireDone(key, null, null));
        return Effect().none();
      }
    } else if (m.outcome() == null) {
      // the retry scheduled above; not when the fire is no longer in flight (a retry scheduled by an
      // earlier instance of this trigger, restarted in place, whose fires this one tracks anew)
      if (inFlight.containsKey(id)) {
        send(key);
      }
      return Effect().none();
    }
    if (inFlight.remove(id) != null) {
      inFlightDue.computeIfPresent(key.dueAt(), (k, v) -> v <= 1 ? null : v - 1);
    }
    if (m.outcome() != null) {
      ctx.getLog().debug("task '{}' window '{}': {}", key.taskId(), key.window(), m.outcome());
    }
    return Effect().none();
  }

  private void wake(String taskId) {
    CompletionStage<StatusReply<Done>> ask = Asks.ask(tasks.apply(taskId), TaskProtocol.Wake::new,
        settings.askTimeout(), ctx.getSystem().scheduler());
    ctx.pipeToSelf(ask, (reply, error) -> new WakeDone(taskId, error != null ? error
        : reply.isError() ? new IllegalStateException(reply.getError().getMessage()) : null));
  }

  private Effect<Event, State> onWakeDone(State state, WakeDone m) {
    if (m.error() != null && slots.containsKey(m.taskId())) {
      ctx.getLog().debug("wake of task '{}' not acknowledged ({}); retrying", m.taskId(), m.error().toString());
      Slot slot = slots.get(m.taskId());
      Instant retry = clock.instant().plus(settings.retryDelay());
      if (slot.wake == null || retry.isBefore(slot.wake.at())) {
        setWake(slot, retry);
      }
    }
    return Effect().none();
  }

  private Effect<Event, State> onHeartbeatLog(State state) {
    Due head = peekLive();
    String next = "nothing";
    if (head != null) {
      Slot slot = slots.get(head.taskId());
      ZonedDateTime local = head.at().atZone(slot.schedule.zone());
      next = "'" + head.taskId() + "' " + (head.kind() == Kind.WAKE ? "wake-up" : "window " + head.window().key())
          + " at " + head.at() + " (" + local.toLocalDateTime() + " " + slot.schedule.zone() + ")";
    }
    ctx.getLog().info("trigger heartbeat: {} tasks, {} queued, {} fires in flight, {} tasks active, watermark {}, next: {}",
        state.tasks().size(), queue.size(), inFlight.size(), state.active().size(), watermark, next);
    return Effect().none();
  }

  // ---------------------------------------------------------------------------------------------

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(TasksRegistered.class, (s, e) -> {
          Instant w = s.watermark() != null && e.since() != null && e.since().isBefore(s.watermark())
              ? e.since() : s.watermark();
          State next = s.withTasks(e.specs());
          return new State(next.tasks(), w, next.active(), next.handedOverAt());
        })
        .onEvent(TaskSetAside.class, (s, e) -> s) // a record of why; recovery finds the failure again
        .onEvent(TaskRemoved.class, (s, e) -> s.withoutTask(e.taskId()))
        .onEvent(Progressed.class, (s, e) -> {
          Set<String> active = e.active().isEmpty() && e.idle().isEmpty() ? s.active() : s.activeAfter(e.active(), e.idle());
          boolean moved = s.watermark() == null || (e.watermark() != null && e.watermark().isAfter(s.watermark()));
          // A trigger that fires again (its watermark moved) ends a hand-over; an operator's MarkActive
          // persisted by a quiesced trigger (same watermark) does not.
          return new State(s.tasks(), moved ? e.watermark() : s.watermark(), active, moved ? null : s.handedOverAt());
        })
        .onEvent(HandedOver.class, (s, e) -> new State(s.tasks(), s.watermark(), s.active(), e.at()))
        .build();
  }
}
