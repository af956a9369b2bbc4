package io.almanac.internal.executor;

import com.typesafe.config.Config;
import io.almanac.InvalidSpecException;
import io.almanac.config.Settings;
import java.time.Duration;

/**
 * Settings of the pools' store, from {@code almanac.pool-store} (reference.conf documents each key).
 * INTERNAL API.
 *
 * @param storeClass the store's class, or empty for the in-memory store
 * @param holdTtl how long a hold lives without a renewal
 * @param renewInterval how often a node renews its holds
 * @param operationTimeout how long one store operation may take
 * @param pollInterval how often a window waiting for a pool is asked again at the latest
 */
public record PoolSettings(String storeClass, Duration holdTtl, Duration renewInterval, Duration operationTimeout,
    Duration pollInterval) {

  private static final String P = "almanac.pool-store.";

  /** Canonical constructor: validates. */
  public PoolSettings {
    Settings.positive(P + "hold-ttl", holdTtl);
    Settings.positive(P + "renew-interval", renewInterval);
    Settings.positive(P + "operation-timeout", operationTimeout);
    Settings.positive(P + "poll-interval", pollInterval);
    if (renewInterval.compareTo(holdTtl) >= 0) {
      throw new InvalidSpecException(P + "renew-interval", renewInterval, "must be less than hold-ttl (" + holdTtl
          + "), or a live node's holds would expire between two renewals");
    }
  }

  /** The defaults (tests without a configuration). */
  public static final PoolSettings DEFAULT = new PoolSettings("", Duration.ofSeconds(30), Duration.ofSeconds(5),
      Duration.ofSeconds(5), Duration.ofSeconds(2));

  /**
   * @param config the whole configuration
   * @return the validated settings
   */
  public static PoolSettings from(Config config) {
    if (!config.hasPath("almanac.pool-store")) {
      return DEFAULT;
    }
    return new PoolSettings(Settings.stringOf(config, P + "class").trim(), Settings.durationOf(config, P + "hold-ttl"),
        Settings.durationOf(config, P + "renew-interval"), Settings.durationOf(config, P + "operation-timeout"),
        Settings.durationOf(config, P + "poll-interval"));
  }
}
