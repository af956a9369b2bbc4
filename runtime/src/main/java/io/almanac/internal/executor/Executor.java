package io.almanac.internal.executor;

import io.almanac.AgentJob;
import io.almanac.Alert;
import io.almanac.AlertSink;
import io.almanac.JobResult;
import io.almanac.journal.AttemptLog;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorFence;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.meter.AttemptMdc;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.protocol.Asks;
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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.pattern.StatusReply;
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
 * refused or undelivered report). A job's thread sees its {@link JobContextImpl} and {@link JobRun},
 * which hold the attempt's data and a {@link JobPort}, never an actor.
 *
 * INTERNAL API.
 */
public final class Executor extends AbstractBehavior<ExecutorProtocol.Command> {

  /** The answer to an acquire (or renewal) of the lease of identity {@code id}. */
  private record FenceAnswer(String id, boolean held, Throwable error) implements ExecutorProtocol.Internal {}

  /** The lease of identity {@code id} was lost. */
  private record FenceLost(String id, String cause) implements ExecutorProtocol.Internal {}

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

  record Extended(String key, int attempt, Instant deadline) implements ExecutorProtocol.Internal {}

  private record RetryReport(String taskId, String window, int attempt, JobResult result, Duration took, AttemptLog log,
      int tries, ResultReports.Carries carries, List<String> replayedSteps) implements ExecutorProtocol.Internal {}

  /** The drain's shutdown-grace ended: what still runs is recorded interrupted (NODE_STOPPED) and cancelled. */
  private enum GraceEnded implements ExecutorProtocol.Internal { INSTANCE }

  /** An entity answered an interruption this node reported ({@code error} null when it was recorded or not needed). */
  private record InterruptAnswered(String taskId, String window, int attempt, Throwable error)
      implements ExecutorProtocol.Internal {}

  enum Check implements ExecutorProtocol.Internal {
    INSTANCE,
    /** A membership event of another member, or of this one that changes nothing here. */
    IGNORED
  }


  private final ActorContext<Command> ctx;
  private final Clock clock;
  private final ExecutorSettings settings;
  private final int maxReasonLength;
  private final JobRegistry jobs;
  private final Function<String, RecipientRef<TaskProtocol.Command>> tasks;
  private final ExecutorFence fence;
  private final AlertSink alerts;
  private final LongSupplier nanoTime;
  private final NodeMeters meters;
  private final ThreadPoolExecutor jobThreads;
  private final JobPort port;
  /** The resource pools: only offers of tasks that name pools go through it. */
  private final PoolWaits pools;
  private final Admission<ActorRef<TaskProtocol.Command>> admission;
  private final RunningJobs running = new RunningJobs();
  /** Offers of a window that came while an attempt of it ran here, by window: looked at once it left. */
  private final Map<String, Offer> afterRunning = new HashMap<>();
  private final FenceHold hold;
  /** Results that came while the lease was suspect (a renewal on its way): reported if it is renewed, dropped if lost. */
  private final List<JobDone> heldBack = new ArrayList<>();
  /** The bounds of what an attempt leaves to be read (almanac.executor.job-log). */
  private final JobLogSettings jobLog;
  private int reporting;
  private boolean draining;
  private final List<ActorRef<Done>> drainWaiters = new ArrayList<>();
  /** Interruptions reported to entities and not answered yet: the drain ends after them. */
  private int interrupting;
  private final TimerScheduler<Command> timers;
  private long started;
  private long finished;
  private long cancelledCount;

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
    this.timers = timers;
    this.meters = meters;
    this.ctx = ctx;
    this.clock = clock;
    this.settings = settings;
    this.maxReasonLength = maxReasonLength;
    this.jobs = jobs;
    this.tasks = tasks;
    this.fence = fence;
    this.alerts = alerts;
    this.nanoTime = nanoTime;
    this.jobThreads = JobRun.threads("almanac-job-" + ctx.getSystem().name() + "-");
    this.port = new ExecutorJobPort(tasks, settings.askTimeout(), ctx.getSystem().scheduler(), ctx.getSelf(), fence,
        io.almanac.internal.protocol.StepBounds.from(ctx.getSystem().settings().config()), ctx.getExecutionContext());
    this.jobLog = JobLogSettings.from(ctx.getSystem().settings().config());
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
    this.hold = new FenceHold(fence.configured(), nanoTime.getAsLong());
    this.pools = new PoolWaits(ctx, clock, nanoTime, settings, meters, alerts, poolGate, admission, running, new Pools());
    timers.startTimerWithFixedDelay(Check.INSTANCE, io.almanac.spi.Saturating.timerDelay(settings.checkInterval()));
    pools.declarePools();
    if (fence.configured()) {
      try {
        SelfDowning.subscribe(ctx, NodeDown::new, Check.IGNORED); // a downed (or removed) node runs nothing on
      } catch (RuntimeException e) {
        ctx.getLog().warn("executor: cannot watch this node's membership ({}); a downed node is fenced by its lease only",
            e.toString());
      }
      acquireFence();
    }
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
        .onMessage(Started.class, this::onStarted)
        .onMessage(Declined.class, this::onDeclined)
        .onMessage(TaskRecovered.class, m -> forget(o -> o.taskId().equals(m.taskId())))
        .onMessage(TaskStopped.class, m -> forget(o -> o.task().equals(m.task())))
        .onMessage(CancelAttempt.class, this::onCancel)
        .onMessage(JobDone.class, this::onJobDone)
        .onMessage(JobReturned.class, this::onJobReturned)
        .onMessage(StepUsed.class, m -> {
          pools.costs().onStepUsed(m);
          return this;
        })
        .onMessage(ReportDone.class, this::onReportDone)
        .onMessage(RetryReport.class, this::onRetryReport)
        .onMessage(Extended.class, this::onExtended)
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(Drain.class, this::onDrain)
        .onMessageEquals(GraceEnded.INSTANCE, this::onGraceEnded)
        .onMessage(InterruptAnswered.class, this::onInterruptAnswered)
        .onMessage(FenceAnswer.class, this::onFenceAnswer)
        .onMessage(FenceLost.class, this::onFenceLost)
        .onMessage(NodeDown.class, this::onNodeDown)
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

