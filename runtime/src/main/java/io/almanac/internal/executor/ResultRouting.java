package io.almanac.internal.executor;

import io.almanac.JobResult;
import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorFence;
import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.AttemptLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.pattern.StatusReply;

/**
 * Where the results of the executor's jobs go: a result the executor reports itself (a late one, or
 * one that came while the lease was suspect) is reported to its task until acknowledged, refused
 * reports are reported as the refusal, failed ones are tried again (see {@link ResultReports}), and
 * the results that came while the lease was suspect wait for the renewal's answer. It counts the
 * reports on their way, which bound the results pending ({@code max-pending-results}) and hold the
 * drain.
 *
 * <p>Not an actor: the executor's helper, called only from the actor's thread.
 *
 * INTERNAL API.
 */
final class ResultRouting {

  /** A report that failed is tried again. */
  record RetryReport(String taskId, String window, int attempt, JobResult result, Duration took, AttemptLog log,
      int tries, ResultReports.Carries carries, List<String> replayedSteps) implements ExecutorProtocol.Internal {}

  private final ActorContext<ExecutorProtocol.Command> ctx;
  private final ExecutorSettings settings;
  private final int maxReasonLength;
  private final Function<String, RecipientRef<TaskProtocol.Command>> tasks;
  private final ExecutorFence fence;
  private final FenceHold hold;
  private final ExecutorHost host;
  /** Results that came while the lease was suspect (a renewal on its way): reported if it is renewed, dropped if lost. */
  private final List<Executor.JobDone> heldBack = new ArrayList<>();
  /** Reports on their way to their task (the executor's own, and the direct ones whose answer came). */
  private int reporting;

  ResultRouting(ActorContext<ExecutorProtocol.Command> ctx, ExecutorSettings settings, int maxReasonLength,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks, ExecutorFence fence, FenceHold hold, ExecutorHost host) {
    this.ctx = ctx;
    this.settings = settings;
    this.maxReasonLength = maxReasonLength;
    this.tasks = tasks;
    this.fence = fence;
    this.hold = hold;
    this.host = host;
  }

  /** @return the results reported by the executor and not acknowledged yet, and those held back */
  int pending() {
    return reporting + heldBack.size();
  }

  /** @return whether no report is on its way and no result held back (the drain waits for them) */
  boolean settled() {
    return reporting == 0 && heldBack.isEmpty();
  }

  /**
   * Reports a result, unless the lease is suspect now (a pause was seen and its renewal is on its
   * way): then it waits for the renewal's answer, reported if the lease is still ours, dropped if not.
   */
  void deliver(Executor.JobDone m) {
    if (hold.suspect(fence.valid())) {
      heldBack.add(m);
      return;
    }
    reportResult(m);
  }

  /** The lease was renewed: the results held back meanwhile are reported now. */
  void renewed(String id) {
    if (!heldBack.isEmpty()) {
      ctx.getLog().info("executor {}: lease renewed; reporting the {} results that came while it was suspect", id,
          heldBack.size());
      List<Executor.JobDone> results = new ArrayList<>(heldBack);
      heldBack.clear();
      results.forEach(this::reportResult);
    }
  }

  /** The lease of identity {@code was} was lost: the results held back are not reported. */
  void lost(String was) {
    if (!heldBack.isEmpty()) {
      ctx.getLog().warn("executor {}: {} results that came while its lease was suspect are not reported: {}", was,
          heldBack.size(), heldBack.stream().map(d -> d.key() + "#" + d.attempt()).toList());
      heldBack.clear();
    }
  }

  private void reportResult(Executor.JobDone d) {
    report(d.taskId(), d.window(), d.attempt(), d.result(), d.took(), d.log(), 1, ResultReports.Carries.JOB_RESULT,
        d.replayedSteps());
  }

  private void report(String taskId, String window, int attempt, JobResult result, Duration took, AttemptLog log,
      int tries, ResultReports.Carries carries, List<String> replayedSteps) {
    if (tries == 1) {
      reporting++;
    }
    CompletionStage<StatusReply<Done>> ask = Asks.ask(tasks.apply(taskId),
        replyTo -> new TaskProtocol.FinishAttempt(WindowKey.of(window), attempt, result, took, replayedSteps, log, replyTo),
        settings.askTimeout(), ctx.getSystem().scheduler());
    ctx.pipeToSelf(ask, (reply, error) -> new Executor.ReportDone(taskId, window, attempt, result, took, log, tries,
        carries, ResultReports.failureOf(reply, error), false, replayedSteps));
  }

  void onRetryReport(RetryReport m) {
    if (hold.state() != FenceHold.State.ENDED) {
      report(m.taskId(), m.window(), m.attempt(), m.result(), m.took(), m.log(), m.tries(), m.carries(), m.replayedSteps());
    } else {
      reportEnded();
    }
  }

  /** A report of a job's own thread was answered: counted as a report from here on, as {@link #report} counts its first try. */
  void directAnswered() {
    reporting++;
  }

  /**
   * A report's answer, once the attempt's slot is settled: acknowledged, refused (the refusal is
   * reported), or failed (tried again after a delay, or given up).
   */
  void answered(Executor.ReportDone m) {
    if (m.failure() == null) {
      reportEnded();
      host.admit(); // a result acknowledged: admissions held back by max-pending-results may go on
      return;
    }
    ResultReports.Next next = ResultReports.next(m.carries(), m.failure(), m.tries(), settings.reportRetries(),
        settings.reportRetryDelay(), maxReasonLength);
    if (next instanceof ResultReports.ReportRefusal refusal) {
      ctx.getLog().warn("the result of '{}' attempt {} was refused: {}", m.key(), m.attempt(), m.failure().message());
      report(m.taskId(), m.window(), m.attempt(), refusal.failure(), m.took(), m.log(), m.tries() + 1,
          ResultReports.Carries.REFUSAL, m.replayedSteps());
    } else if (next instanceof ResultReports.Retry retry) {
      ctx.getLog().warn("reporting the result of '{}' attempt {} failed (try {}): {}; retrying in {}", m.key(), m.attempt(),
          m.tries(), m.failure().message(), retry.delay());
      ctx.scheduleOnce(io.almanac.spi.Saturating.timerDelay(retry.delay()), ctx.getSelf(),
          new RetryReport(m.taskId(), m.window(), m.attempt(), m.result(), m.took(), m.log(), m.tries() + 1, m.carries(),
              m.replayedSteps()));
    } else {
      reportEnded();
      host.admit();
      ctx.getLog().error("gave up reporting the result of '{}' attempt {} after {} tries: {}; the lease will expire "
          + "and the retry policy decides", m.key(), m.attempt(), m.tries(), m.failure().message());
    }
  }

  private void reportEnded() {
    reporting = Math.max(0, reporting - 1);
    host.checkDrained();
  }
}
