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
 * Runs agent jobs for the PENDING windows its node's task entities hand it. One per node.
 *
 * <ul>
 *   <li>Jobs run on their own dispatcher ({@code almanac.executor.job-dispatcher}), never on an
 *       actor thread.
 *   <li>A global and a per-task concurrency limit; fresh windows (first and manual runs) go before
 *       backlog (retries and backfills), and backlog starts are rate-limited by token buckets,
 *       overall and per task (R17).
 *   <li>Each attempt is started by a compare-and-set in its entity (R21) and holds a lease that the
 *       job extends with heartbeats; past it the job is cancelled (its future cancelled, a blocking
 *       job interrupted) and the entity told, which records TIMED_OUT and applies the retry policy
 *       (R23).
 *   <li>While jobs run short, up to {@code start-ahead} attempts are started before a job slot is
 *       free, so the slots do not idle during the start's round trip to the entity (a burst of
 *       short jobs); a started attempt waits for a slot and is dropped to its lease if that ends
 *       first. With long jobs nothing is started ahead.
 *   <li>Results are reported until acknowledged; the entity ignores a repeated report.
 * </ul>
 *
 * INTERNAL API.
 */
public final class Executor extends AbstractBehavior<Executor.Command> {

  /** What the executor is told. */
  public interface Command {}

  /** A window is PENDING: run its next attempt when there is room (from a task entity). */
  public record Run(String taskId, String window, String job, RunKind kind, String zone)
      implements Command, AlmanacSerializable {}

  /**
   * A window its task entity fired and started at once, with a slot taken from this executor's
   * {@link StartGate} (from a task entity on this node): run it now or as soon as a slot is free.
   */
  public record RunStarted(String taskId, String job, String zone, TaskProtocol.AttemptGrant grant)
      implements Command, AlmanacSerializable {}

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

  private record Granted(Item item, TaskProtocol.AttemptGrant grant) implements Command {}

  /** An attempt its entity has started, waiting for a job slot (start-ahead). */
  private record Ready(Item item, TaskProtocol.AttemptGrant grant) {}

  private record NotGranted(Item item, String reason) implements Command {}

  private record JobDone(String key, int attempt, JobResult result, Duration took) implements Command {}

  private record ReportDone(String key, int attempt, JobResult result, Duration took, int tries, Throwable error)
      implements Command {}

  private record Extended(String key, int attempt, Instant deadline) implements Command {}

  private record RetryReport(String key, int attempt, JobResult result, Duration took, int tries) implements Command {}

  private static final String REFUSED = "result refused: ";

