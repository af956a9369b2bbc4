package io.almanac.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A {@link Clock} that only moves when told to, for tests of schedules: users' own and Almanac's.
 *
 * <p>Almanac reads time only from the clock it is given (principle 3), so a test that passes one of
 * these to {@code Almanac.builder(system).clock(clock)} decides when windows open and fire:
 *
 * <pre>{@code
 * SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
 * Almanac almanac = Almanac.builder(system).clock(clock).start();
 * clock.advance(Duration.ofMinutes(1)); // midnight UTC: the daily window of 2026-11-29 is due
 * }</pre>
 *
 * The trigger looks at the clock at least every {@code almanac.trigger.max-tick-interval}, so a
 * moved clock is seen within that interval of real time.
 *
 * <p>The clock is always UTC, like Almanac inside. It is thread-safe: the test thread may move it
 * while actors read it.
 */
public final class SettableClock extends Clock {
  private volatile Instant now;

  /**
   * @param start the instant the clock shows until it is moved
   * @throws NullPointerException if {@code start} is null
   */
  public SettableClock(Instant start) {
    this.now = Objects.requireNonNull(start, "start");
  }

  /**
   * Sets the time.
   *
   * @param instant the new time (may move backwards, as a wall clock can)
   * @throws NullPointerException if {@code instant} is null
   */
  public synchronized void set(Instant instant) {
    this.now = Objects.requireNonNull(instant, "instant");
  }

  /**
   * Moves the time forward (or backward, for a negative amount) atomically.
   *
   * @param amount how far to move forward
   * @return the new time
   * @throws NullPointerException if {@code amount} is null
   */
  public synchronized Instant advance(Duration amount) {
    now = now.plus(amount);
    return now;
  }

  /** @return the time the clock shows now */
  @Override
  public Instant instant() {
    return now;
  }

  /** @return {@link ZoneOffset#UTC}, always */
  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  /**
   * Not supported: the clock is always UTC.
   *
   * @param zone ignored
   * @return never
   * @throws UnsupportedOperationException always
   */
  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("SettableClock is always UTC: Almanac keeps UTC inside (R26)");
  }
}
