package io.almanac;

import java.time.Instant;
import java.util.Objects;

/**
 * A business window (R4): its key and the real time range it covers, {@code [start, end)} in UTC.
 * The range may be empty ({@code start == end}): a per-firing window, or the hourly window of a
 * local hour that does not exist on a spring-forward day.
 *
 * @param key the window's unique key
 * @param start where the window starts (inclusive)
 * @param end where the window ends (exclusive); never before {@code start}
 */
public record Window(WindowKey key, Instant start, Instant end) {

  /**
   * Validates the window.
   *
   * @throws NullPointerException if a part is null
   * @param key the key
   * @param start the start (inclusive)
   * @param end the end (exclusive)
   * @throws InvalidSpecException if {@code end} is before {@code start}
   */
  public Window {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
    if (end.isBefore(start)) {
      throw new InvalidSpecException("window.end", end, "is before the window's start " + start);
    }
  }
}
