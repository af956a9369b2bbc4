package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.InstanceStatus;
import io.almanac.PoolWaitReason;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.DeadlineMissed;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.PoolWaited;
import io.almanac.journal.TaskJournal.SpecDefined;
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
 * The instance table's missed deadlines and pool waits, on whichever database the configuration
 * names: a {@link DeadlineMissed} sets {@code deadline_missed_at} (and it stays when the window then
 * succeeds); a {@link PoolWaited} sets {@code pool_wait_pool/reason/until} on a PENDING window, and
 * they are cleared when the window starts or is cancelled. The live projection's rows agree with the
 * tasks' own views, a rebuild gives the same table row for row, retention keeps the columns in the
 * history table, and a database whose tables predate the columns gets them at bootstrap.
 */
public final class DeadlinePoolRowsScenarios {

  private DeadlinePoolRowsScenarios() {}

  static final Instant T0 = Instant.parse("2026-11-29T08:00:00Z");

  /** The columns added for deadlines and pool waits, and the typed reason code (added after them, dropped with them). */
  static final List<String> ADDED = List.of("deadline_missed_at", "pool_wait_pool", "pool_wait_reason", "pool_wait_until",
      "reason_code");

  static Map<String, List<TaskJournal.Event>> journals() {
    Map<String, List<TaskJournal.Event>> out = new java.util.LinkedHashMap<>();
    List<TaskJournal.Event> digest = new ArrayList<>();
    digest.add(new SpecDefined(SpecRecord.of(TaskSpec.builder("digest").cron("0 0 8 * * ? UTC").job("j")
        .deadline(Duration.ofHours(1)).buildUnvalidated()), T0.minus(Duration.ofDays(5))));
    // waits for a paused pool, still pending, and missed its deadline while waiting
    digest.add(new InstanceScheduled("2026-11-29", T0, T0.plus(Duration.ofDays(1)), T0, RunKind.FIRST, T0));
    digest.add(new PoolWaited("2026-11-29", "openai", PoolWaitReason.PAUSED, T0.plusSeconds(300), T0.plusSeconds(1)));
    digest.add(new DeadlineMissed("2026-11-29", T0, T0.plus(Duration.ofHours(1)), InstanceStatus.PENDING, 0,
        T0.plus(Duration.ofHours(1))));
    // waited for a full pool, then started and succeeded late: the wait is cleared, the mark stays
    Instant d2 = T0.minus(Duration.ofDays(1));
    digest.add(new InstanceScheduled("2026-11-28", d2, T0, d2, RunKind.FIRST, d2));
    digest.add(new PoolWaited("2026-11-28", "openai", PoolWaitReason.FULL, null, d2.plusSeconds(1)));
    digest.add(new DeadlineMissed("2026-11-28", d2, d2.plus(Duration.ofHours(1)), InstanceStatus.PENDING, 0,
        d2.plus(Duration.ofHours(1))));
    digest.add(new AttemptStarted("2026-11-28", 1, RunKind.FIRST, d2.plus(Duration.ofHours(2)), "n1",
        d2.plus(Duration.ofMinutes(70))));
    digest.add(new AttemptSucceeded("2026-11-28", 1, Duration.ofSeconds(5), "ok", null, d2.plus(Duration.ofMinutes(71)),
        new io.almanac.journal.UsageRecord("gpt-4o", 900, 100, 30_000)));
    // waited for a pool's rate, then cancelled: the wait is cleared
    Instant d3 = T0.minus(Duration.ofDays(2));
    digest.add(new InstanceScheduled("2026-11-27", d3, d2, d3, RunKind.FIRST, d3));
    digest.add(new PoolWaited("2026-11-27", "search", PoolWaitReason.RATE, d3.plusSeconds(2), d3.plusSeconds(1)));
    digest.add(new InstanceCancelled("2026-11-27", 0, "operator", d3.plusSeconds(10), null));
    out.put("digest", digest);
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

      // A database whose tables predate the columns gets them at bootstrap; a second bootstrap changes nothing.
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

      InstanceRow waiting = live.get("digest/2026-11-29");
      assertEquals(InstanceStatus.PENDING, waiting.status());
      assertEquals("openai", waiting.poolWaitPool());
      assertEquals(PoolWaitReason.PAUSED, waiting.poolWaitReason());
      assertEquals(T0.plusSeconds(300), waiting.poolWaitUntil());
      assertEquals(T0.plus(Duration.ofHours(1)), waiting.deadlineMissedAt());
      InstanceRow late = live.get("digest/2026-11-28");
      assertEquals(InstanceStatus.SUCCEEDED, late.status());
      assertNull(late.poolWaitPool(), "the wait is cleared when the window starts: " + late);
      assertNull(late.poolWaitReason());
      assertEquals(d2().plus(Duration.ofHours(1)), late.deadlineMissedAt(), "the mark stays after the success");
      assertEquals(900, late.tokensIn());
      InstanceRow cancelled = live.get("digest/2026-11-27");
      assertEquals(InstanceStatus.CANCELLED, cancelled.status());
      assertNull(cancelled.poolWaitPool(), "the wait is cleared when the window ends: " + cancelled);
      assertNull(cancelled.poolWaitUntil());
      assertNull(cancelled.deadlineMissedAt());

      try (InstanceQueries q = InstanceQueries.create(kit.system())) {
        assertEquals(waiting, q.row("digest", "2026-11-29").orElseThrow());
      }

      // A rebuild gives the same table, row for row.
      InstanceRebuild.Result r = InstanceRebuild.run(kit.system(), clock);
      assertEquals(live.size(), r.rows(), r.toString());
      try (Connection c = db.connect()) {
        assertEquals(live, byKey(InstanceTableScenarios.rows(c)));
      }

      // Retention moves done rows with the columns to the history table.
      InstanceRebuild.Result moved = InstanceRebuild.run(kit.system(), new SettableClock(T0.plus(Duration.ofDays(400))));
      assertTrue(moved.moved() > 0, moved.toString());
      try (InstanceQueries q = InstanceQueries.create(kit.system())) {
        InstanceRow h = q.row("digest", "2026-11-28").orElseThrow();
        assertNotNull(h.movedAt(), h.toString());
        assertEquals(live.get("digest/2026-11-28"), h.live());
      }
    } finally {
      kit.shutdownTestKit();
    }
  }

  private static Instant d2() {
    return T0.minus(Duration.ofDays(1));
  }

  private static void assertAgrees(WindowView v, InstanceRow r) {
    assertNotNull(r, v.toString());
    String what = v.taskId() + " " + v.window().value();
    assertEquals(v.status(), r.status(), what);
    assertEquals(v.reason(), r.failReason(), what);
    assertEquals(v.deadlineMissedAt(), r.deadlineMissedAt(), what);
    WindowView.PoolWait p = v.poolWait();
    assertEquals(p == null ? null : p.pool(), r.poolWaitPool(), what);
    assertEquals(p == null ? null : p.reason(), r.poolWaitReason(), what);
    assertEquals(p == null ? null : p.until(), r.poolWaitUntil(), what);
    WindowView.Usage u = v.usage();
    assertEquals(u == null ? 0 : u.tokensIn(), r.tokensIn(), what);
    assertEquals(u == null ? 0 : u.tokensOut(), r.tokensOut(), what);
    assertEquals(u == null ? null : u.model(), r.model(), what);
    assertTrue(u == null ? r.cost() == null : u.cost().compareTo(r.cost()) == 0, what);
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
