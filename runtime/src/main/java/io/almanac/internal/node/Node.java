package io.almanac.internal.node;

import com.typesafe.config.Config;
import io.almanac.AlertSink;
import io.almanac.AlertSinks;
import io.almanac.AlmanacException;
import io.almanac.InvalidSpecException;
import io.almanac.NodeHealth;
import io.almanac.TaskSpec;
import io.almanac.internal.executor.Executor;
import io.almanac.internal.executor.ExecutorSettings;
import io.almanac.internal.executor.InMemoryPoolStore;
import io.almanac.internal.executor.PoolSettings;
import io.almanac.internal.pool.JournalPoolStore;
import io.almanac.internal.pool.PoolEntity;
import io.almanac.internal.pool.PoolProtocol;
import io.almanac.internal.executor.JobRegistry;
import io.almanac.internal.lease.ExecutorFence;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.lease.LeaseGuard;
import io.almanac.internal.meter.MessageTap;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.meter.SkipSummary;
import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.internal.task.TaskEntity;
import io.almanac.internal.task.TaskEnv;
import io.almanac.internal.task.TaskSettings;
import io.almanac.internal.task.TaskShardingSettings;
import io.almanac.internal.trigger.TriggerActor;
import io.almanac.internal.trigger.TriggerSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's wiring, apart from the {@link io.almanac.Almanac} facade: the cluster join, the task
 * shards, the trigger singleton, the executor and the watchdog, the coordinated shutdown's tasks,
 * readiness and health. The facade holds one of these and sends its commands through the refs it
 * exposes. INTERNAL API.
 */
public final class Node {
  private static final Logger LOG = LoggerFactory.getLogger(Node.class);

  private final ActorSystem<?> system;
  private final Clock clock;
  private final JobRegistry jobs;
  private final ClusterSharding sharding;
  private final ActorRef<TriggerProtocol.Command> trigger;
  private final ActorRef<ExecutorProtocol.Command> executor;
  private final CompositeMeterRegistry registry;
  private final TaskSettings taskSettings;
  private final NodeMeters meters;
  private final ExecutorSettings executorSettings;
  private final Duration askTimeout;
  private final Duration registrationTimeout;
  private final int maxStuckJobs;
  private final List<TaskSpec> declared;
  private final List<String> seedNodes;
  private final String self;
  private final String executorId;
  private final CompletableFuture<Done> ready = new CompletableFuture<>();
  /** Set once the node said why it shuts down before it was ready (said once). */
  private final java.util.concurrent.atomic.AtomicBoolean notReadyReported = new java.util.concurrent.atomic.AtomicBoolean();

  private Node(ActorSystem<?> system, Clock clock, JobRegistry jobs, ClusterSharding sharding,
      ActorRef<TriggerProtocol.Command> trigger, ActorRef<ExecutorProtocol.Command> executor, CompositeMeterRegistry registry,
      TaskSettings taskSettings, NodeMeters meters, ExecutorSettings executorSettings, Duration registrationTimeout,
      List<TaskSpec> declared, List<String> seedNodes, String self, String executorId) {
    this.system = system;
    this.clock = clock;
    this.jobs = jobs;
    this.sharding = sharding;
    this.trigger = trigger;
    this.executor = executor;
    this.registry = registry;
    this.taskSettings = taskSettings;
    this.meters = meters;
    this.executorSettings = executorSettings;
    this.askTimeout = executorSettings.askTimeout();
    this.registrationTimeout = registrationTimeout;
    this.maxStuckJobs = executorSettings.maxStuckJobs();
    this.declared = List.copyOf(declared);
    this.seedNodes = List.copyOf(seedNodes);
    this.self = self;
    this.executorId = executorId;
  }

  /** The store of the resource pools' counts (the executor's); set once when the node starts. */
  private volatile io.almanac.spi.PoolStore poolStore;

  /** @return the store of the resource pools' counts, shared with the executor (thread-safe) */
  public io.almanac.spi.PoolStore poolStore() {
    return poolStore;
  }