  /** Logs a line about one attempt, with the attempt's MDC. */
  private void log(Level level, String taskId, String window, int attempt, String format, Object... args) {
    log(ctx, level, taskId, window, attempt, format, args);
  }

  /** Logs a line about one attempt on the executor's log, with the attempt's MDC (on the actor's thread). */
  static void log(ActorContext<Command> ctx, Level level, String taskId, String window, int attempt, String format,
      Object... args) {
    try (AttemptMdc mdc = AttemptMdc.of(taskId, window, attempt)) {
      ctx.getLog().atLevel(level).log(format, args);
    }
  }

  /** What the pools need of this executor. */
  private final class Pools implements PoolWaits.Host {
    @Override
    public void admit() {
      Executor.this.admit();
    }

    @Override
    public void checkDrained() {
      Executor.this.checkDrained();
    }

    @Override
    public void gauges() {
      Executor.this.gauges();
    }

    @Override
    public boolean mayRun() {
      return Executor.this.mayRun();
    }

    @Override
    public boolean draining() {
      return draining;
    }

    @Override
    public void run(AttemptItem item, TaskProtocol.AttemptGrant grant, Instant now, Instant since) {
      Executor.this.run(item, grant, now, since);
    }

    @Override
    public void dropExpired(AttemptItem item, int attempt, Instant leaseUntil) {
      Executor.this.dropExpired(item, attempt, leaseUntil);
    }

    @Override
    public String executorId() {
      return fence.id();
    }
  }

  // ---- the node lease (see ExecutorFence, FenceHold)

