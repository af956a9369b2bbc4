package io.almanac.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InstanceStatus;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.InstanceFilter;
import io.almanac.persistence.instances.InstancePage;
import io.almanac.persistence.instances.InstanceProjection;
import io.almanac.persistence.instances.InstanceQueries;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The instance table's workloads (io.almanac.persistence.instances):
 *
 * <ul>
 *   <li>{@code instance-query}: fills almanac_instance with N rows (1,000 tasks x N/1,000 hourly
 *       windows, 90% SUCCEEDED, the rest SKIPPED, MISSED, FINAL_FAILED, CANCELLED, RESOLVED and
 *       RUNNING) by batched JDBC inserts, then times pages of 100 rows through InstanceQueries for
 *       the operator's filters; p50/p99/max in ms over repeated queries (random task and range).
 *   <li>{@code projection-lag}: N tasks firing every second on one Almanac node (the steady
 *       workload's set-up) with the instance projection running; samples its lag every 100 ms.
 * </ul>
 */
final class InstanceBench {

  private InstanceBench() {}

  private static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");
  private static final int TASKS = 1000;

  private static final String INSERT = "INSERT INTO almanac_instance (task_id, window_key, window_start, window_end, status, "
      + "attempt, retry_count, max_retry, run_kind, result_summary, fail_reason, scheduled_at, started_at, finished_at, "
      + "created_at, updated_at, last_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private static InstanceStatus status(int t, int w) {
    int r = Math.floorMod(t * 7919 + w * 104729, 100);
    if (r < 90) {
      return InstanceStatus.SUCCEEDED;
    }
    return switch (r) {
      case 90, 91, 92 -> InstanceStatus.SKIPPED;
      case 93, 94 -> InstanceStatus.MISSED;
      case 95, 96 -> InstanceStatus.FINAL_FAILED;
      case 97 -> InstanceStatus.CANCELLED;
      case 98 -> InstanceStatus.RESOLVED;
      default -> InstanceStatus.RUNNING;
    };
  }

  private static void time(PreparedStatement p, int i, Instant t) throws java.sql.SQLException {
    if (t == null) {
      p.setNull(i, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      p.setObject(i, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
    }
  }

  private static long fill(Db db, int rows) throws Exception {
    Properties props = new Properties();
    if (Db.postgres()) {
      props.setProperty("reWriteBatchedInserts", "true");
    }
    int perTask = rows / TASKS;
    long t0 = System.nanoTime();
    try (Connection c = db.connect(props)) {
      c.setAutoCommit(false);
      try (PreparedStatement p = c.prepareStatement(INSERT)) {
        int inBatch = 0;
        for (int w = 0; w < perTask; w++) {
          Instant start = BASE.plus(Duration.ofHours(w));
          for (int t = 0; t < TASKS; t++) {
            InstanceStatus s = status(t, w);
            p.setString(1, Plan.id("q", t));
            p.setString(2, start.toString());
            time(p, 3, start);
            time(p, 4, start.plus(Duration.ofHours(1)));
            p.setString(5, s.name());
            p.setInt(6, 1);
            p.setInt(7, 0);
            p.setInt(8, 3);
            p.setString(9, "FIRST");
            p.setString(10, s == InstanceStatus.SUCCEEDED ? "ok" : null);
            p.setString(11, s == InstanceStatus.SUCCEEDED ? null : "reason " + s);
            time(p, 12, start);
            time(p, 13, start.plusSeconds(1));
            time(p, 14, s == InstanceStatus.RUNNING ? null : start.plusSeconds(30));
            time(p, 15, start);
            time(p, 16, start.plusSeconds(30));
            p.setLong(17, 3L * w + 3);
            p.addBatch();
            if (++inBatch == 20000) {
              p.executeBatch();
              c.commit();
              inBatch = 0;
            }
          }
        }
        p.executeBatch();
        c.commit();
      }
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute(Db.postgres() ? "ANALYZE almanac_instance" : "ANALYZE");
      }
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }

  private static Map<String, Object> timed(int reps, Supplier<InstancePage> query) {
    for (int i = 0; i < 20; i++) {
      query.get(); // warm-up
    }
    double[] ms = new double[reps];
    long rows = 0;
    for (int i = 0; i < reps; i++) {
      long t0 = System.nanoTime();
      InstancePage page = query.get();
      ms[i] = (System.nanoTime() - t0) / 1e6;
      rows += page.rows().size();
    }
    Map<String, Object> m = Stats.lag(ms);
    m.put("avg_rows", rows / (double) reps);
    return m;
  }

  static Map<String, Object> instanceQuery(int rows, int reps, Path dir) throws Exception {
    Db db = Db.at(dir, "instances");
    Map<String, Object> out = Workloads.head("almanac", "instance-query", null);
    out.put("rows", rows);
    out.put("db", Db.postgres() ? "postgres" : "h2");
    db.createEmpty();
    Config config = ConfigFactory.parseString("pekko.actor.provider = local").withFallback(AlmanacSut.config(db));
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "instance-query", config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
      long fillMs = fill(db, rows);
      out.put("fill_ms", fillMs);
      out.put("fill_rows_per_s", rows / (fillMs / 1000.0));
      Bench.progress("  instance-query: %,d rows in %,d ms", rows, fillMs);
      int hours = rows / TASKS;
      Random rnd = new Random(42);
      Map<String, Object> q = new LinkedHashMap<>();
      try (InstanceQueries queries = InstanceQueries.create(system)) {
        Supplier<Instant> from = () -> BASE.plus(Duration.ofHours(rnd.nextInt(Math.max(1, hours - 24 * 30))));
        q.put("task+status+range (SUCCEEDED, 30 days)", timed(reps, () -> {
          Instant f = from.get();
          return queries.find(InstanceFilter.builder().task(Plan.id("q", rnd.nextInt(TASKS))).status(InstanceStatus.SUCCEEDED)
              .from(f).to(f.plus(Duration.ofDays(30))).limit(100).build());
        }));
        q.put("task+status+range (FINAL_FAILED, 30 days)", timed(reps, () -> {
          Instant f = from.get();
          return queries.find(InstanceFilter.builder().task(Plan.id("q", rnd.nextInt(TASKS))).status(InstanceStatus.FINAL_FAILED)
              .from(f).to(f.plus(Duration.ofDays(30))).limit(100).build());
        }));
        q.put("status+range (SUCCEEDED, 7 days)", timed(reps, () -> {
          Instant f = from.get();
          return queries.find(InstanceFilter.builder().status(InstanceStatus.SUCCEEDED).from(f).to(f.plus(Duration.ofDays(7)))
              .limit(100).build());
        }));
        q.put("status+range (FINAL_FAILED, 7 days)", timed(reps, () -> {
          Instant f = from.get();
          return queries.find(InstanceFilter.builder().status(InstanceStatus.FINAL_FAILED).from(f).to(f.plus(Duration.ofDays(7)))
              .limit(100).build());
        }));
        q.put("2 statuses+range (SKIPPED,MISSED, 7 days)", timed(reps, () -> {
          Instant f = from.get();
          return queries.find(InstanceFilter.builder().status(InstanceStatus.SKIPPED).status(InstanceStatus.MISSED)
              .from(f).to(f.plus(Duration.ofDays(7))).limit(100).build());
        }));
        q.put("status+range, page 2 by cursor (SUCCEEDED, 7 days)", timed(reps, () -> {
          Instant f = from.get();
          InstanceFilter.Builder b = InstanceFilter.builder().status(InstanceStatus.SUCCEEDED).from(f).to(f.plus(Duration.ofDays(7)))
              .limit(100);
          String next = queries.find(b.build()).next();
          return queries.find(b.after(next).build());
        }));
      }
      out.put("queries", q);
      out.put("reps", reps);
      out.put("note", "pages of 100 rows through InstanceQueries.find (one pooled connection per query), 20 warm-ups; "
          + "the page-2 figure includes fetching page 1 first");
      return out;
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
      db.drop();
    }
  }

  static Map<String, Object> projectionLag(int tasks, int seconds, Path dir) throws Exception {
    Db db = Db.at(dir, "projection");
    Recorder rec = new Recorder();
    AlmanacSut sut = new AlmanacSut();
    Map<String, Object> out = Workloads.head("almanac", "projection-lag-" + tasks, sut);
    out.put("db", Db.postgres() ? "postgres" : "h2");
    try {
      db.createEmpty();
      sut.start(db, new Plan.EverySecond(tasks), true, rec);
      InstanceProjection.Handle p = InstanceProjection.start(sut.system());
      Instant from = Workloads.wholeSecondAfter(5000);
      while (System.currentTimeMillis() < from.toEpochMilli()) {
        Thread.sleep(10);
      }
      long offset0 = p.offset();
      long fires0 = rec.snapshot().size();
      List<Double> lag = new ArrayList<>();
      List<Double> apply = new ArrayList<>();
      List<Double> behind = new ArrayList<>();
      long end = from.toEpochMilli() + seconds * 1000L;
      while (System.currentTimeMillis() < end) {
        lag.add((double) p.lag().toMillis());
        behind.add((double) p.lagEvents());
        p.lastApplyDelay().ifPresent(d -> apply.add((double) d.toMillis()));
        Thread.sleep(100);
      }
      long fires = rec.snapshot().size() - fires0;
      long events = p.offset() - offset0;
      out.put("seconds", seconds);
      out.put("fires_per_s", fires / (double) seconds);
      out.put("journal_rows_applied_per_s", events / (double) seconds);
      out.put("lag", Stats.lag(lag.stream().mapToDouble(Double::doubleValue).toArray()));
      out.put("apply_delay", Stats.lag(apply.stream().mapToDouble(Double::doubleValue).toArray()));
      out.put("events_behind", Stats.lag(behind.stream().mapToDouble(Double::doubleValue).toArray()));
      out.put("note", "lag = now - write time of the oldest event seen and not applied, sampled every 100 ms; apply_delay = at "
          + "each commit, its time minus the write time of the oldest event it applied (includes the 200 ms poll interval); "
          + "events_behind = journal head - offset (journal rows of every persistence id)");
      p.stop();
      return out;
    } finally {
      sut.close();
      db.drop();
    }
  }
}
