package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.due;
import static io.almanac.persistence.audit.DailyEvents.history;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.scheduled;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static io.almanac.persistence.audit.DailyEvents.started;
import static io.almanac.persistence.audit.DailyEvents.succeeded;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.ConditionTrigger;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Violation;
import io.almanac.persistence.audit.Verifier.Written;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * I6 on hand-written journals: no window stays PENDING past its lease ceiling, or WAITING past its
 * wait deadline, without a recorded reason, as of the journal's end less the grace. One test per
 * rule and per reason that excuses a wait.
 */
class StuckWindowTest {

  private static final Instant DEFINED = Instant.parse("2026-11-28T12:00:00Z");
  private static final Instant DUE29 = due("2026-11-29");
  private static final Instant DUE30 = due("2026-11-30");
  /** The default lease ceiling, the bound of a PENDING window. */
  private static final Duration CEILING = Duration.ofHours(2);
  private static final WriterStamp A = new WriterStamp("pekko://almanac@10.0.0.1:7355", 111);
  private static final WriterStamp A2 = new WriterStamp("pekko://almanac@10.0.0.1:7355", 222);

  /** 11-29 ran; 11-30 was scheduled when due and never started. */
  private static List<TaskJournal.Event> pending30(OverlapPolicy overlap) {
    return journal(List.of(spec(daily("t", overlap), DEFINED)), ran("2026-11-29"),
        List.of(scheduled("2026-11-30", RunKind.FIRST, DUE30)));
  }

  /** The history of these events, its journal going on (the trigger writing) until {@code end}. */
  private static TaskHistory until(List<TaskJournal.Event> events, Instant end) {
    return new TaskHistory("t", history("t", events).events(), end);
  }

  private static VerificationReport verify(TaskHistory h) {
    return Verifier.create().check(h).report();
  }

  private static Violation only(VerificationReport r, Invariant invariant) {
    assertEquals(1, r.violations().size(), r.toText());
    Violation v = r.violations().get(0);
    assertEquals(invariant, v.invariant(), r.toText());
    return v;
  }

  @Test
  @DisplayName("I6: a window PENDING past its lease ceiling, with nothing recorded that holds it, is a violation, not open")
  void i6FindsAWindowStuckPending() {
    VerificationReport r = verify(until(pending30(OverlapPolicy.SKIP), DUE30.plus(Duration.ofHours(5))));
    Violation v = only(r, Invariant.I6);
    assertEquals("2026-11-30", v.window());
    assertTrue(v.message().startsWith("stuck PENDING since 2026-11-30T00:00:00Z: not started by its bound 2026-11-30T02:00:00Z"
        + " (the lease ceiling PT2H after 2026-11-30T00:00:00Z, when it became PENDING)"), v.message());
    assertTrue(v.message().endsWith("the journal goes on until 2026-11-30T05:00:00Z"), v.message());
    assertEquals(List.of(5L), v.events().stream().map(VerificationReport.EventRef::sequenceNr).toList(), "its InstanceScheduled");
    assertEquals(List.of(), r.open(), "a violation, not an open window");
    assertEquals(new VerificationReport.Checked(2, 0, 3), r.stats().checked(Invariant.I6),
        "11-29's wait (scheduled and started in one write) and 11-30's");
    assertEquals(Duration.ofHours(3), r.stats().longestPastBound(), "until the journal's end");
    assertEquals("t/2026-11-30", r.stats().longestPastBoundOf());
  }

