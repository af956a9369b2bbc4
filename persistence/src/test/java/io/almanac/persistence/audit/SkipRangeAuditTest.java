package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.due;
import static io.almanac.persistence.audit.DailyEvents.end;
import static io.almanac.persistence.audit.DailyEvents.history;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static io.almanac.persistence.audit.DailyEvents.start;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Skip ranges (docs/skip-ranges.md) read by the audit and by {@code why}: a range accounts for every
 * window it covers (I2), and a window inside it is explained as one of its windows.
 */
class SkipRangeAuditTest {

  private static final Instant DEFINED = Instant.parse("2026-11-28T12:00:00Z");
  private static final TaskSpec SKIP = daily("t", OverlapPolicy.SKIP);

  private static TaskJournal.SkipRangeOpened opened(String day, SkipReason reason) {
    return new TaskJournal.SkipRangeOpened(day, start(day), end(day), due(day), InstanceStatus.SKIPPED, reason, null,
        "task is paused", due(day));
  }

  private static TaskJournal.SkipRangeClosed closed(String first, String last, long count, Instant at) {
    return new TaskJournal.SkipRangeClosed(first, last, start(last), due(last), count, at);
  }

  /** Ran 11-29; paused: 11-30 to 12-04 are one range (5 windows); resumed: 12-05 ran. */
  private static List<TaskJournal.Event> pausedFiveDays() {
    return journal(List.of(spec(SKIP, DEFINED)), ran("2026-11-29"),
        List.of(new TaskJournal.TaskPaused(due("2026-11-29").plusSeconds(60)), opened("2026-11-30", SkipReason.PAUSED),
            new TaskJournal.TaskResumed(due("2026-12-04").plusSeconds(60))),
        List.of(closed("2026-11-30", "2026-12-04", 5, due("2026-12-05"))), ran("2026-12-05"));
  }

  @Test
  @DisplayName("I1 and I2 hold over a journal with a skip range: its 5 windows are accounted for by 2 events")
  void rangeAccountsForItsWindows() {
    VerificationReport r = Verifier.verify(history("t", pausedFiveDays()));
    assertTrue(r.ok(), r.toText());
    assertEquals(0, r.stats().windowsLost());
    assertEquals(6, r.stats().windowsChecked(), r.toText()); // 11-29 to 12-04 (12-05 is within the grace of the end)
  }

  @Test
  @DisplayName("a closed range covers no more than its last window: a window after it without a decision is lost (I2)")
  void closedRangeEndsAtItsLast() {
    List<TaskJournal.Event> events = journal(List.of(spec(SKIP, DEFINED)), ran("2026-11-29"),
        List.of(opened("2026-11-30", SkipReason.PREVIOUS_RUNNING), closed("2026-11-30", "2026-12-02", 3, due("2026-12-04"))),
        ran("2026-12-04"));
    VerificationReport r = Verifier.verify(history("t", events));
    assertEquals(1, r.violations().size(), r.toText());
    assertEquals(Invariant.I2, r.violations().get(0).invariant());
    assertEquals("2026-12-03", r.violations().get(0).window());
  }

  @Test
  @DisplayName("a range written closed at once (a catch-up) and a range still open at the journal's end account for theirs")
  void catchUpRangeAndOpenRange() {
    List<TaskJournal.Event> events = journal(List.of(spec(SKIP, DEFINED)), ran("2026-11-29"),
        List.of(new TaskJournal.WindowsSkipped("2026-11-30", start("2026-11-30"), end("2026-11-30"), due("2026-11-30"),
            "2026-12-03", start("2026-12-03"), due("2026-12-03"), 4, InstanceStatus.MISSED, null,
            MissReason.BACKFILL_NOT_ALLOWED, "catch-up mode NONE", due("2026-12-03").plusSeconds(5))),
        ran("2026-12-04"),
        List.of(new TaskJournal.TaskPaused(due("2026-12-04").plusSeconds(60)), opened("2026-12-05", SkipReason.PAUSED)),
        List.of(new TaskJournal.TaskResumed(due("2026-12-09").plusSeconds(60)))); // the journal ends with it open
    VerificationReport r = Verifier.verify(history("t", events));
    assertTrue(r.ok(), r.toText());
  }

  @Test
  @DisplayName("why on a window in the middle of a range: skipped, its reason, one of N windows from A to B")
  void whyInTheMiddle() {
    List<TaskJournal.Event> events = pausedFiveDays();
    WindowExplanation.Explanation why = WindowExplanation.explain("t", WindowExplanation.auditEvents("t", events),
        "2026-12-02");
    assertEquals("SKIPPED", why.status(), why.toString());
    assertTrue(why.verdict().contains("PAUSED"), why.verdict());
    assertTrue(why.verdict().contains("one of 5 windows from 2026-11-30 to 2026-12-04"), why.verdict());
    WindowExplanation.Explanation first = WindowExplanation.explain("t", WindowExplanation.auditEvents("t", events),
        "2026-11-30");
    assertEquals("SKIPPED", first.status());
    assertTrue(first.verdict().contains("the first of 5 windows from 2026-11-30 to 2026-12-04"), first.verdict());
    // a window after the range is not one of its windows
    WindowExplanation.Explanation after = WindowExplanation.explain("t", WindowExplanation.auditEvents("t", events),
        "2026-12-05");
    assertEquals("SUCCEEDED", after.status());
  }

  @Test
  @DisplayName("the digest (a long journal read event by event) keeps the range events and explains the same")
  void digestExplainsTheSame() {
    List<TaskJournal.Event> events = pausedFiveDays();
    WindowExplanation.Digest digest = new WindowExplanation.Digest("2026-12-02", 100);
    WindowExplanation.auditEvents("t", events).forEach(digest::add);
    assertEquals(WindowExplanation.explain("t", WindowExplanation.auditEvents("t", events), "2026-12-02").verdict(),
        digest.explain("t").verdict());
  }
}
