package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.DeadlineMissed;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The pure decisions of deadlines ({@link Deadlines}) and pause on failure ({@link PauseOnFailures}), without actors. */
class DeadlineDecidersTest {

  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final Duration HOUR = Duration.ofHours(1);

  private static SpecRecord spec(TaskSpec.Builder b) {
    return SpecRecord.of(b.cron("0 0 0 * * ? UTC").job("j").buildUnvalidated());
  }

  private static State state(SpecRecord spec, Event... events) {
    List<Event> all = new ArrayList<>();
    all.add(new TaskJournal.SpecDefined(spec, T0.minusSeconds(60)));
    all.addAll(List.of(events));
    return Evolve.fold(State.empty(10), all, HOT);
  }

  private static TaskJournal.InstanceScheduled scheduled(String w, Instant due, RunKind kind) {
    return new TaskJournal.InstanceScheduled(w, due, due.plus(Duration.ofDays(1)), due, kind, due);
  }

  private static TaskJournal.AttemptStarted started(String w, Instant at) {
    return new TaskJournal.AttemptStarted(w, 1, RunKind.FIRST, at.plus(Duration.ofHours(5)), "node#1", at);
  }

  @Test
  @DisplayName("a success after the deadline whose miss the timer had not recorded yet records the miss first, in the same "
      + "write; one before it, or one already recorded, records none")
  void successAfterTheDeadlineRecordsTheMiss() {
    AttemptLifecycle attempts = new AttemptLifecycle("t", TaskSettings.from(com.typesafe.config.ConfigFactory.load()));
    State s = state(spec(TaskSpec.builder("t").deadline(HOUR)), scheduled("w1", T0, RunKind.FIRST), started("w1", T0));
    Instant late = T0.plus(HOUR).plusSeconds(30);
    List<Event> events = attempts.finish(s, new io.almanac.internal.protocol.TaskProtocol.FinishAttempt(
        io.almanac.WindowKey.of("w1"), 1, io.almanac.JobResult.success("done"), HOUR.plusSeconds(30), null), late).events();
    assertEquals(2, events.size(), events.toString());
    assertEquals(new DeadlineMissed("w1", T0, T0.plus(HOUR), InstanceStatus.RUNNING, 1, late), events.get(0));
    assertInstanceOf(TaskJournal.AttemptSucceeded.class, events.get(1));
    State after = Evolve.fold(s, events, HOT);
    assertEquals(InstanceStatus.SUCCEEDED, after.windows().get("w1").status());
    assertEquals(late, after.windows().get("w1").deadlineMissedAt());

    List<Event> onTime = attempts.finish(s, new io.almanac.internal.protocol.TaskProtocol.FinishAttempt(
        io.almanac.WindowKey.of("w1"), 1, io.almanac.JobResult.success("done"), Duration.ofMinutes(5), null),
        T0.plus(Duration.ofMinutes(5))).events();
    assertEquals(1, onTime.size(), onTime.toString());
    State recorded = Evolve.fold(s, Deadlines.missed(s, T0.plus(HOUR)), HOT);
    assertEquals(1, attempts.finish(recorded, new io.almanac.internal.protocol.TaskProtocol.FinishAttempt(
        io.almanac.WindowKey.of("w1"), 1, io.almanac.JobResult.success("done"), HOUR.plusSeconds(30), null), late)
        .events().size(), "a miss already recorded is not recorded again");
  }

  @Test
  @DisplayName("a running window past due + deadline is missed once, with its status and attempt; before it, nothing")
  void runningWindowPastItsDeadlineIsMissed() {
    State s = state(spec(TaskSpec.builder("t").deadline(HOUR)), scheduled("w1", T0, RunKind.FIRST), started("w1", T0));
    assertEquals(List.of(), Deadlines.missed(s, T0.plus(HOUR).minusMillis(1)));
    assertEquals(T0.plus(HOUR), Deadlines.next(s));
    List<Event> missed = Deadlines.missed(s, T0.plus(HOUR));
    assertEquals(List.of(new DeadlineMissed("w1", T0, T0.plus(HOUR), InstanceStatus.RUNNING, 1, T0.plus(HOUR))), missed);
    State after = Evolve.fold(s, missed, HOT);
    assertEquals(T0.plus(HOUR), after.windows().get("w1").deadlineMissedAt());
    assertEquals(s.windows().get("w1").updatedAt(), after.windows().get("w1").updatedAt(), "the run is unchanged");
    assertEquals(InstanceStatus.RUNNING, after.windows().get("w1").status());
    assertEquals(List.of(), Deadlines.missed(after, T0.plus(Duration.ofDays(1))), "recorded once per window");
    assertNull(Deadlines.next(after));
    assertEquals(after, Evolve.fold(after, missed, HOT), "a second record of the same miss changes nothing");
  }

