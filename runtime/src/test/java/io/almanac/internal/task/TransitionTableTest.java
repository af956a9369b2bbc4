package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.IllegalTransitionException;
import io.almanac.InstanceStatus;
import io.almanac.journal.Transition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TransitionTableTest {

  private static final String WINDOW = "2026-11-29";

  /** Written from R20, R15 and R31 by hand, not derived from the enum. "NEW" = no instance yet. */
  private static final Set<String> EXPECTED =
      Set.of(
          "NEW->PENDING",
          "NEW->SKIPPED",
          "NEW->MISSED",
          "PENDING->RUNNING",
          "PENDING->CANCELLED",
          "RUNNING->SUCCEEDED",
          "RUNNING->FAILED",
          "RUNNING->TIMED_OUT",
          "RUNNING->CANCELLED",
          "FAILED->RETRY_WAIT",
          "FAILED->FINAL_FAILED",
          "TIMED_OUT->RETRY_WAIT",
          "TIMED_OUT->FINAL_FAILED",
          "RUNNING->INTERRUPTED",
          "INTERRUPTED->PENDING",
          "INTERRUPTED->RETRY_WAIT",
          "INTERRUPTED->FINAL_FAILED",
          "RETRY_WAIT->PENDING",
          "RETRY_WAIT->CANCELLED",
          "FINAL_FAILED->PENDING",
          "FINAL_FAILED->RESOLVED",
          "SKIPPED->PENDING",
          "MISSED->PENDING",
          "CANCELLED->PENDING",
          // R9: a due window of a task with a dependency or condition waits, then runs, is skipped or cancelled
          "NEW->WAITING",
          "WAITING->PENDING",
          "WAITING->SKIPPED",
          "WAITING->CANCELLED",
          // a resource pool's budget for the day was spent before the window started (docs/budgets.md)
          "PENDING->SKIPPED");

  private static String name(InstanceStatus s) {
    return s == null ? "NEW" : s.name();
  }

  static Stream<Arguments> allPairs() {
    List<InstanceStatus> froms = new ArrayList<>();
    froms.add(null);
    froms.addAll(Arrays.asList(InstanceStatus.values()));
    return froms.stream()
        .flatMap(f -> Arrays.stream(InstanceStatus.values()).map(t -> Arguments.of(f, t)));
  }

  @Test
  @DisplayName("R20 the pair source covers all 14 x 13 pairs")
  void coversAllPairs() {
    assertEquals(14 * 13, allPairs().count());
    assertEquals(13, InstanceStatus.values().length);
  }

  @ParameterizedTest(name = "R20 {0} -> {1}")
  @MethodSource("allPairs")
  void transitionAllowedIffInTable(InstanceStatus from, InstanceStatus to) {
    String pair = name(from) + "->" + name(to);
    boolean expected = EXPECTED.contains(pair);
    assertEquals(expected, Transition.isAllowed(from, to), pair);
    assertEquals(expected, Transition.find(from, to).isPresent(), pair);
    if (expected) {
      Transition t = Transition.check(from, to, WINDOW);
      assertEquals(from, t.from(), pair);
      assertEquals(to, t.to(), pair);
      assertEquals(name(from) + "_TO_" + name(to), t.name(), pair);
    } else {
      IllegalTransitionException e =
          assertThrows(IllegalTransitionException.class, () -> Transition.check(from, to, WINDOW));
      assertEquals(
          "illegal transition " + name(from) + " -> " + name(to) + " for window '" + WINDOW + "'",
          e.getMessage());
      assertEquals(from, e.from());
      assertEquals(to, e.to());
    }
  }

  @Test
  @DisplayName("R20 the table has exactly the expected transitions, each once")
  void tableMatchesExpectedSet() {
    Set<String> actual = new HashSet<>();
    for (Transition t : Transition.values()) {
      assertTrue(actual.add(name(t.from()) + "->" + name(t.to())), t.name());
    }
    assertEquals(EXPECTED, actual);
  }

  @Test
  @DisplayName("R20 no window succeeds twice: SUCCEEDED and RESOLVED have no way out")
  void succeededAndResolvedAreFinal() {
    for (InstanceStatus to : InstanceStatus.values()) {
      assertFalse(Transition.isAllowed(InstanceStatus.SUCCEEDED, to), to.name());
      assertFalse(Transition.isAllowed(InstanceStatus.RESOLVED, to), to.name());
    }
  }

  @Test
  @DisplayName("R20 a null target is never allowed")
  void nullTargetRefused() {
    assertFalse(Transition.isAllowed(InstanceStatus.PENDING, null));
    assertEquals(Optional.empty(), Transition.find(null, null));
    IllegalTransitionException e =
        assertThrows(IllegalTransitionException.class, () -> Transition.check(null, null, WINDOW));
    assertNull(e.to());
  }
}
