package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebElement;

/**
 * The dashboard's guards against an operator's slip, in a real headless Chromium against a node of
 * its own (in-memory journal, a clock that does not move): a note typed for one action on one task
 * is never sent for another, every bulk action asks before it sends, every action button can be
 * reached at 800 and 1280 px, and a link to a task that does not exist shows that, with no action.
 * On 2026-11-29 at 00:01:30 UTC two tasks each hold four FINAL_FAILED windows (the intervention
 * queue holds eight).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardGuardsTest {

  static final String INVOICES = "nightly-invoice-export";
  static final String CRM = "crm-sync";
  static final List<String> INVOICE_WINDOWS = List.of("2026-11-28T19:30:00Z", "2026-11-28T20:30:00Z",
      "2026-11-28T21:30:00Z", "2026-11-28T22:30:00Z");
  static final List<String> CRM_WINDOWS = List.of("2026-11-28T19:45:00Z", "2026-11-28T20:45:00Z",
      "2026-11-28T21:45:00Z", "2026-11-28T22:45:00Z");

  @TempDir static Path dir;
  private final io.almanac.testkit.SettableClock clock =
      new io.almanac.testkit.SettableClock(Instant.parse("2026-11-29T00:01:30Z"));
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private DashboardBrowser b;

  private Map<String, WindowView> windows(String task) {
    return DashboardOpsTest.await(almanac.windows(task)).stream()
        .collect(Collectors.toMap(w -> w.window().value(), w -> w));
  }

  private void eventually(Runnable check) {
    DashboardBrowser.eventually(node, check);
  }

  /** Every window of the task is still FINAL_FAILED at its first attempt: nothing was sent for it. */
  private void untouched(String task, String when) {
    windows(task).values().forEach(w -> {
      assertEquals(InstanceStatus.FINAL_FAILED, w.status(), when + ": " + w);
      assertEquals(1, w.attempt(), when + ": " + w);
    });
  }

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("dashboard-guards", DashboardOpsTest.inMemoryNode(""));
    AgentJob fails = ctx -> CompletableFuture.completedFuture(JobResult.failure("HTTP 503 from billing.example.com: "
        + "the upstream is down for maintenance (attempt " + ctx.attempt() + ")"));
    almanac = Almanac.builder(node.system()).clock(clock).job("fails", fails).start();
    DashboardOpsTest.await(almanac.register(TaskSpec.builder(INVOICES).cron("0 30 * * * ? UTC").window("per-firing")
        .job("fails").build()));
    DashboardOpsTest.await(almanac.register(TaskSpec.builder(CRM).cron("0 45 * * * ? UTC").window("per-firing")
        .job("fails").build()));
    DashboardOpsTest.await(almanac.ready());
    for (String task : List.of(INVOICES, CRM)) {
      DashboardOpsTest.await(almanac.backfill(task, Instant.parse("2026-11-28T19:00:00Z"),
          Instant.parse("2026-11-28T23:00:00Z")));
      eventually(() -> assertEquals(4, windows(task).values().stream()
          .filter(w -> w.status() == InstanceStatus.FINAL_FAILED).count()));
    }
    ServerBinding binding = io.almanac.http.AlmanacHttp.start(node.system(), almanac).toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    b = new DashboardBrowser(dir.resolve("chromium-profile"), 1280, 1000);
    b.open(base + "/");
    b.script("sessionStorage.setItem('almanac.token', arguments[0])", DashboardOpsTest.TOKEN);
  }

  @AfterAll
  void stop() {
    DashboardBrowser.closeWith(b, node);
  }

  /** Opens the task's page in a fresh load and waits for its windows. */
  private void taskPage(String task) {
    b.driver.get("about:blank");
    b.open(base + "/#/tasks/" + URLEncoder.encode(task, StandardCharsets.UTF_8));
    b.wait.until(d -> d.findElements(By.cssSelector("#task-windows tbody tr")).size() == 4);
  }

  /** Goes to another address inside the page (a hash change, as a click on a link: the page's state stays). */
  private void navigate(String hash) {
    b.script("location.hash = arguments[0]", hash);
  }

  private void pick(String window) {
    b.click("#task-windows tr[data-window='" + window + "'] input.pick");
  }

  private String value(String css) {
    return b.driver.findElement(By.cssSelector(css)).getAttribute("value");
  }

  @Test
  @Order(1)
  @DisplayName("a note typed for a bulk action stays with that action on that task: another action, or another task, "
      + "starts empty, and an empty note sends nothing")
  void noteBelongsToItsActionAndTask() {
    taskPage(INVOICES);
    b.click("#select-all");
    b.until("#bulk-count", "4 selected");
    b.click("#bulk-cancel");
    b.type("#bulk-text", "invoices: the export moved to the new billing system");
    // another action on the same task
    b.click("#bulk-resolve");
    assertEquals("", value("#bulk-text"), "the resolve starts without the cancel's reason");
    untouched(INVOICES, "a click on Resolve after typing a cancel's reason");

    // another task, reached inside the page (the page's state stays): the reason typed here is left behind
    b.click("#bulk-cancel");
    b.type("#bulk-text", "invoices: the export moved to the new billing system");
    navigate("#/");
    b.wait.until(d -> "list".equals(d.findElement(By.tagName("body")).getAttribute("data-view")));
    b.click("#tasks a.task-link[href='#/tasks/" + CRM + "']");
    b.wait.until(d -> CRM.equals(d.findElement(By.id("task-id")).getText())
        && d.findElements(By.cssSelector("#task-windows tbody tr[data-task='" + CRM + "']")).size() == 4);
    pick(CRM_WINDOWS.get(0));
    pick(CRM_WINDOWS.get(1));
    b.until("#bulk-count", "2 selected");
    b.click("#bulk-resolve");
    assertEquals("", value("#bulk-text"), "another task's resolve starts empty");
    untouched(CRM, "a click on Resolve on another task");
    b.click("#bulk-go");
    b.until("#message", "A note is needed");
    untouched(CRM, "a confirmed resolve without a note");

    // a change of the selection drops the question (and its note): it named other windows
    b.type("#bulk-text", "crm: records fixed by hand");
    pick(CRM_WINDOWS.get(2));
    b.wait.until(d -> !d.findElement(By.id("bulk-confirm")).isDisplayed());
    pick(CRM_WINDOWS.get(2));
    b.until("#bulk-count", "2 selected");
    b.click("#bulk-resolve");
    assertEquals("", value("#bulk-text"));
    b.type("#bulk-text", "crm: records fixed by hand");
    b.click("#bulk-go");
    b.until("#message", "2 of 2 windows of " + CRM + " resolved");
    eventually(() -> {
      for (String key : CRM_WINDOWS.subList(0, 2)) {
        WindowView w = windows(CRM).get(key);
        assertEquals(InstanceStatus.RESOLVED, w.status(), w.toString());
        assertEquals("crm: records fixed by hand", w.reason(), w.toString());
      }
    });
    untouched(INVOICES, "the end");

    // the window's own page: its Resolve and Cancel each start empty, and so does another window's
    b.driver.get("about:blank");
    b.open(base + "/#/tasks/" + CRM + "/windows/" + CRM_WINDOWS.get(2));
    b.until("#detail-fields .f-status", "FINAL_FAILED");
    b.click("#window-cancel");
    b.type("#window-text", "crm: give this one up");
    b.click("#window-resolve");
    assertEquals("", value("#window-text"), "the window's resolve starts without its cancel's reason");
    b.type("#window-text", "crm: give this one up");
    navigate("#/tasks/" + CRM + "/windows/" + CRM_WINDOWS.get(3));
    b.wait.until(d -> CRM_WINDOWS.get(3).equals(d.findElement(By.id("detail")).getAttribute("data-window")));
    b.click("#window-resolve");
    assertEquals("", value("#window-text"), "another window starts empty");
    b.click("#window-go");
    b.until("#message", "A note is needed");
    assertEquals(InstanceStatus.FINAL_FAILED, windows(CRM).get(CRM_WINDOWS.get(2)).status());
    assertEquals(InstanceStatus.FINAL_FAILED, windows(CRM).get(CRM_WINDOWS.get(3)).status());
  }

  @Test
  @Order(2)
  @DisplayName("every bulk action asks first, naming what it will do to how many windows of which task; Back sends nothing")
  void everyBulkActionAsksFirst() throws Exception {
    taskPage(INVOICES);
    b.click("#select-all");
    b.until("#bulk-count", "4 selected");
    List<WebElement> buttons = b.driver.findElements(By.cssSelector("#bulk > button"));
    List<String> ids = buttons.stream().map(e -> e.getAttribute("id")).toList();
    List<String> labels = buttons.stream().map(WebElement::getText).toList();
    assertTrue(ids.containsAll(List.of("bulk-retry", "bulk-resolve", "bulk-cancel")), ids.toString());
    for (int i = 0; i < ids.size(); i++) {
      String verb = labels.get(i).split(" ")[0]; // "Retry selected…" -> "Retry"
      b.click("#" + ids.get(i));
      String question = b.until("#bulk-confirm-text", verb + " 4 windows of task " + INVOICES);
      if (ids.get(i).equals("bulk-resolve")) {
        b.type("#bulk-text", "re-exported by hand after the billing outage");
        b.script("document.getElementById('windows-section').scrollIntoView()");
        b.screenshot("bulk-confirm");
      }
      for (String key : INVOICE_WINDOWS) {
        assertTrue(question.contains(key), question);
      }
      assertTrue(b.driver.findElement(By.id("bulk-go")).getText().contains(verb), "the button says what it does");
      untouched(INVOICES, "a click on " + labels.get(i));
      b.click("#bulk-back");
      b.wait.until(d -> !d.findElement(By.id("bulk-confirm")).isDisplayed());
      untouched(INVOICES, "Back after " + labels.get(i));
    }
    // and a confirmed one is sent, as the question said
    b.click("#bulk-retry");
    b.until("#bulk-confirm-text", "Retry 4 windows of task " + INVOICES);
    b.click("#bulk-go");
    b.until("#message", "4 of 4 windows of " + INVOICES + " retried");
    eventually(() -> windows(INVOICES).values().forEach(w -> assertEquals(2, w.attempt(), w.toString())));
  }

  /**
   * The buttons, inputs and selects the selector finds that are shown, each one out of view or
   * covered: the page scrolled so that it is in the middle of the window height, every box that
   * scrolls sideways scrolled back to its start (an operator does not know to scroll it), it must
   * be inside the window, and its centre and four corners must be the element itself (not something
   * over it, not the outside of a box that clips it).
   */
  @SuppressWarnings("unchecked")
  private List<String> unreachable(String css) {
    return (List<String>) b.script(String.join("\n",
        "const out = [];",
        "const width = document.documentElement.clientWidth;",
        "const shown = [...document.querySelectorAll(arguments[0])].filter((e) => e.getClientRects().length > 0);",
        "for (const e of shown) {",
        "  document.querySelectorAll('.table-wrap').forEach((w) => { w.scrollLeft = 0; });",
        "  window.scrollTo(0, window.scrollY + e.getBoundingClientRect().top - window.innerHeight / 2);",
        "  const r = e.getBoundingClientRect();",
        "  const points = [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 2, r.top + 2], [r.right - 2, r.top + 2],",
        "    [r.left + 2, r.bottom - 2], [r.right - 2, r.bottom - 2]];",
        "  const miss = points.map(([x, y]) => document.elementFromPoint(x, y)).find((h) => !h || !(h === e || e.contains(h)));",
        "  if (r.left < 0 || r.right > width || miss !== undefined) {",
        "    out.push((e.id || e.className || e.tagName) + ' \"' + (e.textContent || e.placeholder || '').trim() + '\" at x '",
        "      + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + width + ', a corner or the centre shows '",
        "      + (miss ? miss.tagName + '.' + miss.className : 'nothing'));",
        "  }",
        "}",
        "window.scrollTo(0, 0);",
        "return out;"), css);
  }

  @Test
  @Order(3)
  @DisplayName("at 800 and 1280 px every action button is in view and clickable: the queue's Retry and Resolve, the "
      + "resolve form, the task page's actions, the bulk question and the window's actions")
  void everyButtonReachable() throws Exception {
    Dimension before = b.driver.manage().window().getSize();
    try {
      for (int width : new int[] {800, 1280}) {
        b.driver.manage().window().setSize(new Dimension(width, 900));
        b.driver.get("about:blank");
        b.open(base + "/#/");
        b.wait.until(d -> !d.findElements(By.cssSelector("#queue tbody tr")).isEmpty());
        int rows = b.driver.findElements(By.cssSelector("#queue tbody tr")).size();
        assertEquals(2 * rows, b.driver.findElements(By.cssSelector("#queue button")).size(), "Retry and Resolve a row");
        assertEquals(List.of(), unreachable("#queue button"), width + " px, the queue");
        if (width == 800) {
          b.script("document.getElementById('queue-section').scrollIntoView()");
          b.screenshot("queue-800px");
        }
        assertEquals(List.of(), unreachable("button, input, select"), width + " px, the list");
        // a row's resolve form: the note and its buttons
        String row = "#queue tr[data-task='" + CRM + "'][data-window='" + CRM_WINDOWS.get(2) + "']";
        b.script("document.querySelector(arguments[0] + ' button.resolve').click()", row);
        b.wait.until(d -> !d.findElements(By.cssSelector(row + " input.note")).isEmpty());
        assertEquals(List.of(), unreachable(row + " button, " + row + " input"), width + " px, the resolve form");
        b.script("document.querySelector(arguments[0] + ' button.cancel-resolve').click()", row);

        b.driver.get("about:blank");
        b.open(base + "/#/tasks/" + CRM + "/windows/" + CRM_WINDOWS.get(2));
        b.until("#detail-fields .f-status", "FINAL_FAILED");
        b.wait.until(d -> d.findElements(By.cssSelector("#task-windows tbody tr")).size() == 4);
        b.click("#select-all");
        b.click("#bulk-cancel");
        b.click("#window-resolve");
        b.wait.until(d -> d.findElement(By.id("window-go")).isDisplayed());
        assertEquals(List.of(), unreachable("button, input, select"), width + " px, the task and window page");
        b.click("#bulk-back");
        b.click("#window-back");
      }
    } finally {
      b.driver.manage().window().setSize(before);
    }
  }

  @Test
  @Order(4)
  @DisplayName("a link to a task that does not exist says so, with no action on the page; the page of a known task "
      + "after it has its actions again")
  void unknownTask() throws Exception {
    Dimension before = b.driver.manage().window().getSize();
    try {
      b.driver.manage().window().setSize(new Dimension(800, 900));
      for (String hash : List.of("#/tasks/no-such-task", "#/tasks/no-such-task/windows/2026-11-29",
          "#/tasks/not%20a%20task%20id!")) {
        b.driver.get("about:blank");
        b.open(base + "/" + hash);
        // the page has read the node (open waits for it): what it shows now is what it says of the task
        List<String> actions = b.driver.findElements(By.cssSelector("#view-task button, #view-task input, "
            + "#view-task select")).stream().filter(WebElement::isDisplayed).map(e -> e.getAttribute("id")).toList();
        assertEquals(List.of(), actions, hash + ": no action on a task that does not exist");
        String missing = b.until("#task-missing", "No such task");
        assertTrue(b.driver.findElement(By.id("task-missing")).isDisplayed(), hash);
        assertTrue(missing.contains(hash.contains("not") ? "\"not a task id!\" is not a task id" : "no task \"no-such-task\""),
            missing);
        assertFalse(b.driver.findElement(By.id("task-state")).isDisplayed()
            && !b.read("#task-state", null).isEmpty(), hash + ": no state: " + b.read("#task-state", null));
        assertFalse(b.driver.findElement(By.id("message")).isDisplayed(), hash + ": the page says it, not a banner: "
            + b.read("#message", null));
        if (hash.equals("#/tasks/no-such-task")) {
          b.screenshot("unknown-task-800px");
        }
      }
      // a known task's page after it: its actions again, and no trace of the unknown one
      navigate("#/tasks/" + CRM);
      b.wait.until(d -> d.findElement(By.id("task-pause")).isDisplayed());
      assertFalse(b.driver.findElement(By.id("task-missing")).isDisplayed());
      assertEquals("active", b.read("#task-state", null));
    } finally {
      b.driver.manage().window().setSize(before);
    }
  }

  @Test
  @Order(5)
  @DisplayName("an error banner belongs to the page it was shown on: navigating away (a link, another task, Back) clears it")
  void bannerClearsOnNavigation() {
    for (String away : List.of("link", "task", "back")) {
      b.driver.get("about:blank");
      b.open(base + "/#/");
      navigate("#/tasks/" + INVOICES);
      b.wait.until(d -> d.findElements(By.cssSelector("#task-windows tbody tr[data-task='" + INVOICES + "']")).size() == 4);
      b.type("#backfill-from", "yesterday");
      b.type("#backfill-to", "2026-11-28T23:00:00Z");
      b.click("#backfill-dry");
      b.until("#message", "(400)");
      assertTrue(b.driver.findElement(By.id("message")).isDisplayed());
      switch (away) {
        case "link" -> b.click("nav.crumbs a[href='#/']");
        case "task" -> navigate("#/tasks/" + CRM);
        default -> b.driver.navigate().back();
      }
      b.wait.until(d -> !d.getCurrentUrl().endsWith("#/tasks/" + INVOICES));
      b.loaded();
      b.wait.until(d -> !d.findElement(By.id("message")).isDisplayed());
    }
  }
}
