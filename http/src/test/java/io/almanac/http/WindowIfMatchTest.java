package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.Almanac;
import io.almanac.JobResult;
import io.almanac.RetryPolicy;
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
 * The window actions' concurrency rule over HTTP (R31): GET of a window answers its version as an
 * {@code ETag}; retry, resolve and cancel with {@code If-Match} take effect only on that version, and
 * a stale one is refused 412, naming If-Match, with nothing stored.
 */
class WindowIfMatchTest {

  private static final String TOKEN = ApiRoutesTest.TOKEN;

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

  private void start() throws Exception {
    testKit = ActorTestKit.create("if-match-test", AlmanacHttpTest.config("almanac.http.token = \"" + TOKEN + "\"\n"
        + "almanac.executor { backlog-burst = 100, backlog-burst-per-task = 100 }"));
    journal = PersistenceTestKit.create(testKit.system());
    Almanac almanac = Almanac.builder(testKit.system()).clock(new SettableClock(ApiRoutesTest.NOW))
        .job("fail", ctx -> CompletableFuture.completedFuture(JobResult.failure("boom"))).start();
    almanac.register(TaskSpec.builder("flaky").cron("0 0 * * * ? UTC").window(WindowSpec.PER_FIRING)
        .retry(RetryPolicy.none()).job("fail").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest post(String path, String body, String ifMatch) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + TOKEN)
        .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (ifMatch != null) {
      b.header("If-Match", ifMatch);
    }
    return b.build();
  }

  private HttpResponse<String> send(HttpRequest r) throws Exception {
    return client.send(r, HttpResponse.BodyHandlers.ofString());
  }

  private String path(String window) {
    return "/api/tasks/flaky/windows/" + URLEncoder.encode(window, StandardCharsets.UTF_8);
  }

  private HttpResponse<String> window(String window) throws Exception {
    HttpResponse<String> r = get(path(window));
    assertEquals(200, r.statusCode(), r.body());
    return r;
  }

  private String etag(String window) throws Exception {
    return window(window).headers().firstValue("ETag").orElseThrow();
  }

  private String status(String window) throws Exception {
    return ApiRoutesTest.JSON.readTree(window(window).body()).get("status").asText();
  }

  private int events() {
    return journal.persistedInStorage(TaskJournal.persistenceId("flaky")).size();
  }

  /** Runs 'flaky' now and waits until its window is FINAL_FAILED. */
  private String failedWindow() throws Exception {
    HttpResponse<String> run = send(post("/api/tasks/flaky/run", null, null));
    assertEquals(200, run.statusCode(), run.body());
    String window = ApiRoutesTest.JSON.readTree(run.body()).get("window").asText();
    Eventually.eventually(Duration.ofSeconds(30), () -> assertEquals("FINAL_FAILED", status(window)));
    return window;
  }

  @Test
  @DisplayName("R31: GET of a window answers its version as a strong ETag and in the JSON; it changes at every transition")
  void etagIsTheWindowsVersion() throws Exception {
    start();
    String window = failedWindow();
    HttpResponse<String> r = window(window);
    JsonNode body = ApiRoutesTest.JSON.readTree(r.body());
    assertEquals("\"" + body.get("version").asLong() + "\"", r.headers().firstValue("ETag").orElseThrow());
    String before = etag(window);
    assertEquals(200, send(post(path(window) + "/resolve", "{\"note\":\"done by hand\"}", before)).statusCode());
    assertTrue(!before.equals(etag(window)), "a transition changes the ETag");
  }

