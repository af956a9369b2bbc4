package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.Decision;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.task.TaskEntity;
import io.almanac.internal.task.TaskSettings;
import io.almanac.journal.SpecRecord;
import io.almanac.persistence.audit.Audit;
import io.almanac.persistence.audit.AuditRequest;
import io.almanac.testkit.SettableClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * R30: a year of daily windows with retention on. Old windows leave the hot state; snapshots keep
 * recovery short; the retained journal keeps the archived windows auditable.
 */
@ExtendWith(LogCapturingExtension.class)
class RetentionTest {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionTest.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2025-12-31T00:00:00Z"));

  private static <T> T ask(ActorTestKit kit, ActorRef<Command> task, Function<ActorRef<StatusReply<T>>, Command> message) {
    StatusReply<T> reply = AskPattern.ask(task, message::apply, TIMEOUT, kit.system().scheduler())
        .toCompletableFuture().orTimeout(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
    if (reply.isError()) {
      throw new AssertionError(reply.getError().getMessage());
    }
    return reply.getValue();
  }

  @Test
  @DisplayName("R30: a year of daily windows, restarted: same state, recovery time measured, archived windows still audited")
  void yearOfDailyWindows() {
    Config config = H2TestConfig.at(dir.resolve("almanac"),
        "almanac.task { retention = 30d, snapshot-every = 100, hot-windows = 500, max-backfill-windows = 250 }");
    TaskSpec spec = TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").build();
    List<WindowView> before;
    TaskView taskBefore;
    ActorTestKit first = ActorTestKit.create("retention-first", config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(first.system(), TIMEOUT);
      ActorRef<Command> task = first.spawn(TaskEntity.create("digest", clock, TaskSettings.from(config)), "task");
      RetentionTest.<org.apache.pekko.Done>ask(first, task, r -> new TaskProtocol.Define(SpecRecord.of(spec), r));
      Instant day = Instant.parse("2026-01-01T00:00:00Z");
      for (int i = 0; i < 365; i++) {
        Instant due = day.plus(Duration.ofDays(i));
        clock.set(due);
        String date = due.toString().substring(0, 10);
        Instant start = due.minus(Duration.ofHours(8));
        ask(first, task, (ActorRef<StatusReply<TaskProtocol.FireOutcome>> r) -> new TaskProtocol.Fire(WindowKey.of(date), start,
            start.plus(Duration.ofDays(1)), due, TaskProtocol.FireKind.ON_TIME, r));
        TaskProtocol.AttemptGrant g = ((io.almanac.internal.protocol.ExecutorProtocol.Started) AskPattern.<Command, io.almanac.internal.protocol.ExecutorProtocol.AdmissionAnswer>ask(
            task, r -> new TaskProtocol.Admitted(WindowKey.of(date), null, r), TIMEOUT, first.system().scheduler())
            .toCompletableFuture().join()).grant();
        clock.set(due.plusSeconds(90));
        RetentionTest.<org.apache.pekko.Done>ask(first, task, r -> new TaskProtocol.FinishAttempt(WindowKey.of(date), g.attempt(),
            JobResult.success("digest " + date), Duration.ofSeconds(90), r));
      }
      before = ask(first, task, TaskProtocol.GetWindows::new).windows();
      taskBefore = ask(first, task, TaskProtocol.GetTask::new).view();
    } finally {
      first.shutdownTestKit();
    }
    assertEquals(31, before.size(), "only the last 30 days stay hot");
    assertEquals(334, taskBefore.archivedWindows());

    ActorTestKit second = ActorTestKit.create("retention-second", config);
    try {
      long t0 = System.nanoTime();
      ActorRef<Command> task = second.spawn(TaskEntity.create("digest", clock, TaskSettings.from(config)), "task");
      List<WindowView> after = ask(second, task, TaskProtocol.GetWindows::new).windows();
      long micros = (System.nanoTime() - t0) / 1_000;
      LOG.info("R30: recovered a year of daily windows (1,461 events, snapshot every 100) in {} ms", micros / 1000.0);
      System.out.printf("R30 recovery of 1,461 events with snapshots every 100: %.1f ms%n", micros / 1000.0);
      assertEquals(before, after, "the same hot windows after recovery");
      assertEquals(taskBefore, ask(second, task, TaskProtocol.GetTask::new).view());
      assertEquals(Decision.DUPLICATE, ask(second, task, (ActorRef<StatusReply<TaskProtocol.FireOutcome>> r) ->
          new TaskProtocol.Fire(WindowKey.of("2026-02-01"), Instant.parse("2026-01-31T16:00:00Z"),
              Instant.parse("2026-02-01T16:00:00Z"), Instant.parse("2026-02-01T00:00:00Z"), TaskProtocol.FireKind.ON_TIME, r))
          .decision(), "an archived window is not run again");
    } finally {
      second.shutdownTestKit();
    }

    // The archived windows stay auditable from the retained journal (R28).
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Audit.run(config, AuditRequest.builder().task("digest").window("2026-02-01").verify(true).build(),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    assertEquals(Audit.OK, code, text + err.toString(StandardCharsets.UTF_8));
    assertTrue(text.contains("AttemptSucceeded") && text.contains("2026-02-01"), text);
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    int verify = Audit.run(config, AuditRequest.builder().task("digest").verify(true).timeline(false).build(),
        new PrintStream(all, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    String report = all.toString(StandardCharsets.UTF_8);
    assertEquals(Audit.OK, verify, report);
    assertTrue(report.contains("365"), "all 365 windows are seen by the audit: " + report);
  }
}
