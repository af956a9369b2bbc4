package io.almanac.internal;

import io.almanac.AgentJob;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.pattern.StatusReply;

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
 *   <li>Jobs run on their own dispatcher ({@code almanac.executor.job-dispatcher}), never on an
 *       actor thread.
 *   <li>A global and a per-task concurrency limit; fresh windows (first and manual runs) go before
 *       backlog (retries and backfills), and backlog starts are rate-limited by token buckets,
 *       overall and per task (R17).
 *   <li>Each attempt holds a lease that the job extends with heartbeats. Its entity owns the lease's
 *       expiry (a timer there records TIMED_OUT and applies the retry policy, R23); the executor only
 *       cancels the job once its deadline has passed (its future cancelled, a blocking job
 *       interrupted).
 *   <li>While jobs run short, up to {@code start-ahead} attempts are admitted before a job slot is
 *       free, so the slots do not idle during the start's round trip to the entity (a burst of
 *       short jobs); a started attempt waits for a slot and is not run if its lease ends first.
 *       With long jobs nothing is admitted ahead.
 *   <li>Results are reported until acknowledged; the entity ignores a repeated report.
 * </ul>
 *
 * INTERNAL API.
 */
public final class Executor extends AbstractBehavior<Executor.Command> {

  /** MDC key on the thread that runs a job: the task's id. */
  public static final String MDC_TASK = "almanac.task";

  /** MDC key on the thread that runs a job: the window's key. */
  public static final String MDC_WINDOW = "almanac.window";

  /** MDC key on the thread that runs a job: the attempt's number. */
  public static final String MDC_ATTEMPT = "almanac.attempt";

  /** What the executor is told. */
  public interface Command {}

  /**
   * A window of this task may start (from a task entity of this node): admit it when there is room.
   *
   * @param taskId the task
   * @param window the window
   * @param kind why it runs (fresh windows go before backlog)
   * @param task the entity, to answer
   * @param answerIfQueued whether to answer {@link TaskProtocol.Queued} when there is no slot now
   *     (a fire waits for it before it writes the window's schedule)
   */
  public record Offer(String taskId, String window, RunKind kind, ActorRef<TaskProtocol.Command> task,
      boolean answerIfQueued) implements Command, AlmanacSerializable {}

  /** A task entity's answer to {@link TaskProtocol.Admitted}. */
  public sealed interface AdmissionAnswer extends Command, AlmanacSerializable permits Started, Declined {}

  /**
   * The admitted window's attempt is started in the journal: run it now, or as soon as a slot is
   * free (admitted ahead of a slot).
   *
   * @param job the job's name
   * @param zone the task's zone
   * @param grant the attempt's grant (its number is the fencing token)
   */
  public record Started(String job, String zone, TaskProtocol.AttemptGrant grant) implements AdmissionAnswer {}

  /**
   * The admitted window did not start; its reserved slot is free again.
   *
   * @param taskId the task
   * @param window the window
   * @param reason why, typed
   * @param detail why, in words
   */
  public record Declined(String taskId, String window, io.almanac.RefusedException.Reason reason, String detail)
      implements AdmissionAnswer {}

  /**
   * A task entity recovered (a restart after a failed write, or a new start): the slots reserved for
   * it whose start it never answered are free again, and what it had offered is forgotten (it offers
   * its PENDING windows again).
   *
   * @param taskId the task
   */
  public record TaskRecovered(String taskId) implements Command, AlmanacSerializable {}

  /** Cancel this attempt if it runs here (from a task entity: timed out, cancelled, superseded). */
  public record CancelAttempt(String taskId, String window, int attempt, String reason)
      implements Command, AlmanacSerializable {}

  /**
   * Stop starting work and answer once every running attempt has ended and its result was
   * acknowledged, so a node that shuts down hands over no half-reported result (coordinated
   * shutdown calls this before the task shards stop). Attempts still running when the caller gives
   * up are left to their lease: after a restart the entity times them out at once.
   */
  public record Drain(ActorRef<Done> replyTo) implements Command {}

  /** Ask for the executor's counters. */
  public record GetStats(ActorRef<Stats> replyTo) implements Command {}

  /** The executor's counters. */
  public record Stats(int running, int queuedFresh, int queuedBacklog, long started, long finished, long cancelled)
      implements AlmanacSerializable {}

