package io.almanac.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigIncludeContext;
import com.typesafe.config.ConfigIncluder;
import com.typesafe.config.ConfigIncluderClasspath;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import io.almanac.AgentJob;
import io.almanac.AlertSinks;
import io.almanac.Almanac;
import io.almanac.InvalidSpecException;
import io.almanac.TaskSpec;
import io.almanac.http.AlmanacHttp;
import io.almanac.http.InstanceWindowSource;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.InstanceProjection;
import io.almanac.persistence.instances.InstanceQueries;
import io.almanac.persistence.lease.JdbcLease;
import io.almanac.persistence.lease.LeaseSeeds;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo node, Almanac's main job: an embedded one-node cluster on an H2 file under
 * {@code ./data}, running the field report's daily news digest (declared in {@code
 * application.conf}) and four second-level demo tasks (registered here from Java, see {@link
 * DemoTasks}), the field report's e-commerce chain (order-export and daily-report, declared in
 * application.conf, and their compressed-time twins from Java), four agent-job tasks (a shared
 * resource pool with a throttled model call, a budget per day, a deadline, a holiday calendar;
 * declared in application.conf, their jobs in DemoTasks), and printing a live table every few
 * seconds.
 *
 * <p>Run it from the repository root (it reads {@code ./application.conf} there):
 *
 * <pre>
 * mvn -B -q -pl samples -am package -DskipTests &amp;&amp; java -jar samples/target/almanac-demo.jar
 * </pre>
 *
 * With {@code --digest-now} it also runs today's digest window at once (an operator's "run now";
 * the 08:00 fire of that day then finds the window done).
 *
 * <p>Configuration: {@code -Dconfig.file=...} if given; else {@code ./application.conf} if it exists;
 * else the copy of the top-level application.conf packed into the jar. Stop it with Ctrl-C (a
 * coordinated shutdown) or kill it; started again on the same {@code ./data}, it runs no window
 * twice and reports what happened to the windows that fell due while it was down.
 *
 * <p>Exit status: 0 after a coordinated shutdown; {@value #EXIT_CONFIG} for a configuration error
 * (a file that does not exist or does not parse, a bad value such as {@code
 * almanac.tasks.daily-digest.retry.max-retries = 2.5}), with the error on stderr; 1 if the journal cannot
 * be opened or the demo tasks cannot be registered, or the node fails to start otherwise. On any
 * of these the actor system is terminated first, so the JVM never lingers.
 */
public final class DemoNode {
  private static final Logger LOG = LoggerFactory.getLogger(DemoNode.class);

  /** Exit status of a configuration error (a bad value, a missing or unreadable file). */
  static final int EXIT_CONFIG = 2;

  /** Exit status of any other failure to start (the journal, registering the demo tasks). */
  static final int EXIT_FAILURE = 1;

  private DemoNode() {}

  /** Set (true) in the configuration when the demo made its token up, so that one may be logged. */
  static final String TOKEN_GENERATED = "almanac-demo.token-generated";

  /**
   * The demo's token for the HTTP API's actions: {@code almanac.http.token} when set (application.conf
   * takes it from the environment variable {@code ALMANAC_TOKEN}) or named tokens in {@code
   * almanac.http.tokens} when set, else a random one for this run,
   * marked {@link #TOKEN_GENERATED} and logged at start; the actions are never open.
   *
   * @param config the demo's configuration
   * @return it, with a token
   */
  static Config withActionToken(Config config) {
    if (!config.hasPath("almanac.http.token") || !config.getString("almanac.http.token").isEmpty()) {
      return config;
    }
    if (config.hasPath("almanac.http.tokens") && !config.getObject("almanac.http.tokens").isEmpty()) {
      return config; // named tokens configured: they are the demo's tokens
    }
    byte[] random = new byte[18];
    new java.security.SecureRandom().nextBytes(random);
    String token = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    return ConfigFactory.parseMap(Map.of("almanac.http.token", token, TOKEN_GENERATED, true))
        .withFallback(config);
  }

  /** A configuration and where it came from. */
  record Loaded(Config config, String source) {}

  /**
   * Starts the demo node and blocks until it is stopped.
   *
   * @param args {@code --digest-now} to run today's digest window at once; {@code audit ...} runs
   *     the audit command instead ({@link AuditCli})
   */
  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("audit")) {
      System.exit(AuditCli.run(java.util.Arrays.copyOfRange(args, 1, args.length)));
    }
    int status = run(args);
    if (status != 0) {
      System.exit(status);
    }
  }

  /**
   * Runs the demo node until its actor system terminates.
   *
   * @param args as for {@link #main}
   * @return 0 once the node has stopped; {@link #EXIT_CONFIG} or {@link #EXIT_FAILURE} if it could
   *     not start, after its actor system (if any) has terminated
   */
  static int run(String[] args) {
    Loaded loaded;
    String db;
    Path dataDir;
    Duration tableInterval;
    ActorSystem<Void> system;
    try {
      Optional<ClusterArgs> cluster = ClusterArgs.parse(args);
      loaded = loadConfig(cluster.map(ClusterArgs::hocon).orElse(null), cluster.isPresent());
      Config config = loaded.config();
      dataDir = Path.of(config.getString("almanac-demo.data-dir"));
      tableInterval = config.getDuration("almanac-demo.table-interval");
      if (cluster.isPresent()) {
        db = config.getString("almanac.persistence.postgres.url");
        clusterBanner(loaded.source(), cluster.get(), db, dataDir);
      } else {
        Path h2 = Path.of(config.getString("almanac.persistence.h2.path") + ".mv.db").toAbsolutePath().normalize();
        db = h2.toString();
        boolean fresh = !Files.exists(h2);
        banner(loaded.source(), h2, dataDir, fresh);
      }
      // Lease timing that cannot work is refused here: with almanac-cluster.conf the split brain
      // resolver creates its lease while the ActorSystem starts, and would crash its start.
      JdbcLease.checkSettings(config);
      if (cluster.isPresent()) {
        // A seed node restarted while the others run joins them, found by their live leases.
        config = LeaseSeeds.withLiveHolders(config, ClusterArgs.SYSTEM_NAME);
      }
      config = withActionToken(config);
      // holiday-check's calendar gets the day the demo starts on, so its windows of today are EXCLUDED
      config = DemoTasks.withStartDayHoliday(config, LocalDate.now(Clock.system(DemoTasks.HOLIDAY_ZONE)));
      system = ActorSystem.create(Behaviors.empty(), ClusterArgs.SYSTEM_NAME, config);
    } catch (ConfigException | IllegalArgumentException e) {
      return configurationError(e);
    }
    try {
      return run(args, system, db, dataDir, tableInterval);
    } catch (RuntimeException e) {
      // Anything thrown while starting, once the actor system runs: its threads would keep the JVM
      // alive after main returned, so stop it before reporting.
      terminate(system);
      if (isConfigurationError(e)) {
        return configurationError(e);
      }
      LOG.error("the demo node failed to start: {}", e.toString(), e);
      return EXIT_FAILURE;
    }
  }

  private static boolean isConfigurationError(RuntimeException e) {
    return e instanceof InvalidSpecException || e instanceof ConfigException;
  }

  /** Prints a configuration error on stderr (the log may go elsewhere) and gives its status. */
  private static int configurationError(RuntimeException e) {
    LOG.error("configuration error: {}", e.getMessage());
    System.err.println("almanac-demo: configuration error: " + e.getMessage());
    System.err.flush();
    return EXIT_CONFIG;
  }

  private static void terminate(ActorSystem<Void> system) {
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("the actor system did not terminate within 30 s: {}", e.toString());
    }
  }

  private static int run(String[] args, ActorSystem<Void> system, String db, Path dataDir, Duration tableInterval) {
    ScheduledExecutorService printer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "demo-live-table");
      t.setDaemon(true);
      return t;
    });
    // Ctrl-C or SIGTERM: Pekko's JVM shutdown hook runs the coordinated shutdown (leave the
    // one-node cluster, stop the shards and the trigger, close the journal's pool).
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(), "almanac-demo-stop", () -> {
      printer.shutdownNow();
      LOG.info("stopping: coordinated shutdown; the journal in {} keeps every window's state", db);
      return CompletableFuture.completedFuture(Done.getInstance());
    });
    try {
      SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
      // In a cluster every member holds a lease of its own, so a restarted seed node finds it (LeaseSeeds).
      LeaseSeeds.announce(system);
    } catch (RuntimeException e) {
      if (isConfigurationError(e)) {
        throw e; // a bad almanac.persistence value: reported as a configuration error by the caller
      }
      LOG.error("cannot open the journal at {}: {}{}", db, e.getMessage(), databaseAlreadyOpen(e)
          ? " (is another demo node running on the same ./data? one JVM at a time can open it)" : "");
      terminate(system);
      return EXIT_FAILURE;
    }

    Clock clock = Clock.systemUTC();
    Instant startedAt = clock.instant();
    // Prometheus from the first meter on (GET /metrics uses this registry rather than adding one later)
    Almanac.Builder builder = Almanac.builder(system).clock(clock).alertSink(AlertSinks.logging())
        .meterRegistry(new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
            io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT));
    Map<String, AgentJob> jobs = DemoTasks.jobs(dataDir, clock, DemoTasks.Timing.DEMO);
    jobs.forEach(builder::job);
    // Conditions are code: registered before start, which registers the tasks of application.conf
    // (daily-report waits for settlement-file-arrived).
    DemoTasks.conditions(dataDir).forEach(builder::condition);
    Almanac almanac = builder.start();
    // The instance table (almanac_instance in the journal's database, R29): kept from the journal
    // by one projection per cluster; query it with SQL, e.g.
    //   SELECT task_id, window_key, status, updated_at FROM almanac_instance ORDER BY window_start DESC
    // A wrong almanac.instances setting is thrown here and reported as a configuration error.
    InstanceProjection.start(system, clock);
    // The HTTP API, dashboard, metrics and health probes (almanac.http: 127.0.0.1:8558 by default;
    // -Dalmanac.http.port=... for a second node on one machine), its window lists from the instance
    // table. A port in use is said, and the node runs on without them.
    // A wrong almanac.http setting is thrown here and reported as a configuration error (exit 2).
    // The token is logged only when the demo made it up (it exists for this run only); a token of
    // the operator's (ALMANAC_TOKEN, almanac.http.token) never goes to the log.
    String token = system.settings().config().getString("almanac.http.token");
    boolean generated = system.settings().config().hasPath(TOKEN_GENERATED)
        && system.settings().config().getBoolean(TOKEN_GENERATED);
    AlmanacHttp.start(system, almanac, new InstanceWindowSource(InstanceQueries.create(system))).thenAccept(binding -> {
      String url = "http://" + binding.localAddress().getHostString() + ":" + binding.localAddress().getPort();
      LOG.info("dashboard: {}/ ; command line: bin/almanac --url {} tasks (docs/cli.md)", url, url);
      if (generated) {
        LOG.info("actions (pause, run, backfill, retry, resolve, cancel) need this run's token: export ALMANAC_TOKEN={} "
            + "for bin/almanac, or paste it into the dashboard's Token field (set ALMANAC_TOKEN before starting to "
            + "choose one)", token);
      } else {
        LOG.info("actions (pause, run, backfill, retry, resolve, cancel) need an operate token: almanac.http.token "
            + "(ALMANAC_TOKEN) or one of almanac.http.tokens");
      }
    }).exceptionally(e -> {
      LOG.warn("no HTTP endpoints: {}{} (set -Dalmanac.http.port to a free port)", e.toString(),
          causedBy(e, java.net.BindException.class) ? " (its port is in use)" : "");
      return null;
    });

    List<TaskSpec> demo = new java.util.ArrayList<>(DemoTasks.secondLevelTasks());
    demo.addAll(DemoTasks.ecommerceTasks());
    demo.addAll(DemoTasks.longJobTasks());
    try {
      // retries until almanac.node.registration-timeout while a slow start finds no answer
      almanac.registerAll(demo).toCompletableFuture().join();
      almanac.ready().toCompletableFuture().join();
      LOG.info("registered {} demo tasks from Java: {}", demo.size(), demo.stream().map(TaskSpec::id).toList());
    } catch (Exception e) {
      LOG.error("registering the demo tasks failed: {}", e.getMessage());
      terminate(system);
      return EXIT_FAILURE;
    }

    if (List.of(args).contains("--digest-now")) {
      // An operator's "run now" (R31): today's digest window runs at once as a MANUAL run. The 08:00
      // fire of the same day then finds the window done and does not push a second digest.
      almanac.runNow(DemoTasks.DAILY_DIGEST).whenComplete((d, e) -> {
        if (e != null) {
          LOG.warn("--digest-now: {}", e.getMessage());
        } else {
          LOG.info("--digest-now: daily-digest window {}: {} ({})", d.window(), d.decision(), d.reason());
        }
      });
    }

    LiveTable table = new LiveTable(almanac, startedAt, Duration.ofSeconds(10), LiveTable.pools(system.settings().config()));
    CoordinatedShutdown shutdown = CoordinatedShutdown.get(system);
    try {
      printer.scheduleWithFixedDelay(() -> {
        if (shutdown.getShutdownReason().isPresent()) {
          return;
        }
        try {
          LOG.info(table.render(Duration.ofSeconds(5)));
        } catch (RuntimeException e) {
          LOG.warn("live table not available right now: {}", e.getMessage());
        }
      }, tableInterval.toMillis(), tableInterval.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stoppingAlready) {
      // Ctrl-C during the start: the shutdown task stopped the printer first.
    }
    system.getWhenTerminated().toCompletableFuture().join();
    return 0;
  }

  /**
   * The configuration: {@code -Dconfig.file} / {@code config.resource} / {@code config.url} if set,
   * else {@code ./application.conf}, else the application.conf packed in the jar; always over
   * every library's reference.conf, resolved.
   *
   * @return the configuration and a description of its source
   */
  static Loaded loadConfig() {
    return loadConfig(null, false);
  }

  /**
   * As {@link #loadConfig()}, as an embedded node or as a cluster member. A cluster member reads the
   * same file with {@code almanac-cluster.conf} and {@code almanac-postgres.conf} in place of {@code
   * almanac-embedded.conf} and {@code almanac-h2.conf} wherever the file (or a file it includes)
   * includes those, and with both under it in any case. So the layering is the one of any
   * application: every library's reference.conf, then the shipped includes, then the file's own
   * settings (a failover setting such as {@code almanac.lease.jdbc.safety-margin} in the file wins
   * over almanac-cluster.conf's), then the overlay (the {@code --cluster} options), then {@code -D}
   * system properties.
   *
   * @param overlay HOCON that wins over the file (the {@code --cluster} options), or null
   * @param cluster whether the node is a cluster member ({@code --cluster})
   * @return the configuration and a description of its source
   */
  static Loaded loadConfig(String overlay, boolean cluster) {
    ConfigParseOptions options = parseOptions(cluster);
    String named = System.getProperty("config.file");
    if (named != null) {
      return fromFile(new File(named), "-Dconfig.file=" + named, overlay, cluster);
    }
    for (String key : List.of("config.resource", "config.url")) {
      if (System.getProperty(key) != null) {
        return checked(new Loaded(load(ConfigFactory.defaultApplication(options), overlay, cluster),
            "-D" + key + "=" + System.getProperty(key)));
      }
    }
    File local = new File("application.conf");
    if (local.isFile()) {
      return fromFile(local, null, overlay, cluster);
    }
    return checked(new Loaded(load(ConfigFactory.defaultApplication(options), overlay, cluster),
        "the application.conf packed in the jar (no ./application.conf here)"));
  }

  /**
   * As {@link #loadConfig(String, boolean)} with {@code -Dconfig.file=file}: the file (its includes
   * resolved against its folder, then the class path), the overlay over it, every library's
   * reference.conf under it, resolved and checked.
   *
   * @param file the configuration file
   * @param overlay HOCON that wins over the file, or null
   * @param cluster whether the node is a cluster member ({@code --cluster})
   * @return the configuration and a description of its source
   */
  static Loaded loadConfigFile(File file, String overlay, boolean cluster) {
    return fromFile(file, "-Dconfig.file=" + file, overlay, cluster);
  }

  /** What a cluster member includes in place of an embedded node's includes. */
  static final Map<String, String> CLUSTER_INCLUDES = Map.of(
      "almanac-embedded.conf", "almanac-cluster.conf",
      "almanac-h2.conf", "almanac-postgres.conf");

  private static ConfigParseOptions parseOptions(boolean cluster) {
    return cluster ? ConfigParseOptions.defaults().setIncluder(new ClusterIncludes(null)) : ConfigParseOptions.defaults();
  }

  /**
   * Includes {@link #CLUSTER_INCLUDES} in place of the embedded node's files, by name ({@code include
   * "almanac-h2.conf"} or {@code include classpath("almanac-h2.conf")}); every other include as
   * usual. The includer is inherited by nested includes, so a file that includes application.conf,
   * which includes almanac-embedded.conf, gets almanac-cluster.conf there.
   */
  private record ClusterIncludes(ConfigIncluder fallback) implements ConfigIncluder, ConfigIncluderClasspath {
    @Override
    public ConfigIncluder withFallback(ConfigIncluder next) {
      return fallback == null ? new ClusterIncludes(next) : this;
    }

    @Override
    public ConfigObject include(ConfigIncludeContext context, String what) {
      return fallback.include(context, CLUSTER_INCLUDES.getOrDefault(what, what));
    }

    @Override
    public ConfigObject includeResources(ConfigIncludeContext context, String what) {
      return ((ConfigIncluderClasspath) fallback).includeResources(context, CLUSTER_INCLUDES.getOrDefault(what, what));
    }
  }

  private static Config load(Config application, String overlay, boolean cluster) {
    Config layered = application;
    if (cluster) {
      // under the file: a file that never included almanac-embedded.conf still gets the cluster wiring
      layered = layered.withFallback(ConfigFactory.parseString(
          "include \"almanac-postgres.conf\"\ninclude \"almanac-cluster.conf\"\n"));
    }
    return ConfigFactory.load(overlay == null ? layered : ConfigFactory.parseString(overlay).withFallback(layered));
  }

  /**
   * Parses a file by its absolute path: Typesafe Config resolves {@code include "x.conf"} against
   * the including file's folder and then the classpath, but a relative path without a folder (as
   * {@code application.conf}) has no folder, and its includes are then silently dropped.
   */
  private static Loaded fromFile(File file, String how, String overlay, boolean cluster) {
    File absolute = file.getAbsoluteFile();
    if (!absolute.isFile()) {
      throw new IllegalArgumentException("configuration file " + absolute + " does not exist");
    }
    String where = absolute.toPath().normalize().toString();
    return checked(new Loaded(load(ConfigFactory.parseFile(absolute, parseOptions(cluster)), overlay, cluster),
        how == null ? where : how + " (" + where + ")"));
  }

  /** Fails early, and clearly, if the includes the demo relies on are missing. */
  private static Loaded checked(Loaded loaded) {
    Config c = loaded.config();
    if (!"cluster".equals(c.getString("pekko.actor.provider"))
        || !c.hasPath("pekko-persistence-jdbc.shared-databases.slick.db.url")
        || !c.hasPath("almanac-demo.data-dir")) {
      throw new IllegalArgumentException("configuration from " + loaded.source() + " lacks include \"almanac-embedded.conf\", "
          + "include \"almanac-h2.conf\" or the almanac-demo block: start from the repository's application.conf");
    }
    return loaded;
  }

  private static void clusterBanner(String source, ClusterArgs cluster, String db, Path dataDir) {
    LOG.info("""

        ==========================================================================================
         Almanac demo node: one member of a multi-node cluster (almanac-cluster.conf)
        ------------------------------------------------------------------------------------------
         configuration : {}
                         read with almanac-cluster.conf and almanac-postgres.conf in place of
                         almanac-embedded.conf and almanac-h2.conf; the --cluster options over it
         this node     : pekko://{}@{}:{}
         seed nodes    : {}
         journal       : {} (PostgreSQL, shared by every node; schema {})
         data folder   : {} (this node's outbox and digests)
         failover      : kill a node: within about 15 s the others down it and take over its
                         tasks and, if it ran there, the trigger (leases in the journal's database)
         stop          : Ctrl-C (leaves the cluster, hands its tasks over)
        ==========================================================================================""",
        source, ClusterArgs.SYSTEM_NAME, cluster.host(), cluster.port(), cluster.seedAddresses(), db,
        cluster.pgSchema().orElse("(the user's search_path)"), dataDir.toAbsolutePath().normalize());
  }

  private static void banner(String source, Path db, Path dataDir, boolean fresh) {
    Path data = dataDir.toAbsolutePath().normalize();
    LOG.info("""

        ==========================================================================================
         Almanac demo node: a durable scheduler for agent jobs (embedded one-node Pekko cluster)
        ------------------------------------------------------------------------------------------
         configuration : {}
         journal (H2)  : {} ({})
         outbox        : {} (one line per pushed message)
         digests       : {}
         tasks         : daily-digest   08:00 Asia/Shanghai = 00:00 UTC (application.conf)
                         heartbeat-ok   every 10 s   -> succeeds
                         slow-report    every 5 s    -> 12 s job: next windows SKIPPED (PREVIOUS_RUNNING)
                         flaky-sync     every 20 s   -> attempt 1 fails, retry 2 s later succeeds
                         always-broken  every 30 s   -> fails twice: FINAL_FAILED, alert, intervention queue
                         order-export   00:30 Asia/Shanghai (application.conf)
                         daily-report   after order-export of the day + settlement file (application.conf)
                         order-export-1m  every minute = a "day": odd minutes fail (FINAL_FAILED)
                         daily-report-1m  WAITING for both; runs in even minutes, SKIPPED
                                          DEPENDENCY_NOT_MET 20 s into odd ones
                         model-call     every 5 s    -> pool llm (2 at once, 4 per 10 s); every 4th
                                                        call THROTTLED: the pool pauses 8 s
                         token-spender  every 10 s   -> pool llm, 0.01 a run, budget 0.03 a day:
                                                        then SKIPPED (BUDGET_EXHAUSTED), alert
                         late-report    every 30 s   -> 8 s job, 4 s deadline: DEADLINE_MISSED, alert
                         holiday-check  every 15 s   -> today is in demo-holidays: SKIPPED (EXCLUDED)
         look at       : the live table every few seconds (status, attempt, next fire local + UTC,
                         pool waits, budget, late windows), ALERT lines, and after a restart the
                         report of windows missed while down
         stop          : Ctrl-C (coordinated shutdown), or kill it; start again: no window runs twice
         start afresh  : stop it and delete {}
        ==========================================================================================""",
        source, db, fresh ? "new: first start" : "existing: state recovered from the journal",
        data.resolve(Outbox.FILE_NAME), data.resolve("digests"), data);
  }

  /** H2's error code for a database file another process holds open (org.h2.api.ErrorCode.DATABASE_ALREADY_OPEN_1). */
  private static final int H2_DATABASE_ALREADY_OPEN = 90020;

  /** Whether opening the journal failed because another JVM holds the H2 file: told by the SQL error code, not the text. */
  static boolean databaseAlreadyOpen(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.sql.SQLException sql && sql.getErrorCode() == H2_DATABASE_ALREADY_OPEN) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code type} is in the cause chain of {@code e} (e.g. a {@link java.net.BindException}: a port in use). */
  static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
