package io.almanac;

import io.almanac.internal.executor.JobRegistry;
import io.almanac.internal.meter.MessageTap;
import io.almanac.internal.node.Node;
import io.almanac.internal.protocol.TaskProtocol;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.pattern.StatusReply;

/**
 * Almanac's entry point: start it on an ActorSystem, register tasks and their jobs, and operate
 * them. Embedded, the node is a one-node Pekko cluster that joins itself; the same code runs as a
 * multi-node cluster with configuration only (R10).
 *
 * <pre>{@code
 * Almanac almanac = Almanac.builder(system).job("digest", new DigestJob()).start();
 * almanac.register(TaskSpec.builder("daily-digest").cron("0 0 8 * * ? Asia/Shanghai").job("digest").build());
 * }</pre>
 *
 * Every operation returns a {@link CompletionStage}; a refused operation (bad input, an unknown
 * task or window, an illegal transition) fails it with an {@link AlmanacException} whose message
 * names the field and the value (R33).
 */
public final class Almanac {
  private final Node node;
  private final Clock clock;
  private final JobRegistry jobs;
  private final TaskAsks asks;
  private final EventIntake intake;
  private final Registrar registrar;
  final WindowActions actions; // an Operator's too

  private Almanac(Node node) {
    this.node = node;
    this.clock = node.clock();
    this.jobs = node.jobs();
    this.asks = new TaskAsks(node);
    this.intake = new EventIntake(node);
    this.registrar = new Registrar(asks, node);
    this.actions = new WindowActions(asks, node);
  }

  /**
   * Starts Almanac with the system clock and the logging alert sink, registering the tasks declared
   * in {@code almanac.tasks}.
   *
   * @param system the actor system (its provider must be {@code cluster}; see almanac-embedded.conf)
   * @return the running Almanac
   * @throws InvalidSpecException if a setting or a declared task is invalid
   */
  public static Almanac start(ActorSystem<?> system) {
    return builder(system).start();
  }

  /**
   * @param system the actor system
   * @return a builder to set the clock, the alert sink and the jobs before starting
   */
  public static Builder builder(ActorSystem<?> system) {
    return new Builder(system);
  }

  /** Sets up and starts Almanac on an actor system. */
  public static final class Builder {
    private final ActorSystem<?> system;
    private Clock clock = Clock.systemUTC();
    private AlertSink alerts; // null: AlertSinks.logging(almanac.alerts.summary-interval)
    private MeterRegistry meterRegistry;
    private MessageTap tap;
    private io.opentelemetry.api.OpenTelemetry openTelemetry;
    private final JobRegistry jobs = new JobRegistry();

    private Builder(ActorSystem<?> system) {
      this.system = Objects.requireNonNull(system, "system");
    }

    /**
     * @param clock where all of Almanac's time comes from (default {@link Clock#systemUTC()}; tests
     *     pass an {@code io.almanac.testkit.SettableClock} from the {@code almanac-testkit} artifact)
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @param sink where final failures, repeated skips and a stalled trigger are reported (R32);
     *     default {@link AlertSinks#logging(Duration)} with {@code almanac.alerts.summary-interval}; a
     *     webhook configured in {@code almanac.alerts.webhook} gets every alert too, whichever sink this is
     * @return this builder
     */
    public Builder alertSink(AlertSink sink) {
      this.alerts = Objects.requireNonNull(sink, "alertSink");
      return this;
    }

    /**
     * Where the node's meters go (Micrometer; every meter is named {@code almanac.*}: fires and
     * decisions, attempts by outcome, job durations per task, lease expiries, the intervention queue,
     * the trigger's lag, the executor's backlog, journal writes). The node records into a {@link
     * CompositeMeterRegistry} of its own ({@link Almanac#meterRegistry()}) with this registry as a
     * member, so more registries can be added to it later (the HTTP module adds a Prometheus one
     * for {@code GET /metrics}). Optional: without it, the node's composite has no member until one
     * is added, and keeps nothing.
     *
     * @param registry a registry of the application (e.g. its Prometheus, StatsD or OTLP registry)
     * @return this builder
     */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
      return this;
    }

