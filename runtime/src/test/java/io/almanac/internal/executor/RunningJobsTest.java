package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.JobResult;
import io.almanac.RunKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The executor's book of running and abandoned attempts, and a job's outcome, one test per rule. */
class RunningJobsTest {
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private static RunningAttempt attempt(String window, int attempt) {
    return new RunningAttempt(new AttemptItem("t", window, "j", RunKind.FIRST, "UTC"), attempt, T0, T0.plusSeconds(30));
  }

  @Test
  void onlyTheAttemptOfTheSameNumberLeavesTheSlot() {
    RunningJobs jobs = new RunningJobs();
    RunningAttempt r = attempt("w", 2);
    jobs.add(r);
    assertNull(jobs.leave("t|w", 1), "an older attempt's end");
    assertTrue(jobs.holds("t|w"));
    assertSame(r, jobs.leave("t|w", 2));
    assertTrue(jobs.isEmpty());
  }

  @Test
  void aJobThatEndedGivesUpItsSlotAndIsTrackedUntilItsResultIsAcknowledged() {
    RunningJobs jobs = new RunningJobs();
    RunningAttempt r = attempt("w", 2);
    jobs.add(r);
    assertNull(jobs.jobReturned("t|w", 1), "an older attempt's end");
    assertSame(r, jobs.jobReturned("t|w", 2));
    assertTrue(jobs.isEmpty(), "the slot is free");
    assertEquals(0, jobs.size());
    assertEquals(1, jobs.pendingResults());
    assertTrue(jobs.holds("t|w"), "an offer of the window waits for the result's answer");
    assertEquals(List.of(), jobs.times(T0), "a pending result is no running job for the pace");
    assertSame(r, jobs.pending("t|w", 2));
    assertNull(jobs.acknowledged("t|w", 1));
    assertSame(r, jobs.acknowledged("t|w", 2));
    assertEquals(0, jobs.pendingResults());
    assertFalse(jobs.holds("t|w"));
  }

  @Test
  void anAbandonedAttemptGivesUpItsSlotAndIsWatchedUntilItReturns() {
    RunningJobs jobs = new RunningJobs();
    RunningAttempt r = attempt("w", 1);
    jobs.add(r);
    jobs.abandon(r, T0.plusSeconds(1));
    assertFalse(jobs.holds("t|w"));
    assertFalse(r.inSlot);
    assertFalse(jobs.noneAbandoned());
    assertSame(r, jobs.returned("t|w", 1));
    assertTrue(jobs.noneAbandoned());
  }

  @Test
  void anAbandonedAttemptIsStuckOnceAfterStuckAfterAndUncountedWhenItReturns() {
    RunningJobs jobs = new RunningJobs();
    RunningAttempt r = attempt("w", 1);
    jobs.add(r);
    jobs.abandon(r, T0);
    Duration after = Duration.ofSeconds(30);
    assertEquals(List.of(), jobs.newlyStuck(T0.plusSeconds(29), after));
    assertEquals(List.of(r), jobs.newlyStuck(T0.plusSeconds(30), after));
    assertEquals(List.of(), jobs.newlyStuck(T0.plusSeconds(60), after), "alerted once");
    assertEquals(1, jobs.stuck());
    jobs.returned("t|w", 1);
    assertEquals(0, jobs.stuck());
  }

  @Test
  void aRunningJobsTimeIsItsOwnOnceItEnded() {
    RunningJobs jobs = new RunningJobs();
    RunningAttempt running = attempt("a", 1);
    RunningAttempt ended = attempt("b", 1);
    ended.took = Duration.ofMillis(5);
    jobs.add(running);
    jobs.add(ended);
    assertEquals(List.of(Duration.ofSeconds(2), Duration.ofMillis(5)).stream().sorted().toList(),
        jobs.times(T0.plusSeconds(2)).stream().sorted().toList());
  }

  @Test
  void aJobsOwnResultIsItsOutcome() {
    JobResult ok = JobResult.success("ok");
    assertSame(ok, JobRun.outcome(ok, null, false, 100));
  }

  @Test
  void aCancelledJobsOutcomeSaysCancelled() {
    assertEquals(JobResult.failure("cancelled"), JobRun.outcome(null, new IllegalStateException("x"), true, 100));
  }

  @Test
  void aFailedStageNamesItsCause() {
    assertEquals(JobResult.failure("IllegalStateException: broken"),
        JobRun.outcome(null, new CompletionException(new IllegalStateException("broken")), false, 100));
    assertEquals(JobResult.failure("the job completed without a result"), JobRun.outcome(null, null, false, 100));
  }

  @Test
  void anOversizedExceptionMessageIsShortenedVisibly() {
    JobResult r = JobRun.outcome(null, new IllegalStateException("x".repeat(500)), false, 100);
    assertEquals(100, r.reason().length());
    assertTrue(r.reason().endsWith(" ...[shortened from 523 characters]"), r.reason());
  }
}
