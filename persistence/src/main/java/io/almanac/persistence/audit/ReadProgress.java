package io.almanac.persistence.audit;

import java.time.Duration;
import java.util.Locale;

/**
 * How far a read of the journal has come: reported every N events by {@link AuditReader} and once
 * at the end.
 *
 * @param eventsRead events read so far (all tasks of this reader together)
 * @param elapsed time since the reader read its first event
 */
public record ReadProgress(long eventsRead, Duration elapsed) {

  /**
   * The read rate so far.
   *
   * @return events per second (0 before any time has passed)
   */
  public double eventsPerSecond() {
    double seconds = elapsed.toNanos() / 1e9;
    return seconds <= 0 ? 0 : eventsRead / seconds;
  }

  /**
   * The progress line, e.g. {@code 50,000 events read (41,322 events/s, 1.2 s)}.
   *
   * @return the line
   */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%,d events read (%,.0f events/s, %.1f s)", eventsRead, eventsPerSecond(),
        elapsed.toMillis() / 1000.0);
  }
}