    /**
     * Where the node's spans of attempts and their steps go (docs/tracing.md). Default, as the node
     * starts: the global OpenTelemetry when it is set (the OpenTelemetry Java agent's) or when the
     * SDK's autoconfigure is asked for ({@code OTEL_JAVA_GLOBAL_AUTOCONFIGURE_ENABLED=true}), else the
     * no-op, which the node does not make the global. With the no-op nothing is traced and an attempt
     * costs nothing more.
     *
     * @param openTelemetry the OpenTelemetry of the application ({@code OpenTelemetry.noop()} to trace nothing)
     * @return this builder
     */
    public Builder openTelemetry(io.opentelemetry.api.OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /**
     * Sees every message the trigger, the task entities and the executor receive (tests that count a
     * fire's cost). INTERNAL API.
     *
     * @param tap the tap
     * @return this builder
     */
    Builder messageTap(MessageTap tap) {
      this.tap = tap;
      return this;
    }

    /**
     * Registers a job under a name that task specs refer to ({@link TaskSpec#job()}). Jobs are code:
     * register them on every node, before tasks that use them fire.
     *
     * @param name the job's name
     * @param job the job
     * @return this builder
     */
    public Builder job(String name, AgentJob job) {
      jobs.register(name, job);
      return this;
    }

    /**
     * Registers a condition under the name condition triggers use ({@link ConditionTrigger#name()}).
     * Conditions are code: register them on every node that runs tasks.
     *
     * @param name the condition's name
     * @param condition the predicate
     * @return this builder
     */
    public Builder condition(String name, Condition condition) {
      jobs.registerCondition(name, condition);
      return this;
    }

    /**
     * Declares a resource pool ({@link PoolSpec}) that tasks name with {@link
     * TaskSpec.Builder#pools(String...)}; as {@code almanac.pools.<name>} does. Declare the same pools
     * on every node.
     *
     * @param pool the pool
     * @return this builder
     * @throws InvalidSpecException if a pool of that name with other limits is declared already
     */
    public Builder pool(PoolSpec pool) {
      jobs.registerPool(pool);
      return this;
    }

    /**
     * Declares an exclusion calendar in code, which the tasks of {@code almanac.tasks} may name
     * ({@code calendars = [name]}) as they name those of {@code almanac.calendars}; a task built in
     * code takes the calendar itself ({@link TaskSpec.Builder#exclude}). A name declared both here and
     * in {@code almanac.calendars} is refused at start. See docs/schedules.md.
     *
     * @param calendar the calendar
     * @return this builder
     */
    public Builder calendar(ExclusionCalendar calendar) {
      jobs.registerCalendar(java.util.Objects.requireNonNull(calendar, "calendar"));
      return this;
    }

    /**
     * Starts the node: joins the cluster (itself, when embedded), starts the task shards, the
     * trigger singleton, this node's executor and watchdog, and registers the tasks declared in
     * {@code almanac.tasks}.
     *
     * @return the running Almanac
     * @throws InvalidSpecException if a setting or a declared task is invalid
     */
    public Almanac start() {
      jobs.openTelemetry(openTelemetry != null ? openTelemetry : io.almanac.internal.trace.AttemptTracing.nodeDefault());
      Almanac almanac = new Almanac(Node.start(system, clock, alerts, meterRegistry, tap, jobs));
      almanac.node.begin(almanac::registerAll, almanac.intake::closeSources);
      return almanac;
    }
  }

  /**
   * The node's health: live while its ActorSystem runs; ready when it is an up member of its
   * cluster, the tasks declared in {@code almanac.tasks} are registered ({@link #ready()}), and the
   * trigger (wherever it runs in the cluster) answers within the ask timeout, has looked at its queue
   * within {@code almanac.alerts.trigger-stall-after}, and has written its watermark to the journal
   * within that time (so the journal takes writes), and this node's executor holds its lease (when
   * one is configured) and has no more stuck jobs than {@code almanac.executor.max-stuck-jobs}. Never
   * fails: a check that cannot be made is a failed check, with the reason.
   *
   * @return the checks, completed within about the ask timeout
   */
  public CompletionStage<NodeHealth> health() {
    return node.health();
  }

  /**
   * Completes when this node is ready: the tasks declared in {@code almanac.tasks} are stored and
   * the trigger answers. Fails (with an {@link AlmanacException}) when that did not happen within
   * {@code almanac.node.registration-timeout}, or a declared task was refused.
   *
   * @return the node's readiness
   */
  public CompletionStage<Done> ready() {
    return node.ready();
  }

  /** @return how long {@link #ready()} waits before it fails (almanac.node.registration-timeout) */
  Duration registrationTimeout() {
    return node.registrationTimeout();
  }

