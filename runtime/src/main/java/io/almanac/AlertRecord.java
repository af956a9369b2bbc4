package io.almanac;

import java.time.Instant;
import java.util.List;

/**
 * An alert as the node's alert history keeps it ({@link Almanac#alerts}): what fired, when, for which
 * task and window, on which node, and where it was delivered. The history is kept in its own journal
 * (the latest {@value #KEPT} alerts of the cluster); see docs/alerts.md.
 *
 * @param seq its place in the history, counting from 1 (newer alerts have larger ones)
 * @param id the alert's id, as the webhook's body carries it
 * @param kind what happened
 * @param taskId the task, or null for a node-wide alert
 * @param window the window, or null
 * @param message a sentence for a person
 * @param at when it happened (UTC)
 * @param node the node that raised it (its cluster address)
 * @param deliveries where it went: one entry per sink, its latest state
 */
public record AlertRecord(long seq, String id, Alert.Kind kind, String taskId, String window, String message, Instant at,
    String node, List<Delivery> deliveries) {

  /** How many alerts the history keeps: older ones are forgotten as new ones come. */
  public static final int KEPT = 1000;

  /** Never null, never shared mutable. */
  public AlertRecord {
    deliveries = deliveries == null ? List.of() : List.copyOf(deliveries);
  }

  /** Where an alert stands at one sink. */
  public enum DeliveryStatus {
    /** The sink took it (the webhook answered 2xx; the node's sink returned). */
    DELIVERED,
    /** An attempt failed and another is due (the webhook's backoff). */
    RETRYING,
    /** It was not delivered and will not be tried again (refused, gave up, dropped, the sink threw). */
    FAILED
  }

  /**
   * An alert's latest state at one sink.
   *
   * @param sink the sink: {@code log} (the default logging sink), {@code sink} (the application's
   *     {@link AlertSink}) or {@code webhook <scheme://host:port>}
   * @param status where it stands
   * @param attempts attempts made so far (0: dropped before any)
   * @param detail why it failed or is retried (an HTTP status, a timeout), or null
   * @param at when this state was recorded (UTC)
   */
  public record Delivery(String sink, DeliveryStatus status, int attempts, String detail, Instant at) {}
}
