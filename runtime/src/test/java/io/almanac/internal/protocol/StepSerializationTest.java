package io.almanac.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.journal.DurationSamples;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.UsageRecord;
import io.almanac.journal.WindowState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The persisted and sent shapes that durable steps added: a window's steps in the snapshot, the
 * grant's recorded steps, the replayed steps told with a result, and the step command's answer. Each
 * round-trips, and each written before steps existed (without the new component) still reads, with
 * no steps. The two new events have committed fixtures in {@link EventSerializationTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StepSerializationTest {

  private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.load());
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());
  private static final Instant AT = Instant.parse("2026-11-29T00:00:00Z");
  private static final String W = "2026-11-29";

  @AfterAll
  void shutdown() {
    testKit.shutdownTestKit();
  }

  private String write(Object value) {
    return new String(serialization.serialize(value).get(), StandardCharsets.UTF_8);
  }

  private Object read(Object like, String json) {
    Serializer serializer = serialization.findSerializerFor(like);
    String manifest = ((SerializerWithStringManifest) serializer).manifest(like);
    return serialization.deserialize(json.getBytes(StandardCharsets.UTF_8), serializer.identifier(), manifest).get();
  }

  private static Map<String, WindowState.RecordedStep> steps() {
    Map<String, WindowState.RecordedStep> steps = new LinkedHashMap<>();
    steps.put("gather", new WindowState.RecordedStep(1, "java.lang.String", "\"facts\"", null, Duration.ofSeconds(2), AT));
    steps.put("draft", new WindowState.RecordedStep(1, "com.example.Draft", "{\"text\":\"hi\"}",
        new UsageRecord("gpt-x", 10, 20, 30), Duration.ofSeconds(9), AT.plusSeconds(9)));
    return steps;
  }

  @Test
  @DisplayName("a snapshot with a window's steps round-trips in order; one written before steps existed reads with none")
  void snapshotWithSteps() {
    WindowState w = EventSerializationTest.snapshot().windows().get(W);
    WindowState withSteps = new WindowState(w.key(), w.start(), w.end(), w.dueAt(), w.status(), w.runKind(), w.attempt(),
        w.retries(), w.resultAttempt(), w.startedAt(), w.leaseUntil(), w.executor(), w.retryDueAt(), w.summary(),
        w.artifactUri(), w.reason(), w.effects(), w.pendingEffects(), w.createdAt(), w.updatedAt(), w.skipReason(),
        w.waitUntil(), w.events(), w.deadlineMissedAt(), w.poolWait(), w.usage(), 3, steps());
    TaskJournal.State s = new TaskJournal.State(EventSerializationTest.fullRecord(), false, Map.of(W, withSteps), null, 0,
        DurationSamples.empty(10), null);
    String json = write(s);
    TaskJournal.State back = (TaskJournal.State) read(s, json);
    assertEquals(s, back);
    assertEquals(List.of("gather", "draft"), List.copyOf(back.windows().get(W).steps().keySet()), "in recorded order");
    assertTrue(json.contains("\"steps\":{\"gather\""), json);
    String older = withoutSteps(json);
    assertTrue(!older.contains("\"steps\""), older);
    TaskJournal.State old = (TaskJournal.State) read(s, older);
    assertTrue(old.windows().get(W).steps().isEmpty(), older);
    assertTrue(!write(EventSerializationTest.snapshot()).contains("\"steps\""), "a window without steps writes none");
  }

  /** The snapshot's JSON as written before steps existed: the windows without their {@code steps}. */
  private static String withoutSteps(String json) {
    try {
      com.fasterxml.jackson.databind.ObjectMapper m = new com.fasterxml.jackson.databind.ObjectMapper();
      com.fasterxml.jackson.databind.node.ObjectNode tree = (com.fasterxml.jackson.databind.node.ObjectNode) m.readTree(json);
      tree.get("windows").forEach(w -> ((com.fasterxml.jackson.databind.node.ObjectNode) w).remove("steps"));
      return m.writeValueAsString(tree);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  @DisplayName("a grant carries the window's recorded steps; a grant from a node before steps reads with none")
  void grantWithSteps() {
    TaskProtocol.AttemptGrant grant = new TaskProtocol.AttemptGrant("t", W, 2, RunKind.RETRY, AT, AT, AT, AT, Map.of(),
        List.of(), "e", steps());
    assertEquals(grant, read(grant, write(grant)));
    TaskProtocol.AttemptGrant bare = new TaskProtocol.AttemptGrant("t", W, 1, RunKind.FIRST, AT, AT, AT, AT, Map.of(),
        List.of(), "e");
    String json = write(bare);
    assertTrue(!json.contains("steps"), "a grant without steps costs no bytes for them: " + json);
    assertEquals(bare, read(bare, json));
  }

  @Test
  @DisplayName("a result tells the steps it replayed; one sent before steps existed reads with none; the step "
      + "command's answer round-trips")
  void finishAndReply() {
    var probe = testKit.<StatusReply<Done>>createTestProbe();
    TaskProtocol.FinishAttempt finish = new TaskProtocol.FinishAttempt(WindowKey.of(W), 2, JobResult.success("ok"),
        Duration.ofSeconds(3), List.of("gather"), probe.getRef());
    String json = write(finish);
    assertEquals(finish, read(finish, json));
    String older = json.replace(",\"replayedSteps\":[\"gather\"]", "").replace("\"replayedSteps\":[\"gather\"],", "");
    assertTrue(!older.contains("replayedSteps"), older);
    assertEquals(List.of(), ((TaskProtocol.FinishAttempt) read(finish, older)).replayedSteps());
    TaskProtocol.FinishAttempt plain = new TaskProtocol.FinishAttempt(WindowKey.of(W), 1, JobResult.success("ok"),
        Duration.ofSeconds(3), probe.getRef());
    assertTrue(!write(plain).contains("replayedSteps"), "a result that replayed no step sends nothing more");
    assertEquals(plain, read(plain, write(plain)));
    TaskProtocol.StepReply reply = new TaskProtocol.StepReply(true, "{\"text\":\"hi\"}");
    assertEquals(reply, read(reply, write(reply)));
    var stepProbe = testKit.<StatusReply<TaskProtocol.StepReply>>createTestProbe();
    TaskProtocol.RecordStep cmd = new TaskProtocol.RecordStep(WindowKey.of(W), 1, "draft", "com.example.Draft", "{}",
        new UsageRecord(null, 1, 2, 3), Duration.ofSeconds(1), stepProbe.getRef());
    assertEquals(cmd, read(cmd, write(cmd)));
  }
}
