package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.testkit.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The dashboard's task list with 1,000 tasks, each with a window, on an in-memory node, in a real
 * headless Chromium: the page's work does not grow with the task count (a handful of API reads
 * before the first list, not one a task), and the whole list with every row's window is rendered.
 * The time to the first list, as the browser measures it ({@code performance.now()} when the first
 * list is in the page), is printed: 1.06 s (then 0.36 s) on a 2-core machine with one core kept busy. It is asserted only
 * against a ceiling that catches a page that hangs or reads per task, not against the 2 s target: a
 * timed assertion fails on a loaded machine (it did, at 2.7 s with load 20, on an unchanged page).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardScaleTest {

  private static final int TASKS = 1000;
  /** API reads a first list may take: tasks, health, queue and the like, never one per task. */
  private static final int MAX_READS_BEFORE_FIRST_LIST = 8;
  /** Far above the 2 s a quiet machine shows; catches a page that hangs, not a slow machine. */
  private static final long CEILING_MS = 30_000;

  @TempDir static Path dir;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private DashboardBrowser b;

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("dashboard-scale", DashboardOpsTest.inMemoryNode(""));
    almanac = Almanac.builder(node.system()).clock(clock)
        .job("ok", ctx -> CompletableFuture.completedFuture(JobResult.success("ok"))).start();
    List<CompletableFuture<?>> registered = new ArrayList<>();
    for (int i = 0; i < TASKS; i++) {
      registered.add(almanac.register(TaskSpec.builder(String.format("task-%04d", i)).cron("0 0 0 * * ? UTC").job("ok")
          .build()).toCompletableFuture());
    }
    CompletableFuture.allOf(registered.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
    DashboardOpsTest.await(almanac.ready());
    clock.set(Instant.parse("2026-11-29T00:00:30Z"));
    node.createTestProbe().awaitAssert(Duration.ofSeconds(120), Duration.ofMillis(200), () -> {
      List<CompletableFuture<Boolean>> done = new ArrayList<>();
      for (int i = 0; i < TASKS; i++) {
        done.add(almanac.windows(String.format("task-%04d", i)).toCompletableFuture()
            .thenApply(ws -> ws.stream().anyMatch(w -> w.status() == InstanceStatus.SUCCEEDED)));
      }
      assertEquals(TASKS, done.stream().filter(CompletableFuture::join).count(), "every task's window succeeded");
      return null;
    });
    ServerBinding binding = io.almanac.http.AlmanacHttp.start(node.system(), almanac).toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    b = new DashboardBrowser(dir.resolve("chromium-profile"), 1400, 1000);
  }

  @AfterAll
  void stop() {
    DashboardBrowser.closeWith(b, node);
  }

  @Test
  @DisplayName("1,000 tasks: the list (every row with its window) is rendered from a few reads, not one a task")
  void thousandTasksLoadFast() {
    b.open(base + "/");
    b.wait.until(d -> d.findElement(By.tagName("body")).getAttribute("data-first-render-ms") != null);
    long first = Long.parseLong(b.read("body", "data-first-render-ms"));
    long reads = apiReadsBefore(first);
    assertEquals(TASKS, b.count("#tasks tbody tr", TASKS));
    assertEquals(TASKS, b.count("#tasks tbody .cell.st-SUCCEEDED", TASKS));
    assertTrue(reads >= 1 && reads <= MAX_READS_BEFORE_FIRST_LIST,
        reads + " API reads before the first list of " + TASKS + " tasks");
    // the same measure on a second load, caches warm
    b.driver.get("about:blank");
    b.open(base + "/");
    b.wait.until(d -> d.findElement(By.tagName("body")).getAttribute("data-first-render-ms") != null);
    long second = Long.parseLong(b.read("body", "data-first-render-ms"));
    System.out.println("dashboard with " + TASKS + " tasks: first render at " + first + " ms (" + reads
        + " API reads), then " + second + " ms");
    assertTrue(first < CEILING_MS, "first render at " + first + " ms after navigation start");
    assertTrue(second < CEILING_MS, "second render at " + second + " ms after navigation start");
  }

  /** The page's requests to the API that started before the first list was in the page. */
  private long apiReadsBefore(long firstRenderMs) {
    Object n = ((org.openqa.selenium.JavascriptExecutor) b.driver).executeScript(
        "return performance.getEntriesByType('resource').filter(e => e.name.indexOf('/api/') >= 0"
            + " && e.startTime <= arguments[0]).length;", firstRenderMs);
    return ((Number) n).longValue();
  }
}
