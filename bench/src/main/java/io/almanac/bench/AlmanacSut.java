package io.almanac.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.WindowView;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.persistence.SchemaBootstrap;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Almanac as a user embeds it, following the README's usage: almanac-embedded.conf +
 * almanac-h2.conf (or almanac-postgres.conf with the run's schema), every runtime and persistence
 * default kept (h2.pool-size 4, postgres.pool-size 10) except the job slots: executor.max-concurrent
 * 8, the peers' worker threads (the outside testers' setting, "8 workers each"), and
 * {@code almanac.ready()} awaited before tasks are registered.
 */
final class AlmanacSut implements Sut {
  private static final String SLICK_DB = "pekko-persistence-jdbc.shared-databases.slick.db";

  private ActorSystem<Void> system;
  private Almanac almanac;
  private String url;
  private Connection probeConn;
  /** The pool workload's variant: its name, extra node HOCON, and the pools its tasks name. */
  private final String name;
  private final String extraHocon;
  private final List<String> pools;

  AlmanacSut() {
    this("almanac", "", List.of());
  }

  /**
   * A variant of the pool workload ({@link PoolBench}).
   *
   * @param name the system's name in the results
   * @param extraHocon node configuration added (pools, the pool store)
   * @param pools the pools every task names (empty: none)
   */
  AlmanacSut(String name, String extraHocon, List<String> pools) {
    this.name = name;
    this.extraHocon = extraHocon;
    this.pools = List.copyOf(pools);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public Map<String, Object> settings() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (Db.postgres()) {
      m.put("store", "pekko-persistence-jdbc journal on PostgreSQL (almanac-postgres.conf: reWriteBatchedInserts=true,"
          + " journal parallelism 1, bufferSize 20000), tables created by SchemaBootstrap in the run's schema");
    } else {
      m.put("store", "pekko-persistence-jdbc journal on the H2 file (almanac-h2.conf, WRITE_DELAY=0, async:)");
    }
    // the documented defaults, as a user who follows the README runs, but for the job slots: as many
    // as the peers' worker threads (until 2026-12-05 the bench also set pool-size 10, the peers' connections)
    m.put("executor.max-concurrent", Db.WORKERS);
    m.put(Db.postgres() ? "postgres.pool-size" : "h2.pool-size", Db.postgres() ? "default (10)" : "default (4)");
    m.put("start", "waits for almanac.ready() after start and after registering, as the README's usage says");
    m.put("journal_dao", "pekko-persistence-jdbc's DefaultJournalDao, its batched writes counted (CountingJournalDao)");
    m.put("trigger", "defaults (max-tick-interval 1s, max-in-flight 2000, persist-interval 1s)");
    m.put("task", "defaults (snapshot-every 100, overlap SKIP, retry none, catch-up none, recent-fire-grace 60s)");
    String overrides = System.getProperty("almanac.bench.overrides", "");
    if (!overrides.isBlank()) {
      m.put("PROFILING_OVERRIDES", overrides);
    }
    if (!extraHocon.isBlank()) {
      m.put("node_config_added", extraHocon.replace('\n', ';'));
    }
    m.put("task_pools", pools);
    return m;
  }

