package io.almanac.http;

import static io.almanac.http.ApiRoutesTest.JSON;
import static io.almanac.http.ApiRoutesTest.TOKEN;
import static io.almanac.http.ApiRoutesTest.problem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.Almanac;
import io.almanac.EventTrigger;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/events} over real HTTP, on a one-node Almanac with the in-memory journal and a
 * frozen clock: a task 'sync' listens to {@code order.paid} (hourly UTC windows, no cron).
 */
class EventRoutesTest {

  static final Instant NOW = Instant.parse("2026-11-30T00:30:00Z");

  private ActorTestKit testKit;
  private PersistenceTestKit journal;
  private Almanac almanac;
  private String base;
  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    testKit = ActorTestKit.create("event-routes-test", AlmanacHttpTest.config("almanac.http.token = \"" + TOKEN + "\"\n"
        + "almanac.http.max-batch-events = 5"));
    journal = PersistenceTestKit.create(testKit.system());
    almanac = Almanac.builder(testKit.system()).clock(new SettableClock(NOW))
        .job("block", ctx -> new CompletableFuture<>())
        .start();
    almanac.register(TaskSpec.builder("sync").onEvent(EventTrigger.of("order.paid")).zone("UTC").window("hourly")
        .job("block").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private HttpResponse<String> publish(String body) throws Exception {
    return publish(body, "Bearer " + TOKEN);
  }

  private HttpResponse<String> publishBatch(String body) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + "/api/events/batch"))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> publish(String body, String authorization) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/api/events"))
        .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
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

  /** The one task outcome of an answer, checked for the task and the event. */
  private static JsonNode outcome(JsonNode answer, String id) {
    assertEquals("order.paid", answer.get("type").asText(), answer.toString());
    assertEquals(id, answer.get("id").asText(), answer.toString());
    assertEquals(1, answer.get("tasks").size(), answer.toString());
    JsonNode o = answer.get("tasks").get(0);
    assertEquals("sync", o.get("task").asText(), answer.toString());
    assertTrue(o.hasNonNull("detail"), answer.toString());
    return o;
  }

  private int events() {
    return journal.persistedInStorage(TaskJournal.persistenceId("sync")).size();
  }

  /** The task's journal events that record publishes (received or duplicate): not its windows' runs, which go on meanwhile. */
  private long publishEvents() {
    return journal.persistedInStorage(TaskJournal.persistenceId("sync")).stream()
        .filter(e -> e instanceof TaskJournal.EventReceived || e instanceof TaskJournal.EventDuplicated).count();
  }

  private List<WindowView> windows() throws Exception {
    return almanac.windows("sync").toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static String event(String id, String time) {
    return "{\"type\":\"order.paid\",\"id\":\"" + id + "\",\"eventTime\":\"" + time + "\",\"summary\":\"order paid\"}";
  }

  @Test
  @DisplayName("an event makes its window (SCHEDULED), a second one for the window is COALESCED, a second delivery of "
      + "an id is DUPLICATE and makes no second instance")
  void publishes() throws Exception {
    JsonNode first = outcome(ok(publish(event("evt-1", "2026-11-30T00:10:00Z"))), "evt-1");
    assertEquals("SCHEDULED", first.get("outcome").asText(), first.toString());
    String window = first.get("window").asText();
    List<WindowView> ws = windows();
    assertEquals(1, ws.size(), ws.toString());
    assertEquals(window, ws.get(0).window().value());
    assertTrue(!ws.get(0).start().isAfter(Instant.parse("2026-11-30T00:10:00Z"))
        && ws.get(0).end().isAfter(Instant.parse("2026-11-30T00:10:00Z")), "the window holds the event's time: " + ws);

    JsonNode second = outcome(ok(publish(event("evt-2", "2026-11-30T00:20:00Z"))), "evt-2");
    assertEquals("COALESCED", second.get("outcome").asText(), second.toString());
    assertEquals(window, second.get("window").asText());

    JsonNode again = outcome(ok(publish(event("evt-1", "2026-11-30T00:10:00Z"))), "evt-1");
    assertEquals("DUPLICATE", again.get("outcome").asText(), again.toString());
    assertEquals(window, again.get("window").asText());
    assertEquals(1, windows().size(), "no second instance: " + windows());

    // without eventTime and summary: a task that maps by event time needs the time (400 naming it), and nothing is stored
    int before = events();
    problem(publish("{\"type\":\"order.paid\",\"id\":\"evt-3\"}"), 400, "eventTime", null);
    assertEquals(before, events());
  }

  @Test
  @DisplayName("bad input is a 400 naming the field and the value, an unknown type a 404 naming type, and nothing is "
      + "stored")
  void badInput() throws Exception {
    int events = events();
    List<WindowView> windows = windows();
    String ok = "\"type\":\"order.paid\",\"eventTime\":\"2026-11-30T00:10:00Z\"";

    problem(publish("{" + ok + "}"), 400, "id", null);
    problem(publish("{" + ok + ",\"id\":\"  \"}"), 400, "id", "  ");
    problem(publish("{" + ok + ",\"id\":42}"), 400, "id", "42");
    JsonNode longId = problem(publish("{" + ok + ",\"id\":\"" + "x".repeat(201) + "\"}"), 400, "id", null);
    assertTrue(longId.get("detail").asText().contains("201 characters"), longId.toString());
    problem(publish("{\"type\":\"order paid!\",\"id\":\"e\",\"eventTime\":\"2026-11-30T00:10:00Z\"}"), 400, "type",
        "order paid!");
    problem(publish("{\"id\":\"e\",\"eventTime\":\"2026-11-30T00:10:00Z\"}"), 400, "type", null);
    problem(publish("{\"type\":\"order.paid\",\"id\":\"e\",\"eventTime\":\"yesterday\"}"), 400, "eventTime", "yesterday");
    problem(publish("{\"type\":\"order.paid\",\"id\":\"e\",\"eventTime\":5}"), 400, "eventTime", "5");
    JsonNode future = problem(publish(event("e", "2026-11-30T02:00:00Z")), 400, "eventTime", null);
    assertTrue(future.get("detail").asText().contains("2026-11-30T02:00:00Z"), future.toString());
    JsonNode longSummary = problem(publish("{" + ok + ",\"id\":\"e\",\"summary\":\"" + "s".repeat(501) + "\"}"), 400,
        "summary", null);
    assertTrue(longSummary.get("detail").asText().contains("501 characters"), longSummary.toString());
    problem(publish("{\"type\":"), 400, "body", "{\"type\":");
    problem(publish("[1,2]"), 400, "body", "[1,2]");
    problem(publish(""), 400, "body", "");
    problem(publish("{" + ok + ",\"id\":\"e\",\"priority\":1}"), 400, "priority", "1");

    JsonNode unknown = problem(publish("{\"type\":\"order.refunded\",\"id\":\"e\",\"eventTime\":\"2026-11-30T00:10:00Z\"}"),
        404, "type", "order.refunded");
    assertEquals("https://almanac.io/problems/not-found", unknown.get("type").asText());

    assertEquals(events, events(), "nothing stored");
    assertEquals(windows, windows(), "no window changed");
  }

  @Test
  @DisplayName("POST /api/events/batch: a JSON array of events is answered with one result per event in order, "
      + "duplicates inside the batch and against history recognised")
  void publishesABatch() throws Exception {
    outcome(ok(publish(event("evt-0", "2026-11-30T00:05:00Z"))), "evt-0");
    long before = publishEvents();
    JsonNode answer = ok(publishBatch("[" + event("evt-1", "2026-11-30T00:10:00Z") + "," + event("evt-0", "2026-11-30T00:05:00Z")
        + "," + event("evt-2", "2026-11-30T00:20:00Z") + "," + event("evt-1", "2026-11-30T00:10:00Z") + "]"));
    JsonNode results = answer.get("results");
    assertEquals(4, results.size(), answer.toString());
    assertEquals("COALESCED", outcome(results.get(0), "evt-1").get("outcome").asText());
    assertEquals("DUPLICATE", outcome(results.get(1), "evt-0").get("outcome").asText());
    assertEquals("COALESCED", outcome(results.get(2), "evt-2").get("outcome").asText());
    assertEquals("DUPLICATE", outcome(results.get(3), "evt-1").get("outcome").asText());
    assertEquals(before + 4, publishEvents(), "two received, two duplicates counted");
    assertEquals(1, windows().size());
    assertEquals(0, ok(publishBatch("[]")).get("results").size());
  }

  @Test
  @DisplayName("POST /api/events/batch: a bad event is a 400 naming it (events[i].field), an unknown type a 404, more "
      + "than almanac.http.max-batch-events a 400 naming events; nothing of the batch is stored")
  void badBatch() throws Exception {
    int events = events();
    String good = event("evt-1", "2026-11-30T00:10:00Z");
    problem(publishBatch("[" + good + ",{\"type\":\"order.paid\",\"eventTime\":\"2026-11-30T00:10:00Z\"}]"), 400,
        "events[1].id", null);
    problem(publishBatch("[" + good + ",{\"type\":\"order.paid\",\"id\":\"e\",\"eventTime\":\"yesterday\"}]"), 400,
        "events[1].eventTime", "yesterday");
    problem(publishBatch("[" + good + "," + event("e", "2026-11-30T02:00:00Z") + "]"), 400, "events[1].eventTime", null);
    problem(publishBatch("[" + good + ",{\"type\":\"order.refunded\",\"id\":\"e\",\"eventTime\":\"2026-11-30T00:10:00Z\"}]"),
        404, "events[1].type", "order.refunded");
    problem(publishBatch("[" + good + ",7]"), 400, "events[1]", null);
    // a null in any field of an element, and a field no event has (what NullBodyFieldTest checks of object bodies)
    for (String field : List.of("type", "id", "eventTime", "summary")) {
      problem(publishBatch("[" + good + "," + event("e2", "2026-11-30T00:10:00Z").replaceFirst("\"" + field + "\":(\"[^\"]*\")?",
          "\"" + field + "\":null") + "]"), 400, "events[1]." + field, null);
    }
    problem(publishBatch("[{\"notAFieldOfAnyCall\":1}]"), 400, "events[0].notAFieldOfAnyCall", null);
    problem(publishBatch("null"), 400, "body", null);
    problem(publishBatch(good), 400, "body", null);
    problem(publishBatch("[" + String.join(",", java.util.Collections.nCopies(6, good)) + "]"), 400, "events", null);
    assertEquals(events, events(), "nothing stored");
    assertEquals(List.of(), windows());
  }

  @Test
  @DisplayName("without the token, or with a wrong one: 401, and nothing is stored")
  void unauthorized() throws Exception {
    int events = events();
    problem(publish(event("evt-1", "2026-11-30T00:10:00Z"), null), 401, "Authorization", null);
    problem(publish(event("evt-1", "2026-11-30T00:10:00Z"), "Bearer wrong-token-wrong-token"), 401, "Authorization",
        null);
    assertEquals(events, events());
    assertEquals(List.of(), windows());
  }
}
