package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.JournalOperation;
import org.apache.pekko.persistence.testkit.ProcessingSuccess$;
import org.apache.pekko.persistence.testkit.WriteEvents;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The start protocol between a task entity and its node's executor, the one admission authority: a
 * fired window that may start at once is offered before its schedule is written; admitted, it is
 * scheduled and started in one journal write (the persistence stack costs per write, not per
 * event); queued or unanswered, it is scheduled alone and starts when admitted (R20, R21).
 */
@ExtendWith(TestKitJUnit5Extension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StartOnFireTest {

  static final Config CONFIG = ConfigFactory.parseString("almanac.task.offer-timeout = 300ms")
      .withFallback(EventSourcedBehaviorTestKit.config()).withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final Duration WAIT = Duration.ofSeconds(10);

  /** Every journal write (one batch of events per write), per persistence id. */
  private final List<String> writes = Collections.synchronizedList(new ArrayList<>());

  @BeforeAll
  void recordWrites() {
    PersistenceTestKit.create(testKit.system()).withPolicy((String pid, JournalOperation op) -> {
      if (op instanceof WriteEvents w) {
        writes.add(pid + " " + w.getBatch().stream().map(e -> e.getClass().getSimpleName()).toList());
      }
      return ProcessingSuccess$.MODULE$;
    });
  }

  private record Entity(String id, ActorRef<Command> ref, TestProbe<ExecutorProtocol.Command> executor, SettableClock clock) {
    List<String> writes(List<String> all) {
      String prefix = TaskJournal.persistenceId(id) + " ";
      return all.stream().filter(w -> w.startsWith(prefix)).map(w -> w.substring(prefix.length())).toList();
    }
  }

  private Entity entity() {
    String id = "start-on-fire-" + IDS.incrementAndGet();
    TaskSpec spec = TaskSpec.builder(id).cron("0 0 8 * * ? Asia/Shanghai").job("digest").build();
    TestProbe<ExecutorProtocol.Command> executor = testKit.createTestProbe();
    TaskEnv env = new TaskEnv(null, executor.getRef(), a -> { }, e -> true, 0);
    SettableClock clock = new SettableClock(T0);
    ActorRef<Command> ref = testKit.spawn(TaskEntity.create(id, clock, TaskSettings.from(CONFIG), env));
    executor.expectMessageClass(ExecutorProtocol.TaskRecovered.class);
    TestProbe<StatusReply<Done>> defined = testKit.createTestProbe();
    ref.tell(new TaskProtocol.Define(SpecRecord.of(spec), defined.getRef()));
    assertTrue(defined.receiveMessage(WAIT).isSuccess());
    return new Entity(id, ref, executor, clock);
  }

  private TestProbe<StatusReply<FireOutcome>> fire(Entity e, String date) {
    Instant start = Instant.parse(date + "T00:00:00Z").minus(Duration.ofHours(8));
    TestProbe<StatusReply<FireOutcome>> reply = testKit.createTestProbe();
    e.ref().tell(new TaskProtocol.Fire(WindowKey.of(date), start, start.plus(Duration.ofDays(1)),
        start.plus(Duration.ofHours(8)), FireKind.ON_TIME, reply.getRef()));
    return reply;
  }

  private static ExecutorProtocol.Offer offer(Entity e, String window) {
    ExecutorProtocol.Offer o = e.executor().expectMessageClass(ExecutorProtocol.Offer.class, WAIT);
    assertEquals(window, o.window());
    return o;
  }

  private WindowView window(Entity e, String window) {
    TestProbe<StatusReply<TaskProtocol.WindowList>> probe = testKit.createTestProbe();
    e.ref().tell(new TaskProtocol.GetWindow(WindowKey.of(window), probe.getRef()));
    return probe.receiveMessage(WAIT).getValue().windows().get(0);
  }

  @Test
  @DisplayName("R24/R21: a fire that first settles a dead attempt (its lease ended) and starts at once writes the "
      + "settlement and the one-row start together")
  void startsAfterSettlingADeadAttempt() {
    Entity e = entity();
    TestProbe<StatusReply<FireOutcome>> first = fire(e, "2026-11-29");
    offer(e, "2026-11-29").task().tell(new TaskProtocol.Admitted(WindowKey.of("2026-11-29"), "node-1",
        e.executor().getRef().narrow()));
    assertEquals(Decision.SCHEDULED, first.receiveMessage(WAIT).getValue().decision());
    e.executor().expectMessageClass(ExecutorProtocol.Started.class, WAIT);
    // the next day's fire finds the first attempt past its lease (its job never reported): timed out
    // first, then the new window starts, all in one write
    e.clock().set(T0.plus(Duration.ofDays(1)));
    TestProbe<StatusReply<FireOutcome>> second = fire(e, "2026-11-30");
    offer(e, "2026-11-30").task().tell(new TaskProtocol.Admitted(WindowKey.of("2026-11-30"), "node-1",
        e.executor().getRef().narrow()));
    assertEquals(Decision.SCHEDULED, second.receiveMessage(WAIT).getValue().decision());
    assertEquals("2026-11-29", e.executor().expectMessageClass(ExecutorProtocol.CancelAttempt.class, WAIT).window());
    e.executor().expectMessageClass(ExecutorProtocol.Started.class, WAIT);
    List<String> written = e.writes(writes);
    assertEquals("[AttemptTimedOut, InstanceFinalFailed, WindowStarted]", written.get(written.size() - 1));
    assertEquals(InstanceStatus.RUNNING, window(e, "2026-11-30").status());
    assertEquals(InstanceStatus.FINAL_FAILED, window(e, "2026-11-29").status());
  }

  @Test
  @DisplayName("R21: an admitted fire is scheduled and started in one write and handed to the executor started")
  void startsWithTheFire() {
    Entity e = entity();
    TestProbe<StatusReply<FireOutcome>> reply = fire(e, "2026-11-29");
    ExecutorProtocol.Offer o = offer(e, "2026-11-29");
    assertTrue(o.answerIfQueued());
    assertEquals(RunKind.FIRST, o.kind());
    reply.expectNoMessage(Duration.ofMillis(50)); // nothing is written before the executor answers
    o.task().tell(new TaskProtocol.Admitted(WindowKey.of("2026-11-29"), "node-1", e.executor().getRef().narrow()));
    assertEquals(Decision.SCHEDULED, reply.receiveMessage(WAIT).getValue().decision());
    ExecutorProtocol.Started started = e.executor().expectMessageClass(ExecutorProtocol.Started.class, WAIT);
    assertEquals("digest", started.job());
    assertEquals(1, started.grant().attempt());
    assertEquals(List.of("[SpecDefined]", "[WindowStarted]"), e.writes(writes),
        "one write, one row: the schedule and the start (principle 10)");
    WindowView w = window(e, "2026-11-29");
    assertEquals(InstanceStatus.RUNNING, w.status());
    assertEquals(started.grant().leaseUntil(), w.leaseUntil());

    // The attempt is started once (R21): a second admission is declined, and the slot freed.
    TestProbe<ExecutorProtocol.AdmissionAnswer> again = testKit.createTestProbe();
    e.ref().tell(new TaskProtocol.Admitted(WindowKey.of("2026-11-29"), "node-1", again.getRef()));
    assertInstanceOf(ExecutorProtocol.Declined.class, again.receiveMessage(WAIT));
    // Its result is recorded as for any attempt.
    TestProbe<StatusReply<Done>> done = testKit.createTestProbe();
    e.ref().tell(new TaskProtocol.FinishAttempt(WindowKey.of("2026-11-29"), 1, JobResult.success("ok"), Duration.ofSeconds(1),
        done.getRef()));
    assertTrue(done.receiveMessage(WAIT).isSuccess());
    assertEquals(InstanceStatus.SUCCEEDED, window(e, "2026-11-29").status());
  }

  @Test
  @DisplayName("R21: a queued fire is scheduled alone; the executor's later admission starts it (one start path)")
  void queuedThenAdmitted() {
    Entity e = entity();
    TestProbe<StatusReply<FireOutcome>> reply = fire(e, "2026-11-29");
    ExecutorProtocol.Offer o = offer(e, "2026-11-29");
    o.task().tell(new TaskProtocol.Queued(WindowKey.of("2026-11-29")));
    assertEquals(Decision.SCHEDULED, reply.receiveMessage(WAIT).getValue().decision());
    assertEquals(InstanceStatus.PENDING, window(e, "2026-11-29").status());
    e.executor().expectNoMessage(Duration.ofMillis(100)); // not offered twice: the executor holds it
    o.task().tell(new TaskProtocol.Admitted(WindowKey.of("2026-11-29"), "node-1", e.executor().getRef().narrow()));
    assertEquals(1, e.executor().expectMessageClass(ExecutorProtocol.Started.class, WAIT).grant().attempt());
    assertEquals(List.of("[SpecDefined]", "[InstanceScheduled]", "[AttemptStarted]"), e.writes(writes));
  }

  @Test
  @DisplayName("R21: an offer the executor never answers is written alone after almanac.task.offer-timeout")
  void unansweredOffer() {
    Entity e = entity();
    TestProbe<StatusReply<FireOutcome>> reply = fire(e, "2026-11-29");
    offer(e, "2026-11-29");
    assertEquals(Decision.SCHEDULED, reply.receiveMessage(WAIT).getValue().decision());
    assertEquals(InstanceStatus.PENDING, window(e, "2026-11-29").status());
  }

  @Test
  @DisplayName("R5: while a fire waits for the executor, a duplicate fire waits too, then is a duplicate")
  void commandsWaitWhileTheOfferIsOpen() {
    Entity e = entity();
    TestProbe<StatusReply<FireOutcome>> first = fire(e, "2026-11-29");
    ExecutorProtocol.Offer o = offer(e, "2026-11-29");
    TestProbe<StatusReply<FireOutcome>> second = fire(e, "2026-11-29");
    second.expectNoMessage(Duration.ofMillis(50));
    o.task().tell(new TaskProtocol.Admitted(WindowKey.of("2026-11-29"), "node-1", e.executor().getRef().narrow()));
    assertEquals(Decision.SCHEDULED, first.receiveMessage(WAIT).getValue().decision());
    assertEquals(Decision.DUPLICATE, second.receiveMessage(WAIT).getValue().decision());
    e.executor().expectMessageClass(ExecutorProtocol.Started.class, WAIT);
    e.executor().expectNoMessage(Duration.ofMillis(100));
  }

  @Test
  @DisplayName("R6: with another window still running, nothing is offered; the overlap policy decides as before")
  void anotherWindowRunning() {
    Entity e = entity();
    TestProbe<StatusReply<FireOutcome>> first = fire(e, "2026-11-28");
    offer(e, "2026-11-28").task().tell(
        new TaskProtocol.Admitted(WindowKey.of("2026-11-28"), "node-1", e.executor().getRef().narrow()));
    first.receiveMessage(WAIT);
    e.executor().expectMessageClass(ExecutorProtocol.Started.class, WAIT);
    TestProbe<StatusReply<FireOutcome>> second = fire(e, "2026-11-29"); // overlap SKIP by default
    assertEquals(Decision.SKIPPED, second.receiveMessage(WAIT).getValue().decision());
    e.executor().expectNoMessage(Duration.ofMillis(100));
  }
}
