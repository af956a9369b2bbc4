package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.LeasePolicy;
import io.almanac.MissReason;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.DueFire;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SkipRange;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Skip ranges (docs/skip-ranges.md), decided by {@link FireDecider} without actors: a streak of
 * windows decided alike is one open range, covered fires write nothing, the first differing decision
 * closes it in its own write, a catch-up's like windows are one closed range.
 */
class SkipRangesTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final LeasePolicy HOUR = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(1))
      .factor(1.5).minSamples(20).build();

  private FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);

  private static State fold(State s, List<Event> events) {
    List<String> violations = new ArrayList<>();
    for (Event e : events) {
      s = Evolve.apply(s, e, HOT, (w, from, to, ev) -> violations.add(w + ": " + from + " -> " + to));
    }
    assertTrue(violations.isEmpty(), () -> "decisions emit only allowed transitions: " + violations);
    return s;
  }

  private static State defined() {
    TaskSpec spec = TaskSpec.builder("t").cron("* * * * * ? UTC").window("per-firing").lease(HOUR).build();
    return fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), T0)));
  }

  private static Fire fire(int second) {
    Instant at = T0.plusSeconds(second);
    return new Fire(WindowKey.of(at.toString()), at, at.plusSeconds(1), at, FireKind.ON_TIME, null);
  }

  private static String key(int second) {
    return fire(second).window().value();
  }

  /** Window 0 scheduled and started: the task's previous run, RUNNING. */
  private State running() {
    State s = defined();
    Decided<FireOutcome> d = fires.fire(s, fire(0), T0);
    s = fold(s, d.events());
    Decided<TaskProtocol.AttemptGrant> start = attempts.start(s, fire(0).window(), "node-1", T0);
    return fold(s, start.events());
  }

  private static State succeeded(State s, int second, Instant at) {
    return fold(s, List.of(new TaskJournal.AttemptSucceeded(key(second), 1, Duration.ofSeconds(1), "ok", null, at)));
  }

  /** Fires windows from..to (inclusive) while window 0 runs; returns the state after their writes. */
  private State skipped(State s, int from, int to, List<List<Event>> writes) {
    for (int i = from; i <= to; i++) {
      Decided<FireOutcome> d = fires.fire(s, fire(i), T0.plusSeconds(i));
      assertEquals(Decision.SKIPPED, d.reply().apply(s).decision(), "window " + i);
      if (!d.events().isEmpty()) {
        writes.add(d.events());
        s = fold(s, d.events());
      }
    }
    return s;
  }

  @Test
  @DisplayName("a streak of 100 windows skipped PREVIOUS_RUNNING is one open range written by its first; the first window "
      + "that runs closes it (first..last, count 100) in its own write")
  void streakOpensCoversAndCloses() {
    List<List<Event>> writes = new ArrayList<>();
    State s = skipped(running(), 1, 100, writes);
    assertEquals(1, writes.size(), "one write for 100 skipped windows");
    TaskJournal.SkipRangeOpened opened = assertInstanceOf(TaskJournal.SkipRangeOpened.class, writes.get(0).get(0));
    assertEquals(SkipReason.PREVIOUS_RUNNING, opened.skipReason());
    assertEquals(key(1), opened.window());
    assertEquals(InstanceStatus.SKIPPED, s.window(key(1)).orElseThrow().status(), "the first window is a window of its own");
    assertTrue(s.window(key(50)).isEmpty(), "a covered window has no instance of its own");
    assertTrue(s.openRange().covers(T0.plusSeconds(50)));

    s = succeeded(s, 0, T0.plusSeconds(101));
    Decided<FireOutcome> next = fires.fire(s, fire(101), T0.plusSeconds(101));
    assertEquals(Decision.SCHEDULED, next.reply().apply(s).decision());
    TaskJournal.SkipRangeClosed closed = assertInstanceOf(TaskJournal.SkipRangeClosed.class, next.events().get(0));
    assertEquals(new TaskJournal.SkipRangeClosed(key(1), key(100), T0.plusSeconds(100), T0.plusSeconds(100), 100,
        T0.plusSeconds(101), "PREVIOUS_RUNNING: window " + key(0) + " is RUNNING"), closed);
    assertInstanceOf(TaskJournal.InstanceScheduled.class, next.events().get(1));
    s = fold(s, next.events());
    assertNull(s.openRange());
    assertEquals(1, s.ranges().size());
    SkipRange r = s.ranges().get(0);
    assertEquals(100, r.count());
    assertEquals("SKIPPED PREVIOUS_RUNNING: 100 windows from " + key(1) + " to " + key(100), r.describe());

    // a fire of a window inside the closed range is a duplicate: no event (R5)
    Decided<FireOutcome> dup = fires.fire(s, fire(50), T0.plusSeconds(102));
    assertEquals(Decision.DUPLICATE, dup.reply().apply(s).decision());
    assertTrue(dup.events().isEmpty());
  }

  @Test
  @DisplayName("an out-of-order or repeated fire of a window the open range already covered is a duplicate: no event, "
      + "and it is not counted twice")
  void outOfOrderIsCovered() {
    List<List<Event>> writes = new ArrayList<>();
    State s = skipped(running(), 1, 10, writes);
    Decided<FireOutcome> again = fires.fire(s, fire(5), T0.plusSeconds(11));
    assertEquals(Decision.DUPLICATE, again.reply().apply(s).decision());
    assertTrue(again.events().isEmpty());
    s = succeeded(s, 0, T0.plusSeconds(11));
    TaskJournal.SkipRangeClosed closed = (TaskJournal.SkipRangeClosed) fires.fire(s, fire(11), T0.plusSeconds(11))
        .events().get(0);
    assertEquals(10, closed.count());
    assertEquals(key(10), closed.lastWindow());
  }

  @Test
  @DisplayName("after a recovery (the decider's memory lost) the open range stays open and covers; the first differing "
      + "decision closes it just before its own window, counted from the schedule")
  void recoveryClosesFromTheSchedule() {
    List<List<Event>> writes = new ArrayList<>();
    State s = skipped(running(), 1, 10, writes);
    fires = new FireDecider(SETTINGS); // a new incarnation: nothing in memory
    Decided<FireOutcome> covered = fires.fire(s, fire(12), T0.plusSeconds(12));
    assertEquals(Decision.SKIPPED, covered.reply().apply(s).decision());
    assertTrue(covered.events().isEmpty(), "still covered by the range read from the journal");
    s = succeeded(s, 0, T0.plusSeconds(19));
    Decided<FireOutcome> next = fires.fire(s, fire(20), T0.plusSeconds(20));
    TaskJournal.SkipRangeClosed closed = (TaskJournal.SkipRangeClosed) next.events().get(0);
    assertEquals(19, closed.count(), "the schedule's windows due from the first (1) to the one before the closing fire (19)");
    assertEquals(T0.plusSeconds(19), closed.lastDue());
    assertEquals(key(19), closed.lastWindow());
  }

  @Test
  @DisplayName("a decision with another reason closes the open range and opens its own, in one write")
  void anotherReasonClosesAndOpens() {
    List<List<Event>> writes = new ArrayList<>();
    State s = skipped(running(), 1, 5, writes);
    s = fold(s, List.of(new TaskJournal.TaskPaused(T0.plusSeconds(6))));
    Decided<FireOutcome> paused = fires.fire(s, fire(6), T0.plusSeconds(6));
    assertEquals(2, paused.events().size());
    assertEquals(5, ((TaskJournal.SkipRangeClosed) paused.events().get(0)).count());
    TaskJournal.SkipRangeOpened next = (TaskJournal.SkipRangeOpened) paused.events().get(1);
    assertEquals(SkipReason.PAUSED, next.skipReason());
    s = fold(s, paused.events());
    assertEquals(key(6), s.openRange().firstWindow());
    assertEquals(1, s.ranges().size());
  }

  @Test
  @DisplayName("a catch-up of 1,400 windows missed alike is one event (one journal row); the middle window is accounted "
      + "for by the range, and a repeated catch-up is all duplicates")
  void catchUpOf1400IsOneRow() {
    State s = defined();
    List<DueFire> batch = new ArrayList<>();
    for (int i = 1; i <= 1400; i++) {
      Fire f = fire(i);
      batch.add(new DueFire(f.window(), f.start(), f.end(), f.dueAt()));
    }
    Instant now = T0.plusSeconds(1500);
    Decided<TaskProtocol.CatchUpOutcome> d = fires.catchUp(s, batch, now);
    assertEquals(1, d.events().size());
    TaskJournal.WindowsSkipped range = (TaskJournal.WindowsSkipped) d.events().get(0);
    assertEquals(1400, range.count());
    assertEquals(MissReason.BACKFILL_NOT_ALLOWED, range.missReason());
    assertEquals(key(1400), range.lastWindow());
    assertEquals(1400, d.reply().apply(s).outcomes().stream().filter(o -> o.decision() == Decision.MISSED).count());
    s = fold(s, d.events());
    assertEquals(InstanceStatus.MISSED, s.window(key(1)).orElseThrow().status());
    assertTrue(s.rangeOf(T0.plusSeconds(700)).isPresent());
    Decided<TaskProtocol.CatchUpOutcome> again = fires.catchUp(s, batch, now);
    assertTrue(again.events().isEmpty());
    State after = s;
    assertTrue(again.reply().apply(after).outcomes().stream().allMatch(o -> o.decision() == Decision.DUPLICATE));
  }

  @Test
  @DisplayName("a catch-up while a like range is open writes nothing for its windows: the open range covers them")
  void catchUpIntoAnOpenRange() {
    State s = defined();
    s = fold(s, List.of(new TaskJournal.TaskPaused(T0)));
    Decided<FireOutcome> first = fires.fire(s, fire(1), T0.plusSeconds(1));
    s = fold(s, first.events());
    List<DueFire> batch = new ArrayList<>();
    for (int i = 2; i <= 30; i++) {
      Fire f = fire(i);
      batch.add(new DueFire(f.window(), f.start(), f.end(), f.dueAt()));
    }
    Decided<TaskProtocol.CatchUpOutcome> d = fires.catchUp(s, batch, T0.plusSeconds(31));
    assertTrue(d.events().isEmpty(), () -> "events: " + d.events());
    s = fold(s, List.of(new TaskJournal.TaskResumed(T0.plusSeconds(31))));
    Decided<FireOutcome> runs = fires.fire(s, fire(31), T0.plusSeconds(31));
    assertEquals(30, ((TaskJournal.SkipRangeClosed) runs.events().get(0)).count());
  }

  @Test
  @DisplayName("R30: a closed range leaves the hot state with its first window; its other windows are counted archived")
  void rangeLeavesWithItsFirstWindow() {
    HotState small = new HotState(10, Duration.ofDays(3650));
    State s = Evolve.apply(defined(), new TaskJournal.WindowsSkipped(key(1), T0.plusSeconds(1), T0.plusSeconds(2),
        T0.plusSeconds(1), key(100), T0.plusSeconds(100), T0.plusSeconds(100), 100, InstanceStatus.MISSED, null,
        MissReason.BACKFILL_NOT_ALLOWED, "catch-up mode NONE", T0.plusSeconds(101)), small, Evolve.Violations.IGNORE);
    assertEquals(1, s.ranges().size());
    for (int i = 101; i <= 120; i++) {
      s = Evolve.apply(s, new TaskJournal.FireSkipped(key(i), T0.plusSeconds(i), T0.plusSeconds(i + 1), T0.plusSeconds(i),
          SkipReason.PAUSED, "p", T0.plusSeconds(i)), small, Evolve.Violations.IGNORE);
    }
    assertEquals(List.of(), s.ranges(), "the range left with its first window");
    assertEquals(11 + 99, s.archivedCount(), "11 windows left, the range's first among them, and its 99 others");
    assertTrue(s.archived(T0.plusSeconds(100)), "its last window counts as archived: a fire of it is a duplicate");
  }

  @Test
  @DisplayName("old journals still fold: consecutive FireSkipped events each make a window, as before")
  void oldEventsStillFold() {
    State s = defined();
    s = fold(s, List.of(
        new TaskJournal.FireSkipped(key(1), T0.plusSeconds(1), T0.plusSeconds(2), T0.plusSeconds(1), SkipReason.PAUSED, "p",
            T0.plusSeconds(1)),
        new TaskJournal.FireSkipped(key(2), T0.plusSeconds(2), T0.plusSeconds(3), T0.plusSeconds(2), SkipReason.PAUSED, "p",
            T0.plusSeconds(2))));
    assertEquals(InstanceStatus.SKIPPED, s.window(key(2)).orElseThrow().status());
    assertNull(s.openRange());
  }
}