  <T> CompletionStage<T> retrying(String what, java.util.function.Supplier<CompletionStage<T>> attempt) {
    return node.retrying(what, attempt);
  }

  // ---------------------------------------------------------------------------------------------
  // Registration

  /**
   * Registers a job under a name task specs refer to.
   *
   * @param name the job's name
   * @param job the job
   * @return this Almanac
   */
  public Almanac registerJob(String name, AgentJob job) {
    jobs.register(name, job);
    return this;
  }

  /**
   * Registers a condition under the name condition triggers use, as {@link Builder#condition} does.
   *
   * @param name the condition's name
   * @param condition the predicate
   * @return this Almanac
   */
  public Almanac registerCondition(String name, Condition condition) {
    jobs.registerCondition(name, condition);
    return this;
  }

  // ---------------------------------------------------------------------------------------------
  // Events (R9)

  /**
   * Publishes an event to the tasks that listen to its type (their {@link EventTrigger}). Each task
   * maps it to a window and records it in its journal before the stage completes: a new window is
   * created (or waits for its dependency or condition), an existing one counts it, and an id that
   * arrived before is counted as a duplicate.
   *
   * <p>Each task's queue of publishes from this node is bounded ({@code
   * almanac.task.max-pending-publishes}, per node): a publish that finds a listening task's queue full
   * is refused at once, before any task sees it. A failed stage says whether the event was stored:
   *
   * <ul>
   *   <li>nothing was stored, by any task, when it fails with {@link InvalidSpecException} (a malformed
   *       event), {@link RefusedException} {@link RefusedException.Reason#UNKNOWN_EVENT_TYPE} (no task
   *       listens to its type), or {@link OverloadedException} (a listening task's queue is full, or
   *       the trigger did not say within {@code almanac.executor.ask-timeout} which tasks listen, so the
   *       event was sent to none: publish again after {@link OverloadedException#retryAfter()});
   *   <li>the outcome is unknown when it fails with {@link PublishOutcomeUnknownException}: a task did
   *       not answer within {@code almanac.executor.ask-timeout} and may record the event later, or
   *       never; publishing it again with the same id is safe (a task that recorded it counts a
   *       duplicate);
   *   <li>a listening task refused it when it fails with any other {@link RefusedException} (its
   *       schedule failed, it was removed meanwhile): that task stored nothing; with several listening
   *       tasks, the message names the others that recorded it.
   * </ul>
   *
   * @param event the event
   * @return what each listening task did; fails as listed above
   */
  public CompletionStage<PublishResult> publish(IncomingEvent event) {
    return intake.publish(event);
  }

  /**
   * Publishes several events in one call: each listening task receives all of its events in one
   * message and records them in one journal write, decided one by one in the list's order exactly as
   * {@link #publish(IncomingEvent)} decides each (an id seen before, in the task's history or earlier
   * in the list, is a {@link PublishResult.Outcome#DUPLICATE}; later events of a window the list
   * creates are {@link PublishResult.Outcome#COALESCED}). Much cheaper than as many single publishes:
   * one slot of each task's queue and one write per task, whatever the list's length.
   *
   * <p>The batch succeeds or fails as a whole, with the failures of {@link #publish(IncomingEvent)}:
   * a null list, a null element or an invalid event fails with {@link InvalidSpecException} naming it
   * ({@code events[i]...}) and the value, and nothing is stored; so does a type no task listens to,
   * or a missing event time for a task that maps by event time. A task's refusal stores nothing in
   * that task (the message names the tasks that recorded the batch); {@link
   * PublishOutcomeUnknownException}: a task did not answer and may record the batch later, and
   * publishing the same list again is safe (each id already recorded counts a duplicate).
   *
   * @param events the events, in order (may be empty)
   * @return one result per event, in the list's order; fails as listed above
   */
  public CompletionStage<List<PublishResult>> publishAll(List<IncomingEvent> events) {
    return intake.publishAll(events);
  }

  /**
   * Publishes an event; see {@link #publish(IncomingEvent)}.
   *
   * @param type the event type
   * @param eventId the event's id
   * @param eventTime when it happened, or null for tasks that map events by their arrival
   * @param summary a short description, or null
   * @return what each listening task did
   */
  public CompletionStage<PublishResult> publish(String type, String eventId, Instant eventTime, String summary) {
    return publish(IncomingEvent.of(type, eventId).withEventTime(eventTime).withSummary(summary));
  }

