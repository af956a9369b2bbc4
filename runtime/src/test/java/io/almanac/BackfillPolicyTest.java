package io.almanac;

import static io.almanac.Refusals.assertRefused;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofMinutes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

class BackfillPolicyTest {

  private static final Instant WINDOW = Instant.parse("2026-11-29T00:00:00Z");
  private static final Instant FAILED_AT = Instant.parse("2026-11-29T08:00:00Z");

  @Nested
  @DisplayName("R12 default")
  class Default {
    @Test
    @DisplayName("R12 backfill is off by default and never retries nor catches up")
    void noBackfillByDefault() {
      assertSame(BackfillPolicy.DEFAULT, BackfillPolicy.none());
      assertEquals(BackfillPolicy.Mode.NONE, BackfillPolicy.DEFAULT.mode());
      assertFalse(BackfillPolicy.DEFAULT.allowsBackfill());
      assertEquals(Optional.empty(), BackfillPolicy.none().retryDueAt(1, FAILED_AT, WINDOW, 7));
      assertFalse(BackfillPolicy.none().allowsCatchUpAt(FAILED_AT, WINDOW));
    }
  }

  @Nested
  @DisplayName("R13 behaviour")
  class Behaviour {
    @Test
    @DisplayName("R13 immediate retries at the failure instant and always catches up")
    void immediateRetriesAtOnce() {
      BackfillPolicy p = BackfillPolicy.immediate();
      assertTrue(p.allowsBackfill());
      assertEquals(Optional.of(FAILED_AT), p.retryDueAt(1, FAILED_AT, WINDOW, 0));
      assertEquals(Optional.of(FAILED_AT), p.retryDueAt(5, FAILED_AT, WINDOW, 0));
      assertTrue(p.allowsCatchUpAt(WINDOW.plus(ofHours(1000)), WINDOW));
    }

