package io.almanac;

import static io.almanac.Refusals.assertRefused;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  @DisplayName("R15 the default cap is 3 retries")
  void defaultIsThreeRetries() {
    assertEquals(3, RetryPolicy.DEFAULT_MAX_RETRIES);
    assertEquals(new RetryPolicy(3), RetryPolicy.DEFAULT);
  }

  @Test
  @DisplayName("R15 zero and the limit are accepted")
  void boundsAccepted() {
    assertEquals(0, new RetryPolicy(0).maxRetries());
    assertEquals(1000, new RetryPolicy(RetryPolicy.MAX_ALLOWED_RETRIES).maxRetries());
  }

  @Test
  @DisplayName("R33 maxRetries must be >= 0")
  void maxRetriesNotNegative() {
    InvalidSpecException e = assertRefused("maxRetries", "-1", () -> new RetryPolicy(-1));
    assertEquals("maxRetries '-1' is invalid: must be >= 0", e.getMessage());
  }

  @Test
  @DisplayName("R33 maxRetries must be <= 1000")
  void maxRetriesBounded() {
    assertRefused("maxRetries", "1001", () -> new RetryPolicy(1001));
  }

  @Test
  @DisplayName("R16 1 h, 5 min, x2 gives 3: 5+10+20 = 35 min fits, a 4th at +40 = 75 min does not")
  void fieldReportExample() {
    Duration three = ofMinutes(5).plus(ofMinutes(10)).plus(ofMinutes(20));
    assertEquals(ofMinutes(35), three);
    assertEquals(ofMinutes(75), three.plus(ofMinutes(40)));
    assertEquals(3, RetryPolicy.capFor(ofHours(1), ofMinutes(5), 2.0));
    assertEquals(new RetryPolicy(3), RetryPolicy.forRecoveryTime(ofHours(1), ofMinutes(5), 2.0));
  }

  @Test
  @DisplayName("R16 back-off ending exactly at the limit fits")
  void exactBoundaryFits() {
    assertEquals(3, RetryPolicy.capFor(ofMinutes(35), ofMinutes(5), 2.0));
    assertEquals(2, RetryPolicy.capFor(ofMinutes(35).minusSeconds(1), ofMinutes(5), 2.0));
    assertEquals(10, RetryPolicy.capFor(ofSeconds(1), ofMillis(100), 1.0));
  }

  @Test
  @DisplayName("R16 multiplier 1.0 is linear: 1 h / 5 min = 12")
  void linearMultiplier() {
    assertEquals(12, RetryPolicy.capFor(ofHours(1), ofMinutes(5), 1.0));
    assertEquals(11, RetryPolicy.capFor(ofMinutes(59), ofMinutes(5), 1.0));
  }

  @Test
  @DisplayName("R16 other multipliers: 1 h, 5 min, x1.5 gives 4 (5+7.5+11.25+16.875 = 40.6 min)")
  void fractionalMultiplier() {
    assertEquals(4, RetryPolicy.capFor(ofHours(1), ofMinutes(5), 1.5));
    assertEquals(
        4, RetryPolicy.capFor(ofHours(24), ofMinutes(60), 2.0)); // 1+2+4+8 = 15 h; +16 > 24
  }

  @Test
  @DisplayName("R16 a recovery time shorter than the first delay gives 0")
  void recoveryShorterThanFirstDelay() {
    assertEquals(0, RetryPolicy.capFor(ofMinutes(4), ofMinutes(5), 2.0));
    assertEquals(new RetryPolicy(0), RetryPolicy.forRecoveryTime(ofMinutes(4), ofMinutes(5), 2.0));
  }

  @Test
  @DisplayName("R16 the derived cap never passes the limit of 1000")
  void derivedCapIsBounded() {
    assertEquals(1000, RetryPolicy.capFor(ofHours(1), ofMillis(1), 1.0));
  }

  @Test
  @DisplayName("R33 acceptableRecovery must be positive")
  void acceptableRecoveryPositive() {
    assertRefused(
        "acceptableRecovery", "PT0S", () -> RetryPolicy.capFor(Duration.ZERO, ofMinutes(5), 2.0));
    assertRefused("acceptableRecovery", "null", () -> RetryPolicy.capFor(null, ofMinutes(5), 2.0));
  }

  @Test
  @DisplayName("R33 firstDelay must be positive")
  void firstDelayPositive() {
    assertRefused("firstDelay", "PT-5M", () -> RetryPolicy.capFor(ofHours(1), ofMinutes(-5), 2.0));
    assertRefused(
        "firstDelay", "PT0S", () -> RetryPolicy.forRecoveryTime(ofHours(1), Duration.ZERO, 2.0));
  }

  @Test
  @DisplayName("R33 multiplier must be >= 1.0")
  void multiplierAtLeastOne() {
    assertRefused("multiplier", "0.9", () -> RetryPolicy.capFor(ofHours(1), ofMinutes(5), 0.9));
    assertRefused(
        "multiplier", "NaN", () -> RetryPolicy.capFor(ofHours(1), ofMinutes(5), Double.NaN));
  }
}
