package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** When a task entity checks its waiting windows' gates, and what it remembers between checks (R9). Pure. */
class GateWatchTest {

  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final Duration EVERY = Duration.ofMinutes(1);
  private static final HotState HOT = new HotState(100, Duration.ofDays(30));

  private static State waiting(Instant deadline) {
    return Evolve.fold(State.empty(10), List.of(new TaskJournal.WindowWaiting("w", T0, T0.plus(Duration.ofDays(1)), T0,
        RunKind.FIRST, "condition ready", deadline, T0)), HOT);
  }

  private static GateWatch watch() {
    return new GateWatch(() -> {
      throw new AssertionError("due() starts no probe");
    });
  }

  private static List<String> keys(List<WindowState> windows) {
    return windows.stream().map(WindowState::key).toList();
  }

  @Test
  @DisplayName("R9: a waiting window is checked at once, then not before half its poll interval has passed")
  void checksOncePerHalfInterval() {
    GateWatch g = watch();
    State s = waiting(T0.plus(Duration.ofHours(1)));
    assertEquals(List.of("w"), keys(g.due(s, EVERY, T0)));
    g.checked("w");
    assertEquals(List.of(), keys(g.due(s, EVERY, T0.plus(Duration.ofSeconds(29)))));
    assertEquals(List.of("w"), keys(g.due(s, EVERY, T0.plus(Duration.ofSeconds(30)))));
  }

  @Test
  @DisplayName("R9: one check per window at a time")
  void oneCheckAtATime() {
    GateWatch g = watch();
    State s = waiting(T0.plus(Duration.ofHours(1)));
    assertTrue(g.start("w", T0));
    assertFalse(g.start("w", T0.plus(Duration.ofMinutes(5))));
    assertEquals(List.of(), keys(g.due(s, EVERY, T0.plus(Duration.ofMinutes(5)))));
    g.checked("w");
    assertTrue(g.start("w", T0.plus(Duration.ofMinutes(5))));
  }

  @Test
  @DisplayName("R9: at its deadline a waiting window is checked whatever its poll interval")
  void checksAtTheDeadline() {
    GateWatch g = watch();
    State s = waiting(T0.plus(Duration.ofSeconds(10)));
    g.due(s, EVERY, T0);
    g.checked("w");
    assertEquals(List.of(), keys(g.due(s, EVERY, T0.plus(Duration.ofSeconds(9)))));
    assertEquals(List.of("w"), keys(g.due(s, EVERY, T0.plus(Duration.ofSeconds(10)))));
  }

  @Test
  @DisplayName("R9: what the checks of a window found is remembered while it waits, and forgotten once it no longer does")
  void forgetsWindowsThatNoLongerWait() {
    GateWatch g = watch();
    State s = waiting(T0.plus(Duration.ofHours(1)));
    g.due(s, EVERY, T0);
    g.checked("w");
    g.remember("w", new GateDecider.Memory(2, T0, null, 2));
    assertEquals(3, g.nextPoll("w"));
    g.due(s, EVERY, T0);
    assertEquals(3, g.nextPoll("w"), "still waiting: kept");
    State ended = Evolve.fold(s, List.of(new TaskJournal.WaitEnded("w", SkipReason.CONDITION_NOT_MET, "deadline passed",
        T0.plus(Duration.ofHours(1)))), HOT);
    g.due(ended, EVERY, T0.plus(Duration.ofHours(1)));
    assertEquals(1, g.nextPoll("w"), "no longer waiting: forgotten");
  }
}