  @Test
  @DisplayName("pending, waiting to retry and waiting windows are watched; ended windows, backfills and manual runs are not")
  void whichWindowsAreWatched() {
    SpecRecord spec = spec(TaskSpec.builder("t").deadline(HOUR));
    Instant late = T0.plus(Duration.ofDays(3));
    State pending = state(spec, scheduled("p", T0, RunKind.FIRST));
    assertEquals(1, Deadlines.missed(pending, late).size());
    State retryWait = state(spec, scheduled("r", T0, RunKind.FIRST), started("r", T0),
        new TaskJournal.AttemptFailed("r", 1, Duration.ofSeconds(1), "boom", T0),
        new TaskJournal.RetryScheduled("r", 1, T0.plus(Duration.ofHours(2)), T0));
    assertEquals(InstanceStatus.RETRY_WAIT, ((DeadlineMissed) Deadlines.missed(retryWait, late).get(0)).status());
    State waiting = state(spec, new TaskJournal.WindowWaiting("x", T0, T0.plus(Duration.ofDays(1)), T0, RunKind.FIRST, "upstream",
        T0.plus(Duration.ofHours(6)), T0));
    assertEquals(InstanceStatus.WAITING, ((DeadlineMissed) Deadlines.missed(waiting, late).get(0)).status());
    State succeeded = state(spec, scheduled("s", T0, RunKind.FIRST), started("s", T0),
        new TaskJournal.AttemptSucceeded("s", 1, Duration.ofSeconds(1), "ok", null, T0.plusSeconds(1)));
    State finalFailed = state(spec, scheduled("f", T0, RunKind.FIRST), started("f", T0),
        new TaskJournal.AttemptFailed("f", 1, Duration.ofSeconds(1), "boom", T0),
        new TaskJournal.InstanceFinalFailed("f", "no retries", T0));
    State backfill = state(spec, scheduled("b", T0, RunKind.BACKFILL));
    State manual = state(spec, scheduled("m", T0, RunKind.MANUAL));
    for (State s : List.of(succeeded, finalFailed, backfill, manual)) {
      assertEquals(List.of(), Deadlines.missed(s, late), s.windows().keySet().toString());
      assertNull(Deadlines.next(s));
    }
  }

  @Test
  @DisplayName("a task without a deadline is never watched; the earliest deadline is the next one")
  void noDeadlineNoWatchAndEarliestFirst() {
    State none = state(spec(TaskSpec.builder("t")), scheduled("w1", T0, RunKind.FIRST));
    assertEquals(List.of(), Deadlines.missed(none, T0.plus(Duration.ofDays(9))));
    assertNull(Deadlines.next(none));
    State two = state(spec(TaskSpec.builder("t").deadline(HOUR)), scheduled("w2", T0.plusSeconds(600), RunKind.FIRST),
        scheduled("w1", T0, RunKind.FIRST));
    assertEquals(T0.plus(HOUR), Deadlines.next(two));
    assertEquals(2, Deadlines.missed(two, T0.plus(Duration.ofHours(2))).size());
  }

  @Test
  @DisplayName("with jitter, the deadline counts from the window's fire time (due time plus its offset), not its due time")
  void deadlineCountsFromTheFireTime() {
    Duration jitter = Duration.ofMinutes(30);
    Duration deadline = Duration.ofMinutes(10);
    String w = null;
    Duration offset = Duration.ZERO;
    for (int i = 0; w == null; i++) {
      offset = io.almanac.schedule.Jitter.offset("t", "d" + i, jitter);
      w = offset.compareTo(Duration.ofMinutes(15)) > 0 ? "d" + i : null;
    }
    State s = state(spec(TaskSpec.builder("t").jitter(jitter).deadline(deadline)), scheduled(w, T0, RunKind.FIRST));
    Instant due = T0.plus(offset).plus(deadline);
    assertEquals(due, Deadlines.next(s));
    assertEquals(List.of(), Deadlines.missed(s, T0.plus(deadline).plusSeconds(1)), "it has not even fired yet");
    List<Event> missed = Deadlines.missed(s, due);
    assertEquals(List.of(new DeadlineMissed(w, T0, due, InstanceStatus.PENDING, 0, due)), missed);
  }

  @Test
  @DisplayName("an operator's retry of a FINAL_FAILED window that fails again does not count the window twice")
  void aRetriedWindowThatFailsAgainCountsOnce() {
    State s = state(spec(TaskSpec.builder("t").pauseAfterFailures(2)));
    s = fold(s, failedWindow("d1", T0));
    List<Event> again = retriedAndFailed("d1", T0.plusSeconds(10));
    assertSame(again, PauseOnFailures.withPause(s, again, HOT, T0.plusSeconds(10)), "one window, not two in a row");
    s = fold(s, again);
    assertEquals(new TaskJournal.FailureStreak(1, "d1", "d1"), s.failures());
    // d1, d2 in a row (3 allowed), then d1 retried fails again: still two windows
    State three = state(spec(TaskSpec.builder("t").pauseAfterFailures(3)));
    three = fold(three, failedWindow("d1", T0));
    three = fold(three, failedWindow("d2", T0.plusSeconds(5)));
    List<Event> first = retriedAndFailed("d1", T0.plusSeconds(10));
    assertSame(first, PauseOnFailures.withPause(three, first, HOT, T0.plusSeconds(10)), "d1 is already counted");
    three = fold(three, first);
    assertEquals(2, three.failures().count());
    List<Event> d3 = failedWindow("d3", T0.plusSeconds(20));
    assertInstanceOf(TaskJournal.TaskPaused.class, PauseOnFailures.withPause(three, d3, HOT, T0.plusSeconds(20)).get(d3.size()),
        "a third window pauses it");
  }

