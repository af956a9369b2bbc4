package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link WindowHistory} on a running node's own ActorSystem, on an H2 file (which no second process
 * could open while the node runs): the events and the explanation follow the journal as the node
 * writes it.
 */
@ExtendWith(LogCapturingExtension.class)
class WindowHistoryTest {

  @TempDir Path dir;

  private ActorTestKit node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  @Test
  @DisplayName("reads one task's events live from the node's H2 journal: a window's timeline and why, as the node writes them")
  void readsTheRunningNodesJournal() {
    node = ActorTestKit.create("history-node", AuditTesting.config(dir.resolve("almanac"), String.join("\n",
        "include \"almanac-embedded.conf\"",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }")));
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
    AgentJob job = ctx -> CompletableFuture.completedFuture(JobResult.success("digest " + ctx.window().value()));
    Almanac almanac = Almanac.builder(node.system()).clock(clock).job("j", job).start();
    await(almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("j").build()));

    WindowHistory history = WindowHistory.of(node.system());
    assertEquals(Optional.empty(), await(history.why("nope", "2026-11-29")), "an unknown task has no journal");
    assertEquals(Optional.empty(), await(history.timeline("nope", "2026-11-29")));
    TestProbe<Object> probe = node.createTestProbe();
    // registration writes no task entity (its spec comes with its first fire): the trigger's journal has it
    assertEquals(List.of(), await(history.events("digest")), "registered, not fired: no journal of its own");
    assertEquals(Optional.of(List.of()), await(history.timeline("digest", "2026-11-29")), "not fired yet: no events");
    String verdict = await(history.why("digest", "2026-11-29")).orElseThrow().verdict();
    assertTrue(verdict.startsWith(
        "no such window: the task has no record of window 2026-11-29; it is due 2026-11-29 08:00:00 Asia/Shanghai, after "
            + "the journal's last event"), verdict);

    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      Map<String, WindowView> byKey = await(almanac.windows("digest")).stream()
          .collect(Collectors.toMap(w -> w.window().value(), w -> w));
      assertEquals(InstanceStatus.SUCCEEDED, byKey.containsKey("2026-11-29") ? byKey.get("2026-11-29").status() : null);
      return null;
    });
    List<AuditEvent> timeline = await(history.timeline("digest", "2026-11-29")).orElseThrow();
    assertEquals(List.of("InstanceScheduled", "AttemptStarted", "AttemptSucceeded"),
        timeline.stream().map(AuditEvent::type).toList());
    assertTrue(timeline.stream().allMatch(e -> e.writer() != null && e.writer().node().startsWith("pekko://history-node@")),
        "the node's writer stamps: " + timeline);
    WindowExplanation.Explanation why = await(history.why("digest", "2026-11-29")).orElseThrow();
    assertEquals("SUCCEEDED", why.status());
    assertTrue(why.verdict().matches("ran on time: due 08:00:00 Asia/Shanghai, attempt 1 started 08:00:00 \\(on the dot\\) on "
        + "node history-node@127\\.0\\.0\\.1:\\d+, succeeded 08:00:00"), why.verdict());
    assertEquals(3, why.steps().size(), why.toString());
  }

  @Test
  @DisplayName("a read that does not complete within its timeout fails with a JournalReadException naming the timeout; "
      + "one that keeps more than the cap, with a HistoryTooLargeException")
  void boundedInTimeAndMemory() {
    ActorTestKit plain = ActorTestKit.create("history-bounds");
    try {
      WindowHistory never = new WindowHistory(plain.system(), id -> org.apache.pekko.stream.javadsl.Source.never(), 100,
          Duration.ofMillis(200));
      java.util.concurrent.CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(
          java.util.concurrent.CompletionException.class,
          () -> never.why("t", "2026-11-29").toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join());
      assertTrue(e.getCause() instanceof JournalReadException && e.getCause().getMessage().equals(
          "task 't': no answer within PT0.2S (0 events read)"), String.valueOf(e.getCause()));

      List<AuditEvent> many = WindowExplanation.auditEvents("t", java.util.stream.IntStream.range(0, 50)
          .mapToObj(i -> (io.almanac.journal.TaskJournal.Event) new io.almanac.journal.TaskJournal.TaskPaused(
              Instant.parse("2026-11-29T00:00:00Z").plusSeconds(i))).toList());
      WindowHistory big = new WindowHistory(plain.system(), id -> org.apache.pekko.stream.javadsl.Source.from(many), 10,
          Duration.ofSeconds(10));
      java.util.concurrent.CompletionException tooMany = org.junit.jupiter.api.Assertions.assertThrows(
          java.util.concurrent.CompletionException.class,
          () -> big.timeline("t", "2026-11-29").toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join());
      assertTrue(tooMany.getCause() instanceof HistoryTooLargeException, String.valueOf(tooMany.getCause()));
    } finally {
      plain.shutdownTestKit();
    }
  }
}
