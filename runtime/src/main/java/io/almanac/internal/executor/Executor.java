package io.almanac.internal.executor;

import io.almanac.AlertSink;
import io.almanac.JobResult;
import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorFence;
import io.almanac.internal.meter.AttemptMdc;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.ExecutorProtocol.CancelAttempt;
import io.almanac.internal.protocol.ExecutorProtocol.Command;
import io.almanac.internal.protocol.ExecutorProtocol.Declined;
import io.almanac.internal.protocol.ExecutorProtocol.Drain;
import io.almanac.internal.protocol.ExecutorProtocol.GetStats;
import io.almanac.internal.protocol.ExecutorProtocol.NodeDown;
import io.almanac.internal.protocol.ExecutorProtocol.Offer;
import io.almanac.internal.protocol.ExecutorProtocol.Started;
import io.almanac.internal.protocol.ExecutorProtocol.Stats;
import io.almanac.internal.protocol.ExecutorProtocol.TaskRecovered;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.AttemptLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.slf4j.event.Level;

/**
 * Runs agent jobs for its node's task entities; the one authority that admits an attempt to start.
 * One per node.
 *
 * <p>The start protocol, the same for fresh fires, retries, catch-ups, backfills and operator runs:
 *
 * <ol>
 *   <li>An entity with a window that may start sends {@link Offer}.
 *   <li>The executor queues it and, when a slot is free (its limits and rate permitting), reserves
 *       the slot and answers {@link TaskProtocol.Admitted}. An offer that asked for it is answered
 *       {@link TaskProtocol.Queued} at once when there is no slot now.
 *   <li>The entity persists the attempt's start (for a fire: in the same journal write as the
 *       window's schedule) and answers {@link Started} with the attempt's grant, or {@link Declined}
 *       when the window may no longer start; either frees the reservation.
 * </ol>
 *
 * A reservation whose entity restarted ({@link TaskRecovered}) or stopped (death watch) is freed at
 * once, so a failed write never holds a slot.
 *
 * <ul>
 *   <li>Jobs run on threads of the executor's own, never on an actor thread; a job that blocks holds
 *       its thread, and a cancelled job that never returns (it ignores interrupts) keeps it while the
 *       slot goes to the next job.
 *   <li>A global and a per-task concurrency limit; fresh windows (first and manual runs) go before
 *       backlog (retries and backfills), and backlog starts are rate-limited by token buckets,
 *       overall and per task (R17).
 *   <li>Each attempt holds a lease that the job extends with heartbeats. Its entity owns the lease's
 *       expiry (a timer there records TIMED_OUT and applies the retry policy, R23); the executor
 *       cancels the job once its deadline has passed (its future cancelled, a blocking job
 *       interrupted) and frees its slot at once, whatever the job's thread does. A cancelled job
 *       whose thread has not returned {@code stuck-after} later is stuck: a JOB_STUCK alert, the
 *       {@code almanac.executor.stuck} gauge, and a node that is not ready past {@code
 *       max-stuck-jobs}. Its result, should it ever come, is reported as a late one.
 *   <li>The node's lease ({@link ExecutorFence}): nothing is admitted or run unless the executor
 *       holds it. A node that finds it lost (the lease says so, a renewal after a pause fails, the
 *       node was downed) cancels every job it runs at once and reports nothing for them; it goes on
 *       under a new identity once it holds a new lease. A gap between two checks longer than the
 *       lease's safety margin (a frozen JVM) makes the lease suspect until renewed: nothing starts
 *       and the ledger refuses meanwhile.
 *   <li>While slots are held briefly, a bounded prefetch of attempts is admitted before a job slot is
 *       free, so the slots do not idle during the start's round trip to the entity: as many as the
 *       slots take in about one job time (the longer of a slot hold and a start's round trip) at
 *       their observed pace, at most max-concurrent x {@code prefetch-per-slot} (see {@link
 *       JobPace#ahead}). A started attempt waits for a slot and is not run if its lease ends first.
 *       With long jobs nothing is admitted ahead.
 *   <li>A job's slot (and its task's count, and its pool holds) is given back when the job ends, not
 *       when its entity has recorded the result ({@link JobReturned}); the attempt is tracked until
 *       the entity answers the report. Results not acknowledged are bounded by {@code
 *       max-pending-results}: at the bound nothing is admitted or taken into a slot.
 *   <li>Results are reported until acknowledged; the entity ignores a repeated report.
 *   <li>The node's drain ({@link Drain}, on coordinated shutdown): nothing more is admitted, started
 *       attempts without a slot are handed back, running jobs are told ({@code JobContext.stopping()});
 *       after {@code shutdown-grace} what still runs is reported to its entity with {@link
 *       TaskProtocol.InterruptAttempt} (NODE_STOPPED: recorded INTERRUPTED and resumed there, no
 *       retry spent) and cancelled, and the drain answers once the entities acknowledged.
 * </ul>
 *
 * The decisions are pure classes this actor owns: {@link Admission} (queues, reservations,
 * the prefetch, limits and rates), {@link FenceHold} (the node lease) and {@link ResultReports} (a
 * refused or undelivered report). The actor dispatches its messages and admits; its helpers, called
 * only on its thread, hold the rest of its state: {@link JobSlots} (running jobs, their ends,
 * cancels, stuck jobs), {@link ResultRouting} (results reported until acknowledged), {@link
 * NodeLease} (the node lease's hold and loss), {@link Draining} (the drain), {@link PoolWaits} and
 * {@link PoolCosts} (the resource pools). A job's thread sees its {@link JobContextImpl} and {@link
 * JobRun}, which hold the attempt's data and a {@link JobPort}, never an actor.
 *
 * INTERNAL API.
 */
