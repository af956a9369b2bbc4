package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.Alert;
import io.almanac.Almanac;
import io.almanac.ConditionTrigger;
import io.almanac.DependencyTrigger;
import io.almanac.InstanceStatus;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.testkit.Eventually;
import io.almanac.testkit.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
 * The demo's e-commerce chain (the field report's case) on a real embedded node, an H2 file in a
 * temporary folder and a SettableClock: order-export and daily-report as declared in
 * application.conf, and their compressed-time twins as DemoNode registers them. In an even minute
 * the export succeeds and the report, WAITING for it and for the settlement file, is released and
 * runs; in an odd minute the export fails finally and the report is SKIPPED with DEPENDENCY_NOT_MET
 * at its 20 s deadline, with a WAIT_EXPIRED alert, and the live table shows both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(LogCapturingExtension.class)
class EcommerceDemoTest {

  /** 10:00 Asia/Shanghai: nothing of application.conf fires near it. */
  private static final Instant EVEN = Instant.parse("2026-11-29T02:00:00Z");
  private static final Instant ODD = EVEN.plusSeconds(60);

  private final SettableClock clock = new SettableClock(EVEN.minusSeconds(2));
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();
  private Path dataDir;
  private ActorTestKit testKit;
  private Almanac almanac;

  @BeforeAll
  void start(@TempDir Path tmp) throws Exception {
    dataDir = Files.createDirectories(tmp.resolve("data"));
    Config config = ConfigFactory.load(ConfigFactory.parseString(
            "almanac.persistence.h2.path = " + ConfigUtil.quoteString(tmp.resolve("almanac").toString()) + "\n"
                + "almanac-demo.data-dir = " + ConfigUtil.quoteString(dataDir.toString()) + "\n"
                + "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }\n"
                + "almanac.executor { check-interval = 20ms }\n"
                + "almanac.alerts { watchdog-interval = 100ms }\n"
                + "pekko.actor.testkit.typed.system-shutdown-default = 30s\n")
        .withFallback(ConfigFactory.parseResources("application.conf")));
    testKit = ActorTestKit.create("almanac", config);
    io.almanac.persistence.SchemaBootstrap.ensureSchemaBlocking(testKit.system(), Duration.ofSeconds(20));
    Almanac.Builder builder = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add);
    DemoTasks.jobs(dataDir, clock, DemoTasks.Timing.DEMO).forEach(builder::job);
    DemoTasks.conditions(dataDir).forEach(builder::condition);
    almanac = builder.start();
    await(almanac.registerAll(DemoTasks.ecommerceTasks()));
    // application.conf's tasks (the digest, order-export, daily-report and the four agent-job tasks)
    // are registered by start().
    eventually(Duration.ofSeconds(20), () -> assertEquals(9, await(almanac.taskIds()).size(), await(almanac.taskIds()).toString()));
  }

  @AfterAll
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @Order(0)
  @DisplayName("R34: application.conf declares the 00:30 Asia/Shanghai chain: depends-on order-export, settlement condition")
  void declaredChain() {
    TaskSpec report = await(almanac.task(DemoTasks.DAILY_REPORT)).spec();
    assertEquals("0 30 0 * * ?", report.cron());
    assertEquals("Asia/Shanghai", report.zone());
    assertEquals(DependencyTrigger.on(DemoTasks.ORDER_EXPORT).waitAtMost(Duration.ofHours(6)), report.dependency());
    assertEquals(ConditionTrigger.named(DemoTasks.SETTLEMENT_FILE_ARRIVED).every(Duration.ofMinutes(1)).debounce(2)
        .waitAtMost(Duration.ofHours(6)), report.condition());
    TaskSpec export = await(almanac.task(DemoTasks.ORDER_EXPORT)).spec();
    assertEquals("0 30 0 * * ?", export.cron());
    assertEquals("Asia/Shanghai", export.zone());
    assertEquals(Instant.parse("2026-11-29T16:30:00Z"), await(almanac.task(DemoTasks.ORDER_EXPORT)).nextDue(),
        "00:30 in Shanghai is 16:30 UTC the day before");
  }

  @Test
  @Order(1)
  @DisplayName("R9: the export of an even minute succeeds; the report, waiting for it and the settlement file, is released and runs")
  void reportReleasedAfterExportSucceeds() {
    String key = EVEN.toString();
    clock.set(EVEN);
    stepUntil(EVEN.plusSeconds(15), () -> assertStatus(DemoTasks.ORDER_EXPORT_FAST, key, InstanceStatus.SUCCEEDED));
    stepUntil(EVEN.plusSeconds(15), () -> assertStatus(DemoTasks.DAILY_REPORT_FAST, key, InstanceStatus.SUCCEEDED));
    WindowView report = window(DemoTasks.DAILY_REPORT_FAST, key);
    assertTrue(report.summary().contains("settlement reconciled"), report.summary());
    assertEquals(1, report.attempt());
    assertTrue(Files.exists(dataDir.resolve("reports").resolve(key.replace(':', '-') + ".md")));
    assertTrue(clock.instant().isBefore(EVEN.plus(DemoTasks.FAST_REPORT_WAIT)), "released before its deadline: " + clock.instant());
    assertEquals(0, alerts.stream().filter(a -> a.kind() == Alert.Kind.WAIT_EXPIRED).count(), alerts.toString());
  }

  @Test
  @Order(2)
  @DisplayName("R9: the export of an odd minute fails finally; the report waits, then is SKIPPED with DEPENDENCY_NOT_MET at its"
      + " deadline, alerted, and the live table shows it")
  void reportSkippedWhenExportNeverSucceeds() {
    String key = ODD.toString();
    clock.set(ODD);
    stepUntil(ODD.plusSeconds(10), () -> assertStatus(DemoTasks.ORDER_EXPORT_FAST, key, InstanceStatus.FINAL_FAILED));
    WindowView export = window(DemoTasks.ORDER_EXPORT_FAST, key);
    assertTrue(export.reason().contains("warehouse database unreachable"), export.reason());
    assertTrue(Files.exists(OrderExportJob.settlementFile(dataDir, key)), "the settlement file arrived: only the dependency is unmet");

    // Before its deadline the report's window waits, saying for what.
    assertTrue(clock.instant().isBefore(ODD.plus(DemoTasks.FAST_REPORT_WAIT)), clock.instant().toString());
    WindowView waiting = window(DemoTasks.DAILY_REPORT_FAST, key);
    assertEquals(InstanceStatus.WAITING, waiting.status(), waiting.toString());
    assertTrue(waiting.reason().startsWith("waiting for"), waiting.reason());
    String table = new LiveTable(almanac, EVEN.minusSeconds(2), Duration.ofHours(1)).render(Duration.ofSeconds(10));
    assertTrue(table.lines().anyMatch(l -> l.contains(DemoTasks.DAILY_REPORT_FAST) && l.contains("WAITING")
        && l.contains("waiting for")), table);

    // Past it: SKIPPED with DEPENDENCY_NOT_MET, naming the unmet upstream window, and a WAIT_EXPIRED alert.
    stepUntil(ODD.plus(DemoTasks.FAST_REPORT_WAIT).plusSeconds(10),
        () -> assertStatus(DemoTasks.DAILY_REPORT_FAST, key, InstanceStatus.SKIPPED));
    WindowView skipped = window(DemoTasks.DAILY_REPORT_FAST, key);
    assertTrue(skipped.reason().startsWith("DEPENDENCY_NOT_MET"), skipped.reason());
    assertTrue(skipped.reason().contains(DemoTasks.ORDER_EXPORT_FAST), skipped.reason());
    assertEquals(0, skipped.attempt(), "nothing ran for it");
    assertTrue(!clock.instant().isBefore(ODD.plus(DemoTasks.FAST_REPORT_WAIT)), "not before its deadline: " + clock.instant());
    assertTrue(!Files.exists(dataDir.resolve("reports").resolve(key.replace(':', '-') + ".md")));
    eventually(Duration.ofSeconds(10), () -> assertTrue(alerts.stream().anyMatch(a -> a.kind() == Alert.Kind.WAIT_EXPIRED
        && DemoTasks.DAILY_REPORT_FAST.equals(a.taskId()) && key.equals(a.window())), alerts.toString()));
    String after = new LiveTable(almanac, EVEN.minusSeconds(2), Duration.ofHours(1)).render(Duration.ofSeconds(10));
    assertTrue(after.lines().anyMatch(l -> l.contains(DemoTasks.DAILY_REPORT_FAST) && l.contains("SKIPPED")
        && l.contains("DEPENDENCY_NOT_MET")), after);
    // The even minute's report is still SUCCEEDED: one day met, one not.
    assertStatus(DemoTasks.DAILY_REPORT_FAST, EVEN.toString(), InstanceStatus.SUCCEEDED);
  }

  @Test
  @Order(3)
  @DisplayName("R9/R31: an operator exports the odd minute by hand and resolves it: the skipped report is released late and runs")
  void reportReleasedLateWhenTheExportIsResolved() throws Exception {
    String key = ODD.toString();
    assertStatus(DemoTasks.DAILY_REPORT_FAST, key, InstanceStatus.SKIPPED);
    OrderExportJob.write(OrderExportJob.exportFile(dataDir, key), "orders,window\n42," + key + "\n");
    await(almanac.resolve(DemoTasks.ORDER_EXPORT_FAST, WindowKey.of(key), "exported by hand from the replica"));
    Instant limit = clock.instant().plusSeconds(15);
    stepUntil(limit, () -> assertStatus(DemoTasks.DAILY_REPORT_FAST, key, InstanceStatus.SUCCEEDED));
    WindowView report = window(DemoTasks.DAILY_REPORT_FAST, key);
    assertTrue(report.summary().contains("42 orders"), report.summary());
    assertEquals(1, report.attempt());
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Checks the assertion; while it fails, gives the node up to 500 ms to act at this instant, then
   * moves the clock on by one second, up to {@code limit} (the node's polls and deadlines follow
   * Almanac's clock).
   */
  private void stepUntil(Instant limit, Runnable assertion) {
    while (true) {
      try {
        Eventually.eventually(Duration.ofMillis(500), assertion::run);
        return;
      } catch (AssertionError | Exception e) {
        if (!clock.instant().isBefore(limit)) {
          throw e instanceof AssertionError a ? a : new AssertionError(e);
        }
        clock.advance(Duration.ofSeconds(1));
      }
    }
  }

  private Optional<WindowView> find(String task, String key) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().equals(WindowKey.of(key))).findFirst();
  }

  private WindowView window(String task, String key) {
    return find(task, key).orElseThrow(() -> new AssertionError("no window " + key + " of " + task));
  }

  private void assertStatus(String task, String key, InstanceStatus expected) {
    WindowView w = window(task, key);
    assertNotNull(w);
    assertEquals(expected, w.status(), task + " " + key + ": " + w);
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(15, TimeUnit.SECONDS).join();
  }

  private static void eventually(Duration timeout, Runnable assertion) {
    try {
      Eventually.eventually(timeout, assertion::run);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
