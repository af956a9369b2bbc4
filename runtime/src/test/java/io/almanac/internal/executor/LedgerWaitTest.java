package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.EffectOutcomeUnknownException;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.RunKind;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.task.TaskSettings;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The effect ledger under a slow journal (R19, R23): a ledger write waits for its task as long as the
 * attempt holds its lease, not a fixed ask timeout; one that gets no answer before the lease ends
 * fails typed (an intent's with {@link io.almanac.LeaseLostException}: the effect was not run; a
 * value's with {@link EffectOutcomeUnknownException}: it ran), and the attempt
 * ends as its lease's matter (cancelled, timed out by its task), not with the job's failure. The test
 * plays the task entity with a probe that holds its answers; the node's clock is a settable one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LedgerWaitTest {
  /** Short, so that a write bounded by it would give up during the test's hold. */
  private static final Duration ASK = Duration.ofSeconds(1);
  private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "almanac.executor.ask-timeout = " + ASK.toMillis() + "ms",
      "almanac.executor.report-retry-delay = 50ms",
      "almanac.executor.check-interval = 50ms")).withFallback(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final Instant LEASE_UNTIL = T0.plusSeconds(60);
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  /** One attempt of a job that makes effect {@code push} through the ledger; what its {@code once} ended with is kept. */
  private final class Attempt {
    final SettableClock clock = new SettableClock(T0);
    final TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    final AtomicInteger effects = new AtomicInteger();
    final CompletableFuture<Throwable> onceFailed = new CompletableFuture<>();

    Attempt() {
      this(LEASE_UNTIL, false);
    }

    /**
     * @param leaseUntil the lease the attempt is granted
     * @param heartbeatAfterWrite whether the job sends a heartbeat (not awaited) right after its {@code once} sent its
     *     first write (after, not before: a heartbeat answered before the write would give the write the new lease
     *     at once, as it did once on a loaded machine, and nothing would be asked again)
     */
    Attempt(Instant leaseUntil, boolean heartbeatAfterWrite) {
      JobRegistry jobs = new JobRegistry();
      jobs.register("j", ctx -> {
        CompletionStage<JobResult> result = once(ctx);
        if (heartbeatAfterWrite) {
          ctx.heartbeat();
        }
        return result;
      });
      ActorRef<ExecutorProtocol.Command> executor = testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG),
          TaskSettings.from(CONFIG).maxReasonLength(), jobs, id -> task.getRef(), "ledger-executor"));
      executor.tell(new ExecutorProtocol.Offer("t", "w", RunKind.FIRST, task.getRef(), false));
      TaskProtocol.Admitted a = task.expectMessageClass(TaskProtocol.Admitted.class, PATIENCE);
      a.replyTo().tell(new ExecutorProtocol.Started("j", "UTC", new TaskProtocol.AttemptGrant("t", "w", 1, RunKind.FIRST,
          leaseUntil, T0, T0, T0, Map.of(), List.of(), "ledger-executor")));
    }

    private CompletionStage<JobResult> once(io.almanac.JobContext ctx) {
      return ctx.ledger().once("push", () -> {
        effects.incrementAndGet();
        return CompletableFuture.completedFuture("m1");
      }).handle((value, error) -> {
        if (error != null) {
          onceFailed.complete(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
          throw error instanceof CompletionException c ? c : new CompletionException(error);
        }
        return JobResult.success("sent " + value);
      });
    }

    TaskProtocol.RecordEffect write() {
      return task.expectMessageClass(TaskProtocol.RecordEffect.class, PATIENCE);
    }

    /** Holds a write unanswered for three ask timeouts: nothing else may come meanwhile (no result, no other write). */
    void hold() {
      task.expectNoMessage(ASK.multipliedBy(3));
    }
  }

  @Test
  @DisplayName("R19: a ledger write answered after several ask timeouts, within the lease, counts: the effect runs once "
      + "and the attempt succeeds")
  void aLateAnswerWithinTheLeaseCounts() throws Exception {
    Attempt a = new Attempt();
    TaskProtocol.RecordEffect intent = a.write();
    assertTrue(intent.intent());
    a.hold(); // before: the ask gave up after 1 s and the job failed with a TimeoutException
    intent.replyTo().tell(StatusReply.success(new TaskProtocol.EffectReply(true, null, true)));
    TaskProtocol.RecordEffect value = a.write();
    assertEquals("m1", value.value());
    a.hold();
    value.replyTo().tell(StatusReply.success(new TaskProtocol.EffectReply(true, "m1", false)));
    TaskProtocol.FinishAttempt finish = a.task.expectMessageClass(TaskProtocol.FinishAttempt.class, PATIENCE);
    assertEquals(JobResult.success("sent m1"), finish.result());
    assertEquals(1, a.effects.get());
    assertTrue(!a.onceFailed.isDone());
  }

  @Test
  @DisplayName("R19/R23: an intent without an answer until the lease ends: LeaseLostException saying the effect was not "
      + "run and must not be made by this attempt (not EffectOutcomeUnknownException, which a job answers by checking "
      + "downstream and making the effect itself: outside the ledger, so its retry made it again), the effect not run, and "
      + "the attempt ends cancelled by its lease (not with the job's failure)")
  void anUnansweredIntentIsTypedAndEndsWithTheLease() throws Exception {
    Attempt a = new Attempt();
    TaskProtocol.RecordEffect intent = a.write();
    a.hold();
    a.clock.set(LEASE_UNTIL.plusSeconds(1)); // the lease ends: the executor's check cancels the attempt
    Throwable failed = a.onceFailed.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    io.almanac.LeaseLostException lost = assertInstanceOf(io.almanac.LeaseLostException.class, failed);
    assertTrue(lost.getMessage().contains("effect 'push'") && lost.getMessage().contains("no answer")
        && lost.getMessage().contains("was not run and must not be made by this attempt"), lost.getMessage());
    assertEquals(0, a.effects.get());
    TaskProtocol.FinishAttempt finish = a.task.expectMessageClass(TaskProtocol.FinishAttempt.class, PATIENCE);
    assertEquals(JobResult.failure("cancelled"), finish.result(), "the lease's end, not a job failure of its own");
    intent.replyTo().tell(StatusReply.success(new TaskProtocol.EffectReply(true, null, true))); // too late: nothing runs
    a.task.expectNoMessage(Duration.ofMillis(300));
    assertEquals(0, a.effects.get());
  }

  @Test
  @DisplayName("R19/R23: an effect's value without an answer until the lease ends: EffectOutcomeUnknownException saying "
      + "the effect ran, and the effect not run again")
  void anUnansweredValueIsTypedAndSaysTheEffectRan() throws Exception {
    Attempt a = new Attempt();
    a.write().replyTo().tell(StatusReply.success(new TaskProtocol.EffectReply(true, null, true)));
    a.write(); // the value, never answered
    a.clock.set(LEASE_UNTIL.plusSeconds(1));
    EffectOutcomeUnknownException unknown = assertInstanceOf(EffectOutcomeUnknownException.class,
        a.onceFailed.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
    assertTrue(unknown.getMessage().contains("effect 'push' ran, but the record of its value"), unknown.getMessage());
    assertEquals(1, a.effects.get());
    assertEquals(JobResult.failure("cancelled"),
        a.task.expectMessageClass(TaskProtocol.FinishAttempt.class, PATIENCE).result());
  }

  @Test
  @DisplayName("R19/R23: a write that got no answer while a heartbeat extended the lease is asked again for the new "
      + "lease (the same write twice is safe), and the attempt succeeds")
  void aWriteOutlivesItsFirstLeaseWhenAHeartbeatExtendsIt() throws Exception {
    // the first wait: 5 s of lease plus the 1 s ask timeout, time enough for the heartbeat's answer to land first
    Attempt a = new Attempt(T0.plusSeconds(5), true);
    TaskProtocol.RecordEffect intent = null;
    for (int i = 0; i < 2; i++) {
      TaskProtocol.Command m = a.task.receiveMessage(PATIENCE);
      if (m instanceof TaskProtocol.Heartbeat h) {
        h.replyTo().tell(StatusReply.success(new TaskProtocol.LeaseGranted(LEASE_UNTIL)));
      } else {
        intent = assertInstanceOf(TaskProtocol.RecordEffect.class, m);
      }
    }
    assertTrue(intent != null && intent.intent());
    TaskProtocol.RecordEffect again = a.write(); // the first ask gave up; the lease is the heartbeat's now
    assertTrue(again.intent());
    again.replyTo().tell(StatusReply.success(new TaskProtocol.EffectReply(true, null, true)));
    a.write().replyTo().tell(StatusReply.success(new TaskProtocol.EffectReply(true, "m1", false)));
    assertEquals(JobResult.success("sent m1"), a.task.expectMessageClass(TaskProtocol.FinishAttempt.class, PATIENCE).result());
    assertEquals(1, a.effects.get());
    assertTrue(!a.onceFailed.isDone());
  }

  @Test
  @DisplayName("R19: a ledger write waits the lease's remaining time plus the ask timeout; only the ask timeout once the "
      + "lease ended; at most the longest lease plus it")
  void theWaitIsBoundedByTheLease() {
    SettableClock clock = new SettableClock(T0);
    RunningAttempt r = new RunningAttempt(new AttemptItem("t", "w", "j", RunKind.FIRST, "UTC"), 1, T0, LEASE_UNTIL);
    JobContextImpl ctx = new JobContextImpl(new SilentPort(), r, new TaskProtocol.AttemptGrant("t", "w", 1,
        RunKind.FIRST, LEASE_UNTIL, T0, T0, T0, Map.of(), List.of(), "e"), "UTC", clock);
    assertEquals(Duration.ofSeconds(60).plus(ASK), ctx.ledgerWait());
    clock.set(T0.plusSeconds(45));
    assertEquals(Duration.ofSeconds(15).plus(ASK), ctx.ledgerWait());
    clock.set(LEASE_UNTIL.plusSeconds(5));
    assertEquals(ASK, ctx.ledgerWait());
    r.deadline = Instant.MAX;
    assertEquals(LeasePolicy.MAX_CEILING.plus(ASK), ctx.ledgerWait());
  }

  /** A port whose asks never answer: only the wait's arithmetic is looked at. */
  private static final class SilentPort extends QuietJobPort {
    @Override
    public Duration askTimeout() {
      return ASK;
    }
  }
}
