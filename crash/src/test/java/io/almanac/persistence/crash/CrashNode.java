package io.almanac.persistence.crash;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.Almanac;
import io.almanac.CatchUpPolicy;
import io.almanac.DependencyTrigger;
import io.almanac.EventTrigger;
import io.almanac.InstanceStatus;
import io.almanac.EffectOutcomeUnknownException;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.lease.LeaseSeeds;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node the crash and fault tests start as a child JVM and kill: an embedded Almanac node on the
 * real clock with {@link #TASKS} tasks that fire every second, one window per firing
 * ({@link WindowSpec#PER_FIRING}):
 *
 * <ul>
 *   <li>{@code quick-*}: succeed at once (or within 50 ms); 1-4 neither retried nor caught up (the
 *       defaults), 5-8 retried at once ({@link RetryPolicy#immediate()}) and caught up after downtime
 *       ({@link CatchUpPolicy#all()});
 *   <li>{@code long-*}: take 1.5-3 s; overlap SKIP, so most of their firings are skipped with a reason;
 *       not retried (an attempt orphaned by a crash is timed out and the window fails for good);
 *   <li>{@code fail-now-*} / {@code fail-later-*}: the first attempt of every window fails; retried at
 *       once ({@link RetryPolicy#immediate()}) or 1 s later ({@link RetryPolicy#delayed}), and caught up;
 *   <li>{@code ledger-*}: {@code ctx.ledger().once("send", effect)}, where the effect appends the line
 *       {@code "task window attempt"} to the effects file and fsyncs it (FileChannel.force) before it
 *       returns. When an earlier attempt died between the effect and its record
 *       ({@link EffectOutcomeUnknownException}) the job checks downstream, as the ledger's contract
 *       asks: it looks for the window's line in the effects file, records {@code downstream:found}
 *       if it is there and otherwise runs the effect and records {@code downstream:ran}.
 * </ul>
 *
 * Leases are short (floor 5 s, ceiling 10 s), so an orphan of a {@code kill -9} resolves quickly.
 *
 * <p>Usage: {@code CrashNode --db h2 --h2-path /abs/path/db --effects /abs/effects.txt}, or {@code --db
 * h2url --jdbc-url jdbc:h2:tcp://...} (an H2 TCP server), or {@code --db pg --pg-url jdbc:postgresql://...
 * --pg-user u --pg-password p --pg-schema s}; {@code --hocon "..."} adds node configuration (for
 * experiments). With {@code --cluster-port P --seeds host:port,host:port,...} the node is a member
 * of a multi-node cluster ({@code include "almanac-cluster.conf"}) instead of the embedded one-node
 * cluster (see ClusterFailoverTest). It logs through the logback file given with
 * {@code -Dlogback.configurationFile} and prints to stdout, for the parent test:
 *
 * <ul>
 *   <li>{@code READY <epoch ms>} once the schema exists and every task is registered;
 *   <li>{@code JOB-START <task> <window> <attempt>} when a job starts (after its AttemptStarted is persisted);
 *   <li>{@code EFFECT <task> <window> <attempt>} when an effect's line is on disk, before the ledger records it;
 *   <li>{@code STOPPED} after a normal stop, asked for with the line {@code STOP} on stdin (end of stdin
 *       ends the process too, so a child never outlives its test).
 * </ul>
 *
 * <p>With {@code --tasks events} or {@code --tasks chain} the node registers another task set instead
 * of {@link #TASKS} (see TriggerCrashTest): {@link #EVENT_TASKS} (one event-triggered task) or
 * {@link #CHAIN_TASKS} (a dependency chain); with {@code --tasks steps} {@link StepNode#TASKS} (jobs
 * of three durable steps, see StepKillTest); with {@code --tasks pool} none, until a {@code
 * REGISTER-POOL} line (see {@link PoolNode}: one-shot tasks through named pools, their job's work
 * time set by {@code --pool-job-ms MIN-MAX}), and a {@code REGISTER-BUDGET} line adds tasks with a
 * budget per day whose job reports usage ({@link BudgetNode}). Further lines on stdin, answered on stdout:
 *
 * <ul>
 *   <li>{@code PUBLISH <type> <id> <eventTime>} publishes an event; {@code PUBLISHED <id> <task> <outcome>
 *       <window>} (one per listening task) once the publish is acknowledged (recorded), or
 *       {@code PUBLISH-FAILED <id> <error>};
 *   <li>{@code AWAIT-SUCCEEDED <task> <window>} answers {@code AWAITED <task> <window>} once the task's
 *       entity reports the window SUCCEEDED (asked every 250 ms; the parent test holds the deadline).
 * </ul>
 */
public final class CrashNode {

  private static final Logger LOG = LoggerFactory.getLogger(CrashNode.class);

  /** Every second, UTC. */
  static final String EVERY_SECOND = "* * * * * ? UTC";

  /** The effect ledger key the ledger jobs use. */
  static final String EFFECT_KEY = "send";

  /** Leases short enough that an orphaned attempt resolves within seconds. */
  static final LeasePolicy LEASE = LeasePolicy.builder().floor(Duration.ofSeconds(5)).ceiling(Duration.ofSeconds(10)).factor(1.5).minSamples(5).build();

  /** The tasks, by id. */
  static final List<TaskSpec> TASKS = tasks();

  /** {@code --tasks drain}: the short job's length, well within the drain test's shutdown-grace. */
  static final long DRAIN_SHORT_MS = 3_000;

  /** {@code --tasks drain}: the long job's first attempts, longer than the grace (a resume takes 1 s). */
  static final long DRAIN_LONG_MS = 20_000;

  /**
   * {@code --tasks drain}: two tasks due every 20 seconds, at the same second, without retries (a
   * failure would be FINAL_FAILED) and with leases far longer than the run: {@code drain-short} takes
   * 3 s, {@code drain-long} 20 s (1 s when resumed). What a SIGTERM does to them is the drain's.
   */
  static final List<TaskSpec> DRAIN_TASKS = List.of(
      TaskSpec.builder("drain-short").cron("0/20 * * * * ? UTC").window(WindowSpec.PER_FIRING).job("drain-short")
          .overlap(OverlapPolicy.SKIP).lease(LeasePolicy.builder().floor(Duration.ofMinutes(5)).ceiling(Duration.ofMinutes(10))
              .factor(1.5).minSamples(5).build()).build(),
      TaskSpec.builder("drain-long").cron("0/20 * * * * ? UTC").window(WindowSpec.PER_FIRING).job("drain-long")
          .overlap(OverlapPolicy.SKIP).lease(LeasePolicy.builder().floor(Duration.ofMinutes(5)).ceiling(Duration.ofMinutes(10))
              .factor(1.5).minSamples(5).build()).build());

  /** A drain test's job: {@code ms} long, printing its start; its summary says whether it saw the stopping signal. */
  static CompletionStage<JobResult> drainJob(JobContext ctx, long ms) {
    started(ctx);
    // what it saw goes into its summary (the journal): after a SIGTERM the node's stdout may be closed already
    return after(ms, null).thenApply(r -> JobResult.success(ctx.runKind() + ", " + ms + " ms, stopping=" + ctx.isStopping()));
  }

  private CrashNode() {}

  private static List<TaskSpec> tasks() {
    List<TaskSpec> specs = new ArrayList<>();
    for (int i = 1; i <= 8; i++) {
      // half neither retried nor caught up (the defaults, R12), half retried and caught up at once
      TaskSpec.Builder quick = base("quick-" + i, "quick");
      specs.add((i <= 4 ? quick : backfilled(quick, RetryPolicy.immediate())).build());
    }
    for (int i = 1; i <= 3; i++) {
      specs.add(base("long-" + i, "long").overlap(OverlapPolicy.SKIP).build());
    }
    for (int i = 1; i <= 2; i++) {
      specs.add(backfilled(base("fail-now-" + i, "fail-first"), RetryPolicy.immediate()).build());
      specs.add(backfilled(base("fail-later-" + i, "fail-first"), RetryPolicy.delayed(Duration.ofSeconds(1))).build());
    }
    for (int i = 1; i <= 4; i++) {
      specs.add(backfilled(base("ledger-" + i, "ledger"), RetryPolicy.immediate()).build());
    }
    return List.copyOf(specs);
  }

  /** How many slow tasks a cluster node adds: enough that the trigger's host almost surely runs one. */
  static final int SLOW_TASK_COUNT = 12;

  /** How long a slow job works before its effect. */
  static final long SLOW_MILLIS = 8000;

  /**
   * The tasks a cluster node adds to {@link #TASKS} ({@code --cluster-port}): {@code slow-1..12},
   * every 10 s (each at its own second), whose job works {@link #SLOW_MILLIS} (interruptibly, with a
   * heartbeat every 3 s) and then, only while it holds its lease, makes the ledgered effect; overlap
   * SKIP, retried at once. A node frozen while one runs must not finish it after waking.
   */
  static final List<TaskSpec> SLOW_TASKS = slowTasks();

  private static List<TaskSpec> slowTasks() {
    List<TaskSpec> specs = new ArrayList<>();
    for (int i = 1; i <= SLOW_TASK_COUNT; i++) {
      specs.add(TaskSpec.builder("slow-" + i).cron((i % 10) + "/10 * * * * ? UTC").window(WindowSpec.PER_FIRING)
          .lease(LEASE).overlap(OverlapPolicy.SKIP).retry(RetryPolicy.immediate().withMaxRetries(5)).job("slow").build());
    }
    return List.copyOf(specs);
  }

  /** Retried (up to 5 times, by the given back-off) and caught up after downtime. */
  private static TaskSpec.Builder backfilled(TaskSpec.Builder b, RetryPolicy retry) {
    return b.retry(retry.withMaxRetries(5)).catchUp(CatchUpPolicy.all());
  }

  /** The event-triggered task of the {@code events} task set: hourly windows by event time, UTC. */
  static final String ORDERS = "orders";

  /** The event type it listens to. */
  static final String ORDER_PAID = "order.paid";

  /**
   * {@code --tasks events}: {@code orders}, triggered by {@code order.paid} events, one hourly UTC
   * window per event hour; its ledger job appends {@code "orders <window> <attempt>"} to the effects
   * file once per window. Overlap ALLOW, so events of several hours run side by side; retried.
   */
  static final List<TaskSpec> EVENT_TASKS = List.of(
      TaskSpec.builder(ORDERS).onEvent(EventTrigger.of(ORDER_PAID)).zone("UTC").window("hourly")
          .overlap(OverlapPolicy.ALLOW).lease(LEASE).retry(RetryPolicy.immediate().withMaxRetries(5)).job("ledger").build());

  /** The chain's cadence: every 10 s, UTC, one window per firing (the three tasks share the keys). */
  static final String EVERY_TEN_SECONDS = "0/10 * * * * ? UTC";

  /** How long chain-b's job takes before its effect, so a kill lands while it is RUNNING. */
  static final long CHAIN_B_MILLIS = 3000;

  /**
   * {@code --tasks chain}: {@code chain-a -> chain-b -> chain-c}, all every 10 s (per firing),
   * b depends on a and c on b (SAME_WINDOW, waiting at most 5 minutes). Each job runs the ledgered
   * effect (a line {@code "task window attempt"} in the effects file); b first takes
   * {@link #CHAIN_B_MILLIS}. Retried at once (an attempt orphaned by a kill times out with its lease).
   */
  static final List<TaskSpec> CHAIN_TASKS = List.of(
      chain("chain-a", "chain-fast").build(),
      chain("chain-b", "chain-slow").dependsOn(DependencyTrigger.on("chain-a").waitAtMost(Duration.ofMinutes(5))).build(),
      chain("chain-c", "chain-fast").dependsOn(DependencyTrigger.on("chain-b").waitAtMost(Duration.ofMinutes(5))).build());

  private static TaskSpec.Builder chain(String id, String job) {
    return TaskSpec.builder(id).cron(EVERY_TEN_SECONDS).window(WindowSpec.PER_FIRING).lease(LEASE)
        .overlap(OverlapPolicy.ALLOW).retry(RetryPolicy.immediate().withMaxRetries(5)).job(job);
  }

  private static TaskSpec.Builder base(String id, String job) {
    return TaskSpec.builder(id).cron(EVERY_SECOND).window(WindowSpec.PER_FIRING).lease(LEASE).job(job);
  }

  // ---------------------------------------------------------------------------------------------
  // Configuration, shared with the tests (the audit reads the journal with the same wiring)

  /**
   * Parses {@code --key value} pairs.
   *
   * @param args the arguments
   * @return the options in order
   */
  static Map<String, String> options(String[] args) {
    Map<String, String> o = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --key value pairs, got '" + args[i] + "' at " + i);
      }
      o.put(args[i].substring(2), args[++i]);
    }
    return o;
  }

  private static String required(Map<String, String> o, String key) {
    String v = o.get(key);
    if (v == null) {
      throw new IllegalArgumentException("--" + key + " is required");
    }
    return v;
  }

  /**
   * The journal wiring as a user writes it: {@code include "almanac-h2.conf"} or
   * {@code include "almanac-postgres.conf"} and the location.
   *
   * @param o the options ({@code db} and its location keys)
   * @return HOCON text
   */
  static String journalHocon(Map<String, String> o) {
    String db = required(o, "db");
    return switch (db) {
      case "h2" -> "include \"almanac-h2.conf\"\n"
          + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(required(o, "h2-path")) + "\n";
      case "h2url" -> "include \"almanac-h2.conf\"\n"
          // the embedded path is not used: the url below points at an H2 TCP server
          + "almanac.persistence.h2.path = \"./unused\"\n"
          + "pekko-persistence-jdbc.shared-databases.slick.db {\n"
          + "  url = " + ConfigUtil.quoteString(required(o, "jdbc-url")) + "\n"
          // while the server is away: fail a write after 5 s instead of the plugin's default wait
          + "  connectionTimeout = 5s\n"
          + "  validationTimeout = 2s\n"
          + "}\n";
      case "pg" -> "include \"almanac-postgres.conf\"\n"
          + "almanac.persistence.postgres {\n"
          + "  url = " + ConfigUtil.quoteString(required(o, "pg-url")) + "\n"
          + "  user = " + ConfigUtil.quoteString(required(o, "pg-user")) + "\n"
          + "  password = " + ConfigUtil.quoteString(o.getOrDefault("pg-password", "")) + "\n"
          + "  schema = " + required(o, "pg-schema") + "\n"
          + "}\n";
      default -> throw new IllegalArgumentException("--db must be h2, h2url or pg, not '" + db + "'");
    };
  }

  /**
   * The journal configuration alone, resolved (what the audit reads the journal with).
   *
   * @param o the options
   * @return the configuration
   */
  static Config journalConfig(Map<String, String> o) {
    return ConfigFactory.load(ConfigFactory.parseString(journalHocon(o)));
  }

  /**
   * The node's configuration: the embedded one-node cluster on the journal; or, with {@code
   * --cluster-port P --seeds host:port,host:port,...}, a member of a multi-node cluster as a user
   * sets one up ({@code include "almanac-cluster.conf"}, its canonical port and seed nodes).
   */
  static Config nodeConfig(Map<String, String> o) {
    return ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        clusterHocon(o),
        journalHocon(o),
        // the lease check runs often, so a lease that passes is noticed within 200 ms
        "almanac.executor.check-interval = 200ms",
        "pekko.coordinated-shutdown.exit-jvm = off",
        "pekko.log-dead-letters = 10",
        "pekko.log-dead-letters-during-shutdown = off",
        o.getOrDefault("hocon", ""))));
  }

  /** The ActorSystem's name, part of every node address. */
  static final String SYSTEM_NAME = "crash-node";

  private static String clusterHocon(Map<String, String> o) {
    String port = o.get("cluster-port");
    if (port == null) {
      return "include \"almanac-embedded.conf\"";
    }
    StringBuilder seeds = new StringBuilder();
    for (String seed : required(o, "seeds").split(",")) {
      seeds.append(seeds.length() == 0 ? "" : ", ")
          .append(ConfigUtil.quoteString("pekko://" + SYSTEM_NAME + "@" + seed.trim()));
    }
    return String.join("\n",
        "include \"almanac-cluster.conf\"",
        "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
        "pekko.remote.artery.canonical.port = " + Integer.parseInt(port),
        "pekko.cluster.seed-nodes = [" + seeds + "]",
        "pekko.cluster.log-info-verbose = off");
  }

  // ---------------------------------------------------------------------------------------------
  // The node

  /**
   * Starts the node and serves until {@code STOP} on stdin (or its end), or a kill.
   *
   * @param args see the class comment
   * @throws Exception if it cannot start
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = options(args);
    Path effects = Path.of(required(o, "effects")).toAbsolutePath();
    Config config = nodeConfig(o);
    LOG.info("crash node starting, pid {}, options {}", ProcessHandle.current().pid(), o);
    List<TaskSpec> tasks = switch (o.getOrDefault("tasks", "default")) {
      case "default" -> o.containsKey("cluster-port")
          ? java.util.stream.Stream.concat(TASKS.stream(), SLOW_TASKS.stream()).toList() : TASKS;
      case "events" -> EVENT_TASKS;
      case "chain" -> CHAIN_TASKS;
      case "drain" -> DRAIN_TASKS;
      case "pool" -> List.of(); // registered later, by a REGISTER-POOL line (PoolNode)
      case "steps" -> StepNode.TASKS;
      default -> throw new IllegalArgumentException("--tasks must be default, events, chain, drain, pool or steps, not '"
          + o.get("tasks") + "'");
    };
    if (o.containsKey("seeds")) {
      // a seed node restarted while the others run joins them (see LeaseSeeds), as the demo node does
      config = io.almanac.persistence.lease.LeaseSeeds.withLiveHolders(config, SYSTEM_NAME);
    }
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), SYSTEM_NAME, config);
    Almanac[] started = new Almanac[1];
    ExecutorService io = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "crash-node-io");
      t.setDaemon(true);
      return t;
    });
    EffectsFile file = new EffectsFile(effects);
    EffectsFile stepsFile = new EffectsFile(StepNode.stepsFile(effects));
    // the pool job's node name and work time (--pool-job-ms MIN-MAX), see PoolNode
    String poolNode = "node-" + o.getOrDefault("cluster-port", "pid" + ProcessHandle.current().pid());
    long[] poolMs = java.util.Arrays.stream(o.getOrDefault("pool-job-ms", "500-1000").split("-")).mapToLong(Long::parseLong).toArray();
    try {
      SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
      // every member holds a lease of its own, so a restarted seed node finds it (LeaseSeeds)
      LeaseSeeds.announce(system);
      Almanac almanac = started[0] = Almanac.builder(system).clock(Clock.systemUTC())
          .job("quick", CrashNode::quick)
          .job("long", CrashNode::longJob)
          .job("drain-short", ctx -> drainJob(ctx, DRAIN_SHORT_MS))
          .job("drain-long", ctx -> drainJob(ctx, ctx.runKind() == RunKind.RESUME ? 1_000 : DRAIN_LONG_MS))
          .job("fail-first", CrashNode::failFirst)
          .job("ledger", ctx -> ledger(ctx, file, io))
          .job("slow", ctx -> slow(ctx, file, io))
          .job("chain-fast", ctx -> ledger(ctx, file, io, ThreadLocalRandom.current().nextLong(0, 100)))
          .job("chain-slow", ctx -> ledger(ctx, file, io, CHAIN_B_MILLIS))
          .job(PoolNode.JOB, ctx -> PoolNode.job(ctx, poolNode, poolMs[0], poolMs[1], CrashNode::out))
          .job(BudgetNode.JOB, ctx -> BudgetNode.job(ctx, CrashNode::out))
          .job(StepNode.JOB, ctx -> StepNode.job(ctx, stepsFile, CrashNode::out))
          .start();
      // both retry until almanac.node.registration-timeout on a slow (loaded) machine, then fail
      almanac.registerAll(tasks).toCompletableFuture().join();
      almanac.ready().toCompletableFuture().join();
    } catch (Exception e) {
      LOG.error("crash node could not start", e);
      System.out.println("FAILED " + e);
      System.out.flush();
      Runtime.getRuntime().halt(3);
    }
    LOG.info("crash node ready: {} tasks", tasks.size());
    out("READY " + System.currentTimeMillis());

    Thread stdin = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.trim().equals("STOP")) {
            break;
          }
          try {
            command(started[0], line.trim());
          } catch (RuntimeException e) {
            LOG.error("command '{}' failed", line, e);
            out("COMMAND-FAILED " + line + " " + e);
          }
        }
      } catch (IOException e) {
        // the parent is gone: stop as well
      }
      LOG.info("crash node stopping (normal stop)");
      system.terminate();
    }, "crash-node-stdin");
    stdin.setDaemon(true);
    stdin.start();
    system.getWhenTerminated().toCompletableFuture().get();
    file.close();
    stepsFile.close();
    LOG.info("crash node stopped");
    out("STOPPED");
    System.exit(0);
  }

  /** A PUBLISH or AWAIT-SUCCEEDED line from the parent test (see the class comment). */
  private static void command(Almanac almanac, String line) {
    String[] f = line.split(" ");
    LOG.info("command: {}", line);
    if (f[0].equals("PUBLISH") && f.length == 4) {
      almanac.publish(f[1], f[2], Instant.parse(f[3]), "crash test").whenComplete((r, e) -> {
        try {
          if (e != null) {
            out("PUBLISH-FAILED " + f[2] + " " + e);
          } else {
            r.tasks().forEach(t -> out("PUBLISHED " + f[2] + " " + t.taskId() + " " + t.outcome() + " " + t.window().value()));
          }
        } catch (RuntimeException x) {
          LOG.error("publish answer for {} failed", line, x);
          out("PUBLISH-FAILED " + f[2] + " " + x);
        }
      });
    } else if (f[0].equals("AWAIT-SUCCEEDED") && f.length == 3) {
      awaitSucceeded(almanac, f[1], f[2]);
    } else if (f[0].equals("REGISTER-POOL") && (f.length == 7 || f.length == 8)) {
      PoolNode.register(almanac, f, CrashNode::out);
    } else if (f[0].equals("REGISTER-BUDGET") && f.length >= 3 && f.length % 2 == 1) {
      BudgetNode.register(almanac, f, CrashNode::out);
    } else if (f[0].equals("USAGE") && f.length == 2) {
      BudgetNode.usage(almanac, f[1], CrashNode::out);
    } else if (!line.isEmpty()) {
      out("UNKNOWN-COMMAND " + line);
    }
  }

  private static void awaitSucceeded(Almanac almanac, String task, String window) {
    almanac.windows(task).whenComplete((list, e) -> {
      boolean done = e == null && list.stream()
          .anyMatch(w -> w.window().value().equals(window) && w.status() == InstanceStatus.SUCCEEDED);
      if (done) {
        out("AWAITED " + task + " " + window);
      } else {
        CompletableFuture.delayedExecutor(250, TimeUnit.MILLISECONDS).execute(() -> awaitSucceeded(almanac, task, window));
      }
    });
  }

  private static void out(String line) {
    synchronized (System.out) {
      System.out.println(line);
      System.out.flush();
    }
  }

  private static void started(JobContext ctx) {
    out("JOB-START " + ctx.taskId() + " " + ctx.window().value() + " " + ctx.attempt());
  }

  private static CompletionStage<JobResult> after(long millis, JobResult result) {
    return CompletableFuture.supplyAsync(() -> result,
        CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS));
  }

  static CompletionStage<JobResult> quick(JobContext ctx) {
    started(ctx);
    long ms = ThreadLocalRandom.current().nextLong(0, 50);
    return ms < 10 ? CompletableFuture.completedFuture(JobResult.success("quick"))
        : after(ms, JobResult.success("quick in " + ms + " ms"));
  }

  static CompletionStage<JobResult> longJob(JobContext ctx) {
    started(ctx);
    long ms = ThreadLocalRandom.current().nextLong(1500, 3001);
    return after(ms, JobResult.success("long, " + ms + " ms"));
  }

  static CompletionStage<JobResult> failFirst(JobContext ctx) {
    started(ctx);
    long ms = ThreadLocalRandom.current().nextLong(0, 100);
    return after(ms, ctx.attempt() == 1 ? JobResult.failure("first attempts fail") : JobResult.success("attempt " + ctx.attempt()));
  }

  static CompletionStage<JobResult> ledger(JobContext ctx, EffectsFile file, ExecutorService io) {
    return ledger(ctx, file, io, ThreadLocalRandom.current().nextLong(0, 200));
  }

  /** The ledger job, its effect {@code before} ms after the start. */
  static CompletionStage<JobResult> ledger(JobContext ctx, EffectsFile file, ExecutorService io, long before) {
    started(ctx);
    return ledgerEffect(ctx, file, io, before);
  }

  /** The ledgered effect {@code before} ms from now, as the ledger job makes it. */
  private static CompletionStage<JobResult> ledgerEffect(JobContext ctx, EffectsFile file, ExecutorService io, long before) {
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    long inside = rnd.nextLong(0, 200);
    long afterwards = rnd.nextLong(0, 200);
    String line = ctx.taskId() + " " + ctx.window().value() + " " + ctx.attempt();
    return after(before, null)
        .thenCompose(x -> ctx.ledger().once(EFFECT_KEY, () -> CompletableFuture.supplyAsync(() -> {
          file.append(line);
          out("EFFECT " + line);
          sleep(inside);
          return "sent by attempt " + ctx.attempt();
        }, io)))
        .exceptionallyCompose(error -> {
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          if (!(cause instanceof EffectOutcomeUnknownException)) {
            return CompletableFuture.failedFuture(cause);
          }
          // Outcome unknown: check downstream, as the ledger's contract asks, and record what is found.
          String prefix = ctx.taskId() + " " + ctx.window().value() + " ";
          return CompletableFuture.supplyAsync(() -> {
            if (file.contains(prefix)) {
              return "downstream:found";
            }
            file.append(line);
            out("EFFECT " + line);
            return "downstream:ran";
          }, io).thenCompose(value -> ctx.ledger().record(EFFECT_KEY, value));
        })
        .thenCompose(value -> after(afterwards, JobResult.success("effect " + value)));
  }

  /**
   * The slow job, as a careful user writes a long agent job: it works on its thread (interruptibly,
   * extending its lease every 3 s), checks that it still holds its lease, then makes its effect
   * through the ledger. It prints {@code JOB-END <task> <window> <attempt> <how>}: {@code done} when it
   * reached its effect, {@code interrupted} or {@code lease-lost} when it stopped short.
   */
  static CompletionStage<JobResult> slow(JobContext ctx, EffectsFile file, ExecutorService io) {
    started(ctx);
    String id = ctx.taskId() + " " + ctx.window().value() + " " + ctx.attempt();
    try {
      for (long worked = 0; worked < SLOW_MILLIS; worked += 1000) {
        Thread.sleep(1000);
        if (worked % 3000 == 2000) {
          ctx.heartbeat(); // its answer is not awaited: a refused heartbeat shows in holdsLease()
        }
      }
    } catch (InterruptedException e) {
      out("JOB-END " + id + " interrupted");
      return CompletableFuture.completedFuture(JobResult.failure("interrupted"));
    }
    if (!ctx.holdsLease()) {
      out("JOB-END " + id + " lease-lost");
      return CompletableFuture.completedFuture(JobResult.failure("the lease was lost before the effect"));
    }
    out("JOB-END " + id + " done");
    return ledgerEffect(ctx, file, io, 0);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The downstream system of the ledger jobs: one line per effect, on disk before the effect returns. */
  static final class EffectsFile {
    private final Path path;
    private final FileChannel channel;

    EffectsFile(Path path) throws IOException {
      this.path = path;
      Files.createDirectories(path.getParent());
      this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    synchronized void append(String line) {
      try {
        ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
          channel.write(b);
        }
        channel.force(true);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    synchronized boolean contains(String prefix) {
      try {
        return Files.readAllLines(path, StandardCharsets.UTF_8).stream().anyMatch(l -> l.startsWith(prefix));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    synchronized void close() throws IOException {
      channel.close();
    }
  }
}
