package io.almanac.spring.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.WindowView;
import io.almanac.testkit.Eventually;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The sample booted, closed while a long job runs, and booted again on the same H2 file (R5: no
 * window runs twice), as an application is deployed: judged by the jobs' own effect log and the
 * node's window views, not by log lines. The close shows the shutdown's order: the long job learns
 * of the drain only once Spring's web server no longer takes connections, and the context's close
 * returns only after the job has ended and its result is recorded.
 */
class SampleRestartTest {

  /** What the probe job saw: when it learnt of the drain, whether the web port still took a connection, when it ended. */
  static final Map<String, Object> SEEN = new ConcurrentHashMap<>();

  /** A long task of the test's own, run on demand: its job probes the web server when the node drains. */
  @Configuration(proxyBeanMethods = false)
  static class LongJob {
    @Bean
    TaskSpec longTask() {
      return TaskSpec.builder("long").cron("0 0 0 1 1 ? UTC").window(WindowSpec.PER_FIRING).job("probe").build();
    }

    @Bean
    AgentJob probe(EffectLog log) {
      return ctx -> {
        SEEN.put("started", Instant.now());
        return ctx.stopping().thenApply(v -> {
          SEEN.put("stopping", Instant.now());
          SEEN.put("web-answers", answers((Integer) SEEN.get("web-port")));
          sleep(1000); // still working for a while after the drain began: the close waits for it
          log.append(ctx.taskId(), ctx.window().toString(), ctx.attempt());
          SEEN.put("ended", Instant.now());
          return JobResult.success("drained after the web server stopped");
        });
      };
    }
  }

  @Test
  void noWindowRunsTwiceAcrossARestartAndTheDrainWaitsForTheWebServer(@TempDir Path dir) throws Exception {
    Instant closed;
    WindowViews first;
    try (ConfigurableApplicationContext app = boot(dir)) {
      Almanac almanac = app.getBean(Almanac.class);
      SEEN.put("web-port", ((WebServerApplicationContext) app).getWebServer().getPort());
      assertTrue(answers((Integer) SEEN.get("web-port")), "the web server answers while the application runs");
      assertEquals("report", almanac.task("report").toCompletableFuture().get(10, TimeUnit.SECONDS).spec().job(),
          "the TaskSpec bean is registered, with its @AlmanacJob job");
      almanac.runNow("report").toCompletableFuture().get(10, TimeUnit.SECONDS);
      Eventually.eventually(Duration.ofSeconds(15), () -> {
        assertTrue(succeeded(almanac, "heartbeat").size() >= 3, "heartbeat ran every second");
        assertFalse(succeeded(almanac, "report").isEmpty(), "report ran");
      });
      almanac.runNow("long").toCompletableFuture().get(10, TimeUnit.SECONDS);
      Eventually.eventually(Duration.ofSeconds(10), () -> assertNotNull(SEEN.get("started"), "the long job runs"));
      first = new WindowViews(almanac);
      app.close();
      closed = Instant.now();
    }
    assertEquals(Boolean.FALSE, SEEN.get("web-answers"), "the drain began after the web server stopped answering");
    Instant ended = (Instant) SEEN.get("ended");
    assertNotNull(ended, "the long job ended during the close");
    assertFalse(ended.isAfter(closed), "the context's close returned only after the drained job ended");

    try (ConfigurableApplicationContext app = boot(dir)) {
      Almanac almanac = app.getBean(Almanac.class);
      List<WindowView> longWindows = almanac.windows("long").toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(List.of(InstanceStatus.SUCCEEDED), longWindows.stream().map(WindowView::status).toList(),
          "the drained job's result was recorded before the node stopped (not interrupted, not run again)");
      Set<io.almanac.WindowKey> atBoot = succeeded(almanac, "heartbeat").stream().map(WindowView::window)
          .collect(Collectors.toSet());
      Eventually.eventually(Duration.ofSeconds(15), () -> assertTrue(succeeded(almanac, "heartbeat").stream()
          .filter(w -> !atBoot.contains(w.window())).count() >= 2, "heartbeat runs again after the restart"));
      List<String> lines = app.getBean(EffectLog.class).lines();
      Set<String> windows = new HashSet<>();
      for (String line : lines) {
        String[] parts = line.split(" ");
        assertTrue(windows.add(parts[0] + " " + parts[1]), "window ran twice: " + line + " in " + lines);
      }
      for (String task : List.of("heartbeat", "report", "long")) {
        for (WindowView w : succeeded(almanac, task)) {
          assertTrue(windows.contains(task + " " + w.window()), "SUCCEEDED window without its effect: " + task + " "
              + w.window());
        }
      }
      assertTrue(succeeded(almanac, "heartbeat").stream().map(WindowView::window).collect(Collectors.toSet())
          .containsAll(first.heartbeat), "the windows of the first run are kept in the journal");
    }
  }

  private static ConfigurableApplicationContext boot(Path dir) {
    // as command-line arguments: they win over application.yml
    return new SpringApplicationBuilder(SampleApplication.class, LongJob.class).run(
        "--server.port=0",
        "--almanac.http.port=0",
        "--sample.data-dir=" + dir,
        "--sample.report.duration=500ms",
        "--almanac.executor.shutdown-grace=10s");
  }

  /** The node's SUCCEEDED windows of a task. */
  static List<WindowView> succeeded(Almanac almanac, String task) throws Exception {
    return almanac.windows(task).toCompletableFuture().get(10, TimeUnit.SECONDS).stream()
        .filter(w -> w.status() == InstanceStatus.SUCCEEDED).toList();
  }

  private static final class WindowViews {
    final Set<io.almanac.WindowKey> heartbeat;

    WindowViews(Almanac almanac) throws Exception {
      heartbeat = succeeded(almanac, "heartbeat").stream().map(WindowView::window).collect(Collectors.toSet());
    }
  }

  /** Whether Spring's web server answers an HTTP request within a second (a stopped server may still accept the connection). */
  private static boolean answers(int port) {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    try {
      client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
          .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.discarding());
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
