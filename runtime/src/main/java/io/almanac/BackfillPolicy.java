package io.almanac;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Whether and when a window that did not succeed runs again (R12, R13): after a failure (a retry)
 * and after it was missed (a catch-up). Backfill is off by default ({@link #none()}): the window is
 * then recorded as failed or missed, with its reason, and nothing runs it again automatically.
 *
 * <p>Build one with a factory: {@link #none()}, {@link #immediate()}, {@link #delayed(Duration...)}
 * (an explicit list such as 5, 15, 30 minutes), {@link #exponential(Duration, double, Duration,
 * double)} or {@link #windowed(Duration)}. Components that a mode does not use hold neutral values
 * (empty list, {@link Duration#ZERO}, multiplier 1.0, jitter 0.0); the canonical constructor
 * refuses anything else, so equal policies are equal records. How many retries happen is the {@link
 * RetryPolicy}'s business; how old a missed window may be is the {@link CatchUpPolicy}'s.
 *
 * @param mode the strategy
 * @param delays for {@link Mode#DELAYED} with an explicit list: 1 to {@value #MAX_DELAYS}
 *     positive, strictly increasing delays from the failure to the retry, each at most {@link
 *     #MAX_DELAY}; the last one repeats. Empty otherwise
 * @param initialDelay for exponential back-off: the delay before the first retry, at most {@link
 *     #MAX_DELAY}; zero otherwise
 * @param multiplier for exponential back-off: the factor between consecutive delays (1.0 to
 *     {@value #MAX_MULTIPLIER}); 1.0 otherwise
 * @param maxDelay for exponential back-off: the cap on a delay before jitter, at most {@link
 *     #MAX_DELAY}; zero otherwise
 * @param jitter for exponential back-off: the relative spread in [0, 1] applied to each delay; 0.0
 *     otherwise
 * @param span for {@link Mode#WINDOWED}: how long after the window's start retries and catch-up are
 *     allowed, e.g. 24 hours for the same business day, at most {@link #MAX_SPAN}; zero otherwise
 */
public record BackfillPolicy(
    Mode mode,
    List<Duration> delays,
    Duration initialDelay,
    double multiplier,
    Duration maxDelay,
    double jitter,
    Duration span) {

  /** The backfill strategies of R13, plus none. */
  public enum Mode {
    /** No backfill: a failed or missed window stays as it is (the default, R12). */
    NONE,
    /** Retry at once after a failure; catch up missed windows at once. */
    IMMEDIATE,
    /** Retry after a back-off delay: an explicit list or exponential with a cap and jitter. */
    DELAYED,
    /** Retry or catch up at any time while the window's allowed span has not passed. */
    WINDOWED
  }

  /**
   * The longest delay accepted: each delay of {@link #delayed(Duration...)}, and the initial delay
   * and the cap of {@link #exponential(Duration, double, Duration, double)}: 366 days. Bounded so
   * that {@code failedAt + delay} can never overflow.
   */
  public static final Duration MAX_DELAY = Duration.ofDays(366);

  /** The most delays {@link #delayed(Duration...)} accepts: 100 (the last one repeats anyway). */
  public static final int MAX_DELAYS = 100;

  /** The largest factor between consecutive exponential delays: 100.0. */
  public static final double MAX_MULTIPLIER = 100.0;

  /** The longest span of {@link #windowed(Duration)}: 366 days. */
  public static final Duration MAX_SPAN = Duration.ofDays(366);

  /** No backfill, the default (R12). */
  public static final BackfillPolicy DEFAULT =
      new BackfillPolicy(
          Mode.NONE, List.of(), Duration.ZERO, 1.0, Duration.ZERO, 0.0, Duration.ZERO);

  /**
   * Validates the components for the mode; used by the factories and by deserialization. A null
   * component that the mode does not use is read as its neutral value.
   *
   * @param mode the strategy
   * @param delays the explicit delays of {@link Mode#DELAYED}, or empty
   * @param initialDelay the first exponential delay, or zero
   * @param multiplier the exponential factor, or 1.0
   * @param maxDelay the exponential cap, or zero
   * @param jitter the exponential jitter, or 0.0
   * @param span the span of {@link Mode#WINDOWED}, or zero
   * @throws InvalidSpecException naming the field ({@code backfill.mode}, {@code backfill.delays},
   *     {@code backfill.initialDelay}, {@code backfill.multiplier}, {@code backfill.maxDelay},
   *     {@code backfill.jitter} or {@code backfill.span}) and the value refused
   */
  public BackfillPolicy {
    if (mode == null) {
      throw new InvalidSpecException(
          "backfill.mode", null, "must be one of NONE, IMMEDIATE, DELAYED, WINDOWED");
    }
    boolean explicit = mode == Mode.DELAYED && delays != null && !delays.isEmpty();
    boolean exponential = mode == Mode.DELAYED && !explicit;
    boolean windowed = mode == Mode.WINDOWED;
    String usedBy = explicit ? "backfill mode DELAYED with a delays list" : "backfill mode " + mode;

    if (explicit) {
      delays = checkDelays(delays);
    } else {
      delays = neutralList(delays, usedBy);
    }
    if (exponential) {
      checkPositive("backfill.initialDelay", initialDelay);
      checkAtMost("backfill.initialDelay", initialDelay, MAX_DELAY);
      if (!(multiplier >= 1.0 && multiplier <= MAX_MULTIPLIER)) {
        throw new InvalidSpecException(
            "backfill.multiplier", multiplier, "must be a number from 1.0 to " + MAX_MULTIPLIER);
      }
      if (maxDelay == null) {
        throw new InvalidSpecException("backfill.maxDelay", null, "must be set");
      }
      checkAtMost("backfill.maxDelay", maxDelay, MAX_DELAY);
      if (maxDelay.compareTo(initialDelay) < 0) {
        throw new InvalidSpecException(
            "backfill.maxDelay",
            maxDelay,
            "must not be less than backfill.initialDelay " + initialDelay);
      }
      if (!(jitter >= 0.0 && jitter <= 1.0)) {
        throw new InvalidSpecException("backfill.jitter", jitter, "must be between 0.0 and 1.0");
      }
    } else {
      initialDelay = neutral("backfill.initialDelay", initialDelay, usedBy);
      maxDelay = neutral("backfill.maxDelay", maxDelay, usedBy);
      if (multiplier != 1.0) {
        throw new InvalidSpecException("backfill.multiplier", multiplier, unused(usedBy, "1.0"));
      }
      if (jitter != 0.0) {
        throw new InvalidSpecException("backfill.jitter", jitter, unused(usedBy, "0.0"));
      }
    }
    if (windowed) {
      checkPositive("backfill.span", span);
      checkAtMost("backfill.span", span, MAX_SPAN);
    } else {
      span = neutral("backfill.span", span, usedBy);
    }
  }

  /**
   * No backfill (R12): a failed or missed window is recorded as such and not run again
   * automatically. Same as {@link #DEFAULT}.
   *
   * @return the policy
   */
  public static BackfillPolicy none() {
    return DEFAULT;
  }

  /**
   * Retry at once after a failure, and catch up missed windows at once.
   *
   * @return the policy
   */
  public static BackfillPolicy immediate() {
    return new BackfillPolicy(
        Mode.IMMEDIATE, List.of(), Duration.ZERO, 1.0, Duration.ZERO, 0.0, Duration.ZERO);
  }

  /**
   * Retry after the given delays, counted from the failure: retry 1 after the first, retry 2 after
   * the second, and so on; the last delay repeats for further retries. Example: {@code
   * delayed(ofMinutes(5), ofMinutes(15), ofMinutes(30))}.
   *
   * @param delays positive, at most {@link #MAX_DELAY} and strictly increasing, from 1 to {@value
   *     #MAX_DELAYS} of them
   * @return the policy
   * @throws InvalidSpecException ({@code backfill.delays}) if the list is empty or too long, holds a
   *     null, a delay that is not positive or above {@link #MAX_DELAY}, or is not strictly
   *     increasing
   */
  public static BackfillPolicy delayed(Duration... delays) {
    if (delays == null || delays.length == 0) {
      throw new InvalidSpecException(
          "backfill.delays", delays == null ? null : "[]", "must list at least one delay");
    }
    return new BackfillPolicy(
        Mode.DELAYED, Arrays.asList(delays), Duration.ZERO, 1.0, Duration.ZERO, 0.0, Duration.ZERO);
  }

  /**
   * Retry after an exponential back-off: retry n waits {@code initial * multiplier^(n-1)}, capped
   * at {@code cap}, then spread by a factor drawn from {@code [1 - jitter, 1 + jitter]}.
   *
   * @param initial the delay before the first retry, positive, at most {@link #MAX_DELAY}
   * @param multiplier the factor between consecutive delays, from 1.0 (a constant delay) to {@value
   *     #MAX_MULTIPLIER}
   * @param cap the largest delay before jitter, at least {@code initial}, at most {@link #MAX_DELAY}
   * @param jitter the relative spread, between 0.0 (none) and 1.0
   * @return the policy
   * @throws InvalidSpecException naming {@code backfill.initialDelay}, {@code backfill.multiplier},
   *     {@code backfill.maxDelay} or {@code backfill.jitter}
   */
  public static BackfillPolicy exponential(
      Duration initial, double multiplier, Duration cap, double jitter) {
    return new BackfillPolicy(
        Mode.DELAYED, List.of(), initial, multiplier, cap, jitter, Duration.ZERO);
  }

  /**
   * Retry or catch up at any time while {@code now < window start + span}; e.g. a span of 24 hours
   * allows it during the same business day of a daily task.
   *
   * @param span positive, at most {@link #MAX_SPAN}
   * @return the policy
   * @throws InvalidSpecException ({@code backfill.span}) if the span is null, not positive or above
   *     {@link #MAX_SPAN}
   */
  public static BackfillPolicy windowed(Duration span) {
    checkPositive("backfill.span", span);
    checkAtMost("backfill.span", span, MAX_SPAN);
    return new BackfillPolicy(
        Mode.WINDOWED, List.of(), Duration.ZERO, 1.0, Duration.ZERO, 0.0, span);
  }

  /**
   * Whether this policy runs anything again at all (any mode but {@link Mode#NONE}).
   *
   * @return true if failed or missed windows may run again
   */
  @JsonIgnore
  public boolean allowsBackfill() {
    return mode != Mode.NONE;
  }

  /**
   * When retry number {@code retryNumber} of a window is due, or empty when this policy does not
   * retry it:
   *
   * <ul>
   *   <li>{@link Mode#NONE}: empty.
   *   <li>{@link Mode#IMMEDIATE}: {@code failedAt}.
   *   <li>{@link Mode#DELAYED} with a list: {@code failedAt + delays[min(n - 1, size - 1)]}.
   *   <li>{@link Mode#DELAYED} exponential: {@code failedAt + min(initial * multiplier^(n-1),
   *       maxDelay) * f}, where the jitter factor {@code f} in {@code [1 - jitter, 1 + jitter]} is
   *       drawn from {@code new SplittableRandom(jitterSeed + n)}, so the same arguments always
   *       give the same answer. The delay is never negative and never above {@code maxDelay * (1 +
   *       jitter)}; it is computed to the millisecond.
   *   <li>{@link Mode#WINDOWED}: {@code failedAt} if {@code failedAt < windowStart + span}, else
   *       empty.
   * </ul>
   *
   * Whether the retry cap allows retry {@code n} at all is the {@link RetryPolicy}'s decision.
   *
   * @param retryNumber 1 for the first retry, 2 for the second, ...
   * @param failedAt when the failed attempt ended
   * @param windowStart the start of the instance's business window
   * @param jitterSeed a seed for the jitter, e.g. a hash of the task and window
   * @return the instant the retry is due, or empty if it is not allowed
   * @throws IllegalArgumentException if {@code retryNumber} is less than 1
   */
  public Optional<Instant> retryDueAt(
      int retryNumber, Instant failedAt, Instant windowStart, long jitterSeed) {
    if (retryNumber < 1) {
      throw new IllegalArgumentException("retryNumber must be >= 1, was " + retryNumber);
    }
    return switch (mode) {
      case NONE -> Optional.empty();
      case IMMEDIATE -> Optional.of(failedAt);
      case DELAYED -> Optional.of(failedAt.plus(delayBefore(retryNumber, jitterSeed)));
      case WINDOWED ->
          failedAt.isBefore(windowStart.plus(span)) ? Optional.of(failedAt) : Optional.empty();
    };
  }

  /**
   * Whether a missed window may be caught up now, as far as this policy goes (the {@link
   * CatchUpPolicy}'s horizon applies as well): never for {@link Mode#NONE}; for {@link
   * Mode#WINDOWED} while {@code now < windowStart + span}; always for the others.
   *
   * @param now the current instant
   * @param windowStart the start of the missed window
   * @return true if the window may run now
   */
  public boolean allowsCatchUpAt(Instant now, Instant windowStart) {
    return switch (mode) {
      case NONE -> false;
      case WINDOWED -> now.isBefore(windowStart.plus(span));
      case IMMEDIATE, DELAYED -> true;
    };
  }

  private Duration delayBefore(int retryNumber, long jitterSeed) {
    if (!delays.isEmpty()) {
      return delays.get(Math.min(retryNumber - 1, delays.size() - 1));
    }
    // Both durations are at most MAX_DELAY, so their nanoseconds fit a long. The growth saturates
    // at the cap: multiplier^(n-1) may be +Infinity for a large n (and 0 * Infinity would be NaN),
    // so anything that is not a number below the cap is the cap.
    double capMillis = maxDelay.toNanos() / 1e6;
    double grown = initialDelay.toNanos() / 1e6 * Math.pow(multiplier, retryNumber - 1.0);
    double base = grown < capMillis ? grown : capMillis;
    double draw = new SplittableRandom(jitterSeed + retryNumber).nextDouble();
    double factor = 1.0 - jitter + 2.0 * jitter * draw;
    double millis = Math.min(base * factor, capMillis * (1.0 + jitter));
    return Duration.ofMillis((long) Math.floor(Math.max(0.0, millis)));
  }

  private static List<Duration> checkDelays(List<Duration> delays) {
    List<Duration> copy = new ArrayList<>(delays); // may hold nulls; List.copyOf would throw
    if (copy.size() > MAX_DELAYS) {
      throw new InvalidSpecException(
          "backfill.delays", copy, "lists " + copy.size() + " delays; at most " + MAX_DELAYS);
    }
    Duration previous = null;
    for (Duration d : copy) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new InvalidSpecException(
            "backfill.delays", copy, "every delay must be positive, found " + d);
      }
      if (d.compareTo(MAX_DELAY) > 0) {
        throw new InvalidSpecException(
            "backfill.delays", copy, "every delay must be at most " + MAX_DELAY + ", found " + d);
      }
      if (previous != null && d.compareTo(previous) <= 0) {
        throw new InvalidSpecException(
            "backfill.delays",
            copy,
            "must be strictly increasing, found " + d + " after " + previous);
      }
      previous = d;
    }
    return List.copyOf(copy);
  }

  private static void checkPositive(String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidSpecException(field, d, "must be positive");
    }
  }

  private static void checkAtMost(String field, Duration d, Duration max) {
    if (d.compareTo(max) > 0) {
      throw new InvalidSpecException(field, d, "must be at most " + max);
    }
  }

  private static List<Duration> neutralList(List<Duration> delays, String usedBy) {
    if (delays != null && !delays.isEmpty()) {
      throw new InvalidSpecException("backfill.delays", delays, unused(usedBy, "empty"));
    }
    return List.of();
  }

  private static Duration neutral(String field, Duration d, String usedBy) {
    if (d != null && !d.isZero()) {
      throw new InvalidSpecException(field, d, unused(usedBy, "zero"));
    }
    return Duration.ZERO;
  }

  private static String unused(String usedBy, String neutral) {
    return "not used by " + usedBy + ", must be " + neutral;
  }
}
