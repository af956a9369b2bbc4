package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.OverlapPolicy;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.internal.executor.Executor;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.AttemptGrant;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.internal.task.TaskEntity;
import io.almanac.internal.task.TaskSettings;
import io.almanac.journal.SpecRecord;
import io.almanac.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real thing: a task entity on an H2 file journal, an ActorSystem that terminates, and a new
 * ActorSystem on the same file that recovers exactly the same windows and runs none of them twice.
 */
@ExtendWith(LogCapturingExtension.class)
class H2RecoveryTest {

  /** The executor admits the window: the entity answers Started or Declined. */
  private static ExecutorProtocol.AdmissionAnswer admit(ActorTestKit kit, ActorRef<Command> task, String window) {
    TestProbe<ExecutorProtocol.AdmissionAnswer> probe = kit.createTestProbe();
    task.tell(new TaskProtocol.Admitted(WindowKey.of(window), null, probe.getRef()));
    return probe.receiveMessage(TIMEOUT);
  }

  private static AttemptGrant start(ActorTestKit kit, ActorRef<Command> task, String window) {
    ExecutorProtocol.AdmissionAnswer a = admit(kit, task, window);
    if (!(a instanceof ExecutorProtocol.Started started)) {
      throw new AssertionError("not started: " + a);
    }
    return started.grant();
  }

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final String TASK = "digest";
  private static final String PERSISTENCE_ID = TaskEntity.persistenceId(TASK).id();

  @TempDir Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-24T00:00:00Z"));

