package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.ProjectionWorker.Progress;
import io.almanac.testkit.SettableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The projection's guarantees on a real H2 file, with events written to the journal as a task
 * writes them: a batch commits rows and offset together or not at all; a replay from an earlier
 * offset leaves the table as it was; a hole left by an uncommitted insert is waited for (its events
 * are not lost) and a hole for good is passed after the gap wait; a failing database is retried
 * with a back-off and one warning, and the node goes on.
 */
@ExtendWith(LogCapturingExtension.class)
class InstanceProjectionH2Test {

  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  @TempDir Path dir;
  private ActorTestKit kit;
  private JournalDb db;
  private InstanceStore store;

  @BeforeEach
  void start() {
    kit = ActorTestKit.create("projection-h2", InstanceTableH2Test.h2(dir.resolve("almanac"), String.join("\n",
        "almanac.instances { poll-interval = 20ms, failure-backoff-min = 50ms, failure-backoff-max = 100ms, batch-size = 3 }")));
    SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
    db = JournalDb.of(kit.system());
    store = InstanceStore.of(kit.system().settings().config());
  }

  @AfterEach
  void stop() {
    kit.shutdownTestKit();
  }

  private ProjectionWorker worker(Duration gapWait) {
    Serialization ser = SerializationExtension.get(Adapter.toClassic(kit.system()));
    InstanceSettings s = InstanceSettings.from(kit.system().settings().config());
    InstanceSettings settings = new InstanceSettings(true, s.pollInterval(), 3, gapWait, s.failureBackoffMin(),
        s.failureBackoffMax(), s.retention(), s.retentionInterval(), s.retentionBatchSize());
    return new ProjectionWorker("test", store, (b, id, m) -> ser.deserialize(b, id, m).get(), settings, new Progress());
  }

  private void write(String task, TaskJournal.Event... events) {
    ActorRef<EventWriter.Write> w = kit.spawn(EventWriter.create(task));
    TestProbe<Done> probe = kit.createTestProbe();
    w.tell(new EventWriter.Write(List.of(events), probe.getRef()));
    probe.expectMessage(Duration.ofSeconds(10), Done.getInstance());
    kit.stop(w);
  }

  private static TaskJournal.Event spec(String task, int maxRetries) {
    return new TaskJournal.SpecDefined(SpecRecord.of(TaskSpec.builder(task).cron("0 0 8 * * ? UTC")
        .retry(io.almanac.RetryPolicy.immediate()).maxRetries(maxRetries).build()), T0);
  }

  private static InstanceScheduled scheduled(String window, int minutes) {
    return new InstanceScheduled(window, T0, T0.plus(Duration.ofDays(1)), T0, RunKind.FIRST, T0.plus(Duration.ofMinutes(minutes)));
  }

  /** Steps until the worker has applied the journal's head. */
  private void catchUp(ProjectionWorker w, Connection c) throws SQLException {
    ProjectionWorker.Step s;
    do {
      s = w.step(c, T0);
    } while (s.more());
  }

