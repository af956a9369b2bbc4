package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.internal.node.AlertReceiver;
import io.almanac.testkit.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A node whose application.conf has a webhook (almanac.alerts.webhook) POSTs its alerts to a real
 * HTTP server: the FINAL_FAILED of {@code AlmanacNodeTest.finalFailureAlertRetryAndResolve}, end to end.
 */
@ExtendWith(LogCapturingExtension.class)
class WebhookNodeTest {
  private ActorTestKit testKit;
  private AlertReceiver server;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  @DisplayName("webhook: a node configured with a webhook POSTs the FINAL_FAILED alert of a window that failed for good (and still gives it to its alert sink)")
  void finalFailureReachesTheWebhook() {
    server = AlertReceiver.start().answer(503); // the first attempt fails: the alert is sent again
    testKit = ActorTestKit.create("webhook-node", AlmanacNodeTest.config(
        "almanac.alerts.webhook { url = \"" + server.url() + "\", backoff = 20ms, timeout = 5s, kinds = [FINAL_FAILED] }"));
    AlmanacNodeTest.ScriptedJob job = new AlmanacNodeTest.ScriptedJob(clock);
    job.behaviour = ctx -> CompletableFuture.completedFuture(JobResult.failure("model returned malformed JSON"));
    List<Alert> alerts = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add).meterRegistry(registry)
        .job("bad", job).start();
    almanac.register(TaskSpec.builder("failing").cron("0 0 8 * * ? Asia/Shanghai").job("bad")
        .retry(RetryPolicy.immediate()).maxRetries(2).build()).toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));

    JsonNode first = server.next(Duration.ofSeconds(30)).json();
    AlertReceiver.Request again = server.next(Duration.ofSeconds(10));
    JsonNode json = again.json();
    assertEquals(first, json, "the retry after the 503 carries the same body and id");
    assertEquals("application/json", again.header("Content-Type"));
    assertEquals("FINAL_FAILED", json.get("kind").asText());
    assertEquals("failing", json.get("task").asText());
    assertEquals("2026-11-29", json.get("window").asText());
    assertTrue(json.get("message").asText().contains("malformed JSON"), json.toString());
    Instant at = Instant.parse(json.get("at").asText());
    assertTrue(json.get("at").asText().endsWith("Z"), "UTC");
    assertTrue(json.get("node").asText().startsWith("pekko://webhook-node@127.0.0.1:"), json.toString());
    assertEquals(36, json.get("id").asText().length());
    assertTrue(server.pending().isEmpty(), "only FINAL_FAILED is sent, once delivered");
    Alert alert = alerts.stream().filter(a -> a.kind() == Alert.Kind.FINAL_FAILED).findFirst().orElseThrow();
    assertEquals(alert.at(), at, "the alert sink got the same alert");
    assertEquals(1.0, registry.get("almanac.alerts.webhook.failed.attempts").tag("cause", "status").counter().count());
  }

  @Test
  @DisplayName("webhook: a node whose webhook setting is bad does not start, and says which key and value")
  void badSettingRefusesTheStart() {
    testKit = ActorTestKit.create("webhook-bad", AlmanacNodeTest.config("almanac.alerts.webhook { url = \"mailto:ops@example.com\" }"));
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> Almanac.builder(testKit.system()).clock(clock).start());
    assertEquals("almanac.alerts.webhook.url", e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("mailto:ops@example.com"), e.getMessage());
  }
}
