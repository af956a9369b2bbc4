package io.almanac.persistence.instances;

import com.typesafe.config.Config;
import io.almanac.InvalidSpecException;
import io.almanac.config.Settings;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings of the instance table, {@code almanac.instances} in the persistence module's
 * {@code reference.conf} (every key is documented there).
 *
 * @param enabled whether {@link InstanceProjection#start} runs the projection
 * @param pollInterval how long the projection waits before it polls the journal again once caught up
 * @param batchSize journal events applied per transaction
 * @param gapWait how long a hole in the journal's ordering is waited for before it is skipped
 * @param failureBackoffMin the first wait after a failed poll
 * @param failureBackoffMax the longest wait between failed polls
 * @param retention how long a done row stays in the live table after its last change
 * @param retentionInterval how often retention runs
 * @param retentionBatchSize rows moved to the history table per transaction
 */
public record InstanceSettings(
    boolean enabled,
    Duration pollInterval,
    int batchSize,
    Duration gapWait,
    Duration failureBackoffMin,
    Duration failureBackoffMax,
    Duration retention,
    Duration retentionInterval,
    int retentionBatchSize) {

  /** The configuration namespace. */
  public static final String NAMESPACE = "almanac.instances";

  /** The largest batch size (events per transaction, rows per retention batch). */
  public static final int MAX_BATCH = 10_000;

  /** Canonical constructor: validates every setting, naming its key and value. */
  public InstanceSettings {
    positive("poll-interval", pollInterval);
    between("batch-size", batchSize, 1, MAX_BATCH);
    Objects.requireNonNull(gapWait, "gapWait");
    if (gapWait.isNegative()) {
      throw new InvalidSpecException(NAMESPACE + ".gap-wait", gapWait, "must not be negative");
    }
    positive("failure-backoff-min", failureBackoffMin);
    positive("failure-backoff-max", failureBackoffMax);
    if (failureBackoffMax.compareTo(failureBackoffMin) < 0) {
      throw new InvalidSpecException(NAMESPACE + ".failure-backoff-max", failureBackoffMax,
          "must not be less than failure-backoff-min (" + failureBackoffMin + ")");
    }
    positive("retention", retention);
    positive("retention-interval", retentionInterval);
    between("retention-batch-size", retentionBatchSize, 1, MAX_BATCH);
  }

  private static void positive(String key, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidSpecException(NAMESPACE + "." + key, d, "must be a positive duration");
    }
  }

  private static void between(String key, int v, int min, int max) {
    if (v < min || v > max) {
      throw new InvalidSpecException(NAMESPACE + "." + key, v, "must be between " + min + " and " + max);
    }
  }

  /**
   * @param config the whole configuration (reads {@code almanac.instances})
   * @return the validated settings
   * @throws InvalidSpecException naming the full key and the value of a missing or wrong setting
   */
  public static InstanceSettings from(Config config) {
    Objects.requireNonNull(config, "config");
    String p = NAMESPACE + ".";
    return new InstanceSettings(
        Settings.booleanOf(config, p + "enabled"),
        Settings.durationOf(config, p + "poll-interval"),
        Settings.intOf(config, p + "batch-size"),
        Settings.durationOf(config, p + "gap-wait"),
        Settings.durationOf(config, p + "failure-backoff-min"),
        Settings.durationOf(config, p + "failure-backoff-max"),
        Settings.durationOf(config, p + "retention"),
        Settings.durationOf(config, p + "retention-interval"),
        Settings.intOf(config, p + "retention-batch-size"));
  }
}