  @Test
  void aBatchCommitsRowsAndOffsetTogetherOrNotAtAll() throws Exception {
    write("t", spec("t", 2), scheduled("A", 1), scheduled("B", 2));
    ProjectionWorker w = worker(Duration.ZERO);
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      s.execute("ALTER TABLE almanac_instance ADD CONSTRAINT no_b CHECK (window_key <> 'B')");
      assertThrows(SQLException.class, () -> w.step(c, T0));
      assertEquals(0, store.offset(c, "test"), "the offset did not move");
      assertEquals(List.of(), InstanceTableScenarios.rows(c), "no row of the failed batch was kept");
      s.execute("ALTER TABLE almanac_instance DROP CONSTRAINT no_b");
      catchUp(w, c);
      List<InstanceRow> rows = InstanceTableScenarios.rows(c);
      assertEquals(List.of("A", "B"), rows.stream().map(InstanceRow::windowKey).toList());
      assertEquals(2, rows.get(0).maxRetry(), "the cap from the task's spec");
      assertEquals(store.head(c), store.offset(c, "test"));
    }
  }

  @Test
  void aReplayFromAnEarlierOffsetLeavesTheTableAsItWas() throws Exception {
    write("t", spec("t", 1), scheduled("A", 1), new AttemptStarted("A", 1, RunKind.FIRST, T0.plusSeconds(600), "n", T0.plusSeconds(120)),
        new AttemptSucceeded("A", 1, Duration.ofSeconds(5), "ok", null, T0.plusSeconds(125)), scheduled("B", 3));
    write("u", spec("u", 0), scheduled("C", 1));
    ProjectionWorker w = worker(Duration.ZERO);
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      catchUp(w, c);
      List<InstanceRow> before = InstanceTableScenarios.rows(c);
      assertEquals(3, before.size());
      assertEquals(InstanceStatus.SUCCEEDED, before.get(0).status());
      for (long from : new long[] {0, 2, 4}) {
        s.executeUpdate("UPDATE almanac_projection_offset SET current_offset = " + from);
        catchUp(w, c); // this worker notices the stored offset moved
        assertEquals(before, InstanceTableScenarios.rows(c), "replayed from " + from);
        s.executeUpdate("UPDATE almanac_projection_offset SET current_offset = " + from);
        catchUp(worker(Duration.ZERO), c); // and a fresh one
        assertEquals(before, InstanceTableScenarios.rows(c), "replayed from " + from + " by a new worker");
      }
    }
  }

  /** Inserts a journal row for task 'late' in an open transaction of {@code c}: a hole for everyone else. */
  private void insertUncommitted(Connection c) throws SQLException {
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.executeUpdate("INSERT INTO event_journal (deleted, persistence_id, sequence_number, writer, write_timestamp, "
          + "adapter_manifest, event_payload, event_ser_id, event_ser_manifest) SELECT deleted, 'task|late', 1, writer, "
          + "write_timestamp, adapter_manifest, event_payload, event_ser_id, event_ser_manifest FROM event_journal "
          + "WHERE persistence_id = 'task|t' AND sequence_number = 1");
    }
  }

  @Test
  void aHoleOfAnUncommittedInsertIsWaitedForAndItsEventIsApplied() throws Exception {
    write("t", scheduled("A", 1));
    ProjectionWorker w = worker(Duration.ofMinutes(10));
    try (Connection c = db.connect(); Connection other = db.connect()) {
      catchUp(w, c);
      insertUncommitted(other);
      write("t", scheduled("B", 2));
      long hole = store.head(c) - 1;
      catchUp(w, c);
      assertEquals(hole - 1, w.offset(), "stopped before the hole");
      assertEquals(List.of("A"), InstanceTableScenarios.rows(c).stream().map(InstanceRow::windowKey).toList());
      other.commit();
      catchUp(w, c);
      assertEquals(store.head(c), w.offset());
      assertEquals(List.of("late/A", "t/A", "t/B"),
          InstanceTableScenarios.rows(c).stream().map(r -> r.taskId() + "/" + r.windowKey()).toList());
    }
  }

  @Test
  void aHoleForGoodIsPassedAfterTheGapWait() throws Exception {
    write("t", scheduled("A", 1));
    ProjectionWorker w = worker(Duration.ofMillis(300));
    try (Connection c = db.connect(); Connection other = db.connect()) {
      catchUp(w, c);
      insertUncommitted(other);
      other.rollback();
      write("t", scheduled("B", 2));
      TestProbe<Object> probe = kit.createTestProbe();
      probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(50), () -> {
        try {
          catchUp(w, c);
          assertEquals(store.head(c), w.offset());
        } catch (SQLException e) {
          throw new AssertionError(e);
        }
        return null;
      });
      assertEquals(List.of("A", "B"), InstanceTableScenarios.rows(c).stream().map(InstanceRow::windowKey).toList());
    }
  }

  @Test
  void aFailingDatabaseIsRetriedWithOneWarningAndTheNodeGoesOn() throws Exception {
    write("t", spec("t", 1), scheduled("A", 1));
    SettableClock clock = new SettableClock(T0);
    InstanceProjection.Handle p = InstanceProjection.start(kit.system(), clock);
    TestProbe<Object> probe = kit.createTestProbe();
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
        assertEquals(1, rows(c).size());
        return null;
      });
      s.execute("ALTER TABLE almanac_projection_offset RENAME TO almanac_projection_offset_away");
      probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
        assertTrue(p.consecutiveFailures() >= 5, "failures so far: " + p.consecutiveFailures());
        return null;
      });
      assertEquals(1, p.progress().warnings, "one warning, not one per failure");
      write("t", scheduled("B", 2));
      s.execute("ALTER TABLE almanac_projection_offset_away RENAME TO almanac_projection_offset");
      probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
        assertEquals(2, rows(c).size());
        assertEquals(0, p.consecutiveFailures());
        return null;
      });
      assertTrue(p.runningHere());
      p.stop();
    }
  }

  /** Copies task 't''s first row (its spec) as its seq 3, with a manifest no node can read. */
  private static void insertUnreadable(Statement s) throws SQLException {
    s.executeUpdate("INSERT INTO event_journal (deleted, persistence_id, sequence_number, writer, write_timestamp, "
        + "adapter_manifest, event_payload, event_ser_id, event_ser_manifest) SELECT deleted, 'task|t', 3, writer, "
        + "write_timestamp, adapter_manifest, event_payload, event_ser_id, 'io.almanac.journal.FromANewerVersion' "
        + "FROM event_journal WHERE persistence_id = 'task|t' AND sequence_number = 1");
  }

  @Test
  void anEventThatCannotBeDeserializedStopsTheProjectionBeforeItUntilItCanBeRead() throws Exception {
    write("t", spec("t", 1), scheduled("A", 1));
    try (Connection c = db.connect(); Statement s = c.createStatement()) {
      insertUnreadable(s);
      String manifest;
      try (java.sql.ResultSet r = s.executeQuery("SELECT event_ser_manifest FROM event_journal WHERE persistence_id = 'task|t' "
          + "AND sequence_number = 1")) {
        r.next();
        manifest = r.getString(1);
      }
      write("u", spec("u", 0), scheduled("C", 1));
      ProjectionWorker w = worker(Duration.ZERO);
      ProjectionWorker.Step first = w.step(c, T0); // rows 1-3: the batch holds the unreadable row
      assertEquals(2, first.offset(), "a batch ends before it? " + first);
      ProjectionWorker.UnreadableEventException e = assertThrows(ProjectionWorker.UnreadableEventException.class,
          () -> w.step(c, T0));
      assertTrue(e.getMessage().contains("journal row 3 (task|t #3"), e.getMessage());
      assertEquals(2, store.offset(c, "test"), "the offset stays before the unreadable event");
      assertEquals(List.of("A"), rows(c).stream().map(InstanceRow::windowKey).toList(), "the failed batch left no row");

      InstanceProjection.Handle p = InstanceProjection.start(kit.system(), new SettableClock(T0));
      TestProbe<Object> probe = kit.createTestProbe();
      probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
        assertTrue(p.consecutiveFailures() >= 3, "failures so far: " + p.consecutiveFailures());
        return null;
      });
      assertEquals(2, store.offset(c, InstanceProjection.NAME), "the projection waits before the event");
      assertEquals(List.of("A"), rows(c).stream().map(InstanceRow::windowKey).toList());
      assertEquals(1, p.progress().warnings, "one warning, not one per failure");

      // a node that reads it (here: the row fixed) applies it and goes on
      s.executeUpdate("UPDATE event_journal SET event_ser_manifest = '" + manifest + "' WHERE persistence_id = 'task|t' "
          + "AND sequence_number = 3");
      probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
        assertEquals(List.of("A", "C"), rows(c).stream().map(InstanceRow::windowKey).sorted().toList());
        assertEquals(0, p.consecutiveFailures());
        assertEquals(store.head(c), store.offset(c, InstanceProjection.NAME));
        return null;
      });
      p.stop();
    }
  }

  @Test
  void aRestartClosesThePoolItsSetupOpened() throws Exception {
    write("t", spec("t", 1), scheduled("A", 1));
    int open = JournalDb.OPEN.get();
    InstanceProjection.Handle p = InstanceProjection.start(kit.system(), new SettableClock(T0));
    TestProbe<Object> probe = kit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
      assertTrue(p.runningHere());
      assertEquals(open + 1, JournalDb.OPEN.get());
      return null;
    });
    for (int i = 0; i < 3; i++) {
      int opened = JournalDb.OPENED.get();
      p.ref().tell(InstanceProjection.Crash.INSTANCE); // restartWithBackoff: PreRestart, then a new setup
      probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
        assertEquals(opened + 1, JournalDb.OPENED.get(), "the restart's new set-up opened its pool");
        assertEquals(open + 1, JournalDb.OPEN.get(), "one pool open after the restarts, not one per restart");
        return null;
      });
    }
    probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
      try (Connection c = db.connect()) {
        assertEquals(1, rows(c).size());
      }
      return null;
    });
    p.stop();
    probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
      assertEquals(open, JournalDb.OPEN.get(), "closed on stop");
      return null;
    });
  }

  @Test
  void theLagGaugeFollowsTheProjectionStartedLast() throws Exception {
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    InstanceProjection.Handle before = InstanceProjection.start(kit.system(), new SettableClock(T0));
    assertEquals(null, registry.find("almanac.projection.lag").timeGauge(), "no meters yet: nothing registered");
    before.stop();
    TestProbe<Object> probe = kit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
      assertTrue(!before.runningHere());
      return null;
    });
    io.almanac.internal.meter.NodeMeters.install(kit.system(), new io.almanac.internal.meter.NodeMeters(registry));
    InstanceProjection.Handle first = startAgain();
    probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
      assertTrue(first.runningHere());
      assertTrue(!Double.isNaN(registry.find("almanac.projection.lag").timeGauge().value()));
      return null;
    });
    first.stop();
    probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
      assertTrue(!first.runningHere());
      assertTrue(Double.isNaN(registry.find("almanac.projection.lag").timeGauge().value()), "stopped: NaN");
      return null;
    });
    InstanceProjection.Handle second = startAgain();
    probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
      assertTrue(second.runningHere());
      assertTrue(!Double.isNaN(registry.find("almanac.projection.lag").timeGauge().value()),
          "the gauge reads the projection started last, not the stopped one");
      return null;
    });
    assertEquals(1, registry.find("almanac.projection.lag").timeGauges().size());
    second.stop();
  }

  /** Starts the projection again once the stopped one's actor name is free. */
  private InstanceProjection.Handle startAgain() throws Exception {
    java.util.concurrent.atomic.AtomicReference<InstanceProjection.Handle> started = new java.util.concurrent.atomic.AtomicReference<>();
    // InvalidActorNameException (a runtime exception) until the stopped actor's name is free
    io.almanac.testkit.Eventually.eventually(Duration.ofSeconds(5),
        () -> started.set(InstanceProjection.start(kit.system(), new SettableClock(T0))));
    return started.get();
  }

  @Test
  void theProjectionRunsRetentionEveryIntervalByItsClock() throws Exception {
    ActorTestKit fast = ActorTestKit.create("projection-retention", InstanceTableH2Test.h2(dir.resolve("retention"), String.join("\n",
        "almanac.instances { poll-interval = 20ms, retention = 30d, retention-interval = 50ms }")));
    try {
      SchemaBootstrap.ensureSchemaBlocking(fast.system(), Duration.ofSeconds(30));
      ActorRef<EventWriter.Write> w = fast.spawn(EventWriter.create("t"));
      TestProbe<Done> done = fast.createTestProbe();
      w.tell(new EventWriter.Write(List.of(spec("t", 0), scheduled("A", 1),
          new AttemptStarted("A", 1, RunKind.FIRST, T0.plusSeconds(600), "n", T0.plusSeconds(120)),
          new AttemptSucceeded("A", 1, Duration.ofSeconds(5), "ok", null, T0.plusSeconds(125)), scheduled("B", 3)), done.getRef()));
      done.expectMessage(Duration.ofSeconds(10), Done.getInstance());
      SettableClock clock = new SettableClock(T0.plus(Duration.ofDays(1)));
      InstanceProjection.Handle p = InstanceProjection.start(fast.system(), clock);
      TestProbe<Object> probe = fast.createTestProbe();
      try (InstanceQueries q = InstanceQueries.create(fast.system())) {
        probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
          assertEquals(2, q.find(InstanceFilter.builder().build()).rows().size());
          return null;
        });
        clock.set(T0.plus(Duration.ofDays(31)));
        probe.awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(20), () -> {
          assertEquals(List.of("B"), q.find(InstanceFilter.builder().build()).rows().stream().map(InstanceRow::windowKey).toList());
          List<InstanceRow> history = q.find(InstanceFilter.builder().history(true).build()).rows();
          assertEquals(List.of("A"), history.stream().map(InstanceRow::windowKey).toList());
          assertEquals(T0.plus(Duration.ofDays(31)), history.get(0).movedAt());
          return null;
        });
      }
      p.stop();
    } finally {
      fast.shutdownTestKit();
    }
  }

  private static List<InstanceRow> rows(Connection c) {
    try {
      return InstanceTableScenarios.rows(c);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