  @Test
  @DisplayName("I6: a PENDING window held by a resource pool (a PoolWaited recorded, no start since) past its lease ceiling"
      + " is waiting, not stuck: open, and counted in the notes")
  void i6TakesARecordedPoolWaitAsAReason() {
    List<TaskJournal.Event> events = journal(pending30(OverlapPolicy.SKIP),
        List.of(new TaskJournal.PoolWaited("2026-11-30", "openai", io.almanac.PoolWaitReason.FULL, null, DUE30.plusSeconds(1))));
    VerificationReport r = verify(until(events, DUE30.plus(Duration.ofHours(5))));
    assertTrue(r.ok(), r.toText());
    assertEquals(1, r.open().size(), r.toText());
    assertEquals("PENDING", r.open().get(0).status());
    assertTrue(r.open().get(0).detail().contains("waiting for pool 'openai': FULL"), r.open().get(0).detail());
    assertTrue(r.notes().stream().anyMatch(n -> n.contains("1 window PENDING held by a resource pool")), r.toText());
    // once it started, a later PENDING spell (a retry) without a pool wait is judged again
    Instant start = DUE30.plus(Duration.ofHours(3));
    List<TaskJournal.Event> retried = journal(events, List.of(started("2026-11-30", 1, start, Duration.ofMinutes(10)),
        new TaskJournal.AttemptFailed("2026-11-30", 1, Duration.ofSeconds(1), "boom", start.plusSeconds(1)),
        new TaskJournal.RetryScheduled("2026-11-30", 1, start.plusSeconds(2), start.plusSeconds(1)),
        scheduled("2026-11-30", RunKind.RETRY, start.plusSeconds(2))));
    VerificationReport again = verify(until(retried, start.plus(Duration.ofHours(5))));
    assertEquals("2026-11-30", only(again, Invariant.I6).window());
  }

  @Test
  @DisplayName("I6: a PENDING window still within its lease ceiling (plus the grace) at the journal's end is open")
  void i6LeavesAPendingWindowWithinItsBoundOpen() {
    VerificationReport r = verify(until(pending30(OverlapPolicy.SKIP), DUE30.plus(CEILING).plus(Verifier.DEFAULT_GRACE)));
    assertTrue(r.ok(), r.toText());
    assertEquals(1, r.open().size(), r.toText());
    assertEquals("PENDING", r.open().get(0).status());
    assertEquals(new VerificationReport.Checked(1, 0, 2), r.stats().checked(Invariant.I6), "11-30's wait is not judged yet");
    VerificationReport past = verify(until(pending30(OverlapPolicy.SKIP), DUE30.plus(CEILING).plus(Verifier.DEFAULT_GRACE)
        .plusSeconds(1)));
    assertEquals("2026-11-30", only(past, Invariant.I6).window());
  }

  @Test
  @DisplayName("I6: a paused task holds its PENDING windows (a pause covers every attempt not started): not stuck while "
      + "paused; after the resume the bound runs from the resume")
  void i6ExcusesAPendingWindowOfAPausedTaskUntilTheResume() {
    List<TaskJournal.Event> paused = journal(pending30(OverlapPolicy.SKIP),
        List.of(new TaskJournal.TaskPaused(DUE30.plusSeconds(60))));
    VerificationReport held = verify(until(paused, DUE30.plus(Duration.ofHours(5))));
    assertTrue(held.ok(), held.toText());
    Instant resumed = DUE30.plus(Duration.ofHours(5));
    List<TaskJournal.Event> after = new ArrayList<>(paused);
    after.add(new TaskJournal.TaskResumed(resumed));
    VerificationReport within = verify(until(after, resumed.plus(CEILING)));
    assertTrue(within.ok(), within.toText());
    VerificationReport past = verify(until(after, resumed.plus(CEILING).plus(Verifier.DEFAULT_GRACE).plus(Duration.ofMinutes(1))));
    assertEquals("2026-11-30", only(past, Invariant.I6).window());
    assertTrue(only(past, Invariant.I6).message().contains("when the task was resumed"), past.toText());
  }

  /** BUFFER_ONE: 11-29 runs long on heartbeats (its lease extended to 11-30 06:00); 11-30 waits behind it. */
  private static List<TaskJournal.Event> behindALongRun(boolean ends) {
    List<TaskJournal.Event> events = new ArrayList<>(journal(List.of(spec(daily("t", OverlapPolicy.BUFFER_ONE), DEFINED)),
        List.of(scheduled("2026-11-29", RunKind.FIRST, DUE29), started("2026-11-29", 1, DUE29, CEILING),
            new TaskJournal.LeaseExtended("2026-11-29", 1, DUE30.plus(Duration.ofHours(6)), DUE29.plus(Duration.ofHours(1))),
            scheduled("2026-11-30", RunKind.FIRST, DUE30))));
    if (ends) {
      events.add(succeeded("2026-11-29", 1, DUE30.plus(Duration.ofHours(5))));
    }
    return events;
  }

