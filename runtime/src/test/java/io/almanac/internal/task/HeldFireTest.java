package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.InstanceStatus;
import io.almanac.LeasePolicy;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fire's fast path, without actors (R20, R21): which fires wait for the executor's answer, which
 * commands answer them, and the one-row write of an admitted window (after a settlement of dead
 * attempts decided in the same write).
 */
class HeldFireTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final Duration LEASE = Duration.ofMinutes(10);
  private static final io.almanac.journal.HotState HOT = new io.almanac.journal.HotState(1_000, Duration.ofDays(3650));

  private final FireDecider fires = new FireDecider(SETTINGS);
  private final AttemptLifecycle attempts = new AttemptLifecycle("t", SETTINGS);

  private static State defined() {
    TaskSpec spec = TaskSpec.builder("t").cron("0 0 * * * ? UTC").window("per-firing").lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(LEASE).factor(1.5).minSamples(20).build())
        .build();
    return CoreTest.fold(State.empty(20), List.of(new TaskJournal.SpecDefined(SpecRecord.of(spec), T0)));
  }

  private static Fire fire(Instant start) {
    return new Fire(WindowKey.of(start.toString()), start, start, start, FireKind.ON_TIME, null);
  }

  private HeldFire held(State s, Instant start, Instant now) {
    AttemptLifecycle.Settled x = attempts.settled(s, id -> ExecutorLiveness.State.RUNS, now, HOT);
    Decided<FireOutcome> own = fires.fire(x.state(), fire(start), now);
    Decided<FireOutcome> d = x.then(own);
    assertTrue(HeldFire.applies(d, own.events(), x.state(), true));
    return new HeldFire(fire(start), d, x.state());
  }

  @Test
  @DisplayName("R21: a fresh first run waits for the executor's answer only on a node with an executor")
  void onlyAFreshFirstRunWithAnExecutorIsHeld() {
    State s = defined();
    Decided<FireOutcome> d = fires.fire(s, fire(T0), T0);
    assertTrue(HeldFire.applies(d, d.events(), s, true));
    assertFalse(HeldFire.applies(d, d.events(), s, false));
    State scheduled = CoreTest.fold(s, d.events());
    Decided<FireOutcome> again = fires.fire(scheduled, fire(T0), T0);
    assertFalse(HeldFire.applies(again, again.events(), scheduled, true), "a duplicate writes nothing and is answered");
  }

  @Test
  @DisplayName("R21: only the executor's answer for the held window (or its offer's timeout) is handled; the rest waits")
  void answeredOnlyByTheExecutorForItsWindow() {
    HeldFire h = held(defined(), T0, T0);
    assertTrue(h.answeredBy(new TaskProtocol.Admitted(WindowKey.of(T0.toString()), "node-1", null)));
    assertTrue(h.answeredBy(new TaskProtocol.Queued(WindowKey.of(T0.toString()))));
    assertTrue(h.answeredBy(new TaskProtocol.OfferUnanswered(T0.toString())));
    assertFalse(h.answeredBy(new TaskProtocol.Queued(WindowKey.of("other"))));
    assertFalse(h.answeredBy(new TaskProtocol.Wake(null)));
  }

  @Test
  @DisplayName("R21/R24: admitted, the window's schedule and start are one event, after the settlement of a dead attempt")
  void admittedWritesScheduleAndStartAsOneEvent() {
    State s = defined();
    HeldFire first = held(s, T0, T0);
    HeldFire.Start one = first.admitted(attempts, "node-1", T0);
    assertEquals(1, one.events().size());
    assertInstanceOf(TaskJournal.WindowStarted.class, one.events().get(0));
    s = CoreTest.fold(s, one.events());
    // the next hour finds the first attempt past its lease: timed out first, in the same write
    Instant next = T0.plus(Duration.ofHours(1));
    HeldFire second = held(s, next, next);
    HeldFire.Start two = second.admitted(attempts, "node-1", next);
    List<Event> events = two.events();
    assertInstanceOf(TaskJournal.AttemptTimedOut.class, events.get(0));
    assertInstanceOf(TaskJournal.WindowStarted.class, events.get(events.size() - 1));
    assertEquals(next.plus(LEASE), two.started().leaseUntil());
    State after = CoreTest.fold(s, events);
    assertEquals(InstanceStatus.RUNNING, after.windows().get(next.toString()).status());
    assertEquals(InstanceStatus.FINAL_FAILED, after.windows().get(T0.toString()).status());
  }
}
