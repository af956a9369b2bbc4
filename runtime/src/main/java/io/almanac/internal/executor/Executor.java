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

  /** The pools' store answered an acquire for an admitted window of a pooled task. */
  private record PoolAnswered(Admission.Offered<ActorRef<TaskProtocol.Command>> offered, io.almanac.spi.PoolStore.Answer answer,
      Throwable error, long nanos) implements ExecutorProtocol.Internal {}

  /** The pools' store answered the declaration of this node's pools. */
  private record PoolsDeclared(Throwable error) implements ExecutorProtocol.Internal {}

  /**
   * The store gave a window's holds back: a pool of these that this node saw full may have room now,
   * so its windows are asked again (not before: an ask that overtook the release would be refused
   * FULL, and wait a poll interval).
   */
  private record PoolReleased(List<String> pools) implements ExecutorProtocol.Internal {}

  /** A release of a window's holds failed: tried again at the next check. */
  private record PoolReleaseFailed(String key, String taskId, String window, Throwable error)
      implements ExecutorProtocol.Internal {}

  /** The store answered the acquire of a started attempt whose holds had been given back before its Started came. */
  private record PoolStartAnswered(AttemptItem item, TaskProtocol.AttemptGrant grant, List<String> pools,
      io.almanac.spi.PoolStore.Answer answer, Throwable error) implements ExecutorProtocol.Internal {}

  /** A started attempt waiting for its pool holds asks the store again. */
  private record PoolStartRetry(AttemptItem item, TaskProtocol.AttemptGrant grant, List<String> pools)
      implements ExecutorProtocol.Internal {}

  /** The store admitted a window after the executor had given up on the acquire (it timed out here). */
  private record PoolLateAdmitted(String key, String taskId, String window) implements ExecutorProtocol.Internal {}

  /** The store's count of the pools' holds, for the gauges. */
  private record PoolsInUse(Map<String, Integer> inUse) implements ExecutorProtocol.Internal {}

  /** A pool's block ended (its pause, its next rate token, the poll interval): queued windows may go. */
  private enum PoolWake implements ExecutorProtocol.Internal { INSTANCE }

  /** The drain's shutdown-grace ended: what still runs is recorded interrupted (NODE_STOPPED) and cancelled. */
  private enum GraceEnded implements ExecutorProtocol.Internal { INSTANCE }

  /** An entity answered an interruption this node reported ({@code error} null when it was recorded or not needed). */
  private record InterruptAnswered(String taskId, String window, int attempt, Throwable error)
      implements ExecutorProtocol.Internal {}

  private enum Check implements ExecutorProtocol.Internal {
    INSTANCE,
    /** A membership event of another member, or of this one that changes nothing here. */
    IGNORED
  }

  private static final org.slf4j.Logger POOL_LOG = org.slf4j.LoggerFactory.getLogger(Executor.class);

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
  private final PoolGate pools;
  private final Admission<ActorRef<TaskProtocol.Command>> admission;
  private final RunningJobs running = new RunningJobs();
  /** Offers of a window that came while an attempt of it ran here, by window: looked at once it left. */
  private final Map<String, Offer> afterRunning = new HashMap<>();
  /** Started attempts whose pool holds were given back before their Started came, by window: their attempt (waiting for them). */
  private final Map<String, Integer> startsWaitingForPools = new HashMap<>();
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
      PoolGate pools) {
    super(ctx);
    this.timers = timers;
    this.pools = pools;
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
    timers.startTimerWithFixedDelay(Check.INSTANCE, io.almanac.spi.Saturating.timerDelay(settings.checkInterval()));
    declarePools();
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
        .onMessage(StepUsed.class, this::onStepUsed)
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
        .onMessage(PoolAnswered.class, this::onPoolAnswered)
        .onMessage(PoolsDeclared.class, this::onPoolsDeclared)
        .onMessage(PoolReleaseFailed.class, this::onPoolReleaseFailed)
        .onMessage(PoolReleased.class, m -> {
          admission.unblockFull(m.pools());
          admit();
          return this;
        })
        .onMessage(PoolLateAdmitted.class, this::onPoolLateAdmitted)
        .onMessage(PoolStartAnswered.class, this::onPoolStartAnswered)
        .onMessage(PoolStartRetry.class, m -> {
          if (Integer.valueOf(m.grant().attempt()).equals(startsWaitingForPools.get(m.item().key()))) {
            askPoolsForStart(m.item(), m.grant(), m.pools());
          }
          return this;
        })
        .onMessage(PoolsInUse.class, m -> {
          meters.pools(m.inUse(), admission.waitingPerPool(), pools.names());
          return this;
        })
        .onMessageEquals(PoolWake.INSTANCE, () -> {
          // one instant for both: a block that had not ended for this admission is woken for again, however
          // the clock moved meanwhile (also a block longer than a timer's delay, a day)
          Instant now = clock.instant();
          admit(now);
          wakeForPools(now);
          return this;
        })
        .onMessageEquals(Check.INSTANCE, this::onCheck)
        .onMessageEquals(Check.IGNORED, () -> this)
        .onSignal(PostStop.class, signal -> {
          jobThreads.shutdown(); // running jobs go on until they end; no new thread is made
          closePools();
          return this;
        })
        .build();
  }

  /** Logs a line about one attempt, with the attempt's MDC. */
  private void log(Level level, String taskId, String window, int attempt, String format, Object... args) {
    try (AttemptMdc mdc = AttemptMdc.of(taskId, window, attempt)) {
      ctx.getLog().atLevel(level).log(format, args);
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
    releaseOrphanedPools();
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
      releasePools(item.key(), item.taskId(), item.window());
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
      releasePools(item.key(), item.taskId(), item.window());
      interrupt(item.taskId(), item.window(), grant.attempt(), "handed back before it ran: executor " + fence.id()
          + " is stopping", AttemptLog.EMPTY);
      checkDrained();
      return this;
    }
    if (!reservedHere) {
      // Its reservation was freed (its entity restarted in between): the attempt is started in the
      // journal all the same, so it runs (or waits) like any other.
      admission.countUnreserved(item.taskId());
      List<String> gaveBack = pools.takeUnheld(item.key());
      if (gaveBack != null && pools.poolsOf(item.key()) == null) {
        // its pool holds were given back meanwhile: it runs only once it holds them again
        startsWaitingForPools.put(item.key(), grant.attempt());
        askPoolsForStart(item, grant, gaveBack);
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
      releasePools(m.taskId() + "|" + m.window(), m.taskId(), m.window());
      ctx.getLog().debug("window '{}' of task '{}' not started: {}", m.window(), m.taskId(), m.detail());
    }
    checkDrained();
    admit();
    return this;
  }

  /** Frees the reservations and drops the queued offers that match: their entity will not answer. */
  private Behavior<Command> forget(Predicate<Admission.Offered<ActorRef<TaskProtocol.Command>>> which) {
    List<String> admittedWithHolds = pools.heldKeys().stream().filter(k -> admission.admitted(k) && !running.holds(k))
        .toList();
    admission.forget(which);
    Instant now = clock.instant();
    for (String key : admittedWithHolds) {
      if (!admission.admitted(key)) { // told Admitted, its holds given back now: a Started still on its way takes them again
        pools.unheld(key, pools.poolsOf(key), now);
      }
    }
    releaseOrphanedPools();
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
        if (next.pooled() && running.threadRuns(next.key())) {
          // an abandoned attempt of the window still runs, in the window's holds: asked once its thread returned
          admission.requeue(next.key(), next.pools().get(0), now.plus(pools.settings().pollInterval()), null);
          wakeForPools(now);
        } else if (next.pooled()) {
          askPools(next, now); // its slot is reserved meanwhile; admitted once the store says every pool has room
        } else {
          next.task().tell(new TaskProtocol.Admitted(WindowKey.of(next.window()), fence.id(), ctx.getSelf().narrow()));
        }
      }
      if (pools.any()) {
        for (Admission.Skipped<ActorRef<TaskProtocol.Command>> k : admission.takeSkipped()) {
          io.almanac.PoolWaitReason why = k.block().reason();
          if (why == null) {
            continue; // passed over while the store could not be asked: not a wait for the pool
          }
          toldWait(k.offered(), k.pool(), why, why == io.almanac.PoolWaitReason.FULL ? null : k.block().until());
        }
      }
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
    releasePools(item.key(), item.taskId(), item.window());
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
    threadReturned(gone);
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
      addPoolUsage(gone, m.result()); // a late result's cost counts too
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
    if (result.throttled()) {
      pausePools(r.item.key(), result);
    }
    addPoolUsage(r, result);
    releasePools(r.item.key(), r.item.taskId(), r.item.window());
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
   * holds stay until its thread returns (the job may still use the pool: see {@link #threadReturned}).
   */
  private void abandon(RunningAttempt r, Instant now) {
    running.abandon(r, now);
    admission.release(r.item.taskId());
  }

  /** The thread of an abandoned attempt returned: its pool holds go back now. */
  private void threadReturned(RunningAttempt gone) {
    String key = gone.item.key();
    if (!running.threadRuns(key) && !running.holds(key) && !admission.admitted(key)) {
      releasePools(key, gone.item.taskId(), gone.item.window());
    }
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

  /** A step's cost counts toward the pools the attempt holds, once, when the step is recorded (a replay adds none). */
  private Behavior<Command> onStepUsed(StepUsed m) {
    RunningAttempt r = running.get(m.key());
    if (r == null || r.attempt != m.attempt()) {
      r = running.pending(m.key(), m.attempt()); // its job ended, its result is on its way
    }
    if (r == null) {
      r = running.abandoned().stream().filter(a -> a.item.key().equals(m.key()) && a.attempt == m.attempt()).findFirst()
          .orElse(null); // cancelled while its step's record was on its way: the task counted it, so do its pools
    }
    if (r != null) {
      addPoolUsage(r, m.usage() == null ? null : m.usage().costMicros());
    }
    return this;
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
          threadReturned(gone);
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
    if (Integer.valueOf(m.attempt()).equals(startsWaitingForPools.get(key))) {
      startsWaitingForPools.remove(key); // waited for its pools: never ran (holds taken meanwhile go back when answered)
      admission.release(m.taskId());
      releasePools(key, m.taskId(), m.window());
      cancelledCount++;
      log(Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {} cancelled before it ran: {}",
          m.taskId(), m.window(), m.attempt(), m.reason());
      checkDrained();
      admit();
      return this;
    }
    if (admission.cancelReady(m.taskId(), m.window(), m.attempt())) {
      cancelledCount++;
      releasePools(key, m.taskId(), m.window());
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
    checkPools();
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

  // ---- resource pools (only windows of tasks that name pools; see PoolGate, PoolStore)

  /** Makes the store know this node's pools (and drop this node's holds of an earlier life); again at each check until it did. */
  private void declarePools() {
    if (!pools.any() || !pools.startDeclare()) {
      return;
    }
    CompletionStage<Void> declared;
    try {
      declared = pools.timed(pools.store().declare(pools.limits()));
    } catch (RuntimeException e) {
      declared = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(declared, (ok, error) -> new PoolsDeclared(error));
  }

  private Behavior<Command> onPoolsDeclared(PoolsDeclared m) {
    pools.declared(m.error() == null);
    if (m.error() != null) {
      ctx.getLog().warn("executor: the pools' store could not declare the pools {} ({}); windows of pooled tasks stay "
          + "queued; asking again at the next check", pools.names(), pools.failure(m.error()));
    } else {
      ctx.getLog().info("executor: pools {} declared in the pools' store ({})", pools.limits(),
          pools.store().getClass().getSimpleName());
      admission.unblockUnknown(); // what waited for the declaration is asked now
      admit();
    }
    return this;
  }

  /** Asks the store for a hold in every pool the admitted window names; its slot stays reserved until the answer. */
  private void askPools(Admission.Offered<ActorRef<TaskProtocol.Command>> next, Instant now) {
    if (!pools.ready()) {
      // the store does not know the pools yet: asked again after the poll interval, no wait recorded (reason null)
      admission.requeue(next.key(), next.pools().get(0), now.plus(pools.settings().pollInterval()), null);
      wakeForPools(now);
      return;
    }
    long start = nanoTime.getAsLong();
    CompletionStage<io.almanac.spi.PoolStore.Answer> asked;
    // a pool's budget stops what would start on schedule (first runs, catch-ups and backfills), not a retry or a manual run
    Map<String, io.almanac.spi.PoolStore.Budget> budgets = next.kind() == io.almanac.RunKind.FIRST
        || next.kind() == io.almanac.RunKind.BACKFILL ? pools.budgets(next.pools(), now) : Map.of();
    ActorRef<Command> self = ctx.getSelf();
    String key = next.key();
    java.util.function.Consumer<io.almanac.spi.PoolStore.Answer> late = answer -> {
      if (answer != null && answer.admitted()) { // on the store's thread: only a message to the actor
        self.tell(new PoolLateAdmitted(key, next.taskId(), next.window()));
      }
    };
    pools.asking(key);
    try {
      asked = pools.timed(budgets.isEmpty() ? pools.store().acquire(next.pools(), next.taskId(), next.window())
          : pools.store().acquire(next.pools(), next.taskId(), next.window(), budgets), late);
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(asked, (answer, error) -> new PoolAnswered(next, answer, error, nanoTime.getAsLong() - start));
  }

  private Behavior<Command> onPoolAnswered(PoolAnswered m) {
    Instant now = clock.instant();
    Admission.Offered<ActorRef<TaskProtocol.Command>> o = m.offered();
    String key = o.key();
    pools.answered(key);
    if (m.error() != null) {
      meters.poolAdmission(o.pools(), "error", m.nanos());
      // The store may have taken the holds all the same (its answer was lost, or comes after the
      // timeout): given back, idempotently; an admission that still comes later is given back then.
      releaseInStore(key, o.taskId(), o.window());
      // A failed store keeps the window queued (never failed): asked again after the poll interval.
      ctx.getLog().warn("executor: the pools' store failed for task '{}' window '{}' ({}): it stays queued, asked again "
          + "in {}", o.taskId(), o.window(), pools.failure(m.error()), pools.settings().pollInterval());
      admission.requeue(key, o.pools().get(0), now.plus(pools.settings().pollInterval()), null); // no wait recorded: the store failed
      wakeForPools(now);
      admit();
      return this;
    }
    io.almanac.spi.PoolStore.Answer a = m.answer();
    meters.poolAdmission(a.admitted() ? o.pools() : List.of(a.pool()),
        a.admitted() ? "admitted" : a.reason().name().toLowerCase(java.util.Locale.ROOT), m.nanos());
    if (a.admitted()) {
      pools.held(key, o.pools());
      if (!admission.admitted(key) || !mayRun() || draining) {
        // freed meanwhile (its entity restarted or stopped, the lease was lost): give the holds back
        if (admission.endReservation(key)) {
          admission.release(o.taskId());
        }
        releasePools(key, o.taskId(), o.window());
        checkDrained();
        admit();
        return this;
      }
      o.task().tell(new TaskProtocol.Admitted(WindowKey.of(o.window()), fence.id(), ctx.getSelf().narrow()));
      return this;
    }
    if (a.reason() == io.almanac.PoolWaitReason.BUDGET) {
      budgetSpent(o, a, now);
      return this;
    }
    boolean full = a.reason() == io.almanac.PoolWaitReason.FULL;
    Instant until = full || a.retryAfter() == null ? now.plus(pools.settings().pollInterval())
        : io.almanac.spi.Saturating.plus(now, a.retryAfter()); // a pause another node stored may lie centuries ahead
    if (admission.requeue(key, a.pool(), until, a.reason())) {
      toldWait(o, a.pool(), a.reason(), full ? null : until);
    }
    wakeForPools(now);
    admit();
    return this;
  }

  /**
   * Tells the window's entity that it waits for the pool: at most once per pool and reason in the
   * window's attempt (see {@link PoolGate#tellWait}), never at every try or flip of the reason.
   */
  private void toldWait(Admission.Offered<ActorRef<TaskProtocol.Command>> o, String pool, io.almanac.PoolWaitReason reason,
      Instant until) {
    if (pools.tellWait(o.key(), pool, reason)) {
      log(Level.DEBUG, o.taskId(), o.window(), 0, "task '{}' window '{}' waits for pool '{}': {}", o.taskId(), o.window(),
          pool, reason);
      o.task().tell(new TaskProtocol.PoolWait(WindowKey.of(o.window()), pool, reason, until));
    }
  }

  /**
   * The store refused the window because a pool's budget for the day is spent: its reservation ends,
   * it leaves this executor, and its entity is told to record it SKIPPED (BUDGET_EXHAUSTED). The
   * pool's BUDGET_EXHAUSTED alert is raised once per pool per day on this node.
   */
  private void budgetSpent(Admission.Offered<ActorRef<TaskProtocol.Command>> o, io.almanac.spi.PoolStore.Answer a,
      Instant now) {
    String key = o.key();
    if (admission.endReservation(key)) {
      admission.release(o.taskId());
    }
    pools.waitEnded(key);
    io.almanac.spi.PoolStore.PoolDay day = a.day() != null ? a.day()
        : io.almanac.spi.PoolStore.PoolDay.empty(a.pool(), pools.dayOf(a.pool(), now));
    io.almanac.PoolSpec spec = pools.spec(a.pool());
    long budget = spec == null || spec.budgetPerDayMicros() == null ? 0 : spec.budgetPerDayMicros();
    java.time.ZoneId zone = spec == null ? java.time.ZoneId.of("UTC") : spec.zone();
    String detail = "pool " + a.pool() + "'s budget for " + day.day() + " (" + zone + ") was spent: cost "
        + io.almanac.Usage.fromMicros(day.costMicros()).toPlainString() + " reached the budget per day "
        + io.almanac.Usage.fromMicros(budget).toPlainString()
        + (day.raisedMicros() > 0 ? " + " + io.almanac.Usage.fromMicros(day.raisedMicros()).toPlainString() + " raised" : "");
    log(Level.DEBUG, o.taskId(), o.window(), 0, "task '{}' window '{}' not started: {}", o.taskId(), o.window(), detail);
    o.task().tell(new TaskProtocol.PoolBudgetSpent(WindowKey.of(o.window()), a.pool(), detail));
    if (pools.alertBudget(a.pool(), day.day())) {
      ctx.getLog().warn("executor: {}; windows of its tasks that would start are skipped until the day ends or an operator "
          + "raises the budget", detail);
      alerts.alert(new Alert(Alert.Kind.BUDGET_EXHAUSTED, o.taskId(), o.window(), detail + "; windows of the tasks naming "
          + "it that would start are skipped (BUDGET_EXHAUSTED) until the day ends; an operator may raise it for the day",
          now));
    }
    checkDrained();
    admit();
  }

  /** An attempt of a pooled task ended with usage: its cost is added to each of its pools' day (the day it ended on). */
  private void addPoolUsage(RunningAttempt r, JobResult result) {
    addPoolUsage(r, result.usage() == null ? null : result.usage().costMicros());
  }

  /** A cost (in micros, or null for none) of an attempt of a pooled task is added to each of its pools' day. */
  private void addPoolUsage(RunningAttempt r, Long costOrNull) {
    if (r.pools == null || r.pools.isEmpty() || costOrNull == null) {
      return;
    }
    Instant now = clock.instant();
    long cost = costOrNull;
    for (String pool : r.pools) {
      meters.poolCost(pool, cost);
      try {
        pools.timed(pools.store().addUsage(pool, pools.dayOf(pool, now), cost)).whenComplete((ok, error) -> {
          if (error != null) { // on the store's thread: logged, never the actor touched
            POOL_LOG.warn("executor: adding cost {} to pool '{}' in the pools' store failed ({}); the pool's day misses it",
                io.almanac.Usage.fromMicros(cost).toPlainString(), pool, pools.failure(error));
          }
        });
      } catch (RuntimeException e) {
        ctx.getLog().warn("executor: adding cost to pool '{}' failed ({}); the pool's day misses it", pool, e.toString());
      }
    }
  }

  /**
   * Wakes the executor when the first pool's block still ahead of {@code now} ends (the timer armed
   * before is replaced: it was for that block or a later one). A block that ended by {@code now} is
   * not woken for: the admission that follows, or the next one once there is room, asks for its
   * windows (see {@link Admission#nextUnblock}).
   */
  private void wakeForPools(Instant now) {
    Instant next = admission.nextUnblock(now);
    if (next != null) {
      Duration in = io.almanac.spi.Saturating.timerDelay(now, next); // at most a day: a far wake is armed again
      pools.timers.startSingleTimer(PoolWake.INSTANCE, PoolWake.INSTANCE, in.isZero() ? Duration.ofMillis(1) : in);
    }
  }

  /** The window's attempt left (ended, cancelled, not run): its holds go back, and a pool it filled may admit here. */
  private void releasePools(String key, String taskId, String window) {
    List<String> held = pools.takeHold(key);
    if (held == null) {
      return;
    }
    releaseInStore(key, taskId, window, held); // once given back, a pool seen full is asked again
  }

  /** Gives the window's holds back in the store (idempotent); a failure is tried again at the next check. */
  private void releaseInStore(String key, String taskId, String window) {
    releaseInStore(key, taskId, window, List.of());
  }

  /**
   * Gives the window's holds back in the store (idempotent); a failure is tried again at the next
   * check. Once they are back, the pools {@code freed} (those this window held here) are no longer
   * taken as full: their windows are asked again.
   */
  private void releaseInStore(String key, String taskId, String window, List<String> freed) {
    CompletionStage<Void> released;
    try {
      released = pools.timed(pools.store().release(taskId, window));
    } catch (RuntimeException e) {
      released = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(released, (ok, error) -> error != null ? new PoolReleaseFailed(key, taskId, window, error)
        : freed.isEmpty() ? Check.IGNORED : new PoolReleased(freed));
  }

  /** Holds whose window is neither admitted nor running here any more (forgotten, dropped): released. */
  private void releaseOrphanedPools() {
    for (String key : pools.orphans(k -> admission.admitted(k) || running.holds(k) || running.threadRuns(k))) {
      int bar = key.indexOf('|');
      releasePools(key, key.substring(0, bar), key.substring(bar + 1));
    }
  }

  /**
   * A started attempt whose holds were given back before its Started came asks for them again (no
   * budget: it is started already); it runs once they are held, or is let go when its lease ends.
   */
  private void askPoolsForStart(AttemptItem item, TaskProtocol.AttemptGrant grant, List<String> wanted) {
    String key = item.key();
    if (Admission.leaseEnded(grant.leaseUntil(), clock.instant())) {
      startsWaitingForPools.remove(key);
      dropExpired(item, grant.attempt(), grant.leaseUntil());
      return;
    }
    ActorRef<Command> self = ctx.getSelf();
    java.util.function.Consumer<io.almanac.spi.PoolStore.Answer> late = answer -> {
      if (answer != null && answer.admitted()) {
        self.tell(new PoolLateAdmitted(key, item.taskId(), item.window()));
      }
    };
    pools.asking(key);
    CompletionStage<io.almanac.spi.PoolStore.Answer> asked;
    try {
      asked = pools.timed(pools.store().acquire(wanted, item.taskId(), item.window()), late);
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(asked, (answer, error) -> new PoolStartAnswered(item, grant, wanted, answer, error));
  }

  private Behavior<Command> onPoolStartAnswered(PoolStartAnswered m) {
    AttemptItem item = m.item();
    String key = item.key();
    pools.answered(key);
    boolean waiting = Integer.valueOf(m.grant().attempt()).equals(startsWaitingForPools.get(key));
    boolean admitted = m.error() == null && m.answer().admitted();
    if (admitted) {
      pools.held(key, m.pools());
    } else if (m.error() != null) {
      releaseInStore(key, item.taskId(), item.window()); // it may have been taken all the same
    }
    if (!waiting) {
      releasePools(key, item.taskId(), item.window()); // cancelled meanwhile: nothing runs in these holds
      return this;
    }
    if (!mayRun()) {
      startsWaitingForPools.remove(key);
      admission.release(item.taskId());
      releasePools(key, item.taskId(), item.window());
      log(Level.WARN, item.taskId(), item.window(), m.grant().attempt(), "task '{}' window '{}' attempt {} waited for its "
          + "pools while its executor lost its lease: not run", item.taskId(), item.window(), m.grant().attempt());
      checkDrained();
      return this;
    }
    if (!admitted) {
      ctx.scheduleOnce(io.almanac.spi.Saturating.timerDelay(pools.settings().pollInterval()), ctx.getSelf(), new PoolStartRetry(item, m.grant(), m.pools()));
      return this;
    }
    startsWaitingForPools.remove(key);
    Instant now = clock.instant();
    if (running.size() < settings.maxConcurrent()) {
      run(item, m.grant(), now, now);
    } else {
      admission.ready(new Admission.Ready(item, m.grant(), now));
      meters.startedWaiting(admission.readyCount());
    }
    gauges();
    return this;
  }

  /**
   * The store admitted a window after its acquire timed out here: nobody here holds it, so it is
   * given back (unless the window holds or asks for its holds again: they are the same holds then).
   */
  private Behavior<Command> onPoolLateAdmitted(PoolLateAdmitted m) {
    if (!pools.knows(m.key())) {
      ctx.getLog().info("executor: the pools' store admitted '{}' after its acquire had timed out here: released",
          m.key());
      releaseInStore(m.key(), m.taskId(), m.window());
    }
    return this;
  }

  private Behavior<Command> onPoolReleaseFailed(PoolReleaseFailed m) {
    ctx.getLog().warn("executor: releasing the pools' holds of '{}' failed ({}); trying again at the next check", m.key(),
        pools.failure(m.error()));
    pools.releaseFailed(m.key(), m.taskId(), m.window());
    return this;
  }

  /** A throttled job pauses its pools, here at once and in the store (so across the cluster). */
  private void pausePools(String key, JobResult result) {
    Instant until = io.almanac.spi.Saturating.plus(clock.instant(), result.retryAfter()); // never overflows, whatever the job said
    for (String pool : pools.pausedBy(result, key, List.of())) {
      admission.block(pool, until, io.almanac.PoolWaitReason.PAUSED);
      try {
        pools.timed(pools.store().pause(pool, result.retryAfter())).whenComplete((ok, error) -> {
          if (error != null) { // on the store's thread: logged, never the actor touched; the pause holds here
            POOL_LOG.warn("executor: pausing pool '{}' in the pools' store failed ({}); it pauses on this node only", pool,
                pools.failure(error));
          }
        });
      } catch (RuntimeException e) {
        ctx.getLog().warn("executor: pausing pool '{}' in the store failed ({}); it pauses on this node only", pool, e.toString());
      }
      // logged once the store was asked (a synchronous store has paused the pool by then)
      ctx.getLog().info("executor: pool '{}' paused for {} (a throttled result of '{}')", pool, result.retryAfter(), key);
    }
    wakeForPools(clock.instant());
  }

  /**
   * The executor stops: the holds of windows with no job running here (admitted, not started) are
   * released; those of jobs whose thread still runs stay (they still use the pool) and expire with
   * the hold TTL, as the store stops renewing when closed.
   */
  private void closePools() {
    if (pools.any()) {
      for (String key : pools.orphans(k -> running.holds(k) || running.threadRuns(k))) {
        int bar = key.indexOf('|');
        try {
          pools.store().release(key.substring(0, bar), key.substring(bar + 1)); // not waited for: the store runs it before it closes
        } catch (RuntimeException e) {
          ctx.getLog().warn("executor: releasing the pools' holds of '{}' at stop failed ({}); they expire", key, e.toString());
        }
      }
    }
    pools.store().close();
  }

  /** At each check: the pools' declaration (if it failed), failed releases again, the gauges. */
  private void checkPools() {
    if (!pools.any()) {
      return;
    }
    declarePools();
    pools.forgetUnheldBefore(clock.instant().minus(Duration.ofMinutes(1)));
    releaseOrphanedPools();
    pools.forgetWaitsUnless(k -> admission.isQueued(k) || admission.admitted(k));
    pools.takeFailedReleases().forEach((key, tw) -> {
      if (pools.poolsOf(key) != null) {
        return; // admitted again since: the store's hold of the window is the new admission's
      }
      if (pools.knows(key)) {
        pools.releaseFailed(key, tw[0], tw[1]); // an acquire is on its way: released after its answer, at a later check
        return;
      }
      releaseInStore(key, tw[0], tw[1]);
    });
    CompletionStage<Map<String, Integer>> inUse;
    try {
      inUse = pools.timed(pools.store().inUse());
    } catch (RuntimeException e) {
      inUse = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(inUse, (m, error) -> new PoolsInUse(error == null ? m : null));
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
        releasePools(r.item().key(), r.item().taskId(), r.item().window());
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
    for (Map.Entry<String, Integer> w : new ArrayList<>(startsWaitingForPools.entrySet())) {
      String[] key = w.getKey().split("\\|", 2);
      startsWaitingForPools.remove(w.getKey());
      admission.release(key[0]);
      releasePools(w.getKey(), key[0], key[1]);
      interrupt(key[0], key[1], w.getValue(), "handed back before it ran: executor " + fence.id() + " is stopping",
          AttemptLog.EMPTY);
    }
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
        && startsWaitingForPools.isEmpty() && interrupting == 0 && !drainWaiters.isEmpty()) {
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
