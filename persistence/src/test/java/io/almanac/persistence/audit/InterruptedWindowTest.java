package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.due;
import static io.almanac.persistence.audit.DailyEvents.history;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.scheduled;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static io.almanac.persistence.audit.DailyEvents.started;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InterruptCause;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Violation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** I7 on hand-written journals: no interrupted window is left without a resume or a recorded decision. */
class InterruptedWindowTest {

  private static final Instant DEFINED = Instant.parse("2026-11-28T12:00:00Z");
  private static final Instant DUE = due("2026-11-29");
  private static final String W = "2026-11-29";

  /** 11-29 scheduled and started, then interrupted (NODE_LOST) with {@code then} in the same write. */
  private static List<TaskJournal.Event> interrupted(List<TaskJournal.Event> then) {
    Instant at = DUE.plusSeconds(30);
    return journal(List.of(spec(daily("t", OverlapPolicy.SKIP), DEFINED)),
        List.of(scheduled(W, RunKind.FIRST, DUE), started(W, 1, DUE, Duration.ofMinutes(10)),
            new TaskJournal.AttemptInterrupted(W, 1, InterruptCause.NODE_LOST, "executor n#1 is gone", at)),
        then);
  }

  private static VerificationReport verify(List<TaskJournal.Event> events) {
    return Verifier.create().check(new TaskHistory("t", history("t", events).events(), DUE.plus(Duration.ofHours(1)))).report();
  }

  @Test
  @DisplayName("I7: an interruption followed by its resume (RESUME, then a success) holds, and is counted")
  void resumedHolds() {
    Instant at = DUE.plusSeconds(30);
    VerificationReport r = verify(interrupted(List.of(scheduled(W, RunKind.RESUME, at), started(W, 2, at, Duration.ofMinutes(10)),
        new TaskJournal.AttemptSucceeded(W, 2, Duration.ofSeconds(5), "ok", null, at.plusSeconds(5)))));
    assertTrue(r.ok(), r.toText());
    assertEquals(1, r.stats().checked(Invariant.I7).attempts(), r.toText());
    assertTrue(r.toText().contains("I7 interruptions decided"), r.toText());
    assertTrue(r.toText().contains("OK: I1-I7 hold") || r.toText().contains("OK: I1-I4, I6 and I7 hold"), r.toText());
  }

  @Test
  @DisplayName("I7: a recorded decision (FINAL_FAILED by on-interruption FAIL) holds")
  void decidedHolds() {
    VerificationReport r = verify(interrupted(List.of(TaskJournal.InstanceFinalFailed.after(W,
        "not resumed: the task's on-interruption is FAIL", "interrupted (NODE_LOST): executor n#1 is gone", DUE.plusSeconds(30)))));
    assertTrue(r.ok(), r.toText());
  }

  @Test
  @DisplayName("I7: a window left INTERRUPTED at the journal's end is a violation")
  void leftInterruptedIsAViolation() {
    VerificationReport r = verify(interrupted(List.of()));
    assertEquals(1, r.violations().size(), r.toText());
    Violation v = r.violations().get(0);
    assertEquals(Invariant.I7, v.invariant());
    assertEquals(W, v.window());
    assertTrue(v.message().contains("INTERRUPTED at the end of the journal"), v.message());
  }
}
