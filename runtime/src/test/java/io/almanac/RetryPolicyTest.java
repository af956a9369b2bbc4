package io.almanac;

import static io.almanac.Refusals.assertRefused;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.RetryPolicy.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What follows a failed attempt (R12, R13, R15, R16): the cap, the back-off and the span. */
class RetryPolicyTest {

  private static final Instant WINDOW = Instant.parse("2026-11-29T00:00:00Z");
  private static final Instant FAILED_AT = Instant.parse("2026-11-29T08:00:00Z");
  private static final Duration Z = Duration.ZERO;

  @Nested
  @DisplayName("defaults")
  class Defaults {
    @Test
    @DisplayName("R12 by default a task is not marked for retry: no retries")
    void notRetriedByDefault() {
      assertSame(RetryPolicy.DEFAULT, RetryPolicy.none());
      assertEquals(0, RetryPolicy.DEFAULT.maxRetries());
      assertFalse(RetryPolicy.DEFAULT.allowsRetry());
      assertEquals(Backoff.IMMEDIATE, RetryPolicy.DEFAULT.backoff());
      assertFalse(RetryPolicy.DEFAULT.hasSpan());
      assertEquals(RetryPolicy.DEFAULT, TaskSpec.builder("t").cron("0 0 8 * * ? UTC").build().retry());
    }

    @Test
    @DisplayName("R15 a back-off chosen by a factory marks the task for retry with the default cap of 3")
    void factoriesCapAtThree() {
      assertEquals(3, RetryPolicy.DEFAULT_MAX_RETRIES);
      for (RetryPolicy p : List.of(RetryPolicy.immediate(), RetryPolicy.delayed(ofMinutes(5)),
          RetryPolicy.exponential(ofMinutes(5), 2.0, ofHours(1), 0.0))) {
        assertEquals(3, p.maxRetries(), p.toString());
        assertTrue(p.allowsRetry(), p.toString());
        assertFalse(p.hasSpan(), p.toString());
      }
    }

    @Test
    @DisplayName("R15 withMaxRetries changes the cap and keeps the back-off; 0 turns retries off")
    void withMaxRetries() {
      RetryPolicy five = RetryPolicy.delayed(ofMinutes(5), ofMinutes(15)).withMaxRetries(5);
      assertEquals(5, five.maxRetries());
      assertEquals(List.of(ofMinutes(5), ofMinutes(15)), five.delays());
      assertFalse(five.withMaxRetries(0).allowsRetry());
      assertEquals(1000, RetryPolicy.immediate().withMaxRetries(RetryPolicy.MAX_ALLOWED_RETRIES).maxRetries());
    }

    @Test
    @DisplayName("R15 the builder's maxRetries keeps the chosen back-off in either order, immediate when none is chosen")
    void builderMaxRetries() {
      TaskSpec.Builder b = TaskSpec.builder("t").cron("0 0 8 * * ? UTC");
      RetryPolicy delays = RetryPolicy.delayed(ofMinutes(5));
      assertEquals(delays.withMaxRetries(7), b.retry(delays).maxRetries(7).build().retry());
      assertEquals(delays.withMaxRetries(7), TaskSpec.builder("t").cron("0 0 8 * * ? UTC").maxRetries(7).retry(delays)
          .build().retry());
      assertEquals(RetryPolicy.immediate().withMaxRetries(2),
          TaskSpec.builder("t").cron("0 0 8 * * ? UTC").maxRetries(2).build().retry());
    }
  }

  @Nested
  @DisplayName("R13 back-off")
  class BackoffBehaviour {
    @Test
    @DisplayName("R13 immediate retries at the failure instant")
    void immediateRetriesAtOnce() {
      RetryPolicy p = RetryPolicy.immediate();
      assertEquals(Optional.of(FAILED_AT), p.retryDueAt(1, FAILED_AT, WINDOW, 0));
      assertEquals(Optional.of(FAILED_AT), p.retryDueAt(5, FAILED_AT, WINDOW, 0));
    }

