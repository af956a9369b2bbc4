package io.almanac.internal.executor;

import io.almanac.JobResult;
import io.almanac.RefusedException;
import java.time.Duration;
import org.apache.pekko.pattern.StatusReply;

/**
 * What the executor does when the report of an attempt's result did not get through, as typed
 * values: the entity refused the result (it breaks a bound, e.g. an oversized summary), or no
 * answer came. Text is rendered from them only for the log and for the refusal's recorded reason.
 * Pure. INTERNAL API.
 */
final class ResultReports {

  /** Prefix of the failure reason recorded for a refused result (journal text: never reworded). */
  static final String REFUSED_PREFIX = "result refused: ";

  private ResultReports() {}

  /** What a report carries: the job's own result, or the failure recorded for its refused result. */
  enum Carries {
    JOB_RESULT,
    REFUSAL
  }

  /** Why a report did not get through. */
  sealed interface Failure permits Refused, Undelivered {
    /** @return the failure in words, for the log */
    String message();
  }

  /**
   * The entity answered and refused the result.
   *
   * @param reason the refusal's reason when the entity gave one, or null
   * @param why the entity's words
   */
  record Refused(RefusedException.Reason reason, String why) implements Failure {
    @Override
    public String message() {
      return why;
    }
  }

  /**
   * No answer: the ask timed out or could not be sent.
   *
   * @param error what went wrong
   */
  record Undelivered(Throwable error) implements Failure {
    @Override
    public String message() {
      return error.getMessage();
    }
  }

  /** What to do next. */
  sealed interface Next permits ReportRefusal, Retry, GiveUp {}

  /**
   * Record the refusal as the attempt's failure, so the window is not left RUNNING until its lease
   * expires.
   *
   * @param failure the result to report instead
   */
  record ReportRefusal(JobResult failure) implements Next {}

  /**
   * Try the same report again.
   *
   * @param delay after this long
   */
  record Retry(Duration delay) implements Next {}

  /** Stop reporting: the lease will expire and the retry policy decides. */
  record GiveUp() implements Next {}

  /**
   * The failure of a report, from the entity's answer or the ask's error.
   *
   * @param reply the entity's answer, or null when none came
   * @param error the ask's error, or null
   * @return null when the report got through
   */
  static Failure failureOf(StatusReply<?> reply, Throwable error) {
    if (error != null) {
      return new Undelivered(error);
    }
    if (reply.isSuccess()) {
      return null;
    }
    Throwable refusal = reply.getError();
    return new Refused(refusal instanceof RefusedException r ? r.reason() : null, refusal.getMessage());
  }

  /**
   * The rule: a refused result is reported once more as a failure naming the refusal (a refused
   * refusal is given up); an undelivered report is tried again up to {@code maxTries}, each try
   * waiting {@code retryDelay} times its number (at most ten times).
   *
   * @param carries what the failed report carried
   * @param failure why it failed
   * @param tries the tries so far, this one included
   * @param maxTries almanac.executor.report-retries
   * @param retryDelay almanac.executor.report-retry-delay
   * @param maxReasonLength almanac.task.max-reason-length: the refusal's recorded reason is cut to it
   * @return what to do
   */
  static Next next(Carries carries, Failure failure, int tries, int maxTries, Duration retryDelay, int maxReasonLength) {
    if (failure instanceof Refused refused) {
      return carries == Carries.JOB_RESULT
          ? new ReportRefusal(JobResult.failure(refusalReason(refused, maxReasonLength)))
          : new GiveUp();
    }
    return tries < maxTries ? new Retry(retryDelay.multipliedBy(Math.min(tries, 10))) : new GiveUp();
  }

  /** The recorded reason of a refused result: the prefix and the entity's words, cut to the bound. */
  static String refusalReason(Refused refused, int maxReasonLength) {
    String reason = REFUSED_PREFIX + refused.why();
    return reason.length() > maxReasonLength ? reason.substring(0, maxReasonLength) : reason;
  }
}
