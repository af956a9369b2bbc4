package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.RefusedException;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.AttemptGrant;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.StepReply;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.UsageRecord;
import io.almanac.journal.WindowState;
import io.almanac.testkit.SettableClock;
import io.almanac.internal.protocol.StepBounds;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Durable steps at the task entity, through the EventSourcedBehaviorTestKit (which also serializes
 * every command, event and state): a step is recorded once per window by the attempt that holds it,
 * rides in the grant of every later attempt, is bounded, counts its usage once, and leaves the hot
 * state when the window is done.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StepsEntityTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config()
      .withFallback(ConfigFactory.parseString("almanac.task { hot-windows = 20, max-backfill-windows = 10, "
          + "max-step-result-size = 100, max-steps-per-window = 2, max-step-name-length = 10 }"))
      .withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final String W = "2026-11-29";
  private static final UsageRecord HALF = new UsageRecord("m", 10, 20, 500_000);

  private final SettableClock clock = new SettableClock(T0);

  private EventSourcedBehaviorTestKit<Command, Event, State> kit() {
    clock.set(T0);
    TaskSpec spec = TaskSpec.builder("steps-" + IDS.incrementAndGet()).cron("0 0 8 * * ? Asia/Shanghai")
        .retry(RetryPolicy.immediate()).maxRetries(3).build();
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(
        testKit.system(), TaskEntity.create(spec.id(), clock, TaskSettings.from(CONFIG)));
    kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(spec), ref));
    Instant start = Instant.parse(W + "T00:00:00Z").minus(Duration.ofHours(8));
    kit.<StatusReply<TaskProtocol.FireOutcome>>runCommand(ref -> new TaskProtocol.Fire(WindowKey.of(W), start,
        start.plus(Duration.ofDays(1)), start.plus(Duration.ofHours(8)), FireKind.ON_TIME, ref));
    return kit;
  }

  private static AttemptGrant start(EventSourcedBehaviorTestKit<Command, Event, State> kit) {
    ExecutorProtocol.AdmissionAnswer reply = kit.<ExecutorProtocol.AdmissionAnswer>runCommand(
        ref -> new TaskProtocol.Admitted(WindowKey.of(W), null, ref)).reply();
    return assertInstanceOf(ExecutorProtocol.Started.class, reply, () -> "start failed: " + reply).grant();
  }

  private static CommandResultWithReply<Command, Event, State, StatusReply<StepReply>> step(
      EventSourcedBehaviorTestKit<Command, Event, State> kit, int attempt, String name, String json, UsageRecord usage) {
    return kit.runCommand(ref -> new TaskProtocol.RecordStep(WindowKey.of(W), attempt, name, "java.lang.String", json,
        usage, Duration.ofSeconds(3), ref));
  }

  private static void finish(EventSourcedBehaviorTestKit<Command, Event, State> kit, int attempt, JobResult r,
      List<String> replayed) {
    var done = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.FinishAttempt(WindowKey.of(W), attempt, r,
        Duration.ofSeconds(5), replayed, ref));
    assertTrue(done.reply().isSuccess(), () -> "finish failed: " + done.reply());
  }

  private static WindowState window(EventSourcedBehaviorTestKit<Command, Event, State> kit) {
    return kit.getState().windows().get(W);
  }

  @Test
  @DisplayName("a step recorded by attempt 1 rides in attempt 2's grant; its usage counts once; the replay is told "
      + "with the result in the same write; a done window keeps no steps; a restart reads them back")
  void recordedOnceReplayedLater() {
    var kit = kit();
    AttemptGrant first = start(kit);
    assertTrue(first.steps().isEmpty(), "a window's first attempt has no recorded step");
    var a = step(kit, 1, "gather", "\"facts\"", HALF);
    assertTrue(a.reply().getValue().recordedNow());
    TaskJournal.StepRecorded recorded = a.eventOfType(TaskJournal.StepRecorded.class);
    assertEquals("gather", recorded.name());
    assertEquals(1, recorded.attempt());
    assertEquals(HALF, recorded.usage());
    var again = step(kit, 1, "gather", "\"other\"", HALF);
    assertFalse(again.reply().getValue().recordedNow());
    assertEquals("\"facts\"", again.reply().getValue().result(), "the first record of a name stands");
    assertTrue(again.hasNoEvents());
    assertEquals(500_000, kit.getState().budget().costMicros(), "the step's usage counted once");
    finish(kit, 1, JobResult.failure("draft failed"), List.of());

    AttemptGrant second = start(kit);
    assertEquals(2, second.attempt());
    assertEquals("\"facts\"", second.steps().get("gather").result());
    assertEquals(1, second.steps().get("gather").attempt());
    assertEquals(window(kit), kit.restart().state().windows().get(W), "steps survive a restart (replay of the journal)");
    var last = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.FinishAttempt(WindowKey.of(W), 2,
        JobResult.success("published"), Duration.ofSeconds(5), List.of("gather"), ref));
    assertEquals(List.of(TaskJournal.StepsReplayed.class, TaskJournal.AttemptSucceeded.class),
        last.events().stream().map(Object::getClass).toList(), "one write: the replay and the end");
    assertEquals(List.of("gather"), ((TaskJournal.StepsReplayed) last.events().get(0)).names());
    assertEquals(InstanceStatus.SUCCEEDED, window(kit).status());
    assertTrue(window(kit).steps().isEmpty(), "a done window keeps no steps in the hot state");
    assertEquals(500_000, kit.getState().budget().costMicros(), "a replay counts no usage");
  }

  @Test
  @DisplayName("an attempt that replayed no step writes nothing more with its result")
  void noStepNoCost() {
    var kit = kit();
    start(kit);
    var done = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.FinishAttempt(WindowKey.of(W), 1,
        JobResult.success("ok"), Duration.ofSeconds(5), ref));
    assertEquals(List.of(TaskJournal.AttemptSucceeded.class), done.events().stream().map(Object::getClass).toList());
  }

  @Test
  @DisplayName("a stale attempt cannot record a step, nor one past its lease; refusals name the step")
  void staleAttemptRefused() {
    var kit = kit();
    start(kit);
    finish(kit, 1, JobResult.failure("boom"), List.of());
    start(kit);
    var stale = step(kit, 1, "gather", "1", null);
    assertEquals(RefusedException.Reason.STALE_ATTEMPT, ((RefusedException) stale.reply().getError()).reason());
    assertTrue(stale.hasNoEvents());
    clock.set(window(kit).leaseUntil().plusSeconds(1));
    var late = step(kit, 2, "gather", "1", null);
    assertEquals(RefusedException.Reason.STALE_ATTEMPT, ((RefusedException) late.reply().getError()).reason());
    assertTrue(late.reply().getError().getMessage().contains("step 'gather'"), late.reply().getError().getMessage());
    assertTrue(late.hasNoEvents());
  }

  @Test
  @DisplayName("a step's name, result and the window's number of steps are bounded; each refusal names the bound")
  void bounded() {
    var kit = kit();
    start(kit);
    var blank = step(kit, 1, " ", "1", null);
    assertEquals("step.name", ((RefusedException) blank.reply().getError()).field());
    var longName = step(kit, 1, "a-very-long-name", "1", null);
    assertTrue(longName.reply().getError().getMessage().contains("almanac.task.max-step-name-length"));
    var big = step(kit, 1, "big", "\"" + "é".repeat(50) + "\"", null); // 102 bytes of UTF-8, 52 characters
    assertEquals("step.result", ((RefusedException) big.reply().getError()).field());
    assertTrue(big.reply().getError().getMessage().contains("102 bytes"), big.reply().getError().getMessage());
    assertTrue(big.reply().getError().getMessage().contains("artifact"), big.reply().getError().getMessage());
    assertTrue(step(kit, 1, "one", "1", null).reply().isSuccess());
    assertTrue(step(kit, 1, "two", "2", null).reply().isSuccess());
    var third = step(kit, 1, "three", "3", null);
    assertEquals(RefusedException.Reason.CONFLICT, ((RefusedException) third.reply().getError()).reason());
    assertTrue(third.reply().getError().getMessage().contains("almanac.task.max-steps-per-window"));
    assertTrue(blank.hasNoEvents() && longName.hasNoEvents() && big.hasNoEvents() && third.hasNoEvents());
  }

  @Test
  @DisplayName("steps are kept through FINAL_FAILED, so an operator's retry replays them")
  void operatorRetryReplays() {
    var kit = kit();
    for (int attempt = 1; attempt <= 4; attempt++) {
      start(kit);
      if (attempt == 1) {
        step(kit, 1, "gather", "\"facts\"", null);
      }
      finish(kit, attempt, JobResult.failure("boom"), List.of());
    }
    assertEquals(InstanceStatus.FINAL_FAILED, window(kit).status());
    assertEquals(1, window(kit).steps().size());
    kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Retry(WindowKey.of(W), ref));
    AttemptGrant manual = start(kit);
    assertEquals("\"facts\"", manual.steps().get("gather").result());
  }

  @Test
  @DisplayName("the UTF-8 length is counted as the encoder counts it")
  void utf8Length() {
    for (String s : List.of("", "abc", "é", "日本", "😀x", "\uD800")) {
      assertEquals(s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, StepBounds.utf8Length(s), s);
    }
  }
}
