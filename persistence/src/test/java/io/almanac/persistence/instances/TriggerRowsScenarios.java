package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.EventTrigger;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.EventDuplicated;
import io.almanac.journal.TaskJournal.EventReceived;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.WaitEnded;
import io.almanac.journal.TaskJournal.WaitSatisfied;
import io.almanac.journal.TaskJournal.WindowWaiting;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.ProjectionWorker.Progress;
import io.almanac.testkit.SettableClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;

/**
 * The instance table with the journal events of event, dependency and condition triggers, on
 * whichever database the configuration names: WAITING windows (with their wait_until), a window
 * released and run, one skipped DEPENDENCY_NOT_MET, and an event storm coalesced into one window
 * (its counts and first and last ids). The live projection's rows agree with the tasks' own views
 * (the journal folded by {@link Evolve}), a rebuild gives the same table row for row, and a
 * database whose tables predate the new columns gets them at bootstrap.
 */
public final class TriggerRowsScenarios {

  private TriggerRowsScenarios() {}

  static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  static final Instant DAY_END = T0.plus(Duration.ofDays(1));

  /** The columns added for triggers. */
  static final List<String> ADDED = List.of("wait_until", "event_count", "event_duplicates", "first_event_id",
      "last_event_id", "tokens_in", "tokens_out", "cost", "model");

  static Map<String, List<TaskJournal.Event>> journals() {
    Map<String, List<TaskJournal.Event>> out = new java.util.LinkedHashMap<>();
    List<TaskJournal.Event> report = new ArrayList<>();
    report.add(new SpecDefined(SpecRecord.of(TaskSpec.builder("report").cron("0 0 8 * * ? UTC").maxRetries(2).build()),
        T0.minusSeconds(3600)));
    // waiting, still
    report.add(new WindowWaiting("2026-11-29", T0, DAY_END, T0, RunKind.FIRST, "upstream order-export (SAME_WINDOW)",
        T0.plus(Duration.ofHours(6)), T0));
    // waited, released, ran
    Instant d2 = T0.minus(Duration.ofDays(1));
    report.add(new WindowWaiting("2026-11-28", d2, T0, d2, RunKind.FIRST, "upstream order-export (SAME_WINDOW)",
        d2.plus(Duration.ofHours(6)), d2));
    report.add(new WaitSatisfied("2026-11-28", "upstream order-export succeeded for 2026-11-28", d2.plusSeconds(600)));
    report.add(new InstanceScheduled("2026-11-28", d2, T0, d2, RunKind.FIRST, d2.plusSeconds(600)));
    report.add(new AttemptStarted("2026-11-28", 1, RunKind.FIRST, d2.plusSeconds(4200), "n1", d2.plusSeconds(601)));
    report.add(new AttemptSucceeded("2026-11-28", 1, Duration.ofSeconds(5), "ok", null, d2.plusSeconds(606),
        new io.almanac.journal.UsageRecord("gpt-4o", 1_200, 300, 420_000)));
    // a late result's usage adds to the window's (the money was spent); it names no model: the last one stays
    report.add(new TaskJournal.LateResultRecorded("2026-11-28", 1, io.almanac.JobResult.Outcome.SUCCEEDED, "late",
        d2.plusSeconds(700), new io.almanac.journal.UsageRecord(null, 100, 50, 80_000)));
    // waited until its deadline: DEPENDENCY_NOT_MET
    Instant d3 = T0.minus(Duration.ofDays(2));
    report.add(new WindowWaiting("2026-11-27", d3, d2, d3, RunKind.FIRST, "upstream order-export (SAME_WINDOW)",
        d3.plus(Duration.ofHours(6)), d3));
    report.add(new WaitEnded("2026-11-27", SkipReason.DEPENDENCY_NOT_MET, "upstream order-export window 2026-11-27 is "
        + "FAILED", d3.plus(Duration.ofHours(6))));
    out.put("report", report);

    List<TaskJournal.Event> sync = new ArrayList<>();
    sync.add(new SpecDefined(SpecRecord.of(TaskSpec.builder("sync").onEvent(EventTrigger.of("order.paid")).zone("UTC")
        .window("hourly").build()), T0.minusSeconds(3600)));
    sync.add(new InstanceScheduled("2026-11-29-00", T0, T0.plusSeconds(3600), T0, RunKind.FIRST, T0));
    for (int i = 0; i < 50; i++) {
      Instant at = T0.plusMillis(i);
      sync.add(i % 5 == 0 || i < 5 ? new EventReceived("2026-11-29-00", "order.paid", "e" + i, at, "order " + i, at)
          : new EventDuplicated("2026-11-29-00", "e" + (i - i % 5), at));
    }
    sync.add(new WindowWaiting("2026-11-29-01", T0.plusSeconds(3600), T0.plusSeconds(7200), T0.plusSeconds(3600),
        RunKind.FIRST, "condition settlement-file", T0.plusSeconds(7200), T0.plusSeconds(3600)));
    sync.add(new EventReceived("2026-11-29-01", "order.paid", "x1", T0.plusSeconds(3600), null, T0.plusSeconds(3600)));
    out.put("sync", sync);
    return out;
  }

