package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.internal.meter.NodeMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The webhook sink against a real HTTP server on the loopback interface. Most tests run the sink's
 * steps by hand ({@link HandRunner}): a retry's backoff is a delay the test reads and then lets
 * pass, so no test waits for a backoff; the HTTP requests themselves are real.
 */
class WebhookSinkTest {
  private static final Duration WITHIN = Duration.ofSeconds(10);
  private static final String NODE = "pekko://almanac@127.0.0.1:2552";
  private static final String SECRET = "Bearer s3cret-t0ken";

  private final Logger logger = (Logger) LoggerFactory.getLogger("io.almanac.alerts");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final NodeMeters meters = new NodeMeters(registry);
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final HandRunner hand = new HandRunner();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void attach() {
    lines.start();
    logger.addAppender(lines);
  }

  @AfterEach
  void detach() throws Exception {
    logger.detachAppender(lines);
    for (AutoCloseable c : toClose) {
      c.close();
    }
    // nothing the sink logged shows a header's value or the URL's path (a token in a Slack URL)
    for (ILoggingEvent e : lines.list) {
      String text = e.getFormattedMessage();
      assertFalse(text.contains("s3cret") || text.contains("T0K3N"), text);
    }
  }

  /** Runs the sink's steps when the test says; keeps its delayed steps and their delays. */
  static final class HandRunner implements WebhookSink.Runner {
    final ArrayDeque<Runnable> now = new ArrayDeque<>();
    final ArrayDeque<Runnable> later = new ArrayDeque<>();
    final List<Duration> delays = new ArrayList<>();
    boolean closed;

    @Override
    public void run(Runnable step) {
      if (closed) {
        throw new RejectedExecutionException("closed");
      }
      now.add(step);
    }

    @Override
    public void later(Runnable step, Duration delay) {
      if (closed) {
        throw new RejectedExecutionException("closed");
      }
      delays.add(delay);
      later.add(step);
    }

    @Override
    public void close() {
      closed = true;
    }

    /** Runs every step due now, and those they give. */
    void runNow() {
      while (!now.isEmpty()) {
        now.poll().run();
      }
    }

    /** Lets the first delayed step's delay pass. */
    void letDelayPass() {
      assertFalse(later.isEmpty(), "no step is waiting for a delay");
      later.poll().run();
      runNow();
    }
  }

  private static WebhookSettings settings(String url, String extra) {
    return WebhookSettings.from(ConfigFactory.parseString("almanac.alerts.webhook { url = \"" + url + "\"\n" + extra + "\n}")
        .withFallback(ConfigFactory.defaultReference()).resolve());
  }

  private WebhookSink sink(WebhookSettings settings) {
    return new WebhookSink(settings, NODE, meters, hand, Duration.ofSeconds(5), nanos::get);
  }

  private AlertReceiver receiver() {
    AlertReceiver r = AlertReceiver.start();
    toClose.add(r);
    return r;
  }

  /** @return a port nothing listens on (a receiver's, closed) */
  private static int closedPort() {
    AlertReceiver r = AlertReceiver.start();
    int port = r.port();
    r.close();
    return port;
  }

  private static Alert failed(String task) {
    return new Alert(Alert.Kind.FINAL_FAILED, task, "2026-11-29", "task '" + task + "' failed for good",
        Instant.parse("2026-11-29T00:00:03.250Z"));
  }

  private double count(String name, String tag, String value) {
    var search = registry.find(name);
    if (tag != null) {
      search = search.tag(tag, value);
    }
    var c = search.counter();
    return c == null ? 0 : c.count();
  }

