package io.almanac.spi;

import java.time.Duration;
import java.time.Instant;

/**
 * Time arithmetic that never throws, for the places where a duration reaches an instant or a timer
 * after its entry bounds were checked (a spec stored before a bound existed, a job's result, a
 * pool's pause written by another node): an instant plus any duration saturates at {@link #LATEST}
 * or {@link #EARLIEST}, and a timer's delay is clamped to {@link #MAX_TIMER_DELAY} (Pekko's
 * scheduler refuses a delay above {@code Integer.MAX_VALUE} ticks, about 248 days at its default
 * 10 ms tick, 24 days at 1 ms). A timer that goes off early finds nothing due and is armed again by
 * its owner, so clamping only costs a wake-up a day. Store implementations use it for pauses.
 */
public final class Saturating {
  private Saturating() {}

  /**
   * The latest instant arithmetic gives: the end of year 9999 (UTC). Far beyond any bounded value,
   * and still an instant every store can hold (epoch milliseconds, SQL timestamps).
   */
  public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");

  /** The earliest instant arithmetic gives: the start of year 1 (UTC). */
  public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");

  /** The longest delay a timer is armed with: one day; a longer wait is armed again when it goes off. */
  public static final Duration MAX_TIMER_DELAY = Duration.ofDays(1);

  /**
   * @param at an instant, or null
   * @param d any duration, null for zero
   * @return {@code at + d}, within [{@link #EARLIEST}, {@link #LATEST}]; null if {@code at} is null
   */
  public static Instant plus(Instant at, Duration d) {
    if (at == null) {
      return null;
    }
    Instant base = clamp(at);
    if (d == null || d.isZero()) {
      return base;
    }
    if (d.isNegative()) {
      return Duration.between(EARLIEST, base).compareTo(d.negated()) <= 0 ? EARLIEST : base.plus(d);
    }
    return Duration.between(base, LATEST).compareTo(d) <= 0 ? LATEST : base.plus(d);
  }

  /**
   * @param from an instant
   * @param to another
   * @return {@code to - from}, never overflowing (both are clamped to the range first)
   */
  public static Duration between(Instant from, Instant to) {
    return Duration.between(clamp(from), clamp(to));
  }

  /**
   * @param d any duration, null for zero
   * @return {@code d} in milliseconds, at most {@link Long#MAX_VALUE} (and at least its negation)
   */
  public static long millis(Duration d) {
    if (d == null) {
      return 0;
    }
    try {
      return d.toMillis();
    } catch (ArithmeticException e) {
      return d.isNegative() ? -Long.MAX_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * @param d a wait, null or negative for none
   * @return the delay to arm a timer with: from zero to {@link #MAX_TIMER_DELAY}
   */
  public static Duration timerDelay(Duration d) {
    if (d == null || d.isNegative()) {
      return Duration.ZERO;
    }
    return d.compareTo(MAX_TIMER_DELAY) > 0 ? MAX_TIMER_DELAY : d;
  }

  /**
   * @param now the time now
   * @param at when a timer should go off
   * @return the delay to arm it with now: from zero to {@link #MAX_TIMER_DELAY}
   */
  public static Duration timerDelay(Instant now, Instant at) {
    return timerDelay(between(now, at));
  }

  private static Instant clamp(Instant at) {
    return at.isAfter(LATEST) ? LATEST : at.isBefore(EARLIEST) ? EARLIEST : at;
  }
}
