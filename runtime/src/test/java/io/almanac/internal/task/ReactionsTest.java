package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Alert;
import io.almanac.LeasePolicy;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowChange;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What follows a write ({@link Reactions}), as plain functions of the state and the events written. */
class ReactionsTest {

  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650));
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final LeasePolicy HOUR = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(1)).factor(1.5).minSamples(20).build();

  private static State state(OverlapPolicy overlap, Event... events) {
    TaskSpec spec = TaskSpec.builder("t").cron("0 * * * * ? UTC").window("per-firing").lease(HOUR).overlap(overlap).build();
    State s = Evolve.fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), T0)), HOT);
    return Evolve.fold(s, List.of(events), HOT);
  }

  private static InstanceScheduled scheduled(String w, int minute, RunKind kind) {
    Instant start = T0.plus(Duration.ofMinutes(minute));
    return new InstanceScheduled(w, start, start.plusSeconds(60), start, kind, start);
  }

  private static AttemptStarted started(String w, int minute) {
    Instant at = T0.plus(Duration.ofMinutes(minute));
    return new AttemptStarted(w, 1, RunKind.FIRST, at.plus(Duration.ofHours(1)), "node-1", at);
  }

  @Test
  @DisplayName("R11/R17: PENDING windows are offered fresh first, then retries, then backlog; oldest first within each")
  void offerOrder() {
    State s = state(OverlapPolicy.ALLOW, scheduled("b1", 1, RunKind.BACKFILL), scheduled("f5", 5, RunKind.FIRST),
        scheduled("m3", 3, RunKind.MANUAL), scheduled("b0", 0, RunKind.BACKFILL));
    assertEquals(List.of("m3", "f5", "b0", "b1"), Reactions.offerable(s).stream().map(WindowState::key).toList());
  }

  @Test
  @DisplayName("R6: under a non-ALLOW overlap policy one window is offered, and none while another runs")
  void offerOneAtATime() {
    State pending = state(OverlapPolicy.BUFFER_ONE, scheduled("a", 0, RunKind.FIRST), scheduled("b", 1, RunKind.FIRST));
    assertEquals(List.of("a"), Reactions.offerable(pending).stream().map(WindowState::key).toList());
    State running = Evolve.fold(pending, List.of(started("a", 0)), HOT);
    assertEquals(List.of(), Reactions.offerable(running));
  }

  @Test
  @DisplayName("R21: only a fresh first run alone, with nothing running or waiting, may start with its fire")
  void startsAtOnce() {
    State empty = state(OverlapPolicy.SKIP);
    assertTrue(HeldFire.startsAtOnce(empty, List.of(scheduled("a", 0, RunKind.FIRST))));
    assertFalse(HeldFire.startsAtOnce(empty, List.of(scheduled("a", 0, RunKind.BACKFILL))), "catch-up: backlog path");
    State waiting = state(OverlapPolicy.SKIP, scheduled("a", 0, RunKind.FIRST));
    assertFalse(HeldFire.startsAtOnce(waiting, List.of(scheduled("b", 1, RunKind.FIRST))), "an older PENDING window first");
    State running = state(OverlapPolicy.ALLOW, scheduled("a", 0, RunKind.FIRST), started("a", 0));
    assertFalse(HeldFire.startsAtOnce(running, List.of(scheduled("b", 1, RunKind.FIRST))));
  }

  @Test
  @DisplayName("R23: the next wake-up is the earliest lease end, retry due time or stale PENDING offer")
  void nextWake() {
    assertEquals(null, Reactions.nextWake(state(OverlapPolicy.ALLOW), Duration.ofMinutes(1)));
    State s = state(OverlapPolicy.ALLOW, scheduled("a", 0, RunKind.FIRST), started("a", 0), scheduled("b", 10, RunKind.FIRST));
    assertEquals(T0.plus(Duration.ofMinutes(11)), Reactions.nextWake(s, Duration.ofMinutes(1)), "b's offer goes stale first");
    assertEquals(T0.plus(Duration.ofHours(1)), Reactions.nextWake(s, Duration.ofHours(2)), "then a's lease ends");
    State retry = state(OverlapPolicy.ALLOW, scheduled("a", 0, RunKind.FIRST), started("a", 0),
        new AttemptTimedOut("a", 1, T0.plus(Duration.ofHours(1)), null, T0.plus(Duration.ofHours(1))),
        new RetryScheduled("a", 1, T0.plus(Duration.ofHours(2)), T0.plus(Duration.ofHours(1))));
    assertEquals(T0.plus(Duration.ofHours(2)), Reactions.nextWake(retry, Duration.ofMinutes(1)));
  }

  @Test
  @DisplayName("R32: a final failure alerts; the skip streak alerts once, when it reaches the threshold")
  void alerts() {
    State s = state(OverlapPolicy.SKIP, scheduled("a", 0, RunKind.FIRST), started("a", 0));
    InstanceFinalFailed ff = new InstanceFinalFailed("x", "retry cap 3 reached", T0);
    assertEquals(List.of(), Reactions.alerts("t", s, List.of(), List.of(), 2));
    for (int i = 1; i <= 3; i++) {
      FireSkipped skip = new FireSkipped("s" + i, T0.plus(Duration.ofMinutes(i)), T0.plus(Duration.ofMinutes(i + 1)),
          T0.plus(Duration.ofMinutes(i)), SkipReason.PREVIOUS_RUNNING, "window 'a' is RUNNING", T0.plus(Duration.ofMinutes(i)));
      Evolve.Applied applied = Evolve.applyAll(s, List.of(skip), HOT, Evolve.Violations.IGNORE);
      s = applied.state();
      List<Alert> alerts = Reactions.alerts("t", s, List.of(skip), applied.changes(), 2);
      assertEquals(i == 2 ? 1 : 0, alerts.size(), "streak " + i);
      if (i == 2) {
        assertEquals(Alert.Kind.REPEATED_SKIPS, alerts.get(0).kind());
      }
    }
    State failing = Evolve.fold(s, List.of(scheduled("x", 9, RunKind.FIRST), new AttemptStarted("x", 1, RunKind.FIRST, T0, "n", T0),
        new io.almanac.journal.TaskJournal.AttemptFailed("x", 1, Duration.ofSeconds(1), "boom", T0, null, null, null)), HOT);
    Evolve.Applied applied = Evolve.applyAll(failing, List.of(ff), HOT, Evolve.Violations.IGNORE);
    List<Alert> failed = Reactions.alerts("t", applied.state(), List.of(ff), applied.changes(), 0);
    assertEquals(Alert.Kind.FINAL_FAILED, failed.get(0).kind());
    assertTrue(failed.get(0).message().contains("retry cap 3 reached"), failed.get(0).message());
  }

  @Test
  @DisplayName("R23/R31: timed-out and cancelled attempts have their jobs cancelled; a success cancels nothing")
  void cancels() {
    State s = state(OverlapPolicy.ALLOW, scheduled("a", 0, RunKind.FIRST), started("a", 0), scheduled("b", 1, RunKind.FIRST),
        started("b", 1), scheduled("c", 2, RunKind.FIRST), started("c", 2));
    List<Event> events = List.of(new AttemptTimedOut("a", 2, T0, null, T0), new InstanceCancelled("b", 1, "operator", T0),
        new AttemptSucceeded("c", 1, Duration.ofSeconds(1), "ok", null, T0));
    List<WindowChange> changes = Evolve.applyAll(s, events, HOT, Evolve.Violations.IGNORE).changes();
    assertEquals(List.of(new ExecutorProtocol.CancelAttempt("t", "a", 2, "lease expired at " + T0),
        new ExecutorProtocol.CancelAttempt("t", "b", 1, "operator")), Reactions.cancels("t", changes));
    assertTrue(Reactions.attemptEnded(changes));
    assertTrue(Reactions.attemptFinished(changes));
    assertFalse(Reactions.attemptFinished(changes.subList(0, 1)));
  }
}
