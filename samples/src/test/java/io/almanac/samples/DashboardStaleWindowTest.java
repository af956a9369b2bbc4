package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.journal.TaskJournal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The dashboard acts on the window the operator was shown (R31), in a real headless Chromium against
 * a node of its own: every action on one window (the window page's Retry, Resolve and Cancel, the
 * queue's Retry and Resolve) sends the version of the window as the page showed it. When the window
 * was changed behind the page's back (here through the Java API), the node refuses the action and
 * stores nothing; the page says the window changed since it was shown, shows its new state and sends
 * nothing more.
 *
 * <p>The page's 5 s refresh is held by the test (a script run before the page's own replaces its
 * {@code setInterval} of 5 s), so the page shows exactly the state it read when it was opened, as an
 * operator's page does between two refreshes. On 2026-11-29 at 00:01:30 UTC the task {@code flaky}
 * (hourly at :30, no retries, its job fails) holds six FINAL_FAILED windows, one per case.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardStaleWindowTest {

  static final String TASK = "flaky";
  static final List<String> WINDOWS = List.of("2026-11-28T17:30:00Z", "2026-11-28T18:30:00Z", "2026-11-28T19:30:00Z",
      "2026-11-28T20:30:00Z", "2026-11-28T21:30:00Z", "2026-11-28T22:30:00Z");
  static final String STALE = "changed since the page showed it";

  @TempDir static Path dir;
  private final io.almanac.testkit.SettableClock clock =
      new io.almanac.testkit.SettableClock(Instant.parse("2026-11-29T00:01:30Z"));
  private ActorTestKit node;
  private Almanac almanac;
  private PersistenceTestKit journal;
  private String base;
  private DashboardBrowser b;

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("dashboard-stale", DashboardOpsTest.inMemoryNode(""));
    journal = PersistenceTestKit.create(node.system());
    AgentJob fails = ctx -> CompletableFuture.completedFuture(JobResult.failure("HTTP 503 from billing.example.com "
        + "(attempt " + ctx.attempt() + ")"));
    almanac = Almanac.builder(node.system()).clock(clock).job("fails", fails).start();
    DashboardOpsTest.await(almanac.register(TaskSpec.builder(TASK).cron("0 30 * * * ? UTC").window("per-firing")
        .retry(RetryPolicy.none()).job("fails").build()));
    DashboardOpsTest.await(almanac.ready());
    DashboardOpsTest.await(almanac.backfill(TASK, Instant.parse("2026-11-28T17:00:00Z"),
        Instant.parse("2026-11-28T23:00:00Z")));
    eventually(() -> WINDOWS.forEach(key -> assertEquals(InstanceStatus.FINAL_FAILED, window(key).status())));
    ServerBinding binding = io.almanac.http.AlmanacHttp.start(node.system(), almanac).toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    b = new DashboardBrowser(dir.resolve("chromium-profile"), 1280, 1000);
    // before the page's own script, on every load: its 5 s refresh is kept, not started
    b.driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", String.join("\n",
        "const realSetInterval = window.setInterval;",
        "window.setInterval = function (f, ms, ...rest) {",
        "  if (ms === 5000) { window.heldRefresh = f; return 0; }",
        "  return realSetInterval.call(window, f, ms, ...rest);",
        "};")));
    b.open(base + "/");
    b.script("sessionStorage.setItem('almanac.token', arguments[0])", DashboardOpsTest.TOKEN);
  }

  @AfterAll
  void stop() {
    DashboardBrowser.closeWith(b, node);
  }

  private WindowView window(String key) {
    return DashboardOpsTest.await(almanac.windows(TASK)).stream().filter(w -> w.window().value().equals(key))
        .findFirst().orElseThrow(() -> new AssertionError("no window " + key));
  }

  private void eventually(Runnable check) {
    DashboardBrowser.eventually(node, check);
  }

  /** The task's journal rows: an action the node took is at least one more. */
  private int stored() {
    return journal.persistedInStorage(TaskJournal.persistenceId(TASK)).size();
  }

  /** Behind the page's back: an operator retry through the Java API, run to its failure (attempt 2). */
  private void retriedElsewhere(String key) {
    DashboardOpsTest.await(almanac.retry(TASK, WindowKey.of(key)));
    eventually(() -> {
      WindowView w = window(key);
      assertEquals(InstanceStatus.FINAL_FAILED, w.status(), w.toString());
      assertEquals(2, w.attempt(), w.toString());
    });
  }

  /** Behind the page's back: a resolve through the Java API. */
  private void resolvedElsewhere(String key) {
    DashboardOpsTest.await(almanac.resolve(TASK, WindowKey.of(key), "fixed by hand elsewhere"));
    eventually(() -> assertEquals(InstanceStatus.RESOLVED, window(key).status()));
  }

  /** Opens the window's page in a fresh load and waits for its detail. */
  private void windowPage(String key) {
    b.driver.get("about:blank");
    b.open(base + "/#/tasks/" + TASK + "/windows/" + URLEncoder.encode(key, StandardCharsets.UTF_8));
    b.attribute("#detail", "data-window", key);
    b.attribute("#detail", "data-status", "FINAL_FAILED"); // set with the window's fields, as its GET answered
    b.until("#detail-fields .f-attempt", "1 (retries");
  }

  /** Opens the task list in a fresh load and waits for the window's row in the queue. */
  private void queuePage(String key) {
    b.driver.get("about:blank");
    b.open(base + "/");
    b.wait.until(d -> !d.findElements(By.cssSelector("#queue tr[data-window='" + key + "']")).isEmpty());
    assertEquals("1", b.read("#queue tr[data-window='" + key + "'] td.attempt", null));
  }

  /** The banner says the window changed since it was shown, with its state now; returns its text. */
  private String staleSaid(String key, String now) {
    String said = b.until("#message", STALE);
    assertTrue(said.contains("window " + key + " of task " + TASK), said);
    assertTrue(said.contains("it is now " + now), said);
    assertEquals(TASK + "\u0000" + key, b.read("#message", "data-stale"), said);
    return said;
  }

  @Test
  @DisplayName("R31: the window page's Retry of a window resolved behind its back is refused as stale: the page says so, "
      + "shows RESOLVED, and no retry is stored")
  void windowPageRetryOfAWindowResolvedSince() throws Exception {
    String key = WINDOWS.get(0);
    windowPage(key);
    resolvedElsewhere(key);
    int before = stored();
    b.click("#window-retry");
    staleSaid(key, "RESOLVED, attempt 1");
    b.attribute("#detail", "data-status", "RESOLVED");
    if (Boolean.getBoolean("almanac.writeScreenshots")) { // the banner and the window's fields (this node has no
      // query journal, so its why and timeline are not available)
      b.script("window.scrollTo(0, 0)");
      b.driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 580));
      b.screenshot("stale-window");
      b.driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 1000));
    }
    assertEquals(before, stored(), "nothing stored for the page's retry");
    WindowView w = window(key);
    assertEquals(InstanceStatus.RESOLVED, w.status(), w.toString());
    assertEquals(1, w.attempt(), w.toString());
    assertEquals("fixed by hand elsewhere", w.reason(), w.toString());
  }

  @Test
  @DisplayName("R31: the window page's Retry, Resolve and Cancel of a window retried behind its back (FINAL_FAILED again, "
      + "attempt 2) are refused as stale: the page shows attempt 2, nothing is stored, and an action decided on the "
      + "new state is sent")
  void windowPageActionsOnAWindowRetriedSince() {
    for (String action : List.of("retry", "resolve", "cancel")) {
      String key = WINDOWS.get(List.of("retry", "resolve", "cancel").indexOf(action) + 1);
      windowPage(key);
      String shownVersion = b.driver.findElement(By.id("detail")).getAttribute("data-version");
      retriedElsewhere(key);
      int before = stored();
      b.click("#window-" + action);
      if (!action.equals("retry")) {
        b.type("#window-text", "the page's " + action + " text");
        b.click("#window-go");
      }
      staleSaid(key, "FINAL_FAILED, attempt 2");
      b.until("#detail-fields .f-attempt", "2 (retries");
      assertNotEquals(shownVersion, b.read("#detail", "data-version"), "the page shows the window's new version");
      assertEquals(before, stored(), action + ": nothing stored for the page's action");
      WindowView w = window(key);
      assertEquals(InstanceStatus.FINAL_FAILED, w.status(), action + ": " + w);
      assertEquals(2, w.attempt(), action + ": " + w);
    }
    // decided again on the state shown now (the cancel's window, still shown), the action is sent and taken
    String key = WINDOWS.get(3);
    b.click("#window-resolve");
    b.type("#window-text", "resolved after seeing attempt 2");
    b.click("#window-go");
    b.until("#message", "Resolved " + TASK + " " + key);
    eventually(() -> assertEquals("resolved after seeing attempt 2", window(key).reason()));
  }

  @Test
  @DisplayName("R31: the queue's Retry and Resolve of a window changed behind the page's back are refused as stale: "
      + "the page says so, shows the window's new state, nothing is stored; a Retry decided on the new row is sent")
  void queueActionsOnAWindowChangedSince() {
    String retried = WINDOWS.get(4);
    queuePage(retried);
    retriedElsewhere(retried);
    int before = stored();
    b.click("#queue tr[data-window='" + retried + "'] button.retry");
    staleSaid(retried, "FINAL_FAILED, attempt 2");
    b.until("#queue tr[data-window='" + retried + "'] td.attempt", "2");
    assertEquals(before, stored(), "nothing stored for the queue's retry");
    WindowView w = window(retried);
    assertEquals(InstanceStatus.FINAL_FAILED, w.status(), w.toString());
    assertEquals(2, w.attempt(), w.toString());
    // the row now shows attempt 2: a Retry decided on it is sent, and runs attempt 3
    b.click("#queue tr[data-window='" + retried + "'] button.retry");
    b.until("#message", "Retry of " + TASK + " " + retried + " accepted");
    eventually(() -> assertEquals(3, window(retried).attempt()));

    // Resolve: the note form is open while the window is resolved elsewhere
    String resolved = WINDOWS.get(5);
    queuePage(resolved);
    b.click("#queue tr[data-window='" + resolved + "'] button.resolve");
    resolvedElsewhere(resolved);
    before = stored();
    b.type("#queue tr[data-window='" + resolved + "'] input.note", "the page's note");
    b.click("#queue tr[data-window='" + resolved + "'] button.confirm-resolve");
    staleSaid(resolved, "RESOLVED, attempt 1");
    assertEquals(0, b.count("#queue tr[data-window='" + resolved + "']", 0), "a resolved window leaves the queue shown");
    assertEquals(before, stored(), "nothing stored for the queue's resolve");
    assertEquals("fixed by hand elsewhere", window(resolved).reason());
  }
}