    @Test
    @DisplayName("R13 delays 5, 15, 30 min are used in order and the last repeats")
    void delayedListInOrderLastRepeats() {
      RetryPolicy p = RetryPolicy.delayed(ofMinutes(5), ofMinutes(15), ofMinutes(30));
      assertEquals(Backoff.DELAYS, p.backoff());
      assertEquals(List.of(ofMinutes(5), ofMinutes(15), ofMinutes(30)), p.delays());
      assertEquals(FAILED_AT.plus(ofMinutes(5)), p.retryDueAt(1, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(15)), p.retryDueAt(2, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(3, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(4, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(50, FAILED_AT, WINDOW, 9).get());
    }

    @Test
    @DisplayName("R13 a single delay repeats for every retry")
    void singleDelayRepeats() {
      RetryPolicy p = RetryPolicy.delayed(ofMinutes(10));
      assertEquals(FAILED_AT.plus(ofMinutes(10)), p.retryDueAt(1, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(10)), p.retryDueAt(3, FAILED_AT, WINDOW, 0).get());
    }

    @Test
    @DisplayName("R13 the delays list is a copy: changing the caller's array changes nothing")
    void delaysAreCopied() {
      Duration[] given = {ofMinutes(5), ofMinutes(15)};
      RetryPolicy p = RetryPolicy.delayed(given);
      given[0] = ofMinutes(1);
      assertEquals(ofMinutes(5), p.delays().get(0));
      assertThrows(UnsupportedOperationException.class, () -> p.delays().add(ofMinutes(60)));
    }

    @Test
    @DisplayName("R13 exponential without jitter doubles up to the cap")
    void exponentialDoublesUpToCap() {
      RetryPolicy p = RetryPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), 0.0);
      assertEquals(Backoff.EXPONENTIAL, p.backoff());
      assertEquals(FAILED_AT.plus(ofMinutes(5)), p.retryDueAt(1, FAILED_AT, WINDOW, 1).get());
      assertEquals(FAILED_AT.plus(ofMinutes(10)), p.retryDueAt(2, FAILED_AT, WINDOW, 1).get());
      assertEquals(FAILED_AT.plus(ofMinutes(20)), p.retryDueAt(3, FAILED_AT, WINDOW, 1).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(4, FAILED_AT, WINDOW, 1).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(1000, FAILED_AT, WINDOW, 1).get());
    }

    @Test
    @DisplayName("R13 exponential with multiplier 1.0 is a constant delay")
    void exponentialWithMultiplierOneIsConstant() {
      RetryPolicy p = RetryPolicy.exponential(ofMinutes(7), 1.0, ofMinutes(7), 0.0);
      for (int n = 1; n <= 5; n++) {
        assertEquals(FAILED_AT.plus(ofMinutes(7)), p.retryDueAt(n, FAILED_AT, WINDOW, n).get());
      }
    }

    @Test
    @DisplayName("R13 exponential jitter stays in [1-j, 1+j] of the capped delay and is deterministic")
    void exponentialJitterBoundedAndDeterministic() {
      double jitter = 0.2;
      RetryPolicy p = RetryPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), jitter);
      Set<Duration> seen = new HashSet<>();
      for (long seed = 0; seed < 200; seed++) {
        for (int n = 1; n <= 6; n++) {
          Duration base = ofMinutes(Math.min(5L << (n - 1), 30));
          Duration d = Duration.between(FAILED_AT, p.retryDueAt(n, FAILED_AT, WINDOW, seed).get());
          long lo = (long) Math.floor(base.toMillis() * (1 - jitter));
          long hi = (long) Math.ceil(base.toMillis() * (1 + jitter));
          assertTrue(d.toMillis() >= lo && d.toMillis() <= hi, n + "/" + seed + ": " + d);
          assertTrue(d.compareTo(ofMillis((long) (ofMinutes(30).toMillis() * 1.2))) <= 0);
          assertEquals(d, Duration.between(FAILED_AT, p.retryDueAt(n, FAILED_AT, WINDOW, seed).get()));
          seen.add(d);
        }
      }
      assertTrue(seen.size() > 100, "jitter spreads the delays, saw " + seen.size());
    }

    @Test
    @DisplayName("R13 full jitter (1.0) never gives a negative delay nor one above twice the cap")
    void fullJitterNeverNegative() {
      RetryPolicy p = RetryPolicy.exponential(ofMinutes(1), 3.0, ofMinutes(10), 1.0);
      for (long seed = -50; seed < 50; seed++) {
        for (int n = 1; n <= 8; n++) {
          Duration d = Duration.between(FAILED_AT, p.retryDueAt(n, FAILED_AT, WINDOW, seed).get());
          assertFalse(d.isNegative(), d.toString());
          assertTrue(d.compareTo(ofMinutes(20)) <= 0, d.toString());
        }
      }
    }

    @Test
    @DisplayName("R13 the jitter depends on the seed and the retry number")
    void jitterDependsOnSeedAndRetry() {
      RetryPolicy p = RetryPolicy.exponential(ofMinutes(10), 1.0, ofMinutes(10), 0.5);
      List<Instant> dues = new ArrayList<>();
      for (int n = 1; n <= 3; n++) {
        dues.add(p.retryDueAt(n, FAILED_AT, WINDOW, 42).get());
      }
      assertEquals(3, new HashSet<>(dues).size(), dues.toString());
      assertNotEquals(p.retryDueAt(1, FAILED_AT, WINDOW, 1).get(), p.retryDueAt(1, FAILED_AT, WINDOW, 2).get());
    }