  /** Asks for the lease of the identity now (a first acquire, or a renewal after a pause), one ask at a time. */
  private void acquireFence() {
    if (!hold.startAsk()) {
      return;
    }
    String id = fence.id();
    ActorRef<Command> self = ctx.getSelf();
    CompletionStage<Boolean> asked;
    try {
      asked = fence.acquire(cause -> self.tell(new FenceLost(id, cause.map(Throwable::getMessage).orElse("released"))));
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(asked, (held, error) -> new FenceAnswer(id, Boolean.TRUE.equals(held), error));
  }

  private Behavior<Command> onFenceAnswer(FenceAnswer m) {
    FenceHold.Answer answer = hold.answered(m.id().equals(fence.id()), m.held() && m.error() == null);
    if (answer == FenceHold.Answer.STALE) {
      acquireFence(); // the answer for an identity given up since: ask for the new one's
    } else if (answer == FenceHold.Answer.GRANTED || answer == FenceHold.Answer.RENEWED) {
      fence.granted();
      if (answer == FenceHold.Answer.GRANTED) {
        ctx.getLog().info("executor {} holds its lease: jobs may run", m.id());
      }
      if (!heldBack.isEmpty()) {
        ctx.getLog().info("executor {}: lease renewed; reporting the {} results that came while it was suspect", m.id(),
            heldBack.size());
        List<JobDone> results = new ArrayList<>(heldBack);
        heldBack.clear();
        results.forEach(this::reportResult);
      }
      admit();
    } else {
      String why = m.error() != null ? m.error().toString() : "the lease is held by another owner";
      if (answer == FenceHold.Answer.RENEWAL_FAILED) {
        // a renewal after a pause failed: the lease may have been taken; this identity runs nothing more
        lose("its renewal after a pause failed: " + why);
      } else {
        ctx.getLog().warn("executor {} could not take its lease ({}); no job runs here until it does; asking again", m.id(),
            why);
      }
    }
    return this;
  }

  private Behavior<Command> onFenceLost(FenceLost m) {
    if (hold.lossCounts(m.id().equals(fence.id()))) {
      lose("the lease reported it lost: " + m.cause());
    }
    return this;
  }

  private Behavior<Command> onNodeDown(NodeDown m) {
    if (hold.mayEnd()) {
      fence.end();
      if (!draining || !running.isEmpty() || admission.readyCount() != 0) {
        lose(m.why());
      } // else a node that drained and left: nothing to cancel
      hold.end();
    }
    return this;
  }

  /** The lease is not valid although it was held: the same as lost. */
  private boolean fenceBroken() {
    if (hold.broken(fence.valid())) {
      lose("the lease is no longer valid (its holder could not renew it in time: a pause, or the database)");
      return true;
    }
    return false;
  }

  /**
   * The identity now lost its lease: every job it runs is cancelled and nothing is reported for them;
   * what waited for a slot is not run (each window's entity times its attempt out, here once the lost
   * lease has ended, elsewhere the same way); queued offers stay, for the next identity.
   */
  private void lose(String why) {
    String was = fence.lost();
    int jobsCancelled = running.size();
    Instant now = clock.instant();
    for (RunningAttempt r : running.inSlotNow()) {
      r.fenced = true;
      r.cancel();
      cancelledCount++;
      abandon(r, now);
    }
    new ArrayList<>(afterRunning.keySet()).forEach(this::reoffer); // queued for the next identity
    int notRun = admission.dropAdmitted();
    pools.releaseOrphanedPools();
    for (RunningAttempt r : running.abandoned()) {
      r.fenced = true; // a result that comes now would be reported by a node without its lease
    }
    if (!heldBack.isEmpty()) {
      ctx.getLog().warn("executor {}: {} results that came while its lease was suspect are not reported: {}", was,
          heldBack.size(), heldBack.stream().map(d -> d.key() + "#" + d.attempt()).toList());
      heldBack.clear();
    }
    hold.lost(fence.ended());
    ctx.getLog().error("executor {} lost its lease ({}): {} running jobs cancelled, nothing is reported for them, and {} "
        + "started or admitted attempts are not run; their windows are timed out once the lease has ended by its "
        + "clock{}", was, why, jobsCancelled, notRun, hold.state() == FenceHold.State.ENDED
            ? "; this node runs no job again" : "; it goes on as " + fence.id() + " once it holds a new lease");
    gauges();
    checkDrained();
    acquireFence();
  }

  private boolean mayRun() {
    return hold.mayRun(fence.valid());
  }

  // ---- admission (see Admission)

  private Behavior<Command> onOffer(Offer m) {
    String key = m.taskId() + "|" + m.window();
    if (running.holds(key)) {
      // Offered again while an attempt of the window runs here: a wake-up or a recovery (ignored then),
      // or the window's next attempt, offered once its task recorded the end of this one, before the
      // answer to the report that ends it here came back: looked at again when the attempt leaves.
      afterRunning.put(key, m);
      return this;
    }
    switch (admission.offer(m.taskId(), m.window(), m.kind(), m.task(), draining, m.pools())) {
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

  private Behavior<Command> onStarted(Started m) {
    TaskProtocol.AttemptGrant grant = m.grant();
    AttemptItem item = new AttemptItem(grant.taskId(), grant.window(), m.job(), grant.kind(), m.zone());
    boolean reservedHere = admission.endReservation(item.key(), clock.instant());
    fenceBroken();
    if (!mayRun() || (grant.executor() != null && !grant.executor().equals(fence.id()))) {
      // Started under an identity that lost its lease since (or while it has none): never run. Its
      // entity times the attempt out once that identity's lease has ended.
      if (reservedHere) {
        admission.release(item.taskId());
      }
      pools.releasePools(item.key(), item.taskId(), item.window());
      log(Level.WARN, item.taskId(), item.window(), grant.attempt(), "task '{}' window '{}' attempt {} was started under "
          + "executor {}, which does not hold its lease now: not run", item.taskId(), item.window(), grant.attempt(),
          grant.executor());
      checkDrained();
      return this;
    }
    if (draining) {
      // Started in its entity as the node began to stop: handed back (PENDING again, RESUME) instead of run here
      if (reservedHere) {
        admission.release(item.taskId());
      }
      pools.releasePools(item.key(), item.taskId(), item.window());
      interrupt(item.taskId(), item.window(), grant.attempt(), "handed back before it ran: executor " + fence.id()
          + " is stopping", AttemptLog.EMPTY);
      checkDrained();
      return this;
    }
    if (!reservedHere) {
      // Its reservation was freed (its entity restarted in between): the attempt is started in the
      // journal all the same, so it runs (or waits) like any other.
      admission.countUnreserved(item.taskId());
      if (pools.waitForHolds(item, grant)) {
        // its pool holds were given back meanwhile: it runs only once it holds them again
        gauges();
        return this;
      }
    }
    Instant now = clock.instant();
    if (slotFree()) {
      run(item, grant, now, now);
    } else {
      admission.ready(new Admission.Ready(item, grant, now)); // also while draining: the attempt is started in its entity
      meters.startedWaiting(admission.readyCount());
    }
    gauges();
    return this;
  }

  private Behavior<Command> onDeclined(Declined m) {
    if (admission.endReservation(m.taskId() + "|" + m.window())) {
      admission.release(m.taskId());
      pools.releasePools(m.taskId() + "|" + m.window(), m.taskId(), m.window());
      ctx.getLog().debug("window '{}' of task '{}' not started: {}", m.window(), m.taskId(), m.detail());
    }
    checkDrained();
    admit();
    return this;
  }

  /** Frees the reservations and drops the queued offers that match: their entity will not answer. */
  private Behavior<Command> forget(Predicate<Admission.Offered<ActorRef<TaskProtocol.Command>>> which) {
    pools.forget(which);
    checkDrained();
    admit();
    return this;
  }

  /** Runs started attempts while a slot is free, then admits queued windows while there is room. */
  private void admit() {
    admit(clock.instant());
  }

  /** As {@link #admit()}, at {@code now}. */
  private void admit(Instant now) {
    if (!mayRun()) {
      gauges(); // nothing starts without the lease; what is queued waits for it
      return;
    }
    Admission.Ready r;
    while (slotFree() && (r = admission.pollReady()) != null) {
      run(r.item(), r.grant(), now, r.since()); // also while draining: the attempt is started in its entity
    }
    if (!draining) {
      for (Admission.Offered<ActorRef<TaskProtocol.Command>> next
          : admission.admit(running.times(now), pendingResults(), now)) {
        if (next.pooled()) {
          pools.admitted(next, now); // its slot is reserved meanwhile; admitted once the store says every pool has room
        } else {
          next.task().tell(new TaskProtocol.Admitted(WindowKey.of(next.window()), fence.id(), ctx.getSelf().narrow()));
        }
      }
      pools.tellSkipped();
    }
    gauges();
  }

  /** Whether a started attempt may take a slot now (a slot is free, results pending stay in their bound). */
  private boolean slotFree() {
    return admission.slotFree(running.size(), pendingResults());
  }

  /**
   * Results of jobs that ended in their slot not acknowledged by their task yet: reported by the
   * job's thread, or by the executor (its retries, those held back while the lease was suspect).
   */
  private int pendingResults() {
    return running.pendingResults() + reporting + heldBack.size();
  }

  /** The node's gauges of the queues and running jobs, after a change. */
  private void gauges() {
    meters.executor(admission.queuedFresh(), admission.queuedBacklog(), running.size(), running.stuck());
  }

  // ---- running jobs

  /** Runs a started attempt in a free slot; {@code since}: when its start arrived here (null: not known). */
  private void run(AttemptItem item, TaskProtocol.AttemptGrant grant, Instant now, Instant since) {
    if (Admission.leaseEnded(grant.leaseUntil(), now)) {
      dropExpired(item, grant.attempt(), grant.leaseUntil());
      return;
    }
    meters.slotTaken(since == null ? 0 : Math.max(0, Duration.between(since, now).toNanos()));
    admission.slotTaken(now);
    RunningAttempt r = new RunningAttempt(item, grant.attempt(), now, grant.leaseUntil());
    r.pools = pools.poolsOf(item.key()); // null for a task without pools
    running.add(r);
    started++;
    AgentJob job = jobs.find(item.job(), item.taskId());
    // per attempt: DEBUG (20 per-second tasks would log 40 lines a second at INFO); failures stay at INFO
    log(Level.DEBUG, item.taskId(), item.window(), grant.attempt(), "task '{}' window '{}' attempt {} ({}) started, "
        + "lease until {}", item.taskId(), item.window(), grant.attempt(), grant.kind(), grant.leaseUntil());
    JobContextImpl jobContext = new JobContextImpl(port, r, grant, item.zone(), clock, jobLog);
    r.context = jobContext;
    jobThreads.execute(new JobRun(r, job, jobContext, port, clock, maxReasonLength));
  }

  /**
   * A started attempt whose lease ended before it got a slot: not run. Its entity's lease timer
   * times it out; the executor only lets it go.
   */
  private void dropExpired(AttemptItem item, int attempt, Instant leaseUntil) {
    admission.release(item.taskId());
    pools.releasePools(item.key(), item.taskId(), item.window());
    log(Level.WARN, item.taskId(), item.window(), attempt, "task '{}' window '{}' attempt {} waited for a job slot past "
        + "its lease ({}): not run", item.taskId(), item.window(), attempt, leaseUntil);
    checkDrained();
  }

  /**
   * A job ended in its slot and its thread reports its result: the slot (and its task's count, and
   * its pool holds) are given back now, not when the task has recorded the result. The attempt stays
   * tracked until the report's answer (see {@link #onReportDone}).
   */
  private Behavior<Command> onJobReturned(JobReturned m) {
    RunningAttempt r = running.jobReturned(m.key(), m.attempt());
    if (r != null) {
      ended(r, m.result(), m.took());
      admit();
    } // else cancelled as it ended (its slot freed then): the report's answer finds it abandoned
    return this;
  }

  private Behavior<Command> onJobDone(JobDone m) {
    fenceBroken(); // a job that ended after its node lost the lease is not reported
    RunningAttempt r = running.leave(m.key(), m.attempt());
    if (r != null) {
      ended(r, m.result(), m.took());
      deliver(m);
      reoffer(m.key());
      admit();
      return this;
    }
    RunningAttempt gone = running.returned(m.key(), m.attempt());
    if (gone == null) {
      deliver(m); // not known here (cannot happen): its entity decides
      return this;
    }
    pools.threadReturned(gone);
    if (gone.stuck) {
      gauges();
    }
    long after = Duration.between(gone.abandonedAt, clock.instant()).toMillis();
    if (gone.fenced) {
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} ended {} ms after its node "
          + "lost its lease ({}): not reported", m.taskId(), m.window(), m.attempt(), after,
          m.result().succeeded() ? "succeeded" : m.result().reason());
    } else {
      log(Level.INFO, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} returned {} ms after it was "
          + "cancelled{}: reported as a late result", m.taskId(), m.window(), m.attempt(), after,
          gone.stuck ? " (it was stuck)" : "");
      pools.costs().addPoolUsage(gone, m.result()); // a late result's cost counts too
      deliver(m);
    }
    checkDrained();
    return this;
  }

