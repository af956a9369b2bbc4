package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.InstanceProjection;
import io.almanac.persistence.instances.InstanceQueries;
import io.almanac.testkit.SettableClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /api/windows} served from the SQL instance table ({@link InstanceWindowSource}) on a real
 * node on an H2 file: windows that left the task's hot state (10 kept) are still listed, pages
 * follow one another by the cursor, and the projection's lag is a metric.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InstanceWindowsTest {

  @TempDir static Path dir;

  private static final int MINUTES = 14;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:30Z"));
  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private ActorTestKit node;
  private Almanac almanac;
  private String base;

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable check) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      check.run();
      return null;
    });
  }

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("instance-windows", ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.task { hot-windows = 10, max-backfill-windows = 5 }",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.instances.poll-interval = 20ms",
        "almanac.http.port = 0"))));
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    almanac = Almanac.builder(node.system()).clock(clock)
        .job("ok", ctx -> CompletableFuture.completedFuture(JobResult.success("done " + ctx.window().value()))).start();
    InstanceProjection.start(node.system(), clock);
    // as the README says: on a JDBC journal with almanac.instances.enabled, /api/windows reads the table
    assertTrue(AlmanacHttp.windowSource(node.system(), almanac) instanceof InstanceWindowSource);
    ServerBinding binding = AlmanacHttp.start(node.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    await(almanac.register(TaskSpec.builder("minutely").cron("0 * * * * ? UTC").window("per-firing").job("ok").build()));
    await(almanac.ready());
    for (int m = 0; m < MINUTES; m++) {
      Instant due = Instant.parse("2026-11-29T00:00:00Z").plusSeconds(60L * m);
      clock.set(due.plusSeconds(1));
      String key = due.toString();
      eventually(() -> assertTrue(await(almanac.windows("minutely")).stream()
          .anyMatch(w -> w.window().value().equals(key) && w.status() == InstanceStatus.SUCCEEDED), key));
    }
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  private JsonNode get(String path) throws Exception {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return json.readTree(r.body());
  }

  @Test
  @DisplayName("every window is listed from the table, also those that left the task's hot state, page by page in order")
  void pagesFromTheTable() throws Exception {
    assertEquals(10, await(almanac.windows("minutely")).stream().filter(w -> w.status().isTerminal()).count(),
        "the task keeps 10 done windows hot");
    eventually(() -> {
      try {
        assertEquals(MINUTES, get("/api/windows?task=minutely&status=SUCCEEDED&limit=500").get("windows").size());
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    List<String> seen = new ArrayList<>();
    String next = null;
    int pages = 0;
    do {
      JsonNode page = get("/api/windows?task=minutely&limit=4" + (next == null ? "" : "&after=" + next));
      page.get("windows").forEach(w -> {
        assertEquals("SUCCEEDED", w.get("status").asText());
        assertEquals("done " + w.get("window").asText(), w.get("summary").asText());
        seen.add(w.get("window").asText());
      });
      next = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (next != null && pages < 10);
    List<String> expected = new ArrayList<>();
    for (int m = 0; m < MINUTES; m++) {
      expected.add(Instant.parse("2026-11-29T00:00:00Z").plusSeconds(60L * m).toString());
    }
    assertEquals(expected, seen, "oldest first, each once, across " + pages + " pages");
    // order=desc: newest first, page by page across the cursor
    List<String> backwards = new ArrayList<>();
    next = null;
    pages = 0;
    do {
      JsonNode page = get("/api/windows?task=minutely&order=desc&limit=4" + (next == null ? "" : "&after=" + next));
      page.get("windows").forEach(w -> backwards.add(w.get("window").asText()));
      next = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (next != null && pages < 10);
    assertEquals(4, pages);
    List<String> newestFirst = new ArrayList<>(expected);
    java.util.Collections.reverse(newestFirst);
    assertEquals(newestFirst, backwards, "newest first, each once");
    // the dashboard's one page: the latest windows first, also over every task
    JsonNode latest = get("/api/windows?order=desc&limit=3");
    List<String> top = new ArrayList<>();
    latest.get("windows").forEach(w -> top.add(w.get("window").asText()));
    assertEquals(newestFirst.subList(0, 3), top);
    // the dashboard's task list: each task's latest windows from the table, more than its 10 hot ones
    for (JsonNode t : get("/api/tasks?latest=12").get("tasks")) {
      if (t.get("id").asText().equals("minutely")) {
        List<String> its = new ArrayList<>();
        t.get("latest").forEach(w -> its.add(w.get("window").asText()));
        assertEquals(newestFirst.subList(0, 12), its, "newest first, from the table");
      }
    }
    JsonNode descRange = get("/api/windows?order=desc&from=2026-11-29T00:05:00Z&to=2026-11-29T00:07:00Z&limit=1");
    assertEquals("2026-11-29T00:06:00Z", descRange.get("windows").get(0).get("window").asText());
    assertEquals("2026-11-29T00:05:00Z", get("/api/windows?order=desc&from=2026-11-29T00:05:00Z&to=2026-11-29T00:07:00Z"
        + "&limit=1&after=" + descRange.get("next").asText()).get("windows").get(0).get("window").asText());
    JsonNode range = get("/api/windows?from=2026-11-29T00:05:00Z&to=2026-11-29T00:07:00Z");
    assertEquals(2, range.get("windows").size(), range.toString());
    assertNull(range.get("next").isNull() ? null : range.get("next").asText());
  }

  @Test
  @DisplayName("by=updated: windows whose last change is in [from, to), by last change, page by page both ways; a "
      + "cursor of pages by start is refused (400 naming after)")
  void byLastChange() throws Exception {
    eventually(() -> {
      try {
        assertEquals(MINUTES, get("/api/windows?task=minutely&status=SUCCEEDED&limit=500").get("windows").size());
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    // each window succeeded one second after its due time: its last change
    String q = "/api/windows?by=updated&status=SUCCEEDED&from=2026-11-29T00:03:00Z&to=2026-11-29T00:06:00Z&limit=2";
    for (String order : List.of("asc", "desc")) {
      List<String> seen = new ArrayList<>();
      String next = null;
      int pages = 0;
      do {
        JsonNode page = get(q + "&order=" + order + (next == null ? "" : "&after=" + next));
        page.get("windows").forEach(w -> seen.add(w.get("window").asText() + " " + w.get("updatedAt").asText()));
        next = page.get("next").isNull() ? null : page.get("next").asText();
        pages++;
      } while (next != null && pages < 5);
      List<String> expected = new ArrayList<>(List.of("2026-11-29T00:03:00Z 2026-11-29T00:03:01Z",
          "2026-11-29T00:04:00Z 2026-11-29T00:04:01Z", "2026-11-29T00:05:00Z 2026-11-29T00:05:01Z"));
      if (order.equals("desc")) {
        java.util.Collections.reverse(expected);
      }
      assertEquals(expected, seen, order + ", across " + pages + " pages");
      assertEquals(2, pages);
    }
    String startCursor = get("/api/windows?task=minutely&limit=1").get("next").asText();
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + q + "&after=" + startCursor)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode(), r.body());
    assertEquals("after", json.readTree(r.body()).get("field").asText());
  }

  @Test
  @DisplayName("an id that is not a task is 404 naming 'task' without starting its entity; /api/windows?task= of it is "
      + "empty; a removed task stays readable")
  void unknownTasksStartNoEntity() throws Exception {
    for (String path : List.of("/api/tasks/no-such-task-1", "/api/tasks/no-such-task-2/windows/2026-11-29")) {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(404, r.statusCode(), r.body());
      JsonNode p = json.readTree(r.body());
      assertEquals("task", p.get("field").asText(), r.body());
      assertTrue(p.get("value").asText().startsWith("no-such-task-"), r.body());
    }
    assertEquals(0, get("/api/windows?task=no-such-task-4").get("windows").size());
    List<String> entities = taskEntities();
    assertTrue(entities.contains("minutely"), "the shard state lists the task's entity: " + entities);
    assertTrue(entities.stream().noneMatch(id -> id.contains("no-such-task")), "no entity for an unknown id: " + entities);

    await(almanac.register(TaskSpec.builder("gone").cron("0 0 8 * * ? UTC").job("ok").build()));
    await(almanac.remove("gone"));
    JsonNode gone = get("/api/tasks/gone");
    assertTrue(gone.get("removed").asBoolean(), gone.toString());
  }

  /** The ids of the task entities running on this node (its shard region's state). */
  private List<String> taskEntities() {
    TestProbe<org.apache.pekko.cluster.sharding.ShardRegion.CurrentShardRegionState> probe = node.createTestProbe();
    org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding.get(node.system()).shardState().tell(
        new org.apache.pekko.cluster.sharding.typed.GetShardRegionState(io.almanac.internal.task.TaskEntity.TYPE_KEY,
            probe.getRef()));
    List<String> ids = new ArrayList<>();
    probe.receiveMessage(Duration.ofSeconds(10)).getShards().forEach(s -> ids.addAll(s.getEntityIds()));
    return ids;
  }

  @Test
  @DisplayName("the projection's lag is scraped from /metrics")
  void lagIsAMetric() throws Exception {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertTrue(r.body().lines().anyMatch(l -> l.startsWith("almanac_projection_lag_seconds ")), r.body());
  }
}