    @Test
    @DisplayName("R13 windowed: immediate retries within a span are made while inside it, not at or after its end")
    void immediateWithinSpan() {
      RetryPolicy p = RetryPolicy.immediate().withinSpan(ofHours(24));
      assertTrue(p.hasSpan());
      Instant end = WINDOW.plus(ofHours(24));
      assertEquals(Optional.of(FAILED_AT), p.retryDueAt(1, FAILED_AT, WINDOW, 0));
      Instant justBefore = end.minusMillis(1);
      assertEquals(Optional.of(justBefore), p.retryDueAt(9, justBefore, WINDOW, 0));
      assertEquals(Optional.empty(), p.retryDueAt(1, end, WINDOW, 0));
      assertEquals(Optional.empty(), p.retryDueAt(1, end.plusSeconds(60), WINDOW, 0));
    }

    @Test
    @DisplayName("R13 a span also bounds delayed retries: one that would be due at or after its end is not made")
    void delaysWithinSpan() {
      RetryPolicy p = RetryPolicy.delayed(ofMinutes(5), ofHours(2)).withinSpan(ofHours(9));
      assertEquals(Optional.of(FAILED_AT.plus(ofMinutes(5))), p.retryDueAt(1, FAILED_AT, WINDOW, 0));
      assertEquals(Optional.empty(), p.retryDueAt(2, FAILED_AT, WINDOW, 0), "08:00 + 2 h is past 09:00");
    }

