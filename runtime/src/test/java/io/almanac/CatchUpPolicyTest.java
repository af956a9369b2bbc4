package io.almanac;

import static io.almanac.Refusals.assertRefused;
import static java.time.Duration.ofHours;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CatchUpPolicyTest {

  private static final Instant NOW = Instant.parse("2026-11-29T08:00:00Z");

  @Test
  @DisplayName("R14 the default horizon is 24 hours")
  void defaultHorizonIs24Hours() {
    assertEquals(ofHours(24), CatchUpPolicy.DEFAULT.horizon());
  }

  @Test
  @DisplayName("R14 a window due exactly at now - horizon is inside; a nanosecond older is outside")
  void horizonEdges() {
    CatchUpPolicy p = CatchUpPolicy.DEFAULT;
    assertTrue(p.withinHorizon(NOW.minus(ofHours(24)), NOW));
    assertFalse(p.withinHorizon(NOW.minus(ofHours(24)).minusNanos(1), NOW));
    assertTrue(p.withinHorizon(NOW.minus(ofHours(1)), NOW));
    assertTrue(p.withinHorizon(NOW, NOW));
    assertTrue(p.withinHorizon(NOW.plusSeconds(5), NOW));
  }

  @Test
  @DisplayName("R14 a zero horizon never catches up a past window")
  void zeroHorizonNeverCatchesUp() {
    CatchUpPolicy p = new CatchUpPolicy(Duration.ZERO);
    assertFalse(p.withinHorizon(NOW.minusMillis(1), NOW));
    assertTrue(p.withinHorizon(NOW, NOW));
  }

  @Test
  @DisplayName("R33 catchUp.horizon must not be negative")
  void horizonNotNegative() {
    assertRefused("catchUp.horizon", "PT-1H", () -> new CatchUpPolicy(ofHours(-1)));
  }

  @Test
  @DisplayName("R33 catchUp.horizon must be set")
  void horizonNotNull() {
    assertRefused("catchUp.horizon", "null", () -> new CatchUpPolicy(null));
  }
}
