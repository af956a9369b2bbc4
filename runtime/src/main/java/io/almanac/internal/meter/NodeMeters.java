package io.almanac.internal.meter;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceResolved;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.LateResultRecorded;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.journal.WindowState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.pekko.actor.AbstractExtensionId;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Extension;

/**
 * The node's meters (Micrometer), in one place: the actors call it where they apply what the pure
 * core decided (a task entity after its journal write, the executor as its queues change, the
 * journal around its writes); nothing here decides anything. Every meter is named {@code almanac.*}
 * and its tags are bounded (kinds, outcomes, reasons, task ids; never a window key):
 *
 * <table>
 *   <caption>meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@code almanac.fires}</td><td>counter</td><td>{@code kind} (on_time, catch_up), {@code result}
 *       (acknowledged, refused, unanswered)</td><td>fires the trigger sent (on the node it runs on), by
 *       their answer; an unanswered fire is sent again; a catch-up of many windows is one fire</td></tr>
 *   <tr><td>{@code almanac.decisions}</td><td>counter</td><td>{@code kind} (on_time, catch_up, manual,
 *       backfill, retry, resume), {@code decision} (scheduled, skipped, missed), {@code reason} (none, or the skip
 *       or miss reason, e.g. previous_running, outside_horizon)</td><td>what was decided for a window,
 *       as written to the journal (a repeated fire is no decision and is not counted)</td></tr>
 *   <tr><td>{@code almanac.attempts.started}</td><td>counter</td><td>{@code kind} (first, retry,
 *       backfill, manual, resume)</td><td>attempts started (PENDING to RUNNING)</td></tr>
 *   <tr><td>{@code almanac.attempts}</td><td>counter</td><td>{@code outcome} (succeeded, failed,
 *       timed_out, interrupted, cancelled, late_result)</td><td>attempts ended; late_result: a result from an
 *       attempt that no longer held its window</td></tr>
 *   <tr><td>{@code almanac.retries.scheduled}</td><td>counter</td><td></td><td>retries planned by a
 *       retry policy</td></tr>
 *   <tr><td>{@code almanac.steps}</td><td>counter</td><td>{@code kind} (recorded, replayed)</td><td>durable
 *       steps recorded (run once and kept), and steps an attempt got from their record without running
 *       them (counted with its result)</td></tr>
 *   <tr><td>{@code almanac.windows.final.failed}</td><td>counter</td><td></td><td>windows that entered
 *       the intervention queue</td></tr>
 *   <tr><td>{@code almanac.job.duration}</td><td>timer, percentile histogram</td><td>{@code task}</td>
 *       <td>durations of attempts that succeeded or failed (as the executor reported them)</td></tr>
 *   <tr><td>{@code almanac.lease.expiries}</td><td>counter</td><td>{@code cause} (lease_expired,
 *       executor_gone)</td><td>running attempts timed out</td></tr>
 *   <tr><td>{@code almanac.intervention.queue}</td><td>gauge</td><td></td><td>FINAL_FAILED windows of
 *       the tasks this node hosts (a task entity that stopped for being idle still counts)</td></tr>
 *   <tr><td>{@code almanac.trigger.lag}</td><td>timer, percentile histogram</td><td></td><td>start of a
 *       first attempt minus its window's due time, plus its jitter offset if any (on-time fires only: a backfill, a retry or a manual
 *       run is late by design)</td></tr>
 *   <tr><td>{@code almanac.windows}</td><td>gauge</td><td>{@code status} (pending, waiting, running,
 *       retry_wait, final_failed)</td><td>windows of the tasks this node hosts with the status now</td></tr>
 *   <tr><td>{@code almanac.tasks}, {@code almanac.tasks.paused}</td><td>gauges</td><td></td><td>defined
 *       and paused tasks this node hosts</td></tr>
 *   <tr><td>{@code almanac.task.last.success.timestamp}</td><td>gauge</td><td>{@code task}</td><td>when
 *       the task's newest SUCCEEDED window succeeded (epoch seconds)</td></tr>
 *   <tr><td>{@code almanac.backlog}</td><td>gauge</td><td>{@code queue} (fresh: first and manual runs;
 *       backlog: retries, backfills and catch-ups)</td><td>windows this node's executor holds waiting
 *       for a slot (or, for the backlog, a token of its rate)</td></tr>
 *   <tr><td>{@code almanac.executor.running}</td><td>gauge</td><td></td><td>jobs running on this
 *       node</td></tr>
 *   <tr><td>{@code almanac.executor.stuck}</td><td>gauge</td><td></td><td>cancelled jobs on this node
 *       whose thread has not returned within {@code almanac.executor.stuck-after} (each raised a
 *       JOB_STUCK alert)</td></tr>
 *   <tr><td>{@code almanac.journal.write}</td><td>timer, percentile histogram</td><td>{@code outcome}
 *       (ok, failed)</td><td>the journal's writes on this node (one per batch of atomic writes)</td></tr>
 *   <tr><td>{@code almanac.publishes}</td><td>counter</td><td>{@code outcome} (recorded, overloaded,
 *       unknown, refused, failed)</td><td>publishes this node's facade answered: recorded by every listening
 *       task; refused because a task's queue was full or the trigger did not say in time who listens
 *       (nothing stored); with an unknown outcome (a task did not answer); refused (bad input, a type no task
 *       listens to, a task's refusal); failed (any other failure)</td></tr>
 *   <tr><td>{@code almanac.projection.lag}</td><td>time gauge</td><td></td><td>registered by the
 *       projection that feeds the instance table ({@link #projectionLag})</td></tr>
 *   <tr><td>{@code almanac.usage.tokens}</td><td>counter</td><td>{@code task}, {@code direction} (in,
 *       out)</td><td>tokens the attempts of a task reported (one series per task, as {@code
 *       almanac.job.duration})</td></tr>
 *   <tr><td>{@code almanac.usage.cost}</td><td>counter</td><td>{@code task}</td><td>cost the attempts of a
 *       task reported, in the operator's unit</td></tr>
 *   <tr><td>{@code almanac.usage.model.tokens}</td><td>counter</td><td>{@code model}, {@code
 *       direction}</td><td>tokens by model: at most {@value #MAX_MODEL_TAGS} model names get their own
 *       series on a node, later ones count as {@code other}, a usage without a model as {@code
 *       unknown}</td></tr>
 *   <tr><td>{@code almanac.usage.model.cost}</td><td>counter</td><td>{@code model}</td><td>cost by model,
 *       bounded the same way</td></tr>
 *   <tr><td>{@code almanac.budget.raises}</td><td>counter</td><td></td><td>operators' raises of a task's
 *       budget for the day</td></tr>
 *   <tr><td>{@code almanac.alerts.webhook.sent}</td><td>counter</td><td></td><td>alerts the webhook sink
 *       delivered (a 2xx answer)</td></tr>
 *   <tr><td>{@code almanac.alerts.webhook.failed.attempts}</td><td>counter</td><td>{@code cause} (status,
 *       timeout, connect, error)</td><td>attempts to POST an alert that failed (each retry counts)</td></tr>
 *   <tr><td>{@code almanac.alerts.webhook.dropped}</td><td>counter</td><td>{@code reason} (queue_full,
 *       gave_up, refused, closed)</td><td>alerts the webhook sink did not deliver: the oldest waiting one
 *       when its queue was full, after max-attempts, refused by a 3xx/4xx answer, raised while stopping</td></tr>
 * </table>
 *
 * Meters tagged {@code task} (fires, decisions, attempts, attempts.started, job.duration, usage,
 * last success) take the tag from {@link TaskTags}: capped by {@code almanac.metrics.max-task-tags}.
 *
 * The node's meters are found from its ActorSystem ({@link #of}), so a plugin that Pekko creates
 * (the journal) records into the node's registry. INTERNAL API.
 */