  private List<String> messages() {
    return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  @DisplayName("webhook: each alert is POSTed as JSON with its fields, a stable id and the configured headers, from a thread of its own")
  void postsJson() {
    AlertReceiver server = receiver();
    WebhookSink sink = WebhookSink.start(settings(server.url(), "headers { Authorization = \"" + SECRET + "\", \"X-Team.Name\" = ops }"),
        NODE, meters, Duration.ofSeconds(5));
    try {
      Alert alert = failed("digest");
      sink.alert(alert);
      sink.alert(new Alert(Alert.Kind.TRIGGER_STALLED, null, null, "the trigger stopped", Instant.parse("2026-11-29T01:00:00Z")));
      AlertReceiver.Request r = server.next(WITHIN);
      assertEquals("POST", r.method());
      assertEquals("application/json", r.header("Content-Type"));
      assertEquals(SECRET, r.header("Authorization"));
      assertEquals("ops", r.header("X-Team.Name"));
      JsonNode json = r.json();
      assertEquals(WebhookSink.id(alert, NODE), json.get("id").asText());
      assertEquals(36, json.get("id").asText().length(), "a UUID");
      assertEquals("FINAL_FAILED", json.get("kind").asText());
      assertEquals("digest", json.get("task").asText());
      assertEquals("2026-11-29", json.get("window").asText());
      assertEquals("task 'digest' failed for good", json.get("message").asText());
      assertEquals("2026-11-29T00:00:03.250Z", json.get("at").asText());
      assertEquals(NODE, json.get("node").asText());
      assertEquals(7, json.size(), json.toString());
      JsonNode second = server.next(WITHIN).json();
      assertEquals("TRIGGER_STALLED", second.get("kind").asText(), "in the order raised");
      assertTrue(second.get("task").isNull() && second.get("window").isNull(), second.toString());
    } finally {
      sink.close(Duration.ZERO);
    }
  }

  @Test
  @DisplayName("webhook: the id is the same for the same alert and differs for another window, kind or time")
  void stableId() {
    // the example of docs/alerts.md: the derivation is part of the contract (receivers store ids)
    assertEquals("ec8a167e-887b-35a7-bf60-4af7abe8c53a", WebhookSink.id(new Alert(Alert.Kind.FINAL_FAILED, "daily-digest",
        "2026-11-29", "any words", Instant.parse("2026-11-29T00:00:03.250Z")), "pekko://almanac@10.0.0.5:2552"));
    Alert a = failed("t");
    assertEquals(WebhookSink.id(a, NODE), WebhookSink.id(new Alert(a.kind(), "t", a.window(), "other words", a.at()), NODE));
    assertFalse(WebhookSink.id(a, NODE).equals(WebhookSink.id(new Alert(a.kind(), "t", "2026-11-30", a.message(), a.at()), NODE)));
    assertFalse(WebhookSink.id(a, NODE).equals(WebhookSink.id(new Alert(Alert.Kind.WAIT_EXPIRED, "t", a.window(), a.message(), a.at()), NODE)));
    assertFalse(WebhookSink.id(a, NODE).equals(WebhookSink.id(new Alert(a.kind(), "t", a.window(), a.message(), a.at().plusMillis(1)), NODE)));
  }

  @Test
  @DisplayName("webhook: after 500 and 503 the same body is sent again after 1x and 2x the backoff, then delivered once")
  void retriesAfterServerErrors() {
    AlertReceiver server = receiver().answer(500, 503, 200);
    WebhookSink sink = sink(settings(server.url(), "backoff = 2s, max-attempts = 5, headers { Authorization = \"" + SECRET + "\" }"));
    sink.alert(failed("digest"));
    hand.runNow();
    String first = server.next(WITHIN).body();
    assertEquals(List.of(Duration.ofSeconds(2)), hand.delays);
    assertEquals(1, count("almanac.alerts.webhook.failed.attempts", "cause", "status"));
    hand.letDelayPass();
    assertEquals(first, server.next(WITHIN).body(), "a retry sends the same body, the same id");
    assertEquals(List.of(Duration.ofSeconds(2), Duration.ofSeconds(4)), hand.delays);
    hand.letDelayPass();
    assertEquals(first, server.next(WITHIN).body());
    assertEquals(1, count("almanac.alerts.webhook.sent", null, null));
    assertEquals(2, count("almanac.alerts.webhook.failed.attempts", "cause", "status"));
    assertTrue(hand.later.isEmpty() && hand.now.isEmpty(), "nothing more to do");
    assertTrue(server.pending().isEmpty());
    assertTrue(messages().stream().anyMatch(m -> m.contains("attempt 1 of 5") && m.contains("HTTP 500")), messages().toString());
  }

  @Test
  @DisplayName("webhook: a refused connection is tried again, and the alert is delivered once the server is up")
  void retriesAfterConnectionRefused() {
    int port = closedPort();
    WebhookSink sink = sink(settings("http://127.0.0.1:" + port + "/alerts/T0K3N", "backoff = 1s"));
    sink.alert(failed("a"));
    sink.alert(failed("b"));
    hand.runNow();
    assertEquals(1, count("almanac.alerts.webhook.failed.attempts", "cause", "connect"));
    assertEquals(List.of(Duration.ofSeconds(1)), hand.delays);
    assertTrue(messages().stream().anyMatch(m -> m.contains("cannot connect") && m.contains("http://127.0.0.1:" + port + "/…")),
        messages().toString());
    try (AlertReceiver server = AlertReceiver.on(port)) {
      hand.letDelayPass();
      assertEquals("a", server.next(WITHIN).json().get("task").asText());
      assertEquals("b", server.next(WITHIN).json().get("task").asText());
      assertEquals(2, count("almanac.alerts.webhook.sent", null, null));
      assertTrue(server.pending().isEmpty(), "each delivered once");
    }
  }

  @Test
  @DisplayName("webhook: a server that does not answer is given up on after the timeout, and the next attempt delivers")
  void timeoutOfHangingServer() {
    AlertReceiver server = receiver().answer(0); // the first request hangs
    WebhookSink sink = sink(settings(server.url(), "timeout = 300ms"));
    sink.alert(failed("slow"));
    long started = System.nanoTime();
    hand.runNow();
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertTrue(took.compareTo(Duration.ofMillis(250)) >= 0 && took.compareTo(Duration.ofSeconds(5)) < 0, took.toString());
    assertEquals(1, count("almanac.alerts.webhook.failed.attempts", "cause", "timeout"));
    assertEquals(1, hand.later.size(), "tried again after the backoff");
    server.next(WITHIN);
    hand.letDelayPass();
    assertEquals("slow", server.next(WITHIN).json().get("task").asText());
    assertEquals(1, count("almanac.alerts.webhook.sent", null, null));
  }

  @Test
  @DisplayName("webhook: alert() never waits; while the server is down the full queue drops the oldest, counts and logs it once per interval")
  void boundedQueueDropsOldest() {
    int port = closedPort();
    WebhookSink sink = sink(settings("http://127.0.0.1:" + port + "/alerts", "queue-size = 3, max-attempts = 2"));
    for (int i = 0; i < 10; i++) {
      sink.alert(failed("t" + i)); // nothing runs: the caller only enqueues
    }
    assertEquals(7, count("almanac.alerts.webhook.dropped", "reason", "queue_full"), "t0..t6 dropped, t7..t9 kept");
    List<String> full = messages().stream().filter(m -> m.contains("is full")).toList();
    assertEquals(1, full.size(), "one line for 7 drops within the interval: " + messages());
    assertTrue(full.get(0).contains("FINAL_FAILED alert of task 't0'"), full.get(0));
    hand.runNow(); // t7, attempt 1: refused connection
    hand.letDelayPass(); // t7, attempt 2: refused again, given up; t8, attempt 1: refused
    assertEquals(1, count("almanac.alerts.webhook.dropped", "reason", "gave_up"));
    assertEquals(3, count("almanac.alerts.webhook.failed.attempts", "cause", "connect"));
    try (AlertReceiver server = AlertReceiver.on(port)) {
      hand.letDelayPass(); // t8, attempt 2: delivered; then t9
      assertEquals("t8", server.next(WITHIN).json().get("task").asText());
      assertEquals("t9", server.next(WITHIN).json().get("task").asText());
      assertTrue(server.pending().isEmpty());
    }
    assertEquals(2, count("almanac.alerts.webhook.sent", null, null));
    for (int i = 10; i < 14; i++) {
      sink.alert(failed("t" + i)); // the queue fills again: t10 is dropped, still within the interval
    }
    assertEquals(8, count("almanac.alerts.webhook.dropped", "reason", "queue_full"));
    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    sink.alert(failed("t14"));
    full = messages().stream().filter(m -> m.contains("is full")).toList();
    assertEquals(2, full.size(), messages().toString());
    assertTrue(full.get(1).contains("'t11'") && full.get(1).contains("and 7 more"), "6 folded in the first round and t10: " + full.get(1));
  }

  @Test
  @DisplayName("webhook: only the kinds listed are sent")
  void kindsFilter() {
    AlertReceiver server = receiver();
    WebhookSink sink = sink(settings(server.url(), "kinds = [FINAL_FAILED, TRIGGER_STALLED]"));
    sink.alert(new Alert(Alert.Kind.REPEATED_SKIPS, "t", "w", "skipped", Instant.EPOCH));
    sink.alert(failed("t"));
    sink.alert(new Alert(Alert.Kind.TRIGGER_RECOVERED, null, null, "back", Instant.EPOCH));
    sink.alert(new Alert(Alert.Kind.TRIGGER_STALLED, null, null, "stopped", Instant.EPOCH));
    hand.runNow();
    assertEquals("FINAL_FAILED", server.next(WITHIN).json().get("kind").asText());
    assertEquals("TRIGGER_STALLED", server.next(WITHIN).json().get("kind").asText());
    assertTrue(server.pending().isEmpty());
    assertEquals(2, count("almanac.alerts.webhook.sent", null, null));
  }

  @Test
  @DisplayName("webhook: a 4xx answer (other than 408, 425, 429) is not tried again; a 429 is")
  void clientErrorsAreNotRetried() {
    AlertReceiver server = receiver().answer(400, 429);
    WebhookSink sink = sink(settings(server.url(), ""));
    sink.alert(failed("bad"));
    sink.alert(failed("limited"));
    hand.runNow();
    server.next(WITHIN);
    assertEquals(1, count("almanac.alerts.webhook.dropped", "reason", "refused"));
    assertTrue(messages().stream().anyMatch(m -> m.contains("refused") && m.contains("HTTP 400 ok")), messages().toString());
    assertEquals("limited", server.next(WITHIN).json().get("task").asText());
    assertEquals(1, hand.later.size(), "the 429 is tried again");
    hand.letDelayPass();
    assertEquals("limited", server.next(WITHIN).json().get("task").asText());
    assertEquals(1, count("almanac.alerts.webhook.sent", null, null));
  }

  @Test
  @DisplayName("webhook: once closed, alerts are counted as dropped and the waiting ones are said in the log")
  void closed() {
    WebhookSink sink = sink(settings("http://127.0.0.1:" + closedPort() + "/alerts", ""));
    sink.alert(failed("a"));
    sink.close(Duration.ZERO);
    sink.alert(failed("b"));
    assertEquals(1, count("almanac.alerts.webhook.dropped", "reason", "closed"));
    assertTrue(messages().stream().anyMatch(m -> m.contains("stopping with 1 alerts not sent")), messages().toString());
    hand.now.clear();
    assertNull(registry.find("almanac.alerts.webhook.sent").counter());
  }

  @Test
  @DisplayName("webhook: closing sends the alerts still waiting within its grace, without retries, and refuses new ones")
  void closeSendsWhatIsWaiting() {
    AlertReceiver server = receiver().answer(0, 500); // a hangs until its timeout, b gets a 500, c a 204
    WebhookSink sink = WebhookSink.start(settings(server.url(), "timeout = 2s, backoff = 1m"), NODE, meters, Duration.ofSeconds(5));
    sink.alert(failed("a"));
    sink.alert(failed("b"));
    sink.alert(failed("c"));
    server.next(WITHIN); // a is being sent (its answer hangs): close() begins meanwhile
    sink.close(WITHIN);
    sink.alert(failed("d"));
    assertEquals(1, count("almanac.alerts.webhook.failed.attempts", "cause", "timeout"));
    assertEquals(1, count("almanac.alerts.webhook.failed.attempts", "cause", "status"));
    assertEquals(1, count("almanac.alerts.webhook.sent", null, null), "c");
    assertEquals(3, count("almanac.alerts.webhook.dropped", "reason", "closed"), "a and b (not tried again while stopping), d (raised after)");
    assertEquals(List.of("b", "c"), server.pending().stream().map(r -> r.json().get("task").asText()).toList());
  }

  @Test
  @DisplayName("webhook: each alert's state is told to the alert history: RETRYING after a 503, DELIVERED with its attempts; "
      + "FAILED when refused (400) or dropped from a full queue")
  void deliveriesAreToldToTheHistory() {
    AlertReceiver server = receiver().answer(503, 200, 400);
    WebhookSink sink = sink(settings(server.url(), "queue-size = 2"));
    List<String> told = new ArrayList<>();
    sink.onDelivery((alert, status, attempts, detail) -> told.add(alert.taskId() + " " + status + " " + attempts
        + (detail == null ? "" : " " + detail)));
    sink.alert(failed("a"));
    sink.alert(failed("b"));
    sink.alert(failed("c")); // the queue holds 2: a is dropped before any attempt
    hand.runNow(); // b: 503
    hand.letDelayPass(); // b: 200, then c: 400
    server.next(WITHIN);
    server.next(WITHIN);
    server.next(WITHIN);
    assertEquals(List.of("a FAILED 0 dropped: the webhook's queue was full", "b RETRYING 1 HTTP 503 ok",
        "b DELIVERED 2", "c FAILED 1 refused: HTTP 400 ok"), told);
    assertTrue(sink.name().startsWith("webhook http://127.0.0.1:") && sink.name().endsWith("/…"), sink.name());
  }
}
