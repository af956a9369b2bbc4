package io.almanac.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.Almanac;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.persistence.SchemaBootstrap;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Marker;

/**
 * The cluster workloads (PostgreSQL only): Almanac nodes as child JVMs, each a member of one
 * cluster ({@code include "almanac-cluster.conf"} with {@code almanac-postgres.conf}, as a user sets
 * one up) on one schema.
 *
 * <ul>
 *   <li>{@code cluster-steady}: M tasks every second on 3 nodes, and the same on 1 node (the same
 *       configuration with itself as the only seed node): lag, missed and doubled fires, journal
 *       rows per fire;
 *   <li>{@code cluster-failover}: 3 nodes, M tasks every second, kill -9 of the node hosting the
 *       trigger; the failover time is the longest gap between consecutive fires (InstanceScheduled
 *       events other than retries, by their "at") from 5 s before the kill on, as
 *       io.almanac.persistence.crash.ClusterFailoverTest defines it; repeated on a fresh cluster and
 *       schema per run.
 * </ul>
 *
 * A node prints to stdout, for the harness: {@code S <task> <due ms> <start µs>} per job start,
 * {@code T <epoch ms>} when the trigger singleton starts on it (its "trigger started" log line),
 * {@code READY <epoch ms>}; it stops on {@code STOP} on stdin (or its end).
 */
final class Cluster {
  private Cluster() {}

  static final String SYSTEM_NAME = "almanac";

  // ---------------------------------------------------------------------------------------------
  // The node

