package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.Usage;
import io.almanac.WindowView;
import io.almanac.http.AlmanacHttp;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's window page shows each attempt's durable steps, in a real headless Chromium against a
 * node on an H2 file: a job records a step ("gather", with its usage), fails, and its retry replays the
 * step and succeeds. The page, opened while the retry runs, shows attempt 1's step RECORDED with its tokens
 * and cost; its refresh then shows attempt 2's replay ("REPLAYED by attempt 1") once the retry ended. With
 * {@code -Dalmanac.writeScreenshots=true} it saves docs/screenshots/window-steps.png. A steps read that fails
 * (the browser blocks it) is said in the section, and the window's fields, why and timeline are shown.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardStepsTest {

  @TempDir static Path dir;
  private static final String TASK = "research";
  private static final String WINDOW = "2026-11-29T00:00:00Z";
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:30Z"));
  private final CompletableFuture<Void> release = new CompletableFuture<>();
  private final AtomicInteger gathered = new AtomicInteger();
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private DashboardBrowser b;

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("dashboard-steps", ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.instances.poll-interval = 20ms",
        "almanac.http.port = 0"))));
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(60));
    AgentJob job = ctx -> ctx.step("gather", String.class, () -> {
          gathered.incrementAndGet();
          clock.advance(Duration.ofMillis(2400)); // the gathering takes 2.4 s of the node's clock
          return CompletableFuture.completedFuture("14 sources");
        }, sources -> Usage.of("model-x", 1200, 300, new BigDecimal("0.042")))
        .thenCompose(sources -> ctx.attempt() == 1
            ? CompletableFuture.completedFuture(JobResult.failure("model answered 503 while drafting"))
            : release.thenApply(v -> JobResult.success("published from " + sources)));
    almanac = Almanac.builder(node.system()).clock(clock).job("research", job).start();
    almanac.register(TaskSpec.builder(TASK).cron("0 0 * * * ? UTC").window("per-firing")
        .retry(RetryPolicy.immediate().withMaxRetries(1)).job("research").build())
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    io.almanac.persistence.instances.InstanceProjection.start(node.system(), clock);
    ServerBinding binding = AlmanacHttp.start(node.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    b = new DashboardBrowser(dir.resolve("chromium-profile"), 1280, 1000);
  }

  @AfterAll
  void stop() {
    DashboardBrowser.closeWith(b, node);
  }

  private WindowView window() {
    return almanac.windows(TASK).toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join().stream()
        .filter(w -> w.window().value().equals(WINDOW)).findFirst().orElse(null);
  }

  private void eventually(Runnable check) {
    DashboardBrowser.eventually(node, check);
  }

  @Test
  @DisplayName("the window page lists each attempt's steps: attempt 1's gather RECORDED with its tokens and cost while "
      + "the retry runs, then, without a reload, attempt 2's gather REPLAYED by attempt 1 once the retry succeeded; "
      + "a steps read that fails is said in the section and the rest of the page is shown")
  void recordedThenReplayed() throws Exception {
    clock.set(Instant.parse(WINDOW));
    eventually(() -> {
      WindowView w = window();
      assertTrue(w != null && w.status() == InstanceStatus.RUNNING && w.attempt() == 2, String.valueOf(w));
    });
    b.open(base + "/#/tasks/" + TASK + "/windows/" + URLEncoder.encode(WINDOW, StandardCharsets.UTF_8));
    b.attribute("#detail", "data-window", WINDOW);
    b.attribute("#detail", "data-status", "RUNNING");
    String first = b.until("#steps tr[data-attempt='1'][data-step='gather']", "gather RECORDED");
    assertTrue(first.contains("2.4 s"), "how long it ran: " + first);
    assertTrue(first.contains("1200") && first.contains("300") && first.contains("0.042") && first.contains("model-x"),
        first);
    assertEquals(0, b.driver.findElements(org.openqa.selenium.By.cssSelector("#steps tr[data-attempt='2']")).size(),
        "a running attempt's replays are recorded with its result: none shown yet");

    release.complete(null); // the page is not reloaded: its refresh reads the running window again
    b.attribute("#detail", "data-status", "SUCCEEDED");
    String replay = b.until("#steps tr[data-attempt='2'][data-step='gather']", "REPLAYED by attempt 1");
    assertTrue(replay.contains("gather REPLAYED by attempt 1 2.4 s when recorded"), replay);
    assertTrue(!replay.contains("1200") && !replay.contains("0.042"), "a replay used nothing: " + replay);
    b.until("#steps tr[data-attempt='1'][data-step='gather']", "gather RECORDED");
    assertEquals(1, gathered.get(), "the retry replayed gather instead of running it");

    b.driver.manage().window().setSize(new org.openqa.selenium.Dimension(800, 900));
    b.until("#steps tr[data-attempt='2'][data-step='gather']", "REPLAYED by attempt 1");
    long scroll = ((Number) b.script("return document.documentElement.scrollWidth")).longValue();
    long client = ((Number) b.script("return document.documentElement.clientWidth")).longValue();
    assertTrue(client > 0 && scroll <= client, "the window page at 800 px: scrollWidth " + scroll + " > clientWidth " + client);
    if (Boolean.getBoolean("almanac.writeScreenshots")) {
      b.driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 720));
      b.script("document.getElementById('logs').previousElementSibling.scrollIntoView()");
      b.screenshot("window-steps");
    }

    // a steps read that fails is said in the section; the rest of the window's page is shown as before
    b.driver.executeCdpCommand("Network.enable", java.util.Map.of());
    b.driver.executeCdpCommand("Network.setBlockedURLs", java.util.Map.of("urls", java.util.List.of("*/steps")));
    try {
      b.driver.get("about:blank");
      b.open(base + "/#/tasks/" + TASK + "/windows/" + URLEncoder.encode(WINDOW, StandardCharsets.UTF_8));
      b.attribute("#detail", "data-status", "SUCCEEDED");
      b.until("#steps", "not available: ");
      assertEquals(0, b.driver.findElements(org.openqa.selenium.By.cssSelector("#steps tr")).size());
      b.until("#why", "Attempt 2 got the recorded result of step 'gather' without running it.");
      b.until("#timeline thead", "event");
      b.until("#detail-fields", "published from 14 sources");
    } finally {
      b.driver.executeCdpCommand("Network.setBlockedURLs", java.util.Map.of("urls", java.util.List.of()));
    }
  }
}
