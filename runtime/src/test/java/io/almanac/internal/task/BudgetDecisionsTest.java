package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.DailyUsage;
import io.almanac.Decision;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.RefusedException;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.Usage;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.BudgetDay;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.UsageRecord;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Budgets as pure decisions, without actors: usage summed per day in the task's zone by {@link
 * Evolve}, the fire decider skipping with BUDGET_EXHAUSTED once the day's cost reached the budget,
 * the day's alert raised once, a new day (in a zone with a DST change) starting afresh, and an
 * operator's raise.
 */
class BudgetDecisionsTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  private static final LeasePolicy HOUR = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(1))
      .factor(1.5).minSamples(20).build();
  /** 2026-11-29 10:00 in Berlin (CET, +01:00). */
  private static final Instant T0 = Instant.parse("2026-11-29T09:00:00Z");

  private final FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);
  private final OperatorActions operator = new OperatorActions("t", SETTINGS);

  private static TaskSpec.Builder spec() {
    return TaskSpec.builder("t").cron("0 0 * * * ? Europe/Berlin").window("per-firing").lease(HOUR);
  }

  private static List<io.almanac.journal.WindowChange> changes(State s, List<Event> events) {
    return Evolve.applyAll(s, events, HOT, Evolve.Violations.IGNORE).changes();
  }

  private static State fold(State s, List<Event> events) {
    List<String> violations = new ArrayList<>();
    for (Event e : events) {
      s = Evolve.apply(s, e, HOT, (w, from, to, ev) -> violations.add(w + ": " + from + " -> " + to));
    }
    assertTrue(violations.isEmpty(), () -> "decisions emit only allowed transitions: " + violations);
    return s;
  }

  private static State defined(TaskSpec spec) {
    return fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), T0.minus(Duration.ofDays(30)))));
  }

  private static Fire fire(Instant at) {
    return new Fire(WindowKey.of(at.toString()), at, at.plusSeconds(1), at, FireKind.ON_TIME, null);
  }

  private Decided<FireOutcome> decide(State s, Instant at) {
    Decided<FireOutcome> d = fires.fire(s, fire(at), at);
    assertFalse(d.refused(), () -> "fire refused: " + d.refusal());
    return d;
  }

  /** Fires, starts and finishes the window at {@code at} with a result carrying the usage. */
  private State ran(State s, Instant at, Usage usage, boolean ok) {
    Decided<FireOutcome> d = decide(s, at);
    assertEquals(Decision.SCHEDULED, d.reply().apply(s).decision(), () -> "scheduled at " + at);
    s = fold(s, d.events());
    Decided<TaskProtocol.AttemptGrant> started = attempts.start(s, fire(at).window(), "node-1", at);
    assertFalse(started.refused(), () -> "start refused: " + started.refusal());
    s = fold(s, started.events());
    JobResult r = (ok ? JobResult.success("done") : JobResult.failure("429 from the model")).withUsage(usage);
    Decided<org.apache.pekko.Done> done = attempts.finish(s, new TaskProtocol.FinishAttempt(fire(at).window(), 1, r,
        Duration.ofSeconds(5), null), at.plusSeconds(5));
    assertFalse(done.refused(), () -> "finish refused: " + done.refusal());
    return fold(s, done.events());
  }

  private static Usage cost(String amount) {
    return Usage.of("gpt-4o", 1_000, 200, new BigDecimal(amount));
  }

  @Test
  @DisplayName("usage is summed over attempts, failed ones too, on the day's record; the event that ends the attempt carries it")
  void usageSummedPerDay() {
    State s = defined(spec().budgetPerDay(new BigDecimal("5.00")).build());
    s = ran(s, T0, cost("0.40"), true);
    s = ran(s, T0.plus(Duration.ofHours(1)), cost("0.35"), false);
    BudgetDay day = s.budget();
    assertEquals(LocalDate.of(2026, 11, 29), day.day());
    assertEquals(2_000, day.tokensIn());
    assertEquals(400, day.tokensOut());
    assertEquals(750_000, day.costMicros());
    assertEquals(2, day.attempts());
    DailyUsage u = OperatorActions.usage("t", s, T0.plus(Duration.ofHours(2)));
    assertEquals(new BigDecimal("0.75"), u.cost());
    assertEquals(new BigDecimal("5.00"), u.limit());
    assertFalse(u.exhausted());
  }

  @Test
  @DisplayName("once the day's cost reaches the budget, further windows are SKIPPED with BUDGET_EXHAUSTED in one event, "
      + "and the alert fires once for the day")
  void budgetReachedSkipsAndAlertsOnce() {
    State s = defined(spec().budgetPerDay(new BigDecimal("1.00")).build());
    s = ran(s, T0, cost("0.60"), true);
    s = ran(s, T0.plus(Duration.ofHours(1)), cost("0.40"), true); // exactly 1.00: spent
    Instant third = T0.plus(Duration.ofHours(2));
    Decided<FireOutcome> d = decide(s, third);
    assertEquals(1, d.events().size(), "the skip is the one write of the fire");
    TaskJournal.SkipRangeOpened skip = assertInstanceOf(TaskJournal.SkipRangeOpened.class, d.events().get(0));
    assertEquals(SkipReason.BUDGET_EXHAUSTED, skip.skipReason());
    assertEquals("cost 1.00 on 2026-11-29 (Europe/Berlin) reached the budget per day 1.00", skip.detail());
    assertEquals(Decision.SKIPPED, d.reply().apply(s).decision());
    List<io.almanac.journal.WindowChange> changes = changes(s, d.events());
    s = fold(s, d.events());
    List<Alert> alerts = Reactions.alerts("t", s, d.events(), changes, 3);
    assertEquals(1, alerts.size());
    assertEquals(Alert.Kind.BUDGET_EXHAUSTED, alerts.get(0).kind());
    assertEquals(skip.window(), alerts.get(0).window());

    Decided<FireOutcome> again = decide(s, T0.plus(Duration.ofHours(3)));
    assertEquals(List.of(), again.events(), "covered by the open skip range: no event (docs/skip-ranges.md)");
    assertEquals(Decision.SKIPPED, again.reply().apply(s).decision());
    List<io.almanac.journal.WindowChange> none = changes(s, again.events());
    s = fold(s, again.events());
    assertEquals(List.of(), Reactions.alerts("t", s, again.events(), none, 3), "one alert per task per day");
    assertEquals(1, s.budget().exhaustedSkips(), "skip records of the day: the range is one");
  }

  @Test
  @DisplayName("a catch-up of several windows after the budget was spent skips them all and alerts once")
  void catchUpSkipsAndAlertsOnce() {
    State s = defined(spec().budgetPerDay(new BigDecimal("0.50")).catchUp(io.almanac.CatchUpPolicy.all()).build());
    s = ran(s, T0, cost("0.50"), true);
    Instant now = T0.plus(Duration.ofHours(4));
    List<TaskProtocol.DueFire> due = new ArrayList<>();
    for (int h = 1; h <= 3; h++) {
      Instant at = T0.plus(Duration.ofHours(h));
      due.add(new TaskProtocol.DueFire(WindowKey.of(at.toString()), at, at.plusSeconds(1), at));
    }
    Decided<TaskProtocol.CatchUpOutcome> d = fires.catchUp(s, due, now);
    assertEquals(1, d.events().size(), "the three windows are one skip range");
    TaskJournal.WindowsSkipped range = (TaskJournal.WindowsSkipped) d.events().get(0);
    assertEquals(SkipReason.BUDGET_EXHAUSTED, range.skipReason());
    assertEquals(3, range.count());
    List<io.almanac.journal.WindowChange> changes = changes(s, d.events());
    s = fold(s, d.events());
    assertEquals(1, Reactions.alerts("t", s, d.events(), changes, 0).size());
  }

  @Test
  @DisplayName("the next day in the task's zone starts afresh: Berlin's day of the autumn DST change has 25 hours, "
      + "and usage at 00:30 CEST counts for it, not for the UTC day before")
  void nextDayInZoneWithDst() {
    State s = defined(spec().budgetPerDay(new BigDecimal("1.00")).build());
    Instant earlyLocal = Instant.parse("2026-10-24T22:30:00Z"); // 2026-10-25 00:30 CEST (+02:00)
    s = ran(s, earlyLocal, cost("1.00"), true);
    assertEquals(LocalDate.of(2026, 10, 25), s.budget().day());
    Instant lastHour = Instant.parse("2026-10-25T22:59:00Z"); // 2026-10-25 23:59 CET (+01:00): the same local day
    assertEquals(SkipReason.BUDGET_EXHAUSTED, ((TaskJournal.SkipRangeOpened) decide(s, lastHour).events().get(0)).skipReason(),
        "the 25-hour day is one budget day");
    Instant midnight = Instant.parse("2026-10-25T23:00:00Z"); // 2026-10-26 00:00 CET
    Decided<FireOutcome> next = decide(s, midnight);
    assertEquals(Decision.SCHEDULED, next.reply().apply(s).decision(), "a new day starts afresh");
    DailyUsage u = OperatorActions.usage("t", s, midnight);
    assertEquals(LocalDate.of(2026, 10, 26), u.day());
    assertEquals(0, u.cost().signum());
    assertFalse(u.exhausted());
    // and its first usage replaces yesterday's record: the state keeps one day
    s = ran(s, midnight, cost("0.25"), true);
    assertEquals(new BudgetDay(LocalDate.of(2026, 10, 26), 1_000, 200, 250_000, 1, 0, 0), s.budget());
  }

  @Test
  @DisplayName("an operator's raise for the day lets windows run again until the raised limit; it is one event, and the "
      + "next day is back at the spec's budget")
  void raiseForTheDay() {
    State s = defined(spec().budgetPerDay(new BigDecimal("1.00")).build());
    s = ran(s, T0, cost("1.00"), true);
    Instant at = T0.plus(Duration.ofMinutes(30));
    Decided<TaskProtocol.UsageInfo> raise = operator.raiseBudget(s, new BigDecimal("0.50"), "month-end report", at);
    assertFalse(raise.refused(), () -> "raise refused: " + raise.refusal());
    TaskJournal.BudgetRaised e = assertInstanceOf(TaskJournal.BudgetRaised.class, raise.events().get(0));
    assertEquals(new TaskJournal.BudgetRaised(LocalDate.of(2026, 11, 29), 500_000, 1_500_000, "month-end report", at), e);
    s = fold(s, raise.events());
    DailyUsage u = raise.reply().apply(s).usage();
    assertEquals(new BigDecimal("1.50"), u.limit());
    assertEquals(new BigDecimal("0.50"), u.raised());
    assertFalse(u.exhausted());
    s = ran(s, T0.plus(Duration.ofHours(1)), cost("0.50"), true);
    TaskJournal.SkipRangeOpened skip = (TaskJournal.SkipRangeOpened) decide(s, T0.plus(Duration.ofHours(2))).events().get(0);
    assertEquals("cost 1.50 on 2026-11-29 (Europe/Berlin) reached the budget per day 1.00 + 0.50 raised", skip.detail());
    Instant tomorrow = Instant.parse("2026-11-30T09:00:00Z");
    assertEquals(new BigDecimal("1.00"), OperatorActions.usage("t", s, tomorrow).limit(), "the raise was for one day");
  }

  @Test
  @DisplayName("bad raises are refused naming the field and the value, and nothing is stored")
  void badRaisesRefused() {
    State s = defined(spec().budgetPerDay(new BigDecimal("1.00")).build());
    for (String bad : new String[] {"0", "-1", "0.0000001"}) {
      Decided<TaskProtocol.UsageInfo> d = operator.raiseBudget(s, new BigDecimal(bad), null, T0);
      assertTrue(d.refused(), bad);
      assertTrue(d.events().isEmpty());
      RefusedException r = assertInstanceOf(RefusedException.class, d.refusal());
      assertTrue(r.getMessage().contains("amount") && r.getMessage().contains(new BigDecimal(bad).toPlainString()),
          r.getMessage());
    }
    assertTrue(operator.raiseBudget(s, null, null, T0).refused());
    Decided<TaskProtocol.UsageInfo> note = operator.raiseBudget(s, BigDecimal.ONE, "x".repeat(SETTINGS.maxReasonLength() + 1),
        T0);
    assertTrue(note.refusal().getMessage().contains("note"), note.refusal().getMessage());
    State none = defined(spec().build());
    Decided<TaskProtocol.UsageInfo> d = operator.raiseBudget(none, BigDecimal.ONE, null, T0);
    assertTrue(d.refusal().getMessage().contains("budgetPerDay") && d.refusal().getMessage().contains("no budget"),
        d.refusal().getMessage());
  }

  @Test
  @DisplayName("a task without a budget is never skipped for cost; its usage is still summed")
  void noBudgetNoSkip() {
    State s = defined(spec().build());
    assertNull(s.spec().budgetPerDayMicros());
    for (int h = 0; h < 3; h++) {
      s = ran(s, T0.plus(Duration.ofHours(h)), cost("100"), true);
    }
    assertEquals(300_000_000L, s.budget().costMicros());
    assertNull(FireDecider.budgetSpent(s, T0.plus(Duration.ofHours(4))));
    assertNull(OperatorActions.usage("t", s, T0).limit());
  }

  @Test
  @DisplayName("a late result's usage counts for the day (the money was spent); a past day's late usage is not today's")
  void lateUsageCounts() {
    State s = defined(spec().budgetPerDay(new BigDecimal("1.00")).build());
    s = fold(s, List.of(new TaskJournal.LateResultRecorded("w", 1, JobResult.Outcome.SUCCEEDED, "late", T0,
        new UsageRecord("m", 1, 2, 300_000))));
    assertEquals(300_000, s.budget().costMicros());
    s = fold(s, List.of(new TaskJournal.LateResultRecorded("x", 1, JobResult.Outcome.FAILED, "late",
        T0.minus(Duration.ofDays(1)), new UsageRecord("m", 1, 2, 900_000))));
    assertEquals(300_000, s.budget().costMicros(), "yesterday's usage read after today's does not count today");
  }

  @Test
  @DisplayName("a window released from a wait after the budget was spent ends its wait with BUDGET_EXHAUSTED")
  void releasedWindowEndsItsWait() {
    State s = defined(spec().budgetPerDay(new BigDecimal("1.00")).build());
    s = ran(s, T0, cost("1.00"), true);
    Instant at = T0.plus(Duration.ofHours(1));
    Decided<FireOutcome> d = fires.overlap(s, fire(at), at, true);
    TaskJournal.WaitEnded end = assertInstanceOf(TaskJournal.WaitEnded.class, d.events().get(0));
    assertEquals(SkipReason.BUDGET_EXHAUSTED, end.reason());
  }
}