public final class Executor extends AbstractBehavior<ExecutorProtocol.Command> {

  /** An entity that held offers or reservations here stopped. */
  private record TaskStopped(ActorRef<TaskProtocol.Command> task) implements ExecutorProtocol.Internal {}

  record JobDone(String taskId, String window, int attempt, JobResult result, Duration took, List<String> replayedSteps,
      AttemptLog log) implements ExecutorProtocol.Internal {
    /** An end of a job that replayed no step and left no log. */
    JobDone(String taskId, String window, int attempt, JobResult result, Duration took) {
      this(taskId, window, attempt, result, took, List.of(), AttemptLog.EMPTY);
    }

    String key() {
      return taskId + "|" + window;
    }
  }

  /**
   * The job of attempt {@code attempt} ended in its slot and its thread is reporting the result to
   * its task: the slot is given back now; the attempt is tracked until the report's answer ({@link
   * ReportDone}, direct).
   */
  record JobReturned(String taskId, String window, int attempt, JobResult result, Duration took)
      implements ExecutorProtocol.Internal {
    String key() {
      return taskId + "|" + window;
    }
  }

  /** A durable step of attempt {@code attempt} was recorded with usage: its cost goes to the attempt's pools. */
  record StepUsed(String key, int attempt, io.almanac.journal.UsageRecord usage) implements ExecutorProtocol.Internal {}

  /**
   * A report's answer: {@code failure} is null when it got through. {@code direct}: the job's own
   * thread reported its result as it ended (it told the executor first, {@link JobReturned}, which
   * freed the slot), so this is also the news that the result is acknowledged or not.
   */
  record ReportDone(String taskId, String window, int attempt, JobResult result, Duration took, AttemptLog log, int tries,
      ResultReports.Carries carries, ResultReports.Failure failure, boolean direct, List<String> replayedSteps)
      implements ExecutorProtocol.Internal {
    /** A report's answer for an attempt that replayed no step. */
    ReportDone(String taskId, String window, int attempt, JobResult result, Duration took, AttemptLog log, int tries,
        ResultReports.Carries carries, ResultReports.Failure failure, boolean direct) {
      this(taskId, window, attempt, result, took, log, tries, carries, failure, direct, List.of());
    }

    /** A report's answer for an attempt that replayed no step and left no log. */
    ReportDone(String taskId, String window, int attempt, JobResult result, Duration took, int tries,
        ResultReports.Carries carries, ResultReports.Failure failure, boolean direct) {
      this(taskId, window, attempt, result, took, AttemptLog.EMPTY, tries, carries, failure, direct, List.of());
    }

    String key() {
      return taskId + "|" + window;
    }
  }

  /** A job's heartbeat extended the lease of attempt {@code attempt} to {@code deadline}. */
  record Extended(String key, int attempt, Instant deadline) implements ExecutorProtocol.Internal {}

  enum Check implements ExecutorProtocol.Internal {
    INSTANCE,
    /** A membership event of another member, or of this one that changes nothing here. */
    IGNORED
  }