  /**
   * Reports a result, unless the lease is suspect now (a pause was seen and its renewal is on its
   * way): then it waits for the renewal's answer, reported if the lease is still ours, dropped if not.
   */
  private void deliver(JobDone m) {
    if (hold.suspect(fence.valid())) {
      heldBack.add(m);
      return;
    }
    reportResult(m);
  }

  /** An attempt of this window left its slot: an offer of the window that came meanwhile is looked at now. */
  private void reoffer(String key) {
    Offer o = afterRunning.remove(key);
    if (o != null) {
      onOffer(o);
    }
  }

  /**
   * A job that held its slot ended: its slot and its task's count released, its pool holds given back
   * (a pool's max-concurrent counts jobs that run), counted, its slot hold remembered (the prefetch's
   * pace), logged. Its result may still be on its way to its task.
   */
  private void ended(RunningAttempt r, JobResult result, Duration took) {
    admission.release(r.item.taskId());
    pools.jobEnded(r, result);
    finished++;
    Duration held = Duration.between(r.startedAt, clock.instant());
    meters.slotReleased(held.toNanos(), took == null ? 0 : took.toNanos());
    admission.jobEnded(took == null ? held : took, held); // the job and the message of its end, not its result's write
    if (result.succeeded()) {
      log(Level.DEBUG, r.item.taskId(), r.item.window(), r.attempt, "task '{}' window '{}' attempt {} succeeded in {} ms",
          r.item.taskId(), r.item.window(), r.attempt, took.toMillis());
    } else {
      log(Level.INFO, r.item.taskId(), r.item.window(), r.attempt, "task '{}' window '{}' attempt {} failed in {} ms: {}",
          r.item.taskId(), r.item.window(), r.attempt, took.toMillis(), result.reason());
    }
  }

