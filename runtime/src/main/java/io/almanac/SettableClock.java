package io.almanac;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A {@link Clock} that only moves when told to, for users' own tests of their schedules (and ours).
 * Thread-safe. Almanac reads time only from the clock it is given (principle 3).
 */
public final class SettableClock extends Clock {
  private volatile Instant now;

  /** @param start the instant the clock shows until it is moved */
  public SettableClock(Instant start) {
    this.now = Objects.requireNonNull(start, "start");
  }

  /** @param instant the new time (may move backwards, as a wall clock can) */
  public void set(Instant instant) {
    this.now = Objects.requireNonNull(instant, "instant");
  }

  /**
   * @param amount how far to move forward
   * @return the new time
   */
  public synchronized Instant advance(Duration amount) {
    now = now.plus(amount);
    return now;
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("SettableClock is always UTC: Almanac keeps UTC inside (R26)");
  }
}
