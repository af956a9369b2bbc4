package io.almanac.internal.trigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Decision;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.internal.task.TaskSettings;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TriggerJournal;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The trigger's side of the task lifecycle, driven through the EventSourcedBehaviorTestKit (which
 * checks that its commands, events and state serialize): a removal is persisted, so a restart does
 * not bring the task back (R31); a one-shot task is fired once and then no longer queued; one
 * registered after its instant is handed to the catch-up horizon (R14). Tasks are test probes that
 * answer what the trigger sends them.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TriggerLifecycleTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config()
      .withFallback(ConfigFactory.parseString("almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, "
          + "retry-delay = 100ms }"))
      .withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final AtomicInteger IDS = new AtomicInteger();

  /**
   * A new clock for each trigger: the triggers of earlier tests (and an earlier one of the same test)
   * keep running on the same persistence id, and would write their progress into the journal a
   * later trigger recovers from if they saw the clock move.
   */
  private SettableClock clock = new SettableClock(T0);

  private EventSourcedBehaviorTestKit<TriggerProtocol.Command, TriggerJournal.Event, TriggerJournal.State> trigger(
      Map<String, TestProbe<TaskProtocol.Command>> tasks) {
    clock = new SettableClock(T0);
    // One trigger journal per test: the persistence id is fixed, so each test starts from a cleared journal.
    EventSourcedBehaviorTestKit<TriggerProtocol.Command, TriggerJournal.Event, TriggerJournal.State> kit =
        EventSourcedBehaviorTestKit.create(testKit.system(), TriggerActor.create(clock, TriggerSettings.from(CONFIG),
            TaskSettings.from(CONFIG).recentFireGrace(), id -> tasks.get(id).getRef()));
    kit.clear();
    kit.restart();
    return kit;
  }

  private static void register(EventSourcedBehaviorTestKit<TriggerProtocol.Command, TriggerJournal.Event, TriggerJournal.State> kit,
      TaskSpec spec) {
    var r = kit.<StatusReply<Done>>runCommand(ref -> new TriggerProtocol.Register(List.of(SpecRecord.of(spec)), null, ref));
    assertTrue(r.reply().isSuccess(), () -> "register failed: " + r.reply());
  }

  /** Answers the next fire the task gets as scheduled; returns it. */
  private static TaskProtocol.Fire answerFire(TestProbe<TaskProtocol.Command> task) {
    TaskProtocol.Fire fire = task.expectMessageClass(TaskProtocol.Fire.class, Duration.ofSeconds(5));
    fire.replyTo().tell(StatusReply.success(new TaskProtocol.FireOutcome(fire.window().value(), Decision.SCHEDULED, "FIRST")));
    return fire;
  }

  private static TriggerProtocol.TriggerStatus status(
      EventSourcedBehaviorTestKit<TriggerProtocol.Command, TriggerJournal.Event, TriggerJournal.State> kit, ActorTestKit testKit) {
    TestProbe<TriggerProtocol.TriggerStatus> probe = testKit.createTestProbe();
    kit.runCommand(TriggerProtocol.GetStatus.withTaskIds(probe.getRef()));
    return probe.receiveMessage();
  }

  @Test
  @DisplayName("R31: a removed task is fired no more, also after the trigger restarts; another task goes on")
  void removalIsPersisted() {
    String removed = "removed-" + IDS.incrementAndGet();
    String kept = "kept-" + IDS.incrementAndGet();
    TestProbe<TaskProtocol.Command> removedTask = testKit.createTestProbe();
    TestProbe<TaskProtocol.Command> keptTask = testKit.createTestProbe();
    var kit = trigger(Map.of(removed, removedTask, kept, keptTask));
    register(kit, TaskSpec.builder(removed).cron("0 * * * * ? UTC").window("per-firing").build());
    register(kit, TaskSpec.builder(kept).cron("0 * * * * ? UTC").window("per-firing").build());
    var r = kit.<StatusReply<Done>>runCommand(ref -> new TriggerProtocol.Remove(removed, ref));
    assertTrue(r.reply().isSuccess());
    assertEquals(List.of(new TriggerJournal.TaskRemoved(removed, T0)), r.events());
    assertFalse(kit.getState().tasks().containsKey(removed));
    var again = kit.<StatusReply<Done>>runCommand(ref -> new TriggerProtocol.Remove(removed, ref));
    assertTrue(again.reply().isSuccess(), "a task not registered: acknowledged");
    assertTrue(again.hasNoEvents());

    kit.restart();
    assertFalse(kit.getState().tasks().containsKey(removed), "the restart does not bring it back");
    assertEquals(List.of(kept), status(kit, testKit).taskIds());
    clock.set(T0.plusSeconds(60));
    assertEquals(WindowKey.of(T0.plusSeconds(60).toString()), answerFire(keptTask).window());
    removedTask.expectNoMessage(Duration.ofMillis(300));
  }

  @Test
  @DisplayName("R1: a one-shot task is fired once, at its instant; then the trigger no longer queues it")
  void oneShotIsFiredOnce() {
    String id = "once-" + IDS.incrementAndGet();
    TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    var kit = trigger(Map.of(id, task));
    Instant at = T0.plusSeconds(10);
    register(kit, TaskSpec.builder(id).once(at).build());
    TriggerProtocol.TriggerStatus before = status(kit, testKit);
    assertEquals(id, before.nextTask());
    assertEquals(at, before.nextAt());
    task.expectNoMessage(Duration.ofMillis(100));
    clock.set(at);
    TaskProtocol.Fire fire = answerFire(task);
    assertEquals(WindowKey.of(at.toString()), fire.window());
    assertEquals(TaskProtocol.FireKind.ON_TIME, fire.kind());
    assertEquals(at, fire.dueAt());
    task.awaitAssert(() -> {
      assertNull(status(kit, testKit).nextTask(), "nothing queued for it any more");
      return null;
    });
    clock.set(at.plus(Duration.ofDays(2)));
    task.expectNoMessage(Duration.ofMillis(300));
    kit.restart();
    clock.set(at.plus(Duration.ofDays(3)));
    task.expectNoMessage(Duration.ofMillis(300));
    assertEquals(List.of(id), status(kit, testKit).taskIds(), "still registered: its retries and leases still wake it");
  }

  @Test
  @DisplayName("R14: a one-shot registered after its instant is fired on time within the on-time grace, else handed to "
      + "the catch-up horizon and backfill policy")
  void oneShotRegisteredLate() {
    String recent = "recent-" + IDS.incrementAndGet();
    String old = "old-" + IDS.incrementAndGet();
    TestProbe<TaskProtocol.Command> recentTask = testKit.createTestProbe();
    TestProbe<TaskProtocol.Command> oldTask = testKit.createTestProbe();
    var kit = trigger(Map.of(recent, recentTask, old, oldTask));
    Instant recentAt = T0.minusSeconds(30);
    register(kit, TaskSpec.builder(recent).once(recentAt).build());
    TaskProtocol.Fire fire = answerFire(recentTask);
    assertEquals(TaskProtocol.FireKind.ON_TIME, fire.kind());
    assertEquals(recentAt, fire.dueAt());

    Instant oldAt = T0.minus(Duration.ofDays(3));
    register(kit, TaskSpec.builder(old).once(oldAt).build());
    TaskProtocol.CatchUp catchUp = oldTask.expectMessageClass(TaskProtocol.CatchUp.class, Duration.ofSeconds(5));
    assertEquals(List.of(new TaskProtocol.DueFire(WindowKey.of(oldAt.toString()), oldAt, oldAt, oldAt)), catchUp.windows());
    catchUp.replyTo().tell(StatusReply.success(new TaskProtocol.CatchUpOutcome(List.of(
        new TaskProtocol.FireOutcome(oldAt.toString(), Decision.MISSED, "OUTSIDE_HORIZON")))));
    register(kit, TaskSpec.builder(old).once(oldAt).description("changed").build());
    oldTask.expectNoMessage(Duration.ofMillis(300));
  }

  @Test
  @DisplayName("R11 R24: tasks registered with windows due before the trigger's watermark: the watermark goes back, so a "
      + "trigger that recovers before those fires were acknowledged fires them again")
  void registrationBehindTheWatermark() {
    String id = "late-" + IDS.incrementAndGet();
    TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    var kit = trigger(Map.of(id, task));
    // The trigger runs on (nothing registered) and persists its watermark up to T0+10 s.
    clock.set(T0.plusSeconds(10));
    task.awaitAssert(() -> {
      assertEquals(T0.plusSeconds(10), kit.getState().watermark());
      return null;
    });
    // A registration made at T0+1 s reaches it only now: its windows at T0+5 s and T0+10 s are due.
    var r = kit.<StatusReply<Done>>runCommand(ref -> new TriggerProtocol.Register(List.of(SpecRecord.of(
        TaskSpec.builder(id).cron("*/5 * * * * ? UTC").window("per-firing").build())), T0.plusSeconds(1), ref));
    assertTrue(r.reply().isSuccess());
    assertEquals(T0.plusSeconds(1), ((TriggerJournal.TasksRegistered) r.events().get(0)).since());
    assertEquals(T0.plusSeconds(1), kit.getState().watermark(), "the watermark goes back to the registration's start");
    TaskProtocol.Fire first = task.expectMessageClass(TaskProtocol.Fire.class, Duration.ofSeconds(5));
    assertEquals(WindowKey.of(T0.plusSeconds(5).toString()), first.window());
    // The fire is never acknowledged: the node dies. The trigger that recovers fires the window again.
    kit.restart();
    task.fishForMessage(Duration.ofSeconds(5), m -> {
      boolean again = m instanceof TaskProtocol.Fire f && f.window().equals(first.window())
          || m instanceof TaskProtocol.CatchUp c && c.windows().stream().anyMatch(w -> w.window().equals(first.window()));
      return again ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
          : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore();
    });
  }

  /** Registers a task firing every 5 s, fires and acknowledges its window at T0+5 s, and waits until that is persisted (T0+6 s). */
  private String firedOnce(EventSourcedBehaviorTestKit<TriggerProtocol.Command, TriggerJournal.Event, TriggerJournal.State> kit,
      String id, TestProbe<TaskProtocol.Command> task) {
    register(kit, TaskSpec.builder(id).cron("*/5 * * * * ? UTC").window("per-firing").build());
    clock.set(T0.plusSeconds(5));
    assertEquals(WindowKey.of(T0.plusSeconds(5).toString()), answerFire(task).window());
    clock.set(T0.plusSeconds(6)); // acknowledged: the watermark passes the window (persisted by the trigger's clock)
    task.awaitAssert(() -> {
      assertEquals(T0.plusSeconds(6), kit.getState().watermark());
      return null;
    });
    return id;
  }

  private static List<Object> firesAfterRestart(TestProbe<TaskProtocol.Command> task, int count) {
    List<Object> got = new java.util.ArrayList<>();
    for (int i = 0; i < count; i++) {
      TaskProtocol.Command m = task.expectMessageClass(TaskProtocol.Command.class, Duration.ofSeconds(5));
      if (m instanceof TaskProtocol.Fire f) {
        got.add(f.kind() + " " + f.window().value());
        f.replyTo().tell(StatusReply.success(new TaskProtocol.FireOutcome(f.window().value(), Decision.SCHEDULED, "FIRST")));
      } else if (m instanceof TaskProtocol.CatchUp c) {
        got.add("CATCH_UP " + c.windows().stream().map(w -> w.window().value()).toList());
        c.replyTo().tell(StatusReply.success(new TaskProtocol.CatchUpOutcome(c.windows().stream()
            .map(w -> new TaskProtocol.FireOutcome(w.window().value(), Decision.MISSED, "BACKFILL_NOT_ALLOWED")).toList())));
      } else {
        got.add(m.getClass().getSimpleName());
      }
    }
    return got;
  }

  @Test
  @DisplayName("R12: a trigger that stopped on a node leaving a cluster whose other members stay up records a hand-over; "
      + "its successor fires every window due meanwhile on time, not as catch-up, and ends the hand-over once it fires")
  void handOverFiresTheGapOnTime() {
    String id = "handover-" + IDS.incrementAndGet();
    TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    var kit = trigger(Map.of(id, task));
    firedOnce(kit, id, task);
    String self = testKit.system().address().toString();
    var q = kit.<Done>runCommand(ref -> new TriggerProtocol.Quiesce(self, true, ref));
    assertEquals(Done.getInstance(), q.reply());
    assertEquals(1, q.events().size());
    TriggerJournal.HandedOver handedOver = (TriggerJournal.HandedOver) q.events().get(0);
    assertEquals(self, handedOver.node());
    assertEquals(T0.plusSeconds(6), handedOver.at());
    assertEquals(T0.plusSeconds(6), kit.getState().handedOverAt());
    clock.set(T0.plusSeconds(16));
    task.expectNoMessage(Duration.ofMillis(200)); // quiesced: the windows at T0+10 s and T0+15 s are not fired here

    // The successor starts 10 s after the hand-over (within the lease time: 10 s, the singleton taking no lease here):
    // T0+10 s and T0+15 s fire on time.
    clock.set(T0.plusSeconds(16));
    kit.restart();
    assertEquals(List.of("ON_TIME " + T0.plusSeconds(10), "ON_TIME " + T0.plusSeconds(15)), firesAfterRestart(task, 2));
    clock.set(T0.plusSeconds(18));
    task.awaitAssert(() -> {
      assertNull(kit.getState().handedOverAt(), "the successor's watermark moved: the hand-over is over");
      assertEquals(T0.plusSeconds(18), kit.getState().watermark());
      return null;
    });
    // A later crash is downtime again: the latest window on time, the older ones to the catch-up policy. The
    // trigger stops firing first (a quiesce that records no hand-over, as a crash leaves none): else a tick of
    // the running trigger between the clock's jump and the restart fires the gap itself (seen on a loaded machine).
    var stopped = kit.<Done>runCommand(ref -> new TriggerProtocol.Quiesce(self, false, ref));
    assertEquals(Done.getInstance(), stopped.reply());
    assertEquals(List.of(), stopped.events(), "no hand-over recorded");
    clock.set(T0.plusSeconds(31));
    kit.restart();
    // the catch-up first, then the on-time window (docs/skip-ranges.md: an open range closes before the windows handed over)
    assertEquals(List.of("CATCH_UP " + List.of(T0.plusSeconds(20).toString(), T0.plusSeconds(25).toString()),
        "ON_TIME " + T0.plusSeconds(30)), firesAfterRestart(task, 2));
  }

  @Test
  @DisplayName("R12: a trigger stopping with no other member up, another node's quiesce, or a successor starting after "
      + "the on-time grace: no hand-over, the gap is downtime (latest window on time, the older ones to the catch-up policy)")
  void noHandOverWithoutASuccessor() {
    String id = "alone-" + IDS.incrementAndGet();
    TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    var kit = trigger(Map.of(id, task));
    firedOnce(kit, id, task);
    var other = kit.<Done>runCommand(ref -> new TriggerProtocol.Quiesce("pekko://almanac@10.0.0.9:25520", true, ref));
    assertTrue(other.hasNoEvents(), "another node shutting down: the trigger stays and records nothing");
    clock.set(T0.plusSeconds(10));
    assertEquals(WindowKey.of(T0.plusSeconds(10).toString()), answerFire(task).window());
    clock.set(T0.plusSeconds(11));
    task.awaitAssert(() -> {
      assertEquals(T0.plusSeconds(11), kit.getState().watermark());
      return null;
    });
    var alone = kit.<Done>runCommand(ref -> new TriggerProtocol.Quiesce(testKit.system().address().toString(), false, ref));
    assertEquals(Done.getInstance(), alone.reply());
    assertTrue(alone.hasNoEvents(), "no other member stays up: a stop, not a hand-over");
    clock.set(T0.plusSeconds(22));
    kit.restart();
    assertEquals(List.of("CATCH_UP " + List.of(T0.plusSeconds(15).toString()), "ON_TIME " + T0.plusSeconds(20)),
        firesAfterRestart(task, 2));

    // A hand-over whose successor starts after the grace (60 s): downtime as well.
    String late = "late-successor-" + IDS.incrementAndGet();
    TestProbe<TaskProtocol.Command> lateTask = testKit.createTestProbe();
    var kit2 = trigger(Map.of(late, lateTask));
    firedOnce(kit2, late, lateTask);
    kit2.<Done>runCommand(ref -> new TriggerProtocol.Quiesce(testKit.system().address().toString(), true, ref));
    assertEquals(T0.plusSeconds(6), kit2.getState().handedOverAt());
    clock.set(T0.plusSeconds(6 + 61));
    kit2.restart();
    List<Object> got = firesAfterRestart(lateTask, 2);
    assertTrue(got.get(0).toString().startsWith("CATCH_UP [" + T0.plusSeconds(10)), got.toString());
    assertEquals("ON_TIME " + T0.plusSeconds(65), got.get(1));
  }

  @Test
  @DisplayName("R12: the whole cluster stopped a node after another: the trigger handed over to a successor within the "
      + "lease time fires on time; handed over again to nobody and started 43 s later, the gap is downtime (latest window "
      + "on time, the older ones to the catch-up policy), though within the 60 s on-time grace")
  void fullStopIsDowntime() {
    String id = "full-stop-" + IDS.incrementAndGet();
    TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    var kit = trigger(Map.of(id, task));
    firedOnce(kit, id, task);
    String self = testKit.system().address().toString();
    // Node 1 stops (SIGTERM) while nodes 2 and 3 run: a hand-over; node 2's trigger starts 3 s later and fires on time.
    kit.<Done>runCommand(ref -> new TriggerProtocol.Quiesce(self, true, ref));
    clock.set(T0.plusSeconds(9));
    kit.restart();
    task.expectNoMessage(Duration.ofMillis(200)); // nothing was due between the hand-over and its start
    clock.set(T0.plusSeconds(10));
    assertEquals(WindowKey.of(T0.plusSeconds(10).toString()), answerFire(task).window());
    clock.set(T0.plusSeconds(11));
    task.awaitAssert(() -> {
      assertNull(kit.getState().handedOverAt(), "node 2's trigger fired: the first hand-over is over");
      return null;
    });
    // Node 2 stops 2 s after node 1, node 3 still up: a hand-over again; node 3 stops 2 s later, before its trigger starts.
    clock.set(T0.plusSeconds(12));
    var second = kit.<Done>runCommand(ref -> new TriggerProtocol.Quiesce(self, true, ref));
    // the hand-over (a watermark write of a tick may have gone in just before it)
    assertEquals(T0.plusSeconds(12), second.events().stream().filter(TriggerJournal.HandedOver.class::isInstance)
        .map(TriggerJournal.HandedOver.class::cast).findFirst().orElseThrow().at());
    assertEquals(T0.plusSeconds(12), kit.getState().handedOverAt());
    // The cluster starts again 43 s after the last hand-over: nobody took over within the lease time (10 s here).
    clock.set(T0.plusSeconds(55));
    kit.restart();
    List<String> olderWindows = new java.util.ArrayList<>();
    for (int s = 15; s <= 50; s += 5) {
      olderWindows.add(T0.plusSeconds(s).toString());
    }
    List<Object> got = firesAfterRestart(task, 2);
    assertEquals("ON_TIME " + T0.plusSeconds(55), got.get(1), got.toString());
    // the catch-up (first) starts at the persisted watermark, so it may hold T0+10 s again (the task knows it ran)
    String catchUp = got.get(0).toString();
    assertTrue(catchUp.equals("CATCH_UP " + olderWindows) || catchUp.equals("CATCH_UP " + java.util.stream.Stream.concat(
        java.util.stream.Stream.of(T0.plusSeconds(10).toString()), olderWindows.stream()).toList()), got.toString());
  }
}