  /**
   * Runs the scenario.
   *
   * @param name the ActorSystem's name
   * @param config the database's configuration
   */
  public static void run(String name, Config config) throws Exception {
    SettableClock clock = new SettableClock(T0.plus(Duration.ofDays(1)));
    ActorTestKit kit = ActorTestKit.create(name, config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
      JournalDb db = JournalDb.of(kit.system());
      InstanceStore store = InstanceStore.of(kit.system().settings().config());

      // A database whose tables predate the new columns gets them at bootstrap; a second bootstrap changes nothing.
      try (Connection c = db.connect(); Statement s = c.createStatement()) {
        for (String table : List.of(InstanceStore.LIVE, InstanceStore.HISTORY)) {
          for (String col : ADDED) {
            s.execute("ALTER TABLE " + table + " DROP COLUMN " + col);
          }
          assertTrue(columns(c, table).stream().noneMatch(ADDED::contains), table);
        }
        if (!c.getAutoCommit()) {
          c.commit();
        }
      }
      SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
      SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
      try (Connection c = db.connect()) {
        for (String table : List.of(InstanceStore.LIVE, InstanceStore.HISTORY)) {
          assertTrue(columns(c, table).containsAll(ADDED), table + ": " + columns(c, table));
        }
      }

      Map<String, List<TaskJournal.Event>> journals = journals();
      journals.forEach((task, events) -> write(kit, task, events));

      // The live projection's worker catches up: its rows are the tasks' own views.
      Serialization ser = SerializationExtension.get(Adapter.toClassic(kit.system()));
      ProjectionWorker worker = new ProjectionWorker("test", store, (b, id, m) -> ser.deserialize(b, id, m).get(),
          InstanceSettings.from(kit.system().settings().config()), new Progress());
      Map<String, InstanceRow> live;
      try (Connection c = db.connect()) {
        ProjectionWorker.Step step;
        do {
          step = worker.step(c, clock.instant());
        } while (step.more());
        live = byKey(InstanceTableScenarios.rows(c));
      }
      Map<String, WindowView> views = new HashMap<>();
      journals.forEach((task, events) -> {
        TaskJournal.State s = Evolve.replay(events, new HotState(1000, Duration.ofDays(3650)), Evolve.Violations.IGNORE, 8);
        s.windows().values().forEach(w -> views.put(task + "/" + w.key(), w.view(task, s.spec().retry().maxRetries())));
      });
      assertEquals(views.keySet(), live.keySet());
      views.forEach((k, v) -> assertAgrees(v, live.get(k)));

      InstanceRow waiting = live.get("report/2026-11-29");
      assertEquals(InstanceStatus.WAITING, waiting.status());
      assertEquals(T0.plus(Duration.ofHours(6)), waiting.waitUntil());
      assertEquals("waiting for upstream order-export (SAME_WINDOW)", waiting.failReason());
      InstanceRow ran = live.get("report/2026-11-28");
      assertEquals(InstanceStatus.SUCCEEDED, ran.status());
      assertNull(ran.waitUntil(), "only a WAITING row has a wait_until");
      assertEquals(1_300, ran.tokensIn(), ran.toString());
      assertEquals(350, ran.tokensOut(), ran.toString());
      assertEquals(0, new java.math.BigDecimal("0.50").compareTo(ran.cost()), ran.toString());
      assertEquals("gpt-4o", ran.model());
      assertNull(live.get("report/2026-11-27").cost(), "no usage reported: cost null, tokens 0");
      assertEquals(0, live.get("report/2026-11-27").tokensIn());
      InstanceRow notMet = live.get("report/2026-11-27");
      assertEquals(InstanceStatus.SKIPPED, notMet.status());
      assertNull(notMet.waitUntil());
      assertTrue(notMet.failReason().startsWith("DEPENDENCY_NOT_MET: upstream order-export"), notMet.failReason());
      InstanceRow storm = live.get("sync/2026-11-29-00");
      assertEquals(14, storm.eventCount(), storm.toString());
      assertEquals(36, storm.eventDuplicates(), storm.toString());
      assertEquals("e0", storm.firstEventId());
      assertEquals("e45", storm.lastEventId());
      InstanceRow waitingWithEvent = live.get("sync/2026-11-29-01");
      assertEquals(InstanceStatus.WAITING, waitingWithEvent.status());
      assertEquals(1, waitingWithEvent.eventCount());
      assertEquals("x1", waitingWithEvent.firstEventId());
      assertEquals(0, live.get("report/2026-11-29").eventCount());

      // WAITING rows are found by status.
      try (InstanceQueries q = InstanceQueries.create(kit.system())) {
        List<InstanceRow> found = InstanceTableScenarios.all(q,
            InstanceFilter.builder().status(InstanceStatus.WAITING), false);
        assertEquals(List.of("report/2026-11-29", "sync/2026-11-29-01"),
            found.stream().map(r -> r.taskId() + "/" + r.windowKey()).sorted().toList());
        assertEquals(T0.plus(Duration.ofHours(6)), q.row("report", "2026-11-29").orElseThrow().waitUntil());
      }

      // A rebuild gives the same table, row for row.
      InstanceRebuild.Result r = InstanceRebuild.run(kit.system(), clock);
      assertEquals(live.size(), r.rows(), r.toString());
      try (Connection c = db.connect()) {
        assertEquals(live, byKey(InstanceTableScenarios.rows(c)));
      }

      // Retention moves done rows with their new columns to the history table.
      SettableClock later = new SettableClock(T0.plus(Duration.ofDays(400)));
      InstanceRebuild.Result moved = InstanceRebuild.run(kit.system(), later);
      assertTrue(moved.moved() > 0, moved.toString());
      try (InstanceQueries q = InstanceQueries.create(kit.system())) {
        InstanceRow h = q.row("sync", "2026-11-29-00").orElse(null);
        assertNotNull(h);
        if (h.movedAt() != null) {
          assertEquals(live.get("sync/2026-11-29-00"), h.live());
        }
        InstanceRow hr = q.row("report", "2026-11-27").orElseThrow();
        assertNotNull(hr.movedAt(), hr.toString());
        assertEquals(live.get("report/2026-11-27"), hr.live());
      }
    } finally {
      kit.shutdownTestKit();
    }
  }