  /** An attempt its entity has started, waiting for a job slot (start-ahead). */
  private record Ready(Item item, TaskProtocol.AttemptGrant grant) {}

  /** An entity that held offers or reservations here stopped. */
  private record TaskStopped(ActorRef<TaskProtocol.Command> task) implements Command {}

  private record JobDone(String key, int attempt, JobResult result, Duration took) implements Command {}

  private record ReportDone(String key, int attempt, JobResult result, Duration took, int tries, Throwable error)
      implements Command {}

  private record Extended(String key, int attempt, Instant deadline) implements Command {}

  private record RetryReport(String key, int attempt, JobResult result, Duration took, int tries) implements Command {}

  private static final String REFUSED = "result refused: ";

  private enum Check implements Command {
    INSTANCE
  }

  /** A window offered by its entity, queued or admitted (a slot reserved for it). */
  private record Offered(String taskId, String window, RunKind kind, ActorRef<TaskProtocol.Command> task) {
    String key() {
      return taskId + "|" + window;
    }

    boolean fresh() {
      return kind == RunKind.FIRST || kind == RunKind.MANUAL;
    }
  }

  /** A started attempt's window, as it runs here. */
  private record Item(String taskId, String window, String job, RunKind kind, String zone) {
    String key() {
      return taskId + "|" + window;
    }

    boolean fresh() {
      return kind == RunKind.FIRST || kind == RunKind.MANUAL;
    }
  }

  /** One attempt running here. Mutable; touched by the actor and, for the thread, by the job. */
  static final class Running {
    final Item item;
    final int attempt;
    final Instant startedAt;
    final CompletableFuture<Void> cancelled = new CompletableFuture<>();
    volatile Instant deadline;
    private Thread thread;
    private CompletableFuture<JobResult> stage;

    Running(Item item, int attempt, Instant startedAt, Instant deadline) {
      this.item = item;
      this.attempt = attempt;
      this.startedAt = startedAt;
      this.deadline = deadline;
    }

    synchronized void enter() {
      thread = Thread.currentThread();
      if (cancelled.isDone()) {
        thread.interrupt(); // cancelled before the job's thread got here: a blocking job still sees it
      }
    }

    synchronized void leave(CompletionStage<JobResult> s) {
      thread = null;
      stage = s == null ? null : s.toCompletableFuture();
    }

    /** Cancels the job: flag, stage and, while it is inside run(), its thread. */
    synchronized boolean cancel() {
      if (!cancelled.complete(null)) {
        return false;
      }
      if (thread != null) {
        thread.interrupt();
      }
      if (stage != null) {
        stage.cancel(true);
      }
      return true;
    }
  }

  private final ActorContext<Command> ctx;
  private final Clock clock;
  private final ExecutorSettings settings;
  private final TaskSettings taskSettings;
  private final JobRegistry jobs;
  private final Function<String, RecipientRef<TaskProtocol.Command>> tasks;
  private final String executorId;
  private final NodeMeters meters;
  private final java.util.concurrent.Executor jobPool;
  private final ArrayDeque<Offered> fresh = new ArrayDeque<>();
  private final ArrayDeque<Offered> backlog = new ArrayDeque<>();
  private final Map<String, Offered> queued = new HashMap<>();
  /** Admitted windows whose entity has not answered yet: their slots are reserved. */
  private final Map<String, Offered> reserved = new HashMap<>();
  private final ArrayDeque<Ready> ready = new ArrayDeque<>();
  /** Durations of the latest finished jobs (a ring), to tell whether jobs run short (start-ahead). */
  private final Duration[] recentJobs = new Duration[16];
  private int recentJobsNext;
  private final Map<String, Running> running = new HashMap<>();
  /** Per task: reserved, ready and running attempts (the per-task limit). */
  private final Map<String, Integer> admittedPerTask = new HashMap<>();
  /** Per entity: its queued and reserved windows here (an entity is watched while it has any). */
  private final Map<ActorRef<TaskProtocol.Command>, Integer> holdings = new HashMap<>();
  private final Map<String, TokenBucket> taskBuckets = new HashMap<>();
  private final TokenBucket globalBucket;
  private int reporting;
  private boolean draining;
  private final java.util.List<ActorRef<Done>> drainWaiters = new java.util.ArrayList<>();
  private long started;
  private long finished;
  private long cancelledCount;

