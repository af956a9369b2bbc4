package io.almanac.internal.trigger;

import com.typesafe.config.Config;
import io.almanac.config.Settings;
import java.time.Duration;

/**
 * Settings of the trigger, from {@code almanac.trigger} (reference.conf documents each key).
 * INTERNAL API.
 *
 * @param maxTickInterval the longest the trigger sleeps between looks at its queue
 * @param persistInterval the shortest time between two watermark writes
 * @param maxInFlight fires sent and not yet acknowledged, at most
 * @param askTimeout how long to wait for a task entity's acknowledgement
 * @param retryDelay how long to wait before re-sending an unacknowledged fire or wake-up
 * @param maxCatchUpPerTask most windows per task handed over as catch-up after downtime
 * @param heartbeatInterval how often the trigger logs its heartbeat line (R25)
 * @param snapshotEvery events between two snapshots of the trigger's state
 * @param stashCapacity messages the trigger holds while it writes (Pekko drops those beyond it)
 * @param handOverTimeout a recorded hand-over counts only for a successor starting within this time of
 *     it (the lease time); a later start is downtime
 */
public record TriggerSettings(
    Duration maxTickInterval,
    Duration persistInterval,
    int maxInFlight,
    Duration askTimeout,
    Duration retryDelay,
    int maxCatchUpPerTask,
    Duration heartbeatInterval,
    int snapshotEvery,
    int stashCapacity,
    Duration handOverTimeout) {

  private static final String P = "almanac.trigger.";

  /** The hand-over timeout when the trigger singleton takes no lease ({@code pekko.cluster.singleton.use-lease = ""}). */
  public static final Duration HAND_OVER_TIMEOUT_WITHOUT_LEASE = Duration.ofSeconds(10);

  /** Canonical constructor: validates. */
  public TriggerSettings {
    Settings.positive(P + "max-tick-interval", maxTickInterval);
    Settings.positive(P + "persist-interval", persistInterval);
    Settings.atLeast(P + "max-in-flight", maxInFlight, 1);
    Settings.positive(P + "ask-timeout", askTimeout);
    Settings.positive(P + "retry-delay", retryDelay);
    Settings.atLeast(P + "max-catch-up-per-task", maxCatchUpPerTask, 1);
    Settings.positive(P + "heartbeat-interval", heartbeatInterval);
    Settings.atLeast(P + "snapshot-every", snapshotEvery, 1);
    Settings.atLeast(P + "stash-capacity", stashCapacity, 1);
    Settings.positive(P + "hand-over-timeout", handOverTimeout);
  }

  /**
   * @param config the whole configuration
   * @return the validated settings
   */
  public static TriggerSettings from(Config config) {
    return new TriggerSettings(
        Settings.durationOf(config, P + "max-tick-interval"),
        Settings.durationOf(config, P + "persist-interval"),
        Settings.intOf(config, P + "max-in-flight"),
        Settings.durationOf(config, P + "ask-timeout"),
        Settings.durationOf(config, P + "retry-delay"),
        Settings.intOf(config, P + "max-catch-up-per-task"),
        Settings.durationOf(config, P + "heartbeat-interval"),
        Settings.intOf(config, P + "snapshot-every"),
        Settings.intOf(config, P + "stash-capacity"),
        handOverTimeout(config));
  }

  /**
   * {@code almanac.trigger.hand-over-timeout}, or when it is "" the lease time of the trigger
   * singleton: the {@code heartbeat-timeout} of the lease {@code pekko.cluster.singleton.use-lease}
   * names (as Pekko reads it: that lease's configuration, falling back to {@code
   * pekko.coordination.lease}), or {@link #HAND_OVER_TIMEOUT_WITHOUT_LEASE} when it takes none.
   *
   * @param config the whole configuration
   * @return the hand-over timeout
   */
  static Duration handOverTimeout(Config config) {
    String key = P + "hand-over-timeout";
    if (config.hasPath(key) && !Settings.stringOf(config, key).isBlank()) {
      return Settings.durationOf(config, key);
    }
    String lease = config.hasPath("pekko.cluster.singleton.use-lease") ? config.getString("pekko.cluster.singleton.use-lease")
        : "";
    if (lease.isBlank()) {
      return HAND_OVER_TIMEOUT_WITHOUT_LEASE;
    }
    String own = lease + ".heartbeat-timeout";
    return Settings.durationOf(config, config.hasPath(own) ? own : "pekko.coordination.lease.heartbeat-timeout");
  }
}