  private final ActorContext<Command> ctx;
  private final Clock clock;
  private final ExecutorFence fence;
  private final NodeMeters meters;
  private final ThreadPoolExecutor jobThreads;
  private final Admission<ActorRef<TaskProtocol.Command>> admission;
  private final RunningJobs running = new RunningJobs();
  /** The resource pools: only offers of tasks that name pools go through it. */
  private final PoolWaits pools;
  private final ResultRouting results;
  private final Draining drain;
  private final JobSlots slots;
  private final NodeLease lease;
  /** When this executor started (the nodes page's "up since"). */
  private final java.time.Instant startedAt;
  private final ExecutorSettings executorSettings;
  /** The spans of attempts admitted and not run yet (empty when the node does not trace). */
  private final AttemptTraces traces;

  /**
   * An executor without a fence, alerts or meters (unit tests).
   *
   * @param clock where time comes from
   * @param settings the executor's settings
   * @param maxReasonLength how long a result's reason may be; a job's longer exception message is shortened ({@code almanac.task.max-reason-length})
   * @param jobs the jobs this node can run
   * @param tasks how to reach a task entity by id (results, heartbeats and effects of jobs)
   * @param executorId this executor's identity (node address and incarnation)
   * @return the executor's behavior
   */
  public static Behavior<Command> create(
      Clock clock,
      ExecutorSettings settings,
      int maxReasonLength,
      JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      String executorId) {
    return create(clock, settings, maxReasonLength, jobs, tasks, ExecutorFence.none(executorId), NodeMeters.NONE,
        a -> { }, System::nanoTime);
  }

  /**
   * An executor without a fence or alerts whose pools' counts live in {@code pools} (tests).
   *
   * @param clock where time comes from
   * @param settings the executor's settings
   * @param maxReasonLength how long a result's reason may be
   * @param jobs the jobs (and pools) this node knows
   * @param tasks how to reach a task entity by id
   * @param executorId this executor's identity
   * @param pools the pools' store
   * @param poolSettings its settings
   * @param meters the node's meters
   * @return the executor's behavior
   */
  public static Behavior<Command> create(Clock clock, ExecutorSettings settings, int maxReasonLength, JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks, String executorId, io.almanac.spi.PoolStore pools,
      PoolSettings poolSettings, NodeMeters meters) {
    return create(clock, settings, maxReasonLength, jobs, tasks, ExecutorFence.none(executorId), meters, a -> { },
        System::nanoTime, pools, poolSettings);
  }

  /**
   * @param clock where time comes from
   * @param settings the executor's settings
   * @param maxReasonLength how long a result's reason may be; a job's longer exception message is shortened ({@code almanac.task.max-reason-length})
   * @param jobs the jobs this node can run
   * @param tasks how to reach a task entity by id (results, heartbeats and effects of jobs)
   * @param fence the node lease the executor holds while it runs jobs, and its identity
   * @param meters the node's meters (its queues and running jobs)
   * @param alerts where JOB_STUCK goes
   * @param nanoTime the monotonic clock a pause is measured on
   * @return the executor's behavior
   */
  public static Behavior<Command> create(
      Clock clock,
      ExecutorSettings settings,
      int maxReasonLength,
      JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      ExecutorFence fence,
      NodeMeters meters,
      AlertSink alerts,
      LongSupplier nanoTime) {
    return create(clock, settings, maxReasonLength, jobs, tasks, fence, meters, alerts, nanoTime, null, PoolSettings.DEFAULT);
  }

