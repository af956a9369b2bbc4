package io.almanac.samples;

import io.almanac.testkit.Eventually;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.Alert;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.testkit.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo node's task set (the digest from application.conf, the four second-level tasks from
 * Java) on a real H2 file in a temporary folder, with a SettableClock moved second by second:
 * each outcome the demo promises shows up, and a restart after five minutes of downtime runs no
 * window twice and records what it missed, with the reason.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(LogCapturingExtension.class)
class DemoTasksTest {

  private static final Instant MIDNIGHT = Instant.parse("2026-11-29T00:00:00Z");

  private Path tmp;

  private final SettableClock clock = new SettableClock(MIDNIGHT.minusSeconds(2));
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();
  private final DemoTasks.Timing timing = new DemoTasks.Timing(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(12));
  private Path dataDir;
  private ActorTestKit testKit;
  private Almanac almanac;

  /** The top-level application.conf (its copy on the classpath), on a temporary H2 file, with fast ticks. */
  private Config config() {
    return ConfigFactory.load(ConfigFactory.parseString(
            "almanac.persistence.h2.path = " + ConfigUtil.quoteString(tmp.resolve("almanac").toString()) + "\n"
                + "almanac-demo.data-dir = " + ConfigUtil.quoteString(dataDir.toString()) + "\n"
                + "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }\n"
                + "almanac.executor { check-interval = 20ms }\n"
                + "almanac.alerts { watchdog-interval = 100ms }\n"
                // A stopping node's shard region can wait out its whole hand-off phase (see application.conf).
                + "pekko.actor.testkit.typed.system-shutdown-default = 30s\n")
        .withFallback(ConfigFactory.parseResources("application.conf")));
  }