  /** java -cp ... io.almanac.bench.Cluster schema tasks port seeds(host:port,...) register(true|false) */
  public static void main(String[] args) throws Exception {
    Db db = Db.of(args[0]);
    int m = Integer.parseInt(args[1]);
    int port = Integer.parseInt(args[2]);
    String seeds = args[3];
    boolean register = Boolean.parseBoolean(args[4]);
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    watchTriggerStarts(out);
    Recorder rec = new Recorder();
    rec.onStart(s -> {
      synchronized (out) {
        out.println("S " + s.task() + " " + s.ownDueMs() + " " + s.startMicros());
        out.flush();
      }
    });
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), SYSTEM_NAME, config(db, port, seeds));
    java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
    system.getWhenTerminated().thenRun(() -> {
      if (!stopping.get()) {
        // downed by the split brain resolver (exit-jvm is off): say so and end the JVM, so that the
        // harness does not take a node without an ActorSystem for a live one
        synchronized (out) {
          out.println("TERMINATED " + System.currentTimeMillis());
          out.flush();
        }
        Runtime.getRuntime().halt(4);
      }
    });
    SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
    Almanac almanac = Almanac.builder(system)
        .job("bench", ctx -> {
          rec.record(ctx.taskId(), ctx.windowStart().toEpochMilli());
          return CompletableFuture.completedFuture(JobResult.success(""));
        })
        .start();
    if (register) {
      List<TaskSpec> specs = new ArrayList<>();
      for (int i = 0; i < m; i++) {
        specs.add(TaskSpec.builder(Plan.id("s", i)).cron("* * * * * ? UTC").window(WindowSpec.PER_FIRING).job("bench").build());
      }
      for (int i = 0; i < specs.size(); i += 1000) {
        almanac.registerAll(specs.subList(i, Math.min(specs.size(), i + 1000))).toCompletableFuture().get(300, TimeUnit.SECONDS);
      }
    }
    almanac.ready().toCompletableFuture().get(300, TimeUnit.SECONDS);
    synchronized (out) {
      out.println("READY " + System.currentTimeMillis());
      out.flush();
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.trim().equals("STOP")) {
        break;
      }
    }
    stopping.set(true);
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    System.exit(0);
  }

  static Config config(Db db, int port, String seeds) {
    StringBuilder s = new StringBuilder();
    for (String seed : seeds.split(",")) {
      s.append(s.length() == 0 ? "" : ", ").append(ConfigUtil.quoteString("pekko://" + SYSTEM_NAME + "@" + seed.trim()));
    }
    return ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-cluster.conf\"",
        "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"",
        "pekko.remote.artery.canonical.port = " + port,
        "pekko.cluster.seed-nodes = [" + s + "]",
        "pekko.cluster.log-info-verbose = off",
        AlmanacSut.storeConfig(db),
        "almanac.executor.max-concurrent = " + Db.WORKERS,
        "pekko.loglevel = WARNING",
        "pekko.log-dead-letters = off",
        // the harness stops a node with STOP on stdin; a downed node must not call System.exit
        // under the harness's feet (it would look like a crash)
        "pekko.coordinated-shutdown.exit-jvm = off",
        System.getProperty("almanac.bench.overrides", ""))));
  }

  /**
   * Prints {@code T <ms>} when the trigger logs "trigger started" (INFO; the bench logs at WARN): a
   * logback turbo filter sees every logging call before the level check, and lets only this line
   * through.
   */
  private static void watchTriggerStarts(PrintStream out) {
    if (!(org.slf4j.LoggerFactory.getILoggerFactory() instanceof LoggerContext lc)) {
      return;
    }
    lc.addTurboFilter(new TurboFilter() {
      @Override
      public FilterReply decide(Marker marker, ch.qos.logback.classic.Logger logger, Level level, String format, Object[] params,
          Throwable t) {
        if (format != null && format.startsWith("trigger started:")) {
          synchronized (out) {
            out.println("T " + System.currentTimeMillis());
            out.flush();
          }
          return FilterReply.ACCEPT;
        }
        return FilterReply.NEUTRAL;
      }
    });
  }

  // ---------------------------------------------------------------------------------------------
  // The harness's view of a node

  static final class Node {
    final String name;
    final int port;
    final Process process;
    final List<Recorder.Start> starts = new CopyOnWriteArrayList<>();
    final List<Long> triggerStarts = new CopyOnWriteArrayList<>();
    final AtomicLong ready = new AtomicLong(-1);
    /** When its ActorSystem terminated other than by STOP (downed), or -1. */
    final AtomicLong terminated = new AtomicLong(-1);
    final AtomicLong lastStartMs = new AtomicLong(-1);
    final Map<String, Long> latestDue = new ConcurrentHashMap<>();

    Node(String name, int port, Process process) {
      this.name = name;
      this.port = port;
      this.process = process;
    }

    void stop() {
      if (!process.isAlive()) {
        return;
      }
      try {
        PrintWriter w = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        w.println("STOP");
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(30, TimeUnit.SECONDS);
        }
      } catch (Exception e) {
        process.destroyForcibly();
      }
    }
  }

  static Node spawn(String name, Db db, int m, int port, String seeds, boolean register) throws Exception {
    List<String> cmd = new ArrayList<>(Bench.javaCommand("1g"));
    cmd.addAll(List.of(Cluster.class.getName(), db.location(), String.valueOf(m), String.valueOf(port), seeds,
        String.valueOf(register)));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    Node n = new Node(name, port, p);
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.startsWith("S ")) {
            String[] f = line.split(" ");
            Recorder.Start s = new Recorder.Start(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]));
            n.starts.add(s);
            n.lastStartMs.set(s.startMicros() / 1000);
            n.latestDue.merge(s.task(), s.ownDueMs(), Math::max);
          } else if (line.startsWith("T ")) {
            n.triggerStarts.add(Long.parseLong(line.substring(2).trim()));
          } else if (line.startsWith("TERMINATED ")) {
            n.terminated.set(Long.parseLong(line.substring(11).trim()));
          } else if (line.startsWith("READY ")) {
            n.ready.set(Long.parseLong(line.substring(6).trim()));
          }
        }
      } catch (Exception e) {
        // the node was killed
      }
    }, "cluster-node-reader-" + name);
    t.setDaemon(true);
    t.start();
    return n;
  }

  /** Starts {@code size} nodes at once (node 1 registers the tasks) and waits until each is READY. */
  static List<Node> startCluster(Db db, int m, int size, List<Node> all) throws Exception {
    int[] ports = freePorts(size);
    StringBuilder seeds = new StringBuilder();
    for (int p : ports) {
      seeds.append(seeds.length() == 0 ? "" : ",").append("127.0.0.1:").append(p);
    }
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      Node n = spawn("node" + (i + 1), db, m, ports[i], seeds.toString(), i == 0);
      nodes.add(n);
      all.add(n);
    }
    long deadline = System.currentTimeMillis() + 300_000;
    for (Node n : nodes) {
      while (n.ready.get() < 0) {
        if (!n.process.isAlive() || System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(n.name + " did not start (" + (n.process.isAlive() ? "timeout" : "exited") + ")");
        }
        Thread.sleep(50);
      }
    }
    return nodes;
  }

  private static int[] freePorts(int n) throws Exception {
    int[] ports = new int[n];
    List<ServerSocket> open = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0);
        open.add(s);
        ports[i] = s.getLocalPort();
      }
    } finally {
      for (ServerSocket s : open) {
        s.close();
      }
    }
    return ports;
  }

  private static void stopAll(List<Node> nodes) {
    for (Node n : nodes) {
      n.stop();
    }
  }

  static Map<String, Object> settings(int size) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("nodes", size + " child JVMs (-Xmx1g each) on this machine, 127.0.0.1, one PostgreSQL schema");
    m.put("config", "almanac-cluster.conf + almanac-postgres.conf as shipped (lease-majority SBR, trigger singleton and"
        + " 100 task shards under the JDBC lease); seed nodes: every node" + (size == 1 ? " (itself)" : ""));
    m.put("executor.max-concurrent", Db.WORKERS);
    m.put("postgres.pool-size", Db.POOL + " per node");
    m.put("registration", "node 1 registers every task; the others only start");
    String overrides = System.getProperty("almanac.bench.overrides", "");
    if (!overrides.isBlank()) {
      m.put("PROFILING_OVERRIDES", overrides);
    }
    return m;
  }

  // ---------------------------------------------------------------------------------------------
  // cluster-steady

  static Map<String, Object> steady(String system, int size, int m, int seconds, Path dir) throws Exception {
    Map<String, Object> out = Workloads.head(system, "cluster-steady-" + m, null);
    out.put("durable", true);
    out.put("settings", settings(size));
    if (!Db.postgres()) {
      out.put("error", "cluster workloads need --db postgres (an H2 file is opened by one JVM only)");
      return out;
    }
    Db db = Db.at(dir, "csteady" + size);
    db.createEmpty();
    List<Node> all = new ArrayList<>();
    try (Connection probe = db.connect()) {
      long r0 = System.currentTimeMillis();
      List<Node> nodes = startCluster(db, m, size, all);
      long ready = nodes.stream().mapToLong(n -> n.ready.get()).max().orElseThrow();
      out.put("nodes", size);
      out.put("cluster_ready_ms", ready - r0);
      // 5 s warm-up after the last node is ready (the first fires of a task start its entity and
      // allocate its shard); on more than one node, then until the shards have spread (below);
      // then whole seconds [from, to), then 5 s grace for late fires
      Thread.sleep(5000);
      if (size > 1) {
        out.put("settle", settle(nodes, size));
      }
      Instant from = Workloads.wholeSecondAfter(1000);
      Instant to = from.plusSeconds(seconds);
      Bench.progress("  %s: %d node(s) ready in %d ms, %d tasks every second; measuring seconds [%s, %s)", system, size,
          ready - r0, m, from, to);
      while (System.currentTimeMillis() < from.toEpochMilli()) {
        Thread.sleep(10);
      }
      long rowsBefore = Db.count(probe, "SELECT COUNT(*) FROM \"event_journal\"");
      Thread.sleep(Math.max(0, to.toEpochMilli() - System.currentTimeMillis()));
      long rowsAtEnd = Db.count(probe, "SELECT COUNT(*) FROM \"event_journal\"");
      Thread.sleep(5000);
      long rowsAfter = Db.count(probe, "SELECT COUNT(*) FROM \"event_journal\"");
      List<Recorder.Start> starts = new ArrayList<>();
      Map<String, Object> perNode = new LinkedHashMap<>();
      for (Node n : nodes) {
        starts.addAll(n.starts);
        long inWindow = n.starts.stream().filter(s -> s.secondMs() >= from.toEpochMilli() && s.secondMs() < to.toEpochMilli()).count();
        perNode.put(n.name, inWindow);
      }
      out.putAll(Workloads.analyseSeconds(starts, from, to, m, true));
      out.put("fires_per_node", perNode);
      out.put("nodes_downed", nodes.stream().filter(n -> n.terminated.get() > 0).map(n -> n.name).toList());
      out.put("trigger_host", nodes.stream().filter(n -> !n.triggerStarts.isEmpty()).map(n -> n.name).toList());
      long fired = ((Number) out.get("fired")).longValue();
      // rows written during the measured seconds [from, to) per fire due in them (steady state:
      // rows/s over fires/s); the steady workload's formula (rows until 5 s after 'to', i.e. 5 s
      // more of fires, over the same fires) is given as well, to compare with its figures
      out.put("journal_rows_per_fire", (rowsAtEnd - rowsBefore) / (double) Math.max(1, fired));
      out.put("journal_rows_per_fire_as_steady", (rowsAfter - rowsBefore) / (double) Math.max(1, fired));
      out.put("journal_rows", Map.of("at_from", rowsBefore, "at_to", rowsAtEnd, "at_to_plus_5s", rowsAfter));
      // what the journal holds at the end, by event type (the missed fires' records: skipped or missed, and why)
      out.put("events_by_type", eventsByType(probe));
      // where the time of a fire went, from the journal (as the steady workload's profile); the
      // nodes' clocks are one machine's clock
      out.put("profile", AlmanacSut.profile(probe, starts.stream()
          .filter(x -> x.secondMs() >= from.toEpochMilli() && x.secondMs() < to.toEpochMilli()).toList(), "s"));
      out.put("measured_seconds", seconds);
      out.put("first_measured_second", from.toString());
      return out;
    } finally {
      stopAll(all);
      db.drop();
    }
  }

  /**
   * Waits until the task shards have spread over the nodes: shards are allocated as their first
   * task is reached, mostly on the first node up, and the least-shard allocation strategy moves
   * up to 20 a round every 10 s (almanac-cluster.conf). Measured as the cluster's user would see
   * it: every 5 s, the share of the last 5 s of job starts on the busiest node; settled when it is
   * at most 1.5 times an even share twice in a row, or after 120 s (reported as not settled).
   */
  private static Map<String, Object> settle(List<Node> nodes, int size) throws InterruptedException {
    long t0 = System.currentTimeMillis();
    long deadline = t0 + 120_000;
    int[] seen = new int[nodes.size()];
    for (int i = 0; i < nodes.size(); i++) {
      seen[i] = nodes.get(i).starts.size();
    }
    int evenInARow = 0;
    List<String> rounds = new ArrayList<>();
    while (System.currentTimeMillis() < deadline) {
      Thread.sleep(5000);
      long[] last = new long[nodes.size()];
      long total = 0;
      for (int i = 0; i < nodes.size(); i++) {
        int now = nodes.get(i).starts.size();
        last[i] = now - seen[i];
        seen[i] = now;
        total += last[i];
      }
      long max = java.util.Arrays.stream(last).max().orElse(0);
      double busiestShare = total == 0 ? 1.0 : max / (double) total;
      String round = java.util.Arrays.toString(last);
      rounds.add(round);
      Bench.progress("  settling: job starts per node in the last 5 s %s (busiest %.0f%%)", round, 100 * busiestShare);
      evenInARow = total > 0 && busiestShare <= 1.5 / size ? evenInARow + 1 : 0;
      if (evenInARow >= 2) {
        break;
      }
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("settled", evenInARow >= 2);
    m.put("settle_ms", System.currentTimeMillis() - t0);
    m.put("starts_per_node_each_5s", rounds);
    m.put("rule", "busiest node's share of the last 5 s of job starts <= 1.5 / nodes, twice in a row (deadline 120 s)");
    return m;
  }

  private static Map<String, Object> eventsByType(Connection c) throws java.sql.SQLException {
    Map<String, Object> byType = new java.util.TreeMap<>();
    try (var s = c.createStatement();
        var rs = s.executeQuery("SELECT \"event_ser_manifest\", COUNT(*) FROM \"event_journal\" GROUP BY \"event_ser_manifest\"")) {
      while (rs.next()) {
        String t = rs.getString(1);
        byType.put(t.substring(t.lastIndexOf('$') + 1), rs.getLong(2));
      }
    }
    return byType;
  }

  // ---------------------------------------------------------------------------------------------
  // cluster-failover

  private static final Pattern WINDOW = Pattern.compile("\"window\":\"([^\"]+)\"");
  private static final Pattern AT = Pattern.compile("\"at\":\"([^\"]+)\"");
  private static final Pattern KIND = Pattern.compile("\"kind\":\"([^\"]+)\"");

  static Map<String, Object> failover(String system, int m, int runs, Path dir) throws Exception {
    Map<String, Object> out = Workloads.head(system, "cluster-failover-" + m, null);
    out.put("durable", true);
    out.put("settings", settings(3));
    if (!Db.postgres()) {
      out.put("error", "cluster workloads need --db postgres (an H2 file is opened by one JVM only)");
      return out;
    }
    List<Map<String, Object>> each = new ArrayList<>();
    List<Double> failovers = new ArrayList<>();
    List<Double> triggerBack = new ArrayList<>();
    long doubled = 0;
    long scheduledTwice = 0;
    int failed = 0;
    for (int run = 1; run <= runs; run++) {
      Map<String, Object> r;
      try {
        r = failoverOnce(m, run, dir);
      } catch (Exception e) {
        Bench.progress("  failover run %d failed: %s", run, e);
        r = new LinkedHashMap<>();
        r.put("run", run);
        r.put("error", e.toString());
      }
      each.add(r);
      if (r.containsKey("failover_ms")) {
        failovers.add(((Number) r.get("failover_ms")).doubleValue());
        triggerBack.add(((Number) r.get("kill_to_trigger_started_ms")).doubleValue());
        doubled += ((Number) r.get("doubled_fires")).longValue();
        scheduledTwice += ((Number) r.get("windows_scheduled_twice")).longValue();
      } else {
        failed++;
      }
    }
    out.put("tasks", m);
    out.put("runs", runs);
    out.put("runs_measured", failovers.size());
    out.put("runs_failed", failed);
    out.put("failover_ms", summary(failovers));
    out.put("kill_to_trigger_started_ms", summary(triggerBack));
    out.put("doubled_fires", doubled);
    out.put("windows_scheduled_twice", scheduledTwice);
    out.put("failover_definition", "longest gap between consecutive fires (InstanceScheduled other than retries, by their"
        + " 'at') from 5 s before the kill to 120 s after it, as ClusterFailoverTest");
    out.put("each", each);
    return out;
  }

  /** Fails the run when a node's ActorSystem ended (downed by the split brain resolver, e.g. on an overloaded machine). */
  private static void checkAllUp(List<Node> nodes, String when) {
    for (Node n : nodes) {
      if (n.terminated.get() > 0 || !n.process.isAlive()) {
        throw new IllegalStateException(n.name + " was downed or exited " + when
            + (n.terminated.get() > 0 ? " (ActorSystem terminated at " + Instant.ofEpochMilli(n.terminated.get()) + ")" : "")
            + ": the cluster did not hold together, not a failover to measure (an overloaded machine?)");
      }
    }
  }

  private static Map<String, Object> summary(List<Double> v) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (v.isEmpty()) {
      return m;
    }
    List<Double> s = new ArrayList<>(v);
    s.sort(null);
    int k = s.size();
    m.put("median", k % 2 == 1 ? s.get(k / 2) : (s.get(k / 2 - 1) + s.get(k / 2)) / 2);
    m.put("min", s.get(0));
    m.put("max", s.get(k - 1));
    m.put("values", v);
    return m;
  }

  private static Map<String, Object> failoverOnce(int m, int run, Path dir) throws Exception {
    Db db = Db.at(dir, "cfailover" + run);
    db.createEmpty();
    List<Node> all = new ArrayList<>();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("run", run);
    long killAt;
    Node host;
    try {
      long r0 = System.currentTimeMillis();
      List<Node> nodes = startCluster(db, m, 3, all);
      long ready = nodes.stream().mapToLong(n -> n.ready.get()).max().orElseThrow();
      r.put("cluster_ready_ms", ready - r0);
      // Settle, as ClusterFailoverTest does: every task has started a job for a window due at
      // least 2 s after the last READY (its entity has taken the fires of the windows due while
      // the tasks were being registered), and the trigger's host is known.
      long settleAfter = ready + 2000;
      long deadline = System.currentTimeMillis() + 120_000;
      while (true) {
        int settled = 0;
        for (int i = 0; i < m; i++) {
          String id = Plan.id("s", i);
          long latest = nodes.stream().mapToLong(n -> n.latestDue.getOrDefault(id, -1L)).max().orElse(-1);
          if (latest > settleAfter) {
            settled++;
          }
        }
        boolean hostKnown = nodes.stream().anyMatch(n -> !n.triggerStarts.isEmpty());
        checkAllUp(nodes, "while the tasks settled");
        if (settled == m && hostKnown) {
          break;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("not settled within 120 s: " + settled + " of " + m + " tasks fired after READY + 2 s;"
              + " trigger host known: " + hostKnown);
        }
        Thread.sleep(100);
      }
      checkAllUp(nodes, "before the kill");
      host = nodes.stream().filter(n -> !n.triggerStarts.isEmpty())
          .max((a, b) -> Long.compare(a.triggerStarts.get(a.triggerStarts.size() - 1), b.triggerStarts.get(b.triggerStarts.size() - 1)))
          .orElseThrow();
      // kill right after one of the host's jobs started (it is firing), as the test does
      int before = host.starts.size();
      long waitUntil = System.currentTimeMillis() + 30_000;
      while (host.starts.size() == before && System.currentTimeMillis() < waitUntil) {
        Thread.sleep(1);
      }
      host.process.destroyForcibly(); // SIGKILL
      killAt = System.currentTimeMillis();
      host.process.waitFor(30, TimeUnit.SECONDS);
      Bench.progress("  failover run %d: kill -9 of %s (port %d), the trigger's host, at %s", run, host.name, host.port,
          Instant.ofEpochMilli(killAt));
      r.put("killed", host.name);
      r.put("killed_at", Instant.ofEpochMilli(killAt).toString());
      // wait for the trigger on a survivor, then for jobs on every survivor after it
      List<Node> survivors = new ArrayList<>(nodes);
      survivors.remove(host);
      long resumeDeadline = killAt + 90_000;
      long back = -1;
      Node newHost = null;
      while (back < 0) {
        for (Node n : survivors) {
          if (!n.triggerStarts.isEmpty() && n.triggerStarts.get(n.triggerStarts.size() - 1) > killAt) {
            back = n.triggerStarts.get(n.triggerStarts.size() - 1);
            newHost = n;
          }
        }
        if (back < 0) {
          checkAllUp(survivors, "after the kill, before the trigger started again");
          if (System.currentTimeMillis() > resumeDeadline) {
            throw new IllegalStateException("no survivor started the trigger within 90 s of the kill");
          }
          Thread.sleep(100);
        }
      }
      final long trigBack = back;
      while (!survivors.stream().allMatch(n -> n.lastStartMs.get() > trigBack) && System.currentTimeMillis() < resumeDeadline) {
        Thread.sleep(100);
      }
      r.put("new_trigger_host", newHost.name);
      r.put("kill_to_trigger_started_ms", back - killAt);
      Thread.sleep(5000); // the survivors run on a little: the windows due during the gap are recorded
      stopAll(survivors);
      // doubled fires: a (task, due second) started twice, over all nodes
      Map<String, Integer> keys = new HashMap<>();
      for (Node n : nodes) {
        for (Recorder.Start s : n.starts) {
          keys.merge(s.task() + "@" + s.ownDueMs(), 1, Integer::sum);
        }
      }
      r.put("doubled_fires", keys.values().stream().mapToLong(c -> c - 1).sum());
      // the journal: every InstanceScheduled (or WindowStarted) but a retry's, by its "at"
      List<Long> fires = new ArrayList<>();
      Map<String, Integer> scheduled = new HashMap<>();
      try (Connection c = db.connect(); var s = c.createStatement(); var rs = s.executeQuery(
          "SELECT \"persistence_id\", \"event_payload\" FROM \"event_journal\" WHERE \"event_ser_manifest\" LIKE '%InstanceScheduled'"
              + " OR \"event_ser_manifest\" LIKE '%WindowStarted'")) { // a fresh window scheduled and started in one row
        while (rs.next()) {
          String json = new String(rs.getBytes(2), StandardCharsets.UTF_8);
          Matcher k = KIND.matcher(json);
          if (k.find() && k.group(1).equals("RETRY")) {
            continue;
          }
          Matcher a = AT.matcher(json);
          Matcher w = WINDOW.matcher(json);
          if (!a.find() || !w.find()) {
            continue;
          }
          fires.add(Instant.parse(a.group(1)).toEpochMilli());
          scheduled.merge(rs.getString(1) + " " + w.group(1), 1, Integer::sum);
        }
      }
      fires.sort(null);
      long bestFrom = -1;
      long bestTo = -1;
      for (int i = 1; i < fires.size(); i++) {
        long a = fires.get(i - 1);
        long b = fires.get(i);
        if (b < killAt - 5000 || a > killAt + 120_000) {
          continue;
        }
        if (bestFrom < 0 || b - a > bestTo - bestFrom) {
          bestFrom = a;
          bestTo = b;
        }
      }
      if (bestFrom < 0) {
        throw new IllegalStateException("no fires around the kill in the journal");
      }
      r.put("failover_ms", bestTo - bestFrom);
      r.put("last_fire_before", Instant.ofEpochMilli(bestFrom).toString());
      r.put("first_fire_after", Instant.ofEpochMilli(bestTo).toString());
      r.put("kill_to_first_fire_ms", bestTo - killAt);
      r.put("windows_scheduled_twice", scheduled.values().stream().filter(c -> c > 1).count());
      r.put("journal_fires", fires.size());
      Bench.progress("  failover run %d: failover %.1f s (kill to trigger started on %s %.1f s, kill to first fire %.1f s)", run,
          (bestTo - bestFrom) / 1000.0, newHost.name, (back - killAt) / 1000.0, (bestTo - killAt) / 1000.0);
      return r;
    } finally {
      for (Node n : all) {
        if (n.process.isAlive()) {
          n.process.destroyForcibly();
          n.process.waitFor(30, TimeUnit.SECONDS);
        }
      }
      db.drop();
    }
  }
}
