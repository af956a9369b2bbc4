package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.due;
import static io.almanac.persistence.audit.DailyEvents.failed;
import static io.almanac.persistence.audit.DailyEvents.history;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.late;
import static io.almanac.persistence.audit.DailyEvents.missed;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.scheduled;
import static io.almanac.persistence.audit.DailyEvents.skipped;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static io.almanac.persistence.audit.DailyEvents.started;
import static io.almanac.persistence.audit.DailyEvents.succeeded;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Violation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The invariants I1-I4 on hand-written journals: one test per rule and per exception to it. */
class VerifierTest {

  private static final Instant DEFINED = Instant.parse("2026-11-28T12:00:00Z");
  private static final TaskSpec SKIP = daily("t", OverlapPolicy.SKIP);

  private static List<TaskJournal.Event> defined(TaskSpec spec) {
    return List.of(spec(spec, DEFINED));
  }

  private static VerificationReport verify(List<TaskJournal.Event> events) {
    return Verifier.verify(history("t", events));
  }

  private static Violation only(VerificationReport r, Invariant invariant) {
    assertEquals(1, r.violations().size(), r.toText());
    Violation v = r.violations().get(0);
    assertEquals(invariant, v.invariant(), r.toText());
    return v;
  }

  private static List<Long> seqs(Violation v) {
    return v.events().stream().map(VerificationReport.EventRef::sequenceNr).toList();
  }

  @Test
  void acceptsAJournalWhereEveryWindowRanOnce() {
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"), ran("2026-11-30"), ran("2026-12-01")));
    assertTrue(r.ok(), r.toText());
    assertEquals(3, r.stats().windowsSeen());
    assertEquals(Map.of("SUCCEEDED", 3L), r.stats().windowsByStatus());
    assertEquals(3, r.stats().successes());
    assertEquals(3, r.stats().attempts());
    // the journal ends at 12-01 00:00:01 UTC: the 12-01 window is due within the 2 minute grace, not checked
    assertEquals(2, r.stats().windowsChecked());
    assertEquals(Duration.ZERO, r.stats().longestRunningPastLease());
  }

