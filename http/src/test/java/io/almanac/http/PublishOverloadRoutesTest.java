package io.almanac.http;

import static io.almanac.http.ApiRoutesTest.TOKEN;
import static io.almanac.http.ApiRoutesTest.problem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.Almanac;
import io.almanac.EventTrigger;
import io.almanac.TaskSpec;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/events} under load (docs/http-api.md): a task's queue of publishes is bounded
 * ({@code almanac.task.max-pending-publishes}, 1 here), a publish past it is a 429 {@code overloaded}
 * with {@code Retry-After} that stores nothing, and a publish its task did not answer is a 503
 * {@code outcome-unknown}; sending either again stores the event once.
 */
@org.junit.jupiter.api.TestInstance(org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS)
class PublishOverloadRoutesTest {

  private ActorTestKit testKit;
  private String base;
  private Almanac almanac;
  private final HttpClient client = HttpClient.newHttpClient();

  @org.junit.jupiter.api.BeforeAll
  void start() throws Exception {
    testKit = ActorTestKit.create("publish-overload-routes", AlmanacHttpTest.config("almanac.http.token = \"" + TOKEN + "\"\n"
        + "almanac.task.max-pending-publishes = 1\nalmanac.executor.ask-timeout = 2s"));
    almanac = Almanac.builder(testKit.system()).clock(new SettableClock(Instant.parse("2026-11-30T00:30:00Z")))
        .job("block", ctx -> new CompletableFuture<>())
        .job("done", ctx -> CompletableFuture.completedFuture(io.almanac.JobResult.success("ok"))).start();
    almanac.register(TaskSpec.builder("sync").onEvent(EventTrigger.of("order.paid")).zone("UTC").window("hourly")
        .job("block").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.register(TaskSpec.builder("lossy").onEvent(EventTrigger.of("order.refunded")).zone("UTC").window("hourly")
        .job("done").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  @AfterAll
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private HttpRequest publish(String type, String id) {
    return HttpRequest.newBuilder(URI.create(base + "/api/events")).header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(
            "{\"type\":\"" + type + "\",\"id\":\"" + id + "\",\"eventTime\":\"2026-11-30T00:10:00Z\"}")).build();
  }

  private Map<String, Long> received(String task) {
    Map<String, Long> ids = new HashMap<>();
    for (Object e : PersistenceTestKit.create(testKit.system()).persistedInStorage(TaskJournal.persistenceId(task))) {
      if (e instanceof TaskJournal.EventReceived r) {
        ids.merge(r.eventId(), 1L, Long::sum);
      }
    }
    return ids;
  }

  @Test
  @DisplayName("publishes past the task's bound are 429 'overloaded' with Retry-After and store nothing; sent again, "
      + "every event is stored once")
  void overloadedIs429WithRetryAfter() throws Exception {
    List<String> pending = new ArrayList<>();
    JsonNode overloaded = null;
    String retryAfter = null;
    int stored = 0;
    for (int wave = 0; wave < 10 && overloaded == null; wave++) {
      // 30 at once: one slot, so most of a wave finds the task's queue full
      Map<String, CompletableFuture<HttpResponse<String>>> sent = new HashMap<>();
      for (int i = 0; i < 30; i++) {
        String id = "evt-" + wave + "-" + i;
        sent.put(id, client.sendAsync(publish("order.paid", id), HttpResponse.BodyHandlers.ofString()));
      }
      for (Map.Entry<String, CompletableFuture<HttpResponse<String>>> e : sent.entrySet()) {
        HttpResponse<String> r = e.getValue().get(30, TimeUnit.SECONDS);
        if (r.statusCode() == 429) {
          overloaded = problem(r, 429, "task", "sync");
          retryAfter = r.headers().firstValue("Retry-After").orElse(null);
          pending.add(e.getKey());
        } else {
          assertEquals(200, r.statusCode(), r.body());
          stored++;
        }
      }
      assertEquals(stored, received("sync").size(), "a 429 stored nothing: the journal holds exactly the events answered 200");
    }
    for (String id : pending) { // sent again, one at a time: each is stored
      HttpResponse<String> r = client.send(publish("order.paid", id), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      stored++;
    }
    assertTrue(overloaded != null, "no publish met the bound of 1");
    assertEquals("https://almanac.io/problems/overloaded", overloaded.get("type").asText());
    assertTrue(overloaded.get("detail").asText().contains("nothing was stored"), overloaded.toString());
    assertEquals("1", retryAfter, "Retry-After: almanac.task.publish-retry-after (1s) in whole seconds");
    Map<String, Long> ids = received("sync");
    assertEquals(stored, ids.size(), ids.toString());
    assertTrue(ids.values().stream().allMatch(n -> n == 1), ids.toString());
  }

  @Test
  @DisplayName("a publish its task does not answer (its write failed) is a 503 'outcome-unknown' saying a resend is safe; "
      + "resent, it is stored once")
  void unansweredIs503OutcomeUnknown() throws Exception {
    assertEquals(200, client.send(publish("order.refunded", "first"), HttpResponse.BodyHandlers.ofString()).statusCode());
    // the window's run writes too: fail the next write only once the task is quiet
    testKit.createTestProbe().awaitAssert(java.time.Duration.ofSeconds(30), () -> {
      assertEquals(io.almanac.InstanceStatus.SUCCEEDED,
          almanac.windows("lossy").toCompletableFuture().join().get(0).status());
      return null;
    });
    PersistenceTestKit.create(testKit.system()).failNextPersisted(TaskJournal.persistenceId("lossy"));
    HttpResponse<String> r = client.send(publish("order.refunded", "lost"), HttpResponse.BodyHandlers.ofString());
    JsonNode p = problem(r, 503, null, null);
    assertEquals("https://almanac.io/problems/outcome-unknown", p.get("type").asText());
    assertTrue(p.get("detail").asText().contains("publish it again with the same id"), p.toString());
    int status = 0;
    for (int i = 0; i < 20 && status != 200; i++) { // the task restarts after its failed write (back-off)
      status = client.send(publish("order.refunded", "lost"), HttpResponse.BodyHandlers.ofString()).statusCode();
      assertTrue(status == 200 || status == 503 || status == 429, "status " + status);
    }
    assertEquals(200, status);
    assertEquals(1L, received("lossy").get("lost"));
  }
}
