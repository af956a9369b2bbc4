package io.almanac.internal.executor;

import io.almanac.AgentJob;
import io.almanac.JobResult;
import io.almanac.internal.meter.AttemptMdc;
import io.almanac.journal.AttemptLog;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One attempt's job, run on a thread of the executor's own: it calls the job, and reports its
 * result through the {@link JobPort} (the job's own thread reports a result that ends in its slot;
 * any other end goes to the executor, which decides). Holds no actor. INTERNAL API.
 */
final class JobRun implements Runnable {
  private final RunningAttempt r;
  private final AgentJob job;
  private final JobContextImpl context;
  private final JobPort port;
  private final Clock clock;
  private final int maxReasonLength;

  /**
   * @param r the attempt
   * @param job the job, or null when none of the attempt's name is registered here
   * @param context what the job is given
   * @param port the job's way back to its task and the executor
   * @param clock how long it took is measured on it
   * @param maxReasonLength a failure's reason made of an exception's message is shortened to this
   */
  JobRun(RunningAttempt r, AgentJob job, JobContextImpl context, JobPort port, Clock clock, int maxReasonLength) {
    this.r = r;
    this.job = job;
    this.context = context;
    this.port = port;
    this.clock = clock;
    this.maxReasonLength = maxReasonLength;
  }

  /**
   * Threads of the executor's own, made as needed: at most max-concurrent run jobs that hold a slot,
   * plus one per cancelled job that has not returned (stuck), which a fixed pool would run out of.
   */
  static ThreadPoolExecutor threads(String namePrefix) {
    AtomicInteger threadNo = new AtomicInteger();
    return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, namePrefix + threadNo.incrementAndGet());
      t.setDaemon(true); // a stuck job never keeps the JVM from exiting
      return t;
    });
  }

  @Override
  public void run() {
    AttemptItem item = r.item;
    int attempt = r.attempt;
    CompletionStage<JobResult> stage;
    r.enter();
    io.almanac.internal.trace.AttemptTrace trace = r.trace;
    // the job's own log lines, on the thread that runs it, carry the task, window and attempt; its
    // code sees the attempt's span as the current context (null without tracing: nothing is made current)
    try (AttemptMdc mdc = AttemptMdc.of(item.taskId(), item.window(), attempt);
        io.opentelemetry.context.Scope scope = trace == null ? null : trace.context().makeCurrent()) {
      stage = job == null
          ? CompletableFuture.completedFuture(JobResult.failure(
              "no job named '" + item.job() + "' is registered on this node for task '" + item.taskId() + "'"))
          : job.run(context);
      if (stage == null) {
        stage = CompletableFuture.completedFuture(JobResult.failure("the job returned null instead of a CompletionStage"));
      }
    } catch (Throwable t) {
      stage = CompletableFuture.failedFuture(t);
    } finally {
      r.leave(null);
      Thread.interrupted(); // never hand an interrupted thread back to the pool
    }
    r.leave(stage);
    if (r.cancelled.isDone()) {
      stage.toCompletableFuture().cancel(true);
    }
    stage.whenComplete((result, error) -> {
      boolean cancelled = r.cancelled.isDone();
      JobResult outcome = outcome(result, error, cancelled, maxReasonLength);
      // the failure's stack trace: what the job threw or its stage failed with (not a cancel's)
      Throwable thrown = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      AttemptLog log = context.end(cancelled || thrown instanceof java.util.concurrent.CancellationException ? null : thrown);
      Duration took = Duration.between(r.startedAt, clock.instant());
      r.took = took;
      java.util.List<String> replayed = context.replayedSteps();
      if (trace != null) {
        trace.end(outcome, cancelled); // nothing when its executor ended it first (a cancel, with its cause)
      }
      if (r.inSlot && !r.fenced && port.leaseValid()) {
        // The common end: the job's thread tells the executor the job ended (its slot is free at
        // once) and reports its result to its task itself; the answer goes to the executor.
        port.reportResult(item, attempt, outcome, took, replayed, log);
      } else {
        port.jobEnded(item, attempt, outcome, took, replayed, log); // cancelled, fenced or suspect: the actor decides
      }
    });
  }

  /** The job's result, or a failure made of how its stage ended without one. */
  static JobResult outcome(JobResult result, Throwable error, boolean cancelled, int maxReasonLength) {
    if (error == null && result != null) {
      return result;
    }
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    String reason;
    if (cancelled) {
      reason = "cancelled";
    } else if (cause == null) {
      reason = "the job completed without a result";
    } else {
      reason = cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
    if (reason.length() > maxReasonLength) {
      // An exception message is not the job's chosen result: shorten it visibly rather than lose the failure.
      String marker = " ...[shortened from " + reason.length() + " characters]";
      reason = reason.substring(0, Math.max(0, maxReasonLength - marker.length())) + marker;
    }
    return JobResult.failure(reason);
  }
}
