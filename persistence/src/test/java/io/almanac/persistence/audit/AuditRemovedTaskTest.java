package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.audit.AuditTesting.Result;
import io.almanac.testkit.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task removed on a real node (an H2 file, time from a SettableClock): after the node restarts
 * the trigger does not bring it back, its entity still answers from its history, and the audit,
 * reading the file with no node running, verifies its history up to the removal (R28, R31).
 */
@ExtendWith(LogCapturingExtension.class)
class AuditRemovedTaskTest {

  @TempDir Path dir;

  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private ActorTestKit node;

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  @AfterEach
  void stopNode() {
    if (node != null) {
      node.shutdownTestKit();
      node = null;
    }
  }

  private Almanac startNode(Config config) {
    node = ActorTestKit.create("removal-node", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    AgentJob job = ctx -> CompletableFuture.completedFuture(JobResult.success("ok " + ctx.window()));
    Almanac almanac = Almanac.builder(node.system()).clock(clock).job("j", job).start();
    // readiness as the node reports it: ready() ends by itself at almanac.node.registration-timeout
    almanac.ready().toCompletableFuture().orTimeout(node.system().settings().config()
        .getDuration("almanac.node.registration-timeout").plusSeconds(30).toSeconds(), TimeUnit.SECONDS).join();
    return almanac;
  }

  private void stop() {
    node.shutdownTestKit();
    node = null;
  }

  private void eventuallyStatus(Almanac almanac, String task, String window, InstanceStatus status) {
    eventually(() -> assertEquals(Optional.of(status), await(almanac.windows(task)).stream()
        .filter(w -> w.window().value().equals(window)).map(WindowView::status).findFirst(), task + " " + window));
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      assertion.run();
      return null;
    });
  }

  @Test
  @DisplayName("R28/R31: a removed task stays removed after a restart, and the audit verifies its history up to the removal")
  void removedTaskStaysRemovedAndItsHistoryVerifies() {
    Path db = dir.resolve("almanac");
    Config config = AuditTesting.config(db, String.join("\n",
        "include \"almanac-embedded.conf\"",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }"));
    Almanac almanac = startNode(config);
    for (String id : List.of("gone", "kept")) {
      await(almanac.register(TaskSpec.builder(id).cron("0 0 8 * * ? Asia/Shanghai").job("j").build()));
    }
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventuallyStatus(almanac, "gone", "2026-11-29", InstanceStatus.SUCCEEDED);
    eventuallyStatus(almanac, "kept", "2026-11-29", InstanceStatus.SUCCEEDED);
    clock.set(Instant.parse("2026-11-29T12:00:00Z"));
    await(almanac.remove("gone"));
    stop();

    clock.set(Instant.parse("2026-11-30T00:00:00Z")); // down across the next window: the restart catches up
    almanac = startNode(config);
    Almanac restarted = almanac;
    eventuallyStatus(restarted, "kept", "2026-11-30", InstanceStatus.SUCCEEDED);
    assertEquals(List.of("kept"), await(restarted.taskIds()), "the restart does not bring the removed task back");
    clock.set(Instant.parse("2026-12-01T00:00:00Z"));
    eventuallyStatus(restarted, "kept", "2026-12-01", InstanceStatus.SUCCEEDED);
    Instant end = Instant.parse("2026-12-01T00:05:00Z");
    clock.set(end);
    assertEquals(List.of("2026-11-29"), await(restarted.windows("gone")).stream().map(w -> w.window().value()).toList());
    assertTrue(await(restarted.task("gone")).removed());
    eventually(() -> {
      try (AuditReader reader = AuditReader.builder(node.system()).start()) {
        Optional<Instant> last = reader.triggerLastEventAt();
        assertTrue(last.isPresent() && !last.get().isBefore(end), "the trigger's last event: " + last);
      }
    });
    stop();

    Config journal = AuditTesting.config(db);
    Result gone = AuditTesting.audit(journal, AuditRequest.builder().task("gone").verify(true).build());
    assertEquals(Audit.OK, gone.exit(), gone.toString());
    assertTrue(gone.out().contains("TaskRemoved"), gone.toString());
    assertTrue(gone.out().contains("task removed: not fired from here on; its history stays"), gone.toString());
    assertTrue(gone.out().contains("I2 every due window accounted for checked 1 due window until 2026-11-29T11:57:59.999999999Z"),
        gone.toString());
    Result all = AuditTesting.audit(journal, AuditRequest.builder().verify(true).timeline(false).build());
    assertEquals(Audit.OK, all.exit(), all.toString());
  }
}
