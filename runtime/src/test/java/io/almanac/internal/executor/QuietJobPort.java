package io.almanac.internal.executor;

import io.almanac.JobResult;
import io.almanac.WindowView;
import io.almanac.internal.protocol.StepBounds;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.AttemptLog;
import io.almanac.journal.UsageRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A job port for tests of the job's side without an executor: its asks never answer, what it is
 * told goes nowhere, the lease is valid and steps have their default bounds. A test overrides what
 * it looks at.
 */
class QuietJobPort implements JobPort {

  @Override
  public Duration askTimeout() {
    return Duration.ofSeconds(1);
  }

  @Override
  public boolean leaseValid() {
    return true;
  }

  @Override
  public CompletionStage<Instant> heartbeat(AttemptItem item, int attempt) {
    return new CompletableFuture<>();
  }

  @Override
  public CompletionStage<TaskProtocol.EffectReply> recordEffect(AttemptItem item, int attempt, String key, String value,
      boolean intent, Duration wait) {
    return new CompletableFuture<>();
  }

  @Override
  public StepBounds stepBounds() {
    return StepBounds.DEFAULT;
  }

  @Override
  public CompletionStage<TaskProtocol.StepReply> recordStep(AttemptItem item, int attempt, String name, String type,
      String result, UsageRecord usage, Duration took, Duration wait) {
    return new CompletableFuture<>();
  }

  @Override
  public void stepUsed(AttemptItem item, int attempt, UsageRecord usage) {}

  @Override
  public void reportResult(AttemptItem item, int attempt, JobResult result, Duration took, List<String> replayedSteps,
      AttemptLog log) {}

  @Override
  public void jobEnded(AttemptItem item, int attempt, JobResult result, Duration took, List<String> replayedSteps,
      AttemptLog log) {}

  @Override
  public void live(AttemptItem item, int attempt, WindowView.Progress progress) {}

  @Override
  public void later(Duration delay, Runnable task) {}
}
