package io.almanac.internal.alert;

import io.almanac.AlertPage;
import io.almanac.internal.protocol.AlmanacSerializable;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;

/** What the alert history ({@link AlertLogEntity}) is asked. INTERNAL API. */
public final class AlertLogProtocol {

  private AlertLogProtocol() {}

  /** A command to the history. */
  public sealed interface Command extends AlmanacSerializable permits Append, Query {}

  /**
   * Records a node's batch of raised alerts and delivery reports, in one write (one {@link
   * AlertLog.AlertsRecorded}).
   *
   * @param events the changes, in the order they happened on the node
   * @param replyTo answered when written
   */
  public record Append(
      @com.fasterxml.jackson.annotation.JsonTypeInfo(use = com.fasterxml.jackson.annotation.JsonTypeInfo.Id.NAME)
      @com.fasterxml.jackson.annotation.JsonSubTypes({
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = AlertLog.AlertRaised.class, name = "AlertRaised"),
          @com.fasterxml.jackson.annotation.JsonSubTypes.Type(value = AlertLog.AlertDeliveryRecorded.class,
              name = "AlertDeliveryRecorded")})
      List<AlertLog.Change> events, ActorRef<Done> replyTo) implements Command {}

  /**
   * Reads a page of the history, newest first.
   *
   * @param taskId only this task's, or null
   * @param since only at or after, or null
   * @param before only older than this seq, or null
   * @param limit the most alerts
   * @param replyTo the page
   */
  public record Query(String taskId, Instant since, Long before, int limit, ActorRef<Page> replyTo) implements Command {}

  /**
   * A page of the history (a reply that crosses nodes, so it carries the history's own records; the
   * caller makes the public {@link AlertPage} with {@link #page()}).
   *
   * @param alerts the alerts of the page, newest first
   * @param next the {@code before} of the next (older) page, or null when this is the last
   */
  public record Page(List<AlertLog.Entry> alerts, Long next) implements AlmanacSerializable {

    /** Never null, never shared mutable. */
    public Page {
      alerts = alerts == null ? List.of() : List.copyOf(alerts);
    }

    /** @return the page as callers read it */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public AlertPage page() {
      return AlertPage.builder().alerts(alerts.stream().map(AlertLog.Entry::view).toList()).next(next).build();
    }
  }
}
