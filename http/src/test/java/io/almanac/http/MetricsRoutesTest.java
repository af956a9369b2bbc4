package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Almanac;
import io.almanac.AgentJob;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.testkit.SettableClock;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** GET /metrics over real HTTP, on a one-node Almanac with an in-memory journal and a SettableClock. */
class MetricsRoutesTest {

  private ActorTestKit testKit;

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("GET /metrics answers the node's almanac.* meters in Prometheus text format 0.0.4 after a job ran")
  void scrapeOverHttp() throws Exception {
    testKit = ActorTestKit.create("metrics-http-test", AlmanacHttpTest.config(
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms }\nalmanac.executor.check-interval = 20ms"));
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).job("ok", ok).start();
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    String base = "http://127.0.0.1:" + binding.localAddress().getPort();
    HttpClient client = HttpClient.newHttpClient();
    almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("ok").build())
        .toCompletableFuture().get(20, TimeUnit.SECONDS);
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    // the fire is recorded before the first request reaches the node: the served meters have it all the same
    io.almanac.testkit.Eventually.eventually(Duration.ofSeconds(20), () -> assertTrue(almanac.windows("digest")
        .toCompletableFuture().get(10, TimeUnit.SECONDS).stream().anyMatch(w -> w.status() == io.almanac.InstanceStatus.SUCCEEDED)));

    String expected = "almanac_attempts_total{outcome=\"succeeded\",task=\"digest\"} 1.0";
    java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> scraped = new java.util.concurrent.atomic.AtomicReference<>();
    io.almanac.testkit.Eventually.eventually(Duration.ofSeconds(20), () -> {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      scraped.set(r);
      assertEquals(200, r.statusCode(), r.body());
      assertTrue(r.body().contains(expected), r.body());
      // the same write also records the job's duration, in a meter of its own: a scrape may fall between the two
      assertTrue(r.body().contains("almanac_job_duration_seconds_count{task=\"digest\"} 1"), r.body());
    });
    client.send(HttpRequest.newBuilder(URI.create(base + "/api/tasks")).build(), HttpResponse.BodyHandlers.ofString());
    client.send(HttpRequest.newBuilder(URI.create(base + "/api/tasks/digest/windows/2026-11-29/why")).build(),
        HttpResponse.BodyHandlers.ofString());
    client.send(HttpRequest.newBuilder(URI.create(base + "/no-such-page")).build(), HttpResponse.BodyHandlers.ofString());
    io.almanac.testkit.Eventually.eventually(Duration.ofSeconds(20), () -> {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      scraped.set(r);
      assertTrue(r.body().contains("http_server_requests_seconds_count{method=\"GET\",outcome=\"SUCCESS\",status=\"200\","
          + "uri=\"/api/tasks\"} 1"), r.body());
      assertTrue(r.body().contains("uri=\"/api/tasks/{task}/windows/{window}/why\"} 1"), r.body());
      assertTrue(r.body().contains("http_server_requests_seconds_count{method=\"GET\",outcome=\"CLIENT_ERROR\",status=\"404\","
          + "uri=\"NOT_FOUND\"} 1"), r.body());
    });
    HttpResponse<String> metrics = scraped.get();
    String body = metrics.body();
    assertEquals("text/plain; version=0.0.4; charset=utf-8", metrics.headers().firstValue("Content-Type").orElse(""));
    assertTrue(body.contains(expected), body);
    assertTrue(body.contains("almanac_decisions_total{decision=\"scheduled\",kind=\"on_time\",reason=\"none\",task=\"digest\"} 1.0"), body);
    assertTrue(body.contains("almanac_attempts_started_total{kind=\"first\",task=\"digest\"} 1.0"), body);
    assertTrue(body.contains("almanac_job_duration_seconds_count{task=\"digest\"} 1"), body);
    assertTrue(body.contains("almanac_job_duration_seconds_bucket{task=\"digest\",le="), "a histogram per task: " + body);
    assertTrue(body.contains("almanac_trigger_lag_seconds_count 1"), body);
    assertTrue(body.contains("almanac_intervention_queue 0.0"), body);
    assertTrue(body.contains("almanac_backlog{queue=\"fresh\"} 0.0"), body);
    assertTrue(body.contains("# TYPE almanac_journal_write_seconds histogram"), body);
    assertTrue(body.contains("almanac_windows{status=\"pending\"} 0.0"), body);
    assertTrue(body.contains("almanac_tasks_paused 0.0"), body);
    assertTrue(body.contains("almanac_task_last_success_timestamp_seconds{task=\"digest\"} 1.7959104E9"), body);
    assertTrue(body.contains("jvm_memory_used_bytes{"), "Micrometer's JVM meters: " + body);
    assertTrue(!body.contains("2026-11-29"), "no window key in any tag");
    long buckets = body.lines().filter(l -> l.startsWith("almanac_job_duration_seconds_bucket{task=\"digest\"")).count();
    assertEquals(15, buckets, "a histogram per task of 14 fixed buckets and +Inf: " + buckets + " buckets");
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  @DisplayName("a Prometheus registry already in the node's registry is the one served; else one is added, once")
  void prometheusRegistryIsReused() {
    CompositeMeterRegistry node = new CompositeMeterRegistry();
    PrometheusMeterRegistry added = MetricsRoutes.prometheusOf(node);
    assertSame(added, MetricsRoutes.prometheusOf(node));
    assertEquals(1, node.getRegistries().size());
    CompositeMeterRegistry given = new CompositeMeterRegistry();
    PrometheusMeterRegistry own = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    given.add(own);
    assertSame(own, MetricsRoutes.prometheusOf(given));
  }
}
