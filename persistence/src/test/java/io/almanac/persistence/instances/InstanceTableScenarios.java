package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;

/**
 * The instance table's end-to-end scenario, on whichever database the configuration names (H2 file
 * or PostgreSQL): a real node runs two tasks on a SettableClock (successes, a retry, a final
 * failure, a skip while paused, missed firings); the live projection (a cluster singleton, the node
 * being a one-node cluster) catches up and its rows agree with the tasks' own views; a rebuild on
 * the running node, and one with its own ActorSystem after the node stopped, give the same table
 * row for row; retention then moves done rows to the history table, still queryable.
 */
public final class InstanceTableScenarios {

  private InstanceTableScenarios() {}

  /** Extra configuration for a fast node and projection. */
  public static final String FAST = String.join("\n",
      "include \"almanac-embedded.conf\"",
      "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
      "almanac.executor { check-interval = 20ms }",
      "almanac.instances { poll-interval = 20ms, gap-wait = 500ms, batch-size = 7 }");

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  /**
   * Runs the scenario.
   *
   * @param name the ActorSystem's name
   * @param config a configuration with {@link #FAST} and the database
   */
  public static void liveThenRebuild(String name, Config config) throws Exception {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
    ActorTestKit node = ActorTestKit.create(name, config);
    Map<String, InstanceRow> live;
    try {
      SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
      AgentJob job = ctx -> {
        String w = ctx.window().value();
        boolean fail = w.equals("2026-12-01") || (w.equals("2026-11-30") && ctx.attempt() == 1);
        return CompletableFuture.completedFuture(fail ? JobResult.failure("upstream 503") : JobResult.success("digest " + w));
      };
      Almanac almanac = Almanac.builder(node.system()).clock(clock).job("j", job).start();
      InstanceProjection.Handle projection = InstanceProjection.start(node.system(), clock);
      await(almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("j")
          .retry(RetryPolicy.immediate()).maxRetries(1).build()));
      await(almanac.register(TaskSpec.builder("report").cron("0 0 */6 * * ? UTC").window(WindowSpec.PER_FIRING).job("j")
          .build()));
      clock.set(Instant.parse("2026-11-29T00:00:00Z"));
      eventuallyStatus(node, almanac, "digest", "2026-11-29", InstanceStatus.SUCCEEDED);
      // the report due at the same instant runs before the clock jumps a day (its lease would end meanwhile)
      eventuallyStatus(node, almanac, "report", "2026-11-29T00:00:00Z", InstanceStatus.SUCCEEDED);
      clock.set(Instant.parse("2026-11-30T00:00:00Z"));
      eventuallyStatus(node, almanac, "digest", "2026-11-30", InstanceStatus.SUCCEEDED);
      // the report due at the same instant runs before the clock jumps a day (its lease would end meanwhile)
      eventuallyStatus(node, almanac, "report", "2026-11-30T00:00:00Z", InstanceStatus.SUCCEEDED);
      clock.set(Instant.parse("2026-12-01T00:00:00Z"));
      eventuallyStatus(node, almanac, "digest", "2026-12-01", InstanceStatus.FINAL_FAILED);
      // the report due at the same instant runs before the clock jumps a day (its lease would end meanwhile)
      eventuallyStatus(node, almanac, "report", "2026-12-01T00:00:00Z", InstanceStatus.SUCCEEDED);
      await(almanac.pause("digest"));
      clock.set(Instant.parse("2026-12-02T00:00:00Z"));
      eventuallyStatus(node, almanac, "digest", "2026-12-02", InstanceStatus.SKIPPED);
      // the report due at the same instant runs before the clock jumps a day (its lease would end meanwhile)
      eventuallyStatus(node, almanac, "report", "2026-12-02T00:00:00Z", InstanceStatus.SUCCEEDED);
      await(almanac.resume("digest"));
      clock.set(Instant.parse("2026-12-03T00:00:00Z"));
      eventuallyStatus(node, almanac, "digest", "2026-12-03", InstanceStatus.SUCCEEDED);
      eventuallyStatus(node, almanac, "report", "2026-12-03T00:00:00Z", InstanceStatus.SUCCEEDED);

      // The table catches up and agrees with the tasks' own views, field by field.
      TestProbe<Object> probe = node.createTestProbe();
      try (InstanceQueries q = InstanceQueries.create(node.system())) {
        probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(50), () -> {
          assertAgrees(almanac, q, "digest");
          assertAgrees(almanac, q, "report");
          // the projection has also read the journal's last events (the table can agree before it has
          // taken the trigger's own bookkeeping: a lag of 0.12 s was seen once right after agreeing)
          assertEquals(Duration.ZERO, projection.lag());
          return null;
        });
        assertTrue(projection.runningHere());
        live = snapshot(q, false);
        assertTrue(live.values().stream().anyMatch(r -> r.status() == InstanceStatus.MISSED), live.toString());
        assertEquals(5, live.values().stream().filter(r -> r.taskId().equals("digest")).count(), live.toString());
        InstanceRow retried = q.row("digest", "2026-11-30").orElseThrow();
        assertEquals(2, retried.attempt());
        assertEquals(1, retried.retryCount());
        assertEquals(1, retried.maxRetry());
        assertNotNull(retried.finishedAt());
        assertEquals("digest 2026-11-30", retried.resultSummary());

        // A rebuild on the running node gives the same table.
        projection.stop();
        probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
          assertTrue(!projection.runningHere());
          return null;
        });
        InstanceRebuild.Result r = InstanceRebuild.run(node.system(), clock);
        assertEquals(live.size(), r.rows(), r.toString());
        assertEquals(0, r.moved(), r.toString());
        assertEquals(live, snapshot(q, false));
      }
    } finally {
      node.shutdownTestKit();
    }

    // A rebuild with its own ActorSystem (as the CLI runs it), the node stopped: the same table;
    // then 91 days on, retention moves the done rows to the history table.
    InstanceRebuild.Result r = InstanceRebuild.run(config, clock);
    assertEquals(live.size(), r.rows(), r.toString());
    ActorTestKit reader = ActorTestKit.create(name + "-reader", config);
    try (InstanceQueries q = InstanceQueries.create(reader.system())) {
      assertEquals(live, snapshot(q, false));
      clock.set(Instant.parse("2026-12-03T00:00:00Z").plus(Duration.ofDays(91)));
      InstanceRebuild.Result later = InstanceRebuild.run(reader.system(), clock);
      Map<String, InstanceRow> left = snapshot(q, false);
      Map<String, InstanceRow> history = snapshot(q, true);
      assertEquals(live.size(), left.size() + history.size());
      assertEquals(later.moved(), history.size());
      assertTrue(left.values().stream().allMatch(x -> x.status() == InstanceStatus.FINAL_FAILED), left.toString());
      assertEquals(1, left.size(), left.toString());
      for (InstanceRow h : history.values()) {
        assertEquals(clock.instant(), h.movedAt());
        assertEquals(live.get(h.taskId() + "/" + h.windowKey()), h.live());
      }
      // A row moved to the history table is still found by row().
      assertEquals(clock.instant(), q.row("digest", "2026-11-29").orElseThrow().movedAt());
      assertNull(q.row("digest", "2026-12-01").orElseThrow().movedAt());
    } finally {
      reader.shutdownTestKit();
    }
  }

  private static void eventuallyStatus(ActorTestKit node, Almanac almanac, String task, String window, InstanceStatus status) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      Map<String, WindowView> byKey = await(almanac.windows(task)).stream()
          .collect(Collectors.toMap(w -> w.window().value(), w -> w));
      assertEquals(status, byKey.containsKey(window) ? byKey.get(window).status() : null, task + " " + window);
      return null;
    });
  }

  private static void assertAgrees(Almanac almanac, InstanceQueries q, String task) {
    List<WindowView> views = await(almanac.windows(task));
    List<InstanceRow> rows = all(q, InstanceFilter.builder().task(task), false);
    assertEquals(views.size(), rows.size(), task + ": " + views + " vs " + rows);
    Map<String, InstanceRow> byKey = new HashMap<>();
    rows.forEach(r -> byKey.put(r.windowKey(), r));
    for (WindowView v : views) {
      InstanceRow r = byKey.get(v.window().value());
      assertNotNull(r, v.toString());
      String what = task + " " + v.window().value();
      assertEquals(v.start(), r.windowStart(), what);
      assertEquals(v.end(), r.windowEnd(), what);
      assertEquals(v.dueAt(), r.scheduledAt(), what);
      assertEquals(v.status(), r.status(), what);
      assertEquals(v.runKind(), r.runKind(), what);
      assertEquals(v.attempt(), r.attempt(), what);
      assertEquals(v.retries(), r.retryCount(), what);
      assertEquals(v.maxRetries(), r.maxRetry(), what);
      assertEquals(v.summary(), r.resultSummary(), what);
      assertEquals(v.reason(), r.failReason(), what);
      assertEquals(v.reasonCode(), r.reasonCode(), what);
      assertEquals(v.createdAt(), r.createdAt(), what);
      assertEquals(v.updatedAt(), r.updatedAt(), what);
      assertEquals(v.waitUntil(), r.waitUntil(), what);
      assertEquals(v.events() == null ? 0 : v.events().received(), r.eventCount(), what);
      assertEquals(v.events() == null ? 0 : v.events().duplicates(), r.eventDuplicates(), what);
    }
  }

  /** Every row, read page by page with a small limit (the paging is part of what is checked). */
  static List<InstanceRow> all(InstanceQueries q, InstanceFilter.Builder filter, boolean history) {
    List<InstanceRow> out = new ArrayList<>();
    String after = null;
    do {
      InstancePage page = q.find(filter.limit(3).history(history).after(after).build());
      out.addAll(page.rows());
      after = page.next();
    } while (after != null);
    return out;
  }

  /** The whole table by "task/window". */
  static Map<String, InstanceRow> snapshot(InstanceQueries q, boolean history) {
    Map<String, InstanceRow> out = new HashMap<>();
    for (InstanceRow r : all(q, InstanceFilter.builder(), history)) {
      InstanceRow previous = out.put(r.taskId() + "/" + r.windowKey(), r);
      assertNull(previous, "a row twice in the pages: " + r);
    }
    return out;
  }

  /** The whole live table through a plain connection, ordered by key. */
  static List<InstanceRow> rows(Connection c) throws SQLException {
    List<InstanceRow> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT " + InstanceStore.COLUMNS + " FROM almanac_instance ORDER BY task_id, window_key");
        ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        out.add(InstanceStore.read(rs, false));
      }
    }
    return out;
  }

}
