package io.almanac.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.executor.Executor;
import io.almanac.internal.executor.ExecutorSettings;
import io.almanac.internal.executor.JobRegistry;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.AttemptGrant;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.internal.task.Reactions;
import io.almanac.internal.task.TaskEntity;
import io.almanac.internal.task.TaskEnv;
import io.almanac.internal.task.TaskSettings;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lease expiry (R23): the one rule ({@link LeaseExpiry}) as plain tests, then the one real path that
 * applies it, the entity's own lease timer, driven by Pekko's ManualTime (the entity's clock is set
 * alongside): nothing is sent to expire a lease.
 */
@ExtendWith(TestKitJUnit5Extension.class)
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseExpiryTest {

  static final Config CONFIG = ManualTime.config()
      .withFallback(EventSourcedBehaviorTestKit.config())
      // The journal's circuit breaker and replay timeout run on the scheduler, which ManualTime drives: a
      // timePasses(LEASE) that overtakes a persist in flight (a loaded machine) would time it out. Out of reach here.
      .withFallback(ConfigFactory.parseString("almanac.task { hot-windows = 20, max-backfill-windows = 10 }\n"
          + "pekko.persistence.journal-plugin-fallback { circuit-breaker.call-timeout = 100d, recovery-event-timeout = 100d }\n"
          + "pekko.persistence.snapshot-store-plugin-fallback.circuit-breaker.call-timeout = 100d\n"
          + "pekko.persistence.testkit.journal.circuit-breaker.call-timeout = 100d"))
      .withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final String DAY = "2026-11-29";
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration LEASE = Duration.ofMinutes(10);
  private static final LeasePolicy TEN_MINUTES = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(LEASE).factor(1.5).minSamples(20).build();

  private final SettableClock clock = new SettableClock(T0);

  // ---------------------------------------------------------------------------------------------
  // The rule

  private static WindowState running(Instant startedAt, Instant leaseUntil) {
    TaskJournal.InstanceScheduled scheduled = new TaskJournal.InstanceScheduled(DAY, T0, T0.plus(Duration.ofDays(1)), T0,
        RunKind.FIRST, startedAt);
    TaskJournal.AttemptStarted started = new TaskJournal.AttemptStarted(DAY, 1, RunKind.FIRST, leaseUntil, null, startedAt);
    State s = io.almanac.journal.Evolve.fold(State.empty(10), List.of(scheduled, started),
        new io.almanac.journal.HotState(100, Duration.ofDays(30)));
    return s.windows().get(DAY);
  }

  @Test
  @DisplayName("R23: a lease holds up to its end and is over at it")
  void leaseIsOverAtItsEnd() {
    Instant end = T0.plus(LEASE);
    assertFalse(LeaseExpiry.over(end, end.minusNanos(1)));
    assertTrue(LeaseExpiry.over(end, end));
    assertTrue(LeaseExpiry.over(end, end.plusSeconds(1)));
  }

  @Test
  @DisplayName("R23: an attempt timed out at its lease's end counts the whole lease as a duration sample")
  void timeOutAtTheLeaseEndIsADurationSample() {
    WindowState w = running(T0, T0.plus(LEASE));
    TaskJournal.AttemptTimedOut t = LeaseExpiry.timedOut(w, T0.plus(LEASE));
    assertEquals(LEASE, t.duration());
    assertEquals(T0.plus(LEASE), t.leaseUntil());
    assertTrue(LeaseExpiry.leaseEnded(t));
  }

  @Test
  @DisplayName("R24: an attempt timed out before its lease's end (its executor is gone) gives no duration sample")
  void timeOutBeforeTheLeaseEndHasNoSample() {
    WindowState w = running(T0, T0.plus(LEASE));
    TaskJournal.AttemptTimedOut t = LeaseExpiry.timedOut(w, T0.plus(Duration.ofMinutes(3)));
    assertNull(t.duration());
    assertFalse(LeaseExpiry.leaseEnded(t));
  }

  @Test
  @DisplayName("R23: the trigger's wake-up for a running window is its lease's end")
  void wakeUpOfARunningWindowIsItsLeaseEnd() {
    State s = io.almanac.journal.Evolve.fold(State.empty(10), List.of(
        new TaskJournal.InstanceScheduled(DAY, T0, T0.plus(Duration.ofDays(1)), T0, RunKind.FIRST, T0),
        new TaskJournal.AttemptStarted(DAY, 1, RunKind.FIRST, T0.plus(LEASE), null, T0)),
        new io.almanac.journal.HotState(100, Duration.ofDays(30)));
    assertEquals(LeaseExpiry.endsAt(s.windows().get(DAY)), Reactions.nextWake(s, Duration.ofDays(1)));
  }

  // ---------------------------------------------------------------------------------------------
  // The entity's timer

  private String newId() {
    return "lease-" + IDS.incrementAndGet();
  }

  private EventSourcedBehaviorTestKit<Command, Event, State> kit(TaskSpec spec) {
    clock.set(T0);
    EventSourcedBehaviorTestKit<Command, Event, State> kit = EventSourcedBehaviorTestKit.create(
        testKit.system(), TaskEntity.create(spec.id(), clock, TaskSettings.from(CONFIG)));
    assertTrue(kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.Define(SpecRecord.of(spec), ref)).reply().isSuccess());
    return kit;
  }

  private static TaskSpec.Builder daily(String id) {
    return TaskSpec.builder(id).cron("0 0 8 * * ? Asia/Shanghai").lease(TEN_MINUTES);
  }

  private static TaskProtocol.Fire fire(ActorRef<StatusReply<FireOutcome>> ref) {
    Instant start = Instant.parse(DAY + "T00:00:00Z").minus(Duration.ofHours(8));
    return new TaskProtocol.Fire(WindowKey.of(DAY), start, start.plus(Duration.ofDays(1)), start.plus(Duration.ofHours(8)),
        FireKind.ON_TIME, ref);
  }

  private static AttemptGrant start(EventSourcedBehaviorTestKit<Command, Event, State> kit) {
    ExecutorProtocol.AdmissionAnswer reply = kit.<ExecutorProtocol.AdmissionAnswer>runCommand(
        ref -> new TaskProtocol.Admitted(WindowKey.of(DAY), null, ref)).reply();
    return assertInstanceOf(ExecutorProtocol.Started.class, reply, () -> "start failed: " + reply).grant();
  }

  /** The entity's clock and the actor system's scheduler move on together. */
  private void passes(Duration d) {
    clock.advance(d);
    ManualTime.get(testKit.system()).timePasses(d);
  }

  private static List<Event> journal(EventSourcedBehaviorTestKit<Command, Event, State> kit, String taskId) {
    return kit.persistenceTestKit().persistedInStorage(TaskJournal.persistenceId(taskId)).stream()
        .map(Event.class::cast).toList();
  }

  private static WindowState window(EventSourcedBehaviorTestKit<Command, Event, State> kit) {
    return kit.getState().windows().get(DAY);
  }

  @Test
  @DisplayName("R23: the lease timer times the attempt out at its lease's end; the retry follows and the late result "
      + "is recorded without succeeding the window")
  void leaseTimerTimesOutTheAttemptAndTheRetryFollows() {
    String id = newId();
    var kit = kit(daily(id).retry(RetryPolicy.immediate()).build());
    kit.<StatusReply<FireOutcome>>runCommand(LeaseExpiryTest::fire);
    AttemptGrant g = start(kit);
    assertEquals(T0.plus(LEASE), g.leaseUntil());
    passes(LEASE.minusSeconds(1));
    assertEquals(InstanceStatus.RUNNING, window(kit).status(), "the lease still holds");
    passes(Duration.ofSeconds(1));
    assertEquals(InstanceStatus.PENDING, window(kit).status(), "immediate back-off: the retry is PENDING at once");
    List<Event> written = journal(kit, id);
    TaskJournal.AttemptTimedOut t = assertInstanceOf(TaskJournal.AttemptTimedOut.class, written.get(written.size() - 3));
    assertEquals(1, t.attempt());
    assertEquals(g.leaseUntil(), t.at());
    assertInstanceOf(TaskJournal.RetryScheduled.class, written.get(written.size() - 2));
    assertEquals(RunKind.RETRY, assertInstanceOf(TaskJournal.InstanceScheduled.class, written.get(written.size() - 1)).kind());

    var late = kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.FinishAttempt(WindowKey.of(DAY), 1,
        JobResult.success("finished after all"), Duration.ofMinutes(11), ref));
    assertInstanceOf(TaskJournal.LateResultRecorded.class, late.event());
    assertEquals(InstanceStatus.PENDING, window(kit).status());
    AttemptGrant second = start(kit);
    assertEquals(2, second.attempt());
    kit.<StatusReply<Done>>runCommand(ref -> new TaskProtocol.FinishAttempt(WindowKey.of(DAY), 2,
        JobResult.success("done"), Duration.ofMinutes(2), ref));
    assertEquals(InstanceStatus.SUCCEEDED, window(kit).status());
  }

  @Test
  @DisplayName("R23/R15: without retries the lease timer fails the window for good, and the lease counts as a duration sample")
  void leaseTimerFailsTheLastAttemptForGood() {
    String id = newId();
    var kit = kit(daily(id).build());
    kit.<StatusReply<FireOutcome>>runCommand(LeaseExpiryTest::fire);
    AttemptGrant g = start(kit);
    passes(LEASE);
    WindowState w = window(kit);
    assertEquals(InstanceStatus.FINAL_FAILED, w.status());
    assertTrue(w.reason().contains(LeaseExpiry.reason(g.leaseUntil())), w.reason());
    assertEquals(1, kit.getState().samples().count());
    assertEquals(LEASE, kit.getState().samples().p99().get());
    List<Event> written = journal(kit, id);
    assertInstanceOf(TaskJournal.AttemptTimedOut.class, written.get(written.size() - 2));
    assertInstanceOf(TaskJournal.InstanceFinalFailed.class, written.get(written.size() - 1));
  }

  @Test
  @DisplayName("R23: a heartbeat moves the lease timer to the extended lease's end")
  void heartbeatMovesTheLeaseTimer() {
    var kit = kit(daily(newId()).build());
    kit.<StatusReply<FireOutcome>>runCommand(LeaseExpiryTest::fire);
    start(kit);
    passes(Duration.ofMinutes(8));
    var hb = kit.<StatusReply<TaskProtocol.LeaseGranted>>runCommand(ref -> new TaskProtocol.Heartbeat(WindowKey.of(DAY), 1, ref));
    assertEquals(T0.plus(Duration.ofMinutes(18)), hb.reply().getValue().leaseUntil());
    passes(Duration.ofMinutes(9));
    assertEquals(InstanceStatus.RUNNING, window(kit).status(), "the old lease's end passed; the extended one holds");
    passes(Duration.ofMinutes(1));
    assertEquals(InstanceStatus.FINAL_FAILED, window(kit).status());
  }

  @Test
  @DisplayName("R23, principle 5: the lease timer is armed again on recovery (timers do not survive a restart)")
  void leaseTimerIsArmedAgainOnRecovery() {
    String id = newId();
    TaskSpec spec = daily(id).job("digest").build();
    clock.set(T0);
    TestProbe<ExecutorProtocol.Command> executor = testKit.createTestProbe();
    TaskEnv env = new TaskEnv(null, executor.getRef(), a -> { }, e -> true, 0);
    ActorRef<Command> entity = testKit.spawn(TaskEntity.create(id, clock, TaskSettings.from(CONFIG), env));
    executor.expectMessageClass(ExecutorProtocol.TaskRecovered.class, WAIT);
    TestProbe<StatusReply<Done>> done = testKit.createTestProbe();
    entity.tell(new TaskProtocol.Define(SpecRecord.of(spec), done.getRef()));
    assertTrue(done.receiveMessage(WAIT).isSuccess());
    TestProbe<StatusReply<FireOutcome>> fired = testKit.createTestProbe();
    entity.tell(fire(fired.getRef()));
    ExecutorProtocol.Offer offer = executor.expectMessageClass(ExecutorProtocol.Offer.class, WAIT);
    offer.task().tell(new TaskProtocol.Admitted(WindowKey.of(DAY), "node-1", executor.getRef().narrow()));
    assertTrue(fired.receiveMessage(WAIT).isSuccess());
    executor.expectMessageClass(ExecutorProtocol.Started.class, WAIT);

    testKit.stop(entity);
    passes(Duration.ofMinutes(5));
    ActorRef<Command> again = testKit.spawn(TaskEntity.create(id, clock, TaskSettings.from(CONFIG), env));
    executor.expectMessageClass(ExecutorProtocol.TaskRecovered.class, WAIT);
    TestProbe<StatusReply<TaskProtocol.WindowList>> windows = testKit.createTestProbe();
    // two queries: the second is handled after the recovery's own settling (which arms the timers)
    for (int i = 0; i < 2; i++) {
      again.tell(new TaskProtocol.GetWindow(WindowKey.of(DAY), windows.getRef()));
      assertEquals(InstanceStatus.RUNNING, windows.receiveMessage(WAIT).getValue().windows().get(0).status());
    }

    passes(Duration.ofMinutes(5));
    ExecutorProtocol.CancelAttempt cancel = executor.expectMessageClass(ExecutorProtocol.CancelAttempt.class, WAIT);
    assertEquals(DAY, cancel.window());
    assertEquals(LeaseExpiry.reason(T0.plus(LEASE)), cancel.reason());
    again.tell(new TaskProtocol.GetWindow(WindowKey.of(DAY), windows.getRef()));
    assertEquals(InstanceStatus.FINAL_FAILED, windows.receiveMessage(WAIT).getValue().windows().get(0).status());
  }

  @Test
  @DisplayName("R23: at the lease's end the node's executor cancels the job and the entity's timer times the attempt out, "
      + "at the same instant by the same rule; the cancelled job's report cannot fail or succeed the window")
  void executorCancelsAndEntityTimesOutAtTheLeaseEnd() throws Exception {
    String id = newId();
    TaskSpec spec = daily(id).job("digest").build();
    clock.set(T0);
    java.util.concurrent.CompletableFuture<io.almanac.JobContext> job = new java.util.concurrent.CompletableFuture<>();
    JobRegistry jobs = new JobRegistry();
    jobs.register("digest", ctx -> {
      job.complete(ctx);
      return new java.util.concurrent.CompletableFuture<>(); // runs until cancelled
    });
    java.util.concurrent.atomic.AtomicReference<ActorRef<Command>> entity = new java.util.concurrent.atomic.AtomicReference<>();
    ActorRef<ExecutorProtocol.Command> executor = testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG),
        TaskSettings.from(CONFIG).maxReasonLength(), jobs, taskId -> entity.get(), "node-1"));
    TaskEnv env = new TaskEnv(null, executor, a -> { }, e -> true, 0);
    entity.set(testKit.spawn(TaskEntity.create(id, clock, TaskSettings.from(CONFIG), env)));
    TestProbe<StatusReply<Done>> done = testKit.createTestProbe();
    entity.get().tell(new TaskProtocol.Define(SpecRecord.of(spec), done.getRef()));
    assertTrue(done.receiveMessage(WAIT).isSuccess());
    TestProbe<StatusReply<FireOutcome>> fired = testKit.createTestProbe();
    entity.get().tell(fire(fired.getRef()));
    assertTrue(fired.receiveMessage(WAIT).isSuccess());
    io.almanac.JobContext running = job.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(T0.plus(LEASE), running.deadline());

    clock.set(T0.plus(LEASE));
    ManualTime.get(testKit.system()).timePasses(LEASE); // the executor's checks and the entity's lease timer
    running.cancellation().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
    TestProbe<StatusReply<TaskProtocol.WindowList>> windows = testKit.createTestProbe();
    windows.awaitAssert(WAIT, () -> {
      entity.get().tell(new TaskProtocol.GetWindow(WindowKey.of(DAY), windows.getRef()));
      assertEquals(InstanceStatus.FINAL_FAILED, windows.receiveMessage(WAIT).getValue().windows().get(0).status());
      return null;
    });
    List<Event> written = org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit.create(testKit.system())
        .persistedInStorage(TaskJournal.persistenceId(id)).stream().map(Event.class::cast).toList();
    List<TaskJournal.AttemptTimedOut> timeOuts = written.stream().filter(TaskJournal.AttemptTimedOut.class::isInstance)
        .map(TaskJournal.AttemptTimedOut.class::cast).toList();
    assertEquals(1, timeOuts.size(), written::toString);
    assertEquals(T0.plus(LEASE), timeOuts.get(0).at());
    assertTrue(written.stream().noneMatch(e -> e instanceof TaskJournal.AttemptFailed || e instanceof TaskJournal.AttemptSucceeded),
        written::toString);
    testKit.stop(executor);
  }
}