public final class NodeMeters implements io.almanac.spi.StoreMeters {

  /** Meters that record into a registry with no member: nothing is kept (unit tests, before a node starts). */
  public static final NodeMeters NONE = new NodeMeters(new CompositeMeterRegistry());

  /**
   * The job-duration histogram's buckets: fixed and few (14 per task), so thousands of tasks stay
   * thousands of series, not 95 times that; sized for agent jobs that run seconds to hours.
   */
  static final Duration[] JOB_BUCKETS = {
    Duration.ofMillis(100), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(5),
    Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(2),
    Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(30), Duration.ofHours(1),
    Duration.ofHours(2), Duration.ofHours(4)};

  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> jobDurations = new ConcurrentHashMap<>();
  private final Timer triggerLag;
  private final Timer journalOk;
  private final Timer journalFailed;
  private final LongAdder journalPersists = new LongAdder();
  private final LongAdder journalEvents = new LongAdder();
  private final LongAdder journalWrites = new LongAdder();
  private final LongAdder journalWriteNanos = new LongAdder();
  /** Where a started attempt spends its time on the executor (see {@link #executorPhases()}). */
  private final LongAdder slotWaits = new LongAdder();
  private final LongAdder slotWaitNanos = new LongAdder();
  private final java.util.concurrent.atomic.LongAccumulator slotWaitMaxNanos =
      new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
  private final LongAdder slotHolds = new LongAdder();
  private final LongAdder slotHoldNanos = new LongAdder();
  private final LongAdder slotJobNanos = new LongAdder();
  private final java.util.concurrent.atomic.LongAccumulator waitingMax =
      new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
  /** What the gauges say of each task hosted here, as its last write left it. */
  private final Map<String, Hosted> hosted = new ConcurrentHashMap<>();
  /** The tasks whose own series of the last-success gauge are registered. */
  private final Map<String, Boolean> lastSuccessGauges = new ConcurrentHashMap<>();
  private final TaskTags taskTags;
  /**
   * Windows ("task|window") a gate let go that have not started yet: their first start is not the
   * trigger's lag. As many as released windows queued (a node that restarts forgets them: their
   * start is then measured as lag once).
   */
  private final Map<String, Boolean> released = new ConcurrentHashMap<>();
  private final AtomicInteger fresh = new AtomicInteger();
  private final AtomicInteger backlog = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger stuck = new AtomicInteger();

  /**
   * @param registry where the meters are registered
   */
  public NodeMeters(MeterRegistry registry) {
    this(registry, TaskTags.DEFAULT_MAX);
  }