  /**
   * A cancelled job gives up its slot at once, whatever its thread does (see RunningJobs); its pool
   * holds stay until its thread returns (the job may still use the pool: see {@link PoolWaits#threadReturned}).
   */
  private void abandon(RunningAttempt r, Instant now) {
    running.abandon(r, now);
    admission.release(r.item.taskId());
  }

  // ---- reporting results (see ResultReports)

  private void reportResult(JobDone d) {
    report(d.taskId(), d.window(), d.attempt(), d.result(), d.took(), d.log(), 1, ResultReports.Carries.JOB_RESULT,
        d.replayedSteps());
  }

  private void report(String taskId, String window, int attempt, JobResult result, Duration took, AttemptLog log,
      int tries, ResultReports.Carries carries, List<String> replayedSteps) {
    if (tries == 1) {
      reporting++;
    }
    CompletionStage<StatusReply<Done>> ask = Asks.ask(tasks.apply(taskId),
        replyTo -> new TaskProtocol.FinishAttempt(WindowKey.of(window), attempt, result, took, replayedSteps, log, replyTo),
        settings.askTimeout(), ctx.getSystem().scheduler());
    ctx.pipeToSelf(ask, (reply, error) -> new ReportDone(taskId, window, attempt, result, took, log, tries, carries,
        ResultReports.failureOf(reply, error), false, replayedSteps));
  }

