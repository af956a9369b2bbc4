package io.almanac.internal.task;

import io.almanac.journal.TaskJournal;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.CatchUpPolicy;
import io.almanac.CronSchedule;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.MissReason;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.WindowSpec;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.CatchUpOutcome;
import io.almanac.internal.protocol.TaskProtocol.DueFire;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.schedule.TaskSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.Done;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The two policies of the backfill layer as pure decisions, kept apart (R11): {@link RetryPolicy}
 * decides what follows a failed or timed-out attempt ({@link AttemptLifecycle#afterFailure}), {@link
 * CatchUpPolicy} what happens to windows missed while nothing fired them ({@link
 * FireDecider#catchUp}); an operator's backfill of a range ({@link OperatorActions#backfill}) runs
 * whatever either says. One test per default, per back-off and per catch-up mode (R12-R15).
 */
class RetryAndCatchUpTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  /** The daily window 2026-11-29 of a task at 08:00 Asia/Shanghai: it starts 16:00Z the day before. */
  private static final String W = "2026-11-29";
  private static final Instant START = Instant.parse("2026-11-28T16:00:00Z");
  private static final Instant DUE = Instant.parse("2026-11-29T00:00:00Z");

  private final FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);
  private final OperatorActions operator = new OperatorActions("t", SETTINGS);

  static TaskSpec.Builder spec() {
    return TaskSpec.builder("t").cron("0 0 8 * * ? Asia/Shanghai").job("j")
        .lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(1)).factor(1.5).minSamples(20).build());
  }

  static State fold(State s, List<Event> events) {
    List<String> violations = new ArrayList<>();
    for (Event e : events) {
      s = Evolve.apply(s, e, HOT, (w, from, to, ev) -> violations.add(w + ": " + from + " -> " + to));
    }
    assertTrue(violations.isEmpty(), () -> "decisions emit only allowed transitions: " + violations);
    return s;
  }

  static State defined(TaskSpec spec) {
    return fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), DUE.minus(Duration.ofDays(1)))));
  }

  private static Fire onTime(String window, Instant start, Instant due) {
    return new Fire(WindowKey.of(window), start, start.plus(Duration.ofDays(1)), due, FireKind.ON_TIME, null);
  }

  /** The window fired on time and its next attempt started. */
  State running(State s, Instant now) {
    if (s.window(W).isEmpty()) {
      Decided<FireOutcome> d = fires.fire(s, onTime(W, START, DUE), DUE);
      s = fold(s, d.events());
    }
    Decided<TaskProtocol.AttemptGrant> started = attempts.start(s, WindowKey.of(W), "node-1", now);
    assertTrue(!started.refused(), () -> "start refused: " + started.refusal());
    return fold(s, started.events());
  }

  /** The running attempt fails at {@code now}: the events that follow. */
  List<Event> fail(State s, Instant now) {
    Decided<Done> d = attempts.finish(s, new TaskProtocol.FinishAttempt(WindowKey.of(W), s.windows().get(W).attempt(),
        JobResult.failure("upstream 503"), Duration.ofSeconds(3), null), now);
    assertTrue(!d.refused(), () -> "finish refused: " + d.refusal());
    return d.events();
  }

  /**
   * Runs the window until it is FINAL_FAILED, every attempt failing as soon as it starts, and
   * returns the delay of every retry from the failure before it.
   */
  List<Duration> delaysUntilFinal(TaskSpec spec) {
    State s = defined(spec);
    Instant now = DUE;
    List<Duration> delays = new ArrayList<>();
    while (true) {
      s = running(s, now);
      List<Event> after = fail(s, now);
      s = fold(s, after);
      if (s.windows().get(W).status() == InstanceStatus.FINAL_FAILED) {
        return delays;
      }
      RetryScheduled r = after.stream().filter(RetryScheduled.class::isInstance).map(RetryScheduled.class::cast)
          .findFirst().orElseThrow();
      assertEquals(delays.size() + 1, r.retryNumber());
      delays.add(Duration.between(now, r.dueAt()));
      now = r.dueAt();
      s = fold(s, attempts.dueRetries(s, now));
      assertEquals(InstanceStatus.PENDING, s.windows().get(W).status());
      assertEquals(RunKind.RETRY, s.windows().get(W).runKind(), "R18: the job knows it is a retry");
    }
  }

  private static InstanceFinalFailed finalFailed(List<Event> events) {
    return events.stream().filter(InstanceFinalFailed.class::isInstance).map(InstanceFinalFailed.class::cast)
        .findFirst().orElseThrow(() -> new AssertionError("no InstanceFinalFailed in " + events));
  }

  // --- retries ---------------------------------------------------------------------------------

  @Test
  @DisplayName("R12 default: a failed attempt of a task not marked for retry is FINAL_FAILED at once with 0 retries, saying why")
  void defaultFailureIsFinalAtOnce() {
    State s = running(defined(spec().build()), DUE);
    List<Event> after = fail(s, DUE.plusSeconds(3));
    InstanceFinalFailed ff = finalFailed(after);
    assertEquals("not retried: the task is not marked for retry (max retries 0, R12); last: upstream 503", ff.reason());
    // the two facts the reason is made of are carried as they are: no reader takes the text apart
    assertEquals("not retried: the task is not marked for retry (max retries 0, R12)", ff.decision());
    assertEquals("upstream 503", ff.lastCause());
    State done = fold(s, after);
    assertEquals(InstanceStatus.FINAL_FAILED, done.windows().get(W).status());
    assertEquals(0, done.windows().get(W).retries());
    TaskViews views = new TaskViews("t", java.time.Clock.systemUTC(), org.slf4j.LoggerFactory.getLogger(RetryAndCatchUpTest.class));
    assertEquals(0, views.windows(done, w -> true).windows().get(0).maxRetries(), "R29 max_retry 0");
  }

  @Test
  @DisplayName("R12/R23 default: a timed-out attempt of a task not marked for retry is FINAL_FAILED at once as well")
  void defaultTimeOutIsFinalAtOnce() {
    State s = running(defined(spec().build()), DUE);
    Instant leaseEnd = s.windows().get(W).leaseUntil();
    List<Event> settled = attempts.settle(s, id -> ExecutorLiveness.State.RUNS, leaseEnd);
    assertInstanceOf(AttemptTimedOut.class, settled.get(0));
    assertTrue(finalFailed(settled).reason().startsWith("not retried: the task is not marked for retry"));
  }

  @Test
  @DisplayName("R15 a task marked for retry by a factory retries 3 times, then FINAL_FAILED naming the cap")
  void markedTaskRetriesThreeTimes() {
    assertEquals(List.of(Duration.ZERO, Duration.ZERO, Duration.ZERO), delaysUntilFinal(spec().retry(RetryPolicy.immediate()).build()));
    State s = defined(spec().retry(RetryPolicy.immediate()).build());
    for (int i = 0; i < 3; i++) {
      s = running(s, DUE);
      s = fold(s, fail(s, DUE));
    }
    s = running(s, DUE);
    InstanceFinalFailed capped = finalFailed(fail(s, DUE));
    assertTrue(capped.reason().startsWith("retry cap 3 reached; last: upstream 503"));
    assertEquals("retry cap 3 reached", capped.decision());
    assertEquals("upstream 503", capped.lastCause());
  }

  @Test
  @DisplayName("R15 the builder's maxRetries alone marks the task: that many immediate retries")
  void maxRetriesAloneRetries() {
    assertEquals(List.of(Duration.ZERO, Duration.ZERO), delaysUntilFinal(spec().maxRetries(2).build()));
  }

  @Test
  @DisplayName("R13 immediate: the retry is PENDING in the same write as the failure")
  void immediateRetryIsPendingAtOnce() {
    State s = running(defined(spec().retry(RetryPolicy.immediate()).build()), DUE);
    State after = fold(s, fail(s, DUE.plusSeconds(3)));
    assertEquals(InstanceStatus.PENDING, after.windows().get(W).status());
    assertEquals(1, after.windows().get(W).retries());
  }

  @Test
  @DisplayName("R13 delays: 5, 15, 30 minutes after each failure, the last repeating up to the cap")
  void delaysInOrder() {
    RetryPolicy p = RetryPolicy.delayed(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)).withMaxRetries(4);
    assertEquals(List.of(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30), Duration.ofMinutes(30)),
        delaysUntilFinal(spec().retry(p).build()));
  }

  @Test
  @DisplayName("R13/R16 exponential: 5, 10, 20 minutes for 1 h of recovery at x2, capped at the maximum delay")
  void exponentialDoubles() {
    assertEquals(List.of(Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(20)),
        delaysUntilFinal(spec().retry(RetryPolicy.forRecoveryTime(Duration.ofHours(1), Duration.ofMinutes(5), 2.0)).build()));
    assertEquals(List.of(Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(15), Duration.ofMinutes(15)),
        delaysUntilFinal(spec().retry(RetryPolicy.exponential(Duration.ofMinutes(5), 2.0, Duration.ofMinutes(15), 0.0)
            .withMaxRetries(4)).build()));
  }

  @Test
  @DisplayName("R13 windowed: no retry is due at or after window start + span; the window is FINAL_FAILED, naming the span")
  void spanEndsRetries() {
    // window start 16:00Z, span 9 h: 01:00Z. Failing at 00:00Z, a retry 30 min later fits; one 2 h later does not.
    RetryPolicy p = RetryPolicy.delayed(Duration.ofMinutes(30), Duration.ofHours(2)).withinSpan(Duration.ofHours(9));
    State s = running(defined(spec().retry(p).build()), DUE);
    List<Event> first = fail(s, DUE);
    assertInstanceOf(RetryScheduled.class, first.get(1));
    s = fold(s, first);
    Instant due = DUE.plus(Duration.ofMinutes(30));
    s = fold(s, attempts.dueRetries(s, due));
    s = running(s, due);
    InstanceFinalFailed ff = finalFailed(fail(s, due));
    assertTrue(ff.reason().startsWith("retry 2 would be outside the retry span PT9H after the window's start "
        + START + "; last: upstream 503"), ff.reason());
    assertEquals("upstream 503", ff.lastCause());
  }

  // --- catch-up --------------------------------------------------------------------------------

  private static DueFire day(int dayOfMonth) {
    Instant start = START.plus(Duration.ofDays(dayOfMonth - 29));
    return new DueFire(WindowKey.of("2026-11-" + dayOfMonth), start, start.plus(Duration.ofDays(1)), start.plus(Duration.ofHours(8)));
  }

  private List<FireOutcome> catchUp(State s, Instant now, DueFire... windows) {
    Decided<CatchUpOutcome> d = fires.catchUp(s, List.of(windows), now);
    assertTrue(!d.refused(), () -> "catch-up refused: " + d.refusal());
    return d.reply().apply(fold(s, d.events())).outcomes();
  }

  @Test
  @DisplayName("R12 default: missed windows inside the horizon are MISSED (BACKFILL_NOT_ALLOWED), older ones OUTSIDE_HORIZON")
  void defaultCatchUpRunsNothing() {
    State s = defined(spec().build());
    Instant now = DUE; // 2026-11-28 was due exactly 24 h ago: at the edge of the default horizon, inside
    Decided<CatchUpOutcome> d = fires.catchUp(s, List.of(day(27), day(28), day(29)), now);
    assertEquals(MissReason.OUTSIDE_HORIZON, ((WindowMissed) d.events().get(0)).reason());
    TaskJournal.WindowsSkipped range = (TaskJournal.WindowsSkipped) d.events().get(1);
    assertEquals(MissReason.BACKFILL_NOT_ALLOWED, range.missReason());
    assertEquals(2, range.count(), "the two windows missed alike are one skip range");
    assertTrue(range.detail().contains("does not catch up missed windows (catch-up mode NONE)"));
  }

  @Test
  @DisplayName("R14 ALL: every missed window inside the horizon runs as a backfill; older ones are MISSED")
  void allRunsInsideTheHorizon() {
    State s = defined(spec().catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(36))).build());
    Instant now = Instant.parse("2026-11-29T12:00:00Z"); // 2026-11-28 was due 36 h ago: inside, at the edge
    List<FireOutcome> outcomes = catchUp(s, now, day(27), day(28), day(29));
    assertEquals(List.of(Decision.MISSED, Decision.SCHEDULED, Decision.SCHEDULED), outcomes.stream().map(FireOutcome::decision).toList());
    assertTrue(outcomes.get(0).reason().startsWith(MissReason.OUTSIDE_HORIZON.name()), outcomes.get(0).reason());
    Decided<CatchUpOutcome> d = fires.catchUp(s, List.of(day(29)), now);
    assertEquals(RunKind.BACKFILL, ((InstanceScheduled) d.events().get(0)).kind(), "R18: a catch-up runs as a backfill");
  }

  @Test
  @DisplayName("R13 ALL with a span: a missed window runs while now < its start + span, else MISSED naming the span")
  void spanEndsCatchUp() {
    State s = defined(spec().catchUp(CatchUpPolicy.all().withinSpan(Duration.ofHours(24))).build());
    Instant now = Instant.parse("2026-11-29T12:00:00Z"); // 2026-11-29 started 20 h ago, 2026-11-28 44 h ago
    List<FireOutcome> outcomes = catchUp(s, now, day(28), day(29));
    assertEquals(Decision.SCHEDULED, outcomes.get(1).decision());
    assertEquals(Decision.MISSED, outcomes.get(0).decision(), "due 36 h ago: outside the default horizon of 24 h");
    State wide = defined(spec().catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(48)).withinSpan(Duration.ofHours(24)))
        .build());
    FireOutcome o = catchUp(wide, now, day(28)).get(0);
    assertEquals(Decision.MISSED, o.decision());
    assertTrue(o.reason().startsWith("BACKFILL_NOT_ALLOWED: due 2026-11-28T00:00:00Z, outside the catch-up span PT24H"), o.reason());
  }

  @Test
  @DisplayName("R11 retries and catch-up are separate: retries without catch-up, and catch-up without retries")
  void policiesAreIndependent() {
    Instant now = Instant.parse("2026-11-29T12:00:00Z");
    State retriesOnly = defined(spec().retry(RetryPolicy.immediate()).build());
    assertEquals(Decision.MISSED, catchUp(retriesOnly, now, day(29)).get(0).decision());
    State catchUpOnly = defined(spec().catchUp(CatchUpPolicy.all()).build());
    assertEquals(Decision.SCHEDULED, catchUp(catchUpOnly, now, day(29)).get(0).decision());
    State r = running(catchUpOnly, DUE);
    assertTrue(finalFailed(fail(r, DUE)).reason().startsWith("not retried"));
  }

  @Test
  @DisplayName("R31 an operator's backfill of a range runs the windows whatever the catch-up policy says")
  void operatorBackfillIgnoresCatchUpPolicy() {
    State s = defined(spec().build()); // catch-up NONE, no retries
    TaskSchedule schedule = new TaskSchedule(CronSchedule.parse("0 0 8 * * ?", "Asia/Shanghai"), s.spec().dst().toPolicy(), WindowSpec.DAILY);
    Instant now = Instant.parse("2026-11-29T12:00:00Z");
    Decided<TaskProtocol.BackfillReport> d = operator.backfill(s, schedule, Instant.parse("2026-11-20T00:00:00Z"),
        Instant.parse("2026-11-23T00:00:00Z"), now);
    assertEquals(List.of(Decision.SCHEDULED, Decision.SCHEDULED, Decision.SCHEDULED),
        d.reply().apply(s).outcomes().stream().map(FireOutcome::decision).toList());
    State after = fold(s, d.events());
    assertEquals(RunKind.BACKFILL, after.windows().get("2026-11-21").runKind());
    assertEquals(InstanceStatus.PENDING, after.windows().get("2026-11-21").status());
  }
}