  /** Daily at 08:00 Asia/Shanghai; windows may overlap; leases long enough to outlive the test's days. */
  private final TaskSpec spec = TaskSpec.builder(TASK)
      .cron("0 0 8 * * ? Asia/Shanghai")
      .overlap(OverlapPolicy.ALLOW)
      .lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofDays(3)).factor(1.5).minSamples(20).build())
      .build();

  @ParameterizedTest(name = "snapshot-every = {0}")
  @ValueSource(ints = {3, 1000}) // recovery from a snapshot plus events, and from events alone
  void windowsSurviveANewActorSystemOnTheSameFile(int snapshotEvery) throws Exception {
    Config config = H2TestConfig.at(dir.resolve("almanac"), "almanac.task.snapshot-every = " + snapshotEvery);

    // --- first life: drive five windows into five states
    List<WindowView> before;
    TaskView taskBefore;
    ActorTestKit first = ActorTestKit.create("recovery-first", config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(first.system(), TIMEOUT);
      ActorRef<Command> task = first.spawn(TaskEntity.create(TASK, clock, TaskSettings.from(config)), "task");
      done(first, task, r -> new TaskProtocol.Define(SpecRecord.of(spec), r));

      dueAt("2026-11-25");
      assertEquals(Decision.SCHEDULED, fire(first, task, "2026-11-25").decision());
      AttemptGrant g25 = start(first, task, "2026-11-25");
      clock.advance(Duration.ofMinutes(4));
      done(first, task, r -> new TaskProtocol.FinishAttempt(WindowKey.of("2026-11-25"), g25.attempt(),
          JobResult.success("12 items digested", "s3://digests/2026-11-25.md"), Duration.ofMinutes(4), r));

      dueAt("2026-11-26");
      fire(first, task, "2026-11-26");
      AttemptGrant g26 = start(first, task, "2026-11-26");
      done(first, task, r -> new TaskProtocol.FinishAttempt(WindowKey.of("2026-11-26"), g26.attempt(),
          JobResult.failure("model returned malformed JSON"), Duration.ofSeconds(40), r));

      dueAt("2026-11-27");
      done(first, task, TaskProtocol.Pause::new);
      assertEquals(Decision.SKIPPED, fire(first, task, "2026-11-27").decision());
      done(first, task, TaskProtocol.Resume::new);

      dueAt("2026-11-28");
      fire(first, task, "2026-11-28");
      AttemptGrant g28 = start(first, task, "2026-11-28");
      H2RecoveryTest.<TaskProtocol.EffectReply>ok(first, task, r -> new TaskProtocol.RecordEffect(WindowKey.of("2026-11-28"), g28.attempt(), "email", "msg-1", r));

      dueAt("2026-11-29");
      assertEquals(Decision.SCHEDULED, fire(first, task, "2026-11-29").decision());

      before = ok(first, task, TaskProtocol.GetWindows::new).windows();
      taskBefore = ok(first, task, TaskProtocol.GetTask::new).view();
    } finally {
      first.shutdownTestKit();
    }
    assertEquals(List.of(InstanceStatus.SUCCEEDED, InstanceStatus.FINAL_FAILED, InstanceStatus.SKIPPED,
        InstanceStatus.RUNNING, InstanceStatus.PENDING), before.stream().map(WindowView::status).toList());
    assertEquals(Map.of("email", "msg-1"), before.get(3).effects());

    // --- between the lives: the pool is closed, so the next open reads the file, not H2's cache
    long eventsBetween;
    try (Connection c = H2TestConfig.connect(config); Statement s = c.createStatement()) {
      assertEquals(1, count(s, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS"), "only this connection: the database was closed");
      eventsBetween = count(s, "SELECT COUNT(*) FROM PUBLIC.\"event_journal\"");
      long snapshots = count(s, "SELECT COUNT(*) FROM PUBLIC.\"snapshot\"");
      assertTrue(snapshotEvery < eventsBetween ? snapshots > 0 : snapshots == 0, "snapshots: " + snapshots);
    }

    // --- second life: a new ActorSystem on the same file
    ActorTestKit second = ActorTestKit.create("recovery-second", config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(second.system(), TIMEOUT);
      ActorRef<Command> task = second.spawn(TaskEntity.create(TASK, clock, TaskSettings.from(config)), "task");
      assertEquals(before, ok(second, task, TaskProtocol.GetWindows::new).windows());
      assertEquals(taskBefore, ok(second, task, TaskProtocol.GetTask::new).view());

      // no window runs twice: every fire is a duplicate, and a done window cannot start again
      for (String date : List.of("2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29")) {
        FireOutcome again = fire(second, task, date);
        assertEquals(Decision.DUPLICATE, again.decision(), date + ": " + again);
      }
      assertTrue(admit(second, task, "2026-11-25") instanceof ExecutorProtocol.Declined, "a succeeded window does not start again");
      assertTrue(admit(second, task, "2026-11-28") instanceof ExecutorProtocol.Declined, "the running window's attempt still holds it");

      // the attempt that was running before the restart still holds its lease and can finish
      done(second, task, r -> new TaskProtocol.FinishAttempt(WindowKey.of("2026-11-28"), 1,
          JobResult.success("sent"), Duration.ofHours(1), r));
      assertEquals(InstanceStatus.SUCCEEDED, ok(second, task, TaskProtocol.GetWindows::new).windows().get(3).status());
    } finally {
      second.shutdownTestKit();
    }

    // --- the journal, the truth: one instance and one attempt for the succeeded window; only the finish was added
    try (Connection c = H2TestConfig.connect(config); Statement s = c.createStatement()) {
      assertEquals(eventsBetween + 1, count(s, "SELECT COUNT(*) FROM PUBLIC.\"event_journal\""));
      List<String> events25 = events(c, "2026-11-25");
      assertEquals(List.of("InstanceScheduled", "AttemptStarted", "AttemptSucceeded"), events25);
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** Sets the clock to the window's due time: 08:00 in Shanghai is midnight UTC. */
  private void dueAt(String date) {
    clock.set(Instant.parse(date + "T00:00:00Z"));
  }

  private static FireOutcome fire(ActorTestKit kit, ActorRef<Command> task, String date) {
    Instant start = Instant.parse(date + "T00:00:00Z").minus(Duration.ofHours(8));
    return ok(kit, task, r -> new TaskProtocol.Fire(WindowKey.of(date), start, start.plus(Duration.ofDays(1)),
        start.plus(Duration.ofHours(8)), FireKind.ON_TIME, r));
  }

  private static <T> StatusReply<T> ask(ActorTestKit kit, ActorRef<Command> task, Function<ActorRef<StatusReply<T>>, Command> command) {
    TestProbe<StatusReply<T>> probe = kit.createTestProbe();
    task.tell(command.apply(probe.getRef()));
    return probe.receiveMessage(TIMEOUT);
  }

  private static <T> T ok(ActorTestKit kit, ActorRef<Command> task, Function<ActorRef<StatusReply<T>>, Command> command) {
    StatusReply<T> reply = ask(kit, task, command);
    assertTrue(reply.isSuccess(), () -> "refused: " + reply.getError().getMessage());
    return reply.getValue();
  }

  private static void done(ActorTestKit kit, ActorRef<Command> task, Function<ActorRef<StatusReply<Done>>, Command> command) {
    ok(kit, task, command);
  }

  private static long count(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The simple type names of the task's journal events about one window, in order. */
  private static List<String> events(Connection c, String window) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT \"event_ser_manifest\", \"event_payload\" FROM PUBLIC.\"event_journal\" "
        + "WHERE \"persistence_id\" = ? ORDER BY \"sequence_number\"")) {
      p.setString(1, PERSISTENCE_ID);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          String json = new String(rs.getBytes(2), StandardCharsets.UTF_8);
          if (json.contains("\"window\":\"" + window + "\"")) {
            String manifest = rs.getString(1);
            out.add(manifest.substring(manifest.lastIndexOf('$') + 1));
          }
        }
      }
    }
    return out;
  }
}
