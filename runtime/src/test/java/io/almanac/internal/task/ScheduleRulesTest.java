package io.almanac.internal.task;

import io.almanac.journal.TaskJournal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.Decision;
import io.almanac.ExclusionCalendar;
import io.almanac.InstanceStatus;
import io.almanac.RefusedException;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.WindowSpec;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.DueFire;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The entity's decisions for a richer schedule, pure (docs/schedules.md): an excluded date is recorded
 * SKIPPED EXCLUDED, a fire outside the bounds SKIPPED OUT_OF_BOUNDS, a run now outside them refused,
 * a backfill over a holiday records it EXCLUDED; a window on another date, and a task without them,
 * decide as before.
 */
class ScheduleRulesTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  private static final ExclusionCalendar HOLIDAYS = ExclusionCalendar.of("holidays-cn-2027", "2027-01-01",
      "2027-02-10..2027-02-16");

  private final FireDecider fires = new FireDecider(SETTINGS);
  private final OperatorActions operator = new OperatorActions("t", SETTINGS);

  /** Daily at 09:00 Shanghai (01:00Z), from 1 January to 31 March 2027, excluding the calendar. */
  private static TaskSpec spec() {
    return TaskSpec.builder("t").cron("0 0 9 * * ? Asia/Shanghai").job("j").from("2027-01-01").until("2027-03-31")
        .exclude(HOLIDAYS).build();
  }

  private static State defined(TaskSpec spec) {
    State s = State.empty(20);
    return Evolve.apply(s, new SpecDefined(SpecRecord.of(spec), Instant.parse("2026-12-01T00:00:00Z")), HOT,
        Evolve.Violations.IGNORE);
  }

  private static State fold(State s, List<Event> events) {
    for (Event e : events) {
      s = Evolve.apply(s, e, HOT, Evolve.Violations.IGNORE);
    }
    return s;
  }

  /** The fire of the daily window of a local date in Shanghai, due 09:00 there. */
  private static Fire fire(String date, FireKind kind) {
    Instant start = java.time.LocalDate.parse(date).atStartOfDay(java.time.ZoneId.of("Asia/Shanghai")).toInstant();
    return new Fire(WindowKey.of(date), start, start.plus(Duration.ofDays(1)), start.plus(Duration.ofHours(9)), kind, null);
  }

  @Test
  @DisplayName("a window due on a calendar date is one FireSkipped EXCLUDED naming the calendar and its entry")
  void excludedDate() {
    State s = defined(spec());
    Fire f = fire("2027-02-12", FireKind.ON_TIME);
    Decided<FireOutcome> d = fires.fire(s, f, f.dueAt());
    assertEquals(1, d.events().size());
    TaskJournal.SkipRangeOpened skip = assertInstanceOf(TaskJournal.SkipRangeOpened.class, d.events().get(0));
    assertEquals(SkipReason.EXCLUDED, skip.skipReason());
    assertEquals("due date 2027-02-12 is in exclusion calendar holidays-cn-2027 (2027-02-10..2027-02-16)", skip.detail());
    assertEquals(f.dueAt(), skip.dueAt());
    State after = fold(s, d.events());
    assertEquals(InstanceStatus.SKIPPED, after.window("2027-02-12").orElseThrow().status());
    assertEquals(Decision.SKIPPED, d.reply().apply(after).decision());
    // the same fire again is a duplicate: no second record
    assertTrue(fires.fire(after, f, f.dueAt()).events().isEmpty());
  }

  @Test
  @DisplayName("a window on another date runs as before; a task without a richer schedule is not looked at")
  void otherDatesRun() {
    Fire f = fire("2027-02-17", FireKind.ON_TIME);
    Decided<FireOutcome> d = fires.fire(defined(spec()), f, f.dueAt());
    assertInstanceOf(InstanceScheduled.class, d.events().get(0));
    Decided<FireOutcome> plain = fires.fire(defined(TaskSpec.builder("t").cron("0 0 9 * * ? Asia/Shanghai").job("j").build()),
        fire("2027-02-12", FireKind.ON_TIME), fire("2027-02-12", FireKind.ON_TIME).dueAt());
    assertInstanceOf(InstanceScheduled.class, plain.events().get(0));
  }

  @Test
  @DisplayName("a catch-up batch over the holidays records each holiday EXCLUDED in the one write, the others by the catch-up policy")
  void catchUpBatch() {
    State s = defined(spec());
    List<DueFire> batch = List.of("2027-02-09", "2027-02-10", "2027-02-11").stream().map(k -> fire(k, FireKind.CATCH_UP))
        .map(f -> new DueFire(f.window(), f.start(), f.end(), f.dueAt())).toList();
    Decided<TaskProtocol.CatchUpOutcome> d = fires.catchUp(s, batch, Instant.parse("2027-02-11T02:00:00Z"));
    assertEquals(2, d.events().size());
    assertEquals("WindowMissed", d.events().get(0).getClass().getSimpleName(), "catch-up none: MISSED as before");
    TaskJournal.WindowsSkipped holidays = (TaskJournal.WindowsSkipped) d.events().get(1);
    assertEquals(SkipReason.EXCLUDED, holidays.skipReason());
    assertEquals(2, holidays.count(), "the two holidays in a row are one skip range");
  }

  @Test
  @DisplayName("a fire outside the bounds (computed before they changed) is SKIPPED OUT_OF_BOUNDS naming the bound")
  void outOfBounds() {
    State s = defined(spec());
    Fire after = fire("2027-04-01", FireKind.ON_TIME);
    TaskJournal.SkipRangeOpened skip = (TaskJournal.SkipRangeOpened) fires.fire(s, after, after.dueAt()).events().get(0);
    assertEquals(SkipReason.OUT_OF_BOUNDS, skip.skipReason());
    assertTrue(skip.detail().contains("until 2027-03-31"), skip.detail());
    Fire before = fire("2026-12-31", FireKind.ON_TIME);
    TaskJournal.SkipRangeOpened early = (TaskJournal.SkipRangeOpened) fires.fire(s, before, before.dueAt()).events().get(0);
    assertEquals(SkipReason.OUT_OF_BOUNDS, early.skipReason());
    assertTrue(early.detail().contains("from 2027-01-01"), early.detail());
  }

  @Test
  @DisplayName("a run now outside the bounds is refused naming the bound, nothing written; inside, on a holiday, it runs")
  void runNow() {
    State s = defined(spec());
    Decided<FireOutcome> late = operator.runNow(s, Schedules.of(spec()), Instant.parse("2027-04-02T03:00:00Z"));
    assertTrue(late.refused());
    RefusedException r = assertInstanceOf(RefusedException.class, late.refusal());
    assertEquals(RefusedException.Reason.INVALID_ARGUMENT, r.reason());
    assertTrue(r.getMessage().contains("until") && r.getMessage().contains("2027-03-31"), r.getMessage());
    assertTrue(late.events().isEmpty());
    Decided<FireOutcome> holiday = operator.runNow(s, Schedules.of(spec()), Instant.parse("2027-02-12T03:00:00Z"));
    InstanceScheduled run = assertInstanceOf(InstanceScheduled.class, holiday.events().get(0));
    assertEquals(RunKind.MANUAL, run.kind(), "an operator's run is an explicit act: it runs on an excluded date");
  }

  @Test
  @DisplayName("a backfill over a holiday records it SKIPPED EXCLUDED and runs the other days; only windows within the bounds")
  void backfill() {
    State s = defined(spec());
    Decided<TaskProtocol.BackfillReport> d = operator.backfill(s, Schedules.of(spec()), Instant.parse("2027-02-08T00:00:00Z"),
        Instant.parse("2027-02-12T00:00:00Z"), Instant.parse("2027-03-01T00:00:00Z"));
    List<String> outcomes = d.reply().apply(fold(s, d.events())).outcomes().stream()
        .map(o -> o.window() + " " + o.decision()).toList();
    assertEquals(List.of("2027-02-08 SCHEDULED", "2027-02-09 SCHEDULED", "2027-02-10 SKIPPED", "2027-02-11 SKIPPED"),
        outcomes);
    assertEquals(SkipReason.EXCLUDED, ((FireSkipped) d.events().get(2)).reason());
    Decided<TaskProtocol.BackfillReport> outside = operator.backfill(s, Schedules.of(spec()),
        Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2026-12-31T00:00:00Z"), Instant.parse("2027-03-01T00:00:00Z"));
    assertTrue(outside.events().isEmpty(), "no window of the schedule is due before its start");
  }

  @Test
  @DisplayName("the rules are compiled once per spec, not per fire")
  void compiledOnce() {
    State s = defined(spec());
    ScheduleRules first = fires.rules(s.spec());
    assertTrue(first == fires.rules(s.spec()));
    assertTrue(first != fires.rules(SpecRecord.of(TaskSpec.builder("t").cron("0 0 9 * * ? Asia/Shanghai").job("j")
        .window(WindowSpec.DAILY).until("2027-06-30").build())));
  }

  @Test
  @DisplayName("a task redefined in another zone with the same bounds is judged in its new zone, not by the rules compiled"
      + " for the old one")
  void recompiledWhenTheZoneChanges() {
    SpecRecord shanghai = SpecRecord.of(TaskSpec.builder("t").cron("0 0 9 * * ? Asia/Shanghai").job("j")
        .window(WindowSpec.DAILY).until("2027-06-30").build());
    SpecRecord utc = SpecRecord.of(TaskSpec.builder("t").cron("0 0 9 * * ? UTC").job("j")
        .window(WindowSpec.DAILY).until("2027-06-30").build());
    assertEquals(shanghai.schedule(), utc.schedule(), "the same bounds");
    Instant lateOn30th = Instant.parse("2027-06-30T20:00:00Z"); // July 1st in Shanghai, June 30th in UTC
    assertInstanceOf(Causes.OutOfBounds.class, fires.rules(shanghai).skipCause(lateOn30th));
    assertEquals(null, fires.rules(utc).skipCause(lateOn30th), "until 2027-06-30 in UTC");
  }
}