  @Test
  @DisplayName("I6: a PENDING window is not stuck while another attempt of its task runs (overlap policy, per-task limit)")
  void i6ExcusesAPendingWindowWhileAnotherAttemptOfTheTaskRuns() {
    VerificationReport r = verify(until(behindALongRun(false), DUE30.plus(Duration.ofHours(5))));
    assertTrue(r.ok(), r.toText());
    assertEquals(List.of("2026-11-29 RUNNING", "2026-11-30 PENDING"),
        r.open().stream().map(o -> o.window() + " " + o.status()).toList());
  }

  @Test
  @DisplayName("I6: when the attempt that held it back ends, a PENDING window has its lease ceiling again from that moment")
  void i6RestartsTheBoundWhenTheAttemptThatHeldItBackEnds() {
    Instant ended = DUE30.plus(Duration.ofHours(5));
    VerificationReport within = verify(until(behindALongRun(true), ended.plus(CEILING)));
    assertTrue(within.ok(), within.toText());
    VerificationReport past = verify(until(behindALongRun(true), ended.plus(CEILING).plus(Duration.ofMinutes(3))));
    Violation v = only(past, Invariant.I6);
    assertEquals("2026-11-30", v.window());
    assertTrue(v.message().contains("not started by its bound 2026-11-30T07:00:00Z (the lease ceiling PT2H after"
        + " 2026-11-30T05:00:00Z, when the task's last attempt ended)"), v.message());
  }

  /** The history with the events after index {@code from} written by {@code later}, those before by {@code A}. */
  private static TaskHistory rewritten(List<TaskJournal.Event> events, int from, WriterStamp later, Instant end) {
    TaskHistory h = history("t", events);
    List<AuditEvent> out = new ArrayList<>();
    for (int i = 0; i < h.events().size(); i++) {
      out.add(h.events().get(i).withWriter(i < from ? A : later));
    }
    return new TaskHistory("t", out, end);
  }

  @Test
  @DisplayName("I6: a new writer of the task's journal (a restart, a failover) gives a PENDING window its lease ceiling again")
  void i6RestartsTheBoundAtANewWriterOfTheTasksJournal() {
    Instant restarted = DUE30.plus(Duration.ofHours(4));
    // the task writes on: a resume of a task that was not paused, about no window and holding nothing
    List<TaskJournal.Event> events = journal(pending30(OverlapPolicy.SKIP), List.of(new TaskJournal.TaskResumed(restarted)));
    Instant end = DUE30.plus(Duration.ofHours(5));
    VerificationReport r = verify(rewritten(events, events.size() - 1, A2, end));
    assertTrue(r.ok(), r.toText());
    VerificationReport sameWriter = verify(rewritten(events, events.size() - 1, A, end));
    assertEquals("2026-11-30", only(sameWriter, Invariant.I6).window());
  }

  /** The trigger's heartbeat: an event every {@code step} from {@code from} to {@code to}, by {@code writer}. */
  private static List<Written> heartbeat(Instant from, Instant to, Duration step, WriterStamp writer, long firstSeq) {
    List<Written> out = new ArrayList<>();
    long seq = firstSeq;
    for (Instant t = from; !t.isAfter(to); t = t.plus(step)) {
      out.add(new Written(seq++, "Progressed", t, writer));
    }
    return out;
  }

  @Test
  @DisplayName("I6: a pause in the trigger's heartbeat (no node writing: down, or its database) gives a PENDING window its"
      + " lease ceiling again after it")
  void i6RestartsTheBoundAfterAPauseInTheTriggersHeartbeat() {
    Instant end = DUE30.plus(Duration.ofHours(5));
    TaskHistory h = until(pending30(OverlapPolicy.SKIP), end);
    Instant back = DUE30.plus(Duration.ofHours(4));
    List<Written> paused = new ArrayList<>(heartbeat(DUE30, DUE30.plus(Duration.ofHours(1)), Duration.ofSeconds(1), A, 1));
    paused.addAll(heartbeat(back, end, Duration.ofSeconds(1), A, 1_000_000));
    VerificationReport r = Verifier.create().heartbeat(paused).check(h).report();
    assertTrue(r.ok(), r.toText());
    // A new trigger writer without a gap is a restart too; a steady heartbeat excuses nothing.
    List<Written> moved = new ArrayList<>(heartbeat(DUE30, back, Verifier.HEARTBEAT_GAP, A, 1));
    moved.addAll(heartbeat(back.plus(Verifier.HEARTBEAT_GAP), end, Verifier.HEARTBEAT_GAP, A2, 1_000_000));
    assertTrue(Verifier.create().heartbeat(moved).check(h).report().ok());
    List<Written> steady = heartbeat(DUE30, end, Verifier.HEARTBEAT_GAP, A, 1);
    assertEquals("2026-11-30", only(Verifier.create().heartbeat(steady).check(h).report(), Invariant.I6).window());
  }