  private Behavior<Command> onRetryReport(RetryReport m) {
    if (hold.state() != FenceHold.State.ENDED) {
      report(m.taskId(), m.window(), m.attempt(), m.result(), m.took(), m.log(), m.tries(), m.carries(), m.replayedSteps());
    } else {
      reportEnded();
    }
    return this;
  }

  private Behavior<Command> onReportDone(ReportDone m) {
    if (m.direct()) {
      reporting++; // counted as a report from here on, as report() counts its first try (before admit: still pending)
      RunningAttempt acked = running.acknowledged(m.key(), m.attempt());
      RunningAttempt r = acked != null ? null : running.leave(m.key(), m.attempt()); // its JobReturned not seen
      if (acked != null || r != null) {
        if (r != null) {
          ended(r, m.result(), m.took());
        }
        reoffer(m.key());
        admit();
      } else {
        RunningAttempt gone = running.returned(m.key(), m.attempt()); // given up while its report was on its way
        if (gone != null) {
          pools.threadReturned(gone);
        }
        if (gone != null && gone.stuck) {
          gauges();
        }
      }
    }
    if (m.failure() == null) {
      reportEnded();
      admit(); // a result acknowledged: admissions held back by max-pending-results may go on
      return this;
    }
    ResultReports.Next next = ResultReports.next(m.carries(), m.failure(), m.tries(), settings.reportRetries(),
        settings.reportRetryDelay(), maxReasonLength);
    if (next instanceof ResultReports.ReportRefusal refusal) {
      ctx.getLog().warn("the result of '{}' attempt {} was refused: {}", m.key(), m.attempt(), m.failure().message());
      report(m.taskId(), m.window(), m.attempt(), refusal.failure(), m.took(), m.log(), m.tries() + 1,
          ResultReports.Carries.REFUSAL, m.replayedSteps());
    } else if (next instanceof ResultReports.Retry retry) {
      ctx.getLog().warn("reporting the result of '{}' attempt {} failed (try {}): {}; retrying in {}", m.key(), m.attempt(),
          m.tries(), m.failure().message(), retry.delay());
      ctx.scheduleOnce(io.almanac.spi.Saturating.timerDelay(retry.delay()), ctx.getSelf(),
          new RetryReport(m.taskId(), m.window(), m.attempt(), m.result(), m.took(), m.log(), m.tries() + 1, m.carries(),
              m.replayedSteps()));
    } else {
      reportEnded();
      admit();
      ctx.getLog().error("gave up reporting the result of '{}' attempt {} after {} tries: {}; the lease will expire "
          + "and the retry policy decides", m.key(), m.attempt(), m.tries(), m.failure().message());
    }
    return this;
  }

  private void reportEnded() {
    reporting = Math.max(0, reporting - 1);
    checkDrained();
  }

  // ---- cancels, leases, stuck jobs

