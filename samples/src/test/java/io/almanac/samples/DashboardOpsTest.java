package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.OverlapPolicy;
import io.almanac.TaskSpec;
import io.almanac.Usage;
import io.almanac.WindowView;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebElement;

/**
 * The dashboard as an operator uses it on a bad day, in a real headless Chromium against a node of
 * its own (in-memory journal, a settable clock that does not move unless the test moves it), read
 * through its HTTP API. On 2026-11-29 at 00:01:30 UTC the node holds:
 *
 * <ul>
 *   <li>{@code daily-report} (daily at 00:00 UTC, its job fails): window {@code 2026-11-29} FINAL_FAILED;
 *   <li>{@code minutely} (every minute of 21:00..22:59, per-firing, its job reports usage): 120
 *       windows backfilled, far more than a screen: its daily neighbour must still show its own
 *       latest windows;
 *   <li>{@code hanging} (daily, its job never ends): window {@code 2026-11-29} RUNNING;
 *   <li>{@code flaky} (hourly at :30, per-firing, fails): no window until the test backfills it;
 *   <li>{@code stuck} (hourly at :15, per-firing, overlap ALLOW, its job never ends): two windows
 *       backfilled, both RUNNING;
 *   <li>{@code noon} (daily at 12:00 UTC): not due yet today, for Run now.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardOpsTest {

  static final String TOKEN = "s3cret-token-for-tests";
  static final String DAY = "2026-11-29";

  @TempDir static Path dir;
  private final io.almanac.testkit.SettableClock clock =
      new io.almanac.testkit.SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private DashboardBrowser b;

  static Config inMemoryNode(String extra) {
    // load(config): the reference settings under the test's, without an application.conf's tasks
    return ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
            "pekko.actor.provider = cluster",
            "pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }",
            "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
            "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
            "almanac.executor { check-interval = 20ms, backlog-burst = 1000, backlog-burst-per-task = 1000 }",
            "almanac.http.port = 0",
            "almanac.http.token = \"" + TOKEN + "\"", extra))
        .withFallback(PersistenceTestKitPlugin.getInstance().config())
        .withFallback(PersistenceTestKitSnapshotPlugin.config()));
  }

  static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(60, TimeUnit.SECONDS).join();
  }

  private Map<String, WindowView> windows(String task) {
    return await(almanac.windows(task)).stream().collect(Collectors.toMap(w -> w.window().value(), w -> w));
  }

  private void eventually(Runnable check) {
    DashboardBrowser.eventually(node, check);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("dashboard-ops", inMemoryNode(""));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("done")
        .withUsage(Usage.of("small-model", 10, 5, new BigDecimal("0.01"))));
    AgentJob fails = ctx -> CompletableFuture.completedFuture(JobResult.failure("upstream is down (attempt "
        + ctx.attempt() + ")"));
    AgentJob hangs = ctx -> new CompletableFuture<>(); // its own: a cancelled attempt's future is cancelled
    almanac = Almanac.builder(node.system()).clock(clock).job("ok", ok).job("fails", fails).job("hangs", hangs).start();
    await(almanac.register(TaskSpec.builder("daily-report").cron("0 0 0 * * ? UTC").job("fails").build()));
    await(almanac.register(TaskSpec.builder("minutely").cron("0 * 21-22 * * ? UTC").window("per-firing")
        .overlap(OverlapPolicy.ALLOW).job("ok").build()));
    await(almanac.register(TaskSpec.builder("hanging").cron("0 0 0 * * ? UTC").job("hangs").build()));
    await(almanac.register(TaskSpec.builder("flaky").cron("0 30 * * * ? UTC").window("per-firing").job("fails").build()));
    await(almanac.register(TaskSpec.builder("noon").cron("0 0 12 * * ? UTC").job("ok").build()));
    await(almanac.register(TaskSpec.builder("stuck").cron("0 15 * * * ? UTC").window("per-firing")
        .overlap(OverlapPolicy.ALLOW).job("hangs").build()));
    await(almanac.ready());
    await(almanac.backfill("minutely", Instant.parse("2026-11-28T20:59:00Z"), Instant.parse("2026-11-28T22:59:00Z")));
    await(almanac.backfill("stuck", Instant.parse("2026-11-28T19:00:00Z"), Instant.parse("2026-11-28T21:00:00Z")));
    eventually(() -> assertEquals(120, windows("minutely").values().stream()
        .filter(w -> w.status() == InstanceStatus.SUCCEEDED).count()));
    eventually(() -> assertEquals(2, windows("stuck").values().stream()
        .filter(w -> w.status() == InstanceStatus.RUNNING).count()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, windows("daily-report").get(DAY).status()));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, windows("hanging").get(DAY).status()));
    clock.set(Instant.parse("2026-11-29T00:01:30Z"));
    ServerBinding binding = io.almanac.http.AlmanacHttp.start(node.system(), almanac).toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    b = new DashboardBrowser(dir.resolve("chromium-profile"), 1400, 1000);
    b.open(base + "/");
    b.script("sessionStorage.setItem('almanac.token', arguments[0])", TOKEN);
  }

  @AfterAll
  void stop() {
    DashboardBrowser.closeWith(b, node);
  }

  private void list() {
    b.open(base + "/#/");
    b.wait.until(d -> "list".equals(d.findElement(By.tagName("body")).getAttribute("data-view")));
  }

  /** Opens a URL in a fresh load (not a hash change of the page already open). */
  private void fresh(String url) {
    b.driver.get("about:blank");
    b.open(url);
  }

  private void taskPage(String task) {
    fresh(base + "/#/tasks/" + enc(task));
    b.wait.until(d -> task.equals(d.findElement(By.id("task-id")).getText())
        && !d.findElements(By.cssSelector("#task-spec dd")).isEmpty());
  }

  private static String row(String task) {
    return "#tasks tbody tr[data-task='" + task + "']";
  }

  @Test
  @Order(1)
  @DisplayName("first screen: each task shows its own latest 20 windows, newest right, so a daily task's FINAL_FAILED "
      + "window is in view next to a task with 120 windows")
  void dailyFailureOnTheFirstScreen() {
    list();
    String failed = row("daily-report") + " .cell.st-FINAL_FAILED[data-window='" + DAY + "']";
    WebElement cell = b.wait.until(d -> d.findElement(By.cssSelector(failed)));
    assertTrue(cell.isDisplayed());
    long viewport = ((Number) b.script("return window.innerHeight")).longValue();
    assertTrue(cell.getRect().getY() + cell.getRect().getHeight() <= viewport, "in the first screen: " + cell.getRect());
    assertEquals(20, b.count(row("minutely") + " .cell", 20));
    List<String> keys = b.all(row("minutely") + " .cell", "data-window");
    assertEquals("2026-11-28T22:59:00Z", keys.get(19), "newest right: " + keys);
    assertEquals("2026-11-28T22:40:00Z", keys.get(0), keys.toString());
    assertTrue(b.read(row("daily-report") + " .attention", null).contains("FINAL_FAILED"));
  }

  @Test
  @Order(2)
  @DisplayName("filters: text on the task id, the latest window's status, paused, and needs attention")
  void filters() {
    list();
    assertEquals(6, b.count("#tasks tbody tr", 6));
    b.type("#filter-text", "ING");
    assertEquals(List.of("hanging"), b.all("#tasks tbody tr", "data-task"));
    b.type("#filter-text", "");
    assertEquals(6, b.count("#tasks tbody tr", 6));
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-status"))).selectByValue("FINAL_FAILED");
    assertEquals(List.of("daily-report"), b.all("#tasks tbody tr", "data-task"));
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-status"))).selectByValue("RUNNING");
    assertEquals(List.of("hanging", "stuck"), b.all("#tasks tbody tr", "data-task").stream().sorted().toList());
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-status"))).selectByValue("NONE");
    assertEquals(List.of("flaky", "noon"), b.all("#tasks tbody tr", "data-task").stream().sorted().toList(),
        "no window yet");
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-status"))).selectByValue("");
    b.click("#filter-attention");
    assertEquals(List.of("daily-report"), b.all("#tasks tbody tr", "data-task"), "only the FINAL_FAILED one");
    b.click("#filter-attention");
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-paused"))).selectByValue("paused");
    assertEquals(0, b.count("#tasks tbody tr", 0));
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-paused"))).selectByValue("active");
    assertEquals(6, b.count("#tasks tbody tr", 6));
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-paused"))).selectByValue("");
  }

  @Test
  @Order(3)
  @DisplayName("deep links: #/tasks/{id} opens the task's page, #/tasks/{id}/windows/{key} its window; a click on a cell "
      + "goes there and Back returns to the list")
  void deepLinks() {
    taskPage("daily-report");
    assertEquals("0 0 0 * * ? (UTC)", b.read("#task-spec .f-schedule", null));
    assertEquals("2026-11-30 00:00:00Z", b.read("#task-spec .f-next-fire-utc", null));
    assertEquals("2026-11-30 00:00:00Z UTC", b.read("#task-spec .f-next-fire-local", null));
    assertTrue(b.read("#task-spec .f-overlap", null).startsWith("SKIP"));
    assertTrue(b.read("#task-spec .f-catch-up", null).contains("MISSED"), b.read("#task-spec .f-catch-up", null));
    assertEquals("none", b.read("#task-spec .f-pools", null));

    String key = "2026-11-28T22:30:00Z";
    fresh(base + "/#/tasks/minutely/windows/" + enc(key));
    b.wait.until(d -> key.equals(d.findElement(By.id("detail")).getAttribute("data-window")));
    assertEquals("minutely " + key, b.read("#detail-title", null));
    b.until("#detail-fields .f-status", "SUCCEEDED");
    assertEquals("10 in / 5 out tokens, cost 0.01, model small-model", b.read("#detail-fields .f-usage", null));

    list();
    b.click(row("daily-report") + " .cell[data-window='" + DAY + "']");
    b.wait.until(d -> d.getCurrentUrl().endsWith("#/tasks/daily-report/windows/" + DAY));
    b.wait.until(d -> DAY.equals(d.findElement(By.id("detail")).getAttribute("data-window")));
    b.until("#detail-fields .f-status", "FINAL_FAILED");
    b.driver.navigate().back();
    b.wait.until(d -> d.findElement(By.id("view-list")).isDisplayed());
    b.driver.navigate().forward();
    b.wait.until(d -> d.findElement(By.id("detail")).isDisplayed());
    assertEquals("daily-report " + DAY, b.read("#detail-title", null));
  }

  @Test
  @Order(4)
  @DisplayName("pause and resume from the task page: the Java API sees it, and the list's paused filter finds it")
  void pauseAndResume() {
    taskPage("noon");
    b.click("#task-pause");
    b.until("#message", "Paused noon");
    eventually(() -> assertTrue(await(almanac.task("noon")).paused()));
    b.until("#task-state", "paused");
    list();
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-paused"))).selectByValue("paused");
    assertEquals(List.of("noon"), b.all("#tasks tbody tr", "data-task"));
    new org.openqa.selenium.support.ui.Select(b.driver.findElement(By.id("filter-paused"))).selectByValue("");
    b.click("#filter-attention");
    assertEquals(List.of("daily-report", "noon"), b.all("#tasks tbody tr", "data-task").stream().sorted().toList(),
        "paused needs attention too");
    b.click("#filter-attention");
    taskPage("noon");
    b.click("#task-resume");
    b.until("#message", "Resumed noon");
    eventually(() -> assertFalse(await(almanac.task("noon")).paused()));
  }

  @Test
  @Order(5)
  @DisplayName("run now: the window that contains now runs as a manual run")
  void runNow() {
    taskPage("noon");
    b.click("#task-run");
    String message = b.until("#message", "Run now: window " + DAY);
    assertTrue(message.contains("SCHEDULED"), message);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, windows("noon").get(DAY).status()));
    assertEquals(io.almanac.RunKind.MANUAL, windows("noon").get(DAY).runKind());
  }

  @Test
  @Order(6)
  @DisplayName("backfill: the dry run lists the windows and decisions and changes nothing; Confirm sends the real one")
  void backfillDryRunThenConfirm() {
    taskPage("flaky");
    b.type("#backfill-from", "2026-11-28T19:00:00Z");
    b.type("#backfill-to", "2026-11-28T23:00:00Z");
    b.click("#backfill-dry");
    b.until("#backfill-plan .plan-summary", "4 windows in (2026-11-28T19:00:00Z, 2026-11-28T23:00:00Z]: 4 SCHEDULED");
    assertEquals(List.of("2026-11-28T19:30:00Z", "2026-11-28T20:30:00Z", "2026-11-28T21:30:00Z", "2026-11-28T22:30:00Z"),
        b.all("#plan tbody tr", "data-window"));
    assertTrue(windows("flaky").isEmpty(), "a dry run changes nothing");
    b.click("#backfill-confirm");
    b.until("#message", "4 of 4 windows scheduled");
    eventually(() -> assertEquals(4, windows("flaky").values().stream()
        .filter(w -> w.status() == InstanceStatus.FINAL_FAILED).count()));
  }

  @Test
  @Order(7)
  @DisplayName("cancel a window from its page, with a reason; without one the page asks for it and sends nothing")
  void cancelAWindow() {
    fresh(base + "/#/tasks/hanging/windows/" + DAY);
    b.until("#detail-fields .f-status", "RUNNING");
    b.click("#window-cancel");
    b.until("#window-confirm-text", "Cancel window " + DAY + " of task hanging");
    b.click("#window-go");
    b.until("#message", "A reason is needed");
    assertEquals(InstanceStatus.RUNNING, windows("hanging").get(DAY).status());
    b.type("#window-text", "stuck on a dead upstream");
    b.click("#window-go");
    b.until("#message", "Cancelled hanging " + DAY);
    eventually(() -> assertEquals(InstanceStatus.CANCELLED, windows("hanging").get(DAY).status()));
    b.until("#detail-fields .f-status", "CANCELLED");
  }

  @Test
  @Order(8)
  @DisplayName("bulk actions on checked windows: retry all four, resolve two with a note, cancel two FINAL_FAILED ones "
      + "(refused, summed up with the problem's detail), cancel two running ones (taken), one POST per window with a count")
  void bulkActions() {
    taskPage("flaky");
    assertEquals(4, b.count("#task-windows tbody tr", 4));
    b.click("#select-all");
    b.until("#bulk-count", "4 selected");
    b.click("#bulk-retry");
    b.until("#bulk-confirm-text", "Retry 4 windows of task flaky");
    b.click("#bulk-go");
    b.until("#bulk-progress", "retry: 4/4 done");
    b.until("#message", "4 of 4 windows of flaky retried");
    eventually(() -> windows("flaky").values().forEach(w -> {
      assertEquals(2, w.attempt(), w.toString());
      assertEquals(InstanceStatus.FINAL_FAILED, w.status(), w.toString());
    }));
    b.click("#refresh");
    b.click("#task-windows tr[data-window='2026-11-28T19:30:00Z'] input.pick");
    b.click("#task-windows tr[data-window='2026-11-28T20:30:00Z'] input.pick");
    b.until("#bulk-count", "2 selected");
    b.click("#bulk-resolve");
    b.until("#bulk-confirm-text", "Resolve 2 windows of task flaky");
    b.click("#bulk-go");
    b.until("#message", "A note is needed");
    b.type("#bulk-text", "upstream fixed, rerun by hand");
    b.click("#bulk-go");
    b.until("#message", "2 of 2 windows of flaky resolved");
    eventually(() -> {
      assertEquals(InstanceStatus.RESOLVED, windows("flaky").get("2026-11-28T19:30:00Z").status());
      assertEquals(InstanceStatus.RESOLVED, windows("flaky").get("2026-11-28T20:30:00Z").status());
    });
    b.click("#task-windows tr[data-window='2026-11-28T21:30:00Z'] input.pick");
    b.click("#task-windows tr[data-window='2026-11-28T22:30:00Z'] input.pick");
    b.until("#bulk-count", "2 selected");
    b.click("#bulk-cancel");
    b.type("#bulk-text", "give up on these two");
    b.click("#bulk-go");
    String summary = b.until("#message", "0 of 2 windows of flaky cancelled; 2 refused: 2026-11-28T21:30:00Z: ");
    assertTrue(summary.contains("(409)"), summary);
    assertEquals(InstanceStatus.FINAL_FAILED, windows("flaky").get("2026-11-28T21:30:00Z").status());
    // a bulk cancel that is taken: stuck's two running windows
    taskPage("stuck");
    assertEquals(2, b.count("#task-windows tbody tr", 2));
    b.click("#select-all");
    b.until("#bulk-count", "2 selected");
    b.click("#bulk-cancel");
    b.until("#bulk-confirm-text", "Cancel 2 windows of task stuck");
    b.type("#bulk-text", "a dead upstream: give up on these");
    b.click("#bulk-go");
    b.until("#bulk-progress", "cancel: 2/2 done");
    b.until("#message", "2 of 2 windows of stuck cancelled");
    eventually(() -> windows("stuck").values().forEach(w -> assertEquals(InstanceStatus.CANCELLED, w.status(), w.toString())));
  }

  @Test
  @Order(9)
  @DisplayName("charts: run time with p50 and p99 lines, no lag for backfills, outcomes per day stacked, usage per day")
  void charts() throws Exception {
    taskPage("minutely");
    b.wait.until(d -> !d.findElements(By.cssSelector("#charts svg.duration rect.bar")).isEmpty());
    assertEquals("120", b.read("#charts svg.duration", "data-points"));
    // the lag chart draws fresh fires only: a backfill starts late by design (DashboardBulkTest draws fresh ones)
    assertEquals("0", b.read("#charts svg.lag", "data-points"));
    assertTrue(b.read("#charts figure:nth-child(2) figcaption", null).contains("120 backfills, catch-ups, retries and "
        + "manual runs left out"), b.read("#charts figure:nth-child(2) figcaption", null));
    assertEquals(1, b.driver.findElements(By.cssSelector("#charts svg.duration line.ref.p50")).size());
    assertEquals(1, b.driver.findElements(By.cssSelector("#charts svg.duration line.ref.p99")).size());
    // the lease line where the task JSON has one
    String lease = leaseMillis("minutely");
    if (lease == null) {
      assertEquals(0, b.driver.findElements(By.cssSelector("#charts svg.duration line.ref.lease")).size());
    } else {
      assertEquals(lease, b.read("#charts svg.duration", "data-lease"));
      assertEquals(1, b.driver.findElements(By.cssSelector("#charts svg.duration line.ref.lease")).size());
    }
    assertEquals("1", b.read("#charts svg.outcomes", "data-days"));
    assertEquals("120", b.read("#charts svg.outcomes rect.st-SUCCEEDED", "data-count"));
    assertEquals("1.2", b.read("#charts svg.usage rect.usage-bar", "data-cost"));
    assertEquals("1200", b.read("#charts svg.usage rect.usage-bar", "data-tokens-in"));
    // paging: 120 windows, 50 a page, newest first; Older and Newer follow the cursor
    assertEquals(50, b.count("#task-windows tbody tr", 50));
    assertEquals("2026-11-28T22:59:00Z", b.read("#task-windows tbody tr", "data-window"));
    b.click("#windows-older");
    b.attribute("#task-windows tbody tr", "data-window", "2026-11-28T22:09:00Z");
    b.click("#windows-older");
    assertEquals(20, b.count("#task-windows tbody tr", 20));
    assertFalse(b.driver.findElement(By.id("windows-older")).isEnabled(), "the last page");
    b.click("#windows-newer");
    b.attribute("#task-windows tbody tr", "data-window", "2026-11-28T22:09:00Z");
  }

  @Test
  @Order(10)
  @DisplayName("800 px wide: no horizontal page scroll on the list and the task page, and the task column is sticky")
  void narrow() throws Exception {
    Dimension before = b.driver.manage().window().getSize();
    try {
      b.driver.manage().window().setSize(new Dimension(800, 900));
      list();
      assertFitting("list");
      b.screenshot("list-800px");
      assertEquals("sticky", b.script("return getComputedStyle(document.querySelector(\"" + row("minutely")
          + " td.task\")).position"));
      taskPage("minutely");
      b.wait.until(d -> !d.findElements(By.cssSelector("#charts svg")).isEmpty());
      assertFitting("task page");
      b.open(base + "/#/tasks/minutely/windows/" + enc("2026-11-28T22:30:00Z"));
      b.until("#detail-fields .f-status", "SUCCEEDED");
      b.wait.until(d -> !d.findElement(By.id("why")).getText().endsWith("…")
          && !d.findElement(By.id("timeline")).getText().endsWith("…"));
      assertFitting("window");
    } finally {
      b.driver.manage().window().setSize(before);
    }
  }

  /** The task JSON's leaseMillis, or null. */
  private String leaseMillis(String task) {
    try {
      java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
          .newBuilder(java.net.URI.create(base + "/api/tasks/" + task)).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      com.fasterxml.jackson.databind.JsonNode n = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body())
          .get("leaseMillis");
      return n == null || n.isNull() ? null : n.asText();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private void assertFitting(String what) {
    long scroll = ((Number) b.script("return document.documentElement.scrollWidth")).longValue();
    long client = ((Number) b.script("return document.documentElement.clientWidth")).longValue();
    assertTrue(scroll <= client, what + ": scrollWidth " + scroll + " > clientWidth " + client);
    assertNotEquals(0, client);
  }
}