  /** @return the node's actor system */
  public ActorSystem<?> system() {
    return system;
  }

  /** @return where the node's time comes from */
  public Clock clock() {
    return clock;
  }

  /** @return the node's jobs and conditions */
  public JobRegistry jobs() {
    return jobs;
  }

  /** @return the task entities' sharding */
  public ClusterSharding sharding() {
    return sharding;
  }

  /** @return the trigger, wherever it runs in the cluster */
  public ActorRef<TriggerProtocol.Command> trigger() {
    return trigger;
  }

  /** @return the node's registry */
  public CompositeMeterRegistry registry() {
    return registry;
  }

  /** @return the tasks' settings */
  public TaskSettings taskSettings() {
    return taskSettings;
  }

  /** @return the node's meters */
  public NodeMeters meters() {
    return meters;
  }

  /** @return how long the facade's asks wait (almanac.executor.ask-timeout) */
  public Duration askTimeout() {
    return askTimeout;
  }

  /** @return almanac.node.registration-timeout */
  public Duration registrationTimeout() {
    return registrationTimeout;
  }

  /**
   * Completes when this node is ready: the tasks declared in {@code almanac.tasks} are stored and
   * the trigger answers. Fails (with an {@link AlmanacException}) when that did not happen within
   * {@code almanac.node.registration-timeout}, or a declared task was refused.
   *
   * @return the node's readiness (a copy: completing it does nothing)
   */
  public CompletionStage<Done> ready() {
    return ready.copy();
  }