  /**
   * Starts an event source (a message-queue consumer) that publishes into this node; it is closed
   * when the node stops.
   *
   * @param source the source
   * @return this Almanac
   * @throws AlmanacException if the source fails to start
   */
  public Almanac attach(EventSource source) {
    intake.attach(source, this::publish);
    return this;
  }

  /**
   * Defines or updates a task and starts firing its windows. Safe to call at every start.
   *
   * @param spec the task
   * @return completes when the task is stored and the trigger knows it
   * @throws InvalidSpecException at once if the spec is invalid, or its job ({@link TaskSpec#job()})
   *     is neither registered here nor the name of an {@link AgentJob} class with a public
   *     no-argument constructor (field {@code job}, with the value)
   */
  public CompletionStage<Done> register(TaskSpec spec) {
    return registerAll(List.of(spec));
  }

  /**
   * Defines or updates a task bound to a job, registering the job under the spec's job name (the
   * task's id unless the spec names another).
   *
   * @param spec the task
   * @param job its job
   * @return completes when the task is stored and the trigger knows it
   */
  public CompletionStage<Done> register(TaskSpec spec, AgentJob job) {
    jobs.register(spec.job() != null ? spec.job() : spec.id(), job);
    return register(spec);
  }

  /**
   * Defines or updates many tasks; the trigger records them in batches.
   *
   * @param specs the tasks
   * @return completes when all are stored and the trigger knows them
   */
  public CompletionStage<Done> registerAll(Collection<TaskSpec> specs) {
    return registrar.registerAll(specs);
  }

  // ---------------------------------------------------------------------------------------------
  // Operations (R31)

  /**
   * Pauses a task: windows that fall due are recorded as skipped (PAUSED) until it is resumed, and
   * no attempt of it that has not started starts: its PENDING windows of every kind (retries,
   * backfills, catch-ups, manual runs) and its windows waiting for a retry keep their status and
   * start after {@link #resume}. Attempts already running run to their result ({@link #cancel}
   * stops one).
   *
   * @param taskId the task
   * @return completes when the pause is recorded
   */
  public CompletionStage<Done> pause(String taskId) {
    return actions.pause(taskId, DEFAULT_ACTOR, null);
  }

  /**
   * The operator actions done as {@code actor}: each is recorded in the task's journal with that
   * name (shown by "why", the timeline and the audit). The plain methods of this class act as
   * {@value #DEFAULT_ACTOR}.
   *
   * <pre>{@code
   * almanac.as("alice").retry("daily-digest", WindowKey.of("2026-11-29"), "provider fixed");
   * }</pre>
   *
   * @param actor who acts: 1 to {@value Operator#MAX_ACTOR_LENGTH} characters, letters, digits and
   *     {@code . _ @ -}
   * @return the operator actions as that actor
   * @throws InvalidSpecException naming {@code actor} and the value when it is not such a name
   */
  public Operator as(String actor) {
    return new Operator(this, Operator.checkedActor(actor));
  }

  /** The actor the plain operator methods of this class record: {@value}. */
  public static final String DEFAULT_ACTOR = "java-api";

  CompletionStage<DailyUsage> raiseBudget(String taskId, java.math.BigDecimal amount, String note, String actor) {
    return actions.raiseBudget(taskId, amount, note, actor);
  }

  /**
   * Resumes a paused task: windows fall due again, its PENDING windows start, and the retries that
   * fell due while it was paused become PENDING in the same write.
   *
   * @param taskId the task
   * @return completes when the resume is recorded
   */
  public CompletionStage<Done> resume(String taskId) {
    return actions.resume(taskId, DEFAULT_ACTOR, null);
  }

  /**
   * Runs the window that contains now, as a manual run, unless it already ran.
   *
   * @param taskId the task
   * @return what the task decided
   */
  public CompletionStage<FireDecision> runNow(String taskId) {
    return actions.runNow(taskId, DEFAULT_ACTOR, null);
  }

  /**
   * Schedules every window due in (from, to] as a backfill; windows that already ran are recorded
   * as skipped (WINDOW_EXISTS). Backfills start at the configured backlog rate (R17).
   *
   * @param taskId the task
   * @param from the start of the range (exclusive)
   * @param to the end of the range (inclusive), not in the future
   * @return what the task decided for each window
   */
  public CompletionStage<List<FireDecision>> backfill(String taskId, Instant from, Instant to) {
    return actions.backfill(taskId, from, to, DEFAULT_ACTOR, null);
  }