  /**
   * @param registry where the meters are registered
   * @param maxTaskTags how many task ids get their own series of a meter tagged {@code task}
   *     ({@code almanac.metrics.max-task-tags}); later tasks count as {@value TaskTags#OTHER}
   */
  public NodeMeters(MeterRegistry registry, int maxTaskTags) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.taskTags = new TaskTags(maxTaskTags);
    Gauge.builder("almanac.intervention.queue", hosted, h -> sum(h, InstanceStatus.FINAL_FAILED))
        .description("FINAL_FAILED windows (the intervention queue) of the tasks this node hosts").register(registry);
    for (InstanceStatus st : Hosted.GAUGED) {
      Gauge.builder("almanac.windows", hosted, h -> sum(h, st)).tag("status", name(st))
          .description("windows of the tasks this node hosts that have this status now").register(registry);
    }
    Gauge.builder("almanac.tasks.paused", hosted, h -> h.values().stream().filter(Hosted::paused).count())
        .description("paused tasks among those this node hosts").register(registry);
    Gauge.builder("almanac.tasks", hosted, Map::size)
        .description("defined tasks this node hosts").register(registry);
    Gauge.builder("almanac.backlog", fresh, AtomicInteger::get).tag("queue", "fresh")
        .description("windows waiting in this node's executor for a slot").register(registry);
    Gauge.builder("almanac.backlog", backlog, AtomicInteger::get).tag("queue", "backlog")
        .description("windows waiting in this node's executor for a slot").register(registry);
    Gauge.builder("almanac.executor.running", running, AtomicInteger::get)
        .description("jobs running on this node").register(registry);
    Gauge.builder("almanac.executor.stuck", stuck, AtomicInteger::get)
        .description("cancelled jobs whose thread has not returned (JOB_STUCK)").register(registry);
    this.triggerLag = Timer.builder("almanac.trigger.lag")
        .description("start of an on-time window's first attempt minus its due time")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofHours(1))
        .register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder("almanac.journal.persists", journalPersists, LongAdder::sum)
        .description("persist calls (atomic writes) handed to the journal on this node").register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder("almanac.journal.events", journalEvents, LongAdder::sum)
        .description("events (journal rows) handed to the journal on this node").register(registry);
    this.journalOk = journalTimer("ok");
    this.journalFailed = journalTimer("failed");
  }

  private Timer journalTimer(String outcome) {
    return Timer.builder("almanac.journal.write").tag("outcome", outcome)
        .description("the journal's writes on this node")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(30))
        .register(registry);
  }

  /** @return the registry these meters are in */
  public MeterRegistry registry() {
    return registry;
  }

  // ---------------------------------------------------------------------------------------------
  // Per ActorSystem

  private static final class Holder implements Extension {
    volatile NodeMeters meters = NONE;
  }

  private static final AbstractExtensionId<Holder> HOLDER = new AbstractExtensionId<>() {
    @Override
    public Holder createExtension(ExtendedActorSystem system) {
      return new Holder();
    }
  };

  /**
   * The node's meters, for code that has only the ActorSystem (a journal plugin, a projection).
   *
   * @param system the node's ActorSystem (typed or classic)
   * @return the meters the node started with, or {@link #NONE} before it started
   */
  public static NodeMeters of(ClassicActorSystemProvider system) {
    return HOLDER.get(system.classicSystem()).meters;
  }

  /**
   * Makes these the meters of the node on that ActorSystem (Almanac's start).
   *
   * @param system the node's ActorSystem
   * @param meters its meters
   */
  public static void install(ClassicActorSystemProvider system, NodeMeters meters) {
    HOLDER.get(system.classicSystem()).meters = Objects.requireNonNull(meters, "meters");
    io.almanac.spi.StoreMeters.install(system, meters);
  }

  // ---------------------------------------------------------------------------------------------
  // Task entities: after a journal write

  /**
   * A task entity wrote these events: counts the decisions, attempts and lease expiries they say,
   * times the jobs that ended and the trigger's lag, and keeps the task's intervention queue.
   *
   * @param taskId the task
   * @param origin what brought the write about when it decides a fire (on-time or catch-up fire, an
   *     operator's run or backfill), or null
   * @param before the state before the write
   * @param after the state after it
   * @param events the events written
   */
  public void written(String taskId, Origin origin, State before, State after, List<Event> events) {
    Written metered = new Written(taskId, origin, before, after); // one per write, none per event
    for (Event e : events) {
      e.accept(metered);
    }
    Hosted was = hosted.get(taskId);
    hosted(taskId, after, metered.succeededAt != null ? metered.succeededAt : was != null ? was.lastSuccess() : null);
  }

  /** What one write's events count; each answers whether the task's intervention queue may have changed. */
  private final class Written implements TaskJournal.Visitor<Boolean> {
    private final String taskId;
    private final Origin origin;
    private final State before;
    private final State after;
    private final String tag;
    /** When a window of this write succeeded, or null. */
    Instant succeededAt;

    Written(String taskId, Origin origin, State before, State after) {
      this.taskId = taskId;
      this.tag = taskTags.tag(taskId);
      this.origin = origin;
      this.before = before;
      this.after = after;
    }

    @Override
    public Boolean specDefined(TaskJournal.SpecDefined e) {
      return true;
    }

    @Override
    public Boolean taskPaused(TaskJournal.TaskPaused e) {
      return false;
    }

    @Override
    public Boolean taskResumed(TaskJournal.TaskResumed e) {
      return false;
    }

    @Override
    public Boolean taskRemoved(TaskJournal.TaskRemoved e) {
      return true;
    }

    @Override
    public Boolean instanceScheduled(InstanceScheduled s) {
      decision(tag, kind(origin, s.kind()), "scheduled", "none");
      return true; // an operator's retry takes a window out of the queue
    }

    @Override
    public Boolean fireSkipped(FireSkipped s) {
      decision(tag, kind(origin, null), "skipped", name(s.reason()));
      return false;
    }

    @Override
    public Boolean windowMissed(WindowMissed m) {
      decision(tag, kind(origin, null), "missed", name(m.reason()));
      return false;
    }

    @Override
    public Boolean skipRangeOpened(TaskJournal.SkipRangeOpened r) {
      decision(tag, kind(origin, null), r.outcome() == io.almanac.InstanceStatus.MISSED ? "missed" : "skipped", reasonOf(r.range()));
      return false;
    }

    @Override
    public Boolean skipRangeClosed(TaskJournal.SkipRangeClosed r) {
      return false; // its windows were counted as it covered them
    }

    @Override
    public Boolean windowsSkipped(TaskJournal.WindowsSkipped r) {
      decision(tag, kind(origin, null), r.outcome() == io.almanac.InstanceStatus.MISSED ? "missed" : "skipped", reasonOf(r.range()),
          r.count());
      return false;
    }

    @Override
    public Boolean attemptStarted(AttemptStarted s) {
      count("almanac.attempts.started", tag, "kind", name(s.kind()));
      if (s.kind() == RunKind.FIRST && released.remove(taskId + "|" + s.window()) == null && !wasWaiting(s.window())) {
        // a window a gate held (WAITING) started once it was let go, not when due: not the trigger's lag
        after.window(s.window()).map(WindowState::dueAt).ifPresent(due -> triggerLag.record(lag(firesAt(after, s.window(), due),
            s.at())));
      }
      return false;
    }

    @Override
    public Boolean windowStarted(TaskJournal.WindowStarted w) {
      // entities meter the events a write stands for (TaskJournal.expand); counted as its two halves all the same
      return instanceScheduled(w.scheduled()) | attemptStarted(w.started());
    }

    @Override
    public Boolean leaseExtended(TaskJournal.LeaseExtended e) {
      return false;
    }

    @Override
    public Boolean attemptSucceeded(AttemptSucceeded s) {
      count("almanac.attempts", tag, "outcome", "succeeded");
      succeededAt = s.at();
      jobDuration(tag, s.duration());
      usage(tag, s.usage());
      return false;
    }

    @Override
    public Boolean attemptFailed(AttemptFailed f) {
      count("almanac.attempts", tag, "outcome", f.throttled() ? "throttled" : "failed");
      jobDuration(tag, f.duration());
      usage(tag, f.usage());
      return false;
    }

    @Override
    public Boolean attemptTimedOut(AttemptTimedOut t) {
      count("almanac.attempts", tag, "outcome", "timed_out");
      count("almanac.lease.expiries", "cause", LeaseExpiry.leaseEnded(t) ? "lease_expired" : "executor_gone");
      return false;
    }

    @Override
    public Boolean attemptInterrupted(TaskJournal.AttemptInterrupted e) {
      count("almanac.attempts", tag, "outcome", "interrupted");
      return false;
    }

    @Override
    public Boolean lateResultRecorded(LateResultRecorded e) {
      count("almanac.attempts", tag, "outcome", "late_result");
      usage(tag, e.usage());
      return false;
    }

    @Override
    public Boolean retryScheduled(RetryScheduled e) {
      count("almanac.retries.scheduled", null, null);
      return false;
    }

    @Override
    public Boolean instanceFinalFailed(InstanceFinalFailed e) {
      count("almanac.windows.final.failed", null, null);
      return true;
    }

    @Override
    public Boolean instanceResolved(InstanceResolved e) {
      return true;
    }

    @Override
    public Boolean instanceCancelled(InstanceCancelled c) {
      released.remove(taskId + "|" + c.window());
      if (before != null && before.window(c.window()).map(w -> w.status() == InstanceStatus.RUNNING).orElse(false)) {
        count("almanac.attempts", tag, "outcome", "cancelled");
      }
      return true;
    }

    @Override
    public Boolean effectIntended(TaskJournal.EffectIntended e) {
      return false;
    }

    @Override
    public Boolean effectRecorded(TaskJournal.EffectRecorded e) {
      return false;
    }

    @Override
    public Boolean stepRecorded(TaskJournal.StepRecorded e) {
      count("almanac.steps", tag, "kind", "recorded");
      return false;
    }

    @Override
    public Boolean stepsReplayed(TaskJournal.StepsReplayed e) {
      for (int i = 0; i < e.names().size(); i++) {
        count("almanac.steps", tag, "kind", "replayed");
      }
      return false;
    }

    @Override
    public Boolean eventReceived(TaskJournal.EventReceived e) {
      return false;
    }

    @Override
    public Boolean eventDuplicated(TaskJournal.EventDuplicated e) {
      return false;
    }

    @Override
    public Boolean windowWaiting(TaskJournal.WindowWaiting e) {
      decision(tag, kind(origin, e.kind()), "waiting", "none"); // a gate holds it (dependency, condition)
      return false;
    }

    @Override
    public Boolean waitSatisfied(TaskJournal.WaitSatisfied e) {
      released.put(taskId + "|" + e.window(), Boolean.TRUE); // its start, in this write or a later one, is not lag
      return false;
    }

    @Override
    public Boolean waitEnded(TaskJournal.WaitEnded e) {
      // the wait's deadline passed first: a skip with its reason (DEPENDENCY_NOT_MET, CONDITION_NOT_MET)
      decision(tag, kind(origin, before == null ? null : before.window(e.window()).map(WindowState::runKind).orElse(null)),
          "skipped", name(e.reason()));
      return false;
    }

    /** Whether the window was WAITING before this write (a gate let it go in it). */
    private boolean wasWaiting(String window) {
      return before != null && before.window(window).map(w -> w.status() == InstanceStatus.WAITING).orElse(false);
    }

    @Override
    public Boolean conditionCheckFailed(TaskJournal.ConditionCheckFailed e) {
      return false;
    }

    @Override
    public Boolean upstreamRerunRecorded(TaskJournal.UpstreamRerunRecorded e) {
      return false;
    }

    @Override
    public Boolean poolWaited(TaskJournal.PoolWaited e) {
      return false;
    }

    @Override
    public Boolean attemptLogged(TaskJournal.AttemptLogged e) {
      return false;
    }

    @Override
    public Boolean deadlineMissed(TaskJournal.DeadlineMissed e) {
      count("almanac.deadlines.missed", "status", name(e.status()));
      return false;
    }
    public Boolean budgetRaised(TaskJournal.BudgetRaised e) {
      count("almanac.budget.raises", null, null);
      return false;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Usage (what attempts reported with their results)

  /** How many model names get their own series of the by-model usage counters on a node. */
  static final int MAX_MODEL_TAGS = 32;

  private final Map<String, Boolean> modelTags = new ConcurrentHashMap<>();

  private void usage(String taskId, io.almanac.journal.UsageRecord u) {
    if (u == null) {
      return;
    }
    add("almanac.usage.tokens|" + taskId + "|in", () -> Counter.builder("almanac.usage.tokens").tag("task", taskId)
        .tag("direction", "in").description("tokens the attempts of a task reported").register(registry), u.tokensIn());
    add("almanac.usage.tokens|" + taskId + "|out", () -> Counter.builder("almanac.usage.tokens").tag("task", taskId)
        .tag("direction", "out").description("tokens the attempts of a task reported").register(registry), u.tokensOut());
    add("almanac.usage.cost|" + taskId, () -> Counter.builder("almanac.usage.cost").tag("task", taskId)
        .description("cost the attempts of a task reported").register(registry), u.costMicros() / 1e6);
    String model = modelTag(u.model());
    add("almanac.usage.model.tokens|" + model + "|in", () -> Counter.builder("almanac.usage.model.tokens")
        .tag("model", model).tag("direction", "in").description("tokens reported, by model").register(registry), u.tokensIn());
    add("almanac.usage.model.tokens|" + model + "|out", () -> Counter.builder("almanac.usage.model.tokens")
        .tag("model", model).tag("direction", "out").description("tokens reported, by model").register(registry),
        u.tokensOut());
    add("almanac.usage.model.cost|" + model, () -> Counter.builder("almanac.usage.model.cost").tag("model", model)
        .description("cost reported, by model").register(registry), u.costMicros() / 1e6);
  }

  /** A model's tag: its name while fewer than MAX_MODEL_TAGS names have one, then {@code other}. */
  private String modelTag(String model) {
    if (model == null) {
      return "unknown";
    }
    if (modelTags.containsKey(model)) {
      return model;
    }
    synchronized (modelTags) {
      if (modelTags.size() < MAX_MODEL_TAGS) {
        modelTags.put(model, Boolean.TRUE);
        return model;
      }
    }
    return modelTags.containsKey(model) ? model : "other";
  }

  private void add(String key, Supplier<Counter> make, double amount) {
    if (amount > 0) {
      counters.computeIfAbsent(key, k -> make.get()).increment(amount);
    }
  }

  /**
   * A task entity recovered (or its queue may have changed): keeps its count of FINAL_FAILED windows.
   *
   * @param taskId the task
   * @param state its state
   */
  public void interventionQueue(String taskId, State state) {
    hosted(taskId, state, state.defined() && !state.removed() ? state.table().lastSucceededAt() : null);
  }

  /**
   * Keeps what the gauges say of a hosted task: its windows by status (O(1): the table counts them),
   * whether it is paused, when it last succeeded. A removed or undefined task leaves the gauges.
   */
  private void hosted(String taskId, State state, Instant lastSuccess) {
    if (!state.defined() || state.removed()) {
      hosted.remove(taskId);
      return;
    }
    var t = state.table();
    int[] n = new int[Hosted.GAUGED.size()];
    for (int i = 0; i < n.length; i++) {
      n[i] = t.count(Hosted.GAUGED.get(i));
    }
    Hosted was = hosted.put(taskId, new Hosted(n, state.paused(), lastSuccess));
    if (lastSuccess != null && (was == null || was.lastSuccess() == null || lastSuccessGauges.get(taskId) == null)) {
      lastSuccessGauge(taskId);
    }
  }

  /** A task's last-success gauge: its own series while the cap allows, else none (its tag is shared). */
  private void lastSuccessGauge(String taskId) {
    String tag = taskTags.tag(taskId);
    if (TaskTags.OTHER.equals(tag) || lastSuccessGauges.putIfAbsent(taskId, Boolean.TRUE) != null) {
      return;
    }
    Gauge.builder("almanac.task.last.success.timestamp", hosted, h -> {
      Hosted x = h.get(taskId);
      return x == null || x.lastSuccess() == null ? Double.NaN : x.lastSuccess().toEpochMilli() / 1000.0;
    }).tag("task", tag).baseUnit("seconds").description("when the task's newest SUCCEEDED window succeeded, in seconds "
        + "since the epoch (NaN while none has)").register(registry);
  }

  /**
   * A hosted task's figures for the gauges.
   *
   * @param counts windows by status, in the order of {@link #GAUGED}
   * @param paused whether the task is paused
   * @param lastSuccess when its newest SUCCEEDED window succeeded, or null
   */
  private record Hosted(int[] counts, boolean paused, Instant lastSuccess) {
    /** The statuses the {@code almanac.windows} gauge shows. */
    static final List<InstanceStatus> GAUGED = List.of(InstanceStatus.PENDING, InstanceStatus.WAITING,
        InstanceStatus.RUNNING, InstanceStatus.RETRY_WAIT, InstanceStatus.FINAL_FAILED);
  }

  private static double sum(Map<String, Hosted> hosted, InstanceStatus status) {
    int i = Hosted.GAUGED.indexOf(status);
    long n = 0;
    for (Hosted h : hosted.values()) {
      n += h.counts()[i];
    }
    return n;
  }

  /** What brought about a task's write that decides fires. */
  public enum Origin {
    ON_TIME, CATCH_UP, MANUAL, BACKFILL;

    public static Origin of(FireKind kind) {
      return kind == FireKind.CATCH_UP ? CATCH_UP : ON_TIME;
    }
  }

  /** The decision's kind: a retry is a retry whoever wrote it; else what brought the write about. */
  private static String kind(Origin origin, RunKind scheduled) {
    if (scheduled == RunKind.RETRY) {
      return "retry";
    }
    if (origin != null) {
      return name(origin);
    }
    if (scheduled == null) {
      return "unknown";
    }
    return switch (scheduled) {
      case FIRST -> "on_time";
      case MANUAL -> "manual";
      case BACKFILL -> "backfill";
      case RETRY -> "retry";
      case RESUME -> "resume";
    };
  }

  private void decision(String task, String kind, String decision, String reason) {
    decision(task, kind, decision, reason, 1);
  }

  private static String reasonOf(io.almanac.journal.SkipRange r) {
    return r.skipReason() != null ? name(r.skipReason()) : name(r.missReason());
  }

  /**
   * A window an open skip range covered (docs/skip-ranges.md): decided like the range's first, with
   * no event written; counted as a decision all the same.
   *
   * @param taskId the task
   * @param range the open range that covered it
   * @param catchUp whether a catch-up fired it
   */
  public void covered(String taskId, io.almanac.journal.SkipRange range, boolean catchUp) {
    decision(taskTags.tag(taskId), kind(catchUp ? Origin.CATCH_UP : Origin.ON_TIME, null),
        range.outcome() == io.almanac.InstanceStatus.MISSED ? "missed" : "skipped", reasonOf(range));
  }

  private void decision(String task, String kind, String decision, String reason, long n) {
    String key = "almanac.decisions|" + task + "|" + kind + "|" + decision + "|" + reason;
    counters.computeIfAbsent(key, k -> Counter.builder("almanac.decisions").tag("task", task).tag("kind", kind)
        .tag("decision", decision).tag("reason", reason).description("decisions on windows, as written to the journal")
        .register(registry)).increment(n);
  }

  /** A counter of a task's (its tag: {@link TaskTags}) with one more tag. */
  private void count(String name, String task, String tag, String value) {
    counters.computeIfAbsent(name + "|" + task + "|" + value, k -> Counter.builder(name).tag("task", task).tag(tag, value)
        .register(registry)).increment();
  }

  private void count(String name, String tag, String value) {
    counters.computeIfAbsent(name + "|" + value, k -> {
      Counter.Builder b = Counter.builder(name);
      return (tag == null ? b : b.tag(tag, value)).register(registry);
    }).increment();
  }

  private void jobDuration(String taskId, Duration took) {
    if (took == null) {
      return;
    }
    jobDurations.computeIfAbsent(taskId, id -> Timer.builder("almanac.job.duration").tag("task", id)
        .description("durations of attempts that succeeded or failed")
        .serviceLevelObjectives(JOB_BUCKETS).register(registry)).record(took);
  }

  private static String name(Enum<?> e) {
    return e == null ? "unknown" : e.name().toLowerCase(Locale.ROOT);
  }

  // ---------------------------------------------------------------------------------------------
  // Publishes

  /**
   * A publish ended, as the facade answered it (R9).
   *
   * @param outcome {@code recorded}, {@code overloaded}, {@code unknown}, {@code refused} or {@code failed}
   */
  public void published(String outcome) {
    count("almanac.publishes", "outcome", outcome);
  }

  // ---------------------------------------------------------------------------------------------
  // Trigger

  /**
   * The trigger had an answer to a fire (a catch-up of many windows is one fire), or none in time.
   *
   * @param taskId the task fired (its tag is capped: {@link TaskTags})
   * @param kind on time or catch-up
   * @param result acknowledged (whatever the task decided), refused, or unanswered (it is sent again)
   */
  public void fired(String taskId, FireKind kind, String result) {
    String k = name(kind);
    String task = taskTags.tag(taskId);
    counters.computeIfAbsent("almanac.fires|" + task + "|" + k + "|" + result, x -> Counter.builder("almanac.fires")
        .tag("task", task).tag("kind", k).tag("result", result).description("fires the trigger sent, by their answer")
        .register(registry)).increment();
  }

  // ---------------------------------------------------------------------------------------------
  // Executor

  /**
   * The executor's queues changed (from its actor; read by the gauges from any thread).
   *
   * @param freshWaiting first and manual runs waiting for a slot
   * @param backlogWaiting retries, backfills and catch-ups waiting for a slot or a token
   * @param runningNow jobs running
   * @param stuckNow cancelled jobs whose thread has not returned within stuck-after
   */
  public void executor(int freshWaiting, int backlogWaiting, int runningNow, int stuckNow) {
    fresh.set(freshWaiting);
    backlog.set(backlogWaiting);
    running.set(runningNow);
    stuck.set(stuckNow);
  }

  /**
   * A started attempt took a job slot (from the executor's actor).
   *
   * @param waitedNanos how long it had been started (recorded RUNNING) without a slot: 0 when a slot
   *     took it as its start arrived
   */
  public void slotTaken(long waitedNanos) {
    slotWaits.increment();
    slotWaitNanos.add(waitedNanos);
    slotWaitMaxNanos.accumulate(waitedNanos);
  }

  /**
   * A job gave its slot back (from the executor's actor).
   *
   * @param heldNanos from the slot's take to its release: the job and, on the common path, the
   *     write of its result (the slot is held until the result is recorded)
   * @param jobNanos the job's own time
   */
  public void slotReleased(long heldNanos, long jobNanos) {
    slotHolds.increment();
    slotHoldNanos.add(heldNanos);
    slotJobNanos.add(jobNanos);
  }

  /** Started attempts waiting for a slot now (from the executor's actor): the highest is kept. */
  public void startedWaiting(int waiting) {
    waitingMax.accumulate(waiting);
  }

  /**
   * @return kept also when no registry records meters: slot takes, their summed wait since the
   *     attempt was started (ns), the longest such wait (ns), slot releases, their summed hold (ns),
   *     the jobs' summed own time (ns), and the most started attempts that waited for a slot at once
   */
  public long[] executorPhases() {
    return new long[] {slotWaits.sum(), slotWaitNanos.sum(), slotWaitMaxNanos.get(), slotHolds.sum(),
        slotHoldNanos.sum(), slotJobNanos.sum(), waitingMax.get()};
  }

  // ---------------------------------------------------------------------------------------------
  // Journal and projection

  /**
   * Records one write of the journal.
   *
   * @param nanos how long it took
   * @param ok whether it succeeded
   */
  @Override
  public void journalWrite(long nanos, boolean ok) {
    (ok ? journalOk : journalFailed).record(nanos, TimeUnit.NANOSECONDS);
    journalWrites.increment();
    journalWriteNanos.add(nanos);
  }

  /**
   * Counts what the journal was asked to write: persist calls (atomic writes, one per persist of an
   * actor) and the events (rows) in them. Counted as they are handed to the journal, whatever the
   * outcome: the cost of the fire path, as the bench divides it by the fires.
   *
   * @param persists atomic writes in this call of the journal
   * @param events events in them
   */
  @Override
  public void journalAsked(int persists, int events) {
    journalPersists.add(persists);
    journalEvents.add(events);
  }

  /** @return persist calls handed to the journal so far (kept also when no registry records meters) */
  public long journalPersists() {
    return journalPersists.sum();
  }

  /** @return events handed to the journal so far (kept also when no registry records meters) */
  public long journalEvents() {
    return journalEvents.sum();
  }

  /**
   * @return the journal's writes that have ended so far, and their summed time from the call to the
   *     outcome (nanoseconds), kept also when no registry records meters: their mean over a span is
   *     how long a persist waited for its write under that load
   */
  public long[] journalWriteTimes() {
    return new long[] {journalWrites.sum(), journalWriteNanos.sum()};
  }

  /**
   * Registers the gauge {@code almanac.projection.lag}: how far the projection that feeds the
   * instance table is behind the journal. Registering again replaces nothing (Micrometer keeps the
   * first gauge of a name): register once per node.
   *
   * @param lag read at each scrape; null or a failure reads as NaN
   */
  @Override
  public void projectionLag(Supplier<Duration> lag) {
    Objects.requireNonNull(lag, "lag");
    TimeGauge.builder("almanac.projection.lag", lag, TimeUnit.MILLISECONDS, s -> {
      try {
        Duration d = s.get();
        return d == null ? Double.NaN : d.toMillis();
      } catch (RuntimeException e) {
        return Double.NaN;
      }
    }).description("how far the instance table's projection is behind the journal").strongReference(true).register(registry);
  }

  @Override
  public boolean installed() {
    return true; // NONE is never installed, and StoreMeters answers its own NONE before a start
  }

  /**
   * When a window was meant to fire: its due time, plus its jitter offset for a task with jitter
   * (docs/schedules.md), so that the lag does not count the jitter.
   */
  static Instant firesAt(TaskJournal.State state, String window, Instant due) {
    io.almanac.journal.SpecRecord spec = state.spec();
    if (spec == null || spec.schedule() == null || spec.schedule().jitter() == null) {
      return due;
    }
    return due.plus(io.almanac.schedule.Jitter.offset(spec.id(), window, spec.schedule().jitter()));
  }

  /** The trigger's lag: started minus due, never negative (a clock step or skew). */
  static Duration lag(Instant due, Instant started) {
    Duration d = Duration.between(due, started);
    return d.isNegative() ? Duration.ZERO : d;
  }

  // ---------------------------------------------------------------------------------------------
  // Webhook alerts (almanac.alerts.webhook)

  /** The webhook delivered an alert (a 2xx answer). */
  public void webhookSent() {
    count("almanac.alerts.webhook.sent", null, "");
  }

  /** @param cause why an attempt to POST an alert failed: status, timeout, connect or error */
  public void webhookAttemptFailed(String cause) {
    count("almanac.alerts.webhook.failed.attempts", "cause", cause);
  }

  /** @param reason why an alert was not delivered: queue_full, gave_up, refused or closed */
  public void webhookDropped(String reason) {
    count("almanac.alerts.webhook.dropped", "reason", reason);
  }

  // ---------------------------------------------------------------------------------------------
  // Resource pools (only tasks that name pools record here)

  private final Map<String, Timer> poolLatency = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> poolInUse = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> poolWaiting = new ConcurrentHashMap<>();

  /**
   * One ask of the pools' store for a window of a pooled task: {@code almanac.pool.admissions} by
   * pool and outcome ({@code admitted}, {@code full}, {@code rate}, {@code paused}, {@code error})
   * and the round trip in {@code almanac.pool.admission.latency}.
   *
   * @param pools the pools asked
   * @param outcome what the store answered
   * @param nanos how long the store took
   */
  public void poolAdmission(java.util.List<String> pools, String outcome, long nanos) {
    for (String pool : pools) {
      counters.computeIfAbsent("almanac.pool.admissions|" + pool + "|" + outcome, k -> Counter.builder("almanac.pool.admissions")
          .tag("pool", pool).tag("outcome", outcome).description("asks of the pools' store for a window, by answer")
          .register(registry)).increment();
      poolLatency.computeIfAbsent(pool, k -> Timer.builder("almanac.pool.admission.latency").tag("pool", pool)
          .description("round trip of one admission through the pools' store")
          .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(10_000))
          .maximumExpectedValue(Duration.ofSeconds(10)).register(registry)).record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  /**
   * {@code almanac.pool.cost{pool}}: the cost the pool's attempts reported on this node, in the
   * operator's unit (counted from millionths).
   *
   * @param pool the pool
   * @param costMicros one attempt's cost, in millionths
   */
  public void poolCost(String pool, long costMicros) {
    counters.computeIfAbsent("almanac.pool.cost|" + pool, k -> Counter.builder("almanac.pool.cost").tag("pool", pool)
        .description("cost reported by the attempts of the pool's tasks on this node").register(registry))
        .increment(costMicros / 1_000_000.0);
  }

  /**
   * The pools' gauges: {@code almanac.pool.in-use} (holds across the cluster, as the store last
   * said) and {@code almanac.pool.waiting} (this node's windows queued for the pool).
   *
   * @param inUse holds per pool, or null when not known now
   * @param waiting queued windows per pool (absent: none)
   * @param declared every declared pool
   */
  public void pools(Map<String, Integer> inUse, Map<String, Integer> waiting, java.util.Collection<String> declared) {
    for (String pool : declared) {
      if (inUse != null) {
        poolGauge(poolInUse, "almanac.pool.in-use", "attempts holding a place in the pool across the cluster", pool)
            .set(inUse.getOrDefault(pool, 0));
      }
      poolGauge(poolWaiting, "almanac.pool.waiting", "windows queued on this node that wait for the pool", pool)
          .set(waiting.getOrDefault(pool, 0));
    }
  }

  private AtomicInteger poolGauge(Map<String, AtomicInteger> gauges, String name, String description, String pool) {
    return gauges.computeIfAbsent(pool, k -> {
      AtomicInteger v = new AtomicInteger();
      Gauge.builder(name, v, AtomicInteger::get).tag("pool", pool).description(description).register(registry);
      return v;
    });
  }
}