  private static TaskJournal.WindowWaiting waiting(Duration waitAtMost) {
    return new TaskJournal.WindowWaiting("2026-11-30", DailyEvents.start("2026-11-30"), DailyEvents.end("2026-11-30"), DUE30,
        RunKind.FIRST, "upstream order-export (SAME_WINDOW)", DUE30.plus(waitAtMost), DUE30);
  }

  @Test
  @DisplayName("I6: a window WAITING past its wait deadline (no WaitSatisfied, WaitEnded or cancel) is a violation, not open")
  void i6FindsAWindowStuckWaitingPastItsDeadline() {
    TaskSpec spec = daily("t", OverlapPolicy.SKIP);
    List<TaskJournal.Event> events = journal(List.of(spec(spec, DEFINED)), ran("2026-11-29"),
        List.of(waiting(Duration.ofHours(6))));
    VerificationReport within = verify(until(events, DUE30.plus(Duration.ofHours(6)).plus(Verifier.DEFAULT_GRACE)));
    assertTrue(within.ok(), within.toText());
    assertEquals("WAITING", within.open().get(0).status());
    VerificationReport r = verify(until(events, DUE30.plus(Duration.ofHours(7))));
    Violation v = only(r, Invariant.I6);
    assertEquals("2026-11-30", v.window());
    assertTrue(v.message().startsWith("stuck WAITING since 2026-11-30T00:00:00Z: its wait deadline 2026-11-30T06:00:00Z"
        + " passed and no WaitSatisfied, WaitEnded or InstanceCancelled followed"), v.message());
    assertEquals(List.of(), r.open());
  }

  @Test
  @DisplayName("I6: a waiting window whose deadline has passed and that ended its wait is not stuck")
  void i6AcceptsAWaitEndedAtItsDeadline() {
    TaskSpec spec = daily("t", OverlapPolicy.SKIP);
    List<TaskJournal.Event> events = journal(List.of(spec(spec, DEFINED)), ran("2026-11-29"),
        List.of(waiting(Duration.ofHours(6)), new TaskJournal.WaitEnded("2026-11-30", SkipReason.DEPENDENCY_NOT_MET,
            "upstream order-export window 2026-11-30 is FAILED; deadline passed", DUE30.plus(Duration.ofHours(6)).plusSeconds(1))));
    VerificationReport r = verify(until(events, DUE30.plus(Duration.ofHours(7))));
    assertTrue(r.ok(), r.toText());
    assertEquals(Duration.ofSeconds(1), r.stats().longestPastBound(), "the check ended the wait a second after the deadline");
  }

  @Test
  @DisplayName("I6: the check that ends a condition's wait at its deadline may take the condition's poll timeout")
  void i6AllowsAConditionsPollTimeoutPastTheWaitDeadline() {
    TaskSpec spec = TaskSpec.builder("t").cron("0 0 8 * * ? Asia/Shanghai").job("j")
        .when(ConditionTrigger.named("warehouse-loaded").every(Duration.ofHours(1)).timeout(Duration.ofMinutes(30))).build();
    List<TaskJournal.Event> events = journal(List.of(spec(spec, DEFINED)), ran("2026-11-29"),
        List.of(waiting(Duration.ofHours(6))));
    Instant deadline = DUE30.plus(Duration.ofHours(6));
    VerificationReport within = verify(until(events, deadline.plus(Duration.ofMinutes(30)).plus(Verifier.DEFAULT_GRACE)));
    assertTrue(within.ok(), within.toText());
    VerificationReport past = verify(until(events, deadline.plus(Duration.ofMinutes(30)).plus(Verifier.DEFAULT_GRACE)
        .plusSeconds(1)));
    assertEquals("2026-11-30", only(past, Invariant.I6).window());
  }