  private enum Check implements Command {
    INSTANCE
  }

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
  private final java.util.concurrent.Executor jobPool;
  private final ArrayDeque<Item> fresh = new ArrayDeque<>();
  private final ArrayDeque<Item> backlog = new ArrayDeque<>();
  private final ArrayDeque<Ready> ready = new ArrayDeque<>();
  /** Durations of the latest finished jobs (a ring), to tell whether jobs run short (start-ahead). */
  private final Duration[] recentJobs = new Duration[16];
  private int recentJobsNext;
  private final Map<String, Item> queued = new HashMap<>();
  private final Map<String, Running> running = new HashMap<>();
  private final Map<String, Integer> startingOrRunningPerTask = new HashMap<>();
  private final Map<String, TokenBucket> taskBuckets = new HashMap<>();
  private final TokenBucket globalBucket;
  private final StartGate gate;
  private int starting;
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
   * @param tasks how to reach a task entity by id
   * @param executorId this executor's identity (node address and incarnation)
   * @param gate where this executor offers job slots to the task entities of its node
   * @return the executor's behavior
   */
  public static Behavior<Command> create(
      Clock clock,
      ExecutorSettings settings,
      TaskSettings taskSettings,
      JobRegistry jobs,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks,
      String executorId,
      StartGate gate) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new Executor(ctx, timers, clock, settings, taskSettings, jobs, tasks, executorId, gate)));
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
      StartGate gate) {
    super(ctx);
    this.ctx = ctx;
    this.clock = clock;
    this.settings = settings;
    this.taskSettings = taskSettings;
    this.jobs = jobs;
    this.tasks = tasks;
    this.executorId = executorId;
    this.jobPool = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(settings.jobDispatcher()));
    this.globalBucket = new TokenBucket(settings.backlogRate(), settings.backlogBurst(), clock.instant());
    this.gate = gate;
    timers.startTimerWithFixedDelay(Check.INSTANCE, settings.checkInterval());
    ctx.getLog().info("executor {} started: {} concurrent jobs ({} per task), {} started ahead while jobs take < {}, "
        + "backlog {} starts/s (burst {}), {} per task", executorId, settings.maxConcurrent(),
        settings.maxConcurrentPerTask(), settings.startAhead(), settings.startAheadMaxJob(), settings.backlogRate(),
        settings.backlogBurst(), settings.backlogRatePerTask());
    offerSlots(clock.instant());
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Run.class, this::onRun)
        .onMessage(RunStarted.class, this::onRunStarted)
        .onMessage(CancelAttempt.class, this::onCancel)
        .onMessage(Granted.class, this::onGranted)
        .onMessage(NotGranted.class, this::onNotGranted)
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

  private Behavior<Command> onRun(Run run) {
    if (draining) {
      return this; // the window stays PENDING in its entity; it is handed out again after the restart
    }
    Item item = new Item(run.taskId(), run.window(), run.job(), run.kind(), run.zone());
    String key = item.key();
    if (queued.containsKey(key) || running.containsKey(key)) {
      return this; // dispatched again (a wake-up, a recovery): it is already here
    }
    queued.put(key, item);
    (item.fresh() ? fresh : backlog).addLast(item);
    drain();
    return this;
  }

  private Behavior<Command> onRunStarted(RunStarted m) {
    gate.arrived(clock.instant(), settings.askTimeout());
    TaskProtocol.AttemptGrant grant = m.grant();
    Item item = new Item(m.taskId(), grant.window(), m.job(), grant.kind(), m.zone());
    startingOrRunningPerTask.merge(item.taskId(), 1, Integer::sum);
    runOrWait(item, grant); // also while draining: the attempt is started in its entity
    return this;
  }

  /** Runs an attempt its entity has started if a job slot is free; otherwise it waits for one. */
  private void runOrWait(Item item, TaskProtocol.AttemptGrant grant) {
    if (running.size() < settings.maxConcurrent()) {
      run(item, grant, clock.instant());
    } else {
      ready.addLast(new Ready(item, grant));
    }
    offerSlots(clock.instant());
  }

  private void drain() {
    Instant now = clock.instant();
    while (running.size() < settings.maxConcurrent() && !ready.isEmpty()) {
      Ready r = ready.pollFirst();
      run(r.item(), r.grant(), now); // also while draining: the attempt is started in its entity
    }
    if (!draining) {
      int room = room(now);
      while (running.size() + ready.size() + starting < room) {
        Item next = take(fresh, false);
        if (next == null) {
          next = take(backlog, true);
        }
        if (next == null) {
          break;
        }
        start(next);
      }
    }
    offerSlots(now);
  }

  private int room(Instant now) {
    return settings.maxConcurrent() + (startAhead(now) ? settings.startAhead() : 0);
  }

  /**
   * Offers the task entities of this node what is left of the room once the attempts here, those
   * being started, the fresh windows queued and the slots already taken are counted: a fired
   * window then starts with its schedule, in one journal write (see {@link StartGate}).
   */
  private void offerSlots(Instant now) {
    int inTransit = gate.collect(now, settings.askTimeout());
    int free = draining ? 0 : room(now) - running.size() - ready.size() - starting - fresh.size() - inTransit;
    gate.offer(free);
  }

  /**
   * Whether attempts may be started ahead of a free slot: the last jobs to finish (a full ring of
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

  /** The first item of the queue whose task has room (and, for backlog, a token). */
  private Item take(ArrayDeque<Item> queue, boolean limited) {
    Instant now = clock.instant();
    Iterator<Item> it = queue.iterator();
    while (it.hasNext()) {
      Item item = it.next();
      if (startingOrRunningPerTask.getOrDefault(item.taskId(), 0) >= settings.maxConcurrentPerTask()) {
        continue;
      }
      if (limited) {
        if (!globalBucket.available(now)) {
          return null; // nothing in the backlog can start before the next refill
        }
        TokenBucket task = taskBuckets.computeIfAbsent(item.taskId(),
            id -> new TokenBucket(settings.backlogRatePerTask(), settings.backlogBurstPerTask(), now));
        if (!task.available(now)) {
          continue;
        }
        task.take(now);
        globalBucket.take(now);
      }
      it.remove();
      queued.remove(item.key());
      return item;
    }
    return null;
  }

  private void start(Item item) {
    starting++;
    startingOrRunningPerTask.merge(item.taskId(), 1, Integer::sum);
    WindowKey window = WindowKey.of(item.window());
    CompletionStage<StatusReply<TaskProtocol.AttemptGrant>> ask = Asks.ask(tasks.apply(item.taskId()),
        replyTo -> new TaskProtocol.StartAttempt(window, executorId, ctx.getSelf(), replyTo),
        settings.askTimeout(), ctx.getSystem().scheduler());
    ctx.pipeToSelf(ask, (reply, error) -> {
      if (error != null) {
        return new NotGranted(item, "no answer: " + error.getMessage());
      }
      return reply.isSuccess() ? new Granted(item, reply.getValue()) : new NotGranted(item, reply.getError().getMessage());
    });
  }

  private Behavior<Command> onNotGranted(NotGranted m) {
    starting--;
    release(m.item().taskId());
    checkDrained();
    ctx.getLog().debug("window '{}' of task '{}' not started: {}", m.item().window(), m.item().taskId(), m.reason());
    drain();
    return this;
  }

  private void release(String taskId) {
    startingOrRunningPerTask.computeIfPresent(taskId, (k, v) -> v <= 1 ? null : v - 1);
  }

  private Behavior<Command> onGranted(Granted m) {
    starting--;
    runOrWait(m.item(), m.grant()); // started ahead of a free slot, it waits for one
    return this;
  }

  /** Runs a started attempt's job, unless its lease ended while it waited for a slot. */
  private void run(Item item, TaskProtocol.AttemptGrant grant, Instant now) {
    if (!now.isBefore(grant.leaseUntil())) {
      dropExpired(item, grant.attempt(), grant.leaseUntil());
      return;
    }
    Running r = new Running(item, grant.attempt(), now, grant.leaseUntil());
    running.put(item.key(), r);
    started++;
    AgentJob job = jobs.find(item.job(), item.taskId());
    ctx.getLog().info("task '{}' window '{}' attempt {} ({}) started, lease until {}",
        item.taskId(), item.window(), grant.attempt(), grant.kind(), grant.leaseUntil());
    JobContextImpl jobContext = new JobContextImpl(this, r, grant, item.zone());
    ActorRef<Command> self = ctx.getSelf();
    String key = item.key();
    int attempt = grant.attempt();
    Instant startedAt = r.startedAt;
    jobPool.execute(() -> {
      CompletionStage<JobResult> stage;
      r.enter();
      try {
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

  /** A started attempt whose lease ended before it got a slot: not run; its entity times it out. */
  private void dropExpired(Item item, int attempt, Instant leaseUntil) {
    release(item.taskId());
    ctx.getLog().warn("task '{}' window '{}' attempt {} waited for a job slot past its lease ({}): not run",
        item.taskId(), item.window(), attempt, leaseUntil);
    expire(item, attempt);
    checkDrained();
  }

  private void expire(Item item, int attempt) {
    WindowKey window = WindowKey.of(item.window());
    Asks.<TaskProtocol.Command, StatusReply<org.apache.pekko.Done>>ask(tasks.apply(item.taskId()),
        replyTo -> new TaskProtocol.ExpireLease(window, attempt, replyTo), settings.askTimeout(),
        ctx.getSystem().scheduler());
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
      ctx.getLog().info("task '{}' window '{}' attempt {} {} in {} ms{}", r.item.taskId(), r.item.window(), m.attempt(),
          m.result().succeeded() ? "succeeded" : "failed", m.took().toMillis(),
          m.result().succeeded() ? "" : ": " + m.result().reason());
    }
    report(m.key(), m.attempt(), m.result(), m.took(), 1);
    drain();
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
      ctx.getLog().warn("task '{}' window '{}' attempt {} cancelled before it ran: {}", m.taskId(), m.window(),
          m.attempt(), m.reason());
      checkDrained();
      drain();
      return this;
    }
    Running r = running.get(key);
    if (r != null && r.attempt == m.attempt() && r.cancel()) {
      cancelledCount++;
      ctx.getLog().warn("task '{}' window '{}' attempt {} cancelled: {}", m.taskId(), m.window(), m.attempt(), m.reason());
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
        ctx.getLog().warn("task '{}' window '{}' attempt {} passed its lease ({}): cancelled", r.item.taskId(),
            r.item.window(), r.attempt, r.deadline);
        expire(r.item, r.attempt);
      }
    }
    drain();
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
    draining = true;
    offerSlots(clock.instant()); // no more slots for fired windows either
    drainWaiters.add(m.replyTo());
    checkDrained();
    return this;
  }

  private void checkDrained() {
    if (draining && running.isEmpty() && ready.isEmpty() && starting == 0 && reporting == 0 && !drainWaiters.isEmpty()) {
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
