package io.almanac;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ready-made {@link AlertSink}s. Besides the node's sink, alerts can go to a webhook configured in
 * {@code almanac.alerts.webhook} (no Java needed): each is POSTed as JSON, with retries (see docs/alerts.md).
 */
public final class AlertSinks {
  private static final Logger LOG = LoggerFactory.getLogger("io.almanac.alerts");

  private AlertSinks() {}

  /**
   * The logging sink with REPEATED_SKIPS lines at most every 5 seconds; see {@link #logging(Duration)}.
   *
   * @return the logging sink
   */
  public static AlertSink logging() {
    return logging(Duration.ofSeconds(5));
  }

  /**
   * The default sink: logs alerts through SLF4J on the {@code io.almanac.alerts} logger, final
   * failures and a stalled trigger at ERROR, the rest at WARN. Every alert gets a line of its own
   * except REPEATED_SKIPS: an overloaded node raises it for thousands of tasks at once, so it is
   * logged at most once per {@code repeatedSkipsEvery}, and the next line says how many were not
   * logged one by one meanwhile (the node's summary line of skipped windows counts them too).
   *
   * @param repeatedSkipsEvery the least time between two REPEATED_SKIPS lines (zero: a line each)
   * @return the logging sink
   */
  public static AlertSink logging(Duration repeatedSkipsEvery) {
    return logging(repeatedSkipsEvery, System::nanoTime);
  }

  /** As {@link #logging(Duration)}, with the monotonic clock given (tests). */
  static AlertSink logging(Duration repeatedSkipsEvery, java.util.function.LongSupplier nanoTime) {
    long everyNanos = java.util.Objects.requireNonNull(repeatedSkipsEvery, "repeatedSkipsEvery").toNanos();
    AtomicLong folded = new AtomicLong();
    AtomicLong lastLine = new AtomicLong(nanoTime.getAsLong() - everyNanos);
    return alert -> {
      String suffix = "";
      if (alert.kind() == Alert.Kind.REPEATED_SKIPS && everyNanos > 0) {
        long now = nanoTime.getAsLong();
        long last = lastLine.get();
        if (now - last < everyNanos || !lastLine.compareAndSet(last, now)) {
          folded.incrementAndGet();
          return;
        }
        long n = folded.getAndSet(0);
        if (n > 0) {
          suffix = " (and " + n + " more REPEATED_SKIPS alerts since the last such line, not logged one by one)";
        }
      }
      String line = "ALERT " + alert.kind() + (alert.taskId() == null ? "" : " task '" + alert.taskId() + "'")
          + (alert.window() == null ? "" : " window '" + alert.window() + "'") + ": " + alert.message() + suffix;
      if (alert.kind() == Alert.Kind.FINAL_FAILED || alert.kind() == Alert.Kind.TRIGGER_STALLED) {
        LOG.error(line);
      } else {
        LOG.warn(line);
      }
    };
  }
}