  @Test
  @DisplayName("R31: retry, resolve and cancel with a stale If-Match are refused 412 naming If-Match, and nothing is "
      + "stored; with the current ETag or * they act; a malformed If-Match is a 400 naming it")
  void staleIfMatchChangesNothing() throws Exception {
    start();
    String window = failedWindow();
    String current = etag(window);
    long version = Long.parseLong(current.replace("\"", ""));
    String stale = "\"" + (version - 1) + "\"";
    int stored = events();
    for (String[] action : List.of(new String[] {"/retry", null}, new String[] {"/resolve", "{\"note\":\"n\"}"},
        new String[] {"/cancel", "{\"reason\":\"r\"}"})) {
      HttpResponse<String> r = send(post(path(window) + action[0], action[1], stale));
      JsonNode p = ApiRoutesTest.problem(r, 412, "If-Match", null);
      assertTrue(p.get("detail").asText().contains("is at version " + version + " (FINAL_FAILED)"), r.body());
    }
    assertEquals(stored, events(), "nothing stored");
    assertEquals(current, etag(window));
    for (String bad : List.of("abc", "W/" + current, "\"-1\"", "\"\"")) {
      ApiRoutesTest.problem(send(post(path(window) + "/retry", null, bad)), 400, "If-Match", null);
    }
    assertEquals(stored, events(), "nothing stored");
    assertEquals(200, send(post(path(window) + "/retry", null, current)).statusCode(), "the current ETag acts");
    Eventually.eventually(Duration.ofSeconds(30), () -> assertEquals("FINAL_FAILED", status(window)));
    ApiRoutesTest.problem(send(post(path(window) + "/retry", null, current)), 412, "If-Match", null);
    assertEquals(200, send(post(path(window) + "/resolve", "{\"note\":\"n\"}", "*")).statusCode(), "* expects nothing");
  }

  @Test
  @DisplayName("R31: 30 concurrent mixed retry/resolve/cancel calls with the ETag their caller read: exactly one takes "
      + "effect, the others are refused 412 or 409, and no extra attempt runs")
  void concurrentCallsOnOneEtag() throws Exception {
    start();
    String window = failedWindow();
    String seen = etag(window);
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String[] action = List.of(new String[] {"/retry", null}, new String[] {"/resolve", "{\"note\":\"n\"}"},
          new String[] {"/cancel", "{\"reason\":\"r\"}"}).get(i % 3);
      calls.add(client.sendAsync(post(path(window) + action[0], action[1], seen), HttpResponse.BodyHandlers.ofString()));
    }
    List<Integer> codes = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> c : calls) {
      codes.add(c.get(60, TimeUnit.SECONDS).statusCode());
    }
    assertEquals(1, codes.stream().filter(c -> c == 200).count(), codes.toString());
    assertTrue(codes.stream().allMatch(c -> c == 200 || c == 412 || c == 409), codes.toString());
  }

  @Test
  @DisplayName("R31: each window of GET /api/queue carries its version, the one its own GET answers as the ETag, and "
      + "an action sent with it acts; after a change the queue carries the new version and the old one is refused 412")
  void queueCarriesTheVersion() throws Exception {
    start();
    String window = failedWindow();
    JsonNode listed = queued(window);
    assertTrue(listed.hasNonNull("version"), "a queued window carries its version: " + listed);
    assertEquals(etag(window), "\"" + listed.get("version").asLong() + "\"");
    String seen = "\"" + listed.get("version").asLong() + "\"";
    assertEquals(200, send(post(path(window) + "/retry", null, seen)).statusCode(), "the listed version acts");
    Eventually.eventually(Duration.ofSeconds(30), () -> assertEquals("FINAL_FAILED", status(window)));
    JsonNode again = queued(window);
    assertTrue(again.get("version").asLong() > listed.get("version").asLong(), again.toString());
    assertEquals(etag(window), "\"" + again.get("version").asLong() + "\"");
    int stored = events();
    ApiRoutesTest.problem(send(post(path(window) + "/resolve", "{\"note\":\"n\"}", seen)), 412, "If-Match", null);
    assertEquals(stored, events(), "nothing stored");
  }

  /** The window's entry in GET /api/queue. */
  private JsonNode queued(String window) throws Exception {
    HttpResponse<String> r = get("/api/queue");
    assertEquals(200, r.statusCode(), r.body());
    for (JsonNode w : ApiRoutesTest.JSON.readTree(r.body()).get("windows")) {
      if (w.get("window").asText().equals(window)) {
        return w;
      }
    }
    throw new AssertionError(window + " is not in the queue: " + r.body());
  }
}