  /** An operator's retry of a FINAL_FAILED window: scheduled MANUAL, its second attempt fails, no retries left. */
  private static List<Event> retriedAndFailed(String w, Instant at) {
    return List.of(scheduled(w, at, RunKind.MANUAL),
        new TaskJournal.AttemptStarted(w, 2, RunKind.MANUAL, at.plus(Duration.ofHours(5)), "node#1", at),
        new TaskJournal.AttemptFailed(w, 2, Duration.ofSeconds(1), "boom again", at),
        new TaskJournal.InstanceFinalFailed(w, "no retries", at));
  }

  private static List<Event> failedWindow(String w, Instant at) {
    return List.of(scheduled(w, at, RunKind.FIRST), started(w, at),
        new TaskJournal.AttemptFailed(w, 1, Duration.ofSeconds(1), "boom", at),
        new TaskJournal.InstanceFinalFailed(w, "no retries", at));
  }

  private static List<Event> succeededWindow(String w, Instant at) {
    return List.of(scheduled(w, at, RunKind.FIRST), started(w, at),
        new TaskJournal.AttemptSucceeded(w, 1, Duration.ofSeconds(1), "ok", null, at));
  }

  private static State fold(State s, List<Event> events) {
    return Evolve.fold(s, events, HOT);
  }

  @Test
  @DisplayName("the N-th window in a row that ends FINAL_FAILED pauses the task in the same write, with the streak")
  void nthFailureInARowPauses() {
    State s = state(spec(TaskSpec.builder("t").pauseAfterFailures(3)));
    s = fold(s, PauseOnFailures.withPause(s, failedWindow("d1", T0), HOT, T0));
    s = fold(s, PauseOnFailures.withPause(s, failedWindow("d2", T0.plusSeconds(10)), HOT, T0));
    assertEquals(new TaskJournal.FailureStreak(2, "d1", "d2"), s.failures());
    assertTrue(!s.paused());
    List<Event> third = PauseOnFailures.withPause(s, failedWindow("d3", T0.plusSeconds(20)), HOT, T0.plusSeconds(20));
    TaskJournal.TaskPaused p = assertInstanceOf(TaskJournal.TaskPaused.class, third.get(third.size() - 1));
    assertEquals(new TaskJournal.TaskPaused(T0.plusSeconds(20), TaskJournal.PauseCause.FAILURES,
        new TaskJournal.FailureStreak(3, "d1", "d3")), p);
    s = fold(s, third);
    assertTrue(s.paused());
    assertEquals(T0.plusSeconds(20), s.failures().pausedAt(), "the state remembers the streak that paused it");
    assertEquals("task paused itself after 3 windows in a row ended FINAL_FAILED, from 'd1' to 'd3'; an operator's"
        + " resume runs it again", Causes.Paused.of(s).detail());
    List<Event> more = failedWindow("d4", T0.plusSeconds(30));
    assertSame(more, PauseOnFailures.withPause(s, more, HOT, T0), "a paused task is not paused again");
    s = fold(s, List.of(new TaskJournal.TaskResumed(T0.plusSeconds(40))));
    assertNull(s.failures(), "a resume resets the count");
    assertEquals("task is paused", Causes.Paused.of(s).detail(), "no streak: an operator's pause");
  }

  @Test
  @DisplayName("a SUCCEEDED window resets the count; resolved and skipped windows neither count nor reset it; off by default")
  void successResetsOthersDoNot() {
    State s = state(spec(TaskSpec.builder("t").pauseAfterFailures(2)));
    s = fold(s, failedWindow("d1", T0));
    s = fold(s, succeededWindow("d2", T0.plusSeconds(10)));
    assertNull(s.failures());
    s = fold(s, failedWindow("d3", T0.plusSeconds(20)));
    s = fold(s, List.of(new TaskJournal.InstanceResolved("d3", "fixed by hand", T0.plusSeconds(25)),
        new TaskJournal.FireSkipped("d4", T0, T0, T0, io.almanac.SkipReason.PREVIOUS_RUNNING, "x", T0.plusSeconds(26))));
    assertEquals(new TaskJournal.FailureStreak(1, "d3", "d3"), s.failures());
    List<Event> next = PauseOnFailures.withPause(s, failedWindow("d5", T0.plusSeconds(30)), HOT, T0.plusSeconds(30));
    assertInstanceOf(TaskJournal.TaskPaused.class, next.get(next.size() - 1), "d3 and d5 are in a row");

    State off = state(spec(TaskSpec.builder("t")));
    for (int i = 0; i < 5; i++) {
      List<Event> failed = failedWindow("w" + i, T0.plusSeconds(i));
      assertSame(failed, PauseOnFailures.withPause(off, failed, HOT, T0), "off by default");
      off = fold(off, failed);
    }
    assertEquals(5, off.failures().count(), "counted all the same: three fields, whatever the history");
  }
}