  private static void assertAgrees(WindowView v, InstanceRow r) {
    assertNotNull(r, v.toString());
    String what = v.taskId() + " " + v.window().value();
    assertEquals(v.start(), r.windowStart(), what);
    assertEquals(v.end(), r.windowEnd(), what);
    assertEquals(v.dueAt(), r.scheduledAt(), what);
    assertEquals(v.status(), r.status(), what);
    assertEquals(v.runKind(), r.runKind(), what);
    assertEquals(v.attempt(), r.attempt(), what);
    assertEquals(v.reason(), r.failReason(), what);
    assertEquals(v.createdAt(), r.createdAt(), what);
    assertEquals(v.updatedAt(), r.updatedAt(), what);
    assertEquals(v.waitUntil(), r.waitUntil(), what);
    WindowView.Events e = v.events();
    assertEquals(e == null ? 0 : e.received(), r.eventCount(), what);
    assertEquals(e == null ? 0 : e.duplicates(), r.eventDuplicates(), what);
    assertEquals(e == null ? null : e.firstId(), r.firstEventId(), what);
    assertEquals(e == null ? null : e.lastId(), r.lastEventId(), what);
  }

  private static Map<String, InstanceRow> byKey(List<InstanceRow> rows) {
    Map<String, InstanceRow> out = new HashMap<>();
    rows.forEach(r -> out.put(r.taskId() + "/" + r.windowKey(), r));
    return out;
  }

  private static void write(ActorTestKit kit, String task, List<TaskJournal.Event> events) {
    ActorRef<EventWriter.Write> w = kit.spawn(EventWriter.create(task));
    TestProbe<Done> probe = kit.createTestProbe();
    w.tell(new EventWriter.Write(events, probe.getRef()));
    probe.expectMessage(Duration.ofSeconds(30), Done.getInstance());
    kit.stop(w);
  }

  private static List<String> columns(Connection c, String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (java.sql.ResultSet rs = c.getMetaData().getColumns(null, c.getSchema(), table, null)) {
      while (rs.next()) {
        out.add(rs.getString("COLUMN_NAME").toLowerCase(java.util.Locale.ROOT));
      }
    }
    return out;
  }
}
