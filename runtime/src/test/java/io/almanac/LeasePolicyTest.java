package io.almanac;

import static io.almanac.Refusals.assertRefused;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LeasePolicyTest {

  private static final LeasePolicy P = LeasePolicy.DEFAULT;

  @Test
  @DisplayName("R23 defaults: floor 1 min, ceiling 2 h, 1.5 x P99, 20 samples")
  void defaults() {
    assertEquals(LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(1.5).minSamples(20).build(), P);
  }

  @Test
  @DisplayName("R23 the ceiling applies until there are minSamples samples")
  void ceilingBeforeEnoughSamples() {
    assertEquals(ofHours(2), P.leaseFor(Optional.of(ofMinutes(10)), 19));
    assertEquals(ofHours(2), P.leaseFor(Optional.of(ofMinutes(10)), 0));
    assertEquals(ofHours(2), P.leaseFor(Optional.empty(), 50));
  }

  @Test
  @DisplayName("R23 with enough samples the lease is 1.5 x P99")
  void factorTimesP99() {
    assertEquals(ofMinutes(15), P.leaseFor(Optional.of(ofMinutes(10)), 20));
    assertEquals(ofSeconds(135), P.leaseFor(Optional.of(ofSeconds(90)), 100));
  }

  @Test
  @DisplayName("R23 the lease is clamped to the floor")
  void clampedToFloor() {
    assertEquals(ofMinutes(1), P.leaseFor(Optional.of(ofSeconds(10)), 20));
    assertEquals(ofMinutes(1), P.leaseFor(Optional.of(Duration.ZERO), 20));
  }

  @Test
  @DisplayName("R23 the lease is clamped to the ceiling")
  void clampedToCeiling() {
    assertEquals(ofHours(2), P.leaseFor(Optional.of(ofMinutes(81)), 20)); // 121.5 min
    assertEquals(ofHours(2), P.leaseFor(Optional.of(ofMinutes(80)), 20)); // exactly 120 min
    assertEquals(ofHours(2), P.leaseFor(Optional.of(ofHours(100_000)), 20));
  }

  @Test
  @DisplayName("R33 lease.floor must be positive")
  void floorPositive() {
    assertRefused("lease.floor", "PT0S", () -> LeasePolicy.builder().floor(Duration.ZERO).ceiling(ofHours(2)).factor(1.5).minSamples(20).build());
    assertRefused("lease.floor", null, () -> LeasePolicy.builder().floor(null).ceiling(ofHours(2)).factor(1.5).minSamples(20).build());
  }

  @Test
  @DisplayName("R33 lease.floor must not exceed lease.ceiling")
  void floorNotAboveCeiling() {
    InvalidSpecException e =
        assertRefused(
            "lease.floor", "PT3H", () -> LeasePolicy.builder().floor(ofHours(3)).ceiling(ofHours(2)).factor(1.5).minSamples(20).build());
    assertEquals(
        "lease.floor 'PT3H' is invalid: must not exceed lease.ceiling PT2H", e.getMessage());
    assertEquals(ofHours(2), LeasePolicy.builder().floor(ofHours(2)).ceiling(ofHours(2)).factor(1.5).minSamples(20).build().floor());
  }

  @Test
  @DisplayName("R33 lease.ceiling must be set")
  void ceilingSet() {
    assertRefused("lease.ceiling", null, () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(null).factor(1.5).minSamples(20).build());
  }

  @Test
  @DisplayName("R33 lease.factor must be >= 1.0")
  void factorAtLeastOne() {
    assertRefused(
        "lease.factor", "0.99", () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(0.99).minSamples(20).build());
    assertRefused(
        "lease.factor", "NaN", () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(Double.NaN).minSamples(20).build());
  }

  @Test
  @DisplayName("R33 lease.minSamples must be >= 1")
  void minSamplesAtLeastOne() {
    assertRefused("lease.minSamples", "0", () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(1.5).minSamples(0).build());
  }
}
