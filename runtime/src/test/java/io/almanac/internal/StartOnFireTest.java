package io.almanac.internal;

import io.almanac.journal.TaskJournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.TaskProtocol.AttemptGrant;
import io.almanac.internal.TaskProtocol.Command;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.internal.TaskProtocol.FireKind;
import io.almanac.internal.TaskProtocol.FireOutcome;
import io.almanac.journal.TaskJournal.State;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit.CommandResultWithReply;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A fired window that may start at once, with a job slot its node's executor offers through the
 * {@link StartGate}, is scheduled and started in one journal write (issue 5: the persistence stack
 * costs per write, not per event) and handed to the executor as started; without a slot, or with
 * another window running, the two-step path stays (R20, R21).
 */
@ExtendWith(TestKitJUnit5Extension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StartOnFireTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private record Entity(EventSourcedBehaviorTestKit<Command, Event, State> kit, TestProbe<Executor.Command> executor,
                        StartGate gate) {}

  private Entity entity() {
    String id = "start-on-fire-" + IDS.incrementAndGet();
    TaskSpec spec = TaskSpec.builder(id).cron("0 0 8 * * ? Asia/Shanghai").job("digest").build();
    TestProbe<Executor.Command> executor = testKit.createTestProbe();
    StartGate gate = StartGate.closed();
    TaskEnv env = new TaskEnv(null, executor.getRef(), a -> { }, e -> true, 0, "node-1", gate);
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(testKit.system(),
        TaskEntity.create(id, new SettableClock(T0), TaskSettings.from(CONFIG), env));
    assertTrue(kit.<StatusReply<org.apache.pekko.Done>>runCommand(r -> new TaskProtocol.Define(spec, r)).reply().isSuccess());
    return new Entity(kit, executor, gate);
  }

  private static CommandResultWithReply<Command, Event, State, StatusReply<FireOutcome>> fire(Entity e, String date) {
    Instant start = Instant.parse(date + "T00:00:00Z").minus(Duration.ofHours(8));
    return e.kit().runCommand(r -> new TaskProtocol.Fire(WindowKey.of(date), start, start.plus(Duration.ofDays(1)),
        start.plus(Duration.ofHours(8)), FireKind.ON_TIME, r));
  }

  @Test
  @DisplayName("R21: with a slot offered, a fired window is scheduled and started in one write and handed over started")
  void startsWithTheFire() {
    Entity e = entity();
    e.gate().offer(1);
    var r = fire(e, "2026-11-29");
    assertTrue(r.reply().isSuccess());
    assertEquals(List.of(TaskJournal.InstanceScheduled.class, TaskJournal.AttemptStarted.class),
        r.events().stream().map(Object::getClass).toList(), "one write, both events");
    TaskJournal.AttemptStarted started = (TaskJournal.AttemptStarted) r.events().get(1);
    assertEquals(1, started.attempt());
    assertEquals("node-1", started.executor());
    Executor.RunStarted handed = e.executor().expectMessageClass(Executor.RunStarted.class);
    assertEquals("digest", handed.job());
    assertEquals(1, handed.grant().attempt());
    assertEquals(started.leaseUntil(), handed.grant().leaseUntil());
    assertEquals(InstanceStatus.RUNNING, r.state().windows().get("2026-11-29").status());
    assertFalse(e.gate().tryTake(), "the one slot was taken");
    // The attempt is started once (R21): a start request for it is refused.
    StatusReply<AttemptGrant> again = e.kit().<StatusReply<AttemptGrant>>runCommand(
        ref -> new TaskProtocol.StartAttempt(WindowKey.of("2026-11-29"), ref)).reply();
    assertTrue(again.isError());
    // Its result is recorded as for any attempt.
    var done = e.kit().<StatusReply<org.apache.pekko.Done>>runCommand(ref -> new TaskProtocol.FinishAttempt(
        WindowKey.of("2026-11-29"), 1, JobResult.success("ok"), Duration.ofSeconds(1), ref));
    assertTrue(done.reply().isSuccess());
    assertEquals(InstanceStatus.SUCCEEDED, done.state().windows().get("2026-11-29").status());
  }

  @Test
  @DisplayName("R21: without a slot the window is only scheduled and handed over PENDING, to be started by the executor")
  void noSlotNoStart() {
    Entity e = entity();
    var r = fire(e, "2026-11-29");
    assertEquals(List.of(TaskJournal.InstanceScheduled.class), r.events().stream().map(Object::getClass).toList());
    Executor.Run run = e.executor().expectMessageClass(Executor.Run.class);
    assertEquals("2026-11-29", run.window());
    assertEquals(InstanceStatus.PENDING, r.state().windows().get("2026-11-29").status());
  }

  @Test
  @DisplayName("R6: with another window still running, a slot is not taken; the overlap policy decides as before")
  void anotherWindowRunning() {
    Entity e = entity();
    e.gate().offer(2);
    fire(e, "2026-11-28");
    e.executor().expectMessageClass(Executor.RunStarted.class);
    var r = fire(e, "2026-11-29"); // overlap SKIP by default: the previous window is still RUNNING
    assertEquals(List.of(TaskJournal.FireSkipped.class), r.events().stream().map(Object::getClass).toList());
    assertTrue(e.gate().tryTake(), "the second slot is still offered");
  }

  @Test
  @DisplayName("StartGate: slots taken are in transit until they arrive; one whose write failed is forgotten after the timeout")
  void gateAccounting() {
    StartGate gate = StartGate.closed();
    assertFalse(gate.tryTake(), "nothing offered");
    gate.collect(T0, Duration.ofSeconds(10));
    gate.offer(3);
    assertTrue(gate.tryTake());
    assertTrue(gate.tryTake());
    assertEquals(2, gate.collect(T0, Duration.ofSeconds(10)), "two taken, none arrived");
    assertFalse(gate.tryTake(), "collect closes the offer");
    gate.arrived(T0.plusSeconds(1), Duration.ofSeconds(10));
    assertEquals(1, gate.collect(T0.plusSeconds(5), Duration.ofSeconds(10)));
    gate.offer(1);
    assertTrue(gate.tryTake());
    gate.arrived(T0.plusSeconds(6), Duration.ofSeconds(10)); // taken since the last collect: counted, then arrived
    assertEquals(1, gate.collect(T0.plusSeconds(6), Duration.ofSeconds(10)));
    // An arrival settles the oldest slot in transit: what is left is the slot taken at T0 + 6 s.
    assertEquals(1, gate.collect(T0.plusSeconds(16), Duration.ofSeconds(10)));
    assertEquals(0, gate.collect(T0.plusSeconds(17), Duration.ofSeconds(10)), "the one that never arrived is forgotten");
    gate.offer(-2);
    assertFalse(gate.tryTake(), "a negative offer offers nothing");
  }
}
