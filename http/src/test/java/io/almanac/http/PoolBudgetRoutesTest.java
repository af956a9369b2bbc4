package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.Almanac;
import io.almanac.JobResult;
import io.almanac.PoolSpec;
import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The pools' endpoints over real HTTP: GET /api/pools, and the operator's raise of a pool's budget with its bad input. */
class PoolBudgetRoutesTest {

  private ActorTestKit testKit;
  private String base;
  private Almanac almanac;
  private final HttpClient client = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private void start() throws Exception {
    testKit = ActorTestKit.create("pool-budget-api-test", AlmanacHttpTest.config("almanac.http.token = \""
        + ApiRoutesTest.TOKEN + "\""));
    PersistenceTestKit.create(testKit.system());
    almanac = Almanac.builder(testKit.system()).clock(new SettableClock(ApiRoutesTest.NOW))
        .job("block", ctx -> new CompletableFuture<JobResult>())
        .pool(PoolSpec.of("openai", 8).withRate("60/1m").withBudgetPerDay(new BigDecimal("5.00"))
            .withZone(java.time.ZoneId.of("Asia/Shanghai")))
        .pool(PoolSpec.of("search", 2))
        .start();
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  private HttpResponse<String> post(String path, String body, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode pools() throws Exception {
    HttpResponse<String> got = client.send(HttpRequest.newBuilder(URI.create(base + "/api/pools")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, got.statusCode(), got.body());
    return ApiRoutesTest.JSON.readTree(got.body()).get("pools");
  }

  @Test
  @DisplayName("GET /api/pools shows each pool's limits, holds, day and budget; POST raise-budget (with the token) raises "
      + "today's; a bad amount, a pool without budget, an unknown pool or no token is a problem naming the field")
  void poolsAndRaise() throws Exception {
    start();
    JsonNode ps = pools();
    assertEquals(2, ps.size(), ps.toString());
    JsonNode openai = ps.get(0);
    assertEquals("openai", openai.get("pool").asText());
    assertEquals(8, openai.get("maxConcurrent").asInt());
    assertEquals("60/PT1M", openai.get("rate").asText());
    assertEquals(0, openai.get("inUse").asInt());
    assertEquals("Asia/Shanghai", openai.get("zone").asText());
    assertEquals("2026-11-30", openai.get("day").asText(), "today in the pool's zone");
    assertEquals("0.00", openai.get("cost").asText());
    assertEquals("5.00", openai.get("budgetPerDay").asText());
    assertEquals("5.00", openai.get("limit").asText());
    assertEquals(false, openai.get("exhausted").asBoolean());
    assertTrue(ps.get(1).get("budgetPerDay").isNull() && ps.get(1).get("rate").isNull(), ps.get(1).toString());

    HttpResponse<String> raised = post("/api/pools/openai/raise-budget", "{\"amount\":\"2.50\",\"note\":\"quarter end\"}",
        ApiRoutesTest.TOKEN);
    assertEquals(200, raised.statusCode(), raised.body());
    JsonNode r = ApiRoutesTest.JSON.readTree(raised.body());
    assertEquals("7.50", r.get("limit").asText());
    assertEquals("2.50", r.get("raised").asText());
    assertEquals("7.50", pools().get(0).get("limit").asText());

    ApiRoutesTest.problem(post("/api/pools/openai/raise-budget", "{\"amount\":\"abc\"}", ApiRoutesTest.TOKEN), 400,
        "amount", "abc");
    ApiRoutesTest.problem(post("/api/pools/openai/raise-budget", "{\"amount\":0}", ApiRoutesTest.TOKEN), 400,
        "amount", "0");
    ApiRoutesTest.problem(post("/api/pools/openai/raise-budget", "{\"colour\":1}", ApiRoutesTest.TOKEN), 400, null, null);
    ApiRoutesTest.problem(post("/api/pools/search/raise-budget", "{\"amount\":1}", ApiRoutesTest.TOKEN), 400,
        "budgetPerDay", null);
    ApiRoutesTest.problem(post("/api/pools/nope/raise-budget", "{\"amount\":1}", ApiRoutesTest.TOKEN), 404, "pool", "nope");
    assertEquals(401, post("/api/pools/openai/raise-budget", "{\"amount\":1}", null).statusCode());
    assertEquals("7.50", pools().get(0).get("limit").asText(), "nothing else stored");
  }
}
