package io.almanac.internal.meter;

import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 *       the task's newest SUCCEEDED window succeeded (epoch seconds; NaN until a success is known here)</td></tr>
 *   <tr><td>{@code almanac.task.never.succeeded}</td><td>gauge</td><td>{@code task}</td><td>1 while the task
 *       is known never to have succeeded, 0 once it has, NaN when this node does not know</td></tr>
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
 *       direction}</td><td>tokens by model: at most {@value Counts#MAX_MODEL_TAGS} model names get their own
 *       series on a node, later ones count as {@code other}, a usage without a model as {@code
 *       unknown}</td></tr>
 *   <tr><td>{@code almanac.usage.model.cost}</td><td>counter</td><td>{@code model}</td><td>cost by model,
 *       bounded the same way</td></tr>
 *   <tr><td>{@code almanac.budget.raises}</td><td>counter</td><td></td><td>operators' raises of a task's
 *       budget for the day</td></tr>
 *   <tr><td>{@code almanac.alerts.webhook.sent}</td><td>counter</td><td></td><td>alerts the webhook sink
 *       delivered (a 2xx answer); the webhook's counters exist on nodes that configure one</td></tr>
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
 * Every counter exists at zero before its first count, so that Prometheus's {@code increase()} sees
 * it: the node's own at construction, a task's when it is registered ({@link #tasksRegistered}: the
 * closed sets {@link Counts#taskSeries} lists), the webhook's and the pools' when configured
 * ({@link #webhookConfigured}, {@link #poolsDeclared}). Every meter has a description (the {@code
 * # HELP} line).
 *
 * The node's meters are found from its ActorSystem ({@link #of}), so a plugin that Pekko creates
 * (the journal) records into the node's registry. INTERNAL API.
 */
public final class NodeMeters implements io.almanac.spi.StoreMeters {

  /** Meters that record into a registry with no member: nothing is kept (unit tests, before a node starts). */
  public static final NodeMeters NONE = new NodeMeters(new CompositeMeterRegistry());

  private final MeterRegistry registry;
  /** The counters by name and tags (shared with {@link Counts}, which makes most of them). */
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Counts counts;
  private final HostedGauges hosted;
  private final WrittenMeters writes;
  private final TaskTags taskTags;
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
    TaskTags taskTags = new TaskTags(maxTaskTags);
    this.taskTags = taskTags;
    this.counts = new Counts(registry, counters);
    this.hosted = new HostedGauges(registry, taskTags);
    Gauge.builder("almanac.backlog", fresh, AtomicInteger::get).tag("queue", "fresh")
        .description("windows waiting in this node's executor for a slot").register(registry);
    Gauge.builder("almanac.backlog", backlog, AtomicInteger::get).tag("queue", "backlog")
        .description("windows waiting in this node's executor for a slot").register(registry);
    Gauge.builder("almanac.executor.running", running, AtomicInteger::get)
        .description("jobs running on this node").register(registry);
    Gauge.builder("almanac.executor.stuck", stuck, AtomicInteger::get)
        .description("cancelled jobs whose thread has not returned (JOB_STUCK)").register(registry);
    this.writes = new WrittenMeters(registry, counts, taskTags);
    io.micrometer.core.instrument.FunctionCounter.builder("almanac.journal.persists", journalPersists, LongAdder::sum)
        .description("persist calls (atomic writes) handed to the journal on this node").register(registry);
    io.micrometer.core.instrument.FunctionCounter.builder("almanac.journal.events", journalEvents, LongAdder::sum)
        .description("events (journal rows) handed to the journal on this node").register(registry);
    this.journalOk = journalTimer("ok");
    this.journalFailed = journalTimer("failed");
    nodeCountersAtZero();
  }

  /**
   * The node's counters without a task tag, made at zero at its start with every value of their
   * closed tag sets, so that Prometheus's {@code increase()} sees their first count. (Counters by
   * task: {@link #tasksRegistered}; the webhook's: {@link #webhookConfigured}; the pools':
   * {@link #poolsDeclared}. The by-model usage counters appear at a model's first report: their tag
   * values are not known before.)
   */
  private void nodeCountersAtZero() {
    counts.counter("almanac.retries.scheduled", null, null);
    counts.counter("almanac.windows.final.failed", null, null);
    counts.counter("almanac.budget.raises", null, null);
    for (String cause : List.of("lease_expired", "executor_gone")) {
      counts.counter("almanac.lease.expiries", "cause", cause);
    }
    for (String status : List.of("pending", "running", "retry_wait", "waiting")) { // the statuses a deadline watches
      counts.counter("almanac.deadlines.missed", "status", status);
    }
    for (String outcome : List.of("recorded", "overloaded", "unknown", "refused", "failed")) {
      counts.counter("almanac.publishes", "outcome", outcome);
    }
    counts.unknownModelSeries();
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
   * A task entity wrote these events: counts the decisions, attempts and lease expiries their window
   * status changes say ({@link WrittenMeters}), times the jobs that ended and the trigger's lag, and
   * keeps the task's gauges (its intervention queue among them).
   *
   * @param taskId the task
   * @param origin what brought the write about when it decides a fire (on-time or catch-up fire, an
   *     operator's run or backfill), or null
   * @param before the state before the write
   * @param after the state after it
   * @param events the events written (what they stand for: {@link TaskJournal#expand})
   * @param changes the window status changes they made ({@link io.almanac.journal.Evolve#applyAll}), in the same order
   */
  public void written(String taskId, Origin origin, State before, State after, List<Event> events,
      List<io.almanac.journal.WindowChange> changes) {
    Instant succeededAt = writes.written(taskId, origin, before, after, events, changes);
    if (hosted.hosted(taskId, after, succeededAt != null ? succeededAt : hosted.lastSuccess(taskId))) {
      tasksRegistered(List.of(taskId)); // its first write on this node (a cluster's task registered on another node)
    }
  }

  /**
   * A task entity recovered (or its queue may have changed): keeps its count of FINAL_FAILED windows.
   *
   * @param taskId the task
   * @param state its state
   */
  public void interventionQueue(String taskId, State state) {
    if (hosted.hosted(taskId, state, state.defined() && !state.removed() ? state.table().lastSucceededAt() : null)) {
      tasksRegistered(List.of(taskId));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Registration: every series of a task at zero before its first count

  /** The task tags whose series are made ({@link #taskSeries}). */
  private final java.util.Set<String> seriesMade = ConcurrentHashMap.newKeySet();

  /**
   * Tasks were registered (on the node that registered them, and on the node of the trigger that
   * recorded them or recovered them): makes their series at zero, once per task, so that the first
   * fire, decision or attempt of each is an increase that Prometheus's {@code increase()} and {@code
   * rate()} see. Which series: {@link Counts#taskSeries}, and the task's gauges {@code
   * almanac.task.last.success.timestamp} (NaN until a success is known here) and {@code
   * almanac.task.never.succeeded}. A task whose entity starts on a node that did neither gets them
   * there at its entity's first write or recovery. Costs a lookup per task for tasks past the cap of
   * {@code almanac.metrics.max-task-tags} (they share one set of series); never called per fire.
   *
   * @param taskIds the tasks
   */
  public void tasksRegistered(java.util.Collection<String> taskIds) {
    if (taskIds.isEmpty() || this == NONE) { // NONE keeps nothing: no need to make what nobody reads
      return;
    }
    List<String> ids = List.copyOf(taskIds);
    seriesMaker.execute(() -> ids.forEach(this::taskSeries));
  }

  /**
   * Where the series of registered tasks are made ({@link #tasksRegistered}): at once on the calling
   * thread until the node sets its dispatcher here. Registering a meter costs tens of microseconds
   * (about 35 per task): 1,000 tasks would hold the trigger's actor, or a registration's answer, for
   * a second or two.
   */
  private volatile java.util.concurrent.Executor seriesMaker = Runnable::run;

  /**
   * Makes the series of registered tasks on this executor from now on, off the trigger's actor and
   * off the registration's answer (the node's start).
   *
   * @param executor where to make them, e.g. the ActorSystem's dispatcher
   */
  public void makeSeriesOn(java.util.concurrent.Executor executor) {
    this.seriesMaker = Objects.requireNonNull(executor, "executor");
  }

  /**
   * Tasks the trigger recorded that it did not have before (a first registration): as {@link
   * #tasksRegistered}, and until the trigger has an answer to a fire of one ({@link #fired}), this
   * node's {@code almanac.task.never.succeeded} says 1 for it (it cannot have succeeded), unless its
   * entity runs here and says more.
   *
   * @param taskIds the tasks new to the trigger
   */
  public void tasksFirstRegistered(java.util.Collection<String> taskIds) {
    for (String id : taskIds) {
      if (!TaskTags.OTHER.equals(taskTags.tag(id))) { // a task under ~other has no gauge of its own
        hosted.firstRegistered(id);
      }
    }
    tasksRegistered(taskIds);
  }

  private void taskSeries(String taskId) {
    String tag = taskTags.tag(taskId);
    if (seriesMade.add(tag)) {
      counts.taskSeries(tag);
      hosted.taskGauges(taskId, tag);
    }
  }

  /** What brought about a task's write that decides fires. */
  public enum Origin {
    ON_TIME, CATCH_UP, MANUAL, BACKFILL;

    public static Origin of(FireKind kind) {
      return kind == FireKind.CATCH_UP ? CATCH_UP : ON_TIME;
    }
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
    writes.covered(taskId, range, catchUp);
  }

  private void count(String name, String tag, String value) {
    counts.count(name, tag, value);
  }

  private static String name(Enum<?> e) {
    return Counts.name(e);
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
    counts.fire(taskTags.tag(taskId), name(kind), result);
    hosted.fired(taskId);
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

  // ---------------------------------------------------------------------------------------------
  // Webhook alerts (almanac.alerts.webhook)

  /**
   * A webhook is configured ({@code almanac.alerts.webhook}): its counters are made at zero, with
   * every cause and reason. A node without a webhook has none of them.
   */
  public void webhookConfigured() {
    counts.counter("almanac.alerts.webhook.sent", null, "");
    for (String cause : List.of("status", "timeout", "connect", "error")) {
      counts.counter("almanac.alerts.webhook.failed.attempts", "cause", cause);
    }
    for (String reason : List.of("queue_full", "gave_up", "refused", "closed")) {
      counts.counter("almanac.alerts.webhook.dropped", "reason", reason);
    }
  }

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
      admissions(pool, outcome).increment();
      admissionLatency(pool).record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  /** The pools' admission outcomes: admitted, and each refusal of the store ({@link io.almanac.PoolWaitReason}), and error. */
  private static final List<String> ADMISSION_OUTCOMES = List.of("admitted", "full", "rate", "paused", "budget", "error");

  /**
   * The node's pools are declared (its start): each pool's meters are made at zero ({@code
   * almanac.pool.admissions} with every outcome, {@code almanac.pool.admission.latency}, {@code
   * almanac.pool.cost}, {@code almanac.pool.in-use} and {@code almanac.pool.waiting}). A node without
   * pools has none of them.
   *
   * @param pools the declared pools' names
   */
  public void poolsDeclared(java.util.Collection<String> pools) {
    for (String pool : pools) {
      for (String outcome : ADMISSION_OUTCOMES) {
        admissions(pool, outcome);
      }
      admissionLatency(pool);
      poolCostCounter(pool);
      poolGauge(poolInUse, "almanac.pool.in-use", "attempts holding a place in the pool across the cluster", pool);
      poolGauge(poolWaiting, "almanac.pool.waiting", "windows queued on this node that wait for the pool", pool);
    }
  }

  private Counter admissions(String pool, String outcome) {
    return counters.computeIfAbsent("almanac.pool.admissions|" + pool + "|" + outcome, k -> Counter.builder(
        "almanac.pool.admissions").tag("pool", pool).tag("outcome", outcome)
        .description("asks of the pools' store for a window, by answer").register(registry));
  }

  private Timer admissionLatency(String pool) {
    return poolLatency.computeIfAbsent(pool, k -> Timer.builder("almanac.pool.admission.latency").tag("pool", pool)
        .description("round trip of one admission through the pools' store")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(10_000))
        .maximumExpectedValue(Duration.ofSeconds(10)).register(registry));
  }

  private Counter poolCostCounter(String pool) {
    return counters.computeIfAbsent("almanac.pool.cost|" + pool, k -> Counter.builder("almanac.pool.cost").tag("pool", pool)
        .description("cost reported by the attempts of the pool's tasks on this node").register(registry));
  }

  /**
   * {@code almanac.pool.cost{pool}}: the cost the pool's attempts reported on this node, in the
   * operator's unit (counted from millionths).
   *
   * @param pool the pool
   * @param costMicros one attempt's cost, in millionths
   */
  public void poolCost(String pool, long costMicros) {
    poolCostCounter(pool).increment(costMicros / 1_000_000.0);
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
