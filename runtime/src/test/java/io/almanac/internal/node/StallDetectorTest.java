package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.almanac.internal.node.StallDetector.Change;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The trigger's stall judged from its progress on a monotonic clock (R25, R32). */
class StallDetectorTest {

  private static final long S = 1_000_000_000L;

  @Test
  @DisplayName("R32: a trigger gone for longer than the limit is reported while it is gone, once, and recovered once")
  void reportsDuringTheOutage() {
    StallDetector d = new StallDetector(Duration.ofSeconds(60), 0);
    assertEquals(Change.NONE, d.answered(5, 10 * S));
    assertEquals(Change.NONE, d.check(40 * S)); // no answer since: 30 s
    assertEquals(Change.STALLED, d.check(71 * S)); // 61 s without progress, still no answer
    assertEquals(Change.NONE, d.check(90 * S));
    assertEquals(Change.RECOVERED, d.answered(0, 95 * S)); // a new incarnation counts from 0: progress
    assertEquals(Change.NONE, d.answered(1, 96 * S));
  }

  @Test
  @DisplayName("R32: a trigger that answers but does not tick is stalled")
  void answeringWithoutTickingIsAStall() {
    StallDetector d = new StallDetector(Duration.ofSeconds(60), 0);
    assertEquals(Change.NONE, d.answered(7, 0));
    assertEquals(Change.NONE, d.answered(7, 60 * S));
    assertEquals(Change.STALLED, d.answered(7, 61 * S));
    assertEquals(Duration.ofSeconds(61), d.silentFor(61 * S));
  }

  @Test
  @DisplayName("R32: a failover shorter than the limit raises nothing")
  void shortFailoverIsQuiet() {
    StallDetector d = new StallDetector(Duration.ofSeconds(60), 0);
    d.answered(100, 0);
    assertEquals(Change.NONE, d.check(46 * S));
    assertEquals(Change.NONE, d.answered(0, 47 * S));
    assertEquals(Change.NONE, d.check(100 * S));
  }
}