  /**
   * Wires the node: joins the cluster (itself, when embedded), starts the task shards, the
   * trigger singleton, this node's executor and watchdog, and hooks the executor's drain and the
   * trigger's quiesce into the coordinated shutdown. The declared tasks are registered by {@link
   * #begin}, once the facade exists.
   *
   * @param system the actor system
   * @param clock where all time comes from
   * @param alertSink the alert sink, or null for the logging sink
   * @param meterRegistry the application's registry, or null
   * @param tap sees every message of the node's actors (cost tests), or null
   * @param jobs the jobs and conditions registered so far
   * @return the wired node
   * @throws InvalidSpecException if a setting or a declared task is invalid
   */
  public static Node start(ActorSystem<?> system, Clock clock, AlertSink alertSink, MeterRegistry meterRegistry,
      MessageTap tap, JobRegistry jobs) {
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
    NodeChecks.durations(config);
    TaskSettings taskSettings = TaskSettings.from(config);
    TriggerSettings triggerSettings = TriggerSettings.from(config);
    ExecutorSettings executorSettings = ExecutorSettings.from(config);
    io.almanac.internal.executor.JobLogSettings.from(config); // refused here, before anything starts; the executor reads it again
    executorSettings.checkShutdownPhase(config); // a grace the drain phase cannot hold is a start error naming both keys
    Duration summaryInterval = io.almanac.config.Settings.durationOf(config, "almanac.alerts.summary-interval");
    io.almanac.config.Settings.positive("almanac.alerts.summary-interval", summaryInterval);
    AlertSink alerts = alertSink != null ? alertSink : AlertSinks.logging(summaryInterval);
    WebhookSettings webhook = WebhookSettings.from(config); // null: no webhook; refused here, before anything starts
    List<TaskSpec> declared = ConfigTasks.parse(config, jobs.calendars());
    for (TaskSpec spec : declared) {
      try {
        jobs.resolve(spec.job(), spec.id());
      } catch (InvalidSpecException e) {
        throw new InvalidSpecException(spec.id(), e);
      }
    }
    // Resource pools: almanac.pools and the builder's; a declared task naming an unknown one is refused here.
    ConfigPools.parse(config).forEach(jobs::registerPool);
    for (TaskSpec spec : declared) {
      ConfigPools.requireKnown(spec, jobs.pools(), "almanac.tasks." + spec.id() + ".pools");
    }
    PoolSettings poolSettings = PoolSettings.from(config);

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
    int maxTaskTags = io.almanac.config.Settings.intOf(config, "almanac.metrics.max-task-tags");
    io.almanac.config.Settings.atLeast("almanac.metrics.max-task-tags", maxTaskTags, 0);
    if (io.almanac.config.Settings.booleanOf(config, "almanac.metrics.jvm")) {
      bindJvmMeters(system, registry);
    }
    NodeMeters meters = new NodeMeters(registry, maxTaskTags);
    NodeMeters.install(system, meters); // the journal finds them through the ActorSystem
    meters.makeSeriesOn(system.executionContext()); // registered tasks' series: off the trigger's actor
    meters.poolsDeclared(jobs.pools().keySet()); // their meters at zero from the start (docs/metrics.md)
    WebhookSink webhookSink = null;
    if (webhook != null) {
      meters.webhookConfigured();
      // Every alert also goes to the webhook (almanac.alerts.webhook), on a thread of its own.
      WebhookSink sink = WebhookSink.start(webhook, cluster.selfMember().address().toString(), meters, summaryInterval);
      CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "almanac-close-webhook",
          () -> {
            sink.close(webhook.timeout().compareTo(Duration.ofSeconds(3)) < 0 ? webhook.timeout() : Duration.ofSeconds(3));
            return CompletableFuture.completedFuture(Done.getInstance());
          });
      webhookSink = sink;
      LOG.info("alerts are also POSTed to the webhook at {}", webhook.target());
    }
    SkipSummary skips = new SkipSummary();
    system.scheduler().scheduleAtFixedRate(summaryInterval, summaryInterval, () -> skips.log(summaryInterval),
        system.executionContext());
    ClusterSharding sharding = ClusterSharding.get(system);
    alerts = alertHistory(system, sharding, clock, alerts, alertSink != null ? "sink" : "log", webhookSink, tap);
    Function<String, RecipientRef<TaskProtocol.Command>> tasks = id -> sharding.entityRefFor(TaskEntity.TYPE_KEY, id);
    // Not Pekko's singleton proxy: it does not find the trigger again after its manager stopped it
    // on a lost lease and started it anew on the same node (see SingletonLocator).
    ActorRef<TriggerProtocol.Command> trigger = SingletonLocator.init(system,
        SingletonActor.of(MessageTap.wrap(tap, "trigger", LeaseGuard.singleton(
            TriggerActor.create(clock, triggerSettings, taskSettings.recentFireGrace(), tasks, alerts, meters), TriggerProtocol.Command.class)),
            "almanac-trigger"),
        config.getDuration("pekko.cluster.singleton-proxy.singleton-identification-interval"),
        config.getInt("pekko.cluster.singleton-proxy.buffer-size"));
    String executorId = cluster.selfMember().uniqueAddress().toString();
    ExecutorFence fence = fence(system, executorSettings, executorId);
    ExecutorLiveness liveness = new ExecutorLiveness(fence, node -> memberUp(cluster, node),
        executorSettings.fenceLease().isEmpty() ? null : leases(system, executorSettings.fenceLease(),
            "liveness-check:" + cluster.selfMember().address().hostPort()),
        System::nanoTime, executorSettings.checkInterval().toNanos(),
        config.getBoolean("almanac.node.join-self") && seedNodes.isEmpty()); // embedded: other identities are past lives
    io.almanac.spi.PoolStore poolStore = poolStore(system, clock, poolSettings, jobs, sharding, tap);
    ActorRef<ExecutorProtocol.Command> executor = system.systemActorOf(
        MessageTap.wrap(tap, "executor",
            Executor.create(clock, executorSettings, taskSettings.maxReasonLength(), jobs, tasks, fence, meters, alerts, System::nanoTime,
                poolStore, poolSettings)),
        "almanac-executor", Props.empty());
    // found by the nodes page of any member (docs/http-api.md, GET /api/nodes)
    system.receptionist().tell(org.apache.pekko.actor.typed.receptionist.Receptionist.register(ExecutorProtocol.SERVICE,
        executor));
    TaskEnv env = new TaskEnv(trigger, executor, alerts, liveness::of, executorSettings.checkInterval(),
        taskSettings.repeatedSkipAlert(), meters, jobs::condition, tasks, skips);
    sharding.init(Entity.of(TaskEntity.TYPE_KEY, ctx -> MessageTap.wrap(tap, "task",
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
    // After the executor's drain (service-requests-done), not before: the trigger goes on firing on time while
    // running jobs get their shutdown-grace, and its hand-over is recorded right before the node leaves, so the
    // successor starts within almanac.trigger.hand-over-timeout of it however long the drain took.
    shutdown.addTask(CoordinatedShutdown.PhaseServiceStop(), "almanac-quiesce-trigger", () -> {
      boolean othersUp = othersStayUp(cluster);
      return system.classicSystem().actorSelection(SingletonLocator.localPath("almanac-trigger"))
          .resolveOne(Duration.ofSeconds(1))
          .thenCompose(local -> Asks.<TriggerProtocol.Command, Done>ask(
              org.apache.pekko.actor.typed.javadsl.Adapter.<TriggerProtocol.Command>toTyped(local),
              r -> new TriggerProtocol.Quiesce(self, othersUp, r), Duration.ofSeconds(2), system.scheduler()))
          .handle((r, e) -> Done.getInstance()); // not running here (not found at once): nothing to quiesce
    });
    // The executor waits shutdown-grace for running attempts, then records those still running as
    // interrupted (NODE_STOPPED) through their entities, before the shards stop in a later phase.
    Duration drainWait = executorSettings.shutdownGrace().plus(ExecutorSettings.INTERRUPT_MARGIN);
    shutdown.addTask(CoordinatedShutdown.PhaseServiceRequestsDone(), "almanac-drain-executor", () ->
        Asks.<ExecutorProtocol.Command, Done>ask(executor, ExecutorProtocol.Drain::new, drainWait,
            system.scheduler()).exceptionally(e -> {
              LOG.warn("the executor's drain did not end within {} (shutdown-grace {} and {} to record what still ran): "
                  + "attempts not recorded interrupted here are found interrupted (NODE_LOST) at the next start",
                  drainWait, executorSettings.shutdownGrace(), ExecutorSettings.INTERRUPT_MARGIN);
              return Done.getInstance();
            }));
    Duration registrationTimeout = config.getDuration("almanac.node.registration-timeout");
    if (registrationTimeout.isZero() || registrationTimeout.isNegative()) {
      throw new InvalidSpecException("almanac.node.registration-timeout", registrationTimeout, "must be > 0");
    }
    Node node = new Node(system, clock, jobs, sharding, trigger, executor, registry, taskSettings, meters, executorSettings,
        registrationTimeout, declared, seedNodes, self, executorId);
    node.poolStore = poolStore;
    return node;
  }


  /**
   * Begins the node's life with its facade: closes the event sources at shutdown, says why when
   * the node shuts down before it is ready, registers the tasks declared in {@code almanac.tasks}
   * and completes {@link #ready()} once they are stored and the trigger answers.
   *
   * @param registerAll registers tasks (the facade's)
   * @param closeSources closes the attached event sources (the facade's)
   */
  public void begin(Function<List<TaskSpec>, CompletionStage<Done>> registerAll, Runnable closeSources) {
    Node almanac = this;
    CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
    Cluster cluster = Cluster.get(system);
    Duration askTimeout = this.askTimeout;

    shutdown.addTask(CoordinatedShutdown.PhaseServiceUnbind(), "almanac-close-event-sources", () -> {
      closeSources.run();
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
        : registerAll.apply(declared).whenComplete((done, error) -> {
          if (error == null) {
            LOG.info("registered {} tasks from almanac.tasks", declared.size());
          }
        });
    // Ready: the declared tasks are stored and the trigger (wherever it runs) answers.
    registered.thenCompose(d -> almanac.retrying("the trigger's status", () -> Asks.<TriggerProtocol.Command,
            TriggerProtocol.TriggerStatus>ask(trigger, TriggerProtocol.GetStatus::withTaskIds, askTimeout,
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
  }

  /**
   * The executor's fence: the lease named by almanac.executor.fence-lease, owned by this node, or none.
   * A gap between the executor's checks longer than the lease's safety margin counts as a pause.
   */
  private static ExecutorFence fence(ActorSystem<?> system, ExecutorSettings settings, String executorId) {
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
        leases(system, path, Cluster.get(system).selfMember().address().hostPort()), margin);
  }

  /** Opens leases of the given configuration path, owned by {@code owner}. */
  private static ExecutorFence.Leases leases(ActorSystem<?> system, String path, String owner) {
    return name -> org.apache.pekko.coordination.lease.javadsl.LeaseProvider.get(system).getLease(name, path, owner);
  }

  /** The node shuts down: if it is not ready yet, fail ready() with the reason, and say it loudly when it was refused at join. */
  private void shutDownBeforeReady(CoordinatedShutdown.Reason reason, List<String> seedNodes) {
    if (ready.isDone() || !notReadyReported.compareAndSet(false, true)) {
      return; // ready, or said already (by the shutdown task or at the end of start)
    }
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
   * start, so an operator sees it and removes it with {@code Almanac.remove(id)} if that was meant.
   */
  public static java.util.Optional<String> undeclared(List<TaskSpec> declared, List<String> registered) {
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
    CompletableFuture<NodeHealth.Check> executorCheck = Asks.<ExecutorProtocol.Command, ExecutorProtocol.Stats>ask(executor,
            ExecutorProtocol.GetStats::new, askTimeout, system.scheduler())
        .handle((st, error) -> error != null
            ? new NodeHealth.Check("executor", false, "no answer within " + askTimeout)
            : executorCheck(st, maxStuckJobs));
    return Asks.<TriggerProtocol.Command, TriggerProtocol.TriggerStatus>ask(trigger, TriggerProtocol.GetStatus::new, askTimeout,
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

  /**
   * The cluster as the operators' nodes page shows it: the members (as this node sees them), each
   * member's executor asked over the cluster (found through the receptionist), where the trigger
   * runs and whether it answers, and each declared pool's live holds and queued windows. Every ask
   * has {@code timeout}: a member that does not answer is shown so, never waited for longer.
   *
   * @param pools the pools declared on this node, by name, with their max-concurrent
   * @param timeout the most any ask waits
   * @return the view, completed within about {@code timeout}
   */
  public CompletionStage<io.almanac.ClusterView> nodes(java.util.SortedMap<String, Integer> pools, Duration timeout) {
    Instant now = clock.instant();
    Cluster cluster = Cluster.get(system);
    org.apache.pekko.cluster.ClusterEvent.CurrentClusterState state = cluster.state();
    List<org.apache.pekko.cluster.Member> members = new java.util.ArrayList<>();
    state.getMembers().forEach(members::add);
    members.sort((a, b) -> a.isOlderThan(b) ? -1 : b.isOlderThan(a) ? 1 : 0);
    String selfAddress = cluster.selfMember().address().toString();
    // the singleton runs on the oldest Up member with the singletons' role, if one is configured (as SingletonLocator)
    String role = system.settings().config().getString("pekko.cluster.singleton.role");
    String triggerNode = members.stream().filter(m -> m.status() == MemberStatus.up())
        .filter(m -> role.isEmpty() || m.hasRole(role)).findFirst()
        .map(m -> m.address().toString()).orElse(null);
    java.util.Set<org.apache.pekko.cluster.Member> unreachable = state.getUnreachable();
    CompletableFuture<java.util.Set<ActorRef<ExecutorProtocol.Command>>> found = Asks.<org.apache.pekko.actor.typed.receptionist.Receptionist.Command,
            org.apache.pekko.actor.typed.receptionist.Receptionist.Listing>ask(system.receptionist(),
            r -> org.apache.pekko.actor.typed.receptionist.Receptionist.find(ExecutorProtocol.SERVICE, r), timeout,
            system.scheduler())
        .thenApply(l -> l.getServiceInstances(ExecutorProtocol.SERVICE))
        .exceptionally(e -> java.util.Set.of());
    CompletableFuture<java.util.Map<String, Object>> slots = found.thenCompose(refs -> {
      java.util.Map<String, CompletableFuture<Object>> asked = new java.util.LinkedHashMap<>();
      for (ActorRef<ExecutorProtocol.Command> ref : refs) {
        org.apache.pekko.actor.Address a = ref.path().address();
        String at = a.hasLocalScope() ? selfAddress : a.toString();
        asked.put(at, Asks.<ExecutorProtocol.Command, ExecutorProtocol.Slots>ask(ref, ExecutorProtocol.GetSlots::new,
                timeout, system.scheduler())
            .<Object>thenApply(x -> x)
            .exceptionally(e -> "its executor did not answer within " + timeout.toMillis() + " ms"));
      }
      return CompletableFuture.allOf(asked.values().toArray(new CompletableFuture[0])).thenApply(x -> {
        java.util.Map<String, Object> out = new java.util.HashMap<>();
        asked.forEach((k, v) -> out.put(k, v.join()));
        return out;
      });
    });
    CompletableFuture<Boolean> triggerAnswers = Asks.<TriggerProtocol.Command, TriggerProtocol.TriggerStatus>ask(trigger,
            TriggerProtocol.GetStatus::new, timeout, system.scheduler())
        .handle((st, e) -> e == null);
    io.almanac.spi.PoolStore store = poolStore;
    java.util.Map<String, CompletableFuture<List<io.almanac.journal.PoolState.Hold>>> holds = new java.util.LinkedHashMap<>();
    for (String pool : pools.keySet()) {
      CompletableFuture<List<io.almanac.journal.PoolState.Hold>> h;
      try {
        h = store == null ? CompletableFuture.completedFuture(null) : store.holds(pool).toCompletableFuture();
      } catch (RuntimeException e) {
        h = CompletableFuture.completedFuture(null);
      }
      holds.put(pool, h.completeOnTimeout(null, timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
          .exceptionally(e -> null));
    }
    CompletableFuture<Void> poolsRead = CompletableFuture.allOf(holds.values().toArray(new CompletableFuture[0]));
    // Combined once all are done: nothing here waits (the last answer may come on an actor's thread)
    return CompletableFuture.allOf(slots, triggerAnswers, poolsRead).thenApply(done -> {
      java.util.Map<String, Object> bySlot = slots.join();
      boolean answers = triggerAnswers.join();
      List<io.almanac.ClusterView.Member> ms = new java.util.ArrayList<>();
      java.util.Map<String, Integer> waiting = new java.util.HashMap<>();
      for (org.apache.pekko.cluster.Member m : members) {
        String address = m.address().toString();
        Object s = bySlot.get(address);
        io.almanac.ClusterView.Executor ex = null;
        String problem = null;
        if (s instanceof ExecutorProtocol.Slots sl) {
          ex = io.almanac.ClusterView.Executor.builder().identity(sl.identity()).holdsLease(sl.holdsLease())
              .upSince(sl.startedAt()).slots(sl.capacity()).running(sl.running()).queuedFresh(sl.queuedFresh())
              .queuedBacklog(sl.queuedBacklog()).stuck(sl.stuck()).poolWaiting(sl.poolWaiting()).build();
          sl.poolWaiting().forEach((p, n) -> waiting.merge(p, n, Integer::sum));
        } else {
          problem = s instanceof String why ? why : "no executor of it is registered (it has not started Almanac, or it left)";
        }
        ms.add(io.almanac.ClusterView.Member.builder().address(address).roles(List.copyOf(m.getRoles()))
            .status(m.status().toString()).reachable(!unreachable.contains(m)).self(address.equals(selfAddress))
            .executor(ex).problem(problem).build());
      }
      List<io.almanac.ClusterView.Pool> ps = new java.util.ArrayList<>();
      pools.forEach((pool, max) -> {
        List<io.almanac.journal.PoolState.Hold> hs = holds.get(pool).join();
        List<io.almanac.ClusterView.Holder> holders = hs == null ? null : hs.stream()
            .map(h -> io.almanac.ClusterView.Holder.builder().taskId(h.taskId()).window(h.window()).node(h.node())
                .since(h.since()).expiresAt(h.expiresAt()).build())
            .toList();
        ps.add(io.almanac.ClusterView.Pool.builder().pool(pool).maxConcurrent(max).holders(holders)
            .waiting(waiting.getOrDefault(pool, 0)).build());
      });
      return io.almanac.ClusterView.builder().at(now).self(selfAddress).triggerNode(triggerNode).triggerAnswers(answers)
          .members(ms).pools(ps).build();
    });
  }

  /** The executor's check: it holds its lease (or has none to hold) and has no more stuck jobs than allowed. */
  public static NodeHealth.Check executorCheck(ExecutorProtocol.Stats st, int maxStuckJobs) {
    boolean ok = st.holdsLease() && st.stuck() <= maxStuckJobs;
    return new NodeHealth.Check("executor", ok, "executor " + st.identity() + (st.holdsLease() ? "" : " does not hold its lease: "
        + "no job runs here") + "; " + st.running() + " running, " + st.stuck() + " stuck (almanac.executor.max-stuck-jobs = "
        + maxStuckJobs + ")");
  }

  public static NodeHealth.Check fresh(String name, Instant at, Instant now, Duration within, String what) {
    if (at == null) {
      return new NodeHealth.Check(name, false, "the trigger has not " + what + " yet");
    }
    Duration ago = Duration.between(at, now);
    boolean ok = ago.compareTo(within) <= 0;
    return new NodeHealth.Check(name, ok, "the trigger " + what + " " + (ago.isNegative() ? "0" : ago.toMillis()) + " ms ago"
        + (ok ? "" : ", more than " + within));
  }

  /**
   * Runs an ask again, with back-off, while it finds no answer (a node or database slow to start),
   * until {@code almanac.node.registration-timeout}; a refusal fails at once.
   */
  public <T> CompletionStage<T> retrying(String what, java.util.function.Supplier<CompletionStage<T>> attempt) {
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


  /**
   * The alert history (docs/alerts.md): the cluster's one entity of it, this node's recorder, and the
   * node's sinks wrapped so that each alert is recorded raised, and each sink's outcome as its
   * delivery. The recorder stops sending at the drain (before the shards stop).
   */
  private static AlertSink alertHistory(ActorSystem<?> system, ClusterSharding sharding, Clock clock, AlertSink sink,
      String sinkName, WebhookSink webhook, MessageTap tap) {
    sharding.init(Entity.of(io.almanac.internal.alert.AlertLogEntity.TYPE_KEY, ctx -> MessageTap.wrap(tap, "alerts",
            LeaseGuard.shardEntity(io.almanac.internal.alert.AlertLogEntity.create(),
                io.almanac.internal.alert.AlertLogProtocol.Command.class)))
        .withSettings(TaskShardingSettings.of(system)));
    ActorRef<io.almanac.internal.alert.AlertRecorder.Command> recorder = system.systemActorOf(
        io.almanac.internal.alert.AlertRecorder.create(sharding.entityRefFor(io.almanac.internal.alert.AlertLogEntity.TYPE_KEY,
            io.almanac.internal.alert.AlertLogEntity.ENTITY_ID)), "almanac-alert-recorder", Props.empty());
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeClusterShutdown(), "almanac-close-alert-history",
        () -> {
          recorder.tell(io.almanac.internal.alert.AlertRecorder.Close.INSTANCE);
          return CompletableFuture.completedFuture(Done.getInstance());
        });
    String self = Cluster.get(system).selfMember().address().toString();
    AlertSink recorded = io.almanac.internal.alert.AlertRecorder.recording(recorder, sink, sinkName, self, clock);
    if (webhook == null) {
      return recorded;
    }
    String name = webhook.name();
    webhook.onDelivery((alert, status, attempts, detail) -> recorder.tell(new io.almanac.internal.alert.AlertRecorder.Record(
        new io.almanac.internal.alert.AlertLog.AlertDeliveryRecorded(io.almanac.internal.alert.AlertRecorder.alertId(alert, self),
            name, status, attempts, io.almanac.internal.alert.AlertRecorder.cut(detail), clock.instant()))));
    return WebhookSink.both(recorded, webhook);
  }

  /** The class name of the JDBC pool store, removed: its tables' counts are in the pools' journals now. */
  private static final String REMOVED_JDBC_STORE = "io.almanac.persistence.pools.JdbcPoolStore";

  /**
   * The store of the pools' counts: the pools' own journaled entities ({@link JournalPoolStore},
   * a sharded {@link PoolEntity} per pool, so the limits hold across the cluster), or the class named
   * by almanac.pool-store.class (its static create(ActorSystem, Config) with the almanac.pool-store
   * block). Without a declared pool, an empty store in memory: nothing is created.
   */
  private static io.almanac.spi.PoolStore poolStore(ActorSystem<?> system, Clock clock, PoolSettings settings,
      JobRegistry jobs, ClusterSharding sharding, MessageTap tap) {
    if (jobs.pools().isEmpty()) {
      return new InMemoryPoolStore(clock);
    }
    if (settings.storeClass().equals(REMOVED_JDBC_STORE)) {
      throw new InvalidSpecException("almanac.pool-store.class", settings.storeClass(), "removed: each pool keeps its "
          + "holds, starts, usage and raises in its own journal now (docs/pools.md); delete this key (the tables "
          + "almanac_pool, almanac_pool_start, almanac_pool_hold and almanac_pool_usage are no longer used)");
    }
    // the pools' entities run on every node with a pool, whatever store it uses (a store class may wrap them)
    sharding.init(Entity.of(PoolEntity.TYPE_KEY, ctx -> MessageTap.wrap(tap, "pool",
        LeaseGuard.shardEntity(PoolEntity.create(ctx.getEntityId(), clock), PoolProtocol.Command.class)))
        .withSettings(TaskShardingSettings.of(system)));
    if (settings.storeClass().isEmpty()) {
      return new JournalPoolStore(system, sharding, Cluster.get(system).selfMember().address().toString(),
          settings.holdTtl(), settings.renewInterval(), settings.operationTimeout());
    }
    String key = "almanac.pool-store.class";
    try {
      Class<?> type = Class.forName(settings.storeClass(), true, Node.class.getClassLoader());
      java.lang.reflect.Method create = type.getMethod("create", ActorSystem.class, Config.class);
      Object store = create.invoke(null, system, system.settings().config().getConfig("almanac.pool-store"));
      if (!(store instanceof io.almanac.spi.PoolStore pools)) {
        throw new InvalidSpecException(key, settings.storeClass(), "its create(ActorSystem, Config) does not return an "
            + "io.almanac.spi.PoolStore");
      }
      return pools;
    } catch (ClassNotFoundException e) {
      throw new InvalidSpecException(key, settings.storeClass(), "no such class on the classpath (the JDBC store is in "
          + "almanac-persistence)");
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new InvalidSpecException(key, settings.storeClass(), "has no public static create(ActorSystem, Config)");
    } catch (java.lang.reflect.InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new AlmanacException("almanac.pool-store.class = " + settings.storeClass() + ": its create failed", cause);
    }
  }

  /** Micrometer's JVM and process meters, bound into the node's registry; the GC meter is closed with the node. */
  private static void bindJvmMeters(ActorSystem<?> system, io.micrometer.core.instrument.MeterRegistry registry) {
    new io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.system.ProcessorMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.system.UptimeMetrics().bindTo(registry);
    io.micrometer.core.instrument.binder.jvm.JvmGcMetrics gc = new io.micrometer.core.instrument.binder.jvm.JvmGcMetrics();
    gc.bindTo(registry);
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "almanac-close-gc-meters",
        () -> {
          gc.close();
          return CompletableFuture.completedFuture(Done.getInstance());
        });
  }
}