  private Behavior<Command> onCancel(CancelAttempt m) {
    String key = m.taskId() + "|" + m.window();
    if (pools.cancelWaitingStart(key, m.taskId(), m.window(), m.attempt())) {
      // waited for its pools: never ran (holds taken meanwhile go back when answered)
      cancelledCount++;
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} cancelled before it ran: {}",
          m.taskId(), m.window(), m.attempt(), m.reason());
      checkDrained();
      admit();
      return this;
    }
    if (admission.cancelReady(m.taskId(), m.window(), m.attempt())) {
      cancelledCount++;
      pools.releasePools(key, m.taskId(), m.window());
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} cancelled before it ran: {}",
          m.taskId(), m.window(), m.attempt(), m.reason());
      checkDrained();
      admit();
      return this;
    }
    RunningAttempt r = running.get(key);
    if (r != null && r.attempt == m.attempt() && r.cancel()) {
      cancelledCount++;
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} cancelled: {}", m.taskId(),
          m.window(), m.attempt(), m.reason());
      abandon(r, clock.instant()); // its entity recorded the cancel: the slot is free whatever the thread does
      reoffer(key);
      checkDrained();
      admit();
    }
    return this;
  }

  private Behavior<Command> onExtended(Extended m) {
    RunningAttempt r = running.get(m.key());
    if (r != null && r.attempt == m.attempt() && m.deadline().isAfter(r.deadline)) {
      r.deadline = m.deadline();
    }
    return this;
  }

  private Behavior<Command> onCheck() {
    Instant now = clock.instant();
    long gap = hold.paused(nanoTime.getAsLong(), settings.checkInterval().plus(fence.pauseLimit()).toNanos());
    if (gap >= 0) {
      // The JVM (or this actor) stood still for longer than the lease's safety margin: the lease may
      // have been taken meanwhile. Nothing starts, and the ledger refuses, until a renewal says it is ours.
      fence.suspect();
      ctx.getLog().warn("executor {} saw no check for {} ms (more than check-interval plus the lease's safety margin, {}): "
          + "its lease is suspect until renewed; nothing starts meanwhile", fence.id(), gap / 1_000_000, fence.pauseLimit());
      acquireFence();
    } else if (!fenceBroken() && hold.acquiring()) {
      acquireFence(); // again, after a failed try
    }
    for (Admission.Ready w : admission.takeExpired(now)) {
      dropExpired(w.item(), w.grant().attempt(), w.grant().leaseUntil());
    }
    for (RunningAttempt r : running.inSlotNow()) {
      if (LeaseExpiry.over(r.deadline, now) && r.cancel()) {
        cancelledCount++;
        log(Level.WARN, r.item.taskId(), r.item.window(), r.attempt, "task '{}' window '{}' attempt {} passed its lease "
            + "({}): cancelled, its slot freed", r.item.taskId(), r.item.window(), r.attempt, r.deadline);
        abandon(r, now);
        reoffer(r.item.key());
      }
    }
    watchAbandoned(now);
    pools.checkPools();
    checkDrained();
    admit();
    return this;
  }

  /** A cancelled job whose thread has not returned within stuck-after is stuck: alerted once, counted. */
  private void watchAbandoned(Instant now) {
    List<RunningAttempt> stuck = running.newlyStuck(now, settings.stuckAfter());
    int count = running.stuck() - stuck.size();
    for (RunningAttempt r : stuck) {
      count++;
      String message = RunningJobs.stuckMessage(r, count, settings.maxStuckJobs());
      log(Level.ERROR, r.item.taskId(), r.item.window(), r.attempt, message);
      try {
        alerts.alert(new Alert(Alert.Kind.JOB_STUCK, r.item.taskId(), r.item.window(), message, now));
      } catch (RuntimeException e) {
        ctx.getLog().error("alert sink failed on {}: {}", Alert.Kind.JOB_STUCK, e.toString());
      }
    }
    gauges();
  }

  // ---- draining and stats

  /**
   * The node stops (coordinated shutdown). At once: nothing more is admitted (queued offers stay
   * PENDING in their entities, for the other nodes or the next start), attempts started here that
   * have not run yet are handed back (recorded interrupted, so they are PENDING again), and running
   * jobs are told ({@code JobContext.isStopping()}). Then it waits up to {@code shutdown-grace} for
   * them to end and report; see {@link #onGraceEnded}.
   */
  private Behavior<Command> onDrain(Drain m) {
    if (!draining) {
      ctx.getLog().info("executor draining: no new attempts; {} running jobs told to stop and given {} to end, {} started "
          + "and waiting for a slot handed back", running.size(), settings.shutdownGrace(), admission.readyCount());
      draining = true; // no more admissions; what is queued stays PENDING in its entity
      Admission.Ready r;
      while ((r = admission.pollReady()) != null) {
        admission.release(r.item().taskId());
        pools.releasePools(r.item().key(), r.item().taskId(), r.item().window());
        interrupt(r.item().taskId(), r.item().window(), r.grant().attempt(), "handed back before it ran: executor "
            + fence.id() + " is stopping", AttemptLog.EMPTY);
      }
      for (RunningAttempt a : running.inSlotNow()) {
        a.stopping.complete(null);
      }
      timers.startSingleTimer(GraceEnded.INSTANCE, io.almanac.spi.Saturating.timerDelay(settings.shutdownGrace()));
    }
    drainWaiters.add(m.replyTo());
    checkDrained();
    return this;
  }

  /**
   * The grace ended: every job still running here is recorded INTERRUPTED (NODE_STOPPED) through its
   * entity (fenced by its attempt number) and cancelled; nothing is reported for it afterwards (its
   * window runs again as RESUME). Never a failure.
   */
  private Behavior<Command> onGraceEnded() {
    Instant now = clock.instant();
    List<RunningAttempt> still = running.inSlotNow();
    if (!still.isEmpty()) {
      ctx.getLog().warn("executor {}: shutdown-grace {} ended with {} jobs running: recorded interrupted (NODE_STOPPED), "
          + "cancelled; their windows run again (RESUME), no retry spent", fence.id(), settings.shutdownGrace(), still.size());
    }
    for (RunningAttempt r : still) {
      r.fenced = true; // its result, should it still come, is not reported: the interruption is its outcome
      interrupt(r.item.taskId(), r.item.window(), r.attempt, "executor " + fence.id() + " stopped: shutdown-grace "
          + settings.shutdownGrace() + " ended with the job running",
          r.context == null ? AttemptLog.EMPTY : r.context.end(null)); // its lines so far; no live report after it
      r.cancel();
      cancelledCount++;
      abandon(r, now);
    }
    pools.handBackWaitingStarts((taskId, window, attempt) -> interrupt(taskId, window, attempt,
        "handed back before it ran: executor " + fence.id() + " is stopping", AttemptLog.EMPTY));
    gauges();
    checkDrained();
    return this;
  }

  /**
   * Reports to the attempt's entity that it was interrupted by this node's stop, with what its job
   * logged so far; the drain waits for the answer.
   */
  private void interrupt(String taskId, String window, int attempt, String detail, AttemptLog log) {
    interrupting++;
    CompletionStage<StatusReply<Done>> asked;
    try {
      asked = Asks.<TaskProtocol.Command, StatusReply<Done>>ask(tasks.apply(taskId), replyTo -> new TaskProtocol.InterruptAttempt(
          WindowKey.of(window), attempt, io.almanac.InterruptCause.NODE_STOPPED, detail, log, replyTo), settings.askTimeout(),
          ctx.getSystem().scheduler());
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(asked, (reply, error) -> new InterruptAnswered(taskId, window, attempt,
        error != null ? error : reply.isError() ? reply.getError() : null));
  }

  private Behavior<Command> onInterruptAnswered(InterruptAnswered m) {
    interrupting = Math.max(0, interrupting - 1);
    if (m.error() != null) {
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {}: its interruption could not "
          + "be recorded ({}): it is found interrupted (NODE_LOST) once this executor is gone", m.taskId(), m.window(),
          m.attempt(), m.error().toString());
    }
    checkDrained();
    return this;
  }

  private void checkDrained() {
    if (draining && running.isEmpty() && running.pendingResults() == 0 && admission.noneAdmitted() && reporting == 0 && heldBack.isEmpty()
        && pools.noStartWaiting() && interrupting == 0 && !drainWaiters.isEmpty()) {
      drainWaiters.forEach(w -> w.tell(Done.getInstance()));
      drainWaiters.clear();
      timers.cancel(GraceEnded.INSTANCE);
      if (hold.state() == FenceHold.State.HELD && running.noneAbandoned()) {
        // Nothing runs here any more: survivors need not wait for the lease to expire. With a job
        // still stuck, the lease is left to expire with the JVM instead.
        hold.end();
        fence.end();
        fence.release();
        ctx.getLog().info("executor {} drained: its lease is released", fence.id());
      }
    }
  }

  private Behavior<Command> onGetStats(GetStats m) {
    m.replyTo().tell(new Stats(running.size(), admission.queuedFresh(), admission.queuedBacklog(), started, finished,
        cancelledCount, running.stuck(), mayRun(), fence.id()));
    return this;
  }
}
