package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.persistence.audit.WindowHistory;
import io.almanac.persistence.audit.WindowSteps;
import io.almanac.testkit.Eventually;
import io.almanac.testkit.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's long agent job, research-agent, on the demo's configuration and a real H2 file: its
 * first draft of a window fails, and the retry replays the recorded gather instead of running it
 * again, runs the draft once more and publishes once.
 */
@ExtendWith(LogCapturingExtension.class)
class ResearchAgentDemoTest {

  private static final Instant MINUTE = Instant.parse("2026-11-29T00:01:00Z");
  private static final String WINDOW = "2026-11-29T00:01:00Z";

  private final SettableClock clock = new SettableClock(MINUTE.minusSeconds(1));
  private ActorTestKit testKit;

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("R15, R19: the draft fails once; the retry gathers nothing again (one gather call), drafts once more, "
      + "publishes once; the steps read RECORDED then REPLAYED, and each attempt's log (with the failure's stack trace) is kept")
  void retryReplaysTheRecordedStep(@TempDir Path tmp) throws Exception {
    Path dataDir = Files.createDirectories(tmp.resolve("data"));
    Config config = ConfigFactory.load(ConfigFactory.parseString(
            "almanac.persistence.h2.path = " + ConfigUtil.quoteString(tmp.resolve("almanac").toString()) + "\n"
                + "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }\n"
                + "almanac.executor { check-interval = 20ms }\n"
                + "pekko.actor.testkit.typed.system-shutdown-default = 30s\n")
        // only research-agent: the demo's declared tasks have their own tests
        .withFallback(ConfigFactory.parseResources("application.conf").withoutPath("almanac.tasks")));
    testKit = ActorTestKit.create("almanac", config);
    io.almanac.persistence.SchemaBootstrap.ensureSchemaBlocking(testKit.system(), Duration.ofSeconds(20));
    // The steps work on the real clock (short); the node's schedule on the settable one.
    ResearchAgentJob job = new ResearchAgentJob(dataDir, Outbox.in(dataDir, clock), Clock.systemUTC(),
        new ResearchAgentJob.Timing(Duration.ofMillis(20), Duration.ofMillis(300), Duration.ofMillis(100)));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).job(ResearchAgentJob.TASK, job).start();
    await(almanac.registerAll(DemoTasks.longJobTasks()));

    clock.set(MINUTE);
    eventually(() -> assertEquals(InstanceStatus.RETRY_WAIT, window(almanac).status(), () -> window(almanac).toString()));
    clock.set(MINUTE.plusSeconds(2)); // the retry's 2 s back-off
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac).status(), () -> window(almanac).toString()));

    WindowView w = window(almanac);
    assertEquals(2, w.attempt());
    assertEquals(RunKind.RETRY, w.runKind());
    List<String> calls = Files.readAllLines(dataDir.resolve(ResearchAgentJob.CALLS_FILE)).stream()
        .filter(l -> l.contains(" " + WINDOW + " ")).map(l -> l.substring(l.indexOf(" attempt ") + 1)).toList();
    assertEquals(List.of("attempt 1: gather", "attempt 1: draft", "attempt 2: draft"), calls,
        "gather ran once for the window; the draft ran in both attempts (the first failed before recording it)");
    assertEquals(1, Outbox.in(dataDir, clock).lines().stream().filter(l -> l.contains("research " + WINDOW)).count(),
        "published once");

    List<WindowSteps.Step> steps = await(WindowHistory.of(testKit.system()).steps(ResearchAgentJob.TASK, WINDOW))
        .orElseThrow();
    assertEquals(List.of("1 gather RECORDED 1", "2 draft RECORDED 2", "2 gather REPLAYED 1"), steps.stream()
        .map(s -> s.attempt() + " " + s.name() + " " + s.kind() + " " + s.recordedBy()).sorted().toList());
    WindowSteps.Step draft = steps.stream().filter(s -> s.name().equals("draft")).findFirst().orElseThrow();
    assertEquals(0, ResearchAgentJob.DRAFT_COST.compareTo(draft.usage().cost()), "the draft's usage is recorded with it");

    // what each attempt did: attempt 1's log and the failed draft's stack trace, attempt 2's log to the publish
    var logs = await(WindowHistory.of(testKit.system()).logs(ResearchAgentJob.TASK, WINDOW)).orElseThrow();
    assertEquals(List.of(1, 2), logs.stream().map(l -> l.attempt()).toList());
    var first = logs.get(0);
    assertTrue(first.stackTrace().startsWith("java.lang.IllegalStateException: the model timed out"), first.stackTrace());
    assertTrue(first.lines().stream().anyMatch(l -> l.text().startsWith("draft: asking the model")), first.lines()::toString);
    var second = logs.get(1);
    assertNull(second.stackTrace());
    assertFalse(second.lines().stream().anyMatch(l -> l.text().startsWith("gather:")), "gather was replayed, not run: "
        + second.lines());
    assertTrue(second.lines().stream().anyMatch(l -> l.text().startsWith("published ")), second.lines()::toString);
  }

  private static WindowView window(Almanac almanac) {
    return await(almanac.windows(ResearchAgentJob.TASK)).stream().filter(w -> w.window().equals(WindowKey.of(WINDOW)))
        .findFirst().orElseThrow(() -> new AssertionError("no window " + WINDOW));
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(15, TimeUnit.SECONDS).join();
  }

  /** Retries the assertion until it holds; after 20 s its last failure is thrown. */
  private static void eventually(Runnable assertion) throws Exception {
    Eventually.eventually(Duration.ofSeconds(20), assertion::run);
  }
}