  /**
   * What {@link #backfill} would decide for each window due in (from, to], decided by the task as a
   * backfill is and refused as it would be, with nothing written and nothing run (a dry run).
   *
   * @param taskId the task
   * @param from the start of the range (exclusive)
   * @param to the end of the range (inclusive), not in the future
   * @return what the task would decide for each window
   */
  public CompletionStage<List<FireDecision>> planBackfill(String taskId, Instant from, Instant to) {
    return actions.planBackfill(taskId, from, to);
  }

  /**
   * Runs a FINAL_FAILED, cancelled, skipped or missed window again (R15).
   *
   * @param taskId the task
   * @param window the window
   * @return completes when the window is PENDING again
   */
  public CompletionStage<Done> retry(String taskId, WindowKey window) {
    return actions.retry(taskId, window, DEFAULT_ACTOR, null, null);
  }

  /**
   * {@link #retry(String, WindowKey)} as decided on the window's state {@code expecting}: refused
   * ({@link RefusedException.Reason#STALE_WINDOW}), changing nothing, when the window is no longer in
   * it. Concurrent actions on one window that each expect the version they observed take effect at
   * most once per version ({@link Expecting}).
   *
   * @param taskId the task
   * @param window the window
   * @param expecting the window's version and/or status the retry was decided on; null: any
   * @return completes when the window is PENDING again
   */
  public CompletionStage<Done> retry(String taskId, WindowKey window, Expecting expecting) {
    return actions.retry(taskId, window, DEFAULT_ACTOR, null, expecting);
  }

  /**
   * Marks a FINAL_FAILED window resolved: it leaves the intervention queue (R15).
   *
   * @param taskId the task
   * @param window the window
   * @param note what the operator did
   * @return completes when recorded
   */
  public CompletionStage<Done> resolve(String taskId, WindowKey window, String note) {
    return actions.resolve(taskId, window, note, DEFAULT_ACTOR, null);
  }

  /**
   * {@link #resolve(String, WindowKey, String)} as decided on the window's state {@code expecting}
   * (see {@link #retry(String, WindowKey, Expecting)}).
   *
   * @param taskId the task
   * @param window the window
   * @param note what the operator did
   * @param expecting the window's version and/or status the resolve was decided on; null: any
   * @return completes when recorded
   */
  public CompletionStage<Done> resolve(String taskId, WindowKey window, String note, Expecting expecting) {
    return actions.resolve(taskId, window, note, DEFAULT_ACTOR, expecting);
  }

  /**
   * Cancels a pending, running or retry-waiting window; a running job is cancelled.
   *
   * @param taskId the task
   * @param window the window
   * @param reason why
   * @return completes when recorded
   */
  public CompletionStage<Done> cancel(String taskId, WindowKey window, String reason) {
    return actions.cancel(taskId, window, reason, DEFAULT_ACTOR, null);
  }

  /**
   * {@link #cancel(String, WindowKey, String)} as decided on the window's state {@code expecting}
   * (see {@link #retry(String, WindowKey, Expecting)}).
   *
   * @param taskId the task
   * @param window the window
   * @param reason why
   * @param expecting the window's version and/or status the cancel was decided on; null: any
   * @return completes when recorded
   */
  public CompletionStage<Done> cancel(String taskId, WindowKey window, String reason, Expecting expecting) {
    return actions.cancel(taskId, window, reason, DEFAULT_ACTOR, expecting);
  }

  /**
   * Cancels, in one call and one journal write, every window of a task that has not started yet
   * (PENDING, RETRY_WAIT or WAITING) whose due time is in (from, to] and whose next attempt is of
   * the given kind: for instance what a backfill of (from, to] scheduled and has not run. Each is
   * recorded CANCELLED with the reason, as {@link #cancel} records one. Running attempts are left
   * alone ({@link #cancel} stops one). The windows are those in the task's hot state (every window
   * that has not started is).
   *
   * @param taskId the task
   * @param from the range's start (exclusive), by the windows' due time; null: no start
   * @param to the range's end (inclusive); null: no end
   * @param kind the run kind of the windows' next attempt ({@link RunKind#RETRY} for a window
   *     waiting for a retry; {@link RunKind#BACKFILL} for backfills and catch-ups); null: any kind
   * @param reason why (recorded with each window), or null
   * @return the windows cancelled, oldest first (their number is how many; none is not an error);
   *     fails with a {@link RefusedException} naming the field ({@code from} not before {@code
   *     to}, {@code reason} too long), and then nothing is stored
   */
  public CompletionStage<List<WindowKey>> cancelAll(String taskId, Instant from, Instant to, RunKind kind, String reason) {
    return actions.cancelAll(taskId, from, to, kind, reason, DEFAULT_ACTOR);
  }