  private void startNode() {
    testKit = ActorTestKit.create("almanac", config());
    io.almanac.persistence.SchemaBootstrap.ensureSchemaBlocking(testKit.system(), Duration.ofSeconds(20));
    Almanac.Builder builder = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add);
    DemoTasks.jobs(dataDir, clock, timing).forEach(builder::job);
    // application.conf's daily-report waits for this condition: registered before start, as DemoNode does
    DemoTasks.conditions(dataDir).forEach(builder::condition);
    almanac = builder.start();
    await(almanac.registerAll(DemoTasks.secondLevelTasks()));
    // The digest, order-export, daily-report and the agent-job tasks are declared in application.conf
    // and registered by start(), asynchronously (the e-commerce chain has its own test,
    // EcommerceDemoTest; the agent-job tasks AgentDemoTest).
    eventually(() -> assertEquals(11, await(almanac.taskIds()).size(),
        "application.conf's seven tasks (three and the four agent-job ones) and the four demo tasks"));
  }

  @BeforeAll
  void start(@TempDir Path folder) throws Exception {
    tmp = folder;
    dataDir = Files.createDirectories(tmp.resolve("data"));
    startNode();
  }

  @AfterAll
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @Order(1)
  @DisplayName("within seconds of the demo's schedule: a success, a skip, a retry that succeeds, a final failure, the digest")
  void showsEveryOutcome() {
    Instant t = MIDNIGHT.minusSeconds(1);
    clock.set(t);
    for (int second = 0; second <= 16; second++) {
      clock.set(MIDNIGHT.plusSeconds(second));
      switch (second) {
        case 0 -> eventually(() -> {
          assertStatus("heartbeat-ok", "2026-11-29T00:00:00Z", InstanceStatus.SUCCEEDED);
          assertStatus("slow-report", "2026-11-29T00:00:00Z", InstanceStatus.RUNNING);
          assertStatus("daily-digest", "2026-11-29", InstanceStatus.SUCCEEDED);
        });
        case 5 -> eventually(() -> {
          assertStatus("slow-report", "2026-11-29T00:00:05Z", InstanceStatus.SKIPPED);
          assertStatus("flaky-sync", "2026-11-29T00:00:05Z", InstanceStatus.RETRY_WAIT);
        });
        case 7 -> eventually(() -> assertStatus("flaky-sync", "2026-11-29T00:00:05Z", InstanceStatus.SUCCEEDED));
        case 10 -> eventually(() -> {
          assertStatus("heartbeat-ok", "2026-11-29T00:00:10Z", InstanceStatus.SUCCEEDED);
          // covered by the skip range the 00:00:05 window opened (docs/skip-ranges.md): no window of its own
          assertTrue(window("slow-report", "2026-11-29T00:00:05Z").reason().endsWith("still open]"),
              window("slow-report", "2026-11-29T00:00:05Z").reason());
          assertTrue(await(almanac.windows("slow-report")).stream()
              .noneMatch(w -> w.window().equals(WindowKey.of("2026-11-29T00:00:10Z"))), "00:00:10 is covered, not a row");
        });
        case 12 -> eventually(() -> assertStatus("slow-report", "2026-11-29T00:00:00Z", InstanceStatus.SUCCEEDED));
        case 15 -> eventually(() -> assertStatus("always-broken", "2026-11-29T00:00:15Z", InstanceStatus.RETRY_WAIT));
        case 16 -> eventually(() -> assertStatus("always-broken", "2026-11-29T00:00:15Z", InstanceStatus.FINAL_FAILED));
        default -> { } // nothing is due this second: the clock moves on
      }
    }

    // (a) a success
    WindowView ok = window("heartbeat-ok", "2026-11-29T00:00:10Z");
    assertEquals(InstanceStatus.SUCCEEDED, ok.status());
    assertEquals(1, ok.attempt());

    // (b) skipped while the previous run goes on, with the reason: 00:00:05 and 00:00:10 are one skip range,
    // closed by the 00:00:15 window that ran, and listed as its first window
    WindowView skippedRange = window("slow-report", "2026-11-29T00:00:05Z");
    assertEquals(InstanceStatus.SKIPPED, skippedRange.status());
    assertTrue(skippedRange.reason().startsWith("PREVIOUS_RUNNING") && skippedRange.reason().contains("2026-11-29T00:00:00Z")
        && skippedRange.reason().endsWith("[skip range: 2 windows from 2026-11-29T00:00:05Z to 2026-11-29T00:00:10Z]"),
        skippedRange.reason());

    // (c) a retry after a failure; the retry did not push the message again (effect ledger)
    WindowView retried = window("flaky-sync", "2026-11-29T00:00:05Z");
    assertEquals(2, retried.attempt());
    assertEquals(RunKind.RETRY, retried.runKind());
    assertTrue(retried.summary().contains("reused from the ledger"), retried.summary());
    assertTrue(retried.effects().containsKey(DemoTasks.PUSH_KEY), retried.effects().toString());
    assertEquals(1, outboxLines("flaky-sync/2026-11-29T00:00:05Z"));

    // (d) a final failure: in the intervention queue, one alert
    WindowView broken = window("always-broken", "2026-11-29T00:00:15Z");
    assertEquals(2, broken.attempt(), "the first attempt and one retry");
    assertTrue(broken.reason().startsWith("retry cap 1 reached"), broken.reason());
    List<WindowView> queue = await(almanac.interventionQueue());
    assertEquals(List.of("always-broken 2026-11-29T00:00:15Z"),
        queue.stream().map(w -> w.taskId() + " " + w.window()).toList());
    assertEquals(1, finalFailedAlerts("2026-11-29T00:00:15Z"));

    // the field report's digest: 08:00 Asia/Shanghai is 00:00 UTC; one push, a short summary, the artifact
    WindowView digest = window("daily-digest", "2026-11-29");
    assertEquals(MIDNIGHT, digest.dueAt());
    assertTrue(digest.summary().length() <= NewsDigestJob.MAX_SUMMARY, digest.summary());
    assertTrue(digest.summary().startsWith("Top stories: "), digest.summary());
    assertEquals(dataDir.resolve("digests/2026-11-29.md").toUri().toString(), digest.artifactUri());
    assertTrue(Files.exists(dataDir.resolve("digests/2026-11-29.md")));
    assertEquals(1, outboxLines("daily-digest/2026-11-29"));
    assertEquals(digest.effects().get(NewsDigestJob.PUSH_KEY), Outbox.in(dataDir, clock)
        .find("daily-digest/2026-11-29", NewsDigestJob.PUSH_KEY).orElseThrow());

    // the live table shows it all
    String table = new LiveTable(almanac, MIDNIGHT.minusSeconds(2), Duration.ofHours(1)).render(Duration.ofSeconds(10));
    assertTrue(table.contains("intervention queue: 1 window(s)"), table);
    assertTrue(table.lines().anyMatch(l -> l.contains("always-broken") && l.contains("FINAL_FAILED")), table);
    assertTrue(table.lines().anyMatch(l -> l.contains("daily-digest") && l.contains("11-30 08:00:00 CST")
        && l.contains("11-30 00:00:00Z")), table);
    assertNoDuplicatePushes();
  }

  @Test
  @Order(2)
  @DisplayName("after five minutes down: state recovered, nothing ran twice, missed windows recorded with their reason")
  void restartAfterDowntime() {
    // Stop slow-report's 00:00:15 run, which only ends when the clock moves on, then stop the node.
    WindowView running = await(almanac.windows("slow-report")).stream()
        .filter(w -> w.status() == InstanceStatus.RUNNING).findFirst().orElseThrow();
    await(almanac.cancel("slow-report", running.window(), "test: node stops"));
    testKit.shutdownTestKit();
    testKit = null;
    int alertsBefore = alerts.size();

    clock.set(MIDNIGHT.plus(Duration.ofMinutes(5)));
    startNode();

    // Recovered from the journal, not run again.
    // Windows due within a minute before the restart fire on time: one runs, the ones behind it skip.
    eventually(() -> assertTrue(await(almanac.windows("heartbeat-ok")).stream().anyMatch(w -> w.status() == InstanceStatus.SUCCEEDED
        && !w.dueAt().isBefore(MIDNIGHT.plus(Duration.ofMinutes(4)))), "a window fired on the restart ran"));
    assertStatus("heartbeat-ok", "2026-11-29T00:00:10Z", InstanceStatus.SUCCEEDED);
    assertStatus("daily-digest", "2026-11-29", InstanceStatus.SUCCEEDED);
    assertStatus("always-broken", "2026-11-29T00:00:15Z", InstanceStatus.FINAL_FAILED);
    assertEquals(1, outboxLines("daily-digest/2026-11-29"));

    // Catch-up mode none (the default), due more than a minute before the restart: MISSED, with the reason.
    eventually(() -> {
      WindowView missed = rangeHolding("heartbeat-ok", "2026-11-29T00:01:00Z");
      assertEquals(InstanceStatus.MISSED, missed.status());
      assertTrue(missed.reason().startsWith("BACKFILL_NOT_ALLOWED"), missed.reason());
    });
    // Catch-up mode all but older than its 2-minute catch-up horizon: MISSED, with that reason.
    eventually(() -> {
      WindowView old = rangeHolding("flaky-sync", "2026-11-29T00:01:05Z");
      assertEquals(InstanceStatus.MISSED, old.status());
      assertTrue(old.reason().startsWith("OUTSIDE_HORIZON"), old.reason());
    });
    // Catch-up mode all and inside the horizon: caught up.
    eventually(() -> {
      WindowView caughtUp = window("flaky-sync", "2026-11-29T00:03:45Z");
      assertEquals(RunKind.BACKFILL, caughtUp.runKind());
      assertNotEquals(InstanceStatus.MISSED, caughtUp.status());
    });
    assertEquals(0, alerts.subList(alertsBefore, alerts.size()).stream()
        .filter(a -> "2026-11-29T00:00:15Z".equals(a.window())).count(), "no second alert for a recovered final failure");
    assertNoDuplicatePushes();
  }

  // ---------------------------------------------------------------------------------------------

  private static final java.util.regex.Pattern RANGE =
      java.util.regex.Pattern.compile("\\[skip range: \\d+ windows from (\\S+) to (\\S+)]$");

  /**
   * The window itself, or the skip range (docs/skip-ranges.md) that holds it: a range is listed as its first
   * window, whose reason ends with {@code [skip range: N windows from A to B]} (these tasks' keys are instants).
   */
  private WindowView rangeHolding(String task, String key) {
    Instant at = Instant.parse(key);
    return await(almanac.windows(task)).stream().filter(w -> {
      if (w.window().equals(WindowKey.of(key))) {
        return true;
      }
      java.util.regex.Matcher m = RANGE.matcher(w.reason() == null ? "" : w.reason());
      return m.find() && !at.isBefore(Instant.parse(m.group(1))) && !at.isAfter(Instant.parse(m.group(2)));
    }).findFirst().orElseThrow(() -> new AssertionError("no window or skip range holding " + key + " of " + task));
  }

  private WindowView window(String task, String key) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().equals(WindowKey.of(key))).findFirst()
        .orElseThrow(() -> new AssertionError("no window " + key + " of " + task));
  }

  private void assertStatus(String task, String key, InstanceStatus expected) {
    WindowView w = window(task, key);
    assertEquals(expected, w.status(), task + " " + key + ": " + w);
  }

  private long outboxLines(String idempotencyKey) {
    return Outbox.in(dataDir, clock).lines().stream().filter(l -> l.split("\t")[1].equals(idempotencyKey)).count();
  }

  private long finalFailedAlerts(String window) {
    return alerts.stream().filter(a -> a.kind() == Alert.Kind.FINAL_FAILED && window.equals(a.window())).count();
  }

  private void assertNoDuplicatePushes() {
    List<String> keys = Outbox.in(dataDir, clock).lines().stream().map(l -> {
      String[] f = l.split("\t");
      return f[1] + " " + f[2];
    }).toList();
    assertEquals(keys.size(), keys.stream().distinct().count(), "a window pushed twice: " + keys.stream()
        .collect(Collectors.groupingBy(k -> k, Collectors.counting())).entrySet().stream()
        .filter(e -> e.getValue() > 1).toList());
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(15, TimeUnit.SECONDS).join();
  }

  /** Retries the assertion until it holds; after 10 s its last failure is thrown. */
  private static void eventually(Runnable assertion) {
    try {
      Eventually.eventually(Duration.ofSeconds(10), assertion::run);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
