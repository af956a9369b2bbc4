package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.http.AlmanacHttp;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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

/**
 * The dashboard's window page shows what a job did, in a real headless Chromium against a node on an
 * H2 file: while the attempt runs, a progress bar with what the job says it does and its latest lines;
 * once it failed, the attempt's log lines and its stack trace. With {@code -Dalmanac.writeScreenshots=true}
 * it saves docs/screenshots/{job-progress,failed-attempt-log}.png.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardJobLogTest {

  @TempDir static Path dir;
  private static final String TASK = "weekly-brief";
  private static final String WINDOW = "2026-11-29T00:00:00Z";
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:30Z"));
  private final CompletableFuture<Void> release = new CompletableFuture<>();
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private DashboardBrowser b;

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("dashboard-joblog", ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.instances.poll-interval = 20ms",
        "almanac.http.port = 0"))));
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(60));
    AgentJob job = ctx -> {
      ctx.log().info("gathered {} sources for the brief", 14);
      ctx.log().info("asked the model for a draft (attempt {})", ctx.attempt());
      ctx.log().warn("model answered 429; retried after 2 s");
      ctx.progress(0.6, "drafting the brief: section 3 of 5");
      return release.thenApply(v -> {
        ctx.log().error("publish refused: HTTP 409 from cms.example.com");
        throw new IllegalStateException("tool 'publish' refused the draft: HTTP 409 (a draft with this title exists)");
      });
    };
    almanac = Almanac.builder(node.system()).clock(clock).job("brief", job).start();
    almanac.register(TaskSpec.builder(TASK).cron("0 0 * * * ? UTC").window("per-firing").retry(RetryPolicy.none())
        .job("brief").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
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

  private void windowPage() {
    b.driver.get("about:blank");
    try {
      b.open(base + "/#/tasks/" + TASK + "/windows/" + URLEncoder.encode(WINDOW, StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      throw new AssertionError("the page did not load; its console: " + b.driver.manage().logs().get("browser").getAll()
          + "; body: " + b.driver.findElement(org.openqa.selenium.By.tagName("body")).getText(), e);
    }
    b.attribute("#detail", "data-window", WINDOW);
  }

  @Test
  @DisplayName("the window page shows a running job's progress bar, what it says it does and its latest lines; once it "
      + "failed, the open page's refresh takes the bar away and shows the attempt's log lines and stack trace")
  void progressWhileRunningThenTheFailedAttemptsLog() throws Exception {
    clock.set(Instant.parse(WINDOW));
    eventually(() -> {
      WindowView w = window();
      assertTrue(w != null && w.status() == InstanceStatus.RUNNING && w.progress() != null
          && w.progress().fraction() != null, String.valueOf(w));
    });
    windowPage();
    b.attribute("#detail", "data-status", "RUNNING");
    b.attribute("#progress-bar", "data-fraction", "0.6");
    assertEquals("0.6", b.read("#progress-bar", "value"));
    String said = b.until("#progress-text", "60%");
    assertTrue(said.contains("attempt 1: 60% – drafting the brief: section 3 of 5"), said);
    b.until("#progress-lines", "WARN model answered 429; retried after 2 s");
    b.until("#logs", "no log lines or stack traces recorded");
    if (Boolean.getBoolean("almanac.writeScreenshots")) {
      b.script("window.scrollTo(0, 0)");
      b.driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 640));
      b.screenshot("job-progress");
      b.driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 1000));
    }

    release.complete(null); // the page is not reloaded: its refresh reads the running window again
    b.attribute("#detail", "data-status", "FINAL_FAILED");
    String log = b.until(".attempt-log[data-attempt='1'] pre.log", "ERROR publish refused: HTTP 409 from cms.example.com");
    assertTrue(log.contains("INFO gathered 14 sources for the brief"), log);
    String stack = b.until(".attempt-log[data-attempt='1'] pre.stack",
        "java.lang.IllegalStateException: tool 'publish' refused the draft");
    assertTrue(stack.contains("at "), stack);
    assertEquals("true", String.valueOf(b.script("return document.getElementById('progress').hidden")),
        "no progress bar once the attempt ended");
    b.until("#why", "Attempt 1's job threw java.lang.IllegalStateException");
    if (Boolean.getBoolean("almanac.writeScreenshots")) {
      b.script("document.getElementById('logs').previousElementSibling.scrollIntoView()");
      b.driver.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 720));
      b.screenshot("failed-attempt-log");
    }
  }
}
