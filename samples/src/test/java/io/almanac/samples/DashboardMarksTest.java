package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.PoolWaitReason;
import io.almanac.TaskSpec;
import io.almanac.Usage;
import io.almanac.WindowView;
import io.almanac.http.AlmanacHttp;
import io.almanac.http.AlmanacWindowSource;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.InstanceProjection;
import io.almanac.persistence.instances.InstanceQueries;
import io.almanac.persistence.instances.InstanceRow;
import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard's marks in a real headless Chromium (as {@link DashboardTest}): a window that missed
 * its deadline is marked LATE, a window waiting for a resource pool has a marker of its own whose
 * tooltip says the pool, the reason and the end of the wait, and the window's detail and the task's
 * row show the usage its job reported. Checked twice on one node, an H2 file: once with {@code
 * /api/windows} read from the SQL instance table (the node's default on a JDBC journal), once from
 * the tasks' in-memory views ({@link AlmanacWindowSource}, a second binding). On 2026-11-29 (UTC):
 *
 * <ul>
 *   <li>{@code report} (daily, deadline 1 s): its window ran past its deadline and then succeeded,
 *       reporting 1200 tokens in, 340 out, cost 0.0215, model gpt-4o;
 *   <li>{@code throttler} (daily, pool {@code llm}): its job answered throttled for 10 minutes, which
 *       paused the pool; its window waits to retry;
 *   <li>{@code waiter} (daily at 00:01, pool {@code llm}): its window is PENDING, waiting for the
 *       paused pool (PAUSED until the pause ends).
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardMarksTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final String DAY = "2026-11-29";

  @TempDir static Path dir;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private ActorTestKit node;
  private Almanac almanac;
  private String tableBase;
  private String memoryBase;
  private ChromeDriverService service;
  private ChromeDriver driver;
  private WebDriverWait wait;

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable check) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(DEADLINE, Duration.ofMillis(25), () -> {
      check.run();
      return null;
    });
  }

  private WindowView window(String task) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals(DAY)).findFirst().orElse(null);
  }

  @BeforeAll
  void start() throws Exception {
    if (!Files.isExecutable(DashboardTest.CHROMIUM) || !Files.isExecutable(DashboardTest.CHROMEDRIVER)) {
      fail("the dashboard test needs Chromium and its driver at " + DashboardTest.CHROMIUM + " and "
          + DashboardTest.CHROMEDRIVER + ": install them with `apt-get install -y chromium chromium-driver`, or pass "
          + "their paths with -Dalmanac.test.chromium=... -Dalmanac.test.chromedriver=...");
    }
    Config config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(Files.createDirectories(dir.resolve("node"))
            .resolve("almanac").toString()),
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.instances.poll-interval = 20ms",
        "almanac.pool-store.poll-interval = 50ms",
        "almanac.pools.llm { max-concurrent = 4 }",
        "almanac.http.port = 0")));
    node = ActorTestKit.create("dashboard-marks", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(60));
    CompletableFuture<JobResult> release = new CompletableFuture<>();
    AtomicInteger throttles = new AtomicInteger();
    AgentJob slow = ctx -> release;
    AgentJob throttling = ctx -> CompletableFuture.completedFuture(throttles.getAndIncrement() == 0
        ? JobResult.throttled(Duration.ofMinutes(10)) : JobResult.success("ok"));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    almanac = Almanac.builder(node.system()).clock(clock).job("slow", slow).job("throttling", throttling).job("ok", ok)
        .start();
    InstanceProjection.start(node.system(), clock);
    ServerBinding table = AlmanacHttp.start(node.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding memory = AlmanacHttp.start(node.system(), almanac, new AlmanacWindowSource(almanac))
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    tableBase = "http://127.0.0.1:" + table.localAddress().getPort();
    memoryBase = "http://127.0.0.1:" + memory.localAddress().getPort();

    await(almanac.register(TaskSpec.builder("report").cron("0 0 0 * * ? UTC").job("slow").deadline(Duration.ofSeconds(1))
        .build()));
    await(almanac.register(TaskSpec.builder("throttler").cron("0 0 0 * * ? UTC").job("throttling").pools("llm").build()));
    await(almanac.register(TaskSpec.builder("waiter").cron("0 1 0 * * ? UTC").job("ok").pools("llm").build()));
    await(almanac.ready());
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, window("report").status()));
    eventually(() -> assertEquals(InstanceStatus.RETRY_WAIT, window("throttler").status()));
    clock.set(Instant.parse("2026-11-29T00:00:30Z")); // past report's deadline (due + 1 s) while it runs
    eventually(() -> assertNotNull(window("report").deadlineMissedAt()));
    clock.set(Instant.parse("2026-11-29T00:01:01Z")); // waiter is due; the pool is paused by the throttle
    eventually(() -> assertNotNull(window("waiter").poolWait()));
    release.complete(JobResult.success("report sent").withUsage(Usage.of("gpt-4o", 1200, 340, new BigDecimal("0.0215"))));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window("report").status()));
    InstanceQueries queries = InstanceQueries.create(node.system());
    eventually(() -> { // the instance table has caught up
      InstanceRow report = queries.row("report", DAY).orElseThrow();
      assertEquals(InstanceStatus.SUCCEEDED, report.status());
      assertEquals(window("report").deadlineMissedAt(), report.deadlineMissedAt());
      assertEquals(1200, report.tokensIn());
      assertEquals("llm", queries.row("waiter", DAY).orElseThrow().poolWaitPool());
    });

    System.setProperty("webdriver.chrome.driver", DashboardTest.CHROMEDRIVER.toString());
    service = new ChromeDriverService.Builder().usingDriverExecutable(DashboardTest.CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(DashboardTest.CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium-profile")), "--window-size=1400,1050");
    driver = new ChromeDriver(service, options);
    wait = new WebDriverWait(driver, DEADLINE);
  }

  @AfterAll
  void stop() {
    try {
      if (driver != null) {
        driver.quit();
      }
      if (service != null) {
        service.stop();
      }
    } finally {
      if (node != null) {
        node.shutdownTestKit();
      }
    }
  }

  /** An attribute (or, for null, the text) of what the selector finds, again if a refresh replaced it meanwhile. */
  private String read(By by, String attribute) {
    return wait.until(d -> {
      try {
        WebElement e = d.findElement(by);
        return attribute == null ? e.getText() : e.getAttribute(attribute);
      } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException e) {
        return null;
      }
    });
  }

  private void click(By by) {
    wait.until(d -> {
      try {
        d.findElement(by).click();
        return true;
      } catch (StaleElementReferenceException | org.openqa.selenium.NoSuchElementException e) {
        return false;
      }
    });
  }

  private static By cell(String task) {
    return By.cssSelector("#tasks .cell[data-task='" + task + "'][data-window='" + DAY + "']");
  }

  @ParameterizedTest(name = "windows from the {0}")
  @ValueSource(strings = {"instance table", "in-memory views"})
  @DisplayName("LATE on a window that missed its deadline, a pool-wait marker with its tooltip, and usage in the window's "
      + "detail and the task's page")
  void marksAndUsage(String source) {
    driver.get((source.equals("instance table") ? tableBase : memoryBase) + "/");
    wait.until(d -> "true".equals(d.findElement(By.tagName("body")).getAttribute("data-loaded")));

    // the LATE mark on report's cell
    // the cells are small squares: the marks are a "!" and a "P" with their words in their titles
    assertEquals("!", read(new org.openqa.selenium.support.pagefactory.ByChained(cell("report"), By.className("late-mark")),
        null));
    assertTrue(read(new org.openqa.selenium.support.pagefactory.ByChained(cell("report"), By.className("late-mark")),
        "title").startsWith("deadline missed (recorded 2026-11-29T00:00:"));
    assertTrue(read(cell("report"), "class").contains("late"), read(cell("report"), "class"));
    // a late window makes its task need attention
    assertEquals("1 late", read(By.cssSelector("#tasks tr[data-task='report']"), "data-attention"));
    assertEquals("", read(By.cssSelector("#tasks tr[data-task='waiter']"), "data-attention"));
    assertEquals(0, driver.findElements(By.cssSelector("#tasks .cell[data-task='waiter'] .late-mark")).size(),
        "no deadline, no mark");

    // the pool-wait marker on waiter's cell, its tooltip from the typed wait
    WindowView.PoolWait pw = window("waiter").poolWait();
    assertEquals(PoolWaitReason.PAUSED, pw.reason());
    By pool = By.cssSelector("#tasks .cell[data-task='waiter'][data-window='" + DAY + "'] .pool-mark");
    assertEquals("waiting for pool llm: PAUSED until " + pw.until(), read(pool, "title"));
    assertEquals("llm", read(pool, "data-pool"));
    assertEquals("PAUSED", read(pool, "data-reason"));
    assertEquals("P", read(pool, null));
    assertEquals(0, driver.findElements(By.cssSelector("#tasks .cell[data-task='report'] .pool-mark")).size());

    // report's detail (its window's page): the deadline missed and its usage
    click(cell("report"));
    wait.until(d -> "report".equals(d.findElement(By.id("detail")).getAttribute("data-task")));
    assertEquals("1200 in / 340 out tokens, cost 0.0215, model gpt-4o", read(By.cssSelector("#detail-fields .f-usage"), null));
    assertTrue(read(By.cssSelector("#detail-fields .f-deadline-missed"), null).startsWith("2026-11-29 00:00:"),
        read(By.cssSelector("#detail-fields .f-deadline-missed"), null));
    // report's task page: today's usage and the model of its latest window (the list asks no task's usage: one
    // request per task per refresh would not scale to many tasks)
    By usage = By.id("usage-today");
    wait.until(d -> d.findElement(usage).getText().startsWith("Usage today ("));
    assertEquals("1200", read(usage, "data-tokens-in"));
    assertEquals("340", read(usage, "data-tokens-out"));
    assertEquals("0.0215", read(usage, "data-cost"));
    assertEquals("gpt-4o", read(usage, "data-model"));
    assertEquals("Usage today (2026-11-29, UTC): 1200 in / 340 out, cost 0.0215, gpt-4o", read(usage, null));

    // waiter's detail: its pool wait, and no usage
    driver.navigate().back();
    wait.until(d -> d.findElement(By.id("view-list")).isDisplayed());
    click(cell("waiter"));
    wait.until(d -> "waiter".equals(d.findElement(By.id("detail")).getAttribute("data-task")));
    assertEquals("waiting for pool llm: PAUSED until " + pw.until(), read(By.cssSelector("#detail-fields .f-pool-wait"),
        null));
    assertEquals(0, driver.findElements(By.cssSelector("#detail-fields .f-usage")).size(), "no usage reported");
    wait.until(d -> d.findElement(usage).getText().startsWith("Usage today"));
    assertEquals("Usage today: –", read(usage, null), "nothing reported today");
  }
}
