package io.almanac;

import static io.almanac.Refusals.assertRefused;
import static java.time.Duration.ofDays;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Every duration and number a policy accepts is bounded when the policy is built, so that nothing
 * the Java API accepts can overflow later in the task entity (R33), and the arithmetic combining
 * them saturates instead of overflowing.
 */
class PolicyBoundsTest {

  private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);
  private static final String HUGE_TEXT = HUGE.toString();
  private static final Instant WINDOW = Instant.parse("2026-11-29T00:00:00Z");
  private static final Instant FAILED_AT = Instant.parse("2026-11-29T08:00:00Z");

  @Test
  @DisplayName("R23/R33: a lease ceiling of Long.MAX_VALUE seconds is refused naming lease.ceiling and the value")
  void leaseCeilingBounded() {
    assertRefused("lease.ceiling", HUGE_TEXT, () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(HUGE).factor(1.5).minSamples(20).build());
    assertRefused("lease.ceiling", "PT192H", () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofDays(8)).factor(1.5).minSamples(20).build());
    assertEquals(LeasePolicy.MAX_CEILING, LeasePolicy.builder().floor(ofMinutes(1)).ceiling(LeasePolicy.MAX_CEILING).factor(1.5).minSamples(20).build().ceiling());
    assertRefused("lease.floor", HUGE_TEXT, () -> LeasePolicy.builder().floor(HUGE).ceiling(ofHours(2)).factor(1.5).minSamples(20).build());
    assertRefused("lease.ceiling", HUGE_TEXT, () -> LeasePolicy.builder().floor(HUGE).ceiling(HUGE).factor(1.5).minSamples(20).build());
  }

  @Test
  @DisplayName("R23/R33: lease factor and min samples are bounded")
  void leaseNumbersBounded() {
    assertRefused("lease.factor", "1.0E300", () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(1e300).minSamples(20).build());
    assertRefused("lease.factor", "Infinity",
        () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(Double.POSITIVE_INFINITY).minSamples(20).build());
    assertRefused("lease.factor", "101.0", () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(101.0).minSamples(20).build());
    assertEquals(LeasePolicy.MAX_FACTOR,
        LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(LeasePolicy.MAX_FACTOR).minSamples(20).build().factor());
    assertRefused("lease.minSamples", String.valueOf(Integer.MAX_VALUE),
        () -> LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(1.5).minSamples(Integer.MAX_VALUE).build());
    assertEquals(LeasePolicy.MAX_MIN_SAMPLES,
        LeasePolicy.builder().floor(ofMinutes(1)).ceiling(ofHours(2)).factor(1.5).minSamples(LeasePolicy.MAX_MIN_SAMPLES).build().minSamples());
  }

  @Test
  @DisplayName("R23: the largest lease policy gives a lease without overflow for any P99")
  void largestLeaseDoesNotOverflow() {
    LeasePolicy p = LeasePolicy.builder().floor(LeasePolicy.MAX_CEILING).ceiling(LeasePolicy.MAX_CEILING).factor(LeasePolicy.MAX_FACTOR).minSamples(1).build();
    assertEquals(LeasePolicy.MAX_CEILING, p.leaseFor(Optional.of(HUGE), 1));
    assertEquals(LeasePolicy.MAX_CEILING, p.leaseFor(Optional.of(ofDays(6)), 1));
    Instant.MAX.minus(ofDays(365 * 1000L)).plus(p.leaseFor(Optional.empty(), 0));
  }

  @Test
  @DisplayName("R14/R33: a catch-up horizon of Long.MAX_VALUE seconds is refused naming catchUp.horizon and the value")
  void horizonBounded() {
    assertRefused("catchUp.horizon", HUGE_TEXT, () -> CatchUpPolicy.all().withHorizon(HUGE));
    assertRefused("catchUp.horizon", "PT8808H", () -> CatchUpPolicy.all().withHorizon(ofDays(367)));
    CatchUpPolicy max = CatchUpPolicy.all().withHorizon(CatchUpPolicy.MAX_HORIZON);
    assertEquals(ofDays(366), CatchUpPolicy.MAX_HORIZON);
    assertTrue(max.withinHorizon(FAILED_AT.minus(ofDays(366)), FAILED_AT));
    assertFalse(max.withinHorizon(FAILED_AT.minus(ofDays(367)), FAILED_AT));
  }

  @Test
  @DisplayName("R13/R33: delayed retries refuse a delay of Long.MAX_VALUE seconds naming retry.delays")
  void delayedBounded() {
    assertRefused("retry.delays", "[PT5M, " + HUGE_TEXT + "]",
        () -> RetryPolicy.delayed(ofMinutes(5), HUGE));
    assertRefused("retry.delays", "[PT8808H]", () -> RetryPolicy.delayed(ofDays(367)));
    assertEquals(List.of(RetryPolicy.MAX_DELAY), RetryPolicy.delayed(RetryPolicy.MAX_DELAY).delays());
    List<Duration> many = new ArrayList<>();
    for (int i = 1; i <= RetryPolicy.MAX_DELAYS + 1; i++) {
      many.add(ofSeconds(i));
    }
    InvalidSpecException e = assertRefused("retry.delays", many.toString(),
        () -> RetryPolicy.delayed(many.toArray(new Duration[0])));
    assertTrue(e.getMessage().contains("at most " + RetryPolicy.MAX_DELAYS), e.getMessage());
  }

  @Test
  @DisplayName("R13/R33: retry and catch-up spans refuse Long.MAX_VALUE seconds naming retry.span and catchUp.span")
  void spanBounded() {
    assertRefused("retry.span", HUGE_TEXT, () -> RetryPolicy.immediate().withinSpan(HUGE));
    assertRefused("retry.span", "PT8808H", () -> RetryPolicy.immediate().withinSpan(ofDays(367)));
    assertRefused("catchUp.span", HUGE_TEXT, () -> CatchUpPolicy.all().withinSpan(HUGE));
    assertRefused("catchUp.span", "PT8808H", () -> CatchUpPolicy.all().withinSpan(ofDays(367)));
    CatchUpPolicy catchUp = CatchUpPolicy.all().withinSpan(CatchUpPolicy.MAX_SPAN);
    assertTrue(catchUp.allowsCatchUpAt(WINDOW.plus(ofDays(365)), WINDOW));
    RetryPolicy retry = RetryPolicy.immediate().withinSpan(RetryPolicy.MAX_SPAN);
    assertEquals(Optional.empty(), retry.retryDueAt(1, WINDOW.plus(ofDays(366)), WINDOW, 1));
    RetryPolicy late = RetryPolicy.delayed(RetryPolicy.MAX_DELAY).withinSpan(RetryPolicy.MAX_SPAN);
    assertEquals(Optional.empty(), late.retryDueAt(1, Instant.MAX.minus(ofDays(800)), WINDOW, 1));
  }

  @Test
  @DisplayName("R13/R33: exponential retries bound the initial delay, the cap and the multiplier")
  void exponentialBounded() {
    assertRefused("retry.initialDelay", HUGE_TEXT, () -> RetryPolicy.exponential(HUGE, 2.0, HUGE, 0));
    assertRefused("retry.maxDelay", HUGE_TEXT, () -> RetryPolicy.exponential(ofMinutes(5), 2.0, HUGE, 0));
    assertRefused("retry.maxDelay", "PT8808H",
        () -> RetryPolicy.exponential(ofMinutes(5), 2.0, ofDays(367), 0));
    assertRefused("retry.multiplier", "1.0E300",
        () -> RetryPolicy.exponential(ofMinutes(5), 1e300, ofHours(1), 0));
    assertRefused("retry.multiplier", "100.5",
        () -> RetryPolicy.exponential(ofMinutes(5), 100.5, ofHours(1), 0));
    assertEquals(RetryPolicy.MAX_MULTIPLIER,
        RetryPolicy.exponential(ofMinutes(5), RetryPolicy.MAX_MULTIPLIER, ofHours(1), 0).multiplier());
  }

  @Test
  @DisplayName("R13: the exponential delay saturates at the cap for retry 10,000 and Integer.MAX_VALUE")
  void exponentialSaturates() {
    RetryPolicy p = RetryPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), 0.0);
    assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(10_000, FAILED_AT, WINDOW, 1).get());
    assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(Integer.MAX_VALUE, FAILED_AT, WINDOW, Long.MAX_VALUE).get());

    // The largest policy accepted: every delay stays within maxDelay * (1 + jitter).
    RetryPolicy max = RetryPolicy.exponential(
        RetryPolicy.MAX_DELAY, RetryPolicy.MAX_MULTIPLIER, RetryPolicy.MAX_DELAY, 1.0);
    for (int n : new int[] {1, 2, 10_000, Integer.MAX_VALUE}) {
      Duration d = Duration.between(FAILED_AT, max.retryDueAt(n, FAILED_AT, WINDOW, n).get());
      assertFalse(d.isNegative(), n + ": " + d);
      assertTrue(d.compareTo(RetryPolicy.MAX_DELAY.multipliedBy(2)) <= 0, n + ": " + d);
    }

    // A sub-millisecond initial delay grows to the cap too (it used to give 0 * Infinity = NaN, a
    // zero delay, once multiplier^n overflowed).
    RetryPolicy tiny = RetryPolicy.exponential(Duration.ofNanos(500_000), 2.0, ofHours(1), 0.0);
    assertEquals(FAILED_AT.plus(ofHours(1)), tiny.retryDueAt(10_000, FAILED_AT, WINDOW, 1).get());
    assertEquals(FAILED_AT.plus(ofHours(1)), tiny.retryDueAt(Integer.MAX_VALUE, FAILED_AT, WINDOW, 1).get());
    assertEquals(FAILED_AT.plus(Duration.ofMillis(1)), tiny.retryDueAt(2, FAILED_AT, WINDOW, 1).get());
  }

  @Test
  @DisplayName("R16/R33: the retry cap is bounded for Integer.MAX_VALUE, and capFor bounds its multiplier")
  void retryBounded() {
    assertRefused("retry.maxRetries", String.valueOf(Integer.MAX_VALUE),
        () -> RetryPolicy.immediate().withMaxRetries(Integer.MAX_VALUE));
    assertRefused("multiplier", "1.0E300", () -> RetryPolicy.capFor(ofHours(1), ofMinutes(5), 1e300));
    assertEquals(RetryPolicy.MAX_ALLOWED_RETRIES, RetryPolicy.capFor(RetryPolicy.MAX_SPAN, Duration.ofNanos(1), 1.0));
    assertRefused("acceptableRecovery", HUGE_TEXT, () -> RetryPolicy.capFor(HUGE, Duration.ofNanos(1), 1.0));
    assertRefused("firstDelay", HUGE_TEXT, () -> RetryPolicy.capFor(RetryPolicy.MAX_SPAN, HUGE, 1.0));
  }
}
