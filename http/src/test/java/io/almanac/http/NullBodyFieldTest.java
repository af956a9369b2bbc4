package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.Almanac;
import io.almanac.EventTrigger;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.Eventually;
import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A JSON {@code null} in any field of any action's body is a 400 naming the field, and nothing changes
 * (no window runs, nothing is stored): {@code "dryRun": null} never starts a real backfill. The
 * actions are every {@code POST} of docs/http-api.md (which {@link DocumentedEndpointsTest} holds to
 * the running node), and each one's fields are those the node itself lists when it refuses a field it
 * does not take: a new action or a new field is walked without this test changing, and this test's
 * examples must give every field the node lists (a valid body, so that only the null is wrong).
 */
class NullBodyFieldTest {

  private static final String TOKEN = ApiRoutesTest.TOKEN;
  private static final Instant NOW = ApiRoutesTest.NOW;
  private static final Pattern TAKES = Pattern.compile("\\(it takes ([^)]*)\\)");

  /** A valid body of each action, every field given: what the calls below spoil one field at a time. */
  private static final Map<String, String> EXAMPLES = Map.ofEntries(
      Map.entry("/api/events", "{\"type\":\"order.paid\",\"id\":\"e-1\",\"eventTime\":\"2026-11-30T00:10:00Z\","
          + "\"summary\":\"s\"}"),
      Map.entry("/api/pools/{pool}/raise-budget", "{\"amount\":\"1.50\",\"note\":\"n\"}"),
      Map.entry("/api/tasks/{task}/backfill", "{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\","
          + "\"dryRun\":false,\"note\":\"n\"}"),
      Map.entry("/api/tasks/{task}/cancel", "{\"from\":\"2026-11-29T00:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\","
          + "\"kind\":\"backfill\",\"reason\":\"r\",\"dryRun\":false}"),
      Map.entry("/api/tasks/{task}/pause", "{\"note\":\"n\"}"),
      Map.entry("/api/tasks/{task}/resume", "{\"note\":\"n\"}"),
      Map.entry("/api/tasks/{task}/run", "{\"note\":\"n\"}"),
      Map.entry("/api/tasks/{task}/raise-budget", "{\"amount\":\"1.50\",\"note\":\"n\"}"),
      Map.entry("/api/tasks/{task}/windows/{window}/retry", "{\"note\":\"n\"}"),
      Map.entry("/api/tasks/{task}/windows/{window}/resolve", "{\"note\":\"n\"}"),
      Map.entry("/api/tasks/{task}/windows/{window}/cancel", "{\"reason\":\"r\"}"),
      // the bulk actions, on sets that are empty whatever ran before (expect 0 holds in any order): the queue of
      // 'quiet' (it never fires), a range of digest's before it had a window
      Map.entry("/api/queue/retry", "{\"task\":\"quiet\",\"note\":\"n\",\"dryRun\":false,\"expect\":0}"),
      Map.entry("/api/queue/resolve", "{\"task\":\"quiet\",\"note\":\"n\",\"dryRun\":false,\"expect\":0}"),
      Map.entry("/api/tasks/{task}/retry", "{\"from\":\"2020-01-01T00:00:00Z\",\"to\":\"2020-01-02T00:00:00Z\","
          + "\"status\":\"FINAL_FAILED\",\"note\":\"n\",\"dryRun\":false,\"expect\":0}"));

