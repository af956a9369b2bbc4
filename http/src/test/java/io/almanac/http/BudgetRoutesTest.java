package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.Almanac;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
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

/** The budget endpoints over real HTTP: a task's day of usage, and the operator's raise with its bad input. */
class BudgetRoutesTest {

  private ActorTestKit testKit;
  private String base;
  private final HttpClient client = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private void start() throws Exception {
    testKit = ActorTestKit.create("budget-api-test", AlmanacHttpTest.config("almanac.http.token = \""
        + ApiRoutesTest.TOKEN + "\""));
    PersistenceTestKit.create(testKit.system());
    Almanac almanac = Almanac.builder(testKit.system()).clock(new SettableClock(ApiRoutesTest.NOW))
        .job("block", ctx -> new CompletableFuture<JobResult>()).start();
    almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("block")
        .budgetPerDay(new BigDecimal("5.00")).build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.register(TaskSpec.builder("plain").cron("0 0 8 * * ? UTC").job("block").build())
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
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

  @Test
  @DisplayName("GET usage shows the day and the budget; POST raise-budget (with the token) raises it for the day; a bad "
      + "amount, a task without budget or no token is a problem naming the field and the value")
  void usageAndRaise() throws Exception {
    start();
    HttpResponse<String> got = client.send(HttpRequest.newBuilder(URI.create(base + "/api/tasks/digest/usage")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, got.statusCode(), got.body());
    JsonNode u = ApiRoutesTest.JSON.readTree(got.body());
    assertEquals("2026-11-30", u.get("day").asText());
    assertEquals("Asia/Shanghai", u.get("zone").asText());
    assertEquals("5.00", u.get("budgetPerDay").asText());
    assertEquals("0.00", u.get("cost").asText());

    HttpResponse<String> raised = post("/api/tasks/digest/raise-budget", "{\"amount\":\"2.50\",\"note\":\"quarter end\"}",
        ApiRoutesTest.TOKEN);
    assertEquals(200, raised.statusCode(), raised.body());
    assertEquals("7.50", ApiRoutesTest.JSON.readTree(raised.body()).get("limit").asText());

    ApiRoutesTest.problem(post("/api/tasks/digest/raise-budget", "{\"amount\":\"abc\"}", ApiRoutesTest.TOKEN), 400,
        "amount", "abc");
    ApiRoutesTest.problem(post("/api/tasks/digest/raise-budget", "{\"amount\":-1}", ApiRoutesTest.TOKEN), 400,
        "amount", "-1");
    ApiRoutesTest.problem(post("/api/tasks/digest/raise-budget", "{\"colour\":1}", ApiRoutesTest.TOKEN), 400, null, null);
    ApiRoutesTest.problem(post("/api/tasks/plain/raise-budget", "{\"amount\":1}", ApiRoutesTest.TOKEN), 400,
        "budgetPerDay", null);
    assertEquals(401, post("/api/tasks/digest/raise-budget", "{\"amount\":1}", null).statusCode());
  }
}
