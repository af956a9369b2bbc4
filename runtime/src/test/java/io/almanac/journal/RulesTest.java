package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RulesTest {

  private static final Instant DUE = Instant.parse("2026-11-29T08:00:00Z");

  @Test
  void onTimeUpToAndIncludingTheGrace() {
    Duration grace = Rules.DEFAULT_ON_TIME_GRACE;
    assertEquals(Duration.ofSeconds(60), grace);
    assertTrue(Rules.onTime(DUE, DUE.minusSeconds(3), grace));
    assertTrue(Rules.onTime(DUE, DUE, grace));
    assertTrue(Rules.onTime(DUE, DUE.plusSeconds(60), grace));
    assertFalse(Rules.onTime(DUE, DUE.plusSeconds(60).plusNanos(1), grace));
    assertTrue(Rules.onTime(DUE, DUE, Duration.ZERO));
    assertFalse(Rules.onTime(DUE, DUE.plusNanos(1), Duration.ZERO));
  }

  @Test
  void aLeaseIsOverAtItsEnd() {
    assertFalse(Rules.leaseOver(DUE, DUE.minusNanos(1)));
    assertTrue(Rules.leaseOver(DUE, DUE));
    assertTrue(Rules.leaseOver(DUE, DUE.plusSeconds(1)));
  }

  @Test
  void aTimeOutEndedItsLeaseOnlyAtOrAfterIt() {
    assertTrue(Rules.leaseEnded(new TaskJournal.AttemptTimedOut("w", 1, DUE, null, DUE)));
    assertTrue(Rules.leaseEnded(new TaskJournal.AttemptTimedOut("w", 1, DUE, null, DUE.plusSeconds(2))));
    assertFalse(Rules.leaseEnded(new TaskJournal.AttemptTimedOut("w", 1, DUE, null, DUE.minusSeconds(2))));
    assertFalse(Rules.leaseEnded(new TaskJournal.AttemptTimedOut("w", 1, null, null, DUE)));
  }

  @Test
  @org.junit.jupiter.api.DisplayName("the published default on-time grace is the runtime's recent-fire-grace default")
  void defaultGraceIsTheRuntimes() {
    org.junit.jupiter.api.Assertions.assertEquals(com.typesafe.config.ConfigFactory.defaultReference()
        .getDuration("almanac.task.recent-fire-grace"), Rules.DEFAULT_ON_TIME_GRACE);
  }
}