  static String storeConfig(Db db) {
    if (Db.postgres()) {
      return String.join("\n",
          "include \"almanac-postgres.conf\"",
          "almanac.persistence.postgres.url = " + ConfigUtil.quoteString(db.url()),
          "almanac.persistence.postgres.user = " + ConfigUtil.quoteString(db.user()),
          "almanac.persistence.postgres.password = " + ConfigUtil.quoteString(db.password()),
          "almanac.persistence.postgres.schema = " + db.schema);
    }
    return String.join("\n",
        "include \"almanac-h2.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(db.h2Path()));
  }

  static Config config(Db db) {
    return config(db, "");
  }

  static Config config(Db db, String extraHocon) {
    return ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-embedded.conf\"",
        storeConfig(db),
        extraHocon,
        // the plugin's own DAO, its batched writes (one transaction each) counted: see CountingJournalDao
        "jdbc-journal.dao = \"io.almanac.bench.CountingJournalDao\"",
        "almanac.executor.max-concurrent = " + Db.WORKERS,
        "pekko.loglevel = WARNING",
        "pekko.log-dead-letters = off",
        "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off",
        // profiling only (never in the comparison): extra HOCON from -Dalmanac.bench.overrides
        System.getProperty("almanac.bench.overrides", ""))));
  }

  /** @return the node's ActorSystem, once started (the projection-lag workload starts the instance projection on it) */
  ActorSystem<Void> system() {
    return system;
  }

  @Override
  public void start(Db db, Plan plan, boolean fresh, Recorder rec) throws Exception {
    Config config = config(db, extraHocon);
    url = config.getString(SLICK_DB + ".url");
    system = ActorSystem.create(Behaviors.empty(), "almanac-bench", config);
    SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
    almanac = io.almanac.BenchTap.tap(Almanac.builder(system), (actor, message) -> messages(actor).increment())
        .job("bench", ctx -> {
          rec.record(ctx.taskId(), ctx.windowStart().toEpochMilli());
          return CompletableFuture.completedFuture(JobResult.success(""));
        })
        .start();
    almanac.ready().toCompletableFuture().get(120, TimeUnit.SECONDS);
    probeConn = Db.postgres() ? db.connect() : DriverManager.getConnection(url, "sa", "");
    if (plan != null) {
      register(specs(plan));
    }
  }

  private void register(List<TaskSpec> specs) throws Exception {
    long t0 = System.nanoTime();
    for (int i = 0; i < specs.size(); i += 1000) {
      List<TaskSpec> chunk = specs.subList(i, Math.min(specs.size(), i + 1000));
      almanac.registerAll(chunk).toCompletableFuture().get(300, TimeUnit.SECONDS);
      if (specs.size() >= 5000 && (i / 1000) % 10 == 9) {
        Bench.progress("  almanac: registered %d of %d tasks (%.1f s)", i + chunk.size(), specs.size(),
            (System.nanoTime() - t0) / 1e9);
      }
    }
    // the registration alone (the burst's registration_ms also counts the node's start)
    Bench.progress("  almanac: %d tasks registered in %d ms (registerAll alone, after the node's start)", specs.size(),
        (System.nanoTime() - t0) / 1_000_000);
  }

  static String cronAt(Instant at) {
    ZonedDateTime z = at.atZone(ZoneOffset.UTC);
    return String.format("%d %d %d %d %d ? %d UTC", z.getSecond(), z.getMinute(), z.getHour(), z.getDayOfMonth(),
        z.getMonthValue(), z.getYear());
  }

  private List<TaskSpec> specs(Plan plan) {
    List<TaskSpec> out = new ArrayList<>(plan.n());
    for (int i = 0; i < plan.n(); i++) {
      if (plan instanceof Plan.Once o) {
        out.add(pooled(TaskSpec.builder(Plan.id("b", i)).cron(cronAt(o.due())).window(WindowSpec.PER_FIRING).job("bench")).build());
      } else if (plan instanceof Plan.EverySecond) {
        out.add(pooled(TaskSpec.builder(Plan.id("s", i)).cron("* * * * * ? UTC").window(WindowSpec.PER_FIRING).job("bench")).build());
      } else if (plan instanceof Plan.Overload o) {
        out.add(pooled(TaskSpec.builder(Plan.id("o", i)).cron(o.cron(i, "?") + " UTC").window(WindowSpec.PER_FIRING).job("bench")).build());
      } else if (plan instanceof Plan.Daily d) {
        ZonedDateTime z = d.firstAt().plusMillis(i * d.spacingMs()).atZone(ZoneOffset.UTC);
        out.add(pooled(TaskSpec.builder(Plan.id("d", i))
            .cron(String.format("%d %d %d * * ? UTC", z.getSecond(), z.getMinute(), z.getHour()))
            .window(WindowSpec.DAILY).job("bench")).build());
      }
    }
    return out;
  }

  /** The builder with the variant's pools, if any (none: the builder as it is). */
  private TaskSpec.Builder pooled(TaskSpec.Builder b) {
    return pools.isEmpty() ? b : b.pools(pools);
  }

  private final java.util.concurrent.atomic.LongAdder triggerMessages = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder taskMessages = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder executorMessages = new java.util.concurrent.atomic.LongAdder();

  private java.util.concurrent.atomic.LongAdder messages(String actor) {
    return switch (actor) {
      case "trigger" -> triggerMessages;
      case "executor" -> executorMessages;
      default -> taskMessages;
    };
  }

  /**
   * The node's journal counters ({@code almanac.journal.persists}, {@code almanac.journal.events}) and
   * the messages its trigger, task entities and executor received (all of them: commands, timers and
   * the journal's replies; counted by a tap that adds one increment per message).
   */
  @Override
  public Map<String, Long> counters() {
    Map<String, Long> m = new LinkedHashMap<>();
    if (system == null) {
      return m;
    }
    var meters = io.almanac.internal.meter.NodeMeters.of(system);
    m.put("journal_persists", meters.journalPersists());
    m.put("journal_events", meters.journalEvents());
    long[] writes = meters.journalWriteTimes();
    m.put("journal_writes_ended", writes[0]);
    m.put("journal_write_ns", writes[1]);
    if (Db.postgres() && probeConn != null) {
      // the server's own count of commits in this database (every client of it, this probe included;
      // a backend reports its counts at most once a second): a cross-check of journal_transactions
      try (var s = probeConn.createStatement();
          var rs = s.executeQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
        if (rs.next()) {
          m.put("pg_xact_commit", rs.getLong(1));
        }
      } catch (java.sql.SQLException e) {
        // not counted
      }
    }
    m.put("journal_transactions", CountingJournalDao.WRITES.sum());
    m.put("journal_transaction_rows", CountingJournalDao.ROWS.sum());
    long[] phases = meters.executorPhases();
    m.put("slot_takes", phases[0]);
    m.put("slot_wait_ns", phases[1]);
    m.put("slot_wait_max_ns", phases[2]);
    m.put("slot_releases", phases[3]);
    m.put("slot_hold_ns", phases[4]);
    m.put("slot_job_ns", phases[5]);
    m.put("slot_waiting_max", phases[6]);
    m.put("messages_trigger", triggerMessages.sum());
    m.put("messages_task", taskMessages.sum());
    m.put("messages_executor", executorMessages.sum());
    m.put("messages", triggerMessages.sum() + taskMessages.sum() + executorMessages.sum());
    if (!extraHocon.isBlank()) {
      m.putAll(CountingPoolStore.counters());
    }
    return m;
  }

  @Override
  public void probe(Instant due) throws Exception {
    // Once a day at 'due' (UTC), so it fires once and the idle window that follows is idle (a
    // per-second probe made the idle CPU figure that of one fire a second). A registration that
    // ends after 'due' still fires it: the trigger fires windows due since the registration began.
    java.time.ZonedDateTime at = due.atZone(java.time.ZoneOffset.UTC);
    String cron = at.getSecond() + " " + at.getMinute() + " " + at.getHour() + " * * ? UTC";
    register(List.of(TaskSpec.builder("probe").cron(cron).window(WindowSpec.PER_FIRING).job("bench").build()));
  }

  @Override
  public long settled(Plan.Once plan) throws Exception {
    return Db.count(probeConn, "SELECT COUNT(*) FROM \"event_journal\" WHERE \"event_ser_manifest\" LIKE '%AttemptSucceeded'"
        + " AND \"persistence_id\" LIKE 'task|b%'");
  }

  @Override
  public Map<String, Object> rows() throws Exception {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("event_journal", Db.count(probeConn, "SELECT COUNT(*) FROM \"event_journal\""));
    m.put("snapshot", Db.count(probeConn, "SELECT COUNT(*) FROM \"snapshot\""));
    m.put("event_tag", Db.count(probeConn, "SELECT COUNT(*) FROM \"event_tag\""));
    if (!name.equals("almanac")) {
      // the pool workload's variants: the journal's bytes too (a scan: not in the other workloads)
      m.put("event_journal_bytes", Db.count(probeConn, "SELECT COALESCE(SUM(OCTET_LENGTH(\"event_payload\")), 0) FROM \"event_journal\""));
    }
    Map<String, Object> byType = new TreeMap<>();
    try (var s = probeConn.createStatement();
        var rs = s.executeQuery("SELECT \"event_ser_manifest\", COUNT(*) FROM \"event_journal\" GROUP BY \"event_ser_manifest\"")) {
      while (rs.next()) {
        String t = rs.getString(1);
        byType.put(t.substring(t.lastIndexOf('$') + 1), rs.getLong(2));
      }
    }
    m.put("events_by_type", byType);
    if (!Db.postgres()) {
      m.put("h2_file", h2File(probeConn));
    }
    return m;
  }

  /**
   * The H2 file's size and its live data by H2's own counters (INFORMATION_SCHEMA.SETTINGS info.*):
   * the node compacts the file when it is over almanac.persistence.h2.compaction.max-ratio.
   */
  static Map<String, Object> h2File(java.sql.Connection c) throws Exception {
    Map<String, Long> info = new java.util.HashMap<>();
    try (var s = c.createStatement(); var rs = s.executeQuery("SELECT SETTING_NAME, SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS "
        + "WHERE SETTING_NAME IN ('info.FILE_SIZE', 'info.FILL_RATE', 'info.CHUNKS_FILL_RATE')")) {
      while (rs.next()) {
        info.put(rs.getString(1), Long.parseLong(rs.getString(2)));
      }
    }
    long file = info.getOrDefault("info.FILE_SIZE", 0L);
    long live = file * info.getOrDefault("info.FILL_RATE", 0L) / 100 * info.getOrDefault("info.CHUNKS_FILL_RATE", 0L) / 100;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("file_mb", file / 1e6);
    m.put("live_mb", live / 1e6);
    return m;
  }

  /**
   * Where the time of a fire goes, from the journal: each event's "at" (the entity's clock when it
   * decided, i.e. just before persist; the row's write_timestamp if absent), so
   * due -> InstanceScheduled is the trigger, its Fire and (for a window that may start at once) the
   * offer to the executor and its admission; InstanceScheduled -> AttemptStarted is zero when both
   * were written together, otherwise the first write, the offer, the executor's queue and its
   * admission; AttemptStarted -> job start is the start's write, ExecutorProtocol.Started and the hand-off to
   * the job dispatcher; job start -> AttemptSucceeded is JobDone, the result's ask, to its persist.
   */
  @Override
  public Map<String, Object> profile(List<Recorder.Start> starts, String prefix) throws Exception {
    return profile(probeConn, starts, prefix);
  }

  /** {@link #profile(List, String)} over any connection to the run's schema (the cluster workloads' harness has one). */
  static Map<String, Object> profile(Connection probeConn, List<Recorder.Start> starts, String prefix) throws Exception {
    Map<String, long[]> ts = new java.util.HashMap<>(); // task@window -> scheduled, started, succeeded (ms)
    Map<String, Long> due = new java.util.HashMap<>();
    try (var ps = probeConn.prepareStatement("SELECT \"persistence_id\", \"event_ser_manifest\", \"write_timestamp\","
        + " \"event_payload\" FROM \"event_journal\" WHERE \"persistence_id\" LIKE ? AND (\"event_ser_manifest\" LIKE"
        + " '%InstanceScheduled' OR \"event_ser_manifest\" LIKE '%AttemptStarted' OR \"event_ser_manifest\" LIKE '%AttemptSucceeded'"
        + " OR \"event_ser_manifest\" LIKE '%WindowStarted')")) {
      ps.setString(1, "task|" + prefix + "%");
      try (var rs = ps.executeQuery()) {
        java.util.regex.Pattern win = java.util.regex.Pattern.compile("\"window\":\"([^\"]+)\"");
        java.util.regex.Pattern atField = java.util.regex.Pattern.compile("\"at\":\"([^\"]+)\"");
        while (rs.next()) {
          String task = rs.getString(1).substring(5);
          String type = rs.getString(2);
          long at = rs.getLong(3);
          String json = new String(rs.getBytes(4), java.nio.charset.StandardCharsets.UTF_8);
          var mm = win.matcher(json);
          if (!mm.find()) {
            continue;
          }
          var am = atField.matcher(json);
          if (am.find()) {
            at = Instant.parse(am.group(1)).toEpochMilli();
          }
          String key = task + "@" + mm.group(1);
          long[] a = ts.computeIfAbsent(key, k -> new long[] {-1, -1, -1});
          if (type.endsWith("WindowStarted")) { // a fresh window's schedule and start in one row: both at its at
            a[0] = at;
            a[1] = at;
            due.put(key, Instant.parse(mm.group(1)).toEpochMilli());
            continue;
          }
          int i = type.endsWith("InstanceScheduled") ? 0 : type.endsWith("AttemptStarted") ? 1 : 2;
          a[i] = at;
          if (i == 0) {
            due.put(key, Instant.parse(mm.group(1)).toEpochMilli());
          }
        }
      }
    }
    List<Double> toScheduled = new ArrayList<>();
    List<Double> toStarted = new ArrayList<>();
    List<Double> toJob = new ArrayList<>();
    List<Double> toSucceeded = new ArrayList<>();
    for (Recorder.Start s : starts) {
      String key = s.task() + "@" + Instant.ofEpochMilli(s.ownDueMs());
      long[] a = ts.get(key);
      Long d = due.get(key);
      if (a == null || d == null || a[0] < 0 || a[1] < 0) {
        continue;
      }
      double job = s.startMicros() / 1000.0;
      toScheduled.add((double) (a[0] - d));
      toStarted.add((double) (a[1] - a[0]));
      toJob.add(job - a[1]);
      if (a[2] >= 0) {
        toSucceeded.add(a[2] - job);
      }
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("due_to_InstanceScheduled", Stats.lag(toScheduled.stream().mapToDouble(Double::doubleValue).toArray()));
    m.put("InstanceScheduled_to_AttemptStarted", Stats.lag(toStarted.stream().mapToDouble(Double::doubleValue).toArray()));
    m.put("AttemptStarted_to_job_start", Stats.lag(toJob.stream().mapToDouble(Double::doubleValue).toArray()));
    m.put("job_start_to_AttemptSucceeded", Stats.lag(toSucceeded.stream().mapToDouble(Double::doubleValue).toArray()));
    m.put("note", "from each event's at field (the entity's clock when it decided, just before persist); ms");
    return m;
  }

  /**
   * From the journal: task@window keys of the windows due in [from, to) with an AttemptSucceeded
   * (a window's key is its due instant for these per-firing tasks), and the counts of the events
   * that say a window did not run (FireSkipped, WindowMissed) by reason.
   */
  @Override
  public Map<String, Object> journalView(String prefix, Instant from, Instant to) throws Exception {
    java.util.Set<String> succeeded = new java.util.HashSet<>();
    Map<String, Long> notRun = new TreeMap<>();
    java.util.regex.Pattern win = java.util.regex.Pattern.compile("\"window\":\"([^\"]+)\"");
    java.util.regex.Pattern reason = java.util.regex.Pattern.compile("\"reason\":\"([^\"]+)\"");
    try (var ps = probeConn.prepareStatement("SELECT \"persistence_id\", \"event_ser_manifest\", \"event_payload\" FROM"
        + " \"event_journal\" WHERE \"persistence_id\" LIKE ? AND (\"event_ser_manifest\" LIKE '%AttemptSucceeded'"
        + " OR \"event_ser_manifest\" LIKE '%FireSkipped' OR \"event_ser_manifest\" LIKE '%WindowMissed')")) {
      ps.setString(1, "task|" + prefix + "%");
      try (var rs = ps.executeQuery()) {
        while (rs.next()) {
          String json = new String(rs.getBytes(3), java.nio.charset.StandardCharsets.UTF_8);
          var mm = win.matcher(json);
          if (!mm.find()) {
            continue;
          }
          Instant due;
          try {
            due = Instant.parse(mm.group(1));
          } catch (java.time.format.DateTimeParseException e) {
            continue;
          }
          if (due.isBefore(from) || !due.isBefore(to)) {
            continue;
          }
          String type = rs.getString(2);
          if (type.endsWith("AttemptSucceeded")) {
            succeeded.add(rs.getString(1) + "@" + due);
          } else {
            var r = reason.matcher(json);
            notRun.merge(type.substring(type.lastIndexOf('$') + 1) + (r.find() ? "(" + r.group(1) + ")" : ""), 1L, Long::sum);
          }
        }
      }
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("succeeded", succeeded.size());
    m.put("not_run_recorded", notRun);
    return m;
  }

  @Override
  public Map<String, Object> recordedBetween(Plan plan, Instant from, Instant to) throws Exception {
    Map<String, Long> byStatus = new TreeMap<>();
    Map<String, Long> reasons = new TreeMap<>();
    for (int i = 0; i < plan.n(); i++) {
      List<WindowView> ws = almanac.windows(Plan.id(plan instanceof Plan.Overload ? "o" : "s", i))
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
      for (WindowView w : ws) {
        if (w.dueAt() != null && !w.dueAt().isBefore(from) && w.dueAt().isBefore(to)) {
          String k = w.status() + (w.status() == InstanceStatus.SUCCEEDED ? "(" + w.runKind() + ")" : "");
          byStatus.merge(k, 1L, Long::sum);
          if (w.reason() != null) {
            String r = w.reason();
            int colon = r.indexOf(':');
            reasons.merge(colon > 0 ? r.substring(0, colon) : r, 1L, Long::sum);
          }
        }
      }
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("windows_by_status", byStatus);
    m.put("reasons", reasons);
    return m;
  }

  @Override
  public void close() throws Exception {
    if (probeConn != null) {
      probeConn.close();
    }
    if (system != null) {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }
}
