package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.JobResult;
import io.almanac.RefusedException;
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
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The executor reports a refused result once more as a failure naming the refusal, and gives up on
 * a refused refusal; the refusal is told by the entity's typed answer, not by the text of the
 * result (R22, R33). The test plays the task entity with a probe.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutorResultReportTest {
  private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "almanac.executor.report-retries = 3",
      "almanac.executor.ask-timeout = 1s",
      "almanac.executor.report-retry-delay = 50ms",
      "almanac.executor.check-interval = 50ms")).withFallback(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private TestProbe<TaskProtocol.Command> runOne(JobResult result) {
    SettableClock clock = new SettableClock(T0);
    TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    JobRegistry jobs = new JobRegistry();
    jobs.register("j", ctx -> CompletableFuture.completedFuture(result));
    ActorRef<ExecutorProtocol.Command> executor = testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG),
        TaskSettings.from(CONFIG).maxReasonLength(), jobs, id -> task.getRef(), "test-executor"));
    executor.tell(new ExecutorProtocol.Offer("t", "w", RunKind.FIRST, task.getRef(), false));
    TaskProtocol.Admitted a = task.expectMessageClass(TaskProtocol.Admitted.class);
    a.replyTo().tell(new ExecutorProtocol.Started("j", "UTC", new TaskProtocol.AttemptGrant("t", "w", 1, RunKind.FIRST,
        T0.plusSeconds(30), T0, T0, T0, Map.of(), List.of(), "test-executor")));
    return task;
  }

  @Test
  @DisplayName("R33: a refused result is recorded as a failure naming the refusal; a refused refusal is given up")
  void aRefusedResultIsReportedOnceAsARefusal() {
    TestProbe<TaskProtocol.Command> task = runOne(JobResult.success("s".repeat(50)));
    TaskProtocol.FinishAttempt first = task.expectMessageClass(TaskProtocol.FinishAttempt.class);
    first.replyTo().tell(StatusReply.error(new RefusedException(RefusedException.Reason.INVALID_ARGUMENT, "summary too long")));
    TaskProtocol.FinishAttempt second = task.expectMessageClass(TaskProtocol.FinishAttempt.class);
    assertEquals(JobResult.failure("result refused: summary too long"), second.result());
    second.replyTo().tell(StatusReply.error("refused again"));
    task.expectNoMessage(Duration.ofMillis(300));
  }

  @Test
  @DisplayName("R22: a job's own failure whose reason reads like a refusal is still reported as the job's result")
  void aJobsFailureThatReadsLikeARefusalIsTheJobsResult() {
    TestProbe<TaskProtocol.Command> task = runOne(JobResult.failure("result refused: by the job itself"));
    TaskProtocol.FinishAttempt first = task.expectMessageClass(TaskProtocol.FinishAttempt.class);
    first.replyTo().tell(StatusReply.error("reason too long"));
    TaskProtocol.FinishAttempt second = task.expectMessageClass(TaskProtocol.FinishAttempt.class);
    assertEquals(JobResult.failure("result refused: reason too long"), second.result());
    second.replyTo().tell(StatusReply.ack());
    task.expectNoMessage(Duration.ofMillis(300));
  }

  @Test
  @DisplayName("R22: a report without an answer is tried again")
  void anUnansweredReportIsTriedAgain() {
    TestProbe<TaskProtocol.Command> task = runOne(JobResult.success("ok"));
    TaskProtocol.FinishAttempt first = task.expectMessageClass(TaskProtocol.FinishAttempt.class);
    TaskProtocol.FinishAttempt again = task.expectMessageClass(TaskProtocol.FinishAttempt.class, Duration.ofSeconds(5));
    assertEquals(first.result(), again.result());
    again.replyTo().tell(StatusReply.ack());
  }
}
