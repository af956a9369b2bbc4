package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.InterruptCause;
import io.almanac.JobContext;
import io.almanac.JobResult;
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
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The executor's drain on {@link ManualTime}: running jobs are told the node stops; one that ends
 * within {@code shutdown-grace} reports its result as usual; one still running when the grace ends
 * is reported to its entity as interrupted (NODE_STOPPED, its attempt number) and cancelled, and the
 * drain answers once the entity acknowledged. Nothing is admitted meanwhile. The test plays the task
 * entities with probes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutorDrainTest {
  private static final Duration GRACE = Duration.ofSeconds(10);
  private static final Config CONFIG = ManualTime.config().withFallback(ConfigFactory.parseString(String.join("\n",
      "almanac.executor.shutdown-grace = " + GRACE.toSeconds() + "s",
      "almanac.executor.ask-timeout = 3s",
      "almanac.executor.check-interval = 1s")).withFallback(ConfigFactory.load()));
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private final ActorTestKit testKit = ActorTestKit.create(CONFIG);
  private final ManualTime time = ManualTime.get(testKit.system());

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  /** Offers {@code task}'s window "w" and starts attempt 1 of it with job {@code job}. */
  private static void start(ActorRef<ExecutorProtocol.Command> executor, String task, String job,
      TestProbe<TaskProtocol.Command> entity) {
    executor.tell(new ExecutorProtocol.Offer(task, "w", RunKind.FIRST, entity.getRef(), false));
    TaskProtocol.Admitted a = entity.expectMessageClass(TaskProtocol.Admitted.class);
    a.replyTo().tell(new ExecutorProtocol.Started(job, "UTC", new TaskProtocol.AttemptGrant(task, "w", 1, RunKind.FIRST,
        T0.plus(Duration.ofHours(1)), T0, T0, T0, Map.of(), List.of(), "test-executor")));
  }

  @Test
  @DisplayName("drain: running jobs are told; one that ends within the grace reports SUCCEEDED; one still running when the "
      + "grace ends is reported INTERRUPTED (NODE_STOPPED) and cancelled; nothing is admitted; the drain answers after")
  void drainWaitsTheGraceThenInterruptsWhatStillRuns() {
    SettableClock clock = new SettableClock(T0);
    AtomicReference<JobContext> shortCtx = new AtomicReference<>();
    AtomicReference<JobContext> longCtx = new AtomicReference<>();
    CompletableFuture<JobResult> shortResult = new CompletableFuture<>();
    JobRegistry jobs = new JobRegistry();
    jobs.register("short", ctx -> {
      shortCtx.set(ctx);
      return shortResult;
    });
    jobs.register("long", ctx -> {
      longCtx.set(ctx);
      ctx.log().info("page {} of 40 read", 12);
      return new CompletableFuture<>(); // runs past any grace
    });
    TestProbe<TaskProtocol.Command> shortTask = testKit.createTestProbe();
    TestProbe<TaskProtocol.Command> longTask = testKit.createTestProbe();
    TestProbe<TaskProtocol.Command> lateTask = testKit.createTestProbe();
    ActorRef<ExecutorProtocol.Command> executor = testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG),
        TaskSettings.from(CONFIG).maxReasonLength(), jobs,
        id -> id.equals("short-task") ? shortTask.getRef() : id.equals("long-task") ? longTask.getRef() : lateTask.getRef(),
        "test-executor"));
    start(executor, "short-task", "short", shortTask);
    start(executor, "long-task", "long", longTask);
    shortTask.awaitAssert(() -> {
      assertTrue(shortCtx.get() != null && longCtx.get() != null, "both jobs run");
      return null;
    });
    assertFalse(shortCtx.get().isStopping());
    longTask.expectMessageClass(TaskProtocol.ReportProgress.class); // its logged line, live: a view's hint

    TestProbe<Done> drained = testKit.createTestProbe();
    executor.tell(new ExecutorProtocol.Drain(drained.getRef()));
    drained.expectNoMessage(Duration.ofMillis(100));
    assertTrue(shortCtx.get().isStopping() && longCtx.get().isStopping(), "running jobs are told");
    assertTrue(longCtx.get().stopping().toCompletableFuture().isDone());
    assertFalse(longCtx.get().isCancelled(), "told, not cancelled");

    executor.tell(new ExecutorProtocol.Offer("late-task", "w", RunKind.FIRST, lateTask.getRef(), false));
    lateTask.expectNoMessage(Duration.ofMillis(100)); // not admitted: it stays PENDING in its entity

    time.timePasses(GRACE.minusSeconds(5));
    shortResult.complete(JobResult.success("done in the grace"));
    TaskProtocol.FinishAttempt finished = shortTask.expectMessageClass(TaskProtocol.FinishAttempt.class);
    assertEquals(JobResult.success("done in the grace"), finished.result());
    finished.replyTo().tell(StatusReply.ack());
    longTask.expectNoMessage(Duration.ofMillis(100));
    drained.expectNoMessage(Duration.ofMillis(50));

    time.timePasses(Duration.ofSeconds(5));
    TaskProtocol.InterruptAttempt interrupted = longTask.expectMessageClass(TaskProtocol.InterruptAttempt.class);
    assertEquals("w", interrupted.window().value());
    assertEquals(1, interrupted.attempt());
    assertEquals(InterruptCause.NODE_STOPPED, interrupted.cause());
    assertTrue(interrupted.detail().contains("shutdown-grace PT10S ended"), interrupted.detail());
    assertEquals(java.util.List.of("page 12 of 40 read"), interrupted.log().lines().stream()
        .map(io.almanac.journal.LogLine::text).toList(), "what the job logged so far goes with its interruption");
    longTask.awaitAssert(() -> {
      assertTrue(longCtx.get().isCancelled(), "cancelled as it is reported interrupted");
      return null;
    });
    drained.expectNoMessage(Duration.ofMillis(100)); // waits for the entity's answer
    interrupted.replyTo().tell(StatusReply.ack());
    drained.expectMessage(Done.getInstance());
    longTask.expectNoMessage(Duration.ofMillis(100)); // no result reported for the interrupted job
    lateTask.expectNoMessage(Duration.ofMillis(10));
  }

  @Test
  @DisplayName("drain: a job that ended has given its slot back, but the drain waits for its result's acknowledgement; "
      + "it is not interrupted when the grace ends")
  void drainWaitsForAPendingResult() {
    SettableClock clock = new SettableClock(T0);
    JobRegistry jobs = new JobRegistry();
    jobs.register("quick", ctx -> CompletableFuture.completedFuture(JobResult.success("done")));
    TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    ActorRef<ExecutorProtocol.Command> executor = testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG),
        TaskSettings.from(CONFIG).maxReasonLength(), jobs, id -> task.getRef(), "test-executor"));
    start(executor, "quick-task", "quick", task);
    TaskProtocol.FinishAttempt finished = task.expectMessageClass(TaskProtocol.FinishAttempt.class);
    TestProbe<ExecutorProtocol.Stats> stats = testKit.createTestProbe();
    executor.tell(new ExecutorProtocol.GetStats(stats.getRef()));
    assertEquals(0, stats.receiveMessage().running(), "its slot is free: the job ended");

    TestProbe<Done> drained = testKit.createTestProbe();
    executor.tell(new ExecutorProtocol.Drain(drained.getRef()));
    drained.expectNoMessage(Duration.ofMillis(100)); // its result is not acknowledged yet
    time.timePasses(Duration.ofSeconds(2)); // within the ask's timeout, past nothing else
    drained.expectNoMessage(Duration.ofMillis(100));
    finished.replyTo().tell(StatusReply.ack());
    drained.expectMessage(Done.getInstance());
    time.timePasses(GRACE);
    task.expectNoMessage(Duration.ofMillis(100)); // no interruption: its job ended and its result is recorded
  }
}