  /**
   * @param clock where time comes from
   * @param settings the executor's settings
   * @param taskSettings bounds of results (a job's oversized exception message is shortened)
   * @param jobs the jobs this node can run
   * @param tasks how to reach a task entity by id (results, heartbeats and effects of jobs)
   * @param executorId this executor's identity (node address and incarnation)
   * @return the executor's behavior
   */
  public static Behavior<Command> create(
      Clock clock,
      ExecutorSettings settings,
      TaskSettings taskSettings,
      JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      String executorId) {
    return create(clock, settings, taskSettings, jobs, tasks, executorId, NodeMeters.NONE);
  }

  /**
   * @param clock where time comes from
   * @param settings the executor's settings
   * @param taskSettings bounds of results (a job's oversized exception message is shortened)
   * @param jobs the jobs this node can run
   * @param tasks how to reach a task entity by id (results, heartbeats and effects of jobs)
   * @param executorId this executor's identity (node address and incarnation)
   * @param meters the node's meters (its queues and running jobs)
   * @return the executor's behavior
   */
  public static Behavior<Command> create(
      Clock clock,
      ExecutorSettings settings,
      TaskSettings taskSettings,
      JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      String executorId,
      NodeMeters meters) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new Executor(ctx, timers, clock, settings, taskSettings, jobs, tasks, executorId, meters)));
  }

  private Executor(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      Clock clock,
      ExecutorSettings settings,
      TaskSettings taskSettings,
      JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      String executorId,
      NodeMeters meters) {
    super(ctx);
    this.meters = meters;
    this.ctx = ctx;
    this.clock = clock;
    this.settings = settings;
    this.taskSettings = taskSettings;
    this.jobs = jobs;
    this.tasks = tasks;
    this.executorId = executorId;
    this.jobPool = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(settings.jobDispatcher()));
    this.globalBucket = new TokenBucket(settings.backlogRate(), settings.backlogBurst(), clock.instant());
    timers.startTimerWithFixedDelay(Check.INSTANCE, settings.checkInterval());
    ctx.getLog().info("executor {} started: {} concurrent jobs ({} per task), {} admitted ahead while jobs take < {}, "
        + "backlog {} starts/s (burst {}), {} per task", executorId, settings.maxConcurrent(),
        settings.maxConcurrentPerTask(), settings.startAhead(), settings.startAheadMaxJob(), settings.backlogRate(),
        settings.backlogBurst(), settings.backlogRatePerTask());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Offer.class, this::onOffer)
        .onMessage(Started.class, this::onStarted)
        .onMessage(Declined.class, this::onDeclined)
        .onMessage(TaskRecovered.class, this::onTaskRecovered)
        .onMessage(TaskStopped.class, this::onTaskStopped)
        .onMessage(CancelAttempt.class, this::onCancel)
        .onMessage(JobDone.class, this::onJobDone)
        .onMessage(ReportDone.class, this::onReportDone)
        .onMessage(Extended.class, this::onExtended)
        .onMessage(GetStats.class, this::onGetStats)
        .onMessage(Drain.class, this::onDrain)
        .onMessage(RetryReport.class, m -> {
          report(m.key(), m.attempt(), m.result(), m.took(), m.tries());
          return this;
        })
        .onMessageEquals(Check.INSTANCE, this::onCheck)
        .build();
  }

  private Behavior<Command> onOffer(Offer m) {
    Offered offered = new Offered(m.taskId(), m.window(), m.kind(), m.task());
    String key = offered.key();
    if (running.containsKey(key) || reserved.containsKey(key) || isReady(key)) {
      return this; // offered again (a wake-up, a recovery): it is admitted already
    }
    Offered before = queued.get(key);
    if (before != null) {
      if (before.task().equals(m.task())) {
        answerQueued(m);
        return this;
      }
      unqueue(before); // offered by a new incarnation of its entity: answer that one
    }
    if (draining) {
      answerQueued(m); // the window stays PENDING in its entity; it is offered again after the restart
      return this;
    }
    queued.put(key, offered);
    hold(offered.task());
    (offered.fresh() ? fresh : backlog).addLast(offered);
    admit();
    if (queued.containsKey(key)) {
      answerQueued(m);
    }
    return this;
  }

  private static void answerQueued(Offer m) {
    if (m.answerIfQueued()) {
      m.task().tell(new TaskProtocol.Queued(WindowKey.of(m.window())));
    }
  }

  private boolean isReady(String key) {
    for (Ready r : ready) {
      if (r.item().key().equals(key)) {
        return true;
      }
    }
    return false;
  }

  private void unqueue(Offered o) {
    queued.remove(o.key());
    (o.fresh() ? fresh : backlog).remove(o);
    unhold(o.task());
    gauges();
  }

  /** Counts an entity's holdings here; an entity is watched while it holds anything. */
  private void hold(ActorRef<TaskProtocol.Command> task) {
    if (holdings.merge(task, 1, Integer::sum) == 1) {
      ctx.watchWith(task, new TaskStopped(task));
    }
  }

  private void unhold(ActorRef<TaskProtocol.Command> task) {
    Integer left = holdings.computeIfPresent(task, (k, v) -> v <= 1 ? null : v - 1);
    if (left == null) {
      ctx.unwatch(task);
    }
  }

  private Behavior<Command> onStarted(Started m) {
    TaskProtocol.AttemptGrant grant = m.grant();
    Item item = new Item(grant.taskId(), grant.window(), m.job(), grant.kind(), m.zone());
    Offered was = reserved.remove(item.key());
    if (was != null) {
      unhold(was.task());
    } else {
      // Its reservation was freed (its entity restarted in between): the attempt is started in the
      // journal all the same, so it runs (or waits) like any other.
      admittedPerTask.merge(item.taskId(), 1, Integer::sum);
    }
    if (running.size() < settings.maxConcurrent()) {
      run(item, grant, clock.instant());
    } else {
      ready.addLast(new Ready(item, grant)); // also while draining: the attempt is started in its entity
    }
    gauges();
    return this;
  }

  private Behavior<Command> onDeclined(Declined m) {
    Offered was = reserved.remove(m.taskId() + "|" + m.window());
    if (was != null) {
      unhold(was.task());
      release(m.taskId());
      ctx.getLog().debug("window '{}' of task '{}' not started: {}", m.window(), m.taskId(), m.detail());
    }
    checkDrained();
    admit();
    return this;
  }

  private Behavior<Command> onTaskRecovered(TaskRecovered m) {
    forget(o -> o.taskId().equals(m.taskId()));
    return this;
  }

  private Behavior<Command> onTaskStopped(TaskStopped m) {
    forget(o -> o.task().equals(m.task()));
    return this;
  }

  /** Frees the reservations and drops the queued offers that match: their entity will not answer. */
  private void forget(java.util.function.Predicate<Offered> which) {
    for (Iterator<Offered> it = reserved.values().iterator(); it.hasNext(); ) {
      Offered o = it.next();
      if (which.test(o)) {
        it.remove();
        unhold(o.task());
        release(o.taskId());
      }
    }
    for (Offered o : new java.util.ArrayList<>(queued.values())) {
      if (which.test(o)) {
        unqueue(o);
      }
    }
    checkDrained();
    admit();
  }

  /**
   * Admits queued windows while there is room: fresh ones first, then the backlog at its rate. Each
   * admission reserves a slot until the entity answers.
   */
  private void admit() {
    Instant now = clock.instant();
    while (running.size() < settings.maxConcurrent() && !ready.isEmpty()) {
      Ready r = ready.pollFirst();
      run(r.item(), r.grant(), now); // also while draining: the attempt is started in its entity
    }
    if (draining) {
      gauges();
      return;
    }
    int room = room(now);
    while (running.size() + ready.size() + reserved.size() < room) {
      Offered next = take(fresh, false, now);
      if (next == null) {
        next = take(backlog, true, now);
      }
      if (next == null) {
        break;
      }
      reserved.put(next.key(), next);
      admittedPerTask.merge(next.taskId(), 1, Integer::sum);
      next.task().tell(new TaskProtocol.Admitted(WindowKey.of(next.window()), executorId, ctx.getSelf().narrow()));
    }
    gauges();
  }

  /** The node's gauges of the queues and running jobs, after a change. */
  private void gauges() {
    meters.executor(fresh.size(), backlog.size(), running.size());
  }

  private int room(Instant now) {
    return settings.maxConcurrent() + (startAhead(now) ? settings.startAhead() : 0);
  }

  /**
   * Whether attempts may be admitted ahead of a free slot: the last jobs to finish (a full ring of
   * them) and every running one took less than start-ahead-max-job.
   */
  private boolean startAhead(Instant now) {
    if (settings.startAhead() == 0) {
      return false;
    }
    Duration max = settings.startAheadMaxJob();
    for (Duration d : recentJobs) {
      if (d == null || d.compareTo(max) >= 0) {
        return false;
      }
    }
    for (Running r : running.values()) {
      if (Duration.between(r.startedAt, now).compareTo(max) >= 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Takes the first queued window whose task has room (and, for backlog, a token); the entity's
   * holding moves from the queue to the reservation.
   */
  private Offered take(ArrayDeque<Offered> queue, boolean limited, Instant now) {
    Iterator<Offered> it = queue.iterator();
    while (it.hasNext()) {
      Offered o = it.next();
      if (admittedPerTask.getOrDefault(o.taskId(), 0) >= settings.maxConcurrentPerTask()) {
        continue;
      }
      if (limited) {
        if (!globalBucket.available(now)) {
          return null; // nothing in the backlog can start before the next refill
        }
        TokenBucket task = taskBuckets.computeIfAbsent(o.taskId(),
            id -> new TokenBucket(settings.backlogRatePerTask(), settings.backlogBurstPerTask(), now));
        if (!task.available(now)) {
          continue;
        }
        task.take(now);
        globalBucket.take(now);
      }
      it.remove();
      queued.remove(o.key());
      return o; // still held: now as a reservation
    }
    return null;
  }

  private void release(String taskId) {
    admittedPerTask.computeIfPresent(taskId, (k, v) -> v <= 1 ? null : v - 1);
  }

  private void run(Item item, TaskProtocol.AttemptGrant grant, Instant now) {
    if (!now.isBefore(grant.leaseUntil())) {
      dropExpired(item, grant.attempt(), grant.leaseUntil());
      return;
    }
    Running r = new Running(item, grant.attempt(), now, grant.leaseUntil());
    running.put(item.key(), r);
    started++;
    AgentJob job = jobs.find(item.job(), item.taskId());
    // per attempt: DEBUG (20 per-second tasks would log 40 lines a second at INFO); failures stay at INFO
    try (AttemptMdc mdc = AttemptMdc.of(item.taskId(), item.window(), grant.attempt())) {
      ctx.getLog().debug("task '{}' window '{}' attempt {} ({}) started, lease until {}",
          item.taskId(), item.window(), grant.attempt(), grant.kind(), grant.leaseUntil());
    }
    JobContextImpl jobContext = new JobContextImpl(this, r, grant, item.zone());
    ActorRef<Command> self = ctx.getSelf();
    String key = item.key();
    int attempt = grant.attempt();
    Instant startedAt = r.startedAt;
    jobPool.execute(() -> {
      CompletionStage<JobResult> stage;
      r.enter();
      // the job's own log lines, on the thread that runs it, carry the task, window and attempt
      try (AttemptMdc mdc = AttemptMdc.of(item.taskId(), item.window(), attempt)) {
        stage = job == null
            ? CompletableFuture.completedFuture(JobResult.failure(
                "no job named '" + item.job() + "' is registered on this node for task '" + item.taskId() + "'"))
            : job.run(jobContext);
        if (stage == null) {
          stage = CompletableFuture.completedFuture(JobResult.failure("the job returned null instead of a CompletionStage"));
        }
      } catch (Throwable t) {
        stage = CompletableFuture.failedFuture(t);
      } finally {
        r.leave(null);
        Thread.interrupted(); // never hand an interrupted thread back to the pool
      }
      r.leave(stage);
      if (r.cancelled.isDone()) {
        stage.toCompletableFuture().cancel(true);
      }
      stage.whenComplete((result, error) ->
          self.tell(new JobDone(key, attempt, outcome(result, error, r), Duration.between(startedAt, clock.instant()))));
    });
  }

  /**
   * A started attempt whose lease ended before it got a slot: not run. Its entity's lease timer
   * times it out; the executor only lets it go.
   */
  private void dropExpired(Item item, int attempt, Instant leaseUntil) {
    release(item.taskId());
    try (AttemptMdc mdc = AttemptMdc.of(item.taskId(), item.window(), attempt)) {
      ctx.getLog().warn("task '{}' window '{}' attempt {} waited for a job slot past its lease ({}): not run",
          item.taskId(), item.window(), attempt, leaseUntil);
    }
    checkDrained();
  }

  private JobResult outcome(JobResult result, Throwable error, Running r) {
    if (error == null && result != null) {
      return result;
    }
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    String reason;
    if (r.cancelled.isDone()) {
      reason = "cancelled";
    } else if (cause == null) {
      reason = "the job completed without a result";
    } else {
      reason = cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
    int max = taskSettings.maxReasonLength();
    if (reason.length() > max) {
      // An exception message is not the job's chosen result: shorten it visibly rather than lose the failure.
      String marker = " ...[shortened from " + reason.length() + " characters]";
      reason = reason.substring(0, Math.max(0, max - marker.length())) + marker;
    }
    return JobResult.failure(reason);
  }

  private Behavior<Command> onJobDone(JobDone m) {
    Running r = running.remove(m.key());
    if (r != null) {
      release(r.item.taskId());
      finished++;
      recentJobs[recentJobsNext] = m.took();
      recentJobsNext = (recentJobsNext + 1) % recentJobs.length;
      try (AttemptMdc mdc = AttemptMdc.of(r.item.taskId(), r.item.window(), m.attempt())) {
        if (m.result().succeeded()) {
          ctx.getLog().debug("task '{}' window '{}' attempt {} succeeded in {} ms", r.item.taskId(), r.item.window(),
              m.attempt(), m.took().toMillis());
        } else {
          ctx.getLog().info("task '{}' window '{}' attempt {} failed in {} ms: {}", r.item.taskId(), r.item.window(),
              m.attempt(), m.took().toMillis(), m.result().reason());
        }
      }
    }
    report(m.key(), m.attempt(), m.result(), m.took(), 1);
    admit();
    return this;
  }

  private void report(String key, int attempt, JobResult result, Duration took, int tries) {
    if (tries == 1) {
      reporting++;
    }
    int bar = key.indexOf('|');
    String taskId = key.substring(0, bar);
    WindowKey window = WindowKey.of(key.substring(bar + 1));
    CompletionStage<StatusReply<org.apache.pekko.Done>> ask = Asks.ask(tasks.apply(taskId),
        replyTo -> new TaskProtocol.FinishAttempt(window, attempt, result, took, replyTo),
        settings.askTimeout(), ctx.getSystem().scheduler());
    ctx.pipeToSelf(ask, (reply, error) -> {
      if (error != null) {
        return new ReportDone(key, attempt, result, took, tries, error);
      }
      return new ReportDone(key, attempt, result, took, tries,
          reply.isSuccess() ? null : new IllegalArgumentException(reply.getError().getMessage()));
    });
  }

  private Behavior<Command> onReportDone(ReportDone m) {
    if (m.error() == null) {
      reportEnded();
      return this;
    }
    boolean refused = m.error() instanceof IllegalArgumentException;
    if (refused && (m.result().succeeded() || !m.result().reason().startsWith(REFUSED))) {
      // The entity refused the result (e.g. an oversized summary): record the refusal as the failure,
      // so the window is not left RUNNING until its lease expires.
      ctx.getLog().warn("the result of '{}' attempt {} was refused: {}", m.key(), m.attempt(), m.error().getMessage());
      String reason = REFUSED + m.error().getMessage();
      reason = reason.length() > taskSettings.maxReasonLength() ? reason.substring(0, taskSettings.maxReasonLength()) : reason;
      report(m.key(), m.attempt(), JobResult.failure(reason), m.took(), m.tries() + 1);
    } else if (!refused && m.tries() < settings.reportRetries()) {
      Duration delay = settings.reportRetryDelay().multipliedBy(Math.min(m.tries(), 10));
      ctx.getLog().warn("reporting the result of '{}' attempt {} failed (try {}): {}; retrying in {}", m.key(), m.attempt(),
          m.tries(), m.error().getMessage(), delay);
      ctx.scheduleOnce(delay, ctx.getSelf(), new RetryReport(m.key(), m.attempt(), m.result(), m.took(), m.tries() + 1));
    } else {
      reportEnded();
      ctx.getLog().error("gave up reporting the result of '{}' attempt {} after {} tries: {}; the lease will expire "
          + "and the retry policy decides", m.key(), m.attempt(), m.tries(), m.error().getMessage());
    }
    return this;
  }

  private Behavior<Command> onCancel(CancelAttempt m) {
    String key = m.taskId() + "|" + m.window();
    if (ready.removeIf(w -> w.item().key().equals(key) && w.grant().attempt() == m.attempt())) {
      release(m.taskId());
      cancelledCount++;
      try (AttemptMdc mdc = AttemptMdc.of(m.taskId(), m.window(), m.attempt())) {
        ctx.getLog().warn("task '{}' window '{}' attempt {} cancelled before it ran: {}", m.taskId(), m.window(),
            m.attempt(), m.reason());
      }
      checkDrained();
      admit();
      return this;
    }
    Running r = running.get(key);
    if (r != null && r.attempt == m.attempt() && r.cancel()) {
      cancelledCount++;
      try (AttemptMdc mdc = AttemptMdc.of(m.taskId(), m.window(), m.attempt())) {
        ctx.getLog().warn("task '{}' window '{}' attempt {} cancelled: {}", m.taskId(), m.window(), m.attempt(), m.reason());
      }
    }
    return this;
  }

  private Behavior<Command> onExtended(Extended m) {
    Running r = running.get(m.key());
    if (r != null && r.attempt == m.attempt() && m.deadline().isAfter(r.deadline)) {
      r.deadline = m.deadline();
    }
    return this;
  }

  private Behavior<Command> onCheck() {
    Instant now = clock.instant();
    for (Iterator<Ready> it = ready.iterator(); it.hasNext(); ) {
      Ready w = it.next();
      if (!now.isBefore(w.grant().leaseUntil())) {
        it.remove();
        dropExpired(w.item(), w.grant().attempt(), w.grant().leaseUntil());
      }
    }
    for (Running r : running.values()) {
      if (now.isAfter(r.deadline) && r.cancel()) {
        cancelledCount++;
        try (AttemptMdc mdc = AttemptMdc.of(r.item.taskId(), r.item.window(), r.attempt)) {
          ctx.getLog().warn("task '{}' window '{}' attempt {} passed its lease ({}): cancelled", r.item.taskId(),
              r.item.window(), r.attempt, r.deadline);
        }
      }
    }
    admit();
    return this;
  }

  private void reportEnded() {
    reporting = Math.max(0, reporting - 1);
    checkDrained();
  }

  private Behavior<Command> onDrain(Drain m) {
    if (!draining) {
      ctx.getLog().info("executor draining: no new attempts; waiting for {} running, {} started and waiting for a slot, "
          + "and {} results being reported", running.size(), ready.size(), reporting);
    }
    draining = true; // no more admissions; what is queued stays PENDING in its entity
    drainWaiters.add(m.replyTo());
    checkDrained();
    return this;
  }

  private void checkDrained() {
    if (draining && running.isEmpty() && ready.isEmpty() && reserved.isEmpty() && reporting == 0 && !drainWaiters.isEmpty()) {
      drainWaiters.forEach(w -> w.tell(Done.getInstance()));
      drainWaiters.clear();
    }
  }

  private Behavior<Command> onGetStats(GetStats m) {
    m.replyTo().tell(new Stats(running.size(), fresh.size(), backlog.size(), started, finished, cancelledCount));
    return this;
  }

  // ---- used by JobContextImpl (from job threads) ----

  CompletionStage<Instant> heartbeat(Running r) {
    WindowKey window = WindowKey.of(r.item.window());
    CompletionStage<StatusReply<TaskProtocol.LeaseGranted>> ask = Asks.ask(tasks.apply(r.item.taskId()),
        replyTo -> new TaskProtocol.Heartbeat(window, r.attempt, replyTo), settings.askTimeout(), ctx.getSystem().scheduler());
    return ask.thenApply(reply -> {
      if (reply.isError()) {
        throw new CompletionException(new io.almanac.AlmanacException(reply.getError().getMessage()));
      }
      Instant deadline = reply.getValue().leaseUntil();
      ctx.getSelf().tell(new Extended(r.item.key(), r.attempt, deadline));
      return deadline;
    });
  }

  CompletionStage<TaskProtocol.EffectReply> recordEffect(Running r, String key, String value, boolean intent) {
    WindowKey window = WindowKey.of(r.item.window());
    CompletionStage<StatusReply<TaskProtocol.EffectReply>> ask = Asks.ask(tasks.apply(r.item.taskId()),
        replyTo -> new TaskProtocol.RecordEffect(window, r.attempt, key, value, intent, replyTo),
        settings.askTimeout(), ctx.getSystem().scheduler());
    return ask.thenApply(reply -> {
      if (reply.isError()) {
        throw new CompletionException(new io.almanac.AlmanacException(reply.getError().getMessage()));
      }
      return reply.getValue();
    });
  }
}