  /**
   * What {@link #cancelAll} would cancel, decided by the task as the cancel is and refused as it
   * would be, with nothing written (a dry run).
   *
   * @param taskId the task
   * @param from the range's start (exclusive), by the windows' due time; null: no start
   * @param to the range's end (inclusive); null: no end
   * @param kind the run kind of the windows' next attempt; null: any kind
   * @return the windows it would cancel, oldest first
   */
  public CompletionStage<List<WindowKey>> planCancelAll(String taskId, Instant from, Instant to, RunKind kind) {
    return actions.planCancelAll(taskId, from, to, kind);
  }

  /**
   * Removes a task (R31). The trigger stops firing it (also after a restart), then its PENDING,
   * RUNNING and RETRY_WAIT windows are cancelled with the reason {@code task removed} (a running job
   * is cancelled) and the task records {@code TaskRemoved}. Its journal is kept: {@link #task}, {@link
   * #windows} and {@link #interventionQueue(String)} still answer from its history (the task view
   * says when it was removed), and the audit still verifies it. Any other operation on it is
   * refused with {@link RefusedException.Reason#REMOVED}. Registering the same id again defines it
   * anew: windows due from then on fire; a window that already ran before the removal is not run
   * again (R5). Removing a removed task again is acknowledged, so a removal that failed half way can
   * be repeated. A task declared in {@code almanac.tasks} must also be taken out of the
   * configuration, or the next start registers it again.
   *
   * @param taskId the task
   * @return completes when the removal is recorded by the task and by the trigger; fails with
   *     {@link RefusedException.Reason#UNKNOWN_TASK} for a task never defined
   */
  public CompletionStage<Done> remove(String taskId) {
    return actions.remove(taskId);
  }

  // ---------------------------------------------------------------------------------------------
  // Usage and budgets

  /**
   * Raises a task's budget for today, in the task's zone, by an amount: its further windows of the
   * day run again while the day's cost stays below the raised limit; the next day starts afresh at
   * the spec's budget. Recorded in the task's journal as an operator action ({@code BudgetRaised},
   * shown in the audit and in "why"). Raises of one day add up.
   *
   * @param taskId the task
   * @param amount how much to raise today's limit by: more than 0, at most 6 decimal places
   * @param note the operator's note (why), or null
   * @return the day's usage and budget after the raise; fails with an {@link InvalidSpecException}
   *     or {@link RefusedException} naming the field ({@code amount}, {@code note}, {@code
   *     budgetPerDay} for a task without a budget) and the value, and nothing is stored
   */
  public CompletionStage<DailyUsage> raiseBudget(String taskId, java.math.BigDecimal amount, String note) {
    return raiseBudget(taskId, amount, note, DEFAULT_ACTOR);
  }

  /**
   * @param taskId the task
   * @return what the task used today (in its zone) and its budget for the day
   */
  public CompletionStage<DailyUsage> usage(String taskId) {
    return this.<TaskProtocol.UsageInfo>ask(taskId, TaskProtocol.GetUsage::new).thenApply(TaskProtocol.UsageInfo::usage);
  }

  /**
   * Raises a resource pool's budget for today, in the pool's zone, by an amount: the windows of the
   * tasks naming it start again while the day's cost (summed over the cluster) stays below the
   * raised limit; the next day starts afresh at the pool's budget. Recorded in the pool's journal
   * with who raised it and the note (shown by the audit; it holds on every node of the cluster);
   * raises of one day add up. Recorded as by {@value #DEFAULT_ACTOR}; {@link Operator#raisePoolBudget}
   * names the operator.
   *
   * @param pool the pool, declared on this node with a budget per day
   * @param amount how much to raise today's limit by: more than 0, at most 6 decimal places
   * @param note the operator's note (why), or null
   * @return the pool after the raise; fails with a {@link RefusedException} naming the field ({@code
   *     pool} for an unknown pool, {@code amount}, {@code note}, {@code budgetPerDay} for a pool without
   *     a budget) and the value, and nothing is stored
   */
  public CompletionStage<PoolUsage> raisePoolBudget(String pool, java.math.BigDecimal amount, String note) {
    return raisePoolBudget(pool, amount, note, DEFAULT_ACTOR);
  }

