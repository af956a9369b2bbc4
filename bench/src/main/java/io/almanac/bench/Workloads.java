package io.almanac.bench;

import io.almanac.journal.TaskJournal;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** The workloads of issue 5, each run for one system in its own JVM (a child of {@link Bench}). */
final class Workloads {
  private Workloads() {}

  static Map<String, Object> head(String system, String workload, Sut sut) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("system", system);
    m.put("workload", workload);
    m.put("db", Db.kind);
    if (Db.postgres()) {
      m.put("db_server", Db.serverSettingsCached());
    }
    m.put("at", Instant.now().toString());
    if (sut != null) {
      m.put("durable", sut.durable());
      m.put("settings", sut.settings());
    }
    return m;
  }

  static Instant wholeSecondAfter(long millisFromNow) {
    long t = System.currentTimeMillis() + millisFromNow;
    return Instant.ofEpochMilli((t / 1000 + 1) * 1000);
  }

  /** Rough registration cost per task, to put the burst's due time after the registration ends. */
  static long perTaskMicros(String system) {
    if (Db.postgres()) {
      // measured on PostgreSQL (synchronous_commit on): a round trip and a WAL flush per statement/commit
      return switch (system) {
        case "quartz-ram" -> 20;
        case "almanac" -> 4000;
        case "dbs", "dbs-tuned" -> 1500;
        default -> 3500;
      };
    }
    return switch (system) {
      case "quartz-ram" -> 20;
      case "almanac" -> 4000;
      case "dbs", "dbs-tuned" -> 600;
      default -> 1000;
    };
  }

  // ---------------------------------------------------------------------------------------------
  // burst

  static Map<String, Object> burst(String system, int n, Path dir) throws Exception {
    // Almanac's first start in a JVM (ActorSystem, cluster join, schema bootstrap, cold JIT) took
    // 5-9 s more on PostgreSQL than on H2 before its first task was registered. Note that the margin
    // also sets where the due time falls in db-scheduler's polling cycle (it polls at start, then
    // every pollingInterval): with the default 10 s that phase decides most of dbs's burst lag.
    long margin = (Db.postgres() && system.equals("almanac") ? 10_000 : 3000) + n * perTaskMicros(system) / 1000;
    for (int attempt = 1; ; attempt++) {
      Db db = Db.at(dir, "burst-" + attempt);
      Recorder rec = new Recorder();
      Sut sut = Sut.create(system);
      Map<String, Object> out = head(system, "burst-" + n, sut);
      try {
        db.createEmpty();
        Instant due = wholeSecondAfter(margin);
        Plan.Once plan = new Plan.Once(n, due);
        long r0 = System.currentTimeMillis();
        sut.start(db, plan, true, rec);
        long registered = System.currentTimeMillis();
        if (registered > due.toEpochMilli() - 500) {
          Bench.progress("  registration took %d ms, past the due time; retrying with a later due time", registered - r0);
          margin = (registered - r0) * 2 + 3000;
          if (attempt < 3) {
            continue;
          }
          throw new IllegalStateException("registration did not finish before the due time");
        }
        Map<String, Object> before = sut.rows();
        out.put("registration_ms", registered - r0);
        Bench.progress("  %s: %d tasks registered in %d ms; due at %s", system, n, registered - r0, due);
        long timeoutMs = Math.max(60_000, n * 30L);
        long deadline = due.toEpochMilli() + timeoutMs;
        long untilDue = due.toEpochMilli() - 200 - System.currentTimeMillis();
        if (untilDue > 0) {
          Thread.sleep(untilDue);
        }
        Map<String, Long> cost0 = Cost.snapshot(sut);
        long fired0 = rec.count();
        while (rec.count() < n && System.currentTimeMillis() < deadline) {
          Thread.sleep(20);
        }
        long settledAt = -1;
        long settled = -1;
        if (sut.durable()) {
          while (System.currentTimeMillis() < deadline) {
            settled = sut.settled(plan);
            if (settled >= n) {
              settledAt = System.currentTimeMillis();
              break;
            }
            Thread.sleep(50);
          }
        }
        Map<String, Long> cost1 = Cost.snapshot(sut);
        out.put("cost", Cost.perFire(cost0, cost1, rec.count() - fired0));
        List<Recorder.Start> starts = rec.snapshot();
        double[] lags = new double[starts.size()];
        long last = 0;
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < lags.length; i++) {
          Recorder.Start s = starts.get(i);
          lags[i] = s.startMicros() / 1000.0 - due.toEpochMilli();
          last = Math.max(last, s.startMicros());
          seen.merge(s.task(), 1, Integer::sum);
        }
        out.put("n", n);
        out.put("started", starts.size());
        out.put("distinct", seen.size());
        out.put("duplicates", starts.size() - seen.size());
        out.put("lag", Stats.lag(lags));
        double spanS = (last / 1000.0 - due.toEpochMilli()) / 1000.0;
        out.put("fires_per_s", starts.isEmpty() ? 0.0 : starts.size() / Math.max(spanS, 0.001));
        if (sut.durable()) {
          out.put("settled", settled);
          out.put("completions_per_s", settledAt < 0 ? null : n / Math.max((settledAt - due.toEpochMilli()) / 1000.0, 0.001));
          out.put("completions_note", "all fires durably completed in the store (polled every 50 ms once all had started)");
        } else {
          out.put("completions_per_s", out.get("fires_per_s"));
          out.put("completions_note", "in memory: a completion is the job's return");
        }
        if (settledAt < 0 && sut.durable() || starts.size() < n) {
          out.put("timeout_ms", timeoutMs);
        }
        Map<String, Object> after = sut.rows();
        if (!after.isEmpty()) {
          out.put("rows_before", before);
          out.put("rows_after", after);
          long journal = ((Number) after.get("event_journal")).longValue() - ((Number) before.get("event_journal")).longValue();
          out.put("journal_rows_per_fire", (double) journal / n);
          if (after.get("h2_file") instanceof Map<?, ?> h2) {
            Bench.progress("  H2 file after the burst: %.1f MB, live data %.1f MB", h2.get("file_mb"), h2.get("live_mb"));
          }
        }
        Map<String, Object> prof = sut.profile(starts, "b");
        if (!prof.isEmpty()) {
          out.put("profile", prof);
        }
        return out;
      } finally {
        sut.close();
        db.drop();
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // steady

  static Map<String, Object> steady(String system, int m, int seconds, Path dir) throws Exception {
    return steady(Sut.create(system), "steady-" + m, m, seconds, dir);
  }

  /** The steady workload for a system made by the caller (the pool workload's variants), under its own label. */
  static Map<String, Object> steady(Sut sut, String label, int m, int seconds, Path dir) throws Exception {
    String system = sut.name();
    Db db = Db.at(dir, "steady");
    Recorder rec = new Recorder();
    Map<String, Object> out = head(system, label, sut);
    try {
      db.createEmpty();
      long r0 = System.currentTimeMillis();
      sut.start(db, new Plan.EverySecond(m), true, rec);
      out.put("registration_ms", System.currentTimeMillis() - r0);
      Instant from = wholeSecondAfter(2000);
      Instant to = from.plusSeconds(seconds);
      Bench.progress("  %s: %d tasks every second registered in %d ms; measuring seconds [%s, %s)", system, m,
          System.currentTimeMillis() - r0, from, to);
      Map<String, Object> rowsBefore = null;
      while (System.currentTimeMillis() < from.toEpochMilli()) {
        Thread.sleep(10);
      }
      rowsBefore = sut.rows();
      Map<String, Long> cost0 = Cost.snapshot(sut);
      long fired0 = rec.count();
      Thread.sleep(Math.max(0, to.toEpochMilli() - System.currentTimeMillis()));
      out.put("cost", Cost.perFire(cost0, Cost.snapshot(sut), rec.count() - fired0));
      Thread.sleep(to.toEpochMilli() - System.currentTimeMillis() + 5000); // 5 s grace for late fires
      Map<String, Object> rowsAfter = sut.rows();
      out.putAll(analyseSeconds(rec.snapshot(), from, to, m, system.startsWith("quartz") || system.equals("almanac")));
      Map<String, Object> view = sut.journalView("s", from, to);
      if (!view.isEmpty()) {
        // what a user reads back: windows due in the span whose success is recorded (not the job starts seen)
        out.put("journal_view", view);
        out.put("missed_by_journal", ((Number) out.get("expected")).longValue() - ((Number) view.get("succeeded")).longValue());
      }
      if (!rowsAfter.isEmpty()) {
        long journal = ((Number) rowsAfter.get("event_journal")).longValue()
            - ((Number) rowsBefore.get("event_journal")).longValue();
        out.put("journal_rows_per_fire", journal / (double) Math.max(1, ((Number) out.get("fired")).longValue()));
        if (rowsAfter.get("event_journal_bytes") instanceof Number b1 && rowsBefore.get("event_journal_bytes") instanceof Number b0) {
          out.put("journal_bytes_per_fire", (b1.longValue() - b0.longValue()) / (double) Math.max(1, ((Number) out.get("fired")).longValue()));
        }
        out.put("rows_after", rowsAfter);
      }
      Map<String, Object> prof = sut.profile(rec.snapshot().stream()
          .filter(x -> x.secondMs() >= from.toEpochMilli() && x.secondMs() < to.toEpochMilli()).toList(), "s");
      if (!prof.isEmpty()) {
        out.put("profile", prof);
      }
      return out;
    } finally {
      sut.close();
      db.drop();
    }
  }

  /**
   * Lags, missed and duplicated fires of tasks firing every second, for due seconds in [from, to).
   *
   * @param aligned whether the system's own due time is a whole second (Almanac, Quartz): a start
   *     whose own due time is not is a misfire-handled fire ("fire once now"), counted apart
   */
  static Map<String, Object> analyseSeconds(List<Recorder.Start> all, Instant from, Instant to, int tasks, boolean aligned) {
    Map<String, Object> out = new LinkedHashMap<>();
    long f = from.toEpochMilli();
    long t = to.toEpochMilli();
    List<Double> lag = new ArrayList<>();
    List<Double> ownLag = new ArrayList<>();
    Map<String, Integer> keys = new HashMap<>();
    int misfireFires = 0;
    for (Recorder.Start s : all) {
      long sec = s.secondMs();
      if (sec < f || sec >= t) {
        continue;
      }
      if (aligned && s.ownDueMs() % 1000 != 0) {
        misfireFires++;
        continue;
      }
      lag.add(s.startMicros() / 1000.0 - sec);
      ownLag.add(s.startMicros() / 1000.0 - s.ownDueMs());
      keys.merge(s.task() + "@" + sec, 1, Integer::sum);
    }
    long expected = (long) tasks * ((t - f) / 1000);
    int fired = lag.size();
    // distinct windows started per 5 s of due time: the span's start (the JVM still warming up) shows apart
    int buckets = (int) Math.max(1, ((t - f) / 1000 + 4) / 5);
    long[] startedBy5s = new long[buckets];
    for (String k : keys.keySet()) {
      long sec = Long.parseLong(k.substring(k.lastIndexOf('@') + 1));
      startedBy5s[(int) Math.min(buckets - 1, (sec - f) / 5000)]++;
    }
    List<Long> missedBy5s = new ArrayList<>();
    for (int b = 0; b < buckets; b++) {
      long secs = Math.min(5, (t - f) / 1000 - b * 5L);
      missedBy5s.add(tasks * secs - startedBy5s[b]);
    }
    out.put("missed_by_5s", missedBy5s);
    out.put("expected", expected);
    out.put("fired", fired);
    out.put("missed", expected - keys.size());
    out.put("duplicates", fired - keys.size());
    out.put("misfire_handled_fires", misfireFires);
    out.put("lag", Stats.lag(lag.stream().mapToDouble(Double::doubleValue).toArray()));
    if (!aligned) {
      out.put("lag_vs_own_execution_time", Stats.lag(ownLag.stream().mapToDouble(Double::doubleValue).toArray()));
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // overload

  /**
   * {@code n} tasks due every second for {@code seconds} seconds (from a whole minute), then only
   * {@code low} of them (which also fire before): the start rate while it lasts, what the system
   * recorded for what it could not start, its log lines, and how soon after the end its fires are on
   * time again (every window of the low tasks started within {@code onTimeMs} of its due time, none
   * missed, through the 30 s after).
   */
  static Map<String, Object> overload(String system, int n, int low, int seconds, Path dir) throws Exception {
    final long onTimeMs = 1000;
    final int afterSeconds = 30;
    Db db = Db.at(dir, "overload");
    Recorder rec = new Recorder();
    Sut sut = Sut.create(system);
    Map<String, Object> out = head(system, "overload-" + n, sut);
    LogCount logs = LogCount.attach();
    try {
      db.createEmpty();
      // the first whole minute after registration (estimated) and a 10 s settling margin
      long ready = System.currentTimeMillis() + 10_000 + perTaskMicros(system) * n / 1000;
      Instant from = Instant.ofEpochSecond((ready / 1000 / 60 + 1) * 60);
      Instant to = from.plusSeconds(seconds);
      Plan.Overload plan = new Plan.Overload(n, low, from, seconds);
      long r0 = System.currentTimeMillis();
      sut.start(db, plan, true, rec);
      out.put("registration_ms", System.currentTimeMillis() - r0);
      out.put("tasks", n);
      out.put("low", low);
      out.put("seconds", seconds);
      Bench.progress("  %s: %d tasks registered in %d ms; %d due every second in [%s, %s), then %d", system, n,
          System.currentTimeMillis() - r0, n, from, to, low);
      if (System.currentTimeMillis() > from.toEpochMilli() - 1000) {
        out.put("note", "registration ended less than 1 s before the overload began");
      }
      while (System.currentTimeMillis() < from.toEpochMilli()) {
        Thread.sleep(10);
      }
      Map<String, Long> cost0 = Cost.snapshot(sut);
      long fired0 = rec.count();
      long logs0 = logs.total();
      Thread.sleep(Math.max(0, to.toEpochMilli() - System.currentTimeMillis()));
      out.put("cost", Cost.perFire(cost0, Cost.snapshot(sut), rec.count() - fired0));
      out.put("log_lines_during", logs.total() - logs0);
      Instant end = to.plusSeconds(afterSeconds);
      Thread.sleep(Math.max(0, end.toEpochMilli() - System.currentTimeMillis()) + 5000); // 5 s grace for late fires
      List<Recorder.Start> all = rec.snapshot();
      out.putAll(analyseOverload(all, from, to, end, n, low, onTimeMs));
      out.put("log_lines_by_level", logs.byLevel());
      out.put("log_lines_sample", logs.sample());
      Map<String, Object> recorded = sut.recordedBetween(plan, from, to);
      out.put("recorded_for_the_overload_windows", recorded);
      Map<String, Object> rows = sut.rows();
      if (!rows.isEmpty()) {
        out.put("rows_after", rows);
      }
      return out;
    } finally {
      logs.detach();
      sut.close();
      db.drop();
    }
  }

  static Map<String, Object> analyseOverload(List<Recorder.Start> all, Instant from, Instant to, Instant end, int n, int low,
      long onTimeMs) {
    Map<String, Object> out = new LinkedHashMap<>();
    long f = from.toEpochMilli();
    long t = to.toEpochMilli();
    long e = end.toEpochMilli();
    int seconds = (int) ((t - f) / 1000);
    // starts per wall-clock second while the overload lasts (any window)
    long[] perSecond = new long[seconds];
    java.util.Set<String> overloadKeys = new java.util.HashSet<>();
    List<Double> overloadLag = new ArrayList<>();
    for (Recorder.Start s : all) {
      long startMs = s.startMicros() / 1000;
      if (startMs >= f && startMs < t) {
        perSecond[(int) ((startMs - f) / 1000)]++;
      }
      long sec = s.secondMs();
      if (sec >= f && sec < t && overloadKeys.add(s.task() + "@" + sec)) {
        overloadLag.add(s.startMicros() / 1000.0 - sec);
      }
    }
    long startedDuring = java.util.Arrays.stream(perSecond).sum();
    out.put("start_rate_during_per_s", startedDuring / (double) seconds);
    out.put("start_rate_by_second", java.util.Arrays.stream(perSecond).boxed().toList());
    long expected = (long) n * seconds;
    out.put("overload_windows_expected", expected);
    out.put("overload_windows_started", overloadKeys.size());
    out.put("overload_windows_not_started", expected - overloadKeys.size());
    out.put("overload_lag", Stats.lag(overloadLag.stream().mapToDouble(Double::doubleValue).toArray()));
    // the low tasks after the end: per due second, started on time or not
    int after = (int) ((e - t) / 1000);
    int[] onTime = new int[after];
    int[] started = new int[after];
    List<Double> afterLag = new ArrayList<>();
    java.util.Set<String> afterKeys = new java.util.HashSet<>();
    for (Recorder.Start s : all) {
      long sec = s.secondMs();
      if (sec < t || sec >= e || !afterKeys.add(s.task() + "@" + sec)) {
        continue;
      }
      int k = (int) ((sec - t) / 1000);
      double lag = s.startMicros() / 1000.0 - sec;
      started[k]++;
      if (lag <= onTimeMs) {
        onTime[k]++;
      }
      if (k >= 5) {
        afterLag.add(lag);
      }
    }
    int firstLate = -1;
    for (int k = after - 1; k >= 0; k--) {
      if (onTime[k] < low) {
        firstLate = k;
        break;
      }
    }
    out.put("on_time_again_after_s", firstLate + 1);
    out.put("on_time_again_note", "seconds after the end from which every window of the " + low
        + " tasks started within " + onTimeMs + " ms of its due time, none missed, through " + after + " s");
    out.put("after_windows_not_started", (long) low * after - afterKeys.size());
    out.put("after_lag_from_5s", Stats.lag(afterLag.stream().mapToDouble(Double::doubleValue).toArray()));
    out.put("after_on_time_by_second", java.util.Arrays.stream(onTime).boxed().toList());
    return out;
  }

  /** Counts the log lines of the run (at the level the bench logs, WARN), from every logger. */
  static final class LogCount extends ch.qos.logback.core.AppenderBase<ch.qos.logback.classic.spi.ILoggingEvent> {
    private final java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.LongAdder> levels =
        new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.ConcurrentLinkedQueue<String> sample = new java.util.concurrent.ConcurrentLinkedQueue<>();

    static LogCount attach() {
      LogCount c = new LogCount();
      if (org.slf4j.LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext lc) {
        c.setContext(lc);
        c.setName("bench-log-count");
        c.start();
        lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(c);
      }
      return c;
    }

    void detach() {
      if (org.slf4j.LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext lc) {
        lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(this);
      }
      stop();
    }

    @Override
    protected void append(ch.qos.logback.classic.spi.ILoggingEvent event) {
      total.incrementAndGet();
      levels.computeIfAbsent(event.getLevel().toString(), k -> new java.util.concurrent.atomic.LongAdder()).increment();
      if (sample.size() < 5) {
        String m = event.getFormattedMessage();
        sample.add(event.getLevel() + " " + event.getLoggerName() + ": " + (m.length() > 200 ? m.substring(0, 200) : m));
      }
    }

    long total() {
      return total.get();
    }

    Map<String, Long> byLevel() {
      Map<String, Long> m = new java.util.TreeMap<>();
      levels.forEach((k, v) -> m.put(k, v.sum()));
      return m;
    }

    List<String> sample() {
      return List.copyOf(sample);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // scale

  static Map<String, Object> scale(String system, int n, int idleSeconds, Path dir) throws Exception {
    Db db = Db.at(dir, "scale");
    Recorder rec = new Recorder();
    Sut sut = Sut.create(system);
    Map<String, Object> out = head(system, "scale-" + n, sut);
    // n daily tasks spread over 12 hours starting in 1 hour: nothing is due while we measure
    Plan.Daily plan = new Plan.Daily(n, Instant.now().plusSeconds(3600), 12 * 3600_000L / n);
    long r0 = System.currentTimeMillis();
    try {
      db.createEmpty();
      sut.start(db, plan, true, rec);
      long reg = System.currentTimeMillis() - r0;
      out.put("tasks", n);
      out.put("registration_ms", reg);
      Bench.progress("  %s: %d daily tasks registered in %d ms", system, n, reg);
      if (sut.durable()) {
        sut.close();
        sut = Sut.create(system);
        Thread.sleep(1000);
        out.put("restarted", "yes: the store is reopened by a new scheduler instance in the same JVM");
      }
      long t0 = System.currentTimeMillis();
      if (sut.durable()) {
        sut.start(db, null, false, rec);
      }
      long started = System.currentTimeMillis();
      Instant due = wholeSecondAfter(1000);
      sut.probe(due);
      while (rec.count() == 0 && System.currentTimeMillis() < t0 + 300_000) {
        Thread.sleep(5);
      }
      List<Recorder.Start> s = rec.snapshot();
      out.put("start_call_ms", started - t0);
      if (!s.isEmpty()) {
        long first = s.get(0).startMicros() / 1000;
        out.put("probe_due_after_start_ms", due.toEpochMilli() - t0);
        out.put("time_to_first_fire_ms", first - t0);
        out.put("probe_lag_ms", first - due.toEpochMilli());
      }
      Thread.sleep(2000);
      MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
      System.gc();
      Thread.sleep(500);
      System.gc();
      Thread.sleep(500);
      out.put("heap_after_full_gc_mb", mem.getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0));
      var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      long c0 = os.getProcessCpuTime();
      long w0 = System.nanoTime();
      Thread.sleep(idleSeconds * 1000L);
      long c1 = os.getProcessCpuTime();
      long w1 = System.nanoTime();
      out.put("idle_cpu_percent_of_one_core", 100.0 * (c1 - c0) / (w1 - w0));
      out.put("idle_window_s", idleSeconds);
      // The window above starts seconds after a start that loaded 100,000 tasks: it includes the JIT
      // compiling what the start ran. A second window, a minute after the start, shows the settled
      // cost of the idle scheduler itself; both are reported.
      Thread.sleep(Math.max(0, t0 + 60_000 - System.currentTimeMillis()));
      long c2 = os.getProcessCpuTime();
      long w2 = System.nanoTime();
      Thread.sleep(idleSeconds * 1000L);
      out.put("idle_cpu_settled_percent_of_one_core", 100.0 * (os.getProcessCpuTime() - c2) / (System.nanoTime() - w2));
      out.put("idle_settled_window", "the same length, starting 60 s after the restart");
      out.put("fires_while_idle", rec.count() - s.size());
      out.put("heap_note", "heap used after two System.gc() in this JVM (scheduler + its 100k tasks + the harness), -Xmx2g");
      return out;
    } finally {
      sut.close();
      db.drop();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // limit

  static Map<String, Object> limit(Path dir, int seconds) throws Exception {
    Db db = Db.at(dir, "limit");
    Map<String, Object> out = head("jdbc", "limit", null);
    out.put("table", "journal-shaped: PRIMARY KEY(persistence_id, sequence_number), UNIQUE ordering index ("
        + (Db.postgres() ? "BIGSERIAL" : "identity") + "), 120-byte payload; one thread");
    // On PostgreSQL the connection sends a batch as multi-row INSERTs, as Almanac's journal does
    // (reWriteBatchedInserts=true in almanac-postgres.conf); a per-row commit is one round trip and
    // one WAL flush (synchronous_commit as the server has it).
    java.util.Properties props = new java.util.Properties();
    if (Db.postgres()) {
      props.setProperty("reWriteBatchedInserts", "true");
      out.put("connection", "pgJDBC reWriteBatchedInserts=true (as almanac-postgres.conf)");
    }
    db.createEmpty();
    try (Connection c = db.connect(props)) {
      try (Statement s = c.createStatement()) {
        if (Db.postgres()) {
          // pekko-persistence-jdbc's event_journal for PostgreSQL, reduced to the same columns as on H2
          s.execute("CREATE TABLE j (ordering BIGSERIAL, persistence_id VARCHAR(255) NOT NULL,"
              + " sequence_number BIGINT NOT NULL, write_timestamp BIGINT NOT NULL, payload BYTEA NOT NULL,"
              + " PRIMARY KEY (persistence_id, sequence_number))");
        } else {
          s.execute("CREATE TABLE j (ordering BIGINT GENERATED BY DEFAULT AS IDENTITY, persistence_id VARCHAR(255) NOT NULL,"
              + " sequence_number BIGINT NOT NULL, write_timestamp BIGINT NOT NULL, payload VARBINARY(120) NOT NULL,"
              + " PRIMARY KEY (persistence_id, sequence_number))");
        }
        s.execute("CREATE UNIQUE INDEX j_ordering_idx ON j (ordering)");
      }
      byte[] payload = new byte[120];
      new Random(1).nextBytes(payload);
      c.setAutoCommit(false);
      int[] batches = {100};
      for (int batch : batches) {
        long rows = 0;
        long t0 = System.nanoTime();
        long end = t0 + seconds * 1_000_000_000L;
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO j (persistence_id, sequence_number, write_timestamp, payload) VALUES (?, ?, ?, ?)")) {
          int pid = 0;
          while (System.nanoTime() < end) {
            for (int i = 0; i < batch; i++) {
              ps.setString(1, "task|b" + (pid++ % 1000));
              ps.setLong(2, rows + i);
              ps.setLong(3, System.currentTimeMillis());
              ps.setBytes(4, payload);
              ps.addBatch();
            }
            ps.executeBatch();
            c.commit();
            rows += batch;
          }
        }
        out.put("batched_" + batch + "_rows_per_s", rows / ((System.nanoTime() - t0) / 1e9));
      }
      long rows = 0;
      long t0 = System.nanoTime();
      long end = t0 + Math.max(3, seconds / 2) * 1_000_000_000L;
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO j (persistence_id, sequence_number, write_timestamp, payload) VALUES (?, ?, ?, ?)")) {
        while (System.nanoTime() < end) {
          ps.setString(1, "single");
          ps.setLong(2, rows);
          ps.setLong(3, System.currentTimeMillis());
          ps.setBytes(4, payload);
          ps.executeUpdate();
          c.commit();
          rows++;
        }
      }
      out.put("commit_per_row_rows_per_s", rows / ((System.nanoTime() - t0) / 1e9));
    } finally {
      db.drop();
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // audit

  /**
   * Events per second of the audit verifier (io.almanac.persistence.audit.Verifier) over 1,000,000
   * events: 1,000 tasks of 1 SpecDefined + 333 succeeded per-firing windows (InstanceScheduled,
   * AttemptStarted, AttemptSucceeded) each, built in memory as the journal would return them. The
   * journal read itself (AuditReader over pekko-persistence-query) is not part of this number.
   */
  static Map<String, Object> audit(int events) throws Exception {
    Map<String, Object> out = head("almanac", "audit", null);
    if (Workloads.class.getClassLoader().getResource("io/almanac/persistence/audit/Verifier.class") == null) {
      out.put("available", false);
      out.put("reason", "io.almanac.persistence.audit is not in the almanac-persistence jar this module was built against");
      return out;
    }
    int tasks = 1000;
    int windows = (events / tasks - 1) / 3;
    java.time.ZoneId utc = java.time.ZoneOffset.UTC;
    List<io.almanac.persistence.audit.TaskHistory> histories = new ArrayList<>(tasks);
    Instant base = Instant.parse("2026-11-01T00:00:00Z");
    long total = 0;
    for (int t = 0; t < tasks; t++) {
      String id = Plan.id("a", t);
      List<io.almanac.persistence.audit.AuditEvent> ev = new ArrayList<>(1 + 3 * windows);
      long seq = 1;
      io.almanac.TaskSpec spec = io.almanac.TaskSpec.builder(id).cron("* * * * * ? UTC")
          .window(io.almanac.WindowSpec.PER_FIRING).job("bench").build();
      ev.add(io.almanac.persistence.audit.AuditEvent.of(id, seq++, new TaskJournal.SpecDefined(io.almanac.journal.SpecRecord.of(spec), base), utc));
      for (int w = 0; w < windows; w++) {
        Instant due = base.plusSeconds(1 + w);
        String key = due.toString();
        Instant s0 = due.plusMillis(5);
        ev.add(io.almanac.persistence.audit.AuditEvent.of(id, seq++, new TaskJournal.InstanceScheduled(
            key, due, due, due, io.almanac.RunKind.FIRST, due.plusMillis(2)), utc));
        ev.add(io.almanac.persistence.audit.AuditEvent.of(id, seq++, new TaskJournal.AttemptStarted(
            key, 1, io.almanac.RunKind.FIRST, s0.plusSeconds(3600), "node", s0), utc));
        ev.add(io.almanac.persistence.audit.AuditEvent.of(id, seq++, new TaskJournal.AttemptSucceeded(
            key, 1, java.time.Duration.ofMillis(1), "", null, s0.plusMillis(1)), utc));
      }
      total += ev.size();
      histories.add(io.almanac.persistence.audit.TaskHistory.of(id, ev));
    }
    // one warm-up pass, then the measured pass
    for (int pass = 0; pass < 2; pass++) {
      long t0 = System.nanoTime();
      int violations = 0;
      int open = 0;
      for (var h : histories) {
        var r = io.almanac.persistence.audit.Verifier.verify(h);
        violations += r.violations().size();
        open += r.open().size();
      }
      double s = (System.nanoTime() - t0) / 1e9;
      if (pass == 1) {
        out.put("available", true);
        out.put("events", total);
        out.put("tasks", tasks);
        out.put("seconds", s);
        out.put("events_per_s", total / s);
        out.put("violations", violations);
        out.put("open", open);
        out.put("note", "Verifier.verify per task over in-memory AuditEvents (1 warm-up pass); excludes reading the journal");
      }
    }
    return out;
  }

}
