package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.OverlapPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
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
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The operator pages for many windows at once, in a headless Chromium against one node of the class
 * (in-memory journal, a settable clock): the intervention queue's select-all bulk retry and resolve
 * of one task's part of it, a task's range retry, the window search, and the task page's charts. The
 * node holds:
 *
 * <ul>
 *   <li>{@code reports} (10:00..16:00 UTC hourly, fails): 6 windows of 2026-11-28 FINAL_FAILED;
 *   <li>{@code exports} (20:00 and 21:00 UTC, fails): 2 windows FINAL_FAILED;
 *   <li>{@code mixed} (00:00..04:00 UTC hourly): 5 fresh fires of 2026-11-29 that started 200 ms to
 *       10 s late and ran 150 ms to 30 min (the clock moved while they ran), and 2 backfilled windows.
 * </ul>
 *
 * The tests run in order; each acts on what the one before left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBulkTest {

  static final String TOKEN = DashboardOpsTest.TOKEN;
  static final long[] LAGS = {200, 1_000, 3_000, 500, 10_000};
  static final long[] RUNS = {150, 2_000, 40_000, 300_000, 1_800_000};

  @TempDir static Path dir;
  private final io.almanac.testkit.SettableClock clock =
      new io.almanac.testkit.SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private final Map<String, CompletableFuture<JobResult>> held = new ConcurrentHashMap<>();
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private DashboardBrowser b;

  private Map<String, WindowView> windows(String task) {
    return DashboardOpsTest.await(almanac.windows(task)).stream().collect(Collectors.toMap(w -> w.window().value(), w -> w));
  }

  private void eventually(Runnable check) {
    DashboardBrowser.eventually(node, check);
  }

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("dashboard-bulk", DashboardOpsTest.inMemoryNode(""));
    AgentJob fails = ctx -> CompletableFuture.completedFuture(JobResult.failure("upstream is down (attempt "
        + ctx.attempt() + ")"));
    AgentJob timed = ctx -> held.getOrDefault(ctx.window().value(), CompletableFuture.completedFuture(JobResult.success("quick")));
    almanac = Almanac.builder(node.system()).clock(clock).job("fails", fails).job("timed", timed).start();
    DashboardOpsTest.await(almanac.register(TaskSpec.builder("reports").cron("0 0 10-16 * * ? UTC").window("per-firing")
        .job("fails").build()));
    DashboardOpsTest.await(almanac.register(TaskSpec.builder("exports").cron("0 0 20-21 * * ? UTC").window("per-firing")
        .job("fails").build()));
    DashboardOpsTest.await(almanac.register(TaskSpec.builder("mixed").cron("0 0 0-4 * * ? UTC").window("per-firing")
        .overlap(OverlapPolicy.ALLOW).job("timed").build()));
    DashboardOpsTest.await(almanac.ready());
    DashboardOpsTest.await(almanac.backfill("reports", Instant.parse("2026-11-28T09:30:00Z"),
        Instant.parse("2026-11-28T15:00:00Z")));
    DashboardOpsTest.await(almanac.backfill("exports", Instant.parse("2026-11-28T19:00:00Z"),
        Instant.parse("2026-11-28T21:00:00Z")));
    DashboardOpsTest.await(almanac.backfill("mixed", Instant.parse("2026-11-28T02:00:00Z"),
        Instant.parse("2026-11-28T04:00:00Z")));
    eventually(() -> {
      assertEquals(6, windows("reports").values().stream().filter(w -> w.status() == InstanceStatus.FINAL_FAILED).count());
      assertEquals(2, windows("exports").values().stream().filter(w -> w.status() == InstanceStatus.FINAL_FAILED).count());
      assertEquals(2, windows("mixed").values().stream().filter(w -> w.status() == InstanceStatus.SUCCEEDED).count());
    });
    // five fresh fires, each started late by its lag and run for its time: the clock moves while it runs
    for (int i = 0; i < 5; i++) {
      Instant due = Instant.parse("2026-11-29T0" + i + ":00:00Z");
      String key = due.toString();
      CompletableFuture<JobResult> release = new CompletableFuture<>();
      held.put(key, release);
      clock.set(due.plusMillis(LAGS[i]));
      eventually(() -> assertEquals(InstanceStatus.RUNNING, windows("mixed").get(key).status()));
      clock.set(due.plusMillis(LAGS[i] + RUNS[i]));
      release.complete(JobResult.success("ran " + RUNS[i] + " ms"));
      eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, windows("mixed").get(key).status()));
    }
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

  /** Opens a URL in a fresh load (not a hash change of the page already open). */
  private void fresh(String url) {
    b.driver.get("about:blank");
    b.open(url);
  }

  private void taskPage(String task) {
    fresh(base + "/#/tasks/" + URLEncoder.encode(task, StandardCharsets.UTF_8));
    b.wait.until(d -> task.equals(d.findElement(By.id("task-id")).getText())
        && !d.findElements(By.cssSelector("#task-spec dd")).isEmpty());
  }

  private void select(String id, String value) {
    b.wait.until(d -> {
      try {
        WebElement s = d.findElement(By.id(id));
        new Select(s).selectByValue(value);
        return value.equals(s.getAttribute("value"));
      } catch (org.openqa.selenium.NoSuchElementException | org.openqa.selenium.StaleElementReferenceException e) {
        return false; // not there yet, or re-rendered by a refresh meanwhile: again
      }
    });
  }

  @Test
  @Order(1)
  @DisplayName("queue: filter by task, select all, the question names the count of the whole filtered set, and one "
      + "call retries them all; resolve all of another task asks for a note")
  void queueBulk() throws Exception {
    fresh(base + "/#/");
    b.count("#queue tbody tr", 8);
    select("queue-task", "reports");
    assertEquals(6, b.count("#queue tbody tr", 6), "the queue shows the filtered task's windows");
    assertTrue(b.all("#queue tbody tr", "data-task").stream().allMatch("reports"::equals));
    assertTrue(b.driver.findElement(By.id("queue-retry-all")).getAttribute("disabled") != null, "nothing selected yet");
    b.click("#queue-select-all");
    b.until("#queue-select-all-text", "select all 6 windows of reports (the whole filtered queue)");
    b.click("#queue-retry-all");
    String question = b.until("#queue-confirm-text", "Retry 6 windows of task reports?");
    assertTrue(question.startsWith("Retry 6 windows of task reports?"), question);
    assertEquals("Retry 6 windows", b.read("#queue-go", null));
    b.screenshot("queue-bulk");
    assertEquals(1, windows("reports").get("2026-11-28T10:00:00Z").attempt(), "nothing sent before the confirmation");
    b.click("#queue-go");
    b.attribute("#queue-result", "data-done", "6");
    assertEquals("0", b.read("#queue-result", "data-refused"));
    b.until("#message", "6 of 6 windows retried");
    eventually(() -> windows("reports").values().forEach(w -> {
      assertEquals(2, w.attempt(), w.toString());
      assertEquals(InstanceStatus.FINAL_FAILED, w.status(), w.toString()); // its job fails again
    }));
    windows("exports").values().forEach(w -> assertEquals(1, w.attempt(), "another task's queue is left alone: " + w));

    select("queue-task", "exports");
    b.click("#queue-select-all");
    b.click("#queue-resolve-all");
    b.until("#queue-confirm-text", "Resolve 2 windows of task exports?");
    b.click("#queue-go");
    b.until("#message", "A note is needed");
    assertEquals(InstanceStatus.FINAL_FAILED, windows("exports").get("2026-11-28T20:00:00Z").status(), "not sent without a note");
    b.type("#queue-text", "exported by hand");
    b.click("#queue-go");
    b.attribute("#queue-result", "data-done", "2");
    eventually(() -> windows("exports").values().forEach(w -> assertEquals(InstanceStatus.RESOLVED, w.status(), w.toString())));
  }

  @Test
  @Order(2)
  @DisplayName("task page: a range's preview names the count of windows of the status due in (from, to], and its "
      + "confirmation retries exactly those")
  void rangeRetry() throws Exception {
    taskPage("reports");
    select("range-action", "retry");
    b.type("#range-from", "2026-11-28T11:30:00Z");
    b.type("#range-to", "2026-11-28T14:00:00Z");
    select("range-status", "FINAL_FAILED");
    b.click("#range-preview");
    String question = b.until("#range-confirm-text", "Retry 3 FINAL_FAILED windows of task reports due in "
        + "(2026-11-28T11:30:00Z, 2026-11-28T14:00:00Z]?");
    assertTrue(question.contains("new attempt"), question);
    assertEquals("3", b.read("#range-confirm", "data-count"));
    b.script("document.getElementById('range-section').scrollIntoView()");
    b.screenshot("task-range");
    b.click("#range-go");
    b.attribute("#range-result", "data-done", "3");
    eventually(() -> windows("reports").forEach((k, w) -> {
      boolean in = List.of("2026-11-28T12:00:00Z", "2026-11-28T13:00:00Z", "2026-11-28T14:00:00Z").contains(k);
      assertEquals(in ? 3 : 2, w.attempt(), w.toString());
      assertEquals(InstanceStatus.FINAL_FAILED, w.status(), w.toString());
    }));
  }

  @Test
  @Order(3)
  @DisplayName("search: windows across tasks by status and last change, then by status and start; the query is in the "
      + "address; a bad range is refused naming the field")
  void search() throws Exception {
    fresh(base + "/#/");
    b.click("#search-link");
    b.wait.until(d -> d.findElement(By.id("view-search")).isDisplayed());
    select("search-status", "FINAL_FAILED");
    select("search-by", "updated");
    b.type("#search-from", "2026-11-29T00:00:00Z");
    b.type("#search-to", "2026-11-30T00:00:00Z");
    b.click("#search-go");
    b.wait.until(d -> d.getCurrentUrl().contains("#/search?status=FINAL_FAILED&by=updated"));
    b.attribute("#search-results", "data-count", "6");
    assertTrue(b.all("#search-results tbody tr", "data-task").stream().allMatch("reports"::equals));
    b.screenshot("search");

    select("search-by", "");
    b.type("#search-from", "2026-11-28T12:00:00Z");
    b.type("#search-to", "2026-11-28T14:00:00Z");
    b.click("#search-go");
    b.attribute("#search-results", "data-count", "2");
    assertEquals(List.of("2026-11-28T13:00:00Z", "2026-11-28T12:00:00Z"), b.all("#search-results tbody tr", "data-window"),
        "newest first, to excluded");
    // the address alone reopens the search
    fresh(base + "/#/search?status=RESOLVED&order=asc");
    b.attribute("#search-results", "data-count", "2");
    assertEquals(List.of("exports", "exports"), b.all("#search-results tbody tr", "data-task"));
    fresh(base + "/#/search?by=updated&from=2026-10-01T00:00:00Z&to=2026-11-29T00:00:00Z");
    String said = b.until("#message", "Search refused");
    assertTrue(said.contains("[field to = \"2026-11-29T00:00:00Z\"]") && said.contains("at most 31 days"), said);
  }

  @Test
  @Order(4)
  @DisplayName("charts: run time on a log axis (150 ms to 30 min) with its unit, lag of fresh fires only, a legend on "
      + "outcomes")
  void charts() throws Exception {
    taskPage("mixed");
    b.wait.until(d -> !d.findElements(By.cssSelector("#charts svg.duration rect.bar")).isEmpty());
    assertEquals("log", b.read("#charts svg.duration", "data-scale"));
    assertEquals("7", b.read("#charts svg.duration", "data-points"), "5 fresh fires and 2 backfills ran");
    assertTrue(b.read("#charts svg.duration text.y-title", "textContent").contains("run time (log scale)"));
    List<String> ticks = b.all("#charts svg.duration text.y-tick", "textContent");
    assertTrue(ticks.contains("100 ms") && ticks.contains("1.0 min"), "ticks with units: " + ticks);
    assertEquals("5", b.read("#charts svg.lag", "data-points"), "fresh fires only");
    assertEquals(String.valueOf(1_000L), b.read("#charts svg.lag", "data-p50"));
    assertTrue(b.read("#charts figure:nth-child(2) figcaption", null).contains("2 backfills, catch-ups, retries and manual "
        + "runs left out"), b.read("#charts figure:nth-child(2) figcaption", null));
    assertEquals(String.valueOf(RUNS[1]), b.read("#charts svg.duration", "data-p50"), "nearest rank of 0, 0, 150 ms .. 30 min");
    assertEquals(List.of("SUCCEEDED"), b.all("#charts ul.chart-legend li", "data-status"));
    assertTrue(b.read("#charts ul.chart-legend li", null).contains("SUCCEEDED 7"));
    b.script("document.getElementById('charts-section').scrollIntoView()");
    b.screenshot("task-charts");
  }

  /** The lag and run times the charts draw are the node's own (a check of the test's arithmetic). */
  @Test
  @Order(5)
  @DisplayName("the node recorded the lags and run times the charts show")
  void recordedTimes() {
    for (int i = 0; i < 5; i++) {
      WindowView w = windows("mixed").get("2026-11-29T0" + i + ":00:00Z");
      assertEquals(Duration.ofMillis(LAGS[i]), Duration.between(w.dueAt(), w.startedAt()), w.toString());
      assertEquals(Duration.ofMillis(RUNS[i]), Duration.between(w.startedAt(), w.updatedAt()), w.toString());
    }
  }
}