    @Test
    @DisplayName("R13 delays 5, 15, 30 min are used in order and the last repeats")
    void delayedListInOrderLastRepeats() {
      BackfillPolicy p = BackfillPolicy.delayed(ofMinutes(5), ofMinutes(15), ofMinutes(30));
      assertEquals(List.of(ofMinutes(5), ofMinutes(15), ofMinutes(30)), p.delays());
      assertEquals(FAILED_AT.plus(ofMinutes(5)), p.retryDueAt(1, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(15)), p.retryDueAt(2, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(3, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(4, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(50, FAILED_AT, WINDOW, 9).get());
      assertTrue(p.allowsCatchUpAt(FAILED_AT, WINDOW));
    }

    @Test
    @DisplayName("R13 a single delay repeats for every retry")
    void singleDelayRepeats() {
      BackfillPolicy p = BackfillPolicy.delayed(ofMinutes(10));
      assertEquals(FAILED_AT.plus(ofMinutes(10)), p.retryDueAt(1, FAILED_AT, WINDOW, 0).get());
      assertEquals(FAILED_AT.plus(ofMinutes(10)), p.retryDueAt(3, FAILED_AT, WINDOW, 0).get());
    }

    @Test
    @DisplayName("R13 the delays list is a copy: changing the caller's array changes nothing")
    void delaysAreCopied() {
      Duration[] given = {ofMinutes(5), ofMinutes(15)};
      BackfillPolicy p = BackfillPolicy.delayed(given);
      given[0] = ofMinutes(1);
      assertEquals(ofMinutes(5), p.delays().get(0));
      assertThrows(UnsupportedOperationException.class, () -> p.delays().add(ofMinutes(60)));
    }

    @Test
    @DisplayName("R13 exponential without jitter doubles up to the cap")
    void exponentialDoublesUpToCap() {
      BackfillPolicy p = BackfillPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), 0.0);
      assertEquals(BackfillPolicy.Mode.DELAYED, p.mode());
      assertEquals(FAILED_AT.plus(ofMinutes(5)), p.retryDueAt(1, FAILED_AT, WINDOW, 1).get());
      assertEquals(FAILED_AT.plus(ofMinutes(10)), p.retryDueAt(2, FAILED_AT, WINDOW, 1).get());
      assertEquals(FAILED_AT.plus(ofMinutes(20)), p.retryDueAt(3, FAILED_AT, WINDOW, 1).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(4, FAILED_AT, WINDOW, 1).get());
      assertEquals(FAILED_AT.plus(ofMinutes(30)), p.retryDueAt(1000, FAILED_AT, WINDOW, 1).get());
    }

    @Test
    @DisplayName("R13 exponential with multiplier 1.0 is a constant delay")
    void exponentialWithMultiplierOneIsConstant() {
      BackfillPolicy p = BackfillPolicy.exponential(ofMinutes(7), 1.0, ofMinutes(7), 0.0);
      for (int n = 1; n <= 5; n++) {
        assertEquals(FAILED_AT.plus(ofMinutes(7)), p.retryDueAt(n, FAILED_AT, WINDOW, n).get());
      }
    }

    @Test
    @DisplayName(
        "R13 exponential jitter stays in [1-j, 1+j] of the capped delay and is deterministic")
    void exponentialJitterBoundedAndDeterministic() {
      double jitter = 0.2;
      BackfillPolicy p = BackfillPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), jitter);
      Set<Duration> seen = new HashSet<>();
      for (long seed = 0; seed < 200; seed++) {
        for (int n = 1; n <= 6; n++) {
          Duration base = ofMinutes(Math.min(5L << (n - 1), 30));
          Duration d = Duration.between(FAILED_AT, p.retryDueAt(n, FAILED_AT, WINDOW, seed).get());
          long lo = (long) Math.floor(base.toMillis() * (1 - jitter));
          long hi = (long) Math.ceil(base.toMillis() * (1 + jitter));
          assertTrue(d.toMillis() >= lo && d.toMillis() <= hi, n + "/" + seed + ": " + d);
          assertTrue(d.compareTo(ofMillis((long) (ofMinutes(30).toMillis() * 1.2))) <= 0);
          assertEquals(
              d, Duration.between(FAILED_AT, p.retryDueAt(n, FAILED_AT, WINDOW, seed).get()));
          seen.add(d);
        }
      }
      assertTrue(seen.size() > 100, "jitter spreads the delays, saw " + seen.size());
    }

    @Test
    @DisplayName("R13 full jitter (1.0) never gives a negative delay nor one above twice the cap")
    void fullJitterNeverNegative() {
      BackfillPolicy p = BackfillPolicy.exponential(ofMinutes(1), 3.0, ofMinutes(10), 1.0);
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
      BackfillPolicy p = BackfillPolicy.exponential(ofMinutes(10), 1.0, ofMinutes(10), 0.5);
      List<Instant> dues = new ArrayList<>();
      for (int n = 1; n <= 3; n++) {
        dues.add(p.retryDueAt(n, FAILED_AT, WINDOW, 42).get());
      }
      assertEquals(3, new HashSet<>(dues).size(), dues.toString());
      assertNotEquals(
          p.retryDueAt(1, FAILED_AT, WINDOW, 1).get(), p.retryDueAt(1, FAILED_AT, WINDOW, 2).get());
    }

    @Test
    @DisplayName("R13 windowed retries at once while inside the span, not at or after its end")
    void windowedRetriesInsideSpanOnly() {
      BackfillPolicy p = BackfillPolicy.windowed(ofHours(24));
      Instant end = WINDOW.plus(ofHours(24));
      assertEquals(Optional.of(FAILED_AT), p.retryDueAt(1, FAILED_AT, WINDOW, 0));
      Instant justBefore = end.minusMillis(1);
      assertEquals(Optional.of(justBefore), p.retryDueAt(9, justBefore, WINDOW, 0));
      assertEquals(Optional.empty(), p.retryDueAt(1, end, WINDOW, 0));
      assertEquals(Optional.empty(), p.retryDueAt(1, end.plusSeconds(60), WINDOW, 0));
    }

