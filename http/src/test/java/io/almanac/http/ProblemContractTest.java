package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.almanac.Almanac;
import io.almanac.TaskSpec;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The error contract of docs/http-api.md over a plain socket (so that a test can send what a client
 * library would not: a chunked body, a request without Host, HTTP/1.0, a bad percent-encoding):
 * every error answers {@code application/problem+json}, also those pekko-http's request parser
 * makes before any route runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProblemContractTest {

  static final String TOKEN = ApiRoutesTest.TOKEN;
  static final Instant NOW = Instant.parse("2026-11-30T00:30:00Z");
  static final ObjectMapper JSON = new ObjectMapper();

  private ActorTestKit testKit;
  private PersistenceTestKit journal;
  private int port;

  @BeforeAll
  void start() throws Exception {
    testKit = ActorTestKit.create("contract-test", AlmanacHttpTest.config("almanac.http.token = \"" + TOKEN + "\""));
    journal = PersistenceTestKit.create(testKit.system());
    Almanac almanac = Almanac.builder(testKit.system()).clock(new SettableClock(NOW))
        .job("block", ctx -> new CompletableFuture<>())
        .start();
    almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("block").build())
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    port = binding.localAddress().getPort();
  }

  @AfterAll
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  /** A raw answer: its status line's code, its headers (names lower case) and its body. */
  record Answer(int status, java.util.Map<String, String> headers, String body) {
    String contentType() {
      return headers.getOrDefault("content-type", "");
    }

    @Override
    public String toString() {
      return status + " " + headers + "\n" + (body.length() > 600 ? body.substring(0, 600) + "..." : body);
    }
  }

  /** Sends the bytes as they are and reads the answer until the server closes the connection. */
  private Answer send(byte[] request) throws Exception {
    return parse(RawHttp.exchange(port, request));
  }

  private Answer send(String request) throws Exception {
    return send(request.getBytes(StandardCharsets.UTF_8));
  }

  private static Answer parse(String raw) {
    int end = raw.indexOf("\r\n\r\n");
    assertTrue(end > 0, "no answer: " + raw);
    String[] lines = raw.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int c = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
    }
    return new Answer(status, headers, raw.substring(end + 4));
  }

  private String get(String target) {
    return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n";
  }

  private String post(String target, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n"
        + "Authorization: Bearer " + TOKEN + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length
        + "\r\n\r\n" + body;
  }

  /** Asserts a problem+json answer with its status, type suffix and field (null: none expected). */
  static JsonNode problem(Answer a, int status, String kind, String field) throws Exception {
    assertEquals(status, a.status(), a.toString());
    assertEquals("application/problem+json", a.contentType(), a.toString());
    JsonNode p = JSON.readTree(a.body());
    assertEquals(status, p.get("status").asInt(), a.toString());
    assertEquals(Problem.TYPE_PREFIX + kind, p.get("type").asText(), a.toString());
    assertFalse(p.get("title").asText().isEmpty(), a.toString());
    assertFalse(p.get("detail").asText().isEmpty(), a.toString());
    assertEquals(field, p.path("field").asText(null), a.toString());
    return p;
  }

  private int events(String task) {
    return journal.persistedInStorage(TaskJournal.persistenceId(task)).size();
  }

  @Test
  @DisplayName("a backfill body with dryRun given twice is refused naming dryRun: nothing runs, nothing is stored")
  void duplicateDryRun() throws Exception {
    int before = events("digest");
    JsonNode p = problem(send(post("/api/tasks/digest/backfill", "{\"from\":\"2026-11-27T00:00:00Z\","
        + "\"to\":\"2026-11-29T00:00:00Z\",\"dryRun\":true,\"dryRun\":false}")), 400, "invalid-input", "dryRun");
    assertTrue(p.get("detail").asText().contains("more than once"), p.toString());
    assertEquals(before, events("digest"), "nothing stored");
  }

  @Test
  @DisplayName("a chunked body over 64 KiB is 413 payload-too-large naming body, like one with a Content-Length")
  void chunkedTooLarge() throws Exception {
    StringBuilder r = new StringBuilder("POST /api/tasks/digest/windows/2026-11-30/resolve HTTP/1.1\r\nHost: 127.0.0.1:"
        + port + "\r\nConnection: close\r\nAuthorization: Bearer " + TOKEN + "\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n");
    String chunk = "x".repeat(8192);
    r.append("a\r\n{\"note\":\"x\r\n");
    for (int i = 0; i < 9; i++) {
      r.append(Integer.toHexString(chunk.length())).append("\r\n").append(chunk).append("\r\n");
    }
    r.append("2\r\n\"}\r\n0\r\n\r\n");
    JsonNode p = problem(send(r.toString()), 413, "payload-too-large", "body");
    assertTrue(p.get("detail").asText().contains("larger than the 65536 bytes (64 KiB) this call takes"), p.toString());
  }

  @Test
  @DisplayName("a chunked batch of events over its own limit (64 KiB plus 1 KiB per event of max-batch-events) is 413 "
      + "naming that limit, not an action's 64 KiB")
  void chunkedBatchTooLargeNamesItsLimit() throws Exception {
    StringBuilder r = new StringBuilder("POST /api/events/batch HTTP/1.1\r\nHost: 127.0.0.1:"
        + port + "\r\nConnection: close\r\nAuthorization: Bearer " + TOKEN + "\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n");
    String chunk = " ".repeat(64 * 1024);
    for (int i = 0; i < 17; i++) { // 1088 KiB: more than the 1064 KiB a batch of at most 1000 events takes
      r.append(Integer.toHexString(chunk.length())).append("\r\n").append(chunk).append("\r\n");
    }
    r.append("0\r\n\r\n");
    JsonNode p = problem(send(r.toString()), 413, "payload-too-large", "body");
    long limit = ApiRoutes.MAX_BODY_BYTES + 1000L * 1024;
    assertTrue(p.get("detail").asText().contains("larger than the " + limit + " bytes (1064 KiB) this call takes"),
        p.toString());
  }

  @Test
  @DisplayName("what pekko-http's request parser refuses before any route runs is problem+json too: a 10 KB task id, "
      + "window key or cursor (414), a 100 KB header (431), a bad percent-encoding, a request without Host, HTTP/1.0 "
      + "without Host (400)")
  void parserErrors() throws Exception {
    String big = "a".repeat(10 * 1024);
    problem(send(get("/api/tasks/" + big)), 414, "uri-too-long", null);
    problem(send(get("/api/tasks/digest/windows/" + big)), 414, "uri-too-long", null);
    problem(send(get("/api/windows?after=" + big)), 414, "uri-too-long", null);
    problem(send("GET /api/tasks HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Big: " + "b".repeat(100 * 1024)
        + "\r\nConnection: close\r\n\r\n"), 431, "headers-too-large", null);
    problem(send(get("/api/windows?task=%")), 400, "invalid-input", null);
    problem(send("GET /api/tasks HTTP/1.1\r\nConnection: close\r\n\r\n"), 400, "invalid-input", null);
    problem(send("GET /api/tasks HTTP/1.0\r\n\r\n"), 400, "invalid-input", null);
    // HTTP/1.0 naming its host is answered
    Answer ok = send("GET /health/live HTTP/1.0\r\nHost: 127.0.0.1:" + port + "\r\n\r\n");
    assertEquals(200, ok.status(), ok.toString());
  }

  @Test
  @DisplayName("a query parameter an endpoint does not take is refused (400 naming it) on every endpoint: only "
      + "GET /api/windows and GET /api/tasks (latest) take any; nothing is done")
  void unknownParameters() throws Exception {
    for (String path : new String[] {"/api/queue", "/api/tasks", "/api/tasks/digest", "/api/tasks/digest/usage",
        "/api/tasks/digest/windows/2026-11-30", "/api/tasks/digest/windows/2026-11-30/timeline",
        "/api/tasks/digest/windows/2026-11-30/why", "/health/live", "/health/ready", "/metrics"}) {
      JsonNode p = problem(send(get(path + "?limit=1")), 400, "invalid-input", "limit");
      assertFalse(p.has("value"), "an unknown parameter's value is not shown (it may be a token): " + p);
      assertTrue(p.get("detail").asText().contains("is not a parameter of " + path), p.toString());
      problem(send(get(path + "?limit=1&also=2")), 400, "invalid-input", "limit");
    }
    int before = events("digest");
    for (String action : new String[] {"pause", "resume", "run"}) {
      problem(send(post("/api/tasks/digest/" + action + "?dryRun=true", "")), 400, "invalid-input", "dryRun");
    }
    problem(send(post("/api/tasks/digest/backfill?dryRun=true", "{\"from\":\"2026-11-27T00:00:00Z\","
        + "\"to\":\"2026-11-29T00:00:00Z\"}")), 400, "invalid-input", "dryRun");
    problem(send(post("/api/events?x=1", "{\"type\":\"t\",\"id\":\"1\"}")), 400, "invalid-input", "x");
    assertEquals(before, events("digest"), "nothing stored");
    problem(send(get("/api/windows?limit=1&nope=1")), 400, "invalid-input", "nope");
    // the parameters a call takes are taken
    Answer page = send(get("/api/windows?limit=1&order=desc"));
    assertEquals(200, page.status(), page.toString());
    Answer queue = send(get("/api/queue"));
    assertEquals(200, queue.status(), queue.toString());
  }

  @Test
  @DisplayName("too many headers (over pekko-http's max-header-count, 64) or a header too large (a value over 8k, a name "
      + "over 64 characters) is 431 headers-too-large problem+json, as documented; 60 headers are answered")
  void headerLimits() throws Exception {
    for (int count : new int[] {65, 200, 1000}) {
      StringBuilder headers = new StringBuilder();
      for (int i = 0; i < count; i++) {
        headers.append("X-H").append(i).append(": v\r\n");
      }
      JsonNode p = problem(send("GET /api/tasks HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + headers
          + "Connection: close\r\n\r\n"), 431, "headers-too-large", null);
      assertTrue(p.get("detail").asText().contains("more headers than the 64"), p.toString());
    }
    // 60 headers, Host and Connection with them, are answered
    StringBuilder fine = new StringBuilder();
    for (int i = 0; i < 58; i++) {
      fine.append("X-H").append(i).append(": v\r\n");
    }
    Answer ok = send("GET /api/tasks HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + fine + "Connection: close\r\n\r\n");
    assertEquals(200, ok.status(), ok.toString());
    problem(send("GET /api/tasks HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Big: " + "b".repeat(9 * 1024)
        + "\r\nConnection: close\r\n\r\n"), 431, "headers-too-large", null);
    problem(send("GET /api/tasks HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-" + "n".repeat(100)
        + ": v\r\nConnection: close\r\n\r\n"), 431, "headers-too-large", null);
  }

  @Test
  @DisplayName("HEAD on every documented GET endpoint (and the dashboard) answers as its GET would, status and "
      + "Content-Type, without a body; HEAD on a POST-only path is 405 naming GET nowhere")
  void headIsGetWithoutBody() throws Exception {
    java.util.Set<String> paths = new java.util.TreeSet<>(java.util.List.of("/", "/dashboard/app.js", "/nothing"));
    for (String endpoint : DocumentedEndpointsTest.documented()) {
      if (endpoint.startsWith("GET ")) {
        paths.add(endpoint.substring(4).replace("{task}", "digest").replace("{window}", "2026-11-30")
            .replace("{pool}", "none"));
      }
    }
    assertTrue(paths.size() >= 12, paths.toString());
    for (String path : paths) {
      Answer get = send(get(path));
      Answer head = send(get(path).replaceFirst("^GET ", "HEAD "));
      assertEquals(get.status(), head.status(), "HEAD " + path + ": " + head + "\nGET: " + get);
      assertEquals(get.contentType(), head.contentType(), "HEAD " + path + ": " + head);
      assertEquals("", head.body(), "HEAD " + path + " has no body");
      assertFalse(get.body().isEmpty(), "GET " + path + " has one");
    }
    Answer head = send(get("/api/tasks/digest/pause").replaceFirst("^GET ", "HEAD "));
    assertEquals(405, head.status(), head.toString());
    assertEquals("POST", head.headers().get("allow"), head.toString());
  }

  @Test
  @DisplayName("a resolve note over almanac.task.max-reason-length is refused naming note (its field), a cancel reason "
      + "naming reason; nothing is stored")
  void longNote() throws Exception {
    Answer run = send(post("/api/tasks/digest/run", ""));
    assertEquals(200, run.status(), run.toString());
    String window = JSON.readTree(run.body()).get("window").asText();
    String w = "/api/tasks/digest/windows/" + java.net.URLEncoder.encode(window, StandardCharsets.UTF_8);
    // the run's attempt starts after its answer: counted once it is RUNNING (its job never ends), so that its
    // AttemptStarted is not taken for something the refused calls stored
    io.almanac.testkit.Eventually.eventually(java.time.Duration.ofSeconds(30), () -> assertEquals("RUNNING",
        JSON.readTree(send(get(w)).body()).get("status").asText()));
    int before = events("digest");
    String longText = "n".repeat(65_000);
    JsonNode note = problem(send(post(w + "/resolve", "{\"note\":\"" + longText + "\"}")), 400, "invalid-input", "note");
    assertTrue(note.get("detail").asText().startsWith("note '"), note.toString());
    assertTrue(note.get("detail").asText().contains("65000 characters, at most 2000 (almanac.task.max-reason-length)"), note.toString());
    problem(send(post(w + "/cancel", "{\"reason\":\"" + longText + "\"}")), 400, "invalid-input", "reason");
    assertEquals(before, events("digest"), "nothing stored");
  }
}
