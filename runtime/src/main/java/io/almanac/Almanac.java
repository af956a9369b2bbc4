package io.almanac;

import io.almanac.internal.TaskProtocol;
import com.typesafe.config.Config;
import io.almanac.internal.Asks;
import io.almanac.internal.ConfigTasks;
import io.almanac.internal.Executor;
import io.almanac.internal.ExecutorFence;
import io.almanac.internal.ExecutorLiveness;
import io.almanac.internal.ExecutorSettings;
import io.almanac.internal.JobRegistry;
import io.almanac.internal.LeaseGuard;
import io.almanac.internal.NodeChecks;
import io.almanac.internal.NodeMeters;
import io.almanac.internal.PublishGate;
import io.almanac.internal.TaskEntity;
import io.almanac.internal.SkipSummary;
import io.almanac.internal.TaskEnv;
import io.almanac.internal.TaskSettings;
import io.almanac.internal.SingletonLocator;
import io.almanac.internal.TaskShardingSettings;
import io.almanac.internal.TriggerActor;
import io.almanac.journal.SpecRecord;
import io.almanac.internal.TriggerSettings;
import io.almanac.internal.Watchdog;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.pattern.StatusReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger LOG = LoggerFactory.getLogger(Almanac.class);

  private final ActorSystem<?> system;
  private final Clock clock;
  private final JobRegistry jobs;
  private final ClusterSharding sharding;
  private final ActorRef<TriggerActor.Command> trigger;
  private final ActorRef<Executor.Command> executor;
  private final int maxStuckJobs;
  private final Duration askTimeout;
  private final Duration registrationTimeout;
  private final CompositeMeterRegistry meterRegistry;
  private final Duration maxEventFuture;
  private final PublishGate publishGate;
  private final Duration publishRetryAfter;
  private final NodeMeters meters;
  private final List<EventSource> sources = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final CompletableFuture<Done> ready = new CompletableFuture<>();
  /** Set once the node said why it shuts down before it was ready (said once). */
  private final java.util.concurrent.atomic.AtomicBoolean notReadyReported = new java.util.concurrent.atomic.AtomicBoolean();

  private Almanac(ActorSystem<?> system, Clock clock, JobRegistry jobs, ClusterSharding sharding,
      ActorRef<TriggerActor.Command> trigger, Duration askTimeout, Duration registrationTimeout,
      CompositeMeterRegistry meterRegistry, TaskSettings taskSettings, NodeMeters meters,
      ActorRef<Executor.Command> executor, int maxStuckJobs) {
    this.system = system;
    this.executor = executor;
    this.maxStuckJobs = maxStuckJobs;
    this.maxEventFuture = taskSettings.maxEventFuture();
    this.publishGate = new PublishGate(taskSettings.maxPendingPublishes());
    this.publishRetryAfter = taskSettings.publishRetryAfter();
    this.meters = meters;
    this.meterRegistry = meterRegistry;
    this.clock = clock;
    this.jobs = jobs;
    this.sharding = sharding;
    this.trigger = trigger;
    this.askTimeout = askTimeout;
    this.registrationTimeout = registrationTimeout;
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
    private io.almanac.internal.MessageTap tap;
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
     *     default {@link AlertSinks#logging(Duration)} with {@code almanac.alerts.summary-interval}
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
     * Sees every message the trigger, the task entities and the executor receive (tests that count a
     * fire's cost). INTERNAL API.
     *
     * @param tap the tap
     * @return this builder
     */
    Builder messageTap(io.almanac.internal.MessageTap tap) {
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
     * The executor's fence: the lease named by almanac.executor.fence-lease, owned by this node, or none.
     * A gap between the executor's checks longer than the lease's safety margin counts as a pause.
     */
    private ExecutorFence fence(ExecutorSettings settings, String executorId) {
      String path = settings.fenceLease();
      if (path.isEmpty()) {
        return ExecutorFence.none(executorId);
      }
      Config lease = system.settings().config().getConfig(path)
          .withFallback(system.settings().config().getConfig("pekko.coordination.lease"));
      Duration margin = lease.hasPath("safety-margin") && lease.getValue("safety-margin").valueType()
          != com.typesafe.config.ConfigValueType.STRING || (lease.hasPath("safety-margin") && !lease.getString("safety-margin").isEmpty())
          ? lease.getDuration("safety-margin") : lease.getDuration("heartbeat-timeout").dividedBy(10);
      return new ExecutorFence(system.name(), executorId,
          leases(path, Cluster.get(system).selfMember().address().hostPort()), margin);
    }

    /** Opens leases of the given configuration path, owned by {@code owner}. */
    private ExecutorFence.Leases leases(String path, String owner) {
      return name -> org.apache.pekko.coordination.lease.javadsl.LeaseProvider.get(system).getLease(name, path, owner);
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
      Config config = system.settings().config();
      // Cluster settings that cannot work fail the start here, naming the key and the value, rather
      // than leaving a node that never joins (a seed node of another ActorSystem name) or never
      // takes the trigger (a lease whose timing its implementation refuses).
      NodeChecks.seedNodesNameThisSystem(config, system.name());
      ExtendedActorSystem classic = (ExtendedActorSystem) system.classicSystem();
      NodeChecks.leasesCanWork(classic, classic.provider().getDefaultAddress().hostPort());
      if (system.whenTerminated().isCompleted()) {
        throw new AlmanacException("the ActorSystem '" + system.name() + "' has terminated before Almanac.start: see the "
            + "errors it logged as it stopped (e.g. \"Cluster Node [...] - crashed\")");
      }
      TaskSettings taskSettings = TaskSettings.from(config);
      TriggerSettings triggerSettings = TriggerSettings.from(config);
      ExecutorSettings executorSettings = ExecutorSettings.from(config);
      Duration summaryInterval = io.almanac.config.Settings.durationOf(config, "almanac.alerts.summary-interval");
      io.almanac.config.Settings.positive("almanac.alerts.summary-interval", summaryInterval);
      AlertSink alerts = this.alerts != null ? this.alerts : AlertSinks.logging(summaryInterval);
      List<TaskSpec> declared = ConfigTasks.parse(config);
      for (TaskSpec spec : declared) {
        try {
          jobs.resolve(spec.job(), spec.id());
        } catch (InvalidSpecException e) {
          throw new InvalidSpecException(spec.id(), e);
        }
      }

      Cluster cluster = Cluster.get(system);
      List<String> seedNodes = config.getStringList("pekko.cluster.seed-nodes");
      if (config.getBoolean("almanac.node.join-self") && seedNodes.isEmpty()) {
        cluster.manager().tell(Join.create(cluster.selfMember().address()));
      }
      if (seedNodes.size() == 1 && seedNodes.get(0).equals(cluster.selfMember().address().toString())) {
        // The sole seed node joins itself at once: restarted while the others still run, it forms a
        // second cluster on the same journal instead of rejoining theirs.
        LOG.warn("this node is the only seed node ({}): if it restarts while other nodes still run it forms a second "
            + "cluster instead of rejoining theirs (unless its configuration went through "
            + "io.almanac.persistence.lease.LeaseSeeds, which adds the nodes holding live leases); list two or more nodes in "
            + "pekko.cluster.seed-nodes, the same list on every node", seedNodes.get(0));
      }
      CompositeMeterRegistry registry = new CompositeMeterRegistry();
      if (meterRegistry != null) {
        registry.add(meterRegistry);
      }
      NodeMeters meters = new NodeMeters(registry);
      NodeMeters.install(system, meters); // the journal finds them through the ActorSystem
      SkipSummary skips = new SkipSummary();
      system.scheduler().scheduleAtFixedRate(summaryInterval, summaryInterval, () -> skips.log(summaryInterval),
          system.executionContext());
      ClusterSharding sharding = ClusterSharding.get(system);
      Function<String, RecipientRef<TaskProtocol.Command>> tasks = id -> sharding.entityRefFor(TaskEntity.TYPE_KEY, id);
      // Not Pekko's singleton proxy: it does not find the trigger again after its manager stopped it
      // on a lost lease and started it anew on the same node (see SingletonLocator).
      ActorRef<TriggerActor.Command> trigger = SingletonLocator.init(system,
          SingletonActor.of(io.almanac.internal.MessageTap.wrap(tap, "trigger", LeaseGuard.singleton(
              TriggerActor.create(clock, triggerSettings, taskSettings, tasks, alerts, meters), TriggerActor.Command.class)),
              "almanac-trigger"),
          config.getDuration("pekko.cluster.singleton-proxy.singleton-identification-interval"),
          config.getInt("pekko.cluster.singleton-proxy.buffer-size"));
      String executorId = cluster.selfMember().uniqueAddress().toString();
      ExecutorFence fence = fence(executorSettings, executorId);
      ExecutorLiveness liveness = new ExecutorLiveness(fence, node -> memberUp(cluster, node),
          executorSettings.fenceLease().isEmpty() ? null : leases(executorSettings.fenceLease(),
              "liveness-check:" + cluster.selfMember().address().hostPort()),
          System::nanoTime, executorSettings.checkInterval().toNanos());
      ActorRef<Executor.Command> executor = system.systemActorOf(
          io.almanac.internal.MessageTap.wrap(tap, "executor",
              Executor.create(clock, executorSettings, taskSettings, jobs, tasks, fence, meters, alerts, System::nanoTime)),
          "almanac-executor", Props.empty());
      TaskEnv env = new TaskEnv(trigger, executor, alerts, liveness::of, executorSettings.checkInterval(),
          taskSettings.repeatedSkipAlert(), meters, jobs::condition, tasks, skips);
      sharding.init(Entity.of(TaskEntity.TYPE_KEY, ctx -> io.almanac.internal.MessageTap.wrap(tap, "task",
          LeaseGuard.shardEntity(TaskEntity.create(ctx.getEntityId(), clock, taskSettings, env), TaskProtocol.Command.class)))
          .withSettings(TaskShardingSettings.of(system)));
      system.systemActorOf(Watchdog.create(trigger, alerts, clock, config.getDuration("almanac.alerts.watchdog-interval"),
          config.getDuration("almanac.alerts.trigger-stall-after")), "almanac-watchdog", Props.empty());

      // On shutdown: the trigger (if it runs here) stops firing, then the executor stops starting
      // attempts and waits for running ones to report, all before the task shards stop.
      CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
      String self = cluster.selfMember().address().toString();
      // Sent to this node's own instance of the trigger (only the trigger running here quiesces), not
      // through the locator: one that started here moments ago may not be the one the locator found yet.
      shutdown.addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "almanac-quiesce-trigger", () -> {
        boolean othersUp = othersStayUp(cluster);
        return system.classicSystem().actorSelection(SingletonLocator.localPath("almanac-trigger"))
            .resolveOne(Duration.ofSeconds(1))
            .thenCompose(local -> Asks.<TriggerActor.Command, Done>ask(
                org.apache.pekko.actor.typed.javadsl.Adapter.<TriggerActor.Command>toTyped(local),
                r -> new TriggerActor.Quiesce(self, othersUp, r), Duration.ofSeconds(2), system.scheduler()))
            .handle((r, e) -> Done.getInstance()); // not running here (not found at once): nothing to quiesce
      });
      shutdown.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "almanac-drain-executor", () ->
          Asks.<Executor.Command, Done>ask(executor, Executor.Drain::new, executorSettings.drainTimeout(),
              system.scheduler()).exceptionally(e -> {
                LOG.warn("attempts still running after {}: they are timed out at the next start", executorSettings.drainTimeout());
                return Done.getInstance();
              }));
      Duration registrationTimeout = config.getDuration("almanac.node.registration-timeout");
      if (registrationTimeout.isZero() || registrationTimeout.isNegative()) {
        throw new InvalidSpecException("almanac.node.registration-timeout", registrationTimeout, "must be > 0");
      }
      Almanac almanac = new Almanac(system, clock, jobs, sharding, trigger, executorSettings.askTimeout(), registrationTimeout,
          registry, taskSettings, meters, executor, executorSettings.maxStuckJobs());
      shutdown.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "almanac-close-event-sources", () -> {
        almanac.closeSources();
        return CompletableFuture.completedFuture(Done.getInstance());
      });
      // A node that shuts down before it is ready (refused at join, no seed node answered in time,
      // downed) says why and fails ready(), instead of leaving it to the registration timeout.
      shutdown.addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "almanac-not-ready", () -> {
        almanac.shutDownBeforeReady(shutdown.getShutdownReason().orElse(null), seedNodes);
        return CompletableFuture.completedFuture(Done.getInstance());
      });
      // A shutdown that began while this node was starting (e.g. refused at join during a slow start)
      // has run that phase already and never runs the task added now: say why here.
      shutdown.getShutdownReason().ifPresent(reason -> almanac.shutDownBeforeReady(reason, seedNodes));
      LOG.info("Almanac started on {} ({} tasks declared in almanac.tasks)", executorId, declared.size());
      long started = System.nanoTime();
      CompletionStage<Done> registered = declared.isEmpty() ? CompletableFuture.completedFuture(Done.getInstance())
          : almanac.registerAll(declared).whenComplete((done, error) -> {
            if (error == null) {
              LOG.info("registered {} tasks from almanac.tasks", declared.size());
            }
          });
      // Ready: the declared tasks are stored and the trigger (wherever it runs) answers.
      registered.thenCompose(d -> almanac.retrying("the trigger's status", () -> Asks.<TriggerActor.Command,
              TriggerActor.TriggerStatus>ask(trigger, TriggerActor.GetStatus::withTaskIds, executorSettings.askTimeout(),
              system.scheduler()).thenApply(status -> {
                undeclared(declared, status.taskIds()).ifPresent(LOG::info);
                return Done.getInstance();
              })))
          .whenComplete((done, error) -> {
            if (error != null) {
              Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
              MemberStatus status = cluster.selfMember().status();
              if (!almanac.ready.isDone() && status != MemberStatus.up() && status != MemberStatus.weaklyUp()) {
                cause = new AlmanacException(cause.getMessage() + "; this node (" + self + ") has not joined its cluster: "
                    + (seedNodes.isEmpty() ? "pekko.cluster.seed-nodes is empty and almanac.node.join-self is off, so "
                        + "nothing joins it (a bootstrap, or Cluster.manager().tell(Join), must)"
                        : "none of the seed nodes " + seedNodes + " welcomed it. Check that they run and that their "
                        + "ActorSystem is named '" + system.name() + "' like this node's (a node of another name logs "
                        + "\"Dropping Handshake Request ... addressed to unknown local address\")"), cause);
              }
              LOG.error("Almanac is not ready: {}", cause.getMessage());
              almanac.ready.completeExceptionally(cause);
            } else {
              LOG.info("Almanac is ready ({} ms after start)", (System.nanoTime() - started) / 1_000_000);
              almanac.ready.complete(Done.getInstance());
            }
          });
      return almanac;
    }
  }

  /** The node shuts down: if it is not ready yet, fail ready() with the reason, and say it loudly when it was refused at join. */
  private void shutDownBeforeReady(CoordinatedShutdown.Reason reason, List<String> seedNodes) {
    if (ready.isDone() || !notReadyReported.compareAndSet(false, true)) {
      return; // ready, or said already (by the shutdown task or at the end of start)
    }
    String self = Cluster.get(system).selfMember().address().toString();
    String message;
    if (reason == CoordinatedShutdown.incompatibleConfigurationDetectedReason()) {
      message = "this node (" + self + ") was refused by the cluster it asked to join (seed nodes " + seedNodes + "): its "
          + "configuration is incompatible with the cluster's (pekko.cluster.configuration-compatibility-check), so it "
          + "shuts down without having joined. The member that refused it logged which settings differ, with both values "
          + "(\"Found incompatible settings when [" + self + "] tried to join: ...\"). This node's values: "
          + NodeChecks.comparedSettings((ExtendedActorSystem) system.classicSystem());
      LOG.error(message);
    } else if (reason == CoordinatedShutdown.clusterJoinUnsuccessfulReason()) {
      message = "this node (" + self + ") shuts down: it could not join any of the seed nodes " + seedNodes
          + " within pekko.cluster.shutdown-after-unsuccessful-join-seed-nodes";
      LOG.error(message);
    } else {
      message = "this node (" + self + ") shuts down before it was ready (" + (reason == null ? "reason unknown" : reason) + ")";
    }
    ready.completeExceptionally(new AlmanacException(message));
  }

  /**
   * A task taken out of {@code almanac.tasks} is not removed (a typo in the configuration would
   * otherwise end a task and cancel its runs): it stays registered and keeps firing. Said once at
   * start, so an operator sees it and removes it with {@link #remove(String)} if that was meant.
   */
  static java.util.Optional<String> undeclared(List<TaskSpec> declared, List<String> registered) {
    java.util.Set<String> ids = new java.util.HashSet<>();
    declared.forEach(spec -> ids.add(spec.id()));
    List<String> others = registered.stream().filter(id -> !ids.contains(id)).toList();
    if (others.isEmpty()) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(others.size() + " registered tasks are not declared in almanac.tasks (registered through "
        + "the API, or taken out of the configuration): " + String.join(", ", others.subList(0, Math.min(10, others.size())))
        + (others.size() > 10 ? ", ..." : "") + "; they keep firing until removed with Almanac.remove(id)");
  }

  /**
   * Whether another member of the cluster is up (and not leaving, not unreachable), as this node
   * sees it: a trigger stopping here then has a successor, and its stop is a hand-over, not downtime.
   */
  private static boolean othersStayUp(Cluster cluster) {
    org.apache.pekko.cluster.Member self = cluster.selfMember();
    java.util.Set<org.apache.pekko.cluster.Member> unreachable = cluster.state().getUnreachable();
    for (org.apache.pekko.cluster.Member m : cluster.state().getMembers()) {
      if (!m.uniqueAddress().equals(self.uniqueAddress()) && m.status() == MemberStatus.up() && !unreachable.contains(m)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the node with this unique address is a member of the cluster that is up (or joining). */
  private static boolean memberUp(Cluster cluster, String uniqueAddress) {
    for (org.apache.pekko.cluster.Member m : cluster.state().getMembers()) {
      if (m.uniqueAddress().toString().equals(uniqueAddress)) {
        return m.status() == MemberStatus.up() || m.status() == MemberStatus.weaklyUp() || m.status() == MemberStatus.joining();
      }
    }
    return false;
  }

  /**
   * The node's health: live while its ActorSystem runs; ready when it is an up member of its
   * cluster, the tasks declared in {@code almanac.tasks} are registered ({@link #ready()}), and the
   * trigger (wherever it runs in the cluster) answers within the ask timeout, has looked at its queue
   * within {@code almanac.alerts.trigger-stall-after}, and has written its watermark to the journal
   * within that time (so the journal takes writes), and this node's executor holds its lease (when
   * one is configured) and has no more stuck jobs than {@code almanac.executor.max-stuck-jobs}. Never fails: a check that cannot be made is a
   * failed check, with the reason.
   *
   * @return the checks, completed within about the ask timeout
   */
  public CompletionStage<NodeHealth> health() {
    Instant now = clock.instant();
    Duration stallAfter = system.settings().config().getDuration("almanac.alerts.trigger-stall-after");
    List<NodeHealth.Check> checks = new java.util.ArrayList<>();
    boolean live = !system.whenTerminated().isCompleted();
    checks.add(new NodeHealth.Check("actor-system", live, live ? "running" : "terminated"));
    MemberStatus status = Cluster.get(system).selfMember().status();
    boolean member = status == MemberStatus.up() || status == MemberStatus.weaklyUp();
    checks.add(new NodeHealth.Check("cluster-member", member, "this node is " + status));
    boolean registered = ready.isDone() && !ready.isCompletedExceptionally();
    checks.add(new NodeHealth.Check("tasks-registered", registered, !ready.isDone() ? "registering the declared tasks"
        : registered ? "the declared tasks are registered" : "failed: " + ready.handle((d, e) -> e == null ? "" : e.getMessage()).join()));
    if (!live) {
      return CompletableFuture.completedFuture(new NodeHealth(false, false, checks));
    }
    CompletableFuture<NodeHealth.Check> executorCheck = Asks.<Executor.Command, Executor.Stats>ask(executor,
            Executor.GetStats::new, askTimeout, system.scheduler())
        .handle((st, error) -> error != null
            ? new NodeHealth.Check("executor", false, "no answer within " + askTimeout)
            : executorCheck(st, maxStuckJobs));
    return Asks.<TriggerActor.Command, TriggerActor.TriggerStatus>ask(trigger, TriggerActor.GetStatus::new, askTimeout,
            system.scheduler())
        .handle((st, error) -> {
          if (error != null) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            String why = "no answer within " + askTimeout + " (" + cause.getClass().getSimpleName() + ")";
            checks.add(new NodeHealth.Check("trigger", false, why));
            checks.add(new NodeHealth.Check("journal", false, "unknown: the trigger did not answer"));
          } else {
            checks.add(fresh("trigger", st.lastTick(), now, stallAfter, "looked at its queue"));
            checks.add(fresh("journal", st.watermark(), now, stallAfter, "wrote its watermark"));
          }
          return checks;
        })
        .thenCombine(executorCheck, (all, ex) -> {
          all.add(ex);
          return new NodeHealth(true, all.stream().allMatch(NodeHealth.Check::ok), all);
        });
  }

  /** The executor's check: it holds its lease (or has none to hold) and has no more stuck jobs than allowed. */
  static NodeHealth.Check executorCheck(Executor.Stats st, int maxStuckJobs) {
    boolean ok = st.holdsLease() && st.stuck() <= maxStuckJobs;
    return new NodeHealth.Check("executor", ok, "executor " + st.identity() + (st.holdsLease() ? "" : " does not hold its lease: "
        + "no job runs here") + "; " + st.running() + " running, " + st.stuck() + " stuck (almanac.executor.max-stuck-jobs = "
        + maxStuckJobs + ")");
  }

  static NodeHealth.Check fresh(String name, Instant at, Instant now, Duration within, String what) {
    if (at == null) {
      return new NodeHealth.Check(name, false, "the trigger has not " + what + " yet");
    }
    Duration ago = Duration.between(at, now);
    boolean ok = ago.compareTo(within) <= 0;
    return new NodeHealth.Check(name, ok, "the trigger " + what + " " + (ago.isNegative() ? "0" : ago.toMillis()) + " ms ago"
        + (ok ? "" : ", more than " + within));
  }

  /**
   * Completes when this node is ready: the tasks declared in {@code almanac.tasks} are stored and
   * the trigger answers. Fails (with an {@link AlmanacException}) when that did not happen within
   * {@code almanac.node.registration-timeout}, or a declared task was refused.
   *
   * @return the node's readiness
   */
  public CompletionStage<Done> ready() {
    return ready.copy();
  }

  /**
   * Runs an ask again, with back-off, while it finds no answer (a node or database slow to start),
   * until {@code almanac.node.registration-timeout}; a refusal fails at once.
   */
  <T> CompletionStage<T> retrying(String what, java.util.function.Supplier<CompletionStage<T>> attempt) {
    long deadline = System.nanoTime() + registrationTimeout.toNanos();
    CompletableFuture<T> result = new CompletableFuture<>();
    retry(what, attempt, deadline, Duration.ofMillis(200), 1, result);
    return result;
  }

  /** Whether a failure is an ask that found no answer in time (rather than a refusal). */
  private static boolean unanswered(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof java.util.concurrent.TimeoutException || t instanceof org.apache.pekko.pattern.AskTimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private <T> void retry(String what, java.util.function.Supplier<CompletionStage<T>> attempt, long deadline,
      Duration backoff, int tries, CompletableFuture<T> result) {
    attempt.get().whenComplete((value, error) -> {
      if (error == null) {
        result.complete(value);
        return;
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      boolean refused = cause instanceof AlmanacException && !unanswered(cause);
      long left = deadline - System.nanoTime();
      if (refused || left <= 0) {
        result.completeExceptionally(refused ? cause : new AlmanacException("no answer for " + what + " within "
            + "almanac.node.registration-timeout = " + registrationTimeout + " (" + tries + " tries; last: "
            + cause.getMessage() + ")", cause));
        return;
      }
      LOG.info("no answer yet for {} (try {}: {}); trying again in {} ms", what, tries, cause.getMessage(), backoff.toMillis());
      Duration wait = Duration.ofNanos(Math.min(backoff.toNanos(), left));
      system.scheduler().scheduleOnce(wait, () -> retry(what, attempt, deadline,
          backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : backoff.multipliedBy(2),
          tries + 1, result), system.executionContext());
    });
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
   *       listens to its type), {@link OverloadedException} (a listening task's queue is full: publish
   *       again after {@link OverloadedException#retryAfter()}), or a plain {@link AlmanacException}
   *       saying the trigger did not answer (publish again);
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
    try {
      java.util.Objects.requireNonNull(event, "event");
      event.validate();
      Instant now = clock.instant();
      if (event.eventTime() != null && event.eventTime().isAfter(now.plus(maxEventFuture))) {
        throw new InvalidSpecException("eventTime", event.eventTime(), "lies more than " + maxEventFuture
            + " ahead of this node's clock (" + now + "; almanac.task.max-event-future)");
      }
    } catch (InvalidSpecException | NullPointerException e) {
      meters.published("refused");
      return CompletableFuture.failedFuture(e);
    }
    String busy = publishGate.full(event.type());
    if (busy != null) { // refused at once, no message sent: an overloaded publish costs the node next to nothing
      meters.published("overloaded");
      return CompletableFuture.failedFuture(new OverloadedException(busy, publishGate.limit(), publishRetryAfter));
    }
    return Asks.<TriggerActor.Command, TriggerActor.SubscriberList>ask(trigger,
            r -> new TriggerActor.Subscribers(event.type(), r), askTimeout, system.scheduler())
        .handle((list, error) -> {
          if (error != null) {
            throw new CompletionException(new AlmanacException("no answer from the trigger within " + askTimeout
                + " (the tasks listening to type '" + InvalidSpecException.echo(event.type()) + "'): nothing was stored; "
                + "publish again", error));
          }
          return list;
        })
        .thenCompose(list -> {
          if (list.taskIds().isEmpty()) {
            throw new CompletionException(RefusedException.invalid(RefusedException.Reason.UNKNOWN_EVENT_TYPE, "type",
                InvalidSpecException.echo(event.type()), "no registered task listens to this event type"));
          }
          if (event.eventTime() == null && !list.byEventTime().isEmpty()) {
            // refused before any task sees it, so no task stores what another refuses
            throw new CompletionException(new InvalidSpecException("eventTime", null, "is required: task(s) "
                + String.join(", ", list.byEventTime()) + " map events of type '" + event.type()
                + "' to windows by their event time"));
          }
          String full = publishGate.admit(event.type(), list.taskIds());
          if (full != null) {
            throw new CompletionException(new OverloadedException(full, publishGate.limit(), publishRetryAfter));
          }
          return send(event, list.taskIds());
        })
        .whenComplete((r, error) -> meters.published(publishOutcome(error)));
  }

  /** Sends an admitted event to its tasks (one slot taken in each, given back as each answers) and joins their answers. */
  private CompletableFuture<PublishResult> send(IncomingEvent event, List<String> taskIds) {
    List<CompletableFuture<StatusReply<TaskProtocol.EventOutcome>>> asks = new ArrayList<>();
    for (String taskId : taskIds) {
      asks.add(Asks.<TaskProtocol.Command, StatusReply<TaskProtocol.EventOutcome>>ask(
              sharding.entityRefFor(TaskEntity.TYPE_KEY, taskId), r -> new TaskProtocol.PublishEvent(event.type(), event.id(),
                  event.eventTime(), event.summary(), r), askTimeout, system.scheduler())
          .whenComplete((r, e) -> publishGate.release(taskId)));
    }
    return CompletableFuture.allOf(asks.toArray(new CompletableFuture[0])).handle((all, ignored) -> {
      List<PublishResult.TaskOutcome> answered = new ArrayList<>();
      List<String> unanswered = new ArrayList<>();
      Throwable noAnswer = null;
      Throwable refusal = null;
      for (int i = 0; i < taskIds.size(); i++) {
        String taskId = taskIds.get(i);
        StatusReply<TaskProtocol.EventOutcome> reply = null;
        try {
          reply = asks.get(i).join();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
          unanswered.add(taskId);
          noAnswer = noAnswer != null ? noAnswer : e.getCause() != null ? e.getCause() : e;
          continue;
        }
        if (reply.isError()) {
          refusal = refusal != null ? refusal : reply.getError();
        } else {
          TaskProtocol.EventOutcome o = reply.getValue();
          answered.add(new PublishResult.TaskOutcome(taskId, WindowKey.of(o.window()), o.outcome(), o.detail()));
        }
      }
      if (!unanswered.isEmpty()) {
        throw new CompletionException(new PublishOutcomeUnknownException(event.type(), event.id(), unanswered, answered,
            noAnswer));
      }
      if (refusal != null) {
        throw new CompletionException(refusedByOne(refusal, answered));
      }
      return new PublishResult(event.type(), event.id(), answered);
    });
  }

  /** A task's refusal as the publish's failure; when other tasks recorded the event, the message says which. */
  private static AlmanacException refusedByOne(Throwable refusal, List<PublishResult.TaskOutcome> recorded) {
    if (recorded.isEmpty()) {
      return refusal instanceof AlmanacException a ? a : new AlmanacException(refusal.getMessage(), refusal);
    }
    String by = "; the other listening task(s) " + String.join(", ", recorded.stream().map(PublishResult.TaskOutcome::taskId)
        .toList()) + " recorded the event";
    if (refusal instanceof RefusedException r) {
      return r.withMore(by);
    }
    return new AlmanacException(refusal.getMessage() + by, refusal);
  }

  /** The {@code outcome} tag of {@code almanac.publishes} for a publish's failure (null: recorded). */
  private static String publishOutcome(Throwable error) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e == null) {
      return "recorded";
    }
    if (e instanceof OverloadedException) {
      return "overloaded";
    }
    if (e instanceof PublishOutcomeUnknownException) {
      return "unknown";
    }
    return e instanceof InvalidSpecException || e instanceof RefusedException ? "refused" : "failed";
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
    try {
      source.start(this::publish);
    } catch (Exception e) {
      throw new AlmanacException("event source " + source + " failed to start: " + e, e);
    }
    sources.add(source);
    return this;
  }

  private void closeSources() {
    for (EventSource s : sources) {
      try {
        s.close();
      } catch (RuntimeException e) {
        LOG.warn("event source {} failed to close: {}", s, e.toString());
      }
    }
    sources.clear();
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
    List<TaskSpec> valid = new ArrayList<>();
    for (TaskSpec spec : specs) {
      spec.validate();
      try {
        jobs.resolve(spec.job(), spec.id());
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException(spec.id(), e);
      }
      if (spec.condition() != null && jobs.condition(spec.condition().name()) == null) {
        throw new InvalidSpecException(spec.id(), new InvalidSpecException("condition.name", spec.condition().name(),
            "no condition is registered under this name on this node: register it first"));
      }
      valid.add(spec);
    }
    // Windows due from the call on are the trigger's, even those due before it hears of the tasks: the
    // registration's own time (the dependency check, the definitions, retries while the trigger is away)
    // never drops a window due meanwhile.
    Instant since = clock.instant();
    // Cycles and missing upstream tasks are refused before anything is stored (R9, R33).
    List<SpecRecord> records = valid.stream().map(SpecRecord::of).toList();
    return retrying("the trigger's dependency check", () -> unwrap(Asks.<TriggerActor.Command, StatusReply<Done>>ask(
            trigger, r -> new TriggerActor.CheckDependencies(records, r), askTimeout, system.scheduler())))
        .thenCompose(ok -> define(valid, since));
  }

  private CompletionStage<Done> define(List<TaskSpec> valid, Instant since) {
    List<CompletableFuture<Done>> defined = new ArrayList<>();
    for (TaskSpec spec : valid) {
      defined.add(retrying("task '" + spec.id() + "'",
          () -> this.<Done>ask(spec.id(), r -> new TaskProtocol.Define(SpecRecord.of(spec), r))).toCompletableFuture());
    }
    return CompletableFuture.allOf(defined.toArray(new CompletableFuture[0])).thenCompose(v -> {
      List<CompletableFuture<Done>> batches = new ArrayList<>();
      for (int i = 0; i < valid.size(); i += 1000) {
        List<SpecRecord> batch = valid.subList(i, Math.min(valid.size(), i + 1000)).stream().map(SpecRecord::of).toList();
        batches.add(retrying("the trigger's registration of " + batch.size() + " tasks",
            () -> unwrap(Asks.<TriggerActor.Command, StatusReply<Done>>ask(trigger,
                r -> new TriggerActor.Register(batch, since, r), askTimeout.multipliedBy(3), system.scheduler())))
            .toCompletableFuture());
      }
      return CompletableFuture.allOf(batches.toArray(new CompletableFuture[0])).thenApply(x -> Done.getInstance());
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Operations (R31)

  /**
   * Pauses a task: windows that fall due are recorded as skipped (PAUSED) until it is resumed.
   *
   * @param taskId the task
   * @return completes when the pause is recorded
   */
  public CompletionStage<Done> pause(String taskId) {
    return ask(taskId, TaskProtocol.Pause::new);
  }

  /**
   * @param taskId the task
   * @return completes when the resume is recorded
   */
  public CompletionStage<Done> resume(String taskId) {
    return ask(taskId, TaskProtocol.Resume::new);
  }

  /**
   * Runs the window that contains now, as a manual run, unless it already ran.
   *
   * @param taskId the task
   * @return what the task decided
   */
  public CompletionStage<FireDecision> runNow(String taskId) {
    return markActive(taskId).thenCompose(d -> this.<TaskProtocol.FireOutcome>ask(taskId, TaskProtocol.RunNow::new))
        .thenApply(Almanac::decision);
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
    return markActive(taskId)
        .thenCompose(d -> this.<TaskProtocol.BackfillReport>ask(taskId, r -> new TaskProtocol.Backfill(from, to, r)))
        .thenApply(report -> report.outcomes().stream().map(Almanac::decision).toList());
  }

  /**
   * Runs a FINAL_FAILED, cancelled, skipped or missed window again (R15).
   *
   * @param taskId the task
   * @param window the window
   * @return completes when the window is PENDING again
   */
  public CompletionStage<Done> retry(String taskId, WindowKey window) {
    return markActive(taskId).thenCompose(d -> ask(taskId, r -> new TaskProtocol.Retry(window, r)));
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
    return ask(taskId, r -> new TaskProtocol.Resolve(window, note, r));
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
    return ask(taskId, r -> new TaskProtocol.Cancel(window, reason, r));
  }

  /**
   * Removes a task (R31). Its PENDING, RUNNING and RETRY_WAIT windows are cancelled with the reason
   * {@code task removed} (a running job is cancelled), the task records {@code TaskRemoved}, and then
   * the trigger stops firing it, also after a restart. Its journal is kept: {@link #task}, {@link
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
    return this.<Done>ask(taskId, TaskProtocol.Remove::new).thenCompose(d -> retrying("the trigger's removal of task '"
        + taskId + "'", () -> unwrap(Asks.<TriggerActor.Command, StatusReply<Done>>ask(trigger,
            r -> new TriggerActor.Remove(taskId, r), askTimeout, system.scheduler()))));
  }

  // ---------------------------------------------------------------------------------------------
  // Views

  /**
   * @param taskId the task
   * @return the task's view: spec, paused, P99, lease, next due
   */
  public CompletionStage<TaskView> task(String taskId) {
    return this.<TaskProtocol.TaskInfo>ask(taskId, TaskProtocol.GetTask::new).thenApply(TaskProtocol.TaskInfo::view);
  }

  /**
   * @param taskId the task
   * @return its hot windows, oldest first (R29)
   */
  public CompletionStage<List<WindowView>> windows(String taskId) {
    return this.<TaskProtocol.WindowList>ask(taskId, TaskProtocol.GetWindows::new).thenApply(TaskProtocol.WindowList::windows);
  }

  /**
   * @param taskId the task
   * @return its FINAL_FAILED windows, waiting for an operator
   */
  public CompletionStage<List<WindowView>> interventionQueue(String taskId) {
    return this.<TaskProtocol.WindowList>ask(taskId, TaskProtocol.GetInterventionQueue::new)
        .thenApply(TaskProtocol.WindowList::windows);
  }

  /** @return the ids of the registered tasks, sorted */
  public CompletionStage<List<String>> taskIds() {
    return Asks.<TriggerActor.Command, TriggerActor.TriggerStatus>ask(trigger, TriggerActor.GetStatus::withTaskIds,
        askTimeout, system.scheduler()).thenApply(TriggerActor.TriggerStatus::taskIds);
  }

  /** @return the FINAL_FAILED windows of every task (R31) */
  public CompletionStage<List<WindowView>> interventionQueue() {
    return taskIds().thenCompose(ids -> {
      List<CompletableFuture<List<WindowView>>> all = new ArrayList<>();
      for (String id : ids) {
        all.add(interventionQueue(id).toCompletableFuture());
      }
      return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]))
          .thenApply(v -> all.stream().flatMap(f -> f.join().stream()).toList());
    });
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
    return meterRegistry;
  }

  /** @return the clock Almanac reads time from */
  public Clock clock() {
    return clock;
  }

  // ---------------------------------------------------------------------------------------------

  private CompletionStage<Done> markActive(String taskId) {
    return unwrap(Asks.<TriggerActor.Command, StatusReply<Done>>ask(trigger,
        r -> new TriggerActor.MarkActive(taskId, r), askTimeout, system.scheduler()));
  }

  private <T> CompletionStage<T> ask(String taskId, Function<ActorRef<StatusReply<T>>, TaskProtocol.Command> message) {
    if (taskId == null || taskId.isBlank()) {
      return CompletableFuture.failedFuture(new InvalidSpecException("taskId", taskId, "must not be empty"));
    }
    return unwrap(Asks.ask(sharding.entityRefFor(TaskEntity.TYPE_KEY, taskId), message::apply, askTimeout,
        system.scheduler()));
  }

  private static <T> CompletionStage<T> unwrap(CompletionStage<StatusReply<T>> reply) {
    return reply.handle((r, error) -> {
      if (error != null) {
        throw new CompletionException(new AlmanacException("no answer within the ask timeout: " + error.getMessage(), error));
      }
      if (r.isError()) {
        // typed refusals (RefusedException, InvalidSpecException, IllegalTransitionException) as they are
        Throwable refusal = r.getError();
        throw new CompletionException(refusal instanceof AlmanacException a ? a : new AlmanacException(refusal.getMessage()));
      }
      return r.getValue();
    });
  }

  private static FireDecision decision(TaskProtocol.FireOutcome o) {
    return new FireDecision(WindowKey.of(o.window()), o.decision(), o.reason());
  }
}
