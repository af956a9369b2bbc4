package io.almanac;

import static io.almanac.InstanceStatus.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class InstanceStatusTest {

  @Test
  @DisplayName("R20 terminal statuses; FINAL_FAILED waits for an operator")
  void terminalStatuses() {
    Set<InstanceStatus> expected = EnumSet.of(SUCCEEDED, CANCELLED, SKIPPED, MISSED, RESOLVED);
    for (InstanceStatus s : values()) {
      assertEquals(expected.contains(s), s.isTerminal(), s.name());
    }
  }

  @Test
  @DisplayName("R6 active statuses: still running or waiting to retry")
  void activeStatuses() {
    Set<InstanceStatus> expected = EnumSet.of(PENDING, RUNNING, FAILED, TIMED_OUT, INTERRUPTED, RETRY_WAIT);
    for (InstanceStatus s : values()) {
      assertEquals(expected.contains(s), s.isActive(), s.name());
    }
  }

  @Test
  @DisplayName("R6 the default overlap policy is SKIP")
  void defaultOverlapIsSkip() {
    assertEquals(OverlapPolicy.SKIP, OverlapPolicy.DEFAULT);
  }

  @Test
  @DisplayName("R20 an illegal transition names both states and the window")
  void illegalTransitionMessage() {
    IllegalTransitionException e = new IllegalTransitionException(RUNNING, PENDING, "2026-11-29");
    assertEquals("illegal transition RUNNING -> PENDING for window '2026-11-29'", e.getMessage());
    assertEquals(RUNNING, e.from());
    assertEquals(PENDING, e.to());
    IllegalTransitionException fromNew = new IllegalTransitionException(null, RUNNING, "w");
    assertEquals("illegal transition NEW -> RUNNING for window 'w'", fromNew.getMessage());
    assertEquals(null, fromNew.from());
  }
}
