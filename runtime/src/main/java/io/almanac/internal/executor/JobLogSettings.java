package io.almanac.internal.executor;

import com.typesafe.config.Config;
import io.almanac.config.Settings;
import java.time.Duration;

/**
 * The bounds of what one attempt leaves to be read ({@code almanac.executor.job-log}; reference.conf
 * documents each key). INTERNAL API.
 *
 * @param maxLines the lines of an attempt's own log kept, at most
 * @param maxBytes the bytes (UTF-8) of those lines' text kept, at most
 * @param maxLineLength a line longer than this (characters) is cut to it
 * @param maxStackTrace a failure's stack trace longer than this (characters) is cut to it
 * @param liveInterval live progress and the latest lines reach the task entity at most once per this, per attempt
 * @param liveLines the latest lines sent with live progress, at most
 */
public record JobLogSettings(int maxLines, int maxBytes, int maxLineLength, int maxStackTrace, Duration liveInterval,
    int liveLines) {

  private static final String P = "almanac.executor.job-log.";

  /** The defaults reference.conf sets. */
  public static final JobLogSettings DEFAULT = new JobLogSettings(200, 32_768, 2_000, 16_384, Duration.ofSeconds(1), 5);

  /** Canonical constructor: validates. */
  public JobLogSettings {
    Settings.atLeast(P + "max-lines", maxLines, 0);
    Settings.atLeast(P + "max-bytes", maxBytes, 0);
    Settings.atLeast(P + "max-line-length", maxLineLength, 16);
    Settings.atLeast(P + "max-stack-trace", maxStackTrace, 0);
    Settings.positive(P + "live-interval", liveInterval);
    Settings.atLeast(P + "live-lines", liveLines, 0);
  }

  /**
   * @param config the whole configuration
   * @return the validated settings; the defaults where the configuration has no {@code almanac.executor.job-log}
   */
  public static JobLogSettings from(Config config) {
    if (!config.hasPath("almanac.executor.job-log")) {
      return DEFAULT;
    }
    return new JobLogSettings(
        Settings.intOf(config, P + "max-lines"),
        Settings.intOf(config, P + "max-bytes"),
        Settings.intOf(config, P + "max-line-length"),
        Settings.intOf(config, P + "max-stack-trace"),
        Settings.durationOf(config, P + "live-interval"),
        Settings.intOf(config, P + "live-lines"));
  }
}
