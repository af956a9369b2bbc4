package io.almanac.internal.executor;

import io.almanac.AlmanacException;
import io.almanac.JobResult;
import io.almanac.WindowView;
import io.almanac.journal.AttemptLog;
import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorFence;
import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.pattern.StatusReply;

/**
 * The executor's {@link JobPort}: asks to the task entities, tells to the executor (both
 * thread-safe), and the fence's memory read. No actor context: a job's thread reaches neither the
 * executor's state nor its actor system. INTERNAL API.
 */
final class ExecutorJobPort implements JobPort {
  private final Function<String, RecipientRef<TaskProtocol.Command>> tasks;
  private final Duration askTimeout;
  private final Scheduler scheduler;
  private final ActorRef<ExecutorProtocol.Command> executor;
  private final ExecutorFence fence;
  private final io.almanac.internal.protocol.StepBounds stepBounds;
  private final scala.concurrent.ExecutionContext executionContext;

  ExecutorJobPort(Function<String, RecipientRef<TaskProtocol.Command>> tasks, Duration askTimeout, Scheduler scheduler,
      ActorRef<ExecutorProtocol.Command> executor, ExecutorFence fence, io.almanac.internal.protocol.StepBounds stepBounds,
      scala.concurrent.ExecutionContext executionContext) {
    this.stepBounds = stepBounds;
    this.executionContext = executionContext;
    this.tasks = tasks;
    this.askTimeout = askTimeout;
    this.scheduler = scheduler;
    this.executor = executor;
    this.fence = fence;
  }

  @Override
  public Duration askTimeout() {
    return askTimeout;
  }

  @Override
  public boolean leaseValid() {
    return fence.valid();
  }

  @Override
  public CompletionStage<Instant> heartbeat(AttemptItem item, int attempt) {
    WindowKey window = WindowKey.of(item.window());
    CompletionStage<StatusReply<TaskProtocol.LeaseGranted>> ask = Asks.ask(tasks.apply(item.taskId()),
        replyTo -> new TaskProtocol.Heartbeat(window, attempt, replyTo), askTimeout, scheduler);
    return ask.thenApply(reply -> {
      Instant deadline = valueOf(reply).leaseUntil();
      executor.tell(new Executor.Extended(item.key(), attempt, deadline));
      return deadline;
    });
  }

  @Override
  public CompletionStage<TaskProtocol.EffectReply> recordEffect(AttemptItem item, int attempt, String key, String value,
      boolean intent, Duration wait) {
    WindowKey window = WindowKey.of(item.window());
    CompletionStage<StatusReply<TaskProtocol.EffectReply>> ask = Asks.ask(tasks.apply(item.taskId()),
        replyTo -> new TaskProtocol.RecordEffect(window, attempt, key, value, intent, replyTo), wait, scheduler);
    return ask.thenApply(ExecutorJobPort::valueOf);
  }

  @Override
  public io.almanac.internal.protocol.StepBounds stepBounds() {
    return stepBounds;
  }

  @Override
  public CompletionStage<TaskProtocol.StepReply> recordStep(AttemptItem item, int attempt, String name, String type,
      String result, io.almanac.journal.UsageRecord usage, Duration took, Duration wait) {
    WindowKey window = WindowKey.of(item.window());
    CompletionStage<StatusReply<TaskProtocol.StepReply>> ask = Asks.ask(tasks.apply(item.taskId()),
        replyTo -> new TaskProtocol.RecordStep(window, attempt, name, type, result, usage, took, replyTo), wait, scheduler);
    return ask.thenApply(reply -> {
      if (reply.isError() && reply.getError() instanceof AlmanacException refusal) {
        throw new CompletionException(refusal); // a refusal as the task said it (its reason and field)
      }
      return valueOf(reply);
    });
  }

  @Override
  public void stepUsed(AttemptItem item, int attempt, io.almanac.journal.UsageRecord usage) {
    executor.tell(new Executor.StepUsed(item.key(), attempt, usage));
  }

  private static <T> T valueOf(StatusReply<T> reply) {
    if (reply.isError()) {
      throw new CompletionException(new AlmanacException(reply.getError().getMessage()));
    }
    return reply.getValue();
  }

  @Override
  public void reportResult(AttemptItem item, int attempt, JobResult result, Duration took,
      java.util.List<String> replayedSteps, AttemptLog log) {
    // the slot is given back now, as the job ended; the attempt is tracked until the task answers
    executor.tell(new Executor.JobReturned(item.taskId(), item.window(), attempt, result, took));
    CompletionStage<StatusReply<Done>> ask;
    try {
      ask = Asks.ask(tasks.apply(item.taskId()),
          replyTo -> new TaskProtocol.FinishAttempt(WindowKey.of(item.window()), attempt, result, took, replayedSteps,
              log, replyTo),
          askTimeout, scheduler);
    } catch (RuntimeException e) {
      ask = CompletableFuture.failedFuture(e);
    }
    ask.whenComplete((reply, error) -> executor.tell(new Executor.ReportDone(item.taskId(), item.window(), attempt, result,
        took, log, 1, ResultReports.Carries.JOB_RESULT, ResultReports.failureOf(reply, error), true, replayedSteps)));
  }

  @Override
  public void jobEnded(AttemptItem item, int attempt, JobResult result, Duration took,
      java.util.List<String> replayedSteps, AttemptLog log) {
    executor.tell(new Executor.JobDone(item.taskId(), item.window(), attempt, result, took, replayedSteps, log));
  }

  @Override
  public void live(AttemptItem item, int attempt, WindowView.Progress progress) {
    try {
      tasks.apply(item.taskId()).tell(new TaskProtocol.ReportProgress(WindowKey.of(item.window()), attempt, progress));
    } catch (RuntimeException e) {
      // a view's hint: never the job's failure
    }
  }

  @Override
  public void later(Duration delay, Runnable task) {
    try {
      scheduler.scheduleOnce(delay, task, executionContext);
    } catch (RuntimeException e) {
      // the node is stopping: a view's hint is dropped, never the job's failure
    }
  }
}