  /**
   * As {@link #create(Clock, ExecutorSettings, int, JobRegistry, Function, ExecutorFence, NodeMeters,
   * AlertSink, LongSupplier)}, with the store of the resource pools' counts.
   *
   * @param clock where time comes from
   * @param settings the executor's settings
   * @param maxReasonLength how long a result's reason may be
   * @param jobs the jobs (and pools) this node knows
   * @param tasks how to reach a task entity by id
   * @param fence the node lease
   * @param meters the node's meters
   * @param alerts where JOB_STUCK goes
   * @param nanoTime the monotonic clock
   * @param pools the pools' store, or null for one in this executor's memory
   * @param poolSettings the pools' settings
   * @return the executor's behavior
   */
  public static Behavior<Command> create(
      Clock clock,
      ExecutorSettings settings,
      int maxReasonLength,
      JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      ExecutorFence fence,
      NodeMeters meters,
      AlertSink alerts,
      LongSupplier nanoTime,
      io.almanac.spi.PoolStore pools,
      PoolSettings poolSettings) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new Executor(ctx, timers, clock, settings, maxReasonLength, jobs, tasks, fence, meters, alerts, nanoTime,
            new PoolGate(pools != null ? pools : new InMemoryPoolStore(clock), poolSettings, jobs.pools(), timers))));
  }

  private Executor(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      Clock clock,
      ExecutorSettings settings,
      int maxReasonLength,
      JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      ExecutorFence fence,
      NodeMeters meters,
      AlertSink alerts,
      LongSupplier nanoTime,
      PoolGate poolGate) {
    super(ctx);
    this.traces = new AttemptTraces(io.almanac.internal.trace.AttemptTracing.of(jobs.openTelemetry()));
    this.meters = meters;
    this.ctx = ctx;
    this.clock = clock;
    this.startedAt = clock.instant();
    this.executorSettings = settings;
    this.fence = fence;
    this.jobThreads = JobRun.threads("almanac-job-" + ctx.getSystem().name() + "-");
    JobPort port = new ExecutorJobPort(tasks, settings.askTimeout(), ctx.getSystem().scheduler(), ctx.getSelf(), fence,
        io.almanac.internal.protocol.StepBounds.from(ctx.getSystem().settings().config()), ctx.getExecutionContext());
    JobLogSettings jobLog = JobLogSettings.from(ctx.getSystem().settings().config());
    this.admission = new Admission<>(settings, clock.instant(), new Admission.Watch<>() {
      @Override
      public void watch(ActorRef<TaskProtocol.Command> task) {
        ctx.watchWith(task, new TaskStopped(task));
      }

      @Override
      public void unwatch(ActorRef<TaskProtocol.Command> task) {
        ctx.unwatch(task);
      }
    });
    FenceHold hold = new FenceHold(fence.configured(), nanoTime.getAsLong());
    Host host = new Host();
    this.pools = new PoolWaits(ctx, clock, nanoTime, settings, meters, alerts, poolGate, admission, running, host);
    this.results = new ResultRouting(ctx, settings, maxReasonLength, tasks, fence, hold, host);
    this.drain = new Draining(ctx, timers, clock, settings, tasks, fence, hold, admission, running, pools, results, host);
    this.slots = new JobSlots(ctx, clock, settings, maxReasonLength, jobs, meters, alerts, jobThreads, port, jobLog,
        admission, running, pools, results, drain, host, traces);
    drain.slots(slots);
    this.lease = new NodeLease(ctx, settings, fence, hold, nanoTime, admission, running, pools, results, drain, slots, host);
    timers.startTimerWithFixedDelay(Check.INSTANCE, io.almanac.spi.Saturating.timerDelay(settings.checkInterval()));
    pools.declarePools();
    lease.start();
    ctx.getLog().info("executor {} started: {} concurrent jobs ({} per task), at most {} started ahead of a slot while "
        + "jobs take < {}, "
        + "backlog {} starts/s (burst {}), {} per task; {}", fence.id(), settings.maxConcurrent(),
        settings.maxConcurrentPerTask(), (long) settings.prefetchPerSlot() * settings.maxConcurrent(), settings.prefetchMaxJob(),
        settings.backlogRate(),
        settings.backlogBurst(), settings.backlogRatePerTask(),
        fence.configured() ? "jobs run only while it holds its lease " + ExecutorFence.leaseName(fence.systemName(), fence.id())
            : "no node lease (almanac.executor.fence-lease is empty)");
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Offer.class, this::onOffer)
        .onMessage(Started.class, m -> then(() -> slots.onStarted(m)))
        .onMessage(Declined.class, this::onDeclined)
        .onMessage(TaskRecovered.class, m -> forget(o -> o.taskId().equals(m.taskId())))
        .onMessage(TaskStopped.class, m -> forget(o -> o.task().equals(m.task())))
        .onMessage(CancelAttempt.class, m -> then(() -> slots.onCancel(m)))
        .onMessage(JobDone.class, m -> then(() -> slots.onJobDone(m)))
        .onMessage(JobReturned.class, m -> then(() -> slots.onJobReturned(m)))
        .onMessage(StepUsed.class, m -> then(() -> pools.costs().onStepUsed(m)))
        .onMessage(ReportDone.class, this::onReportDone)
        .onMessage(ResultRouting.RetryReport.class, m -> then(() -> results.onRetryReport(m)))
        .onMessage(Extended.class, m -> then(() -> slots.onExtended(m)))
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(ExecutorProtocol.GetSlots.class, this::onGetSlots)
        .onMessage(Drain.class, m -> then(() -> drain.onDrain(m)))
        .onMessageEquals(Draining.GraceEnded.INSTANCE, () -> then(drain::onGraceEnded))
        .onMessage(Draining.InterruptAnswered.class, m -> then(() -> drain.onInterruptAnswered(m)))
        .onMessage(NodeLease.FenceAnswer.class, m -> then(() -> lease.onFenceAnswer(m)))
        .onMessage(NodeLease.FenceLost.class, m -> then(() -> lease.onFenceLost(m)))
        .onMessage(NodeDown.class, m -> then(() -> lease.onNodeDown(m)))
        .onMessage(PoolWaits.PoolAnswered.class, m -> then(() -> pools.onPoolAnswered(m)))
        .onMessage(PoolWaits.PoolsDeclared.class, m -> then(() -> pools.onPoolsDeclared(m)))
        .onMessage(PoolWaits.PoolReleaseFailed.class, m -> then(() -> pools.onPoolReleaseFailed(m)))
        .onMessage(PoolWaits.PoolReleased.class, m -> then(() -> pools.onReleased(m)))
        .onMessage(PoolWaits.PoolLateAdmitted.class, m -> then(() -> pools.onPoolLateAdmitted(m)))
        .onMessage(PoolWaits.PoolStartAnswered.class, m -> then(() -> pools.onPoolStartAnswered(m)))
        .onMessage(PoolWaits.PoolStartRetry.class, m -> then(() -> pools.onStartRetry(m)))
        .onMessage(PoolWaits.PoolsInUse.class, m -> then(() -> pools.onInUse(m)))
        .onMessageEquals(PoolWaits.PoolWake.INSTANCE, () -> {
          // one instant for both: a block that had not ended for this admission is woken for again, however
          // the clock moved meanwhile (also a block longer than a timer's delay, a day)
          Instant now = clock.instant();
          admit(now);
          pools.wakeForPools(now);
          return this;
        })
        .onMessageEquals(Check.INSTANCE, this::onCheck)
        .onMessageEquals(Check.IGNORED, () -> this)
        .onSignal(PostStop.class, signal -> {
          jobThreads.shutdown(); // running jobs go on until they end; no new thread is made
          pools.closePools();
          return this;
        })
        .build();
  }

  /** Runs a handler that leaves the behavior as it is. */
  private Behavior<Command> then(Runnable handler) {
    handler.run();
    return this;
  }

  /** Logs a line about one attempt on the executor's log, with the attempt's MDC (on the actor's thread). */
  static void log(ActorContext<Command> ctx, Level level, String taskId, String window, int attempt, String format,
      Object... args) {
    try (AttemptMdc mdc = AttemptMdc.of(taskId, window, attempt)) {
      ctx.getLog().atLevel(level).log(format, args);
    }
  }

  /** What the helpers ask of this executor: each goes to the helper or the step that does it. */
  private final class Host implements ExecutorHost {
    @Override
    public void admit() {
      Executor.this.admit();
    }

    @Override
    public void checkDrained() {
      drain.check();
    }

    @Override
    public void gauges() {
      Executor.this.gauges();
    }

    @Override
    public boolean mayRun() {
      return lease.mayRun();
    }

    @Override
    public boolean draining() {
      return drain.draining();
    }

    @Override
    public void run(AttemptItem item, TaskProtocol.AttemptGrant grant, Instant now, Instant since) {
      slots.run(item, grant, now, since);
    }

    @Override
    public void dropExpired(AttemptItem item, int attempt, Instant leaseUntil) {
      slots.dropExpired(item, attempt, leaseUntil);
    }

    @Override
    public String executorId() {
      return fence.id();
    }

    @Override
    public void offer(Offer offer) {
      onOffer(offer);
    }

    @Override
    public boolean fenceBroken() {
      return lease.broken();
    }

    @Override
    public String traceAdmitted(String taskId, String window) {
      return traces.admit(taskId, window);
    }
  }

  // ---- admission (see Admission)

  private Behavior<Command> onOffer(Offer m) {
    String key = m.taskId() + "|" + m.window();
    if (slots.holdWhileRunning(key, m)) {
      return this; // looked at again when the attempt of the window that runs here leaves
    }
    switch (admission.offer(m.taskId(), m.window(), m.kind(), m.task(), drain.draining(), m.pools())) {
      case ADMITTED_ALREADY:
        break;
      case QUEUED_ALREADY:
      case NOT_WHILE_DRAINING: // the window stays PENDING in its entity; it is offered again after the restart
        answerQueued(m);
        gauges();
        break;
      case QUEUED:
        admit();
        if (admission.isQueued(key)) {
          answerQueued(m);
        }
        break;
      default:
        throw new IllegalStateException();
    }
    return this;
  }

  private static void answerQueued(Offer m) {
    if (m.answerIfQueued()) {
      m.task().tell(new TaskProtocol.Queued(WindowKey.of(m.window())));
    }
  }

  private Behavior<Command> onDeclined(Declined m) {
    traces.drop(m.taskId() + "|" + m.window());
    if (admission.endReservation(m.taskId() + "|" + m.window())) {
      admission.release(m.taskId());
      pools.releasePools(m.taskId() + "|" + m.window(), m.taskId(), m.window());
      ctx.getLog().debug("window '{}' of task '{}' not started: {}", m.window(), m.taskId(), m.detail());
    }
    drain.check();
    admit();
    return this;
  }

  /** Frees the reservations and drops the queued offers that match: their entity will not answer. */
  private Behavior<Command> forget(Predicate<Admission.Offered<ActorRef<TaskProtocol.Command>>> which) {
    pools.forget(which);
    traces.prune(admission::admitted);
    drain.check();
    admit();
    return this;
  }

  /** Runs started attempts while a slot is free, then admits queued windows while there is room. */
  private void admit() {
    admit(clock.instant());
  }

  /** As {@link #admit()}, at {@code now}. */
  private void admit(Instant now) {
    if (!lease.mayRun()) {
      gauges(); // nothing starts without the lease; what is queued waits for it
      return;
    }
    Admission.Ready r;
    while (slots.slotFree() && (r = admission.pollReady()) != null) {
      slots.run(r.item(), r.grant(), now, r.since()); // also while draining: the attempt is started in its entity
    }
    if (!drain.draining()) {
      for (Admission.Offered<ActorRef<TaskProtocol.Command>> next
          : admission.admit(running.times(now), slots.pendingResults(), now)) {
        if (next.pooled()) {
          pools.admitted(next, now); // its slot is reserved meanwhile; admitted once the store says every pool has room
        } else {
          next.task().tell(new TaskProtocol.Admitted(WindowKey.of(next.window()), fence.id(), ctx.getSelf().narrow(),
              traces.admit(next.taskId(), next.window())));
        }
      }
      pools.tellSkipped();
    }
    gauges();
  }

  /** The node's gauges of the queues and running jobs, after a change. */
  private void gauges() {
    meters.executor(admission.queuedFresh(), admission.queuedBacklog(), running.size(), running.stuck());
  }

  // ---- results, checks, stats

  /**
   * A report's answer. A direct one (the job's own thread reported its result as it ended) is also
   * the news that the attempt's result is acknowledged or not: its slot is settled first.
   */
  private Behavior<Command> onReportDone(ReportDone m) {
    if (m.direct()) {
      results.directAnswered(); // counted as a report from here on (before admit: still pending)
      slots.reportAnswered(m);
    }
    results.answered(m);
    return this;
  }

  private Behavior<Command> onCheck() {
    Instant now = clock.instant();
    lease.check();
    slots.check(now);
    traces.prune(admission::admitted);
    pools.checkPools();
    drain.check();
    admit();
    return this;
  }

  private Behavior<Command> onGetSlots(ExecutorProtocol.GetSlots m) {
    m.replyTo().tell(new ExecutorProtocol.Slots(fence.id(), lease.mayRun(), startedAt, executorSettings.maxConcurrent(),
        running.size(), admission.queuedFresh(), admission.queuedBacklog(), running.stuck(), admission.waitingPerPool()));
    return this;
  }

  private Behavior<Command> onGetStats(GetStats m) {
    long[] counts = slots.counts();
    m.replyTo().tell(new Stats(running.size(), admission.queuedFresh(), admission.queuedBacklog(), counts[0], counts[1],
        counts[2], running.stuck(), lease.mayRun(), fence.id()));
    return this;
  }
}
