package io.almanac.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.almanac.InvalidSpecException;
import java.time.Duration;

/**
 * Settings of the task entities, from {@code almanac.task} (see reference.conf for each key's
 * meaning and default). Validated on construction: a wrong value is refused naming the key (R33).
 * INTERNAL API.
 *
 * @param hotWindows windows kept in the entity's hot state before terminal ones are archived
 * @param durationSamples attempt durations kept for the P99
 * @param maxSummaryLength longest accepted success summary, in characters
 * @param maxReasonLength longest accepted failure, cancel or resolve reason, in characters
 * @param maxArtifactUriLength longest accepted artifact URI, in characters
 * @param maxEffectsPerWindow most effects the ledger of one window holds
 * @param maxEffectKeyLength longest effect key
 * @param maxEffectValueLength longest effect value
 * @param maxBackfillWindows most windows one backfill request may schedule
 * @param snapshotEvery events between snapshots
 * @param recentFireGrace how late a fire may arrive and still count as on time, not as catch-up
 */
public record TaskSettings(
    int hotWindows,
    int durationSamples,
    int maxSummaryLength,
    int maxReasonLength,
    int maxArtifactUriLength,
    int maxEffectsPerWindow,
    int maxEffectKeyLength,
    int maxEffectValueLength,
    int maxBackfillWindows,
    int snapshotEvery,
    Duration recentFireGrace) {

  private static final String PREFIX = "almanac.task.";

  /** Canonical constructor: validates every setting. */
  public TaskSettings {
    atLeast("hot-windows", hotWindows, 10);
    atLeast("duration-samples", durationSamples, 1);
    atLeast("max-summary-length", maxSummaryLength, 1);
    atLeast("max-reason-length", maxReasonLength, 1);
    atLeast("max-artifact-uri-length", maxArtifactUriLength, 1);
    atLeast("max-effects-per-window", maxEffectsPerWindow, 1);
    atLeast("max-effect-key-length", maxEffectKeyLength, 1);
    atLeast("max-effect-value-length", maxEffectValueLength, 1);
    atLeast("max-backfill-windows", maxBackfillWindows, 1);
    atLeast("snapshot-every", snapshotEvery, 1);
    if (recentFireGrace == null || recentFireGrace.isNegative()) {
      throw new InvalidSpecException(PREFIX + "recent-fire-grace", recentFireGrace, "must be >= 0");
    }
  }

  /**
   * @param config the whole configuration (reads {@code almanac.task})
   * @return the validated settings
   * @throws InvalidSpecException naming the key of a wrong value
   */
  public static TaskSettings from(Config config) {
    Config c = config.getConfig("almanac.task");
    return new TaskSettings(
        intOf(c, "hot-windows"),
        intOf(c, "duration-samples"),
        intOf(c, "max-summary-length"),
        intOf(c, "max-reason-length"),
        intOf(c, "max-artifact-uri-length"),
        intOf(c, "max-effects-per-window"),
        intOf(c, "max-effect-key-length"),
        intOf(c, "max-effect-value-length"),
        intOf(c, "max-backfill-windows"),
        intOf(c, "snapshot-every"),
        durationOf(c, "recent-fire-grace"));
  }

  private static int intOf(Config c, String key) {
    try {
      return c.getInt(key);
    } catch (ConfigException.Missing e) {
      throw new InvalidSpecException(PREFIX + key, null, "is missing");
    } catch (ConfigException.WrongType e) {
      throw new InvalidSpecException(PREFIX + key, c.getValue(key).unwrapped(), "must be an integer");
    }
  }

  private static Duration durationOf(Config c, String key) {
    try {
      return c.getDuration(key);
    } catch (ConfigException.Missing e) {
      throw new InvalidSpecException(PREFIX + key, null, "is missing");
    } catch (ConfigException.BadValue | ConfigException.WrongType e) {
      throw new InvalidSpecException(PREFIX + key, c.getValue(key).unwrapped(), "must be a duration such as 30s");
    }
  }

  private static void atLeast(String key, int value, int min) {
    if (value < min) {
      throw new InvalidSpecException(PREFIX + key, value, "must be >= " + min);
    }
  }
}
