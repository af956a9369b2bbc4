package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.almanac.JobResult;
import io.almanac.RefusedException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.Done;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.Test;

/** What the executor does with a report that did not get through, one test per rule. */
class ResultReportsTest {
  private static final Duration DELAY = Duration.ofMillis(100);
  private static final ResultReports.Refused TOO_LONG =
      new ResultReports.Refused(RefusedException.Reason.INVALID_ARGUMENT, "summary 'sss...' is too long");

  private static ResultReports.Next next(ResultReports.Carries carries, ResultReports.Failure failure, int tries) {
    return ResultReports.next(carries, failure, tries, 3, DELAY, 100);
  }

  @Test
  void aRefusedResultIsReportedAgainAsAFailureNamingTheRefusal() {
    ResultReports.Next next = next(ResultReports.Carries.JOB_RESULT, TOO_LONG, 1);
    assertEquals(new ResultReports.ReportRefusal(JobResult.failure("result refused: summary 'sss...' is too long")), next);
  }

  @Test
  void aRefusedRefusalIsGivenUp() {
    assertInstanceOf(ResultReports.GiveUp.class, next(ResultReports.Carries.REFUSAL, TOO_LONG, 2));
  }

  @Test
  void whatAReportCarriesDecidesNotItsText() {
    ResultReports.Next next = next(ResultReports.Carries.JOB_RESULT, new ResultReports.Refused(null, "again"), 1);
    assertEquals(new ResultReports.ReportRefusal(JobResult.failure("result refused: again")), next,
        "a job's own failure reason that starts like a refusal is still the job's result");
  }

  @Test
  void aRefusalsRecordedReasonIsCutToTheBound() {
    ResultReports.Refused long_ = new ResultReports.Refused(null, "x".repeat(500));
    assertEquals(100, ResultReports.refusalReason(long_, 100).length());
    assertEquals("result refused: xxxx", ResultReports.refusalReason(long_, 20));
  }

  @Test
  void anUndeliveredReportIsTriedAgainWaitingLongerEachTry() {
    ResultReports.Undelivered timeout = new ResultReports.Undelivered(new TimeoutException("no answer"));
    assertEquals(new ResultReports.Retry(DELAY), next(ResultReports.Carries.JOB_RESULT, timeout, 1));
    assertEquals(new ResultReports.Retry(DELAY.multipliedBy(2)), next(ResultReports.Carries.REFUSAL, timeout, 2));
    assertEquals(new ResultReports.Retry(DELAY.multipliedBy(10)),
        ResultReports.next(ResultReports.Carries.JOB_RESULT, timeout, 15, 20, DELAY, 100), "ten times at most");
  }

  @Test
  void anUndeliveredReportIsGivenUpAfterItsLastTry() {
    ResultReports.Undelivered timeout = new ResultReports.Undelivered(new TimeoutException("no answer"));
    assertInstanceOf(ResultReports.GiveUp.class, next(ResultReports.Carries.JOB_RESULT, timeout, 3));
  }

  @Test
  void anAcknowledgedReportHasNoFailure() {
    assertNull(ResultReports.failureOf(StatusReply.success(Done.getInstance()), null));
  }

  @Test
  void anEntitysErrorAnswerIsARefusalWithItsReason() {
    assertEquals(new ResultReports.Refused(RefusedException.Reason.STALE_ATTEMPT, "stale"), ResultReports.failureOf(
        StatusReply.error(new RefusedException(RefusedException.Reason.STALE_ATTEMPT, "stale")), null));
    assertEquals(new ResultReports.Refused(null, "too long"), ResultReports.failureOf(StatusReply.error("too long"), null));
  }

  @Test
  void anAskErrorIsAnUndeliveredReport() {
    TimeoutException e = new TimeoutException("no answer");
    assertEquals(new ResultReports.Undelivered(e), ResultReports.failureOf(null, e));
  }
}