  private ActorTestKit testKit;
  private PersistenceTestKit journal;
  private String base;
  private final HttpClient client = HttpClient.newHttpClient();
  private final AtomicInteger attempts = new AtomicInteger();

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("every field of every action, sent as JSON null, is a 400 naming the field; no window runs and nothing "
      + "is stored; the same bodies with values are taken")
  void nullInAnyFieldOfAnyAction() throws Exception {
    testKit = ActorTestKit.create("null-field-test", AlmanacHttpTest.config(String.join("\n",
        "almanac.http.token = \"" + TOKEN + "\"",
        "almanac.pools.llm { max-concurrent = 1, budget-per-day = 5 }",
        "almanac.executor { backlog-burst = 100, backlog-burst-per-task = 100 }")));
    journal = PersistenceTestKit.create(testKit.system());
    Almanac almanac = Almanac.builder(testKit.system()).clock(new SettableClock(NOW))
        .job("fail", ctx -> {
          attempts.incrementAndGet();
          return CompletableFuture.completedFuture(JobResult.failure("boom"));
        })
        .start();
    almanac.register(TaskSpec.builder("digest").cron("0 0 * * * ? UTC").window(WindowSpec.PER_FIRING).job("fail")
        .budgetPerDay(new BigDecimal("5.00")).pools("llm").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.register(TaskSpec.builder("sync").onEvent(EventTrigger.of("order.paid")).zone("UTC").window("hourly")
        .job("fail").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    almanac.register(TaskSpec.builder("quiet").cron("0 0 0 1 1 ? UTC").window(WindowSpec.PER_FIRING).job("fail")
        .build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();

    // a window waiting for an operator (FINAL_FAILED), for the window actions
    HttpResponse<String> run = post("/api/tasks/digest/run", null);
    assertEquals(200, run.statusCode(), run.body());
    String window = ApiRoutesTest.JSON.readTree(run.body()).get("window").asText();
    Eventually.eventually(Duration.ofSeconds(30), () -> assertEquals("FINAL_FAILED", ApiRoutesTest.JSON.readTree(
        get("/api/tasks/digest/windows/" + enc(window)).body()).get("status").asText()));

    // the actions, from the documentation; each one's fields, from the node's own refusal of another field
    Map<String, Set<String>> fieldsOf = new TreeMap<>();
    for (String endpoint : DocumentedEndpointsTest.documented()) {
      // the batch of events takes an array of /api/events bodies, not an object: its elements' fields, nulls
      // included, are checked by EventRoutesTest.badBatch (events[i].field)
      if (endpoint.startsWith("POST ") && !endpoint.endsWith("/api/events/batch")) {
        String template = endpoint.substring(5);
        HttpResponse<String> r = post(path(template, window), "{\"notAFieldOfAnyCall\":1}");
        JsonNode p = ApiRoutesTest.problem(r, 400, "notAFieldOfAnyCall", null);
        Matcher m = TAKES.matcher(p.get("detail").asText());
        assertTrue(m.find(), "the refusal lists the fields the call takes: " + r.body());
        fieldsOf.put(template, new TreeSet<>(List.of(m.group(1).split(", "))));
      }
    }
    assertTrue(fieldsOf.size() >= 11, "actions found: " + fieldsOf.keySet());
    assertEquals(fieldsOf.keySet(), EXAMPLES.keySet(), "a valid example body for each action");
    for (Map.Entry<String, Set<String>> e : fieldsOf.entrySet()) {
      assertEquals(e.getValue(), fieldNames(EXAMPLES.get(e.getKey())), e.getKey() + ": the example gives every field");
    }

    String before = state();
    int attemptsBefore = attempts.get();
    int eventsBefore = events();
    List<String> wrong = new ArrayList<>();
    int walked = 0;
    for (Map.Entry<String, Set<String>> e : fieldsOf.entrySet()) {
      for (String field : e.getValue()) {
        ObjectNode body = (ObjectNode) ApiRoutesTest.JSON.readTree(EXAMPLES.get(e.getKey()));
        body.putNull(field);
        HttpResponse<String> r = post(path(e.getKey(), window), body.toString());
        walked++;
        JsonNode p = r.statusCode() == 400 ? ApiRoutesTest.JSON.readTree(r.body()) : null;
        if (p == null || !field.equals(p.path("field").asText(null)) || !p.get("detail").asText().startsWith(field + ": null ")) {
          wrong.add("POST " + e.getKey() + " " + body + " -> " + r.statusCode() + " " + r.body());
        }
      }
    }
    assertEquals(List.of(), wrong, "a null field is a 400 naming it");
    assertTrue(walked >= 20, "fields walked: " + walked);
    assertEquals(eventsBefore, events(), "nothing stored in any task's journal");
    assertEquals(attemptsBefore, attempts.get(), "no window ran");
    assertEquals(before, state(), "nothing changed");

    // the examples themselves are taken: a refusal, if any, is about the state (409), never the input
    for (Map.Entry<String, String> e : EXAMPLES.entrySet()) {
      HttpResponse<String> r = post(path(e.getKey(), window), e.getValue());
      assertTrue(r.statusCode() == 200 || r.statusCode() == 409, "POST " + e.getKey() + " " + e.getValue() + " -> "
          + r.statusCode() + " " + r.body());
    }
    assertNotEquals(eventsBefore, events(), "the valid calls stored what they did");
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static Set<String> fieldNames(String json) throws Exception {
    Set<String> names = new TreeSet<>();
    ApiRoutesTest.JSON.readTree(json).fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static String path(String template, String window) {
    return template.replace("{task}", "digest").replace("{window}", enc(window)).replace("{pool}", "llm");
  }

  /** What the API shows of every task, window, pool and budget. */
  private String state() throws Exception {
    StringBuilder all = new StringBuilder();
    for (String read : List.of("/api/tasks?latest=100", "/api/windows?limit=500", "/api/queue", "/api/pools",
        "/api/tasks/digest/usage", "/api/tasks/digest", "/api/tasks/sync")) {
      HttpResponse<String> r = get(read);
      assertEquals(200, r.statusCode(), read + ": " + r.body());
      all.append(read).append(' ').append(r.body()).append('\n');
    }
    return all.toString();
  }

  private int events() {
    return journal.persistedInStorage(TaskJournal.persistenceId("digest")).size()
        + journal.persistedInStorage(TaskJournal.persistenceId("sync")).size();
  }

  private static String enc(String key) {
    return URLEncoder.encode(key, StandardCharsets.UTF_8);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + TOKEN)
        .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
