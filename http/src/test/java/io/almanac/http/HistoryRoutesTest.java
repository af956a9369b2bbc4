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
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.audit.WindowHistory;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
 * The timeline and why endpoints over real HTTP, on a real node on an H2 file (time from a
 * SettableClock): a daily digest that succeeded, a per-minute task whose window was skipped while the
 * previous one ran, a task that failed for good, and per-minute windows missed while the node was
 * down (the node is stopped, the clock moved 4 minutes on, and a second node starts on the same file).
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HistoryRoutesTest {

  @TempDir static Path dir;

  private static final String ALICE = "alice-operate-token-0001";

  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private final CompletableFuture<JobResult> release = new CompletableFuture<>();
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  private Config config() {
    return ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "jdbc-journal.class = \"io.almanac.persistence.WriterStampingJournal\"",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.http.port = 0",
        "almanac.http.tokens { alice { token = \"" + ALICE + "\", role = operate } }")));
  }

  private Almanac startNode(String name) {
    node = ActorTestKit.create(name, config());
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("digest " + ctx.window().value()));
    AgentJob fails = ctx -> CompletableFuture.completedFuture(JobResult.failure("upstream 503"));
    AgentJob slowFirst = ctx -> ctx.window().value().equals("2026-11-29T00:00:00Z") ? release
        : CompletableFuture.completedFuture(JobResult.success("quick"));
    return Almanac.builder(node.system()).clock(clock).job("ok", ok).job("fails", fails).job("slow", slowFirst).start();
  }

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventuallyStatus(String task, String window, InstanceStatus status) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      Map<String, WindowView> byKey = await(almanac.windows(task)).stream()
          .collect(Collectors.toMap(w -> w.window().value(), w -> w));
      assertEquals(status, byKey.containsKey(window) ? byKey.get(window).status() : null, task + " " + window);
      return null;
    });
  }

  @BeforeAll
  void run() throws Exception {
    almanac = startNode("history-1");
    await(almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("ok").build()));
    await(almanac.register(TaskSpec.builder("flaky").cron("0 0 8 * * ? Asia/Shanghai").job("fails").build()));
    await(almanac.register(TaskSpec.builder("minutely").cron("0 * * * * ? UTC").window("per-firing").job("slow").build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventuallyStatus("digest", "2026-11-29", InstanceStatus.SUCCEEDED);
    eventuallyStatus("flaky", "2026-11-29", InstanceStatus.FINAL_FAILED);
    eventuallyStatus("minutely", "2026-11-29T00:00:00Z", InstanceStatus.RUNNING);
    clock.set(Instant.parse("2026-11-29T00:01:00Z"));
    eventuallyStatus("minutely", "2026-11-29T00:01:00Z", InstanceStatus.SKIPPED);
    release.complete(JobResult.success("slow one done"));
    eventuallyStatus("minutely", "2026-11-29T00:00:00Z", InstanceStatus.SUCCEEDED);
    // 00:02 runs: its write closes the skip range 00:01 opened (docs/skip-ranges.md)
    clock.set(Instant.parse("2026-11-29T00:02:00Z"));
    eventuallyStatus("minutely", "2026-11-29T00:02:00Z", InstanceStatus.SUCCEEDED);
    node.shutdownTestKit();

    clock.set(Instant.parse("2026-11-29T00:05:30Z")); // down from 00:02 to 00:05:30: 00:03-00:04 are missed
    almanac = startNode("history-2");
    // 00:03-00:04 are one skip range: its first window is the one listed
    eventuallyStatus("minutely", "2026-11-29T00:03:00Z", InstanceStatus.MISSED);
    ServerBinding binding = AlmanacHttp.start(node.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  private HttpResponse<String> get(String task, String window, String what) throws Exception {
    String path = "/api/tasks/" + task + "/windows/" + URLEncoder.encode(window, StandardCharsets.UTF_8).replace("+", "%20")
        + "/" + what;
    return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode why(String task, String window) throws Exception {
    HttpResponse<String> r = get(task, window, "why");
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
    JsonNode n = json.readTree(r.body());
    System.out.println("WHY " + task + " " + window + ": " + n.toPrettyString());
    assertEquals(task, n.get("task").asText());
    assertEquals(window, n.get("window").asText());
    for (JsonNode s : n.get("steps")) {
      assertTrue(!s.get("text").asText().contains("\n"), "one sentence per step: " + s);
      assertTrue(s.get("atLocal").asText().startsWith(s.get("atUtc").asText().substring(0, 4)), s.toString());
    }
    return n;
  }

  private static List<String> texts(JsonNode why) {
    List<String> out = new ArrayList<>();
    why.get("steps").forEach(s -> out.add(s.get("text").asText()));
    return out;
  }

  @Test
  @DisplayName("an operator's action over HTTP records the token's name and the note: why says who did it and why, "
      + "the timeline gives the actor")
  void actorShown() throws Exception {
    String window = "2026-11-29T00:03:00Z"; // MISSED while the node was down
    HttpResponse<String> retry = client.send(HttpRequest.newBuilder(URI.create(base + "/api/tasks/minutely/windows/"
        + URLEncoder.encode(window, StandardCharsets.UTF_8) + "/retry"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"note\":\"provider fixed\"}")).header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + ALICE).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, retry.statusCode(), retry.body());
    eventuallyStatus("minutely", window, InstanceStatus.SUCCEEDED);
    List<String> texts = texts(why("minutely", window));
    assertTrue(texts.stream().anyMatch(t -> t.startsWith("alice ran the window (note: \"provider fixed\") (it was MISSED)")),
        texts.toString());
    HttpResponse<String> r = get("minutely", window, "timeline");
    assertEquals(200, r.statusCode(), r.body());
    JsonNode scheduled = null;
    for (JsonNode e : json.readTree(r.body()).get("events")) {
      if (e.get("event").asText().equals("InstanceScheduled")) {
        scheduled = e;
      } else {
        assertTrue(e.get("actor").isNull(), "no actor on an event no operator did: " + e);
      }
    }
    assertEquals("alice", scheduled.get("actor").asText(), r.body());
    assertTrue(scheduled.get("detail").asText().endsWith("by alice (note: \"provider fixed\")"), scheduled.toString());
  }

  @Test
  @DisplayName("why of a window that succeeded: ran on time, due 08:00:00 Asia/Shanghai, with its attempt, node and end")
  void succeeded() throws Exception {
    JsonNode n = why("digest", "2026-11-29");
    assertEquals("SUCCEEDED", n.get("status").asText());
    String verdict = n.get("verdict").asText();
    assertTrue(verdict.matches("ran on time: due 08:00:00 Asia/Shanghai, attempt 1 started 08:00:00 \\(on the dot\\) on node "
        + "history-1@127\\.0\\.0\\.1:\\d+, succeeded 08:00:00"), verdict);
    assertEquals("2026-11-29T08:00:00+08:00", n.get("steps").get(0).get("atLocal").asText());
    assertEquals("2026-11-29T00:00:00Z", n.get("steps").get(0).get("atUtc").asText());
    assertTrue(texts(n).get(texts(n).size() - 1).startsWith("Attempt 1 succeeded at 08:00:00 after "), texts(n).toString());
  }

  @Test
  @DisplayName("why of a window skipped by overlap: names the window that was RUNNING, its attempt, node and lease")
  void skippedByOverlap() throws Exception {
    JsonNode n = why("minutely", "2026-11-29T00:01:00Z");
    assertEquals("SKIPPED", n.get("status").asText());
    String verdict = n.get("verdict").asText();
    assertTrue(verdict.matches("skipped: window 2026-11-29T00:00:00Z was RUNNING \\(attempt 1 on node history-1@127\\.0\\.0\\.1:\\d+, "
        + "lease until 02:00:00\\) and the overlap policy SKIP runs one window at a time \\(PREVIOUS_RUNNING\\)"), verdict);
  }

  @Test
  @DisplayName("why of a window missed while the node was down: the restart between two incarnations, and the catch-up policy")
  void missedDuringDowntime() throws Exception {
    JsonNode n = why("minutely", "2026-11-29T00:04:00Z"); // inside the downtime's skip range
    assertEquals("MISSED", n.get("status").asText());
    String verdict = n.get("verdict").asText();
    assertTrue(verdict.matches("missed: its node was down or replaced between 00:02:00 and 00:05:30 \\(the task's journal was "
        + "written by history-1@127\\.0\\.0\\.1:\\d+ until then and by history-2@127\\.0\\.0\\.1:\\d+ after: a restart "
        + "or a failover\\); .*"), verdict);
    assertTrue(verdict.contains("; the catch-up policy NONE records windows that were not fired within the on-time grace as "
        + "MISSED instead of running them (BACKFILL_NOT_ALLOWED)"), verdict);
    // a window in the middle of the range: told as the range's first, and as one of its windows
    assertTrue(verdict.matches(".*; one of 2 windows from 2026-11-29T00:03:00Z to 2026-11-29T00:04:00Z, recorded as one "
        + "skip range \\(no event of its own\\)"), verdict);
  }

  @Test
  @DisplayName("why of the latest window due while the node was down: fired on time after the restart, with the restart named")
  void firedAfterTheRestart() throws Exception {
    JsonNode n = why("minutely", "2026-11-29T00:05:00Z");
    assertEquals("SUCCEEDED", n.get("status").asText());
    String verdict = n.get("verdict").asText();
    assertTrue(verdict.matches("ran on time: due 00:05:00 UTC, attempt 1 started 00:05:30 \\(30 s late: its node was down or "
        + "replaced between 00:02:00 and 00:05:30 \\(the task's journal was written by history-1@127\\.0\\.0\\.1:\\d+ until "
        + "then and by history-2@127\\.0\\.0\\.1:\\d+ after: a restart or a failover\\)\\) on node "
        + "history-2@127\\.0\\.0\\.1:\\d+, succeeded 00:05:30"), verdict);
  }

  @Test
  @DisplayName("why of a window that failed for good: the attempts, the last error, the intervention queue")
  void finallyFailed() throws Exception {
    JsonNode n = why("flaky", "2026-11-29");
    assertEquals("FINAL_FAILED", n.get("status").asText());
    assertEquals("failed finally after 1 attempt, last error: upstream 503 (not retried: the task is not marked for retry "
        + "(max retries 0, R12)); waiting in the intervention queue for an operator", n.get("verdict").asText());
  }

  @Test
  @DisplayName("why of a window never due: 200 with 'no such window', why, and the nearest windows")
  void noSuchWindow() throws Exception {
    JsonNode n = why("digest", "2026-11-20");
    assertEquals("NONE", n.get("status").asText());
    assertEquals("no such window: the task has no record of window 2026-11-20; it was due 2026-11-20 08:00:00 Asia/Shanghai, "
        + "before the task was registered at 2026-11-29 07:59:00, and windows due before a task's registration are not fired; "
        + "its nearest windows are 2026-11-29", n.get("verdict").asText());
  }

  @Test
  @DisplayName("the window key is percent-decoded from its path segment: %2F and %20 stay inside one key")
  void windowKeyIsPercentDecoded() throws Exception {
    JsonNode n = why("digest", "a/b c");
    assertEquals("NONE", n.get("status").asText());
    assertTrue(n.get("verdict").asText().startsWith("no such window: the task has no record of window a/b c; 'a/b c' is not a "
        + "key its window spec 'daily' makes (keys look like 2026-11-29)"), n.toString());
  }

  @Test
  @DisplayName("a node without a JDBC read journal answers 503 problem+json naming why, and serves its other routes")
  void withoutAJdbcJournal() throws Exception {
    ActorTestKit memory = ActorTestKit.create("history-memory", AlmanacHttpTest.config(""));
    try {
      Almanac inMemory = Almanac.builder(memory.system()).start();
      ServerBinding b = AlmanacHttp.start(memory.system(), inMemory).toCompletableFuture().get(30, TimeUnit.SECONDS);
      String url = "http://127.0.0.1:" + b.localAddress().getPort();
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url + "/api/tasks/t/windows/w/why")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(503, r.statusCode(), r.body());
      assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""));
      JsonNode p = json.readTree(r.body());
      assertEquals("https://almanac.io/problems/unavailable", p.get("type").asText());
      assertTrue(p.get("detail").asText().startsWith("the journal could not be read; see the node's log (err-"), r.body());
      HttpResponse<String> live = client.send(HttpRequest.newBuilder(URI.create(url + "/health/live")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, live.statusCode(), live.body());
      b.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      memory.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("timeline of a window: its events with seq, attempt, UTC and local times; the window key percent-decoded")
  void timeline() throws Exception {
    HttpResponse<String> r = get("minutely", "2026-11-29T00:00:00Z", "timeline");
    assertEquals(200, r.statusCode(), r.body());
    JsonNode events = json.readTree(r.body()).get("events");
    List<String> types = new ArrayList<>();
    events.forEach(e -> types.add(e.get("event").asText()));
    assertEquals(List.of("InstanceScheduled", "AttemptStarted", "AttemptSucceeded"), types, r.body());
    JsonNode started = events.get(1);
    assertEquals(1, started.get("attempt").asInt());
    assertEquals("2026-11-29T00:00:00Z", started.get("atUtc").asText());
    assertEquals("2026-11-29T00:00:00Z", started.get("atLocal").asText().replace("+00:00", "Z"));
    assertTrue(started.get("seq").asLong() > 1, r.body());
    assertTrue(started.get("detail").asText().startsWith("FIRST, lease until 2026-11-29T02:00:00Z"), r.body());
  }

  @Test
  @DisplayName("an unknown task is 404 for both, an unknown window 404 for the timeline, as problem+json naming field and value")
  void notFound() throws Exception {
    HttpResponse<String> task = get("nope", "2026-11-29", "why");
    assertEquals(404, task.statusCode(), task.body());
    assertEquals("application/problem+json", task.headers().firstValue("Content-Type").orElse(""));
    JsonNode p = json.readTree(task.body());
    assertEquals("https://almanac.io/problems/not-found", p.get("type").asText());
    assertEquals(404, p.get("status").asInt());
    assertEquals("task", p.get("field").asText());
    assertEquals("nope", p.get("value").asText());
    assertEquals(404, get("nope", "2026-11-29", "timeline").statusCode());

    HttpResponse<String> window = get("digest", "2026-11-20", "timeline");
    assertEquals(404, window.statusCode(), window.body());
    JsonNode w = json.readTree(window.body());
    assertEquals("Not found", w.get("title").asText());
    assertEquals("window", w.get("field").asText());
    assertEquals("2026-11-20", w.get("value").asText());
    assertEquals("task 'digest' has no events about window '2026-11-20'", w.get("detail").asText());
  }

  private HttpResponse<String> raw(String url) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @DisplayName("a task id or a window key that is not valid: 400 naming the field, not 503; a key at Instant's limit: 200")
  void invalidInput() throws Exception {
    for (String what : List.of("why", "timeline")) {
      HttpResponse<String> task = raw(base + "/api/tasks/bad%20id/windows/2026-11-29/" + what);
      assertEquals(400, task.statusCode(), task.body());
      JsonNode p = json.readTree(task.body());
      assertEquals("https://almanac.io/problems/invalid-input", p.get("type").asText());
      assertEquals("task", p.get("field").asText());
      assertEquals("bad id", p.get("value").asText());

      HttpResponse<String> window = get("digest", "x".repeat(201), what);
      assertEquals(400, window.statusCode(), window.body());
      assertEquals("window", json.readTree(window.body()).get("field").asText());
      HttpResponse<String> blank = raw(base + "/api/tasks/digest/windows/%20/" + what);
      assertEquals(400, blank.statusCode(), blank.body());
      assertEquals("window", json.readTree(blank.body()).get("field").asText());
    }
    // its start cannot be moved by hours (DateTimeException): once a 503 "the journal could not be read"
    JsonNode n = why("digest", "-1000000000-01-01T00:00:00Z");
    assertEquals("NONE", n.get("status").asText());
    assertTrue(n.get("verdict").asText().startsWith("no such window"), n.get("verdict").asText());
  }

  @Test
  @DisplayName("a window whose history holds more events than one read keeps: 503 naming the bound, nothing read into memory beyond it")
  void historyTooLarge() throws Exception {
    WindowHistory small = WindowHistory.of(node.system(), 2, Duration.ofSeconds(30));
    ServerBinding binding = org.apache.pekko.http.javadsl.Http.get(node.system()).newServerAt("127.0.0.1", 0)
        .bind(HistoryRoutes.of(small).routes()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    try {
      String url = "http://127.0.0.1:" + binding.localAddress().getPort() + "/api/tasks/digest/windows/2026-11-29/";
      for (String what : List.of("why", "timeline")) {
        HttpResponse<String> r = raw(url + what);
        assertEquals(503, r.statusCode(), r.body());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""));
        String detail = json.readTree(r.body()).get("detail").asText();
        assertTrue(detail.contains("more than 2 events") && detail.contains("almanac.http.history-max-events"), detail);
      }
      assertEquals(404, raw("http://127.0.0.1:" + binding.localAddress().getPort()
          + "/api/tasks/nope/windows/2026-11-29/why").statusCode(), "an unknown task is still 404");
    } finally {
      binding.unbind();
    }
  }
}
