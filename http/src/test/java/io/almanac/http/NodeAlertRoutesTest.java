package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.PoolSpec;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.testkit.SettableClock;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * GET /api/nodes and GET /api/alerts over real HTTP, on one node: a pool held by a running window,
 * and a window that failed for good whose FINAL_FAILED alert (R32) went to the log and to a real local
 * webhook receiver that refused the first attempt (503) and took the second.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class NodeAlertRoutesTest {

  private ActorTestKit testKit;
  private Almanac almanac;
  private String base;
  private HttpServer receiver;
  private final AtomicInteger posts = new AtomicInteger();
  private final List<String> bodies = new CopyOnWriteArrayList<>();
  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext("/hook", ex -> {
      bodies.add(new String(ex.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
      ex.sendResponseHeaders(posts.incrementAndGet() == 1 ? 503 : 204, -1); // the first attempt is refused
      ex.close();
    });
    receiver.start();
    testKit = ActorTestKit.create("node-alert-routes", AlmanacHttpTest.config(String.join("\n",
        "almanac.http.token = \"" + ApiRoutesTest.TOKEN + "\"",
        "almanac.executor { check-interval = 20ms, ask-timeout = 2s }",
        "almanac.alerts.webhook { url = \"http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook\", "
            + "backoff = 50ms, max-backoff = 50ms, kinds = [FINAL_FAILED] }")));
    PersistenceTestKit.create(testKit.system());
    almanac = Almanac.builder(testKit.system()).clock(new SettableClock(ApiRoutesTest.NOW))
        .job("block", ctx -> new CompletableFuture<JobResult>())
        .job("fails", ctx -> CompletableFuture.completedFuture(JobResult.failure("model returned malformed JSON")))
        .pool(PoolSpec.of("llm", 2))
        .start();
    almanac.register(TaskSpec.builder("holder").cron("0 0 12 * * ? UTC").job("block").pools("llm").build())
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.register(TaskSpec.builder("report").cron("0 0 12 * * ? UTC").job("fails").build())
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.runNow("holder").toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.runNow("report").toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  @AfterAll
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
    if (receiver != null) {
      receiver.stop(0);
    }

  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode json(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertEquals(200, r.statusCode(), r.body());
    return ApiRoutesTest.JSON.readTree(r.body());
  }

  private void eventually(ThrowingCheck check) {
    testKit.createTestProbe().awaitAssert(Duration.ofSeconds(20), Duration.ofMillis(50), () -> {
      try {
        check.run();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      return null;
    });
  }

  interface ThrowingCheck {
    void run() throws Exception;
  }

  @Test
  @org.junit.jupiter.api.Order(1)
  @DisplayName("GET /api/nodes: this node Up, hosting the trigger, its executor holding its lease with one slot in use, "
      + "and the pool's holder (task, window, node, since)")
  void nodesShowTheMemberItsSlotsAndThePoolsHolder() throws Exception {
    eventually(() -> {
      JsonNode v = json("/api/nodes");
      assertEquals(1, v.get("members").size(), v.toString());
      JsonNode m = v.get("members").get(0);
      assertEquals(v.get("self").asText(), m.get("address").asText());
      assertEquals("Up", m.get("status").asText());
      assertTrue(m.get("self").asBoolean() && m.get("trigger").asBoolean() && m.get("reachable").asBoolean(), m.toString());
      assertEquals(m.get("address").asText(), v.get("triggerNode").asText());
      assertTrue(v.get("triggerAnswers").asBoolean(), v.toString());
      JsonNode ex = m.get("executor");
      assertTrue(ex.get("holdsLease").asBoolean(), ex.toString());
      assertEquals(1, ex.get("running").asInt(), ex.toString());
      assertTrue(ex.get("slots").asInt() >= 1, ex.toString());
      assertFalse(ex.get("upSince").isNull(), ex.toString());
      JsonNode pool = v.get("pools").get(0);
      assertEquals("llm", pool.get("pool").asText());
      assertEquals(2, pool.get("maxConcurrent").asInt());
      assertEquals(1, pool.get("holders").size(), pool.toString());
      JsonNode h = pool.get("holders").get(0);
      assertEquals("holder", h.get("task").asText());
      assertEquals(m.get("address").asText(), h.get("node").asText());
      assertEquals(ApiRoutesTest.NOW.toString(), h.get("since").asText(), "taken at the node's clock");
      assertTrue(h.get("expiresAt").asText().compareTo(h.get("since").asText()) > 0, h.toString());
      assertTrue(v.get("leases").isNull(), "an in-memory journal has no lease table");
      assertTrue(v.get("leasesProblem").asText().startsWith("no JDBC journal"), v.toString());
      assertTrue(ex.get("leaseExpiresAt").isNull(), ex.toString());
    });
    ApiRoutesTest.problem(get("/api/nodes?verbose=1"), 400, "verbose", null);
  }

  @Test
  @org.junit.jupiter.api.Order(2)
  @DisplayName("GET /api/alerts: the FINAL_FAILED alert with its task, window and node, delivered to the log and, on the "
      + "second attempt, to the webhook; filtered by task and since, paged with next; bad parameters are named")
  void alertsShowWhatFiredAndWhereItWent() throws Exception {
    eventually(() -> {
      JsonNode page = json("/api/alerts?task=report");
      assertEquals(1, page.get("alerts").size(), page.toString());
      JsonNode a = page.get("alerts").get(0);
      assertEquals("FINAL_FAILED", a.get("kind").asText());
      assertEquals("report", a.get("task").asText());
      assertEquals(almanac.windows("report").toCompletableFuture().get().stream()
          .filter(w -> w.status() == InstanceStatus.FINAL_FAILED).findFirst().orElseThrow().window().value(),
          a.get("window").asText());
      assertTrue(a.get("message").asText().contains("malformed JSON"), a.toString());
      JsonNode ds = a.get("deliveries");
      assertEquals(2, ds.size(), ds.toString());
      assertEquals("log", ds.get(0).get("sink").asText());
      assertEquals("DELIVERED", ds.get(0).get("status").asText());
      JsonNode hook = ds.get(1);
      assertEquals("webhook http://127.0.0.1:" + receiver.getAddress().getPort() + "/…", hook.get("sink").asText());
      assertEquals("DELIVERED", hook.get("status").asText(), hook.toString());
      assertEquals(2, hook.get("attempts").asInt(), "the first attempt was refused with 503");
      assertTrue(bodies.get(bodies.size() - 1).contains(a.get("id").asText()), "the webhook got the alert's id");
    });
    assertEquals(0, json("/api/alerts?task=holder").get("alerts").size());
    assertEquals(0, json("/api/alerts?since=" + ApiRoutesTest.NOW.plusSeconds(1)).get("alerts").size());
    JsonNode first = json("/api/alerts?limit=1");
    assertEquals(1, first.get("alerts").size());
    assertTrue(first.get("next").isNull(), "one alert: no older page");
    ApiRoutesTest.problem(get("/api/alerts?limit=0"), 400, "limit", "0");
    ApiRoutesTest.problem(get("/api/alerts?limit=101"), 400, "limit", "101");
    ApiRoutesTest.problem(get("/api/alerts?since=yesterday"), 400, "since", "yesterday");
    ApiRoutesTest.problem(get("/api/alerts?before=x"), 400, "before", "x");
    ApiRoutesTest.problem(get("/api/alerts?colour=red"), 400, "colour", null);
  }

  @Test
  @org.junit.jupiter.api.Order(3)
  @DisplayName("GET /api/nodes with a second member whose executor never answers: listed with why, within about the ask "
      + "timeout (2 s), the other member as before")
  void aMemberThatDoesNotAnswerIsShownSoWithoutHoldingThePage() throws Exception {
    ActorTestKit other = ActorTestKit.create("node-alert-routes", AlmanacHttpTest.config(""));
    try {
      org.apache.pekko.actor.typed.ActorRef<io.almanac.internal.protocol.ExecutorProtocol.Command> silent =
          other.system().systemActorOf(org.apache.pekko.actor.typed.javadsl.Behaviors.ignore(), "silent-executor",
              org.apache.pekko.actor.typed.Props.empty());
      other.system().receptionist().tell(org.apache.pekko.actor.typed.receptionist.Receptionist.register(
          io.almanac.internal.protocol.ExecutorProtocol.SERVICE, silent));
      org.apache.pekko.cluster.typed.Cluster.get(other.system()).manager().tell(org.apache.pekko.cluster.typed.Join.create(
          org.apache.pekko.cluster.typed.Cluster.get(testKit.system()).selfMember().address()));
      String otherAddress = org.apache.pekko.cluster.typed.Cluster.get(other.system()).selfMember().address().toString();
      eventually(() -> {
        long t0 = System.nanoTime();
        JsonNode v = json("/api/nodes");
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(2, v.get("members").size(), v.toString());
        JsonNode second = v.get("members").get(1);
        assertEquals(otherAddress, second.get("address").asText(), "the younger member second");
        assertTrue(second.get("executor").isNull(), second.toString());
        assertEquals("its executor did not answer within 2000 ms", second.get("problem").asText());
        assertTrue(millis < 6_000, "answered in " + millis + " ms");
        JsonNode first = v.get("members").get(0);
        assertEquals(1, first.get("executor").get("running").asInt(), first.toString());
        assertTrue(first.get("trigger").asBoolean(), "the trigger stays on the oldest member");
      });
    } finally {
      org.apache.pekko.cluster.typed.Cluster.get(other.system()).manager().tell(org.apache.pekko.cluster.typed.Leave.create(
          org.apache.pekko.cluster.typed.Cluster.get(other.system()).selfMember().address()));
      other.shutdownTestKit();
    }
  }
}
