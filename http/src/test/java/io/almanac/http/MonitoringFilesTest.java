package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.testkit.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The example Grafana dashboard and Prometheus alert rules in docs/monitoring use only metrics that
 * exist: every {@code almanac_*} name in their expressions is in docs/metrics.md's table, and every
 * gauge among them, and every JVM meter, is served by a running node's {@code GET /metrics}; and
 * every gauge docs/metrics.md lists is served too (counters and timers appear at their first count).
 */
class MonitoringFilesTest {

  private static final Path DOCS = Path.of("..", "docs");
  /** A metric name in a PromQL expression (label names and functions are lower case too: filtered by prefix). */
  private static final Pattern METRIC = Pattern.compile("\\b((?:almanac|jvm|process|system)_[a-z0-9_]+)");
  /** A Prometheus name in docs/metrics.md's table: the backticked name in brackets. */
  private static final Pattern DOCUMENTED = Pattern.compile("\\(`(almanac_[a-z0-9_]+)`\\)");

  private ActorTestKit testKit;

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("the alert rules and the Grafana dashboard parse, and every metric they use is documented and served")
  void monitoringFilesUseRealMetrics() throws Exception {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    JsonNode rules = yaml.readTree(DOCS.resolve("monitoring/almanac-alerts.yml").toFile());
    List<String> exprs = new ArrayList<>();
    Set<String> alertNames = new TreeSet<>();
    for (JsonNode group : rules.get("groups")) {
      for (JsonNode rule : group.get("rules")) {
        assertTrue(rule.hasNonNull("alert") && rule.hasNonNull("expr"), "a rule without alert or expr: " + rule);
        assertTrue(alertNames.add(rule.get("alert").asText()), "alert named twice: " + rule.get("alert"));
        assertTrue(rule.path("annotations").hasNonNull("summary"), "an alert without a summary: " + rule.get("alert"));
        exprs.add(rule.get("expr").asText());
      }
    }
    assertTrue(alertNames.size() >= 10, "alert rules: " + alertNames);
    JsonNode dashboard = new ObjectMapper().readTree(DOCS.resolve("monitoring/grafana-almanac.json").toFile());
    assertEquals("Almanac", dashboard.get("title").asText());
    int panels = 0;
    for (JsonNode panel : dashboard.get("panels")) {
      for (JsonNode target : panel.path("targets")) {
        exprs.add(target.get("expr").asText());
        panels++;
      }
    }
    assertTrue(panels >= 20, "dashboard targets: " + panels);
    exprs.add(dashboard.at("/templating/list/0/query/query").asText());

    Set<String> used = new TreeSet<>();
    for (String e : exprs) {
      Matcher m = METRIC.matcher(e);
      while (m.find()) {
        used.add(m.group(1));
      }
    }
    String metricsDoc = Files.readString(DOCS.resolve("metrics.md"));
    Set<String> documented = new TreeSet<>();
    Matcher d = DOCUMENTED.matcher(metricsDoc);
    while (d.find()) {
      documented.add(d.group(1));
    }
    List<String> undocumented = new ArrayList<>();
    for (String name : used) {
      if (name.startsWith("almanac_") && !documented.contains(family(name))) {
        undocumented.add(name);
      }
    }
    assertEquals(List.of(), undocumented, "metrics the monitoring files use that docs/metrics.md does not list " + documented);

    String scrape = scrape();
    Set<String> served = new TreeSet<>();
    scrape.lines().filter(l -> l.startsWith("# TYPE ")).forEach(l -> served.add(l.split(" ")[2]));
    List<String> gaugesNotServed = new ArrayList<>();
    for (String line : metricsDoc.lines().filter(l -> l.startsWith("| `almanac.")).toList()) {
      Matcher n = DOCUMENTED.matcher(line);
      String[] cells = line.split("\\|");
      if (n.find() && cells.length > 2 && cells[2].trim().equals("gauge") && !served.contains(n.group(1))
          && !n.group(1).startsWith("almanac_pool_") && !n.group(1).equals("almanac_task_last_success_timestamp_seconds")) {
        gaugesNotServed.add(n.group(1)); // pool gauges exist on nodes with pools; a task's last success once it has one
      }
    }
    assertEquals(List.of(), gaugesNotServed, "gauges docs/metrics.md lists that a running node does not serve");
    List<String> notServed = new ArrayList<>();
    for (String name : used) {
      boolean gaugeOrJvm = !name.startsWith("almanac_") || !name.matches(".*_(total|seconds|bucket|count|sum)$");
      if (gaugeOrJvm && !name.startsWith("almanac_pool_") && !served.contains(family(name))) {
        notServed.add(name);
      }
    }
    assertEquals(List.of(), notServed, "gauges and JVM meters the monitoring files use that a node does not serve: "
        + served);
    assertFalse(scrape.contains("almanac_task_last_success_timestamp_seconds{task=\"digest\"} NaN"));
  }

  /** A sample's metric family: without the histogram's and counter's suffixes. */
  private static String family(String name) {
    return name.replaceAll("_(bucket|count|sum|max)$", "");
  }

  /** A node that ran one job, scraped. */
  private String scrape() throws Exception {
    testKit = ActorTestKit.create("monitoring-files-test", AlmanacHttpTest.config(
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms }\nalmanac.executor.check-interval = 20ms"));
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).job("ok", ok).start();
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("ok").build())
        .toCompletableFuture().get(20, TimeUnit.SECONDS);
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    System.gc(); // the GC meters register at the first collection they are told of
    HttpClient client = HttpClient.newHttpClient();
    String[] body = new String[1];
    io.almanac.testkit.Eventually.eventually(Duration.ofSeconds(20), () -> {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + binding.localAddress().getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
      assertTrue(r.body().contains("almanac_task_last_success_timestamp_seconds{task=\"digest\"}"), r.body());
      assertTrue(r.body().contains("# TYPE jvm_gc_pause_seconds"), "no GC meter yet");
      body[0] = r.body();
    });
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return body[0];
  }
}