  CompletionStage<PoolUsage> raisePoolBudget(String pool, java.math.BigDecimal amount, String note, String actor) {
    PoolSpec spec = pool == null ? null : jobs.pools().get(pool);
    RefusedException refused = null;
    long micros = 0;
    if (spec == null) {
      refused = RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "pool", pool,
          "no pool is declared under this name; declared: " + new java.util.TreeSet<>(jobs.pools().keySet()));
    } else {
      try {
        micros = io.almanac.journal.BudgetRules.checkRaise(amount, note, node.taskSettings().maxReasonLength());
      } catch (RefusedException e) {
        refused = e;
      }
    }
    if (refused == null && spec.budgetPerDay() == null) {
      refused = RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "budgetPerDay", null, "pool '" + pool
          + "' has no budget per day to raise (set almanac.pools." + pool + ".budget-per-day)");
    }
    if (refused != null) {
      return java.util.concurrent.CompletableFuture.failedFuture(refused);
    }
    java.time.LocalDate today = java.time.LocalDate.ofInstant(clock.instant(), spec.zone());
    long by = micros;
    return node.poolStore().raiseBudget(pool, today, by, actor, note).thenCompose(day -> {
      org.slf4j.LoggerFactory.getLogger(Almanac.class).info("pool '{}': budget for {} ({}) raised by {} to {} ({}){}",
          pool, today, spec.zone(), Usage.fromMicros(by).toPlainString(),
          Usage.fromMicros(day.limitMicros(spec.budgetPerDayMicros())).toPlainString(), actor,
          note == null ? "" : ": " + note);
      return inUse().thenApply(held -> poolUsage(spec, day, held));
    });
  }

  /**
   * @return every pool declared on this node, by name: its limits, its holds across the cluster and
   *     today's cost and budget (each pool's day in its zone)
   */
  public CompletionStage<List<PoolUsage>> pools() {
    List<PoolSpec> specs = new java.util.ArrayList<>(jobs.pools().values());
    specs.sort(java.util.Comparator.comparing(PoolSpec::name));
    if (specs.isEmpty()) {
      return java.util.concurrent.CompletableFuture.completedFuture(List.of());
    }
    io.almanac.spi.PoolStore store = node.poolStore();
    java.time.Instant now = clock.instant();
    return inUse().thenCompose(held -> {
      java.util.concurrent.CompletableFuture<List<PoolUsage>> all =
          java.util.concurrent.CompletableFuture.completedFuture(new java.util.ArrayList<>());
      for (PoolSpec p : specs) {
        java.time.LocalDate today = java.time.LocalDate.ofInstant(now, p.zone());
        all = all.thenCombine(store.dayUsage(p.name(), today).toCompletableFuture(), (list, day) -> {
          list.add(poolUsage(p, day, held));
          return list;
        });
      }
      return all.thenApply(List::copyOf);
    });
  }

  /** The pools' holds across the cluster, or null when the store could not be asked. */
  private CompletionStage<java.util.Map<String, Integer>> inUse() {
    try {
      return node.poolStore().inUse().exceptionally(e -> null);
    } catch (RuntimeException e) {
      return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
  }

  private static PoolUsage poolUsage(PoolSpec p, io.almanac.spi.PoolStore.PoolDay day, java.util.Map<String, Integer> held) {
    Long budget = p.budgetPerDayMicros();
    return PoolUsage.builder().pool(p.name()).maxConcurrent(p.maxConcurrent()).rate(p.rateText())
        .inUse(held == null ? null : held.getOrDefault(p.name(), 0)).day(day.day()).zone(p.zone().getId())
        .cost(Usage.fromMicros(day.costMicros())).attempts(day.attempts())
        .budgetPerDay(budget == null ? null : Usage.fromMicros(budget)).raised(Usage.fromMicros(day.raisedMicros()))
        .limit(budget == null ? null : Usage.fromMicros(day.limitMicros(budget)))
        .exhausted(budget != null && io.almanac.journal.BudgetRules.spent(day.costMicros(), budget, day.raisedMicros()))
        .build();
  }

  // ---------------------------------------------------------------------------------------------
  // Operators' pages: the cluster's nodes, the alert history

  /**
   * The most alerts one page of {@link #alerts} holds: a page crosses the cluster in one message
   * when the history is on another node, and stays well under remoting's frame (256 KiB by default).
   */
  public static final int MAX_ALERTS_PAGE = 100;

  /**
   * The cluster as an operator sees it: its members, each member's executor (its lease, slots in use
   * and queued), where the trigger runs, and each pool declared on this node with its holders and
   * waiters. Every member is asked over the cluster with the ask timeout ({@code
   * almanac.executor.ask-timeout}); one that does not answer in time is shown without its executor,
   * with the reason.
   *
   * @return the view, completed within about the ask timeout
   */
  public CompletionStage<ClusterView> nodes() {
    java.util.SortedMap<String, Integer> pools = new java.util.TreeMap<>();
    jobs.pools().values().forEach(p -> pools.put(p.name(), p.maxConcurrent()));
    return node.nodes(pools, node.askTimeout());
  }

  /**
   * A page of the cluster's alert history, newest first: each alert with where it was delivered (the
   * node's sink, the webhook: delivered, retrying or failed, with the attempts). The history keeps the
   * latest {@value AlertRecord#KEPT} alerts of the cluster (docs/alerts.md).
   *
   * @param taskId only this task's alerts, or null for all
   * @param since only alerts at or after this instant, or null
   * @param before only alerts older than this one (a page's {@link AlertPage#next()}), or null for the newest
   * @param limit the most alerts on the page, 1..{@value #MAX_ALERTS_PAGE}
   * @return the page; fails with a {@link RefusedException} naming {@code limit} or {@code before} when out of range
   */
  public CompletionStage<AlertPage> alerts(String taskId, Instant since, Long before, int limit) {
    if (limit < 1 || limit > MAX_ALERTS_PAGE) {
      return java.util.concurrent.CompletableFuture.failedFuture(RefusedException.invalid(
          RefusedException.Reason.INVALID_ARGUMENT, "limit", limit, "must be between 1 and " + MAX_ALERTS_PAGE));
    }
    if (before != null && before < 1) {
      return java.util.concurrent.CompletableFuture.failedFuture(RefusedException.invalid(
          RefusedException.Reason.INVALID_ARGUMENT, "before", before, "must be a positive alert seq (a page's next)"));
    }
    return io.almanac.internal.protocol.Asks.<io.almanac.internal.alert.AlertLogProtocol.Command,
            io.almanac.internal.alert.AlertLogProtocol.Page>ask(
            node.sharding().entityRefFor(io.almanac.internal.alert.AlertLogEntity.TYPE_KEY,
                io.almanac.internal.alert.AlertLogEntity.ENTITY_ID),
            r -> new io.almanac.internal.alert.AlertLogProtocol.Query(taskId, since, before, limit, r), node.askTimeout(),
            node.system().scheduler())
        .thenApply(io.almanac.internal.alert.AlertLogProtocol.Page::page);
  }

  // ---------------------------------------------------------------------------------------------
  // Views

  /**
   * @param taskId the task
   * @return the task's view: spec, paused, P99, lease, next due
   */
  public CompletionStage<TaskView> task(String taskId) {
    return asks.task(taskId);
  }

  /**
   * @param taskId the task
   * @return its hot windows, oldest first (R29)
   */
  public CompletionStage<List<WindowView>> windows(String taskId) {
    return asks.windows(taskId);
  }

  /**
   * @param taskId the task
   * @return its FINAL_FAILED windows, waiting for an operator
   */
  public CompletionStage<List<WindowView>> interventionQueue(String taskId) {
    return asks.interventionQueue(taskId);
  }

  /** @return the ids of the registered tasks, sorted */
  public CompletionStage<List<String>> taskIds() {
    return asks.taskIds();
  }

  /** @return the FINAL_FAILED windows of every task (R31) */
  public CompletionStage<List<WindowView>> interventionQueue() {
    return asks.interventionQueue();
  }

  /**
   * The registry the node records its meters into: a {@link CompositeMeterRegistry} the node owns,
   * whose members are the registry given to {@link Builder#meterRegistry} (if any) and any added
   * later ({@code CompositeMeterRegistry.add}, as the HTTP module does for {@code GET /metrics}). Its
   * meters are named {@code almanac.*}; their tags never name a window, so their number stays
   * bounded (one job-duration timer per task).
   *
   * @return the node's registry
   */
  public CompositeMeterRegistry meterRegistry() {
    return node.registry();
  }

  /** @return the clock Almanac reads time from */
  public Clock clock() {
    return clock;
  }

  private <T> CompletionStage<T> ask(String taskId, Function<ActorRef<StatusReply<T>>, TaskProtocol.Command> message) {
    return asks.ask(taskId, message);
  }
}
