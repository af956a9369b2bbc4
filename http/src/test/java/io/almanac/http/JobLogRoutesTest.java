package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a job did, over real HTTP on a real node on an H2 file: the window's JSON shows the running
 * attempt's progress, and once it failed {@code /logs} gives its lines and stack trace, {@code why}
 * its stack trace's first line.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobLogRoutesTest {

  @TempDir static Path dir;

  private static final String WINDOW = "2026-11-29T00:00:00Z";
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:30Z"));
  private final CompletableFuture<Void> release = new CompletableFuture<>();
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private JsonNode whileRunning;

  private Config config() {
    return ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.http.port = 0")));
  }

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable check) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      check.run();
      return null;
    });
  }

  private WindowView window() {
    return await(almanac.windows("agent")).stream().filter(w -> w.window().value().equals(WINDOW)).findFirst()
        .orElseThrow(() -> new AssertionError("no window " + WINDOW));
  }

  private HttpResponse<String> get(String what) throws Exception {
    String path = "/api/tasks/agent/windows/" + URLEncoder.encode(WINDOW, StandardCharsets.UTF_8) + what;
    return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @BeforeAll
  void run() throws Exception {
    node = ActorTestKit.create("joblog-http", config());
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    AgentJob job = ctx -> {
      ctx.log().info("gathered {} sources", 12);
      ctx.log().warn("model answered 429; waiting");
      ctx.progress(0.6, "drafting");
      return release.thenApply(v -> {
        throw new IllegalStateException("tool 'publish' refused the draft");
      });
    };
    almanac = Almanac.builder(node.system()).clock(clock).job("agent", job).start();
    await(almanac.register(TaskSpec.builder("agent").cron("0 0 * * * ? UTC").window("per-firing")
        .retry(RetryPolicy.none()).job("agent").build()));
    ServerBinding binding = AlmanacHttp.start(node.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    clock.set(Instant.parse(WINDOW));
    eventually(() -> {
      try {
        HttpResponse<String> r = get("");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode n = json.readTree(r.body());
        assertEquals("RUNNING", n.get("status").asText(), r.body());
        assertTrue(n.get("progress").isObject(), r.body());
        assertEquals("drafting", n.get("progress").get("text").asText(), r.body());
        whileRunning = n;
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    release.complete(null);
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window().status()));
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("the window's JSON shows the running attempt's progress: fraction, text, attempt and its latest lines; "
      + "null once it ended")
  void progressWhileRunning() throws Exception {
    JsonNode p = whileRunning.get("progress");
    assertEquals(0.6, p.get("fraction").asDouble());
    assertEquals(1, p.get("attempt").asInt());
    assertTrue(p.get("at").isTextual(), p.toString());
    List<String> latest = new ArrayList<>();
    p.get("latest").forEach(l -> latest.add(l.get("level").asText() + " " + l.get("text").asText()));
    assertEquals(List.of("INFO gathered 12 sources", "WARN model answered 429; waiting"), latest);
    HttpResponse<String> after = get("");
    assertTrue(json.readTree(after.body()).get("progress").isNull(), after.body());
  }

  @Test
  @DisplayName("GET .../logs gives each attempt's lines and its failure's stack trace; ?attempt=N keeps one; a bad "
      + "attempt is a 400 naming it; an unknown task a 404")
  void logsOfAFailedAttempt() throws Exception {
    HttpResponse<String> r = get("/logs");
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
    JsonNode n = json.readTree(r.body());
    assertEquals("agent", n.get("task").asText());
    assertEquals(WINDOW, n.get("window").asText());
    assertEquals(1, n.get("attempts").size(), r.body());
    JsonNode a = n.get("attempts").get(0);
    assertEquals(1, a.get("attempt").asInt());
    assertEquals(2, a.get("lines").size(), r.body());
    assertEquals("gathered 12 sources", a.get("lines").get(0).get("text").asText());
    assertEquals("WARN", a.get("lines").get(1).get("level").asText());
    assertEquals(0, a.get("droppedLines").asInt());
    assertTrue(a.get("dropped").isNull());
    assertTrue(a.get("stackTrace").asText().startsWith("java.lang.IllegalStateException: tool 'publish' refused the draft"),
        r.body());

    HttpResponse<String> one = get("/logs?attempt=1");
    assertEquals(200, one.statusCode(), one.body());
    assertEquals(1, json.readTree(one.body()).get("attempts").size(), one.body());
    assertEquals(0, json.readTree(get("/logs?attempt=2").body()).get("attempts").size());
    HttpResponse<String> bad = get("/logs?attempt=first");
    assertEquals(400, bad.statusCode(), bad.body());
    assertEquals("attempt", json.readTree(bad.body()).get("field").asText(), bad.body());
    HttpResponse<String> unknown = client.send(HttpRequest.newBuilder(URI.create(base
        + "/api/tasks/nobody/windows/2026-11-29/logs")).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(404, unknown.statusCode(), unknown.body());
  }

  @Test
  @DisplayName("why tells the failed attempt's stack trace's first line")
  void whyNamesTheFirstStackLine() throws Exception {
    HttpResponse<String> r = get("/why");
    assertEquals(200, r.statusCode(), r.body());
    List<String> steps = new ArrayList<>();
    json.readTree(r.body()).get("steps").forEach(s -> steps.add(s.get("text").asText()));
    assertTrue(steps.stream().anyMatch(s -> s.contains("Attempt 1's job threw java.lang.IllegalStateException: tool "
        + "'publish' refused the draft")), steps.toString());
  }
}
