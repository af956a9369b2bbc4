package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.Evolve;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.TaskPaused;
import io.almanac.journal.TaskJournal.TaskRemoved;
import io.almanac.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The task lifecycle's pure decisions, without actors: removing a task (R31; its history stays for
 * the audit, R28) and a one-shot task's run now. Every case folds its events through {@link Evolve}.
 */
class LifecycleDecisionsTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private final FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);
  private final OperatorActions operator = new OperatorActions("t", SETTINGS);

  /** Every second, ALLOW (so several windows run at once), backfillable with a 5 min retry. */
  private static TaskSpec spec() {
    return TaskSpec.builder("t").cron("* * * * * ? UTC").window("per-firing").overlap(io.almanac.OverlapPolicy.ALLOW)
        .retry(RetryPolicy.delayed(Duration.ofMinutes(5))).maxRetries(1)
        .lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(1)).factor(1.5).minSamples(20).build()).build();
  }

  private static State fold(State s, List<Event> events) {
    return CoreTest.fold(s, events);
  }

  private static String key(int second) {
    return T0.plusSeconds(second).toString();
  }

  private State fired(State s, int second) {
    Instant at = T0.plusSeconds(second);
    Decided<FireOutcome> d = fires.fire(s, new Fire(WindowKey.of(key(second)), at, at, at, FireKind.ON_TIME, null), at);
    assertEquals(Decision.SCHEDULED, d.reply().apply(s).decision());
    return fold(s, d.events());
  }

  private State started(State s, int second) {
    Decided<TaskProtocol.AttemptGrant> d = attempts.start(s, WindowKey.of(key(second)), "node-1", T0.plusSeconds(second));
    assertFalse(d.refused(), () -> "start refused: " + d.refusal());
    return fold(s, d.events());
  }

  private State finished(State s, int second, JobResult result) {
    Decided<org.apache.pekko.Done> d = attempts.finish(s, new TaskProtocol.FinishAttempt(WindowKey.of(key(second)), 1, result,
        Duration.ofSeconds(1), null), T0.plusSeconds(second + 1));
    assertFalse(d.refused(), () -> "finish refused: " + d.refusal());
    return fold(s, d.events());
  }

  /** Windows in every status a removal meets: SUCCEEDED (0), RETRY_WAIT (1), RUNNING (2), PENDING (3). */
  private State busy() {
    State s = fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec()), T0)));
    s = finished(started(fired(s, 0), 0), 0, JobResult.success("ok"));
    s = finished(started(fired(s, 1), 1), 1, JobResult.failure("boom"));
    s = started(fired(s, 2), 2);
    s = fired(s, 3);
    assertEquals(Map.of(key(0), InstanceStatus.SUCCEEDED, key(1), InstanceStatus.RETRY_WAIT, key(2), InstanceStatus.RUNNING,
        key(3), InstanceStatus.PENDING), statuses(s));
    return s;
  }

  private static Map<String, InstanceStatus> statuses(State s) {
    return s.windows().values().stream().collect(Collectors.toMap(w -> w.key(), w -> w.status()));
  }

  @Test
  @DisplayName("R31: removing a task cancels its PENDING, RUNNING and RETRY_WAIT windows with a reason, then records "
      + "TaskRemoved; done windows keep their status")
  void removalCancelsOpenWindowsAndKeepsHistory() {
    var byRemoval = io.almanac.journal.TaskJournal.CancelCause.TASK_REMOVED; // typed: readers never compare the reason
    State s = busy();
    Instant now = T0.plusSeconds(10);
    Decided<org.apache.pekko.Done> d = operator.remove(s, now);
    assertFalse(d.refused());
    assertEquals(List.of(new InstanceCancelled(key(1), 1, "task removed", now, byRemoval),
        new InstanceCancelled(key(2), 1, "task removed", now, byRemoval),
        new InstanceCancelled(key(3), 0, "task removed", now, byRemoval), new TaskRemoved(now)), d.events());
    State after = fold(s, d.events());
    assertTrue(after.removed());
    assertEquals(now, after.removedAt());
    assertTrue(after.defined(), "the spec is kept: the history's queries need it");
    assertEquals(Map.of(key(0), InstanceStatus.SUCCEEDED, key(1), InstanceStatus.CANCELLED, key(2), InstanceStatus.CANCELLED,
        key(3), InstanceStatus.CANCELLED), statuses(after));
    assertFalse(after.hasActive());
    assertEquals(List.of(), Reactions.offerable(after));
    assertNull(Reactions.nextWake(after, Duration.ofMinutes(1)), "nothing left to wake it for");
    List<ExecutorProtocol.CancelAttempt> cancels = Reactions.cancels("t",
        Evolve.applyAll(s, d.events(), new io.almanac.journal.HotState(1_000, Duration.ofDays(3650)), Evolve.Violations.IGNORE).changes());
    assertTrue(cancels.contains(new ExecutorProtocol.CancelAttempt("t", key(2), 1, "task removed")), "the running job is cancelled: " + cancels);
  }

  @Test
  @DisplayName("R31: removing a removed task writes nothing, so a removal can be repeated")
  void removalIsIdempotent() {
    State removed = fold(busy(), operator.remove(busy(), T0.plusSeconds(10)).events());
    Decided<org.apache.pekko.Done> again = operator.remove(removed, T0.plusSeconds(20));
    assertFalse(again.refused());
    assertEquals(List.of(), again.events());
  }

  @Test
  @DisplayName("R31/R33: a removed task's refusal is typed REMOVED and names the task and the removal")
  void removedRefusalIsTyped() {
    State removed = fold(busy(), operator.remove(busy(), T0.plusSeconds(10)).events());
    RefusedException e = assertInstanceOf(RefusedException.class, operator.refuseRemoved(removed).refusal());
    assertEquals(RefusedException.Reason.REMOVED, e.reason());
    assertEquals("task 't' was removed at " + T0.plusSeconds(10) + ": its history answers queries; register it again to "
        + "define it anew", e.getMessage());
  }

  @Test
  @DisplayName("R33: a refused backfill range and a spec-less define carry the field and the value as data, worded in the message")
  void invalidArgumentRefusalsAreTyped() {
    State s = busy();
    Instant later = T0.plusSeconds(3600);
    RefusedException order = assertInstanceOf(RefusedException.class,
        operator.backfill(s, Schedules.of(spec()), later, T0, later).refusal());
    assertEquals(RefusedException.Reason.INVALID_ARGUMENT, order.reason());
    assertEquals("from", order.field());
    assertEquals(later.toString(), order.value());
    assertEquals("from '" + later + "' is invalid: must be before to '" + T0 + "'", order.getMessage());
    RefusedException future = assertInstanceOf(RefusedException.class,
        operator.backfill(s, Schedules.of(spec()), T0, later, T0.plusSeconds(60)).refusal());
    assertEquals("to", future.field());
    assertEquals(later.toString(), future.value());
    RefusedException none = assertInstanceOf(RefusedException.class, operator.define(s, null, T0).refusal());
    assertEquals("spec", none.field());
    assertNull(none.value()); // missing, not the text 'null'
    assertTrue(none.getMessage().startsWith("spec is missing: "), none.getMessage());
  }

  @Test
  @DisplayName("R31: defining a removed task again, even with the same spec, writes SpecDefined: it is live and not paused, "
      + "its windows kept (a window that ran is not run again, R5)")
  void definingARemovedTaskAgainBringsItBack() {
    State s = fold(busy(), List.of(new TaskPaused(T0.plusSeconds(5))));
    State removed = fold(s, operator.remove(s, T0.plusSeconds(10)).events());
    Decided<org.apache.pekko.Done> d = operator.define(removed, SpecRecord.of(spec()), T0.plusSeconds(20));
    assertEquals(List.of(new SpecDefined(SpecRecord.of(spec()), T0.plusSeconds(20))), d.events());
    State back = fold(removed, d.events());
    assertFalse(back.removed());
    assertFalse(back.paused(), "a task defined anew starts as a new task would");
    assertEquals(statuses(removed), statuses(back), "its history stays");
    Instant at = T0.plusSeconds(0);
    Decided<FireOutcome> again = fires.fire(back, new Fire(WindowKey.of(key(0)), at, at, at, FireKind.ON_TIME, null), T0.plusSeconds(21));
    assertEquals(Decision.DUPLICATE, again.reply().apply(back).decision(), "the window that ran before the removal");
    assertEquals(List.of(), operator.define(back, SpecRecord.of(spec()), T0.plusSeconds(30)).events(), "defined and unchanged: nothing");
  }

  @Test
  @DisplayName("R31: run now of a one-shot task runs its one window, whenever it is asked")
  void runNowOfAOneShotRunsItsWindow() {
    Instant at = Instant.parse("2026-12-01T08:00:00Z");
    TaskSpec once = TaskSpec.builder("t").once(at).build();
    State s = fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(once), T0)));
    Decided<FireOutcome> d = operator.runNow(s, Schedules.of(once), T0.plusSeconds(60));
    assertEquals(new FireOutcome(at.toString(), Decision.SCHEDULED, RunKind.MANUAL.name()), d.reply().apply(s));
    State after = fold(s, d.events());
    assertEquals(at, after.windows().get(at.toString()).start());
    Decided<FireOutcome> dueLater = fires.fire(after, new Fire(WindowKey.of(at.toString()), at, at, at, FireKind.ON_TIME, null), at);
    assertEquals(Decision.DUPLICATE, dueLater.reply().apply(after).decision(), "the trigger's fire at its instant finds it run");
  }
}
