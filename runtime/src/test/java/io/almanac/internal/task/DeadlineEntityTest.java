package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Alert;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Deadlines and pause on failure in the task entity: its deadline timer, its recovery, its alerts,
 * and the pause in the write of the failure. The entity's time is a SettableClock; a timer armed for
 * a short real delay is awaited, never slept on.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadlineEntityTest {

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(TaskEntityTest.CONFIG).build();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z"); // 08:00 Asia/Shanghai
  private static final String W = "2026-11-29";

  private final SettableClock clock = new SettableClock(T0);
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();

  private TaskSpec.Builder daily() {
    return TaskSpec.builder("deadline-" + IDS.incrementAndGet()).cron("0 0 8 * * ? Asia/Shanghai");
  }

  private EventSourcedBehaviorTestKit<Command, Event, State> kit(TaskSpec spec) {
    clock.set(T0);
    TaskEnv env = new TaskEnv(null, null, alerts::add, id -> true, 0);
    var kit = EventSourcedBehaviorTestKit.<Command, Event, State>create(testKit.system(),
        TaskEntity.create(spec.id(), clock, TaskSettings.from(TaskEntityTest.CONFIG), env));
    var r = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(spec), ref));
    assertTrue(r.reply().isSuccess(), () -> "define failed: " + r.reply());
    return kit;
  }

  private static FireOutcome fire(EventSourcedBehaviorTestKit<Command, Event, State> kit, String date) {
    Instant start = Instant.parse(date + "T00:00:00Z").minus(Duration.ofHours(8));
    var r = kit.<StatusReply<FireOutcome>>runCommand(ref -> new TaskProtocol.Fire(WindowKey.of(date), start,
        start.plus(Duration.ofDays(1)), start.plus(Duration.ofHours(8)), FireKind.ON_TIME, ref));
    assertTrue(r.reply().isSuccess(), () -> "fire failed: " + r.reply());
    return r.reply().getValue();
  }

  private static void start(EventSourcedBehaviorTestKit<Command, Event, State> kit, String window) {
    var r = kit.<ExecutorProtocol.AdmissionAnswer>runCommand(ref -> new TaskProtocol.Admitted(WindowKey.of(window), "node#1", ref));
    assertInstanceOf(ExecutorProtocol.Started.class, r.reply());
  }

  private static EventSourcedBehaviorTestKit.CommandResultWithReply<Command, Event, State, StatusReply<Done>> finish(
      EventSourcedBehaviorTestKit<Command, Event, State> kit, String window, JobResult result) {
    return kit.runCommand(ref -> new TaskProtocol.FinishAttempt(WindowKey.of(window), 1, result, Duration.ofSeconds(3), ref));
  }

  private static WindowState window(EventSourcedBehaviorTestKit<Command, Event, State> kit, String key) {
    return kit.getState().windows().get(key);
  }

  private List<Alert> alerts(String taskId, Alert.Kind kind) {
    return alerts.stream().filter(a -> a.kind() == kind && taskId.equals(a.taskId())).toList();
  }

  private static List<TaskJournal.DeadlineMissed> misses(EventSourcedBehaviorTestKit<Command, Event, State> kit, String taskId) {
    return kit.persistenceTestKit().persistedInStorage(TaskEntity.persistenceId(taskId).id()).stream()
        .filter(TaskJournal.DeadlineMissed.class::isInstance).map(TaskJournal.DeadlineMissed.class::cast).toList();
  }

  private void awaitMissed(EventSourcedBehaviorTestKit<Command, Event, State> kit, String window) {
    testKit.createTestProbe().awaitAssert(Duration.ofSeconds(10), () -> {
      assertNotNull(window(kit, window).deadlineMissedAt(), "deadline not recorded yet");
      return null;
    });
  }

  @Test
  @DisplayName("a window still RUNNING at due + deadline: the entity's own timer records DEADLINE_MISSED and raises its "
      + "alert, once; the window goes on and succeeds")
  void deadlineMissedWhileRunningIsRecordedOnce() {
    TaskSpec spec = daily().deadline(Duration.ofSeconds(1)).build();
    var kit = kit(spec);
    fire(kit, W);
    start(kit, W);
    clock.set(T0.plus(Duration.ofMinutes(5))); // the timer, armed for 1 s, finds the clock past the deadline
    awaitMissed(kit, W);
    TaskJournal.DeadlineMissed m = misses(kit, spec.id()).get(0);
    assertEquals(new TaskJournal.DeadlineMissed(W, T0, T0.plusSeconds(1), InstanceStatus.RUNNING, 1,
        T0.plus(Duration.ofMinutes(5))), m);
    assertEquals(InstanceStatus.RUNNING, window(kit, W).status(), "the window goes on");
    List<Alert> raised = alerts(spec.id(), Alert.Kind.DEADLINE_MISSED);
    assertEquals(1, raised.size(), raised::toString);
    assertEquals(W, raised.get(0).window());
    assertTrue(raised.get(0).message().contains("still RUNNING"), raised.get(0).message());

    kit.<StatusReply<Done>>runCommand(TaskProtocol.Wake::new); // a wake-up looks again: nothing new
    kit.restart();
    assertEquals(InstanceStatus.SUCCEEDED, finish(kit, W, JobResult.success("late but done")).state().windows().get(W).status());
    assertEquals(1, misses(kit, spec.id()).size(), "exactly once, across a wake-up and a restart");
    assertEquals(1, alerts(spec.id(), Alert.Kind.DEADLINE_MISSED).size());
    assertEquals(T0.plus(Duration.ofMinutes(5)), window(kit, W).deadlineMissedAt(), "the mark stays on the window");
    assertEquals(T0.plus(Duration.ofMinutes(5)), window(kit, W).view(spec.id(), 0).deadlineMissedAt(), "its view shows it");
  }

  @Test
  @DisplayName("after a restart before the deadline, recovery re-arms the deadline timer from the journal")
  void restartReArmsTheDeadline() {
    TaskSpec spec = daily().deadline(Duration.ofSeconds(2)).build();
    var kit = kit(spec);
    fire(kit, W);
    kit.restart(); // the timer of the old incarnation is gone; the window is PENDING in the journal
    assertNull(window(kit, W).deadlineMissedAt());
    clock.set(T0.plus(Duration.ofMinutes(1)));
    awaitMissed(kit, W);
    assertEquals(InstanceStatus.PENDING, misses(kit, spec.id()).get(0).status());
    assertEquals(1, alerts(spec.id(), Alert.Kind.DEADLINE_MISSED).size());
  }

  @Test
  @DisplayName("a deadline that passed while the task was down is recorded at recovery, at once, and only once")
  void deadlinePassedWhileDownIsRecordedAtRecovery() {
    TaskSpec spec = daily().deadline(Duration.ofHours(1)).build();
    var kit = kit(spec);
    fire(kit, W);
    start(kit, W);
    clock.set(T0.plus(Duration.ofHours(3))); // the node was down from before the deadline until now
    kit.restart();
    awaitMissed(kit, W);
    assertEquals(new TaskJournal.DeadlineMissed(W, T0, T0.plus(Duration.ofHours(1)), InstanceStatus.RUNNING, 1,
        T0.plus(Duration.ofHours(3))), misses(kit, spec.id()).get(0));
    kit.restart();
    kit.<StatusReply<Done>>runCommand(TaskProtocol.Wake::new);
    assertEquals(1, misses(kit, spec.id()).size());
    assertEquals(1, alerts(spec.id(), Alert.Kind.DEADLINE_MISSED).size());
  }

  @Test
  @DisplayName("a window that SUCCEEDED or ended FINAL_FAILED before its deadline records no miss; a task without a "
      + "deadline never does")
  void windowsEndedBeforeTheDeadlineAreNotMissed() {
    TaskSpec spec = daily().deadline(Duration.ofHours(1)).build();
    var kit = kit(spec);
    fire(kit, W);
    start(kit, W);
    assertEquals(InstanceStatus.FINAL_FAILED, finish(kit, W, JobResult.failure("boom")).state().windows().get(W).status());
    clock.set(T0.plus(Duration.ofDays(1)));
    fire(kit, "2026-11-30");
    start(kit, "2026-11-30");
    finish(kit, "2026-11-30", JobResult.success("on time"));
    clock.set(T0.plus(Duration.ofDays(3)));
    kit.restart();
    kit.<StatusReply<Done>>runCommand(TaskProtocol.Wake::new);
    assertEquals(List.of(), misses(kit, spec.id()));
    assertEquals(1, alerts(spec.id(), Alert.Kind.FINAL_FAILED).size(), "the failure has its own alert");
    assertEquals(List.of(), alerts(spec.id(), Alert.Kind.DEADLINE_MISSED));

    TaskSpec none = daily().build();
    var plain = kit(none);
    fire(plain, W);
    clock.set(T0.plus(Duration.ofDays(3)));
    plain.restart();
    plain.<StatusReply<Done>>runCommand(TaskProtocol.Wake::new);
    assertEquals(List.of(), misses(plain, none.id()));
  }

  /** The spec as a build before the deadline's bound stored it: with {@code deadline}, which today's builder refuses. */
  private static SpecRecord storedWithDeadline(TaskSpec spec, Duration deadline) throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper().findAndRegisterModules();
    com.fasterxml.jackson.databind.node.ObjectNode tree = mapper.valueToTree(SpecRecord.of(spec));
    tree.put("deadline", deadline.toString());
    return mapper.treeToValue(tree, SpecRecord.class);
  }

  @Test
  @DisplayName("R33: the largest deadline (366 days, past Pekko's timer wheel) and a stored deadline of ChronoUnit.FOREVER: "
      + "the task fires, runs, answers and recovers; the far deadline is never missed early")
  void farDeadlinesNeverStopTheTask() throws Exception {
    TaskSpec max = daily().deadline(TaskSpec.MAX_DEADLINE).build();
    var kit = kit(max);
    fire(kit, W);
    start(kit, W);
    assertEquals(InstanceStatus.SUCCEEDED, finish(kit, W, JobResult.success("done")).state().windows().get(W).status());

    TaskSpec spec = daily().deadline(Duration.ofHours(1)).build();
    var forever = kit(spec);
    SpecRecord stored = storedWithDeadline(spec, java.time.temporal.ChronoUnit.FOREVER.getDuration());
    assertEquals(java.time.temporal.ChronoUnit.FOREVER.getDuration(), stored.deadline());
    forever.persistenceTestKit().persistForRecovery(TaskEntity.persistenceId(spec.id()).id(),
        List.of(new TaskJournal.SpecDefined(stored, T0)));
    forever.restart();
    assertEquals(java.time.temporal.ChronoUnit.FOREVER.getDuration(), forever.getState().spec().deadline());
    fire(forever, W);
    start(forever, W);
    assertEquals(InstanceStatus.SUCCEEDED, finish(forever, W, JobResult.success("done")).state().windows().get(W).status());
    clock.set(T0.plus(Duration.ofDays(1)));
    fire(forever, "2026-11-30");
    clock.set(T0.plus(Duration.ofDays(400)));
    forever.restart(); // recovery re-arms the deadline timer: saturated, a day at a time
    assertTrue(forever.<StatusReply<Done>>runCommand(TaskProtocol.Wake::new).reply().isSuccess());
    var paused = forever.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Pause(ref));
    assertTrue(paused.reply().isSuccess(), () -> "the task answers: " + paused.reply());
    assertEquals(List.of(), misses(forever, spec.id()), "a deadline saturated at the end of year 9999 is not missed");
    assertEquals(List.of(), misses(kit, max.id()));
  }

  @Test
  @DisplayName("pause on failure: the third window in a row that ends FINAL_FAILED pauses the task in the same write, "
      + "with its streak, and raises TASK_PAUSED_ON_FAILURES; the next window is skipped PAUSED saying so; a resume "
      + "resets the count")
  void pausesAfterFailuresInARowAndResumeResets() {
    TaskSpec spec = daily().pauseAfterFailures(3).build();
    var kit = kit(spec);
    List<String> days = List.of("2026-11-29", "2026-11-30", "2026-12-01");
    for (int i = 0; i < days.size(); i++) {
      clock.set(T0.plus(Duration.ofDays(i)));
      fire(kit, days.get(i));
      start(kit, days.get(i));
      var r = finish(kit, days.get(i), JobResult.failure("provider down"));
      boolean last = i == days.size() - 1;
      assertEquals(last, r.events().stream().anyMatch(TaskJournal.TaskPaused.class::isInstance), "paused at the third");
      assertEquals(last, r.state().paused());
    }
    TaskJournal.TaskPaused p = kit.persistenceTestKit().persistedInStorage(TaskEntity.persistenceId(spec.id()).id())
        .stream().filter(TaskJournal.TaskPaused.class::isInstance).map(TaskJournal.TaskPaused.class::cast).findFirst()
        .orElseThrow();
    assertEquals(TaskJournal.PauseCause.FAILURES, p.cause());
    assertEquals(new TaskJournal.FailureStreak(3, "2026-11-29", "2026-12-01"), p.failures());
    List<Alert> raised = alerts(spec.id(), Alert.Kind.TASK_PAUSED_ON_FAILURES);
    assertEquals(1, raised.size());
    assertTrue(raised.get(0).message().contains("3 windows in a row"), raised.get(0).message());

    kit.restart(); // the count and the pause's cause come back from the journal
    clock.set(T0.plus(Duration.ofDays(3)));
    assertEquals(Decision.SKIPPED, fire(kit, "2026-12-02").decision());
    WindowState skipped = window(kit, "2026-12-02");
    assertEquals(SkipReason.PAUSED, skipped.skipReason());
    assertTrue(skipped.reason().contains("paused itself after 3 windows in a row ended FINAL_FAILED, from '2026-11-29' to "
        + "'2026-12-01'"), skipped.reason());

    kit.runCommand(TaskProtocol.Resume::new);
    assertFalse(kit.getState().paused());
    assertNull(kit.getState().failures(), "a resume resets the count");
    clock.set(T0.plus(Duration.ofDays(4)));
    fire(kit, "2026-12-03");
    start(kit, "2026-12-03");
    assertFalse(finish(kit, "2026-12-03", JobResult.failure("again")).state().paused(), "one failure after the resume");
  }
}
