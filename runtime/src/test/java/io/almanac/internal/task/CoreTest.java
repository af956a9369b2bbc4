package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.RefusedException;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The pure core without actors: {@link Evolve} (the one place a status changes), {@link
 * FireDecider} and {@link AttemptLifecycle}. Every case folds its events through {@code Evolve},
 * as the entity and the audit do.
 */
class CoreTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final LeasePolicy HOUR = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(1)).factor(1.5).minSamples(20).build();

  private final FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);

  private static TaskSpec.Builder spec() {
    return TaskSpec.builder("t").cron("* * * * * ? UTC").window("per-firing").lease(HOUR);
  }

  /** Folds the events through {@code Evolve}, failing on any transition the table refuses. */
  static State fold(State s, List<Event> events) {
    List<String> violations = new ArrayList<>();
    for (Event e : events) {
      s = Evolve.apply(s, e, HOT, (w, from, to, ev) -> violations.add(w + ": " + from + " -> " + to));
    }
    assertTrue(violations.isEmpty(), () -> "decisions emit only allowed transitions: " + violations);
    return s;
  }

  private static State defined(TaskSpec spec) {
    return fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), T0)));
  }

  private static Fire fire(int second) {
    Instant at = T0.plusSeconds(second);
    return new Fire(WindowKey.of(at.toString()), at, at.plusSeconds(1), at, FireKind.ON_TIME, null);
  }

  private State fired(State s, int second) {
    Decided<FireOutcome> d = fires.fire(s, fire(second), T0.plusSeconds(second));
    assertEquals(Decision.SCHEDULED, d.reply().apply(s).decision());
    return fold(s, d.events());
  }

  private State started(State s, int second, String executor) {
    Decided<TaskProtocol.AttemptGrant> d = attempts.start(s, fire(second).window(), executor, T0.plusSeconds(second));
    assertTrue(!d.refused(), () -> "start refused: " + d.refusal());
    return fold(s, d.events());
  }

  @Test
  @DisplayName("R20: evolve refuses a transition the table does not allow, reports it and keeps the status; replay never throws")
  void evolveKeepsStatusOnRefusedTransition() {
    State s = started(fired(defined(spec().build()), 0), 0, "node-1");
    String key = fire(0).window().value();
    s = fold(s, List.of(new AttemptSucceeded(key, 1, Duration.ofSeconds(1), "ok", null, T0.plusSeconds(1))));
    List<String> seen = new ArrayList<>();
    State after = Evolve.apply(s, new InstanceScheduled(key, T0, T0.plusSeconds(1), T0, RunKind.RETRY, T0.plusSeconds(2)), HOT,
        (w, from, to, e) -> seen.add(from + "->" + to));
    assertEquals(List.of("SUCCEEDED->PENDING"), seen);
    assertEquals(InstanceStatus.SUCCEEDED, after.windows().get(key).status(), "no window succeeds twice");
    State again = Evolve.apply(after, new AttemptSucceeded(key, 2, Duration.ofSeconds(1), "twice", null, T0.plusSeconds(3)), HOT,
        (w, from, to, e) -> seen.add(from + "->" + to));
    assertEquals("ok", again.windows().get(key).summary(), "a refused event changes no result either");
  }

  @Test
  @DisplayName("R28: a journal reader folds a task's events with Evolve.replay to the state the entity holds")
  void replayFoldsAJournal() {
    State s = started(fired(defined(spec().build()), 0), 0, "node-1");
    String key = fire(0).window().value();
    List<Event> journal = List.of(new SpecDefined(SpecRecord.of(spec().build()), T0),
        new InstanceScheduled(key, T0, T0.plusSeconds(1), T0, RunKind.FIRST, T0),
        new AttemptStarted(key, 1, RunKind.FIRST, T0.plus(Duration.ofHours(1)), "node-1", T0));
    State replayed = Evolve.replay(journal, HOT, (w, from, to, e) -> { throw new AssertionError(w + " " + from + "->" + to); },
        20);
    assertEquals(s.windows().get(key).status(), replayed.windows().get(key).status());
    assertEquals(InstanceStatus.RUNNING, replayed.windows().get(key).status());
    assertEquals(1, replayed.windows().get(key).attempt());
  }

  @Test
  @DisplayName("R20: every status-changing event maps to exactly one target status, used by the entity and the audit")
  void targetStatusMapping() {
    String k = "w";
    assertEquals(InstanceStatus.PENDING, Evolve.targetStatus(null, new InstanceScheduled(k, T0, T0, T0, RunKind.FIRST, T0)).get());
    assertEquals(InstanceStatus.SKIPPED,
        Evolve.targetStatus(null, new FireSkipped(k, T0, T0, T0, SkipReason.PAUSED, "p", T0)).get());
    assertTrue(Evolve.targetStatus(InstanceStatus.SUCCEEDED, new FireSkipped(k, T0, T0, T0, SkipReason.WINDOW_EXISTS, "x", T0))
        .isEmpty(), "a skip recorded for an existing window changes nothing");
    assertEquals(InstanceStatus.RUNNING, Evolve.targetStatus(InstanceStatus.PENDING,
        new AttemptStarted(k, 1, RunKind.FIRST, T0, "n", T0)).get());
    assertEquals(InstanceStatus.TIMED_OUT, Evolve.targetStatus(InstanceStatus.RUNNING,
        new AttemptTimedOut(k, 1, T0, null, T0)).get());
    assertEquals(InstanceStatus.FINAL_FAILED, Evolve.targetStatus(InstanceStatus.FAILED, new InstanceFinalFailed(k, "r", T0)).get());
  }

  @Test
  @DisplayName("R6: overlap SKIP does not count a window that is queued but not started as the previous run")
  void skipIgnoresPendingWindow() {
    State s = fired(defined(spec().build()), 0); // PENDING, not started (a slow start)
    Decided<FireOutcome> d = fires.fire(s, fire(1), T0.plusSeconds(1));
    assertEquals(Decision.SCHEDULED, d.reply().apply(s).decision());
    State after = fold(s, d.events());
    assertEquals(InstanceStatus.PENDING, after.windows().get(fire(0).window().value()).status());
    assertEquals(InstanceStatus.PENDING, after.windows().get(fire(1).window().value()).status());
  }

  @Test
  @DisplayName("R6: overlap SKIP queues at most two windows that have not started; an overloaded task skips the next (BUFFER_FULL)")
  void skipBoundsTheQueue() {
    State s = fired(fired(defined(spec().build()), 0), 1); // two windows queued, none started
    Decided<FireOutcome> d = fires.fire(s, fire(2), T0.plusSeconds(2));
    TaskJournal.SkipRangeOpened skipped = assertInstanceOf(TaskJournal.SkipRangeOpened.class, d.events().get(0));
    assertEquals(SkipReason.BUFFER_FULL, skipped.skipReason());
    assertTrue(skipped.detail().contains(fire(0).window().value()) && skipped.detail().contains(fire(1).window().value()),
        skipped.detail());
  }

  @Test
  @DisplayName("R6: overlap SKIP skips a fresh window while the previous attempt runs, naming it")
  void skipWhileRunning() {
    State s = started(fired(defined(spec().build()), 0), 0, "node-1");
    Decided<FireOutcome> d = fires.fire(s, fire(1), T0.plusSeconds(1));
    TaskJournal.SkipRangeOpened skipped = assertInstanceOf(TaskJournal.SkipRangeOpened.class, d.events().get(0));
    assertEquals(SkipReason.PREVIOUS_RUNNING, skipped.skipReason());
    assertTrue(skipped.detail().contains(fire(0).window().value()), skipped.detail());
  }

  @Test
  @DisplayName("R24: an attempt whose executor is gone is settled (interrupted NODE_LOST, then resumed) before fresh fires")
  void settlesDeadExecutorsAttempt() {
    State s = started(fired(defined(spec().build()), 0), 0, "node-1#old");
    List<Event> settled = attempts.settle(s,
        id -> id.equals("node-1#old") ? ExecutorLiveness.State.ENDED : ExecutorLiveness.State.RUNS, T0.plusSeconds(1));
    TaskJournal.AttemptInterrupted i = assertInstanceOf(TaskJournal.AttemptInterrupted.class, settled.get(0));
    assertEquals(io.almanac.InterruptCause.NODE_LOST, i.cause());
    assertTrue(i.detail().contains("executor node-1#old is gone"), i.detail());
    assertEquals(RunKind.RESUME, assertInstanceOf(InstanceScheduled.class, settled.get(1)).kind());
    State after = fold(s, settled);
    Decided<FireOutcome> d = fires.fire(after, fire(1), T0.plusSeconds(1));
    assertEquals(Decision.SCHEDULED, d.reply().apply(after).decision(), "the dead attempt is not the previous run");
    assertTrue(attempts.settle(s, id -> ExecutorLiveness.State.RUNS, T0.plusSeconds(1)).isEmpty(), "a live attempt within its lease stays");
  }

  @Test
  @DisplayName("R24: an attempt whose executor left the cluster but whose executor lease has not ended yet is not "
      + "settled, not even past its own lease: no new attempt starts beside a job that may still run; once the "
      + "executor is fenced out it is interrupted FENCED")
  void waitsForAGoneExecutorsLease() {
    State s = started(fired(defined(spec().retry(RetryPolicy.immediate()).build()), 0), 0, "node-1#1");
    assertTrue(attempts.settle(s, id -> ExecutorLiveness.State.ENDING, T0.plusSeconds(1)).isEmpty(),
        "membership alone (the executor's node left) is not enough to run again");
    assertTrue(attempts.settle(s, id -> ExecutorLiveness.State.ENDING, T0.plus(Duration.ofHours(2))).isEmpty(),
        "past its lease too: the executor may still run it");
    List<Event> settled = attempts.settle(s, id -> ExecutorLiveness.State.FENCED, T0.plus(Duration.ofHours(2)));
    assertEquals(io.almanac.InterruptCause.FENCED,
        assertInstanceOf(TaskJournal.AttemptInterrupted.class, settled.get(0)).cause());
    assertInstanceOf(InstanceScheduled.class, settled.get(1));
  }

  @Test
  @DisplayName("R23: a lease that ended is settled as a time-out, with the lease as a duration sample")
  void settlesExpiredLease() {
    State s = started(fired(defined(spec().retry(RetryPolicy.immediate()).build()), 0), 0, "node-1");
    Instant late = T0.plus(Duration.ofHours(2));
    List<Event> settled = attempts.settle(s, id -> ExecutorLiveness.State.RUNS, late);
    AttemptTimedOut t = assertInstanceOf(AttemptTimedOut.class, settled.get(0));
    assertEquals(Duration.ofHours(1), t.duration());
    State after = fold(s, settled);
    assertEquals(1, after.samples().count());
  }

  @Test
  @DisplayName("R21: the attempt number fences: a result from a superseded attempt is recorded late and changes nothing")
  void fencesLateResults() {
    State s = started(fired(defined(spec().build()), 0), 0, "node-1");
    String key = fire(0).window().value();
    Decided<org.apache.pekko.Done> wrong = attempts.finish(s,
        new TaskProtocol.FinishAttempt(WindowKey.of(key), 2, JobResult.success("x"), Duration.ZERO, null), T0.plusSeconds(1));
    assertEquals(RefusedException.Reason.INVALID_ARGUMENT, ((RefusedException) wrong.refusal()).reason());
    Decided<org.apache.pekko.Done> ok = attempts.finish(s,
        new TaskProtocol.FinishAttempt(WindowKey.of(key), 1, JobResult.success("x"), Duration.ofMillis(5), null), T0.plusSeconds(1));
    State done = fold(s, ok.events());
    assertEquals(InstanceStatus.SUCCEEDED, done.windows().get(key).status());
    Decided<org.apache.pekko.Done> again = attempts.finish(done,
        new TaskProtocol.FinishAttempt(WindowKey.of(key), 1, JobResult.failure("boom"), Duration.ofMillis(5), null),
        T0.plusSeconds(2));
    assertTrue(again.events().isEmpty(), "the same attempt's result again is acknowledged without an event");
    assertNull(again.refusal());
  }

  @Test
  @DisplayName("R33: a command about an unknown window is refused with a typed reason")
  void typedRefusal() {
    State s = defined(spec().build());
    Decided<TaskProtocol.AttemptGrant> d = attempts.start(s, WindowKey.of("nope"), "n", T0);
    RefusedException r = assertInstanceOf(RefusedException.class, d.refusal());
    assertEquals(RefusedException.Reason.UNKNOWN_WINDOW, r.reason());
    assertTrue(r.getMessage().contains("'nope'"), r.getMessage());
  }
}