  @Test
  @DisplayName("I6: a wait deadline that passed while no node was writing is judged from when the journal resumed")
  void i6JudgesAWaitDeadlineFromTheResumeAfterDowntime() {
    TaskSpec spec = daily("t", OverlapPolicy.SKIP);
    List<TaskJournal.Event> events = journal(List.of(spec(spec, DEFINED)), ran("2026-11-29"),
        List.of(waiting(Duration.ofHours(6))));
    Instant back = DUE30.plus(Duration.ofHours(9)); // down from 05:00 to 09:00, over the 06:00 deadline
    List<Written> beat = new ArrayList<>(heartbeat(DUE30, DUE30.plus(Duration.ofHours(5)), Duration.ofSeconds(5), A, 1));
    beat.addAll(heartbeat(back, back.plus(Duration.ofMinutes(10)), Duration.ofSeconds(5), A2, 1_000_000));
    TaskHistory h = until(events, back.plus(Verifier.DEFAULT_GRACE));
    assertTrue(Verifier.create().heartbeat(beat).check(h).report().ok());
    TaskHistory later = until(events, back.plus(Verifier.DEFAULT_GRACE).plusSeconds(1));
    Violation v = only(Verifier.create().heartbeat(beat).check(later).report(), Invariant.I6);
    assertTrue(v.message().contains("and the journal resumed at 2026-11-30T09:00:00Z"), v.message());
  }

  @Test
  @DisplayName("I6: when the spec changes while a window is PENDING, the longest lease ceiling in effect bounds it")
  void i6TakesTheLongestCeilingInEffectDuringTheWait() {
    TaskSpec longer = TaskSpec.builder("t").cron("0 0 8 * * ? Asia/Shanghai").job("j")
        .lease(io.almanac.LeasePolicy.builder().ceiling(Duration.ofHours(6)).build()).build();
    List<TaskJournal.Event> events = journal(pending30(OverlapPolicy.SKIP), List.of(spec(longer, DUE30.plusSeconds(60))));
    assertTrue(verify(until(events, DUE30.plus(Duration.ofHours(5)))).ok());
    assertEquals("2026-11-30", only(verify(until(events, DUE30.plus(Duration.ofHours(7)))), Invariant.I6).window());
  }

  @Test
  @DisplayName("I6: a window that waited past its bound and then started is not a violation; the longest such wait is a"
      + " statistic")
  void i6MeasuresTheLongestWaitPastItsBound() {
    Instant late = DUE30.plus(Duration.ofHours(5));
    List<TaskJournal.Event> events = journal(pending30(OverlapPolicy.SKIP),
        List.of(started("2026-11-30", 1, late, Duration.ofHours(1)), succeeded("2026-11-30", 1, late.plusSeconds(1))));
    VerificationReport r = verify(until(events, late.plusSeconds(1)));
    assertTrue(r.ok(), r.toText());
    assertEquals(Duration.ofHours(3), r.stats().longestPastBound());
    assertEquals("t/2026-11-30", r.stats().longestPastBoundOf());
    assertEquals(new VerificationReport.Checked(2, 0, 4), r.stats().checked(Invariant.I6));
    assertTrue(r.toText().contains("I6 none stuck PENDING or WAITING  checked 2 windows (4 events): longest past its bound"
        + " PT3H (t/2026-11-30)"), r.toText());
    assertTrue(r.toText().contains("OK: I1-I4, I6 and I7 hold"), r.toText());
  }

  @Test
  @DisplayName("I6: nothing is judged for a task whose journal holds no spec (its lease ceiling is unknown)")
  void i6DoesNotJudgeWithoutASpec() {
    List<TaskJournal.Event> events = List.of(scheduled("2026-11-30", RunKind.FIRST, DUE30));
    VerificationReport r = verify(until(events, DUE30.plus(Duration.ofDays(2))));
    assertTrue(r.ok(), r.toText());
    assertEquals(VerificationReport.Checked.NONE, r.stats().checked(Invariant.I6));
    assertTrue(r.notes().stream().anyMatch(n -> n.contains("I6 not judged for 1 window")), r.toText());
    assertNull(r.stats().longestPastBoundOf());
  }
}
