package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.LeaseLostException;
import io.almanac.RefusedException;
import io.almanac.RunKind;
import io.almanac.StepResultTooLargeException;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.StepBounds;
import io.almanac.journal.UsageRecord;
import io.almanac.journal.WindowState;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The job's side of a durable step ({@link JobContextImpl#step}), on a port that records what is
 * asked: a replay sends nothing, a result over the bound is refused before anything is sent, a stale
 * attempt's refusal ends the attempt, and the replays are told with the result.
 */
class StepContextTest {

  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  /** Records the steps asked; answers each as the test says. */
  private static final class RecordingPort extends QuietJobPort {
    final List<String> asked = new CopyOnWriteArrayList<>();
    final List<UsageRecord> used = new CopyOnWriteArrayList<>();
    volatile Throwable refusal;

    @Override
    public StepBounds stepBounds() {
      return new StepBounds(50, 10, 20);
    }

    @Override
    public CompletionStage<TaskProtocol.StepReply> recordStep(AttemptItem item, int attempt, String name, String type,
        String result, UsageRecord usage, Duration took, Duration wait) {
      asked.add(name + "=" + result);
      return refusal != null ? CompletableFuture.failedFuture(new CompletionException(refusal))
          : CompletableFuture.completedFuture(new TaskProtocol.StepReply(true, result));
    }

    @Override
    public void stepUsed(AttemptItem item, int attempt, UsageRecord usage) {
      used.add(usage);
    }
  }

  private static JobContextImpl context(RecordingPort port, Map<String, WindowState.RecordedStep> recorded) {
    RunningAttempt r = new RunningAttempt(new AttemptItem("t", "w", "j", RunKind.RETRY, "UTC"), 2, T0, T0.plusSeconds(60));
    return new JobContextImpl(port, r, new TaskProtocol.AttemptGrant("t", "w", 2, RunKind.RETRY, T0.plusSeconds(60), T0,
        T0, T0, Map.of(), List.of(), "e", recorded), "UTC", new SettableClock(T0));
  }

  private static <T> T join(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
  }

  private static Throwable failure(CompletionStage<?> s) {
    try {
      join(s);
    } catch (CompletionException e) {
      return e.getCause();
    }
    throw new AssertionError("the stage did not fail");
  }

  @Test
  @DisplayName("a recorded step is replayed without its body and without a message; a new one is recorded with its "
      + "usage (told to the executor once); the replayed names are kept for the result")
  void replayAndRecord() {
    RecordingPort port = new RecordingPort();
    JobContextImpl ctx = context(port, Map.of("gather", new WindowState.RecordedStep(1, "java.lang.Integer", "7", null,
        Duration.ofSeconds(1), T0)));
    AtomicInteger bodies = new AtomicInteger();
    assertEquals(7, join(ctx.step("gather", Integer.class, () -> {
      bodies.incrementAndGet();
      return CompletableFuture.completedFuture(8);
    })));
    assertEquals(0, bodies.get());
    assertEquals("ok", join(ctx.step("draft", String.class, () -> CompletableFuture.completedFuture("ok"),
        v -> io.almanac.Usage.ofMicros("m", 1, 2, 3))));
    assertEquals(List.of("draft=\"ok\""), port.asked, "only the new step was sent");
    assertEquals(List.of(new UsageRecord("m", 1, 2, 3)), port.used);
    assertEquals(List.of("gather"), ctx.replayedSteps());
  }

  @Test
  @DisplayName("a result over the bound fails with StepResultTooLargeException before anything is sent; a body that "
      + "throws sends nothing")
  void refusedBeforeSending() {
    RecordingPort port = new RecordingPort();
    JobContextImpl ctx = context(port, Map.of());
    StepResultTooLargeException big = assertInstanceOf(StepResultTooLargeException.class,
        failure(ctx.step("big", String.class, () -> CompletableFuture.completedFuture("x".repeat(60)))));
    assertEquals(62, big.size());
    assertEquals(50, big.limit());
    IllegalStateException boom = new IllegalStateException("boom");
    assertEquals(boom, failure(ctx.step("throws", String.class, () -> {
      throw boom;
    })));
    assertEquals(List.of(), port.asked);
  }

  @Test
  @DisplayName("the task's STALE_ATTEMPT refusal ends the attempt: LeaseLostException naming the step")
  void staleAttempt() {
    RecordingPort port = new RecordingPort();
    port.refusal = new RefusedException(RefusedException.Reason.STALE_ATTEMPT, "attempt 2 of window 'w' does not hold it");
    JobContextImpl ctx = context(port, Map.of());
    LeaseLostException lost = assertInstanceOf(LeaseLostException.class,
        failure(ctx.step("draft", String.class, () -> CompletableFuture.completedFuture("ok"))));
    assertTrue(lost.getMessage().contains("step 'draft' ran but was not recorded"), lost.getMessage());
  }
}
