package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.almanac.Almanac;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.Eventually;
import io.almanac.testkit.SettableClock;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The HTTP API's reads and actions over real HTTP, on a one-node Almanac with the in-memory journal
 * and a settable clock (it does not move: nothing fires unless asked).
 */
class ApiRoutesTest {

  static final String TOKEN = "s3cret-token-for-tests";
  static final Instant NOW = Instant.parse("2026-11-30T00:30:00Z");
  static final ObjectMapper JSON = new ObjectMapper();

  private ActorTestKit testKit;
  private String base;
  private final HttpClient client = HttpClient.newHttpClient();
  private PersistenceTestKit journal;

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  /** A node with a failing task 'flaky' (hourly, per-firing windows) and a blocking task 'digest' (08:00 Shanghai). */
  private Almanac start(String extraConfig) throws Exception {
    return start(extraConfig, null);
  }

  private Almanac start(String extraConfig, WindowSource source) throws Exception {
    // the clock does not move, so the backlog's token buckets do not refill: let a backfill start at once
    testKit = ActorTestKit.create("api-test", AlmanacHttpTest.config(
        "almanac.executor { backlog-burst = 100, backlog-burst-per-task = 100 }\n" + extraConfig));
    journal = PersistenceTestKit.create(testKit.system());
    Almanac almanac = Almanac.builder(testKit.system()).clock(new SettableClock(NOW))
        .job("fail", ctx -> CompletableFuture.completedFuture(JobResult.failure("boom")))
        .job("block", ctx -> new CompletableFuture<>())
        .start();
    almanac.register(TaskSpec.builder("flaky").cron("0 0 * * * ? UTC").window(WindowSpec.PER_FIRING).job("fail").build())
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("block").build())
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding binding = (source == null ? AlmanacHttp.start(testKit.system(), almanac)
        : AlmanacHttp.start(testKit.system(), almanac, source)).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    return almanac;
  }

  // ---------------------------------------------------------------------------------------------

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return post(path, body, "Bearer " + TOKEN);
  }

  private HttpResponse<String> post(String path, String body, String authorization) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
        .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode ok(HttpResponse<String> r) throws Exception {
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
    return JSON.readTree(r.body());
  }

  /** Asserts a problem+json answer with its status, field and value (value null: not checked). */
  static JsonNode problem(HttpResponse<String> r, int status, String field, String value) throws Exception {
    assertEquals(status, r.statusCode(), r.body());
    assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""), r.body());
    JsonNode p = JSON.readTree(r.body());
    assertEquals(status, p.get("status").asInt(), r.body());
    assertTrue(p.get("type").asText().startsWith("https://almanac.io/problems/"), r.body());
    assertFalse(p.get("title").asText().isEmpty(), r.body());
    assertFalse(p.get("detail").asText().isEmpty(), r.body());
    if (field != null) {
      assertEquals(field, p.path("field").asText(null), r.body());
    }
    if (value != null) {
      assertEquals(value, p.path("value").asText(null), r.body());
    }
    return p;
  }

  private static String enc(String key) {
    return URLEncoder.encode(key, StandardCharsets.UTF_8);
  }

  private int events(String task) {
    return journal.persistedInStorage(TaskJournal.persistenceId(task)).size();
  }

  private String status(String task, String window) throws Exception {
    return ok(get("/api/tasks/" + task + "/windows/" + enc(window))).get("status").asText();
  }

  /** Runs 'flaky' now and waits until its window is FINAL_FAILED; returns the window's key. */
  private String failedWindow() throws Exception {
    JsonNode run = ok(post("/api/tasks/flaky/run", null));
    assertEquals("SCHEDULED", run.get("decision").asText(), run.toString());
    String window = run.get("window").asText();
    Eventually.eventually(Duration.ofSeconds(20), () -> assertEquals("FINAL_FAILED", status("flaky", window)));
    return window;
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  @DisplayName("reads: GET /api/tasks and /api/tasks/{task} with the next fire in UTC and in the task's zone; "
      + "GET /api/queue; GET /api/tasks/{task}/windows/{window} (percent-encoded key)")
  void reads() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"");
    JsonNode tasks = ok(get("/api/tasks")).get("tasks");
    assertEquals(2, tasks.size(), tasks.toString());
    JsonNode digest = ok(get("/api/tasks/digest"));
    assertEquals("digest", digest.get("id").asText());
    assertEquals("Asia/Shanghai", digest.get("zone").asText());
    assertEquals("0 0 8 * * ?", digest.get("schedule").asText());
    assertEquals("daily", digest.get("window").asText());
    assertFalse(digest.get("paused").asBoolean());
    assertFalse(digest.get("removed").asBoolean());
    assertEquals("2026-12-01T00:00:00Z", digest.get("nextFireUtc").asText());
    assertEquals("2026-12-01T08:00:00+08:00", digest.get("nextFireLocal").asText());
    for (String f : List.of("interventionQueue", "hotWindows", "p99Millis", "leaseMillis")) {
      assertTrue(digest.has(f), f + " in " + digest);
    }

    String window = failedWindow();
    assertTrue(window.contains(":"), "a per-firing key, sent percent-encoded: " + window);
    JsonNode w = ok(get("/api/tasks/flaky/windows/" + enc(window)));
    assertEquals("flaky", w.get("task").asText());
    assertEquals(window, w.get("window").asText());
    assertEquals("MANUAL", w.get("runKind").asText());
    assertTrue(w.get("reason").asText().endsWith("boom"), w.toString());
    assertEquals(NOW.toString(), w.get("startedAt").asText(), "the attempt started at the (frozen) clock's time: " + w);
    assertEquals(NOW.toString(), w.get("finishedAt").asText(), w.toString());
    for (String f : List.of("start", "end", "attempt", "retries", "maxRetries", "summary", "dueAt", "startedAt", "finishedAt",
        "createdAt", "updatedAt")) {
      assertTrue(w.has(f), f + " in " + w);
    }
    JsonNode queue = ok(get("/api/queue")).get("windows");
    assertEquals(1, queue.size(), queue.toString());
    assertEquals(window, queue.get(0).get("window").asText());
    assertEquals(1, ok(get("/api/tasks/flaky")).get("interventionQueue").asInt());
  }

  @Test
  @DisplayName("actions with the token: pause, resume, run, retry, resolve (note), cancel (reason), backfill and its "
      + "dry run, which lists exactly what the real one then decides over (from, to]")
  void actions() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"");
    assertEquals(true, ok(post("/api/tasks/digest/pause", null)).get("paused").asBoolean());
    assertTrue(ok(get("/api/tasks/digest")).get("paused").asBoolean());
    assertEquals(false, ok(post("/api/tasks/digest/resume", null)).get("paused").asBoolean());
    assertFalse(ok(get("/api/tasks/digest")).get("paused").asBoolean());

    // flaky: run, fails for good, retry, fails again, resolve
    String failed = failedWindow();
    JsonNode retried = ok(post("/api/tasks/flaky/windows/" + enc(failed) + "/retry", null));
    assertEquals("PENDING", retried.get("status").asText());
    Eventually.eventually(Duration.ofSeconds(20), () -> assertEquals("FINAL_FAILED", status("flaky", failed)));
    JsonNode resolved = ok(post("/api/tasks/flaky/windows/" + enc(failed) + "/resolve", "{\"note\":\"fixed by hand\"}"));
    assertEquals("RESOLVED", resolved.get("status").asText());
    JsonNode w = ok(get("/api/tasks/flaky/windows/" + enc(failed)));
    assertEquals("RESOLVED", w.get("status").asText());
    assertEquals("fixed by hand", w.get("reason").asText());

    // digest: run (its job blocks), cancel
    JsonNode run = ok(post("/api/tasks/digest/run", null));
    assertEquals("2026-11-30", run.get("window").asText());
    JsonNode cancelled = ok(post("/api/tasks/digest/windows/2026-11-30/cancel", "{\"reason\":\"not today\"}"));
    assertEquals("CANCELLED", cancelled.get("status").asText());
    assertEquals("CANCELLED", status("digest", "2026-11-30"));

    // backfill: the dry run stores nothing and says what the real run then does
    String range = "{\"from\":\"2026-11-29T21:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\"";
    int before = events("flaky");
    JsonNode dry = ok(post("/api/tasks/flaky/backfill", range + ",\"dryRun\":true}"));
    assertEquals(before, events("flaky"), "a dry run stores nothing");
    assertTrue(dry.get("dryRun").asBoolean());
    assertEquals("(2026-11-29T21:00:00Z, 2026-11-30T00:00:00Z]", dry.get("range").asText());
    List<String> planned = new ArrayList<>();
    dry.get("windows").forEach(x -> planned.add(x.get("window").asText() + " " + x.get("decision").asText()));
    assertEquals(List.of("2026-11-29T22:00:00Z SCHEDULED", "2026-11-29T23:00:00Z SCHEDULED",
        "2026-11-30T00:00:00Z SCHEDULED"), planned, "from excluded, to included: " + dry);
    JsonNode real = ok(post("/api/tasks/flaky/backfill", range + "}"));
    assertFalse(real.get("dryRun").asBoolean());
    assertEquals("(2026-11-29T21:00:00Z, 2026-11-30T00:00:00Z]", real.get("range").asText());
    List<String> done = new ArrayList<>();
    real.get("windows").forEach(x -> done.add(x.get("window").asText() + " " + x.get("decision").asText()));
    assertEquals(planned, done, real.toString());
    for (JsonNode x : real.get("windows")) {
      assertEquals(dry.get("windows").get(done.indexOf(x.get("window").asText() + " " + x.get("decision").asText()))
          .get("reason").asText(), x.get("reason").asText(), "same reasons as the dry run: " + dry + " " + real);
    }
    // once they ran, a dry run of the same range says each window exists, with its status
    Eventually.eventually(Duration.ofSeconds(20), () -> assertEquals("FINAL_FAILED", status("flaky", "2026-11-30T00:00:00Z")));
    Eventually.eventually(Duration.ofSeconds(20), () -> {
      JsonNode again = ok(post("/api/tasks/flaky/backfill", range + ",\"dryRun\":true}"));
      for (JsonNode x : again.get("windows")) {
        String st = status("flaky", x.get("window").asText());
        if (st.equals("FINAL_FAILED")) {
          assertEquals("SCHEDULED", x.get("decision").asText(), again.toString());
          assertEquals("BACKFILL (was FINAL_FAILED)", x.get("reason").asText(), again.toString());
        } else {
          assertEquals("SKIPPED", x.get("decision").asText(), again.toString());
          assertEquals("WINDOW_EXISTS: window is " + st, x.get("reason").asText(), again.toString());
        }
      }
    });
  }

  @Test
  @DisplayName("GET /api/windows: task and status filters (repeated or comma-separated), from/to on the start, "
      + "pages by limit and the 'after' cursor; bad parameters are 400 naming the parameter and its value")
  void windowListing() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"");
    ok(post("/api/tasks/flaky/backfill", "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\"}"));
    ok(post("/api/tasks/digest/run", null));
    Eventually.eventually(Duration.ofSeconds(20), () -> assertEquals(4,
        ok(get("/api/windows?task=flaky&status=FINAL_FAILED")).get("windows").size()));
    JsonNode all = ok(get("/api/windows"));
    assertEquals(5, all.get("windows").size(), all.toString());
    assertTrue(all.get("next").isNull());
    assertEquals(5, ok(get("/api/windows?status=FINAL_FAILED,RUNNING,PENDING")).get("windows").size());
    assertEquals(5, ok(get("/api/windows?status=FINAL_FAILED&status=RUNNING&status=PENDING")).get("windows").size());
    assertEquals(1, ok(get("/api/windows?task=digest")).get("windows").size());
    assertEquals(0, ok(get("/api/windows?task=nosuchtask")).get("windows").size());
    JsonNode ranged = ok(get("/api/windows?task=flaky&from=2026-11-29T22:00:00Z&to=2026-11-30T00:00:00Z"));
    assertEquals(2, ranged.get("windows").size(), "from inclusive, to exclusive: " + ranged);
    // paging: limit 2 over 5 windows, ordered by start, then task, then window
    List<String> seen = new ArrayList<>();
    String after = null;
    int pages = 0;
    do {
      JsonNode page = ok(get("/api/windows?limit=2" + (after == null ? "" : "&after=" + after)));
      page.get("windows").forEach(x -> seen.add(x.get("task").asText() + "/" + x.get("window").asText()));
      after = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (after != null && pages < 10);
    assertEquals(3, pages);
    List<String> expected = new ArrayList<>();
    all.get("windows").forEach(x -> expected.add(x.get("task").asText() + "/" + x.get("window").asText()));
    assertEquals(expected, seen);
    // order=desc: the same windows newest first, page by page across the cursor
    List<String> backwards = new ArrayList<>();
    after = null;
    pages = 0;
    do {
      JsonNode page = ok(get("/api/windows?order=desc&limit=2" + (after == null ? "" : "&after=" + after)));
      page.get("windows").forEach(x -> backwards.add(x.get("task").asText() + "/" + x.get("window").asText()));
      after = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (after != null && pages < 10);
    assertEquals(3, pages);
    List<String> reversed = new ArrayList<>(expected);
    java.util.Collections.reverse(reversed);
    assertEquals(reversed, backwards, "newest first");
    assertEquals(expected, windowsOf(ok(get("/api/windows?order=asc"))), "asc is the default order");
    assertEquals(reversed.subList(0, 1), windowsOf(ok(get("/api/windows?order=desc&limit=1"))), "the latest window");

    problem(get("/api/windows?order=newest"), 400, "order", "newest");
    problem(get("/api/windows?order=DESC"), 400, "order", "DESC");
    // instants the databases cannot hold: 400 naming the field and the value
    problem(get("/api/windows?from=%2B200000-01-01T00:00:00Z"), 400, "from", "+200000-01-01T00:00:00Z");
    problem(get("/api/windows?to=%2B1000000000-01-01T00:00:00Z"), 400, "to", "+1000000000-01-01T00:00:00Z");
    problem(get("/api/windows?from=-0001-12-31T00:00:00Z"), 400, "from", "-0001-12-31T00:00:00Z");
    String farCursor = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
        "+200000-01-01T00:00:00Z\nflaky\nw".getBytes(StandardCharsets.UTF_8));
    problem(get("/api/windows?after=" + farCursor), 400, "after", farCursor);
    assertEquals(5, ok(get("/api/windows?from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z")).get("windows").size(),
        "the years 0001..9999 are taken");

    JsonNode p = problem(get("/api/windows?limit=0"), 400, "limit", "0");
    assertEquals("limit: 0 must be between 1 and 500", p.get("detail").asText());
    assertEquals("https://almanac.io/problems/invalid-input", p.get("type").asText());
    problem(get("/api/windows?limit=501"), 400, "limit", "501");
    problem(get("/api/windows?limit=ten"), 400, "limit", "ten");
    problem(get("/api/windows?status=DONE"), 400, "status", "DONE");
    problem(get("/api/windows?from=yesterday"), 400, "from", "yesterday");
    problem(get("/api/windows?from=2026-11-30T00:00:00Z&to=2026-11-29T00:00:00Z"), 400, "from", "2026-11-30T00:00:00Z");
    problem(get("/api/windows?after=notacursor"), 400, "after", "notacursor");
    problem(get("/api/windows?task=bad%20id"), 400, "task", "bad id");
    JsonNode state = problem(get("/api/windows?state=RUNNING"), 400, "state", null);
    assertFalse(state.has("value"), "an unknown parameter's value is not shown: " + state);
  }

  @Test
  @DisplayName("bulk cancel: POST /api/tasks/{task}/cancel cancels the windows not started in (from, to] of a kind in "
      + "one journal write; its dry run lists them and stores nothing; bad input is a problem naming the field, "
      + "without the token 401, and nothing changes")
  void bulkCancel() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"");
    ok(post("/api/tasks/flaky/pause", null)); // a paused task starts none of them: they stay PENDING
    ok(post("/api/tasks/flaky/backfill", "{\"from\":\"2026-11-29T19:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\"}"));
    int before = events("flaky");
    String cancel = "/api/tasks/flaky/cancel";
    String range = "\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-29T23:00:00Z\"";
    JsonNode dry = ok(post(cancel, "{" + range + ",\"kind\":\"backfill\",\"dryRun\":true}"));
    assertEquals(before, events("flaky"), "a dry run stores nothing");
    assertTrue(dry.get("dryRun").asBoolean());
    assertEquals("BACKFILL", dry.get("kind").asText());
    assertEquals("(2026-11-29T20:00:00Z, 2026-11-29T23:00:00Z]", dry.get("range").asText());
    assertEquals(3, dry.get("cancelled").asInt(), dry.toString());
    assertEquals("[\"2026-11-29T21:00:00Z\",\"2026-11-29T22:00:00Z\",\"2026-11-29T23:00:00Z\"]",
        dry.get("windows").toString(), "from excluded, to included");

    // bad input: a 4xx naming the field, nothing stored
    problem(post(cancel, "{" + range + ",\"kind\":\"nope\",\"reason\":\"r\"}"), 400, "kind", "nope");
    problem(post(cancel, "{" + range + "}"), 400, "reason", null);
    problem(post(cancel, "{\"from\":\"2026-11-30T00:00:00Z\",\"to\":\"2026-11-29T00:00:00Z\",\"reason\":\"r\"}"), 400,
        "from", "2026-11-30T00:00:00Z");
    problem(post(cancel, "{\"from\":\"yesterday\",\"reason\":\"r\"}"), 400, "from", "yesterday");
    problem(post(cancel, "{\"dryRun\":\"yes\"}"), 400, "dryRun", "\"yes\"");
    problem(post(cancel, "{\"unknown\":1}"), 400, "unknown", "1");
    problem(post(cancel, "{\"reason\":\"" + "x".repeat(5000) + "\"}"), 400, "reason", null);
    problem(post("/api/tasks/nope/cancel", "{\"reason\":\"r\"}"), 404, "task", "nope");
    for (String auth : new String[] {null, "Bearer wrong"}) {
      problem(post(cancel, "{\"reason\":\"r\"}", auth), 401, "Authorization", null);
    }
    assertEquals(before, events("flaky"));

    JsonNode real = ok(post(cancel, "{" + range + ",\"kind\":\"BACKFILL\",\"reason\":\"wrong range\"}"));
    assertFalse(real.get("dryRun").asBoolean());
    assertEquals(dry.get("windows"), real.get("windows"));
    assertEquals(before + 3, events("flaky"), "one InstanceCancelled per window");
    assertEquals("CANCELLED", status("flaky", "2026-11-29T22:00:00Z"));
    assertEquals("PENDING", status("flaky", "2026-11-29T20:00:00Z"), "outside the range");
    // no range, no kind: every window not started yet
    JsonNode rest = ok(post(cancel, "{\"reason\":\"all of it\"}"));
    assertEquals(2, rest.get("cancelled").asInt(), rest.toString());
    assertEquals(0, ok(post(cancel, "{\"dryRun\":true}")).get("cancelled").asInt());
  }

  @Test
  @DisplayName("GET /api/tasks?latest=N: each task's own latest N windows by start, newest first, in one answer; its "
      + "policies in words' parts; a bad latest or another parameter is 400 naming it")
  void latestWindowsPerTask() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"");
    ok(post("/api/tasks/flaky/backfill", "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\"}"));
    ok(post("/api/tasks/digest/run", null));
    Eventually.eventually(Duration.ofSeconds(20), () -> assertEquals(4,
        ok(get("/api/windows?task=flaky&status=FINAL_FAILED")).get("windows").size()));
    JsonNode tasks = ok(get("/api/tasks?latest=3")).get("tasks");
    assertEquals(2, tasks.size(), tasks.toString());
    java.util.Map<String, List<String>> latest = new java.util.TreeMap<>();
    tasks.forEach(t -> {
      List<String> keys = new ArrayList<>();
      t.get("latest").forEach(w -> {
        assertEquals(t.get("id").asText(), w.get("task").asText());
        keys.add(w.get("window").asText());
      });
      latest.put(t.get("id").asText(), keys);
    });
    assertEquals(List.of("2026-11-30T00:00:00Z", "2026-11-29T23:00:00Z", "2026-11-29T22:00:00Z"), latest.get("flaky"),
        "the latest 3 of flaky's 4, newest first");
    assertEquals(1, latest.get("digest").size(), latest.toString());
    JsonNode hundred = ok(get("/api/tasks?latest=100")).get("tasks");
    int flakyWindows = 0;
    for (JsonNode t : hundred) {
      if (t.get("id").asText().equals("flaky")) {
        flakyWindows = t.get("latest").size();
      }
    }
    assertEquals(4, flakyWindows, "all of flaky's windows with latest=100: " + hundred);
    assertFalse(ok(get("/api/tasks")).get("tasks").get(0).has("latest"), "without latest, no windows");
    // gzip when asked (a browser does): the same JSON
    HttpResponse<byte[]> zipped = client.send(HttpRequest.newBuilder(URI.create(base + "/api/tasks?latest=100"))
        .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, zipped.statusCode());
    assertEquals("gzip", zipped.headers().firstValue("Content-Encoding").orElse(""));
    try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(
        new java.io.ByteArrayInputStream(zipped.body()))) {
      assertEquals(hundred, JSON.readTree(in).get("tasks"));
    }
    // the policies
    JsonNode flaky = ok(get("/api/tasks/flaky"));
    assertEquals("SKIP", flaky.get("overlap").asText(), flaky.toString());
    assertTrue(flaky.get("retry").has("maxRetries"), flaky.toString());
    assertEquals("NONE", flaky.get("catchUp").get("mode").asText(), flaky.toString());
    assertEquals(0, flaky.get("pools").size());
    assertTrue(flaky.get("deadlineMillis").isNull() && flaky.get("budgetPerDay").isNull(), flaky.toString());

    problem(get("/api/tasks?latest=0"), 400, "latest", "0");
    problem(get("/api/tasks?latest=101"), 400, "latest", "101");
    problem(get("/api/tasks?latest=many"), 400, "latest", "many");
    problem(get("/api/tasks?latest=2&latest=3"), 400, "latest", "2,3");
    JsonNode p = problem(get("/api/tasks?latest=2&limit=3"), 400, "limit", null);
    assertTrue(p.get("detail").asText().contains("is not a parameter of /api/tasks: it takes latest"), p.toString());
    assertFalse(p.has("value") || p.get("detail").asText().contains("3"), "an unknown parameter's value is not shown: " + p);
  }

  @Test
  @DisplayName("every POST needs the token: missing or wrong, it is 401 problem+json with WWW-Authenticate: Bearer, "
      + "and nothing changes")
  void token() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"");
    List<String[]> calls = List.of(
        new String[] {"/api/tasks/flaky/pause", null},
        new String[] {"/api/tasks/flaky/resume", null},
        new String[] {"/api/tasks/flaky/run", null},
        new String[] {"/api/tasks/flaky/backfill", "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\"}"},
        new String[] {"/api/tasks/flaky/windows/w/retry", null},
        new String[] {"/api/tasks/flaky/windows/w/resolve", "{\"note\":\"n\"}"},
        new String[] {"/api/tasks/flaky/windows/w/cancel", "{\"reason\":\"r\"}"});
    int before = events("flaky");
    for (String[] c : calls) {
      for (String auth : new String[] {null, "Bearer wrong", "Bearer " + TOKEN + "x", "Basic " + TOKEN, TOKEN}) {
        HttpResponse<String> r = post(c[0], c[1], auth);
        problem(r, 401, "Authorization", null);
        assertTrue(r.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"), c[0] + " " + r.headers());
        assertFalse(r.body().contains(TOKEN), "never echoes the token");
      }
    }
    assertEquals(before, events("flaky"));
    assertFalse(ok(get("/api/tasks/flaky")).get("paused").asBoolean());
    assertEquals(0, ok(get("/api/windows")).get("windows").size());
  }

  static final String ALICE = "alice-operate-token-0001";
  static final String GRAFANA = "grafana-read-token-0001";
  static final String NAMED = "almanac.http.tokens { alice { token = \"" + ALICE + "\", role = operate }, "
      + "grafana { token = \"" + GRAFANA + "\", role = read } }\n";

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private List<TaskJournal.Acted> acted(String task) {
    return journal.persistedInStorage(TaskJournal.persistenceId(task)).stream()
        .filter(e -> e instanceof TaskJournal.Acted).map(e -> (TaskJournal.Acted) e).toList();
  }

  @Test
  @DisplayName("named tokens: a read token on a POST is 403 forbidden and nothing changes; an operate token acts, "
      + "its name recorded as the actor with the note; reads need no token by default")
  void namedTokens() throws Exception {
    start(NAMED);
    List<String[]> calls = List.of(
        new String[] {"/api/tasks/flaky/pause", null},
        new String[] {"/api/tasks/flaky/resume", null},
        new String[] {"/api/tasks/flaky/run", null},
        new String[] {"/api/tasks/flaky/backfill", "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\"}"},
        new String[] {"/api/tasks/flaky/windows/w/retry", null},
        new String[] {"/api/tasks/flaky/windows/w/resolve", "{\"note\":\"n\"}"},
        new String[] {"/api/tasks/flaky/windows/w/cancel", "{\"reason\":\"r\"}"},
        new String[] {"/api/tasks/flaky/raise-budget", "{\"amount\":\"1\"}"},
        new String[] {"/api/events", "{\"type\":\"t\",\"eventId\":\"e\"}"});
    int before = events("flaky");
    for (String[] c : calls) {
      HttpResponse<String> r = post(c[0], c[1], "Bearer " + GRAFANA);
      JsonNode p = problem(r, 403, "Authorization", null);
      assertEquals("https://almanac.io/problems/forbidden", p.get("type").asText(), r.body());
      assertTrue(p.get("detail").asText().contains("grafana"), r.body());
      assertFalse(r.body().contains(GRAFANA), "never echoes the token");
      problem(post(c[0], c[1], "Bearer wrong-token-wrong-token"), 401, "Authorization", null);
      problem(post(c[0], c[1], null), 401, "Authorization", null);
    }
    assertEquals(before, events("flaky"), "a refused call stores nothing");
    assertEquals(200, get("/api/tasks/flaky").statusCode(), "reads need no token by default");
    assertEquals(200, get("/api/tasks/flaky", "Bearer " + GRAFANA).statusCode());

    JsonNode paused = ok(post("/api/tasks/digest/pause", "{\"note\":\"provider outage\"}", "Bearer " + ALICE));
    assertEquals("alice", paused.get("actor").asText());
    ok(post("/api/tasks/digest/resume", null, "Bearer " + ALICE));
    JsonNode run = ok(post("/api/tasks/flaky/run", null, "Bearer " + ALICE));
    assertEquals("alice", run.get("actor").asText());
    String failed = run.get("window").asText();
    Eventually.eventually(Duration.ofSeconds(20), () -> assertEquals("FINAL_FAILED", status("flaky", failed)));
    JsonNode retried = ok(post("/api/tasks/flaky/windows/" + enc(failed) + "/retry", "{\"note\":\"provider fixed\"}",
        "Bearer " + ALICE));
    assertEquals("alice", retried.get("actor").asText());
    List<TaskJournal.Acted> digest = acted("digest");
    assertEquals(new TaskJournal.TaskPaused(NOW, null, null, "alice", "provider outage"), digest.get(0));
    assertEquals(new TaskJournal.TaskResumed(NOW, "alice", null), digest.get(1));
    List<TaskJournal.InstanceScheduled> scheduled = acted("flaky").stream()
        .filter(e -> e instanceof TaskJournal.InstanceScheduled s && s.window().equals(failed))
        .map(e -> (TaskJournal.InstanceScheduled) e).toList();
    assertEquals(List.of("alice", "alice"), scheduled.stream().map(TaskJournal.InstanceScheduled::actor).toList());
    assertEquals(java.util.Arrays.asList(null, "provider fixed"),
        scheduled.stream().map(TaskJournal.InstanceScheduled::note).toList(), "the run without a note, the retry with it");
  }

  @Test
  @DisplayName("almanac.http.token keeps working as the operate token named 'operator': its actions record that actor")
  void legacyTokenIsTheOperator() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"\n" + NAMED);
    ok(post("/api/tasks/digest/pause", null));
    ok(post("/api/tasks/digest/resume", null, "Bearer " + ALICE));
    assertEquals(List.of("operator", "alice"), acted("digest").stream().map(TaskJournal.Acted::actor).toList());
    problem(post("/api/tasks/digest/pause", "{\"note\":5}"), 400, "note", "5");
    problem(post("/api/tasks/digest/pause", "{\"why\":\"x\"}"), 400, "why", null);
    assertEquals(2, acted("digest").size(), "a bad note stores nothing");
  }

  @Test
  @DisplayName("almanac.http.read-requires-token = on: reads under /api and /metrics need a token of any role (401 "
      + "without or with a wrong one); the health probes never do; a read token still cannot act")
  void readRequiresToken() throws Exception {
    start(NAMED + "almanac.http.read-requires-token = on\n");
    for (String path : List.of("/api/tasks", "/api/tasks/flaky", "/api/windows", "/api/queue", "/metrics",
        "/api/tasks/flaky/windows/w/timeline")) {
      problem(get(path), 401, "Authorization", null);
      problem(get(path, "Bearer not-a-token-not-a-token"), 401, "Authorization", null);
    }
    assertEquals(200, get("/api/tasks", "Bearer " + GRAFANA).statusCode());
    assertEquals(200, get("/api/tasks", "Bearer " + ALICE).statusCode());
    assertEquals(200, get("/metrics", "Bearer " + GRAFANA).statusCode());
    assertEquals(200, get("/health/live").statusCode());
    problem(post("/api/tasks/flaky/pause", null, "Bearer " + GRAFANA), 403, "Authorization", null);
    problem(post("/api/tasks/flaky/pause", null, null), 401, "Authorization", null);
    assertEquals(200, post("/api/tasks/flaky/pause", null, "Bearer " + ALICE).statusCode());
  }

  @Test
  @DisplayName("with no token configured every POST is 401 (never open by default); reads still answer")
  void noTokenConfigured() throws Exception {
    start("almanac.http.token = \"\"");
    for (String path : List.of("/api/tasks/flaky/pause", "/api/tasks/flaky/run", "/api/tasks/flaky/resume")) {
      for (String auth : new String[] {null, "Bearer ", "Bearer x"}) {
        HttpResponse<String> r = post(path, null, auth);
        JsonNode p = problem(r, 401, "Authorization", null);
        assertTrue(p.get("detail").asText().contains("almanac.http.token"), r.body());
        assertTrue(r.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
      }
    }
    assertFalse(ok(get("/api/tasks/flaky")).get("paused").asBoolean());
    assertEquals(0, events("flaky") - events("flaky"));
  }

  @Test
  @DisplayName("bad input on every endpoint is a 4xx problem+json naming field and value, and nothing changes: "
      + "unknown task, unknown window, malformed JSON, wrong JSON types, missing note or reason, illegal transition, "
      + "from after to, a range too large, to in the future; unknown path 404, wrong method 405, wrong media type 415")
  void badInput() throws Exception {
    start("almanac.http { token = \"" + TOKEN + "\", max-backfill-windows = 50 }");
    String failed = failedWindow();
    String w = "/api/tasks/flaky/windows/" + enc(failed);
    int flaky = events("flaky");
    int digest = events("digest");

    // unknown task, on every endpoint that names one
    for (String path : List.of("/api/tasks/nope", "/api/tasks/nope/windows/2026-11-30")) {
      problem(get(path), 404, "task", "nope");
    }
    for (String[] c : List.of(new String[] {"pause", null}, new String[] {"resume", null}, new String[] {"run", null},
        new String[] {"backfill", "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\"}"},
        new String[] {"backfill", "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\",\"dryRun\":true}"},
        new String[] {"windows/2026-11-30/retry", null}, new String[] {"windows/2026-11-30/resolve", "{\"note\":\"n\"}"},
        new String[] {"windows/2026-11-30/cancel", "{\"reason\":\"r\"}"})) {
      problem(post("/api/tasks/nope/" + c[0], c[1]), 404, "task", "nope");
    }
    problem(get("/api/tasks/bad%20id"), 400, "task", "bad id");

    // unknown window
    problem(get("/api/tasks/flaky/windows/2000-01-01"), 404, "window", "2000-01-01");
    problem(post("/api/tasks/flaky/windows/2000-01-01/retry", null), 404, "window", "2000-01-01");
    problem(post("/api/tasks/flaky/windows/2000-01-01/resolve", "{\"note\":\"n\"}"), 404, "window", "2000-01-01");
    problem(post("/api/tasks/flaky/windows/2000-01-01/cancel", "{\"reason\":\"r\"}"), 404, "window", "2000-01-01");

    // malformed JSON and wrong JSON types, on every endpoint with a body
    for (String path : List.of(w + "/resolve", w + "/cancel", "/api/tasks/flaky/backfill")) {
      problem(post(path, "{\"note\": "), 400, "body", "{\"note\": ");
      problem(post(path, "[1,2]"), 400, "body", "[1,2]");
      problem(post(path, ""), 400, "body", "");
      problem(post(path, "{\"unknown\":1}"), 400, "unknown", "1");
    }
    problem(post(w + "/resolve", "{\"note\":42}"), 400, "note", "42");
    problem(post(w + "/resolve", "{}"), 400, "note", null);
    problem(post(w + "/resolve", "{\"note\":\"  \"}"), 400, "note", "  ");
    problem(post(w + "/cancel", "{\"reason\":true}"), 400, "reason", "true");
    problem(post(w + "/cancel", "{}"), 400, "reason", null);
    String bf = "/api/tasks/flaky/backfill";
    problem(post(bf, "{\"from\":5,\"to\":\"2026-11-30T00:00:00Z\"}"), 400, "from", "5");
    problem(post(bf, "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"tomorrow\"}"), 400, "to", "tomorrow");
    problem(post(bf, "{\"from\":\"2026-11-29T20:00:00Z\"}"), 400, "to", null);
    problem(post(bf, "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\",\"dryRun\":\"yes\"}"), 400,
        "dryRun", "\"yes\"");

    // from after to, too large a range, to in the future: for dry runs and real runs alike
    for (String dry : List.of("true", "false")) {
      problem(post(bf, "{\"from\":\"2026-11-30T00:00:00Z\",\"to\":\"2026-11-29T00:00:00Z\",\"dryRun\":" + dry + "}"), 400,
          "from", "2026-11-30T00:00:00Z");
      problem(post(bf, "{\"from\":\"2026-11-30T00:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\",\"dryRun\":" + dry + "}"), 400,
          "from", "2026-11-30T00:00:00Z");
      JsonNode tooMany = problem(post(bf, "{\"from\":\"2026-11-20T00:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\",\"dryRun\":"
          + dry + "}"), 400, "to", "2026-11-30T00:00:00Z");
      assertTrue(tooMany.get("detail").asText().contains("cover 240 windows"), tooMany.toString());
      assertTrue(tooMany.get("detail").asText().contains("almanac.http.max-backfill-windows = 50"), tooMany.toString());
      problem(post(bf, "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-12-30T00:00:00Z\",\"dryRun\":" + dry + "}"), 400,
          "to", "2026-12-30T00:00:00Z");
    }

    // illegal transitions: cancel and resolve a window that is not there to cancel or resolve; retry a resolved one
    JsonNode illegal = problem(post(w + "/cancel", "{\"reason\":\"r\"}"), 409, "window", failed);
    assertEquals("illegal transition FINAL_FAILED -> CANCELLED for window '" + failed + "'", illegal.get("detail").asText());
    assertEquals("https://almanac.io/problems/refused", illegal.get("type").asText());
    assertEquals(flaky, events("flaky"), "nothing stored after the refusals");
    assertEquals("FINAL_FAILED", status("flaky", failed));
    ok(post(w + "/resolve", "{\"note\":\"done\"}"));
    int resolved = events("flaky");
    problem(post(w + "/resolve", "{\"note\":\"again\"}"), 409, "window", failed);
    JsonNode notRetryable = problem(post(w + "/retry", null), 409, "window", failed);
    assertTrue(notRetryable.get("detail").asText().contains("is RESOLVED"), notRetryable.toString());
    assertEquals(resolved, events("flaky"), "a refused resolve or retry stores nothing");
    int trigger = journal.persistedInStorage(io.almanac.journal.TriggerJournal.PERSISTENCE_ID).size();
    problem(post(w + "/retry", null), 409, "window", failed);
    problem(post("/api/tasks/flaky/windows/2000-01-01/retry", null), 404, "window", "2000-01-01");
    assertEquals(trigger, journal.persistedInStorage(io.almanac.journal.TriggerJournal.PERSISTENCE_ID).size(), "nor in the trigger's journal");
    assertEquals("RESOLVED", status("flaky", failed));
    assertEquals("done", ok(get(w)).get("reason").asText());

    // pekko's own rejections, as problem+json
    problem(get("/nothing/here"), 404, "path", "/nothing/here");
    problem(get("/api/tasks/flaky/frobnicate"), 404, null, null);
    HttpResponse<String> method = get("/api/tasks/flaky/pause");
    problem(method, 405, "method", null);
    problem(client.send(HttpRequest.newBuilder(URI.create(base + "/api/tasks/flaky")).DELETE().build(),
        HttpResponse.BodyHandlers.ofString()), 405, "method", null);
    problem(client.send(HttpRequest.newBuilder(URI.create(base + w + "/resolve")).header("Authorization", "Bearer " + TOKEN)
        .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("note")).build(),
        HttpResponse.BodyHandlers.ofString()), 415, "Content-Type", null);

    JsonNode big = problem(post(w + "/resolve", "{\"note\":\"" + "x".repeat(65 * 1024) + "\"}"), 413, "body", null);
    assertEquals("https://almanac.io/problems/payload-too-large", big.get("type").asText(), big.toString());

    assertEquals(resolved, events("flaky"));
    assertEquals(digest, events("digest"), "nothing stored for another task either");
    assertNotNull(ok(get("/api/tasks/flaky")));
  }

  @Test
  @DisplayName("a node that does not answer in time is 503 problem+json (a WindowSource whose ask timed out)")
  void unavailable() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"", filter -> CompletableFuture.failedFuture(
        new io.almanac.AlmanacException("no answer within the ask timeout", new org.apache.pekko.pattern.AskTimeoutException("t"))));
    JsonNode p = problem(get("/api/windows?task=flaky"), 503, null, null);
    assertEquals("https://almanac.io/problems/unavailable", p.get("type").asText());
    problem(get("/api/windows?limit=0"), 400, "limit", "0");
  }

  @Test
  @DisplayName("a failure to read the instance table is 503 with a generic detail (no SQL); an unexpected failure is 500 "
      + "whose body names no exception, only the id of its log line")
  void storeFailures() throws Exception {
    start("almanac.http.token = \"" + TOKEN + "\"", filter -> CompletableFuture.failedFuture(
        new io.almanac.persistence.instances.InstanceStoreException("instance table query failed: ERROR: relation "
            + "\"almanac_instance\" does not exist", new java.sql.SQLException("relation \"almanac_instance\""))));
    JsonNode p = problem(get("/api/windows"), 503, null, null);
    assertEquals("https://almanac.io/problems/unavailable", p.get("type").asText());
    assertTrue(p.get("detail").asText().startsWith("the instance table could not be read; see the node's log (err-"),
        p.toString());
    assertFalse(p.toString().contains("almanac_instance"), "no SQL text: " + p);
    testKit.shutdownTestKit();
    start("almanac.http.token = \"" + TOKEN + "\"", filter -> {
      throw new IllegalStateException("secret internals at /etc/almanac");
    });
    JsonNode e = problem(get("/api/windows"), 500, null, null);
    assertTrue(e.get("detail").asText().matches("an unexpected failure; see the node's log \\(err-[0-9a-f]{8}\\)"),
        e.toString());
    assertFalse(e.toString().contains("IllegalStateException") || e.toString().contains("secret"), e.toString());
  }

  private static List<String> windowsOf(JsonNode page) {
    List<String> out = new ArrayList<>();
    page.get("windows").forEach(x -> out.add(x.get("task").asText() + "/" + x.get("window").asText()));
    return out;
  }

  @Test
  @DisplayName("a removed task: its view answers (removed), every action is 409 with the Java API's reason, and nothing "
      + "is stored")
  void removedTask() throws Exception {
    Almanac almanac = start("almanac.http.token = \"" + TOKEN + "\"");
    almanac.remove("digest").toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertTrue(ok(get("/api/tasks/digest")).get("removed").asBoolean());
    int before = events("digest");
    for (String[] c : List.of(new String[] {"pause", null}, new String[] {"resume", null}, new String[] {"run", null},
        new String[] {"backfill", "{\"from\":\"2026-11-27T00:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\"}"},
        new String[] {"backfill", "{\"from\":\"2026-11-27T00:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\",\"dryRun\":true}"})) {
      JsonNode p = problem(post("/api/tasks/digest/" + c[0], c[1]), 409, "task", "digest");
      assertTrue(p.get("detail").asText().contains("was removed"), p.toString());
    }
    assertEquals(before, events("digest"));
  }
}