    @Test
    @DisplayName("R13 windowed catches up while now < window start + span")
    void windowedCatchUpInsideSpanOnly() {
      BackfillPolicy p = BackfillPolicy.windowed(ofHours(24));
      assertTrue(p.allowsCatchUpAt(WINDOW, WINDOW));
      assertTrue(p.allowsCatchUpAt(WINDOW.plus(ofHours(24)).minusNanos(1), WINDOW));
      assertFalse(p.allowsCatchUpAt(WINDOW.plus(ofHours(24)), WINDOW));
    }

    @Test
    @DisplayName("retry numbers start at 1")
    void retryNumberStartsAtOne() {
      assertThrows(
          IllegalArgumentException.class,
          () -> BackfillPolicy.immediate().retryDueAt(0, FAILED_AT, WINDOW, 0));
    }
  }

  @Nested
  @DisplayName("R33 validation")
  class Validation {
    @Test
    @DisplayName("R33 backfill.mode must be set")
    void modeMustBeSet() {
      assertRefused(
          "backfill.mode",
          "null",
          () ->
              new BackfillPolicy(
                  null, List.of(), Duration.ZERO, 1.0, Duration.ZERO, 0, Duration.ZERO));
    }

    @Test
    @DisplayName("R33 backfill.delays must not be empty")
    void delaysMustNotBeEmpty() {
      assertRefused("backfill.delays", "[]", () -> BackfillPolicy.delayed());
      assertRefused("backfill.delays", "null", () -> BackfillPolicy.delayed((Duration[]) null));
    }

    @Test
    @DisplayName("R33 backfill.delays must be positive")
    void delaysMustBePositive() {
      assertRefused(
          "backfill.delays",
          "[PT0S, PT5M]",
          () -> BackfillPolicy.delayed(Duration.ZERO, ofMinutes(5)));
      assertRefused("backfill.delays", "[PT-1M]", () -> BackfillPolicy.delayed(ofMinutes(-1)));
      assertRefused(
          "backfill.delays", "[PT5M, null]", () -> BackfillPolicy.delayed(ofMinutes(5), null));
    }

    @Test
    @DisplayName("R33 backfill.delays must be strictly increasing")
    void delaysMustIncrease() {
      InvalidSpecException e =
          assertRefused(
              "backfill.delays",
              "[PT5M, PT15M, PT15M]",
              () -> BackfillPolicy.delayed(ofMinutes(5), ofMinutes(15), ofMinutes(15)));
      assertTrue(e.getMessage().contains("strictly increasing"), e.getMessage());
      assertRefused(
          "backfill.delays",
          "[PT30M, PT5M]",
          () -> BackfillPolicy.delayed(ofMinutes(30), ofMinutes(5)));
    }

    @Test
    @DisplayName("R33 backfill.initialDelay must be positive")
    void initialDelayMustBePositive() {
      assertRefused(
          "backfill.initialDelay",
          "PT0S",
          () -> BackfillPolicy.exponential(Duration.ZERO, 2.0, ofMinutes(30), 0));
      assertRefused(
          "backfill.initialDelay",
          "PT-5M",
          () -> BackfillPolicy.exponential(ofMinutes(-5), 2.0, ofMinutes(30), 0));
      assertRefused(
          "backfill.initialDelay",
          "null",
          () -> BackfillPolicy.exponential(null, 2.0, ofMinutes(30), 0));
    }

    @Test
    @DisplayName("R33 backfill.multiplier must be >= 1.0")
    void multiplierAtLeastOne() {
      assertRefused(
          "backfill.multiplier",
          "0.5",
          () -> BackfillPolicy.exponential(ofMinutes(5), 0.5, ofMinutes(30), 0));
      assertRefused(
          "backfill.multiplier",
          "NaN",
          () -> BackfillPolicy.exponential(ofMinutes(5), Double.NaN, ofMinutes(30), 0));
      assertRefused(
          "backfill.multiplier",
          "Infinity",
          () ->
              BackfillPolicy.exponential(ofMinutes(5), Double.POSITIVE_INFINITY, ofMinutes(30), 0));
    }

    @Test
    @DisplayName("R33 backfill.maxDelay must be >= backfill.initialDelay")
    void maxDelayAtLeastInitial() {
      InvalidSpecException e =
          assertRefused(
              "backfill.maxDelay",
              "PT4M",
              () -> BackfillPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(4), 0));
      assertTrue(e.getMessage().contains("backfill.initialDelay PT5M"), e.getMessage());
      assertRefused(
          "backfill.maxDelay",
          "null",
          () -> BackfillPolicy.exponential(ofMinutes(5), 2.0, null, 0));
    }

    @Test
    @DisplayName("R33 backfill.jitter must be in [0, 1]")
    void jitterInUnitInterval() {
      assertRefused(
          "backfill.jitter",
          "-0.1",
          () -> BackfillPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), -0.1));
      assertRefused(
          "backfill.jitter",
          "1.5",
          () -> BackfillPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), 1.5));
      assertRefused(
          "backfill.jitter",
          "NaN",
          () -> BackfillPolicy.exponential(ofMinutes(5), 2.0, ofMinutes(30), Double.NaN));
    }

    @Test
    @DisplayName("R33 backfill.span must be positive")
    void spanMustBePositive() {
      assertRefused("backfill.span", "PT0S", () -> BackfillPolicy.windowed(Duration.ZERO));
      assertRefused("backfill.span", "PT-1H", () -> BackfillPolicy.windowed(ofHours(-1)));
      assertRefused("backfill.span", "null", () -> BackfillPolicy.windowed(null));
    }

    @Test
    @DisplayName("R33 components a mode does not use must hold neutral values")
    void unusedComponentsMustBeNeutral() {
      Duration zero = Duration.ZERO;
      assertRefused(
          "backfill.span",
          "PT1H",
          () ->
              new BackfillPolicy(
                  BackfillPolicy.Mode.NONE, List.of(), zero, 1.0, zero, 0, ofHours(1)));
      assertRefused(
          "backfill.delays",
          "[PT5M]",
          () ->
              new BackfillPolicy(
                  BackfillPolicy.Mode.IMMEDIATE, List.of(ofMinutes(5)), zero, 1.0, zero, 0, zero));
      assertRefused(
          "backfill.multiplier",
          "2.0",
          () ->
              new BackfillPolicy(
                  BackfillPolicy.Mode.DELAYED, List.of(ofMinutes(5)), zero, 2.0, zero, 0, zero));
      assertRefused(
          "backfill.initialDelay",
          "PT5M",
          () ->
              new BackfillPolicy(
                  BackfillPolicy.Mode.WINDOWED, List.of(), ofMinutes(5), 1.0, zero, 0, ofHours(1)));
      assertRefused(
          "backfill.jitter",
          "0.1",
          () ->
              new BackfillPolicy(
                  BackfillPolicy.Mode.IMMEDIATE, List.of(), zero, 1.0, zero, 0.1, zero));
      assertRefused(
          "backfill.maxDelay",
          "PT1H",
          () ->
              new BackfillPolicy(
                  BackfillPolicy.Mode.IMMEDIATE, List.of(), zero, 1.0, ofHours(1), 0, zero));
    }

    @Test
    @DisplayName("unused null components read as neutral values (lenient deserialization)")
    void nullUnusedComponentsAreNeutral() {
      BackfillPolicy p =
          new BackfillPolicy(BackfillPolicy.Mode.WINDOWED, null, null, 1.0, null, 0.0, ofHours(2));
      assertEquals(BackfillPolicy.windowed(ofHours(2)), p);
    }
  }
}
