package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.WindowView;
import io.almanac.testkit.Eventually;
import io.almanac.testkit.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The bulk actions on a set of windows named by a filter (docs/http-api.md, "Bulk actions"), over
 * real HTTP on one node shared by the class: task {@code flaky} (hourly, fails, no retry) with six
 * FINAL_FAILED windows backfilled, task {@code other} with two. The tests run in order: each acts on
 * what the one before left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BulkRoutesTest {

  static final String TOKEN = "s3cret-token-for-tests";
  static final Instant NOW = Instant.parse("2026-11-30T00:30:00Z");
  static final ObjectMapper JSON = new ObjectMapper();

  private ActorTestKit testKit;
  private Almanac almanac;
  private String base;
  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    testKit = ActorTestKit.create("bulk-test", AlmanacHttpTest.config(
        "almanac.executor { backlog-burst = 100, backlog-burst-per-task = 100 }\n"
            + "almanac.http.token = \"" + TOKEN + "\""));
    almanac = Almanac.builder(testKit.system()).clock(new SettableClock(NOW))
        .job("fail", ctx -> CompletableFuture.completedFuture(JobResult.failure("boom")))
        .start();
    for (String task : List.of("flaky", "other")) {
      await(almanac.register(TaskSpec.builder(task).cron("0 0 * * * ? UTC").window(WindowSpec.PER_FIRING).job("fail")
          .build()));
    }
    await(almanac.backfill("flaky", Instant.parse("2026-11-29T17:30:00Z"), Instant.parse("2026-11-29T23:30:00Z")));
    await(almanac.backfill("other", Instant.parse("2026-11-29T21:30:00Z"), Instant.parse("2026-11-29T23:30:00Z")));
    Eventually.eventually(Duration.ofSeconds(30), () -> {
      assertEquals(6, failed("flaky"));
      assertEquals(2, failed("other"));
    });
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private long failed(String task) {
    return await(almanac.windows(task)).stream().filter(w -> w.status() == InstanceStatus.FINAL_FAILED).count();
  }

  private List<WindowView> windows(String task) {
    return await(almanac.windows(task));
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode ok(HttpResponse<String> r) throws Exception {
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  @Test
  @Order(1)
  @DisplayName("a queue dry run counts the whole filtered queue and changes nothing")
  void queueDryRun() throws Exception {
    JsonNode all = ok(post("/api/queue/retry", "{\"dryRun\":true}"));
    assertEquals(8, all.get("matched").asInt(), all.toString());
    assertEquals(0, all.get("done").asInt());
    JsonNode flaky = ok(post("/api/queue/retry", "{\"task\":\"flaky\",\"dryRun\":true}"));
    assertEquals(6, flaky.get("matched").asInt(), flaky.toString());
    assertEquals(6, flaky.get("windows").size());
    flaky.get("windows").forEach(w -> assertEquals("flaky", w.get("task").asText()));
    assertEquals(6, failed("flaky"));
  }

  @Test
  @Order(2)
  @DisplayName("bad input is a 400 naming the field and value; an unknown task a 404; another count than confirmed a "
      + "412 naming expect; nothing changes")
  void refusals() throws Exception {
    ApiRoutesTest.problem(post("/api/queue/retry", "{\"task\":\"nope\"}"), 404, "task", "nope");
    ApiRoutesTest.problem(post("/api/queue/retry", "{\"task\":\"flaky\",\"expect\":-1}"), 400, "expect", "-1");
    ApiRoutesTest.problem(post("/api/queue/resolve", "{\"task\":\"flaky\"}"), 400, "note", null);
    JsonNode p = ApiRoutesTest.problem(post("/api/queue/retry", "{\"task\":\"flaky\",\"expect\":5}"), 412, "expect", "5");
    assertTrue(p.get("detail").asText().contains("holds 6 windows now"), p.toString());
    ApiRoutesTest.problem(post("/api/tasks/flaky/retry", "{\"status\":\"SUCCEEDED\"}"), 400, "status", "SUCCEEDED");
    ApiRoutesTest.problem(post("/api/tasks/flaky/retry", "{\"status\":\"BOGUS\"}"), 400, "status", "BOGUS");
    ApiRoutesTest.problem(post("/api/tasks/flaky/retry",
        "{\"from\":\"2026-11-29T23:00:00Z\",\"to\":\"2026-11-29T20:00:00Z\"}"), 400, "from", "2026-11-29T23:00:00Z");
    ApiRoutesTest.problem(post("/api/tasks/flaky/retry", "{\"limit\":3}"), 400, "limit", null);
    assertEquals(6, failed("flaky"));
    assertEquals(2, failed("other"));
  }

  @Test
  @Order(3)
  @DisplayName("a range retry acts on the task's windows due in (from, to] only, in one call, and counts them")
  void rangeRetry() throws Exception {
    String range = "\"from\":\"2026-11-29T19:00:00Z\",\"to\":\"2026-11-29T21:00:00Z\"";
    JsonNode dry = ok(post("/api/tasks/flaky/retry", "{" + range + ",\"status\":\"final_failed\",\"dryRun\":true}"));
    assertEquals(2, dry.get("matched").asInt(), dry.toString());
    assertEquals("(2026-11-29T19:00:00Z, 2026-11-29T21:00:00Z]", dry.get("range").asText());
    JsonNode done = ok(post("/api/tasks/flaky/retry", "{" + range + ",\"expect\":2,\"note\":\"provider back\"}"));
    assertEquals(2, done.get("done").asInt(), done.toString());
    assertEquals(0, done.get("refused").size(), done.toString());
    assertEquals(List.of("2026-11-29T20:00:00Z", "2026-11-29T21:00:00Z"),
        List.of(done.get("windows").get(0).get("window").asText(), done.get("windows").get(1).get("window").asText()));
    // the job fails again: the two windows ran a second attempt, the others did not
    Eventually.eventually(Duration.ofSeconds(20), () -> {
      for (WindowView w : windows("flaky")) {
        boolean inRange = w.window().value().equals("2026-11-29T20:00:00Z") || w.window().value().equals("2026-11-29T21:00:00Z");
        assertEquals(inRange ? 2 : 1, w.attempt(), w.toString());
        assertEquals(InstanceStatus.FINAL_FAILED, w.status(), w.toString());
      }
    });
  }

  @Test
  @Order(4)
  @DisplayName("resolve the whole filtered queue in one call: every window of the task is RESOLVED, the other task's not")
  void queueResolve() throws Exception {
    JsonNode done = ok(post("/api/queue/resolve", "{\"task\":\"flaky\",\"expect\":6,\"note\":\"handled upstream\"}"));
    assertEquals(6, done.get("matched").asInt(), done.toString());
    assertEquals(6, done.get("done").asInt(), done.toString());
    assertEquals("operator", done.get("actor").asText());
    windows("flaky").forEach(w -> assertEquals(InstanceStatus.RESOLVED, w.status(), w.toString()));
    assertEquals(2, failed("other"));
    JsonNode empty = ok(post("/api/queue/resolve", "{\"task\":\"flaky\",\"dryRun\":true}"));
    assertEquals(0, empty.get("matched").asInt());
  }

  @Test
  @Order(5)
  @DisplayName("the set is read when the call arrives: a window resolved since the dry run is not retried")
  void setIsReadWhenTheCallArrives() throws Exception {
    // RESOLVED windows are not retryable: a range retry naming no status takes only those it may retry
    JsonNode none = ok(post("/api/tasks/flaky/retry", "{\"dryRun\":true}"));
    assertEquals(0, none.get("matched").asInt(), none.toString());
    // the queue retry of 'other' acts on both; the task refuses a retry decided on an older version
    WindowView first = windows("other").stream().filter(w -> w.status() == InstanceStatus.FINAL_FAILED)
        .min(java.util.Comparator.comparing(WindowView::start)).orElseThrow();
    await(almanac.resolve("other", first.window(), "by hand"));
    JsonNode done = ok(post("/api/queue/retry", "{\"task\":\"other\"}"));
    assertEquals(1, done.get("matched").asInt(), done.toString());
    assertEquals(1, done.get("done").asInt(), done.toString());
    assertFalse(done.get("windows").get(0).get("window").asText().equals(first.window().value()));
  }

  @Test
  @Order(6)
  @DisplayName("the statuses a range retry takes are those WindowView.reopenable() says an operator may retry")
  void retryableStatusesAgreeWithTheRuntime() {
    for (InstanceStatus s : InstanceStatus.values()) {
      assertEquals(WindowFilterTest.w("t", "k", "2026-11-29T00:00:00Z", s).reopenable(), BulkRoutes.RETRYABLE.contains(s),
          s.name());
    }
  }
  @Test
  @Order(7)
  @DisplayName("a window the node refuses is listed with its problem and why; the others are done")
  void refusalsAreListedWithWhy() throws Exception {
    List<WindowView> set = List.of(WindowFilterTest.w("t", "a", "2026-11-29T00:00:00Z", InstanceStatus.FINAL_FAILED),
        WindowFilterTest.w("t", "b", "2026-11-29T01:00:00Z", InstanceStatus.FINAL_FAILED),
        WindowFilterTest.w("t", "c", "2026-11-29T02:00:00Z", InstanceStatus.FINAL_FAILED));
    JsonNode r = BulkRoutes.finish(ApiJson.JSON.createObjectNode(), set, false, "alice", w -> w.window().value().equals("b")
        ? CompletableFuture.failedFuture(new io.almanac.RefusedException(io.almanac.RefusedException.Reason.STALE_WINDOW,
            "window 'b' is at version 5 (PENDING), not the version 3 this action was decided on"))
        : CompletableFuture.completedFuture(null)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(3, r.get("matched").asInt(), r.toString());
    assertEquals(2, r.get("done").asInt(), r.toString());
    assertEquals(List.of("a", "c"), List.of(r.get("windows").get(0).get("window").asText(),
        r.get("windows").get(1).get("window").asText()));
    JsonNode refused = r.get("refused").get(0);
    assertEquals("b", refused.get("window").asText());
    assertEquals(412, refused.get("status").asInt());
    assertEquals("precondition-failed", refused.get("problem").asText());
    assertTrue(refused.get("detail").asText().contains("version 5 (PENDING)"), refused.toString());
  }
}
