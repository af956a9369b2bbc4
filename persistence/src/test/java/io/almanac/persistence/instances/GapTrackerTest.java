package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a hole in the journal's ordering may be passed. */
class GapTrackerTest {

  private static final Instant T0 = Instant.parse("2026-11-30T00:00:00Z");

  @Test
  void aHoleIsPassedOnceTheHeadAboveItWasSeenGapWaitAgo() {
    GapTracker g = new GapTracker(Duration.ofSeconds(10));
    g.observe(T0, 100);
    assertEquals(0, g.settledThrough(T0));
    assertEquals(0, g.settledThrough(T0.plusSeconds(9)));
    g.observe(T0.plusSeconds(5), 250);
    assertEquals(100, g.settledThrough(T0.plusSeconds(10)), "holes up to 100 waited 10 s; those up to 250 only 5 s");
    assertEquals(100, g.settledThrough(T0.plusSeconds(14)));
    assertEquals(250, g.settledThrough(T0.plusSeconds(15)));
  }

  @Test
  void anUnchangedHeadDoesNotRestartTheWait() {
    GapTracker g = new GapTracker(Duration.ofSeconds(10));
    g.observe(T0, 100);
    g.observe(T0.plusSeconds(8), 100);
    assertEquals(100, g.settledThrough(T0.plusSeconds(10)));
  }

  @Test
  void zeroGapWaitPassesEveryHoleAtOnce() {
    GapTracker g = new GapTracker(Duration.ZERO);
    g.observe(T0, 7);
    assertEquals(7, g.settledThrough(T0));
  }

  @Test
  void resetForgets() {
    GapTracker g = new GapTracker(Duration.ofSeconds(1));
    g.observe(T0, 7);
    assertEquals(7, g.settledThrough(T0.plusSeconds(1)));
    g.reset();
    assertEquals(0, g.settledThrough(T0.plusSeconds(2)));
  }
}
