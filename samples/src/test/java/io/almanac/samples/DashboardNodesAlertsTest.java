package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.PoolSpec;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

/**
 * The operators' Nodes and Alerts pages, in headless Chromium and on the command line ({@code almanac
 * nodes}, {@code almanac alerts}), against one real node: the pool {@code llm} (max 2) held by two
 * running agent windows with a third waiting for it, and two windows that failed for good, whose
 * FINAL_FAILED alerts (R32) went to the log and to a real local webhook receiver that refused the
 * first POST (503) and took the rest. Saves docs/screenshots/nodes.png and alerts.png with {@code
 * -Dalmanac.writeScreenshots=true}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardNodesAlertsTest {

  @TempDir static Path dir;
  private static final Instant NOW = Instant.parse("2026-11-29T08:00:00Z");
  private final io.almanac.testkit.SettableClock clock = new io.almanac.testkit.SettableClock(NOW);
  private final AtomicInteger posts = new AtomicInteger();
  private final List<String> received = new CopyOnWriteArrayList<>();
  private HttpServer receiver;
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private String hook;
  private DashboardBrowser b;
  private final List<CompletableFuture<JobResult>> agents = new CopyOnWriteArrayList<>();

  @BeforeAll
  void start() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hook", ex -> {
      received.add(new String(ex.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
      ex.sendResponseHeaders(posts.incrementAndGet() == 1 ? 503 : 204, -1); // the first POST is refused
      ex.close();
    });
    receiver.start();
    hook = "webhook http://127.0.0.1:" + receiver.getAddress().getPort() + "/…";
    node = ActorTestKit.create("dashboard-nodes-alerts", DashboardOpsTest.inMemoryNode(
        "almanac.alerts.webhook { url = \"http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook\", "
            + "backoff = 50ms, max-backoff = 50ms }"));
    almanac = Almanac.builder(node.system()).clock(clock)
        .job("agent", ctx -> { // runs until the test ends
          CompletableFuture<JobResult> f = new CompletableFuture<>();
          agents.add(f);
          return f;
        })
        .job("fails", ctx -> CompletableFuture.completedFuture(JobResult.failure("model returned malformed JSON")))
        .pool(PoolSpec.of("llm", 2))
        .start();
    for (String agent : List.of("research-agent", "summarizer", "translator")) {
      await(almanac.register(TaskSpec.builder(agent).cron("0 0 12 * * ? UTC").job("agent").pools("llm").build()));
    }
    await(almanac.register(TaskSpec.builder("daily-report").cron("0 0 12 * * ? UTC").job("fails").build()));
    await(almanac.register(TaskSpec.builder("order-export").cron("0 0 12 * * ? UTC").job("fails").build()));
    await(almanac.ready());
    await(almanac.runNow("research-agent"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, only("research-agent").status()));
    clock.set(NOW.plusSeconds(12)); // within the holds' ttl (30 s): the clock is the pools' too
    await(almanac.runNow("summarizer"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, only("summarizer").status()));
    await(almanac.runNow("translator")); // the pool is full: it waits
    await(almanac.runNow("daily-report"));
    await(almanac.runNow("order-export"));
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, only("order-export").status()));
    ServerBinding binding = io.almanac.http.AlmanacHttp.start(node.system(), almanac).toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    b = new DashboardBrowser(dir.resolve("chromium-profile"), 1400, 760);
  }

  @AfterAll
  void stop() {
    try {
      if (almanac != null) {
        // the agents end (the waiting one starts once the others gave the pool back): the drain then waits for nothing
        eventually(() -> {
          agents.forEach(f -> f.complete(JobResult.success("done")));
          for (String agent : List.of("research-agent", "summarizer", "translator")) {
            assertEquals(InstanceStatus.SUCCEEDED, only(agent).status(), agent);
          }
        });
      }
    } finally {
      try {
        DashboardBrowser.closeWith(b, node);
      } finally {
        if (receiver != null) {
          receiver.stop(0);
        }
      }
    }
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> s) {
    return DashboardOpsTest.await(s);
  }

  private WindowView only(String task) {
    List<WindowView> ws = await(almanac.windows(task));
    return ws.isEmpty() ? null : ws.get(0);
  }

  private void eventually(Runnable check) {
    DashboardBrowser.eventually(node, check);
  }

  private String address() {
    return org.apache.pekko.cluster.typed.Cluster.get(node.system()).selfMember().address().toString();
  }

  @Test
  @Order(1)
  @DisplayName("Nodes: this node Up, hosting the trigger, its lease held, 2 of its slots in use; the pool's two holders "
      + "(task, window, node, since) and the window waiting for it")
  void nodesPage() throws Exception {
    b.open(base + "/#/nodes");
    String row = "#nodes tbody tr[data-address='" + address() + "']";
    b.attribute(row, "data-status", "Up");
    b.attribute(row, "data-lease", "held");
    assertTrue(b.read(row + " td.node", null).contains("this node"));
    assertEquals("trigger", b.read(row + " td.trigger", null));
    b.until(row + " td.slots", "2/");
    b.until("#nodes-note", "trigger on " + address());
    b.until("#pool-holders tbody tr[data-task='summarizer'] td.since", "2026-11-29 08:00:12");
    assertEquals("2026-11-29 08:00:00", b.read("#pool-holders tbody tr[data-task='research-agent'] td.since", null));
    assertEquals(address(), b.read("#pool-holders tbody tr[data-task='research-agent'] td.holder-node", null));
    assertEquals("2/2", b.read("#pool-holders tbody tr[data-task='research-agent'] td.held", null));
    b.until("#pool-holders tbody tr[data-task='research-agent'] td.waiting", "1");
    b.until(row + " td.queued", "1 for llm");
    b.until("#leases-problem", "no JDBC journal"); // an in-memory journal: no lease table to show
    assertEquals("Nodes · Almanac", b.driver.getTitle());
    b.screenshot("nodes");
  }

  @Test
  @Order(2)
  @DisplayName("Alerts: each FINAL_FAILED alert with its task and window, delivered to the log and to the webhook (the "
      + "first after a refused attempt); the task filter and a refused since")
  void alertsPage() throws Exception {
    b.open(base + "/#/alerts");
    String report = "#alerts tbody tr[data-kind='FINAL_FAILED'][data-task='daily-report']";
    String export = "#alerts tbody tr[data-kind='FINAL_FAILED'][data-task='order-export']";
    b.attribute(report + " .delivery[data-sink='log']", "data-status", "DELIVERED");
    b.attribute(report + " .delivery[data-sink='" + hook + "']", "data-status", "DELIVERED");
    b.attribute(export + " .delivery[data-sink='" + hook + "']", "data-status", "DELIVERED");
    // the first alert's first POST was refused: it took two attempts, the second alert one
    String first = received.get(0).contains("daily-report") ? report : export;
    String second = first.equals(report) ? export : report;
    assertTrue(b.read(first + " .delivery[data-sink='" + hook + "']", null).endsWith("DELIVERED (2)"));
    assertTrue(b.read(second + " .delivery[data-sink='" + hook + "']", null).endsWith("DELIVERED (1)"));
    assertEquals(only("daily-report").window().value(), b.read(report, "data-window"));
    assertTrue(b.read(report + " td.alert-message", null).contains("malformed JSON"));
    b.screenshot("alerts");
    b.type("#alerts-task", "daily-report");
    b.click("#alerts-apply");
    b.count("#alerts tbody tr", 1);
    b.until("#alerts-note", "task daily-report");
    b.type("#alerts-since", "yesterday");
    b.click("#alerts-apply");
    b.until("#message", "since");
    assertEquals("Alerts · Almanac", b.driver.getTitle());
  }

  record Run(int code, String out, String err) {}

  private Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new java.util.ArrayList<>(List.of("--url", base));
    all.addAll(List.of(args));
    int code = AlmanacCli.execute(all.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  @Order(3)
  @DisplayName("almanac nodes: the member with its lease, slots and the trigger, then the pool's holders; --json is the API's")
  void cliNodes() throws Exception {
    Run r = cli("nodes");
    assertEquals(0, r.code(), r.toString());
    String member = r.out().lines().filter(l -> l.startsWith(address())).findFirst().orElseThrow(() -> new AssertionError(r));
    assertTrue(member.contains("(this)") && member.contains("Up") && member.contains("held") && member.contains("2/")
        && member.contains("1 fresh") && member.trim().endsWith("yes"), member);
    assertTrue(r.out().lines().anyMatch(l -> l.startsWith("llm") && l.contains("2/2") && l.contains("research-agent")
        && l.contains("2026-11-29 08:00:00")), r.out());
    assertTrue(r.out().lines().anyMatch(l -> l.contains("summarizer") && l.contains("2026-11-29 08:00:12")), r.out());
    Run j = cli("--json", "nodes");
    JsonNode v = new ObjectMapper().readTree(j.out());
    assertEquals(address(), v.get("triggerNode").asText(), j.out());
  }

  @Test
  @Order(4)
  @DisplayName("almanac alerts: the task's FINAL_FAILED alert with each sink's delivery; a bad --limit is bad input naming it")
  void cliAlerts() {
    Run r = cli("alerts", "--task", "daily-report");
    assertEquals(0, r.code(), r.toString());
    String line = r.out().lines().filter(l -> l.contains("FINAL_FAILED")).findFirst().orElseThrow(() -> new AssertionError(r));
    assertTrue(line.contains("daily-report") && line.contains("log: DELIVERED (1)") && line.contains(hook + ": DELIVERED"),
        line);
    assertEquals(1, r.out().lines().filter(l -> l.contains("FINAL_FAILED")).count(), r.out());
    Run page = cli("alerts", "--limit", "1");
    assertTrue(page.out().contains("more: almanac alerts ... --before "), page.toString());
    String before = page.out().substring(page.out().indexOf("--before ") + 9).trim();
    Run older = cli("alerts", "--limit", "1", "--before", before);
    assertEquals(1, older.out().lines().filter(l -> l.contains("FINAL_FAILED")).count(), older.toString());
    assertTrue(!older.out().contains("more:"), "two alerts: the second page is the last\n" + older);
    Run bad = cli("alerts", "--limit", "0");
    assertEquals(2, bad.code(), bad.toString());
    assertTrue(bad.err().contains("limit"), bad.toString());
  }
}