    @Test
    @DisplayName("retry numbers start at 1")
    void retryNumberStartsAtOne() {
      assertThrows(IllegalArgumentException.class, () -> RetryPolicy.immediate().retryDueAt(0, FAILED_AT, WINDOW, 0));
    }
  }

  @Nested
  @DisplayName("R16 cap from the recovery time")
  class RecoveryTime {
    @Test
    @DisplayName("R16 1 h, 5 min, x2 gives 3: 5+10+20 = 35 min fits, a 4th at +40 = 75 min does not")
    void fieldReportExample() {
      Duration three = ofMinutes(5).plus(ofMinutes(10)).plus(ofMinutes(20));
      assertEquals(ofMinutes(35), three);
      assertEquals(ofMinutes(75), three.plus(ofMinutes(40)));
      assertEquals(3, RetryPolicy.capFor(ofHours(1), ofMinutes(5), 2.0));
      RetryPolicy p = RetryPolicy.forRecoveryTime(ofHours(1), ofMinutes(5), 2.0);
      assertEquals(3, p.maxRetries());
      assertEquals(Backoff.EXPONENTIAL, p.backoff());
      assertEquals(FAILED_AT.plus(ofMinutes(5)), p.retryDueAt(1, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(10)), p.retryDueAt(2, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(20)), p.retryDueAt(3, FAILED_AT, WINDOW, 0).get());
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
      assertEquals(4, RetryPolicy.capFor(ofHours(24), ofMinutes(60), 2.0)); // 1+2+4+8 = 15 h; +16 > 24
    }

    @Test
    @DisplayName("R16 a recovery time shorter than the first delay gives 0: not retried")
    void recoveryShorterThanFirstDelay() {
      assertEquals(0, RetryPolicy.capFor(ofMinutes(4), ofMinutes(5), 2.0));
      assertFalse(RetryPolicy.forRecoveryTime(ofMinutes(4), ofMinutes(5), 2.0).allowsRetry());
    }

    @Test
    @DisplayName("R16 the derived cap never passes the limit of 1000")
    void derivedCapIsBounded() {
      assertEquals(1000, RetryPolicy.capFor(ofHours(1), ofMillis(1), 1.0));
    }

    @Test
    @DisplayName("R33 acceptableRecovery, firstDelay and multiplier are checked naming them")
    void argumentsChecked() {
      assertRefused("acceptableRecovery", "PT0S", () -> RetryPolicy.capFor(Duration.ZERO, ofMinutes(5), 2.0));
      assertRefused("acceptableRecovery", null, () -> RetryPolicy.capFor(null, ofMinutes(5), 2.0));
      assertRefused("firstDelay", "PT-5M", () -> RetryPolicy.capFor(ofHours(1), ofMinutes(-5), 2.0));
      assertRefused("firstDelay", "PT0S", () -> RetryPolicy.forRecoveryTime(ofHours(1), Duration.ZERO, 2.0));
      assertRefused("firstDelay", "PT8808H", () -> RetryPolicy.forRecoveryTime(Duration.ofDays(366), Duration.ofDays(367), 1.0));
      assertRefused("acceptableRecovery", "PT9600H", () -> RetryPolicy.forRecoveryTime(Duration.ofDays(400), Duration.ofDays(1), 1.0));
      assertRefused("multiplier", "0.9", () -> RetryPolicy.capFor(ofHours(1), ofMinutes(5), 0.9));
      assertRefused("multiplier", "NaN", () -> RetryPolicy.capFor(ofHours(1), ofMinutes(5), Double.NaN));
    }
  }

  @Nested
  @DisplayName("R33 validation")
  class Validation {
    @Test
    @DisplayName("R33 retry.maxRetries must be 0-1000")
    void maxRetriesBounded() {
      InvalidSpecException e = assertRefused("retry.maxRetries", "-1", () -> RetryPolicy.immediate().withMaxRetries(-1));
      assertEquals("retry.maxRetries '-1' is invalid: must be >= 0", e.getMessage());
      assertRefused("retry.maxRetries", "1001", () -> RetryPolicy.none().withMaxRetries(1001));
      InvalidSpecException b = assertThrows(InvalidSpecException.class,
          () -> TaskSpec.builder("t").cron("0 0 8 * * ? UTC").maxRetries(-1));
      assertEquals("retry.maxRetries", b.field());
      assertEquals("task 't': retry.maxRetries '-1' is invalid: must be >= 0", b.getMessage());
    }

    @Test
    @DisplayName("R33 retry.backoff must be set")
    void backoffMustBeSet() {
      assertRefused("retry.backoff", null, () -> RetryPolicy.builder().maxRetries(3).backoff(null).delays(List.of()).initialDelay(Z).multiplier(1.0).maxDelay(Z).jitter(0).span(Z).build());
    }

    @Test
    @DisplayName("R33 retry.delays must not be empty")
    void delaysMustNotBeEmpty() {
      assertRefused("retry.delays", "[]", () -> RetryPolicy.delayed());
      assertRefused("retry.delays", null, () -> RetryPolicy.delayed((Duration[]) null));
      assertRefused("retry.delays", "[]", () -> RetryPolicy.builder().maxRetries(3).backoff(Backoff.DELAYS).delays(List.of()).initialDelay(Z).multiplier(1.0).maxDelay(Z).jitter(0).span(Z).build());
    }

    @Test
    @DisplayName("R33 retry.delays must be positive")
    void delaysMustBePositive() {
      assertRefused("retry.delays", "[PT0S, PT5M]", () -> RetryPolicy.delayed(Duration.ZERO, ofMinutes(5)));
      assertRefused("retry.delays", "[PT-1M]", () -> RetryPolicy.delayed(ofMinutes(-1)));
      assertRefused("retry.delays", "[PT5M, null]", () -> RetryPolicy.delayed(ofMinutes(5), null));
    }

    @Test
    @DisplayName("R33 retry.delays must be strictly increasing")
    void delaysMustIncrease() {
      InvalidSpecException e = assertRefused("retry.delays", "[PT5M, PT15M, PT15M]",
          () -> RetryPolicy.delayed(ofMinutes(5), ofMinutes(15), ofMinutes(15)));
      assertTrue(e.getMessage().contains("strictly increasing"), e.getMessage());
      assertRefused("retry.delays", "[PT30M, PT5M]", () -> RetryPolicy.delayed(ofMinutes(30), ofMinutes(5)));
    }

    @Test
    @DisplayName("R33 retry.initialDelay must be positive")
    void initialDelayMustBePositive() {
      assertRefused("retry.initialDelay", "PT0S", () -> RetryPolicy.exponential(Duration.ZERO, 2.0, ofMinutes(30), 0));
      assertRefused("retry.initialDelay", "PT-5M", () -> RetryPolicy.exponential(ofMinutes(-5), 2.0, ofMinutes(30), 0));
      assertRefused("retry.initialDelay", null, () -> RetryPolicy.exponential(null, 2.0, ofMinutes(30), 0));
    }

    @Test
    @DisplayName("R33 retry.multiplier must be 1.0-100.0")
    void multiplierBounded() {
      assertRefused("retry.multiplier", "0.5", () -> RetryPolicy.exponential(ofMinutes(5), 0.5, ofMinutes(30), 0));
      assertRefused("retry.multiplier", "NaN", () -> RetryPolicy.exponential(ofMinutes(5), Double.NaN, ofMinutes(30), 0));
      assertRefused("retry.multiplier", "Infinity",
          () -> RetryPolicy.exponential(ofMinutes(5), Double.POSITIVE_INFINITY, ofMinutes(30), 0));
    }

    @Test
    @DisplayName("R33 retry.maxDelay must be >= retry.initialDelay")
    void maxDelayAtLeastInitial() {
      InvalidSpecException e = assertRefused("retry.maxDelay", "PT4M",
          () -> RetryPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(4), 0));
      assertTrue(e.getMessage().contains("retry.initialDelay PT5M"), e.getMessage());
      assertRefused("retry.maxDelay", null, () -> RetryPolicy.exponential(ofMinutes(5), 2.0, null, 0));
    }

    @Test
    @DisplayName("R33 retry.jitter must be in [0, 1]")
    void jitterInUnitInterval() {
      assertRefused("retry.jitter", "-0.1", () -> RetryPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), -0.1));
      assertRefused("retry.jitter", "1.5", () -> RetryPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), 1.5));
      assertRefused("retry.jitter", "NaN", () -> RetryPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), Double.NaN));
    }

    @Test
    @DisplayName("R33 retry.span must be positive when set, and at most 366 days")
    void spanMustBePositive() {
      assertRefused("retry.span", "PT0S", () -> RetryPolicy.immediate().withinSpan(Duration.ZERO));
      assertRefused("retry.span", "PT-1H", () -> RetryPolicy.immediate().withinSpan(ofHours(-1)));
      assertRefused("retry.span", null, () -> RetryPolicy.immediate().withinSpan(null));
      assertRefused("retry.span", "PT-1H", () -> RetryPolicy.builder().maxRetries(3).backoff(Backoff.IMMEDIATE).delays(List.of()).initialDelay(Z).multiplier(1.0).maxDelay(Z).jitter(0).span(ofHours(-1)).build());
    }

    @Test
    @DisplayName("R33 components the back-off does not use must hold neutral values")
    void unusedComponentsMustBeNeutral() {
      assertRefused("retry.delays", "[PT5M]",
          () -> RetryPolicy.builder().maxRetries(3).backoff(Backoff.IMMEDIATE).delays(List.of(ofMinutes(5))).initialDelay(Z).multiplier(1.0).maxDelay(Z).jitter(0).span(Z).build());
      assertRefused("retry.multiplier", "2.0",
          () -> RetryPolicy.builder().maxRetries(3).backoff(Backoff.DELAYS).delays(List.of(ofMinutes(5))).initialDelay(Z).multiplier(2.0).maxDelay(Z).jitter(0).span(Z).build());
      assertRefused("retry.initialDelay", "PT5M",
          () -> RetryPolicy.builder().maxRetries(3).backoff(Backoff.IMMEDIATE).delays(List.of()).initialDelay(ofMinutes(5)).multiplier(1.0).maxDelay(Z).jitter(0).span(Z).build());
      assertRefused("retry.jitter", "0.1", () -> RetryPolicy.builder().maxRetries(3).backoff(Backoff.IMMEDIATE).delays(List.of()).initialDelay(Z).multiplier(1.0).maxDelay(Z).jitter(0.1).span(Z).build());
      assertRefused("retry.maxDelay", "PT1H",
          () -> RetryPolicy.builder().maxRetries(3).backoff(Backoff.DELAYS).delays(List.of(ofMinutes(5))).initialDelay(Z).multiplier(1.0).maxDelay(ofHours(1)).jitter(0).span(Z).build());
      assertRefused("retry.delays", "[PT5M]",
          () -> RetryPolicy.builder().maxRetries(3).backoff(Backoff.EXPONENTIAL).delays(List.of(ofMinutes(5))).initialDelay(ofMinutes(5)).multiplier(2.0).maxDelay(ofHours(1)).jitter(0).span(Z).build());
    }

    @Test
    @DisplayName("unused null components read as neutral values (lenient deserialization)")
    void nullUnusedComponentsAreNeutral() {
      assertEquals(RetryPolicy.immediate().withinSpan(ofHours(2)),
          RetryPolicy.builder().maxRetries(3).backoff(Backoff.IMMEDIATE).delays(null).initialDelay(null).multiplier(1.0).maxDelay(null).jitter(0.0).span(ofHours(2)).build());
      assertEquals(RetryPolicy.immediate(), RetryPolicy.builder().maxRetries(3).backoff(Backoff.IMMEDIATE).delays(null).initialDelay(null).multiplier(1.0).maxDelay(null).jitter(0.0).span(null).build());
    }
  }
}
