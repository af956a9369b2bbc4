package io.almanac;

import static io.almanac.Refusals.assertRefused;
import static java.time.Duration.ofDays;
import static java.time.Duration.ofHours;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.CatchUpPolicy.Mode;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What happens to windows missed while nothing fired them (R12, R13, R14). */
class CatchUpPolicyTest {

  private static final Instant WINDOW = Instant.parse("2026-11-29T00:00:00Z");
  private static final Instant NOW = Instant.parse("2026-11-29T08:00:00Z");

  @Test
  @DisplayName("R12/R14 by default missed windows are not run, and the horizon is 24 h")
  void notRunByDefault() {
    assertSame(CatchUpPolicy.DEFAULT, CatchUpPolicy.none());
    assertEquals(Mode.NONE, CatchUpPolicy.DEFAULT.mode());
    assertEquals(ofHours(24), CatchUpPolicy.DEFAULT.horizon());
    assertEquals(CatchUpPolicy.DEFAULT_HORIZON, CatchUpPolicy.DEFAULT.horizon());
    assertFalse(CatchUpPolicy.DEFAULT.hasSpan());
    assertFalse(CatchUpPolicy.DEFAULT.allowsCatchUpAt(NOW, WINDOW));
    assertEquals(CatchUpPolicy.DEFAULT, TaskSpec.builder("t").cron("0 0 8 * * ? UTC").build().catchUp());
  }

  @Test
  @DisplayName("R13 all runs every missed window inside the horizon, with the default horizon of 24 h")
  void allRunsEveryWindow() {
    CatchUpPolicy p = CatchUpPolicy.all();
    assertEquals(Mode.ALL, p.mode());
    assertEquals(ofHours(24), p.horizon());
    assertTrue(p.allowsCatchUpAt(WINDOW.plus(ofHours(1000)), WINDOW), "the horizon, not the mode, bounds the age");
  }

  @Test
  @DisplayName("R14 the horizon: a window due at now - horizon is inside, one before it outside")
  void horizonEdge() {
    CatchUpPolicy p = CatchUpPolicy.all().withHorizon(ofHours(6));
    assertTrue(p.withinHorizon(NOW.minus(ofHours(6)), NOW));
    assertFalse(p.withinHorizon(NOW.minus(ofHours(6)).minusNanos(1), NOW));
    assertTrue(p.withinHorizon(NOW, NOW));
    assertTrue(p.withinHorizon(NOW.plusSeconds(5), NOW));
    assertTrue(new CatchUpPolicy(Mode.ALL, Duration.ZERO, Duration.ZERO).withinHorizon(NOW, NOW));
    assertFalse(new CatchUpPolicy(Mode.ALL, Duration.ZERO, Duration.ZERO).withinHorizon(NOW.minusNanos(1), NOW),
        "horizon 0: nothing missed is ever run");
  }

  @Test
  @DisplayName("R13 windowed: with a span a missed window runs while now < window start + span")
  void windowedCatchUpInsideSpanOnly() {
    CatchUpPolicy p = CatchUpPolicy.all().withinSpan(ofHours(24));
    assertTrue(p.hasSpan());
    assertTrue(p.allowsCatchUpAt(WINDOW, WINDOW));
    assertTrue(p.allowsCatchUpAt(WINDOW.plus(ofHours(24)).minusNanos(1), WINDOW));
    assertFalse(p.allowsCatchUpAt(WINDOW.plus(ofHours(24)), WINDOW));
  }

  @Test
  @DisplayName("R33 catchUp.mode must be set")
  void modeMustBeSet() {
    assertRefused("catchUp.mode", null, () -> new CatchUpPolicy(null, ofHours(24), Duration.ZERO));
  }

  @Test
  @DisplayName("R33 catchUp.horizon must be 0-366 days")
  void horizonBounded() {
    assertRefused("catchUp.horizon", "PT-1H", () -> CatchUpPolicy.none().withHorizon(ofHours(-1)));
    assertRefused("catchUp.horizon", null, () -> CatchUpPolicy.all().withHorizon(null));
    assertRefused("catchUp.horizon", "PT8808H", () -> CatchUpPolicy.all().withHorizon(ofDays(367)));
    assertEquals(ofDays(366), CatchUpPolicy.all().withHorizon(CatchUpPolicy.MAX_HORIZON).horizon());
  }

  @Test
  @DisplayName("R33 catchUp.span must be positive, at most 366 days, and only with mode ALL")
  void spanChecked() {
    assertRefused("catchUp.span", "PT0S", () -> CatchUpPolicy.all().withinSpan(Duration.ZERO));
    assertRefused("catchUp.span", null, () -> CatchUpPolicy.all().withinSpan(null));
    assertRefused("catchUp.span", "PT8808H", () -> CatchUpPolicy.all().withinSpan(ofDays(367)));
    assertRefused("catchUp.span", "PT24H", () -> CatchUpPolicy.none().withinSpan(ofHours(24)));
    assertRefused("catchUp.span", "PT-1H", () -> new CatchUpPolicy(Mode.ALL, ofHours(24), ofHours(-1)));
  }

  @Test
  @DisplayName("a null span reads as none (lenient deserialization)")
  void nullSpanIsNone() {
    assertEquals(CatchUpPolicy.all(), new CatchUpPolicy(Mode.ALL, ofHours(24), null));
  }
}
