package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** Which rows retention moves, without a database. */
class RetentionRuleTest {

  static final Instant NOW = Instant.parse("2026-11-30T00:00:00Z");

  static InstanceRow row(InstanceStatus status, Instant updatedAt) {
    return new InstanceRow("t", "w", updatedAt, null, status, 1, 0, 3, RunKind.FIRST, null, null, null, null, null,
        updatedAt, updatedAt, 1, null);
  }

  @Test
  void doneRowsOlderThanTheRetentionMove() {
    RetentionRule rule = new RetentionRule(Duration.ofDays(90));
    Instant old = NOW.minus(Duration.ofDays(90)).minusMillis(1);
    Instant edge = NOW.minus(Duration.ofDays(90));
    for (InstanceStatus s : EnumSet.of(InstanceStatus.SUCCEEDED, InstanceStatus.CANCELLED, InstanceStatus.SKIPPED,
        InstanceStatus.MISSED, InstanceStatus.RESOLVED)) {
      assertTrue(rule.due(row(s, old), NOW), s.name());
      assertFalse(rule.due(row(s, edge), NOW), s + " exactly at the cutoff stays");
    }
  }

  @Test
  void activeAndFinalFailedRowsStayHoweverOld() {
    RetentionRule rule = new RetentionRule(Duration.ofDays(90));
    Instant veryOld = NOW.minus(Duration.ofDays(1000));
    for (InstanceStatus s : EnumSet.complementOf(EnumSet.copyOf(RetentionRule.STATUSES))) {
      assertFalse(rule.due(row(s, veryOld), NOW), s.name());
    }
    assertEquals(EnumSet.of(InstanceStatus.PENDING, InstanceStatus.RUNNING, InstanceStatus.FAILED, InstanceStatus.TIMED_OUT,
        InstanceStatus.RETRY_WAIT, InstanceStatus.FINAL_FAILED, InstanceStatus.WAITING, InstanceStatus.INTERRUPTED),
        EnumSet.complementOf(EnumSet.copyOf(RetentionRule.STATUSES)));
  }
}
