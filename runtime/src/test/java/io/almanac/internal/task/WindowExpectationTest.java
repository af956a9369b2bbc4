package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.Expecting;
import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.PoolWaitReason;
import io.almanac.RefusedException;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.PoolWaited;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.pekko.Done;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rule of concurrent operator actions on one window (R31), in the pure decision: an action takes
 * the window's state it was decided on ({@link Expecting}); the task, the window's single writer,
 * refuses it ({@link RefusedException.Reason#STALE_WINDOW}, nothing stored) once the window moved on.
 * Every status or attempt change moves the window's version on.
 */
class WindowExpectationTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final String KEY = T0.toString();
  private static final WindowKey WINDOW = WindowKey.of(KEY);

  private final OperatorActions operator = new OperatorActions("t", SETTINGS);

  private static State pending() {
    TaskSpec spec = TaskSpec.builder("t").cron("* * * * * ? UTC").window("per-firing").build();
    return CoreTest.fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), T0),
        new InstanceScheduled(KEY, T0, T0.plusSeconds(1), T0, RunKind.FIRST, T0)));
  }

  /** The window, FINAL_FAILED after one attempt. */
  private static State finalFailed() {
    return CoreTest.fold(pending(), List.of(new AttemptStarted(KEY, 1, RunKind.FIRST, T0.plusSeconds(60), "node-1", T0),
        new AttemptFailed(KEY, 1, java.time.Duration.ofSeconds(1), "boom", T0.plusSeconds(1)), new InstanceFinalFailed(KEY, "boom", T0.plusSeconds(1))));
  }

  private static long version(State s) {
    return s.windows().get(KEY).version();
  }

  private Decided<Done> act(State s, int which, Expecting expecting) {
    return switch (which) {
      case 0 -> operator.retry(s, WINDOW, "alice", null, expecting, T0.plusSeconds(5));
      case 1 -> operator.resolve(s, WINDOW, "fixed by hand", "alice", expecting, T0.plusSeconds(5));
      default -> operator.cancel(s, WINDOW, "not needed", "alice", expecting, T0.plusSeconds(5));
    };
  }

  @Test
  @DisplayName("R31: a window's version is 1 when created and moves on at every status or attempt change, not at a "
      + "change of neither")
  void versionMovesAtEveryTransition() {
    State s = pending();
    assertEquals(1, version(s));
    State waiting = CoreTest.fold(s, List.of(new PoolWaited(KEY, "openai", PoolWaitReason.PAUSED, null, T0)));
    assertEquals(1, version(waiting), "a pool wait changes neither status nor attempt");
    State f = finalFailed(); // PENDING -> RUNNING (attempt 1) -> FAILED -> FINAL_FAILED
    assertEquals(4, version(f));
    State retried = CoreTest.fold(f, act(f, 0, null).events());
    assertEquals(InstanceStatus.PENDING, retried.windows().get(KEY).status());
    assertEquals(5, version(retried));
    assertEquals(5, retried.windows().get(KEY).view("t", 0).version(), "the view carries it");
  }

  @Test
  @DisplayName("R31: an action that expects the window's version (or status) as it is takes effect; one that expects "
      + "another is refused STALE_WINDOW naming what it expected and what the window is, and stores nothing")
  void staleActionChangesNothing() {
    State f = finalFailed();
    for (int which = 0; which < 3; which++) {
      Decided<Done> stale = act(f, which, Expecting.version(3));
      assertTrue(stale.refused() && stale.events().isEmpty(), "action " + which);
      RefusedException r = assertInstanceOf(RefusedException.class, stale.refusal());
      assertEquals(RefusedException.Reason.STALE_WINDOW, r.reason());
      assertEquals("expecting", r.field());
      assertTrue(r.getMessage().contains("is at version 4 (FINAL_FAILED), not the version 3"), r.getMessage());
      Decided<Done> wrongStatus = act(f, which, Expecting.status(InstanceStatus.CANCELLED));
      assertEquals(RefusedException.Reason.STALE_WINDOW, ((RefusedException) wrongStatus.refusal()).reason());
    }
    assertTrue(!act(f, 0, Expecting.version(4)).refused(), "retry at the version it observed");
    assertTrue(!act(f, 1, Expecting.status(InstanceStatus.FINAL_FAILED)).refused(), "resolve at the status it observed");
    assertTrue(!act(f, 0, new Expecting(4L, InstanceStatus.FINAL_FAILED)).refused(), "both");
    assertTrue(!act(f, 0, null).refused(), "no expectation: as before");
    Decided<Done> unknown = operator.cancel(f, WindowKey.of("2020-01-01T00:00:00Z"), "x", "alice", Expecting.version(1),
        T0);
    assertEquals(RefusedException.Reason.UNKNOWN_WINDOW, ((RefusedException) unknown.refusal()).reason(),
        "an unknown window is unknown, expected or not");
    assertThrows(InvalidSpecException.class, () -> Expecting.version(-1));
    assertThrows(InvalidSpecException.class, () -> Expecting.status(null));
  }

  @Test
  @DisplayName("R31: 30 mixed retry/resolve/cancel actions, each carrying the version it observed, decided one after "
      + "another as the single writer does: at most one takes effect per observed version, and the window no longer "
      + "bounces between PENDING and CANCELLED")
  void atMostOnePerObservedVersion() {
    Random random = new Random(5);
    State s = finalFailed();
    List<Long> observed = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      observed.add(version(s)); // all read the window before any acted
    }
    List<Long> tookEffect = new ArrayList<>();
    List<InstanceStatus> statuses = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      Decided<Done> d = act(s, random.nextInt(3), Expecting.version(observed.get(i)));
      if (!d.refused()) {
        tookEffect.add(observed.get(i));
        s = CoreTest.fold(s, d.events());
        statuses.add(s.windows().get(KEY).status());
      } else {
        assertTrue(d.events().isEmpty());
      }
    }
    assertEquals(1, tookEffect.size(), "all observed version 4: one took effect, " + statuses);
    assertEquals(tookEffect.stream().distinct().count(), tookEffect.size(), "one per observed version: " + tookEffect);
  }
}
