package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.JobResult;
import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.InstanceProjection;
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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Monitoring that works on a node's first day, checked on a real scrape: a fresh node (H2 and the
 * instance table's projection, one task, a webhook and a pool configured, nothing fired yet) serves over HTTP every metric that the alert
 * rules and the Grafana dashboard in docs/monitoring and docs/metrics.md name; every family it
 * serves has a {@code # HELP} and a {@code # TYPE} line; and the counters a first event would count
 * (the task's, the node's, the webhook's, the pool's) are there at 0, so that Prometheus's {@code
 * increase()} sees that first event.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MonitoringFilesTest {

  private static final Path DOCS = Path.of("..", "docs");
  /** A metric name in a PromQL expression or in docs/metrics.md (label names and functions are lower case too: filtered by prefix). */
  private static final Pattern METRIC = Pattern.compile("\\b((?:almanac|jvm|process|system|http)_[a-z0-9_]+)");
  /** A Prometheus name in docs/metrics.md's table: the backticked name in brackets. */
  private static final Pattern DOCUMENTED = Pattern.compile("\\(`(almanac_[a-z0-9_]+)`\\)");
  /** A sample line: its name, its labels, its value. */
  private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)");
  /** The suffixes of a histogram's or a summary's samples. */
  private static final Pattern HISTOGRAM_SUFFIX = Pattern.compile("(.*)_(bucket|sum|count)");

  private ActorTestKit testKit;
  private Scrape scrape;

  @BeforeAll
  void startFreshNode(@TempDir Path dir) throws Exception {
    testKit = ActorTestKit.create("monitoring-files-test", ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.http.port = 0",
        // nothing posts to it in this test (no alert is raised): the webhook's meters exist because it is configured
        "almanac.alerts.webhook.url = \"http://127.0.0.1:9/almanac-alerts\"",
        "almanac.pools.llm { max-concurrent = 1 }",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms }",
        "almanac.executor.check-interval = 20ms"))));
    SchemaBootstrap.ensureSchemaBlocking(testKit.system(), Duration.ofSeconds(30));
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T12:00:00Z")); // the task is due at 00:00 UTC: never here
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).job("ok", ok).start();
    InstanceProjection.start(testKit.system(), clock); // as the demo node does: it feeds the instance table
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("ok").pools("llm").build())
        .toCompletableFuture().get(20, TimeUnit.SECONDS);
    System.gc(); // the GC meters register at the first collection they are told of
    URI metrics = URI.create("http://127.0.0.1:" + binding.localAddress().getPort() + "/metrics");
    HttpClient client = HttpClient.newHttpClient();
    String[] body = new String[1];
    io.almanac.testkit.Eventually.eventually(Duration.ofSeconds(20), () -> {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
      // the instance table's projection registers its lag once it runs; the GC meter at the first collection;
      // the HTTP meter at the first answer (this loop's first scrape)
      assertTrue(r.body().contains("# TYPE almanac_projection_lag_seconds"), "no projection lag yet");
      assertTrue(r.body().contains("# TYPE jvm_gc_pause_seconds"), "no GC meter yet");
      assertTrue(r.body().contains("# TYPE http_server_requests_seconds"), "no HTTP meter yet");
      // a task's series are made on the dispatcher, moments after its registration
      assertTrue(r.body().contains("almanac_task_never_succeeded{task=\"digest\"}"), "the task's series not made yet");
      body[0] = r.body();
    });
    scrape = Scrape.parse(body[0]);
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("every metric the alert rules, the Grafana dashboard and docs/metrics.md name is served by a fresh node")
  void everyMetricTheMonitoringFilesNameIsServed() throws Exception {
    Set<String> used = new TreeSet<>();
    for (String e : expressions()) {
      used.addAll(names(e));
    }
    assertTrue(used.contains("almanac_task_never_succeeded"), "the never-succeeded alert: " + used);
    String metricsDoc = Files.readString(DOCS.resolve("metrics.md"));
    Set<String> documented = new TreeSet<>();
    Matcher d = DOCUMENTED.matcher(metricsDoc);
    while (d.find()) {
      documented.add(d.group(1));
    }
    assertTrue(documented.size() >= 35, "metrics in docs/metrics.md's table: " + documented);
    List<String> undocumented = new ArrayList<>();
    for (String name : used) {
      String family = scrape.family(name);
      if (name.startsWith("almanac_") && (family == null || !documented.contains(family))) {
        undocumented.add(name);
      }
    }
    assertEquals(List.of(), undocumented, "metrics the monitoring files use that docs/metrics.md's table does not list");

    Set<String> named = new TreeSet<>(used);
    named.addAll(names(metricsDoc)); // the table, the PromQL examples, the prose
    List<String> notServed = new ArrayList<>();
    for (String name : named) {
      if (!scrape.serves(name)) {
        notServed.add(name);
      }
    }
    assertEquals(List.of(), notServed, "metrics named in docs/monitoring or docs/metrics.md that a fresh node does not "
        + "serve; it serves " + scrape.types.keySet());
  }

  @Test
  @DisplayName("every metric family on /metrics has a # HELP with text and a # TYPE, and every sample belongs to one")
  void everyFamilyHasHelpAndType() {
    List<String> wrong = new ArrayList<>();
    for (String family : scrape.types.keySet()) {
      if (scrape.help.getOrDefault(family, "").isBlank()) {
        wrong.add(family + ": no HELP");
      }
    }
    for (String family : scrape.help.keySet()) {
      if (!scrape.types.containsKey(family)) {
        wrong.add(family + ": HELP without TYPE");
      }
    }
    for (String sample : scrape.samples.keySet()) {
      if (scrape.family(sample) == null) {
        wrong.add(sample + ": a sample of no declared family");
      }
    }
    assertEquals(List.of(), wrong);
    assertTrue(scrape.types.containsKey("almanac_attempts_total") || scrape.types.containsKey("almanac_attempts"),
        "the task's counters: " + scrape.types.keySet());
    assertTrue(scrape.types.containsKey("http_server_requests_seconds"), "the HTTP meter: " + scrape.types.keySet());
  }

  @Test
  @DisplayName("before any event the task's counters, the node's, the webhook's and the pool's are served at 0, "
      + "and the task is known never to have succeeded")
  void countersAreServedAtZeroFromTheStart() {
    List<String> expected = new ArrayList<>();
    for (String result : List.of("acknowledged", "refused", "unanswered")) {
      expected.add("almanac_fires_total{kind=\"on_time\",result=\"" + result + "\",task=\"digest\"}");
    }
    expected.add("almanac_decisions_total{decision=\"scheduled\",kind=\"on_time\",reason=\"none\",task=\"digest\"}");
    for (SkipReason r : SkipReason.values()) {
      expected.add("almanac_decisions_total{decision=\"skipped\",kind=\"on_time\",reason=\"" + lower(r) + "\",task=\"digest\"}");
    }
    for (MissReason r : MissReason.values()) {
      expected.add("almanac_decisions_total{decision=\"missed\",kind=\"on_time\",reason=\"" + lower(r) + "\",task=\"digest\"}");
    }
    for (RunKind k : RunKind.values()) {
      expected.add("almanac_attempts_started_total{kind=\"" + lower(k) + "\",task=\"digest\"}");
    }
    for (String outcome : List.of("succeeded", "failed", "throttled", "timed_out", "interrupted", "cancelled", "late_result")) {
      expected.add("almanac_attempts_total{outcome=\"" + outcome + "\",task=\"digest\"}");
    }
    expected.add("almanac_steps_total{kind=\"recorded\",task=\"digest\"}");
    expected.add("almanac_usage_tokens_total{direction=\"in\",task=\"digest\"}");
    expected.add("almanac_usage_cost_total{task=\"digest\"}");
    expected.add("almanac_job_duration_seconds_count{task=\"digest\"}");
    expected.add("almanac_retries_scheduled_total");
    expected.add("almanac_windows_final_failed_total");
    expected.add("almanac_budget_raises_total");
    expected.add("almanac_lease_expiries_total{cause=\"lease_expired\"}");
    expected.add("almanac_deadlines_missed_total{status=\"running\"}");
    expected.add("almanac_publishes_total{outcome=\"recorded\"}");
    expected.add("almanac_usage_model_tokens_total{direction=\"in\",model=\"unknown\"}");
    expected.add("almanac_alerts_webhook_sent_total");
    for (String reason : List.of("queue_full", "gave_up", "refused", "closed")) {
      expected.add("almanac_alerts_webhook_dropped_total{reason=\"" + reason + "\"}");
    }
    expected.add("almanac_alerts_webhook_failed_attempts_total{cause=\"connect\"}");
    for (String outcome : List.of("admitted", "full", "rate", "paused", "budget", "error")) {
      expected.add("almanac_pool_admissions_total{outcome=\"" + outcome + "\",pool=\"llm\"}");
    }
    expected.add("almanac_pool_cost_total{pool=\"llm\"}");
    List<String> missing = new ArrayList<>();
    for (String series : expected) {
      Double v = scrape.series.get(series);
      if (v == null || v != 0) {
        missing.add(series + " = " + v);
      }
    }
    assertEquals(List.of(), missing, "series not served at 0 by a fresh node");

    // every almanac counter is at 0: nothing was fired, decided or run (the journal's own counters count the trigger's writes)
    List<String> notZero = new ArrayList<>();
    scrape.series.forEach((s, v) -> {
      String family = scrape.family(s.replaceAll("\\{.*", ""));
      if (s.startsWith("almanac_") && "counter".equals(scrape.types.get(family)) && v != 0
          && !s.startsWith("almanac_journal_persists") && !s.startsWith("almanac_journal_events")) {
        notZero.add(s + " = " + v);
      }
    });
    assertEquals(List.of(), notZero, "counters a fresh node serves above 0");

    assertEquals(1.0, scrape.series.get("almanac_task_never_succeeded{task=\"digest\"}"), "a task just registered never succeeded");
    assertTrue(scrape.series.get("almanac_task_last_success_timestamp_seconds{task=\"digest\"}").isNaN(),
        "no success is known: NaN, which no comparison in an alert matches");
  }

  @Test
  @DisplayName("the alert rules and the dashboard parse: named alerts with a summary, panels with their targets")
  void monitoringFilesParse() throws Exception {
    assertTrue(expressions().size() >= 40, "expressions: " + expressions().size());
  }

  /** The PromQL of the alert rules and the dashboard's targets and variable, checked as they are read. */
  private List<String> expressions() throws Exception {
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
    assertTrue(alertNames.contains("AlmanacTaskNeverSucceeded"), "alert rules: " + alertNames);
    assertTrue(alertNames.size() >= 10, "alert rules: " + alertNames);
    JsonNode dashboard = new ObjectMapper().readTree(DOCS.resolve("monitoring/grafana-almanac.json").toFile());
    assertEquals("Almanac", dashboard.get("title").asText());
    int targets = 0;
    for (JsonNode panel : dashboard.get("panels")) {
      for (JsonNode target : panel.path("targets")) {
        exprs.add(target.get("expr").asText());
        targets++;
      }
    }
    assertTrue(targets >= 20, "dashboard targets: " + targets);
    for (JsonNode variable : dashboard.at("/templating/list")) {
      exprs.add(variable.at("/query/query").asText());
    }
    return exprs;
  }

  private static Set<String> names(String text) {
    Set<String> out = new TreeSet<>();
    Matcher m = METRIC.matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }

  /** A scrape in the Prometheus text format, read line by line. */
  private static final class Scrape {
    final Map<String, String> help = new TreeMap<>();
    final Map<String, String> types = new TreeMap<>();
    /** Each sample name, with how many samples have it. */
    final Map<String, Integer> samples = new TreeMap<>();
    /** Each series (name and labels, as printed) with its value. */
    final Map<String, Double> series = new HashMap<>();

    static Scrape parse(String body) {
      Scrape s = new Scrape();
      for (String line : body.lines().toList()) {
        if (line.startsWith("# HELP ")) {
          String[] p = line.split(" ", 4);
          s.help.put(p[2], p.length > 3 ? p[3] : "");
        } else if (line.startsWith("# TYPE ")) {
          String[] p = line.split(" ");
          s.types.put(p[2], p[3]);
        } else if (!line.isBlank() && !line.startsWith("#")) {
          Matcher m = SAMPLE.matcher(line);
          assertTrue(m.matches(), "not a sample line: " + line);
          s.samples.merge(m.group(1), 1, Integer::sum);
          s.series.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
        }
      }
      return s;
    }

    /**
     * @param name a family's or a sample's name
     * @return the family it belongs to (a histogram's {@code _bucket}, {@code _sum} and {@code
     *     _count} belong to the histogram, a counter's {@code _total} to the counter), or null
     */
    String family(String name) {
      if (types.containsKey(name)) {
        return name;
      }
      Matcher h = HISTOGRAM_SUFFIX.matcher(name);
      if (h.matches() && Set.of("histogram", "summary").contains(types.get(h.group(1)))) {
        return h.group(1);
      }
      if (name.endsWith("_total") && "counter".equals(types.get(name.substring(0, name.length() - "_total".length())))) {
        return name.substring(0, name.length() - "_total".length());
      }
      return null;
    }

    /** Whether a name used in a query or the docs is served: a family with samples, or a sample name. */
    boolean serves(String name) {
      if (samples.containsKey(name)) {
        return true;
      }
      String family = family(name);
      if (family == null) {
        return false;
      }
      for (String sample : samples.keySet()) {
        if (family.equals(family(sample))) {
          return true;
        }
      }
      return false;
    }
  }
}