  @Test
  void i1FindsAWindowThatSucceededTwice() {
    Instant due = due("2026-11-29");
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"),
        List.of(started("2026-11-29", 2, due.plusSeconds(5), Duration.ofHours(1)), succeeded("2026-11-29", 2, due.plusSeconds(6)))));
    Violation v = only(r, Invariant.I1);
    assertEquals("2026-11-29", v.window());
    assertEquals(List.of(4L, 6L), seqs(v));
    assertEquals(1, r.stats().doubleSuccesses());
  }

  @Test
  @DisplayName("R20/R28: a success turned into FINAL_FAILED (what two writers on one journal produced) is an I1 violation, "
      + "found by the runtime's own evolve mapping and transition table")
  void i1FindsAStatusChangeTheTransitionTableRefuses() {
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"),
        List.of(new TaskJournal.InstanceFinalFailed("2026-11-29", "executor gone", due("2026-11-29").plusSeconds(30)))));
    Violation v = only(r, Invariant.I1);
    assertEquals("2026-11-29", v.window());
    assertTrue(v.message().contains("illegal transition SUCCEEDED -> FINAL_FAILED"), v.message());
    assertEquals(Map.of("SUCCEEDED", 1L), r.stats().windowsByStatus(), "the window keeps its status, as the entity does");
  }

  @Test
  void i1DoesNotCountALateResultAsASuccess() {
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"), List.of(late("2026-11-29", 1, due("2026-11-29").plusSeconds(9)))));
    assertTrue(r.ok(), r.toText());
    assertEquals(1, r.stats().lateResults());
  }

  @Test
  void i2FindsALostWindow() {
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"), ran("2026-12-01")));
    Violation v = only(r, Invariant.I2);
    assertEquals("2026-11-30", v.window());
    assertTrue(v.message().contains("lost window: due 2026-11-30T00:00:00Z (2026-11-30T08:00:00+08:00 Asia/Shanghai)"), v.message());
    assertEquals(1, r.stats().windowsLost());
  }

  @Test
  void i2AcceptsSkippedAndMissedWindowsWithTheirReason() {
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"),
        List.of(new TaskJournal.TaskPaused(due("2026-11-29").plusSeconds(60)), skipped("2026-11-30", SkipReason.PAUSED, "task is paused"),
            new TaskJournal.TaskResumed(due("2026-11-30").plusSeconds(60)),
            missed("2026-12-01", MissReason.OUTSIDE_HORIZON, "older than the horizon", due("2026-12-02"))),
        ran("2026-12-02")));
    assertTrue(r.ok(), r.toText());
    assertEquals(Map.of("SUCCEEDED", 2L, "SKIPPED", 1L, "MISSED", 1L), r.stats().windowsByStatus());
  }

  @Test
  void i2DoesNotExpectWindowsDueBeforeTheFirstSpec() {
    VerificationReport r = verify(journal(List.of(spec(SKIP, due("2026-11-30").minusSeconds(1))), ran("2026-11-30"), ran("2026-12-01")));
    assertTrue(r.ok(), r.toText());
    assertEquals(1, r.stats().windowsChecked());
  }

  @Test
  void i2DoesNotJudgeWindowsDueWithinTheGraceOfTheJournalsEnd() {
    List<TaskJournal.Event> events = journal(defined(SKIP), ran("2026-11-29"),
        List.of(new TaskJournal.TaskPaused(due("2026-11-30").plusSeconds(60))));
    assertTrue(verify(events).ok());
    VerificationReport noGrace = Verifier.create().grace(Duration.ZERO).check(history("t", events)).report();
    assertEquals("2026-11-30", only(noGrace, Invariant.I2).window());
  }

  @Test
  void i2FollowsTheSpecInEffect() {
    // From 11-30 12:00 the task fires at 09:00 UTC instead of 08:00 Shanghai (00:00 UTC)
    TaskSpec later = TaskSpec.builder("t").cron("0 0 9 * * ? UTC").job("j").build();
    Instant changed = Instant.parse("2026-11-30T12:00:00Z");
    Instant dueUtc = Instant.parse("2026-12-01T09:00:00Z");
    List<TaskJournal.Event> events = journal(defined(SKIP), ran("2026-11-29"), ran("2026-11-30"), List.of(spec(later, changed),
        new TaskJournal.InstanceScheduled("2026-12-01", Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2026-12-02T00:00:00Z"),
            dueUtc, RunKind.FIRST, dueUtc),
        started("2026-12-01", 1, dueUtc, Duration.ofHours(1)), succeeded("2026-12-01", 1, dueUtc.plusSeconds(1)),
        new TaskJournal.TaskPaused(Instant.parse("2026-12-03T00:00:00Z"))));
    VerificationReport r = verify(events);
    Violation v = only(r, Invariant.I2);
    assertEquals("2026-12-02", v.window(), "12-01 ran at 09:00 UTC under the new spec; 12-02 is lost");
    assertTrue(v.message().contains("due 2026-12-02T09:00:00Z"), v.message());
  }

  @Test
  @DisplayName("R28: with jitter, I2 judges a window by when it fires (due + its offset), not by its due time: one due"
      + " before the journal's end less the grace that fires after it is not lost")
  void i2JudgesAJitteredWindowByItsFireTime() {
    Duration jitter = Duration.ofMinutes(30);
    TaskSpec jittered = TaskSpec.builder("t").cron("0 0 8 * * ? Asia/Shanghai").job("j").jitter(jitter).build();
    Duration offset = io.almanac.schedule.Jitter.offset("t", "2026-12-01", jitter);
    assertTrue(offset.compareTo(Duration.ofMinutes(4)) > 0, "the test needs an offset past the end: " + offset);
    List<TaskJournal.Event> events = journal(List.of(spec(jittered, DEFINED)), ran("2026-11-29"), ran("2026-11-30"));
    // the journal goes on until 3 minutes after 12-01 is due: past the grace by due time, before it fires
    Instant end = due("2026-12-01").plus(Duration.ofMinutes(3));
    VerificationReport r = Verifier.create().check(new TaskHistory("t", history("t", events).events(), end)).report();
    assertTrue(r.ok(), r.toText());
    assertEquals(2, r.stats().windowsChecked(), "12-01 has not fired yet");
    // once the journal has gone on past its fire time (plus the grace), the same window is lost
    Instant later = due("2026-12-01").plus(offset).plus(Duration.ofMinutes(3));
    VerificationReport lost = Verifier.create().check(new TaskHistory("t", history("t", events).events(), later)).report();
    assertEquals("2026-12-01", only(lost, Invariant.I2).window());
  }

  /** Window 11-30 runs when the task is removed at 11-30 12:00; the journal goes on (other tasks) until 12-05. */
  private static List<TaskJournal.Event> removedWhileRunning() {
    Instant due = due("2026-11-30");
    Instant removedAt = Instant.parse("2026-11-30T12:00:00Z");
    return journal(defined(SKIP), ran("2026-11-29"), List.of(scheduled("2026-11-30", RunKind.FIRST, due),
        started("2026-11-30", 1, due, Duration.ofDays(1)),
        new TaskJournal.InstanceCancelled("2026-11-30", 1, "task removed", removedAt),
        new TaskJournal.TaskRemoved(removedAt)));
  }

  @Test
  @DisplayName("R28/R31: I2 stops at a task's removal: the windows due after it are not lost; the cancelled run is not open")
  void i2StopsAtTheRemovalOfATask() {
    Instant journalEnd = Instant.parse("2026-12-05T00:00:00Z");
    List<TaskJournal.Event> events = removedWhileRunning();
    VerificationReport r = Verifier.create().check(new TaskHistory("t", history("t", events).events(), journalEnd)).report();
    assertTrue(r.ok(), r.toText());
    assertEquals(2, r.stats().windowsChecked(), "11-29 and 11-30; 12-01 .. 12-04 were due after the removal");
    assertEquals(0, r.stats().windowsLost());
    assertEquals(List.of(), r.open(), "the run the removal cancelled is not open");
    assertEquals(Map.of("SUCCEEDED", 1L, "CANCELLED", 1L), r.stats().windowsByStatus());
    assertEquals(Instant.parse("2026-11-30T11:58:00Z").minusNanos(1), r.stats().checkedUntil(),
        "checked until the removal, less the grace");
    // The same journal without the removal: every day after it is lost
    List<TaskJournal.Event> kept = events.subList(0, events.size() - 1);
    VerificationReport notRemoved = Verifier.create().check(new TaskHistory("t", history("t", kept).events(), journalEnd)).report();
    assertEquals(4, notRemoved.stats().windowsLost(), notRemoved.toText());
  }

  @Test
  @DisplayName("R28/R31: a removed task registered again is expected to fire from its new SpecDefined on, not in between")
  void i2ResumesWhenARemovedTaskIsDefinedAgain() {
    List<TaskJournal.Event> events = journal(removedWhileRunning(),
        List.of(spec(SKIP, Instant.parse("2026-12-02T12:00:00Z"))), ran("2026-12-03"));
    Instant journalEnd = Instant.parse("2026-12-05T00:00:00Z");
    VerificationReport r = Verifier.create().check(new TaskHistory("t", history("t", events).events(), journalEnd)).report();
    Violation v = only(r, Invariant.I2);
    assertEquals("2026-12-04", v.window(), "12-01 and 12-02 were due while removed; 12-03 ran; 12-04 is lost");
    assertEquals(4, r.stats().windowsChecked());
  }

  @Test
  @DisplayName("R28: a window due within the grace before a removal (its fire refused on the way) is not judged")
  void i2DoesNotJudgeWindowsDueWithinTheGraceBeforeARemoval() {
    Instant removedAt = due("2026-11-30").plusSeconds(30);
    List<TaskJournal.Event> events = journal(defined(SKIP), ran("2026-11-29"), List.of(new TaskJournal.TaskRemoved(removedAt)));
    TaskHistory h = new TaskHistory("t", history("t", events).events(), Instant.parse("2026-12-05T00:00:00Z"));
    assertTrue(Verifier.create().check(h).report().ok());
    VerificationReport noGrace = Verifier.create().grace(Duration.ZERO).check(h).report();
    assertEquals("2026-11-30", only(noGrace, Invariant.I2).window());
  }

  @Test
  @DisplayName("R28: a one-shot task's one window is expected once, at its instant, and never again")
  void i2ExpectsAOneShotWindowOnce() {
    Instant at = Instant.parse("2026-11-30T06:00:00Z");
    TaskSpec once = TaskSpec.builder("t").once(at).job("j").build();
    String key = at.toString();
    Instant journalEnd = Instant.parse("2026-12-05T00:00:00Z");
    List<TaskJournal.Event> ran = journal(defined(once), List.of(
        new TaskJournal.InstanceScheduled(key, at, at, at, RunKind.FIRST, at), started(key, 1, at, Duration.ofHours(1)),
        succeeded(key, 1, at.plusSeconds(1))));
    VerificationReport r = Verifier.create().check(new TaskHistory("t", history("t", ran).events(), journalEnd)).report();
    assertTrue(r.ok(), r.toText());
    assertEquals(1, r.stats().windowsChecked());
    VerificationReport lost = Verifier.create().check(new TaskHistory("t", history("t", defined(once)).events(), journalEnd))
        .report();
    assertEquals(key, only(lost, Invariant.I2).window());
    VerificationReport registeredLate = Verifier.create().check(new TaskHistory("t",
        history("t", List.of(spec(once, at.plusSeconds(1)))).events(), journalEnd)).report();
    assertEquals(0, registeredLate.stats().windowsLost(), "registered after its instant: the catch-up records it, not I2");
  }

  @Test
  void i2ReportsActiveWindowsAsOpenNotAsViolations() {
    Instant due = due("2026-11-30");
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"),
        List.of(scheduled("2026-11-30", RunKind.FIRST, due), started("2026-11-30", 1, due, Duration.ofHours(2)))));
    assertTrue(r.ok(), r.toText());
    assertEquals(1, r.open().size());
    assertEquals("RUNNING", r.open().get(0).status());
    assertEquals(Map.of("SUCCEEDED", 1L, "RUNNING", 1L), r.stats().windowsByStatus());
  }

  private static TaskJournal.WindowWaiting waiting(String day, Duration waitAtMost) {
    return new TaskJournal.WindowWaiting(day, DailyEvents.start(day), DailyEvents.end(day), due(day), RunKind.FIRST,
        "upstream order-export (SAME_WINDOW)", due(day).plus(waitAtMost), due(day));
  }

  @Test
  @DisplayName("I2: a WAITING window is accounted for, and open (not a violation) while it waits")
  void i2AccountsForAWaitingWindowAndReportsItOpen() {
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"),
        List.of(waiting("2026-11-30", Duration.ofHours(30))), ran("2026-12-01")));
    assertTrue(r.ok(), r.toText());
    assertEquals(0, r.stats().windowsLost());
    assertEquals(2, r.stats().windowsChecked(), r.toText());
    assertEquals(1, r.open().size(), r.toText());
    assertEquals("2026-11-30", r.open().get(0).window());
    assertEquals("WAITING", r.open().get(0).status());
    assertTrue(r.open().get(0).detail().contains("until " + due("2026-11-30").plus(Duration.ofHours(30))),
        r.open().get(0).detail());
    assertEquals(Map.of("SUCCEEDED", 2L, "WAITING", 1L), r.stats().windowsByStatus());
  }

  @Test
  @DisplayName("I2: a window skipped DEPENDENCY_NOT_MET after waiting is accounted for; one released, run and then "
      + "kept on an upstream rerun succeeds once")
  void i2AccountsForADependencyNotMetWindowAndAReleasedOne() {
    Instant due30 = due("2026-11-30");
    Instant due01 = due("2026-12-01");
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"),
        List.of(waiting("2026-11-30", Duration.ofHours(6)),
            new TaskJournal.WaitEnded("2026-11-30", SkipReason.DEPENDENCY_NOT_MET,
                "upstream order-export window 2026-11-30 is FAILED", due30.plus(Duration.ofHours(6))),
            waiting("2026-12-01", Duration.ofHours(6)),
            new TaskJournal.WaitSatisfied("2026-12-01", "upstream order-export succeeded for 2026-12-01",
                due01.plusSeconds(600)),
            scheduled("2026-12-01", RunKind.FIRST, due01.plusSeconds(600)),
            started("2026-12-01", 1, due01.plusSeconds(601), Duration.ofHours(1)),
            succeeded("2026-12-01", 1, due01.plusSeconds(602)),
            new TaskJournal.UpstreamRerunRecorded("2026-12-01", "order-export", "2026-12-01", "KEPT",
                "the window succeeded: no window succeeds twice", due01.plusSeconds(3600))),
        ran("2026-12-02")));
    assertTrue(r.ok(), r.toText());
    assertEquals(0, r.stats().windowsLost());
    assertEquals(0, r.stats().doubleSuccesses());
    assertEquals(List.of(), r.open());
    assertEquals(Map.of("SUCCEEDED", 3L, "SKIPPED", 1L), r.stats().windowsByStatus());
  }

  @Test
  void i2FindsAWindowLeftFailedWithoutRetryOrFinalFailure() {
    Instant due = due("2026-11-29");
    VerificationReport r = verify(journal(defined(SKIP),
        List.of(scheduled("2026-11-29", RunKind.FIRST, due), started("2026-11-29", 1, due, Duration.ofHours(1)),
            failed("2026-11-29", 1, due.plusSeconds(1))), ran("2026-11-30")));
    Violation v = only(r, Invariant.I2);
    assertTrue(v.message().contains("no outcome"), v.message());
    assertEquals(List.of(4L), seqs(v));
  }

  @Test
  void i3FindsAnAttemptRunningPastItsLeaseWhileTheJournalGoesOn() {
    Instant due = due("2026-11-29");
    VerificationReport r = verify(journal(defined(SKIP),
        List.of(scheduled("2026-11-29", RunKind.FIRST, due), started("2026-11-29", 1, due, Duration.ofMinutes(10)),
            new TaskJournal.LeaseExtended("2026-11-29", 1, due.plus(Duration.ofMinutes(20)), due.plus(Duration.ofMinutes(5))),
            skipped("2026-11-30", SkipReason.PREVIOUS_RUNNING, "window 2026-11-29 is RUNNING"))));
    Violation v = only(r, Invariant.I3);
    assertEquals("2026-11-29", v.window());
    assertEquals(List.of(3L, 4L), seqs(v), "the start and its lease extension");
    assertTrue(v.message().contains("its lease ended 2026-11-29T00:20:00Z"), v.message());
    assertEquals(Duration.between(due.plus(Duration.ofMinutes(20)), due("2026-11-30")), r.stats().longestRunningPastLease());
    assertEquals(List.of(), r.open(), "a violation, not an open window");
  }

  @Test
  void i3LeavesALeaseThatOutlivesTheJournalOpen() {
    Instant due = due("2026-11-29");
    VerificationReport r = verify(journal(defined(SKIP),
        List.of(scheduled("2026-11-29", RunKind.FIRST, due), started("2026-11-29", 1, due, Duration.ofMinutes(10)),
            new TaskJournal.EffectRecorded("2026-11-29", 1, "mail", "sent", due.plus(Duration.ofMinutes(9))))));
    assertTrue(r.ok(), r.toText());
    assertEquals(1, r.open().size());
  }

  @Test
  void i3MeasuresTheLongestTimeRunningPastALease() {
    Instant due = due("2026-11-29");
    VerificationReport r = verify(journal(defined(SKIP),
        List.of(scheduled("2026-11-29", RunKind.FIRST, due), started("2026-11-29", 1, due, Duration.ofMinutes(10)),
            new TaskJournal.AttemptTimedOut("2026-11-29", 1, due.plus(Duration.ofMinutes(10)), Duration.ofMinutes(15),
                due.plus(Duration.ofMinutes(15))),
            new TaskJournal.InstanceFinalFailed("2026-11-29", "retry cap 0 reached", due.plus(Duration.ofMinutes(15))))));
    assertTrue(r.ok(), r.toText());
    assertEquals(Duration.ofMinutes(5), r.stats().longestRunningPastLease());
    assertEquals("t/2026-11-29#1", r.stats().longestRunningPastLeaseOf());
  }

  private static List<TaskJournal.Event> overlapping(TaskSpec spec) {
    Instant d29 = due("2026-11-29");
    Instant d30 = due("2026-11-30");
    return journal(List.of(spec(spec, DEFINED)), List.of(
        scheduled("2026-11-29", RunKind.FIRST, d29), started("2026-11-29", 1, d29, Duration.ofDays(3)),
        scheduled("2026-11-30", RunKind.FIRST, d30), started("2026-11-30", 1, d30, Duration.ofDays(3)),
        succeeded("2026-11-29", 1, d30.plusSeconds(3600)), succeeded("2026-11-30", 1, d30.plusSeconds(7200))));
  }

  @Test
  void i4FindsOverlappingAttemptsUnderSkip() {
    Violation v = only(verify(overlapping(SKIP)), Invariant.I4);
    assertEquals("2026-11-30", v.window());
    assertEquals(List.of(3L, 5L, 6L), seqs(v));
    assertTrue(v.message().contains("the overlap policy is SKIP"), v.message());
  }

  @Test
  void i4AllowsOverlappingAttemptsUnderAllow() {
    VerificationReport r = verify(overlapping(daily("t", OverlapPolicy.ALLOW)));
    assertTrue(r.ok(), r.toText());
  }

  @Test
  void i4AcceptsAnAttemptStartedAtTheInstantItsPredecessorWasCancelled() {
    Instant d29 = due("2026-11-29");
    Instant d30 = due("2026-11-30");
    VerificationReport r = verify(journal(List.of(spec(daily("t", OverlapPolicy.CANCEL_PREVIOUS), DEFINED)), List.of(
        scheduled("2026-11-29", RunKind.FIRST, d29), started("2026-11-29", 1, d29, Duration.ofDays(3)),
        new TaskJournal.InstanceCancelled("2026-11-29", 1, "superseded by window 2026-11-30", d30),
        scheduled("2026-11-30", RunKind.FIRST, d30), started("2026-11-30", 1, d30, Duration.ofHours(1)),
        succeeded("2026-11-30", 1, d30.plusSeconds(1)))));
    assertTrue(r.ok(), r.toText());
    assertEquals(Map.of("CANCELLED", 1L, "SUCCEEDED", 1L), r.stats().windowsByStatus());
  }

  @Test
  void theRangeSelectsWindowsByDueTime() {
    List<TaskJournal.Event> events = journal(defined(SKIP), ran("2026-11-29"), ran("2026-12-01"), ran("2026-12-02"));
    VerificationReport inside = Verifier.create().range(Instant.parse("2026-12-01T00:00:00Z"), null).check(history("t", events)).report();
    assertTrue(inside.ok(), inside.toText());
    assertEquals(2, inside.stats().windowsSeen());
    VerificationReport all = Verifier.create().range(null, Instant.parse("2026-12-01T00:00:00Z")).check(history("t", events)).report();
    assertEquals("2026-11-30", only(all, Invariant.I2).window());
  }

  @Test
  void theWindowFilterChecksOneWindow() {
    List<TaskJournal.Event> events = journal(defined(SKIP), ran("2026-11-29"), ran("2026-12-01"), ran("2026-12-02"));
    VerificationReport other = Verifier.create().window("2026-12-01").check(history("t", events)).report();
    assertTrue(other.ok(), other.toText());
    assertEquals(1, other.stats().windowsSeen());
    VerificationReport lost = Verifier.create().window("2026-11-30").check(history("t", events)).report();
    assertEquals("2026-11-30", only(lost, Invariant.I2).window());
  }

  @Test
  void r28CountsWhatEachInvariantChecked() {
    Instant due30 = due("2026-11-30");
    // 11-29 ran; 11-30 is running with a lease that outlives the journal: I3 does not judge it yet.
    VerificationReport r = verify(journal(defined(SKIP), ran("2026-11-29"),
        List.of(scheduled("2026-11-30", RunKind.FIRST, due30), started("2026-11-30", 1, due30, Duration.ofHours(2)),
            new TaskJournal.TaskPaused(due30.plus(Duration.ofMinutes(30))))));
    assertEquals(VerificationReport.Result.OK, r.result(), r.toText());
    assertEquals(new VerificationReport.Checked(2, 0, 5), r.stats().checked(Invariant.I1));
    assertEquals(new VerificationReport.Checked(2, 0, 5), r.stats().checked(Invariant.I2));
    assertEquals(new VerificationReport.Checked(1, 1, 2), r.stats().checked(Invariant.I3));
    assertEquals(new VerificationReport.Checked(2, 2, 3), r.stats().checked(Invariant.I4));
    assertTrue(r.toText().contains("OK: I1-I4, I6 and I7 hold (checked 2 due windows, 2 windows with events, 2 attempts)"), r.toText());
  }

  @Test
  void r28NothingCheckedIsNotOk() {
    // The journal is one second longer than the window's due time: within the grace, I2 judges nothing.
    VerificationReport r = verify(journal(List.of(spec(SKIP, due("2026-11-29").minusSeconds(60))), ran("2026-11-29")));
    assertTrue(r.ok(), "no violation: " + r.toText());
    assertEquals(VerificationReport.Result.NOTHING_CHECKED, r.result(), r.toText());
    assertEquals(VerificationReport.Checked.NONE, r.stats().checked(Invariant.I2));
    assertTrue(r.toText().contains("NOTHING CHECKED: I2 checked 0 due windows"), r.toText());
    assertTrue(!r.toText().contains("OK:"), r.toText());
  }

  @Test
  void r28AnEmptyVerificationIsNothingChecked() {
    VerificationReport r = Verifier.create().report();
    assertEquals(VerificationReport.Result.NOTHING_CHECKED, r.result());
    assertTrue(r.nothingChecked().startsWith("no events in the journal (no task)"), r.nothingChecked());
  }

  private static final Instant HOUR0 = DailyEvents.HOUR0;

  private static List<TaskJournal.Event> orders(int windows) {
    return DailyEvents.orders("t", windows);
  }

  private static List<TaskJournal.Event> ordered(int i) {
    return DailyEvents.ordered(i);
  }

  private static String hour(int i) {
    return DailyEvents.hour(i);
  }

  @Test
  @DisplayName("I2: the windows events reached count as checked: an event-only journal is OK, not NOTHING CHECKED")
  void i2CountsTheWindowsOfAnEventOnlyTaskAsChecked() {
    VerificationReport r = verify(orders(20));
    assertEquals(VerificationReport.Result.OK, r.result(), r.toText());
    assertEquals(new VerificationReport.Checked(20, 0, 80), r.stats().checked(Invariant.I2));
    assertEquals(20, r.stats().windowsChecked());
    assertEquals(Instant.parse("2026-11-29T19:10:02Z"), r.stats().checkedUntil(), "up to the journal's end: no grace");
    assertTrue(r.toText().contains("I2 every due window accounted for checked 20 due windows until 2026-11-29T19:10:02Z"
        + " (80 events): 0 lost"), r.toText());
    assertTrue(r.toText().contains("OK: I1-I4, I6 and I7 hold (checked 20 due windows, 20 windows with events, 20 attempts)"),
        r.toText());
  }

  @Test
  @DisplayName("I2: a window an event reached with no decision (schedule, wait, skip or miss), before any window ended, is lost")
  void i2FindsAWindowAnEventReachedWithoutADecision() {
    Instant at = HOUR0.plusSeconds(600);
    VerificationReport r = verify(journal(List.of(spec(DailyEvents.orders("t"), HOUR0.minusSeconds(60)),
        new TaskJournal.EventReceived(hour(0), "order.paid", "o-0", at, null, at)), ordered(1)));
    Violation v = only(r, Invariant.I2);
    assertEquals(hour(0), v.window());
    assertTrue(v.message().startsWith("lost window: an event reached it (EventReceived #2 at 2026-11-29T00:10:00Z), no"
        + " InstanceScheduled, WindowWaiting, FireSkipped or WindowMissed"), v.message());
    assertEquals(1, r.stats().windowsLost());
  }

  @Test
  @DisplayName("I2: an event alone for a window, after windows had ended, may be one for a window before the archived ones"
      + " (recorded, nothing runs): accounted for, with a note")
  void i2AcceptsAnEventAloneAfterWindowsEnded() {
    Instant at = HOUR0.plus(Duration.ofHours(3));
    VerificationReport r = verify(journal(orders(2), List.of(new TaskJournal.EventReceived("2026-11-28-23", "order.paid", "o-late",
        HOUR0.minusSeconds(60), null, at))));
    assertEquals(VerificationReport.Result.OK, r.result(), r.toText());
    assertEquals(3, r.stats().windowsChecked());
    assertTrue(r.notes().stream().anyMatch(n -> n.contains("1 window reached only by an EventReceived")), r.toText());
  }

  @Test
  void aWindowSpecThisJvmDoesNotKnowIsANoteNotAViolation() {
    TaskSpec custom = TaskSpec.builder("t").cron("0 0 8 * * ?", "Asia/Shanghai").window("fiscal-week").job("j").buildUnvalidated();
    VerificationReport r = verify(journal(List.of(spec(custom, DEFINED)), ran("2026-11-29"), ran("2026-11-30")));
    assertTrue(r.ok(), r.toText());
    assertEquals(2, r.notes().size(), r.toText()); // and I5's: these hand-written events name no writer
    assertTrue(r.notes().get(0).contains("fiscal-week"), r.notes().get(0));
    assertTrue(r.notes().get(1).startsWith("I5: 7 events of 1 journal had no writer"), r.notes().get(1));
    assertNull(r.stats().checkedUntil());
  }
}
