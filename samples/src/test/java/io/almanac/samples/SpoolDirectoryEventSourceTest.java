package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.Almanac;
import io.almanac.EventTrigger;
import io.almanac.IncomingEvent;
import io.almanac.InvalidSpecException;
import io.almanac.JobResult;
import io.almanac.PublishResult;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.Eventually;
import io.almanac.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SpoolDirectoryEventSource} on a real temporary directory, publishing into a real embedded
 * node (one-node cluster, H2 file journal, a frozen clock at 2026-11-29T00:30:00Z) with a task
 * 'orders' listening to {@code order.paid} (hourly UTC windows, no cron).
 */
class SpoolDirectoryEventSourceTest {

  static final Duration DEADLINE = Duration.ofSeconds(30);

  @TempDir Path tmp;
  private ActorTestKit node;
  private Almanac almanac;
  private Path spool;
  private SpoolDirectoryEventSource source;
  private final Map<String, PublishResult> published = new ConcurrentHashMap<>();
  private final List<String> settled = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    Config config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(tmp.resolve("db").resolve("almanac").toString()),
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }")));
    node = ActorTestKit.create("spool-test", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(60));
    almanac = Almanac.builder(node.system()).clock(new SettableClock(Instant.parse("2026-11-29T00:30:00Z")))
        .job("ok", ctx -> CompletableFuture.completedFuture(JobResult.success("synced " + ctx.window().value())))
        .start();
    ApiTestNode.await(almanac.register(TaskSpec.builder("orders").onEvent(EventTrigger.of("order.paid")).zone("UTC")
        .window("hourly").job("ok").build()));
    ApiTestNode.await(almanac.ready());
    spool = tmp.resolve("spool");
    source = new SpoolDirectoryEventSource(spool, Duration.ofMillis(20), (file, disposition, result, error) -> {
      settled.add(file.getFileName() + " " + disposition);
      if (result != null) {
        published.put(file.getFileName().toString(), result);
      }
    });
  }

  @AfterEach
  void stop() {
    if (source != null) {
      source.close();
    }
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  /** Writes a file as a producer must: under a temporary name, then renamed to *.json. */
  private Path drop(String name, String json) throws Exception {
    Path tmpFile = spool.resolve("." + name + ".tmp");
    Files.writeString(tmpFile, json, StandardCharsets.UTF_8);
    return Files.move(tmpFile, spool.resolve(name), StandardCopyOption.ATOMIC_MOVE);
  }

  private static String event(String id, String time) {
    return "{\"type\":\"order.paid\",\"id\":\"" + id + "\",\"eventTime\":\"" + time + "\",\"summary\":\"order paid\"}";
  }

  private void awaitIn(String folder, String name) throws Exception {
    Eventually.eventually(DEADLINE, () -> {
      assertTrue(Files.exists(spool.resolve(folder).resolve(name)), name + " in " + folder + "/: " + settled);
      assertFalse(Files.exists(spool.resolve(name)), name + " left the spool directory");
      String disposition = folder.equals("done") ? "DONE" : "REJECTED";
      assertTrue(settled.contains(name + " " + disposition), "the listener was told: " + settled);
    });
  }

  private List<WindowView> windows() {
    return ApiTestNode.await(almanac.windows("orders"));
  }

  @Test
  @DisplayName("a good file is published and moved to done/; a second file with the same id is DUPLICATE and moved to "
      + "done/ too, with one instance; bad files are moved to rejected/ with their reason, and nothing is stored")
  void publishesSettlesAndDeadLetters() throws Exception {
    almanac.attach(source);
    drop("001-good.json", event("evt-1", "2026-11-29T00:10:00Z"));
    awaitIn("done", "001-good.json");
    PublishResult first = published.get("001-good.json");
    assertEquals("evt-1", first.id());
    assertEquals(1, first.tasks().size(), first.toString());
    assertEquals("orders", first.tasks().get(0).taskId());
    assertEquals(PublishResult.Outcome.SCHEDULED, first.tasks().get(0).outcome(), first.toString());
    assertEquals(1, windows().size(), windows().toString());
    assertEquals(first.tasks().get(0).window(), windows().get(0).window());

    drop("002-again.json", event("evt-1", "2026-11-29T00:10:00Z"));
    awaitIn("done", "002-again.json");
    assertEquals(PublishResult.Outcome.DUPLICATE, published.get("002-again.json").tasks().get(0).outcome());
    assertEquals(1, windows().size(), "no second instance: " + windows());

    // never accepted: the node's refusals and files that are not an event
    drop("003-blank-id.json", event(" ", "2026-11-29T00:20:00Z"));
    drop("004-unknown-type.json", "{\"type\":\"order.refunded\",\"id\":\"evt-4\",\"eventTime\":\"2026-11-29T00:20:00Z\"}");
    drop("005-future.json", event("evt-5", "2026-11-29T03:00:00Z"));
    drop("006-not-json.json", "{\"type\": order.paid");
    drop("007-bad-time.json", event("evt-7", "yesterday"));
    Map<String, String> reasons = Map.of(
        "003-blank-id.json", "id ' ' is invalid",
        "004-unknown-type.json", "UNKNOWN_EVENT_TYPE: type 'order.refunded' is invalid",
        "005-future.json", "eventTime '2026-11-29T03:00:00Z' is invalid",
        "006-not-json.json", "is not valid JSON",
        "007-bad-time.json", "eventTime 'yesterday' is invalid");
    for (Map.Entry<String, String> r : reasons.entrySet()) {
      awaitIn("rejected", r.getKey());
      String reason = Files.readString(spool.resolve("rejected").resolve(r.getKey() + ".reason"));
      assertTrue(reason.contains(r.getValue()), r.getKey() + ": " + reason);
      assertNull(published.get(r.getKey()));
    }
    assertEquals(1, windows().size(), "nothing stored for a rejected file: " + windows());
    assertEquals(windows().get(0).window(), first.tasks().get(0).window());
  }

  @Test
  @DisplayName("a transient failure leaves the file for the next scan, which delivers it again (redelivery), and it ends "
      + "in done/; close() stops the scans")
  void redeliversAfterATransientFailure() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    source.start(event -> calls.getAndIncrement() == 0
        ? CompletableFuture.failedFuture(new IllegalStateException("the node did not answer in time"))
        : almanac.publish(event));
    drop("001-good.json", event("evt-1", "2026-11-29T00:10:00Z"));
    awaitIn("done", "001-good.json");
    assertEquals(List.of("001-good.json RETRY", "001-good.json DONE"), settled);
    assertEquals(2, calls.get());
    assertEquals(PublishResult.Outcome.SCHEDULED, published.get("001-good.json").tasks().get(0).outcome());
    assertTrue(Files.notExists(spool.resolve("rejected").resolve("001-good.json")));

    source.close();
    assertTrue(source.stopped(), "no scan runs after close()");
  }

  @Test
  @DisplayName("parse: the HTTP body's JSON; a field of the wrong JSON type or another field is refused naming it")
  void parse() {
    IncomingEvent e = SpoolDirectoryEventSource.parse(event("evt-1", "2026-11-29T00:10:00Z"));
    assertEquals(IncomingEvent.of("order.paid", "evt-1").withEventTime(Instant.parse("2026-11-29T00:10:00Z"))
        .withSummary("order paid"), e);
    assertEquals(IncomingEvent.of("t", "i"), SpoolDirectoryEventSource.parse("{\"type\":\"t\",\"id\":\"i\"}"));
    for (String[] c : List.of(new String[] {"{\"type\":\"t\",\"id\":5}", "id"},
        new String[] {"{\"type\":\"t\",\"id\":\"i\",\"priority\":1}", "priority"},
        new String[] {"[1]", "body"}, new String[] {"", "body"})) {
      try {
        SpoolDirectoryEventSource.parse(c[0]);
        throw new AssertionError("accepted: " + c[0]);
      } catch (InvalidSpecException refused) {
        assertEquals(c[1], refused.field(), refused.getMessage());
      }
    }
  }
}
