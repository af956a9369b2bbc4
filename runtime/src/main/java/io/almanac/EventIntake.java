package io.almanac;

import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.node.Node;
import io.almanac.internal.node.PublishGate;
import io.almanac.internal.task.TaskEntity;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The facade's events (R9): a publish checked here (the event, and its time not too far ahead of
 * this node's clock, {@code almanac.task.max-event-future}) before the {@link Publisher} takes it to
 * its tasks, each counted in {@code almanac.publishes} with its outcome; and the event sources
 * attached to the node, closed when it stops. Package-private: no part of the API.
 *
 * <p>INTERNAL API.
 */
final class EventIntake {
  private static final Logger LOG = LoggerFactory.getLogger(Almanac.class);

  private final Clock clock;
  private final Duration maxEventFuture;
  private final Publisher publisher;
  private final NodeMeters meters;
  private final List<EventSource> sources = new CopyOnWriteArrayList<>();

  EventIntake(Node node) {
    this.clock = node.clock();
    this.maxEventFuture = node.taskSettings().maxEventFuture();
    this.meters = node.meters();
    ClusterSharding sharding = node.sharding();
    this.publisher = new Publisher(new PublishGate(node.taskSettings().maxPendingPublishes()),
        node.taskSettings().publishRetryAfter(), node.trigger(), id -> sharding.entityRefFor(TaskEntity.TYPE_KEY, id),
        node.askTimeout(), node.system().scheduler());
  }

  /** See {@link Almanac#publish(IncomingEvent)}. */
  CompletionStage<PublishResult> publish(IncomingEvent event) {
    try {
      Objects.requireNonNull(event, "event");
      event.validate();
      Instant now = clock.instant();
      if (event.eventTime() != null && event.eventTime().isAfter(now.plus(maxEventFuture))) {
        throw new InvalidSpecException("eventTime", event.eventTime(), "lies more than " + maxEventFuture
            + " ahead of this node's clock (" + now + "; almanac.task.max-event-future)");
      }
    } catch (InvalidSpecException | NullPointerException e) {
      meters.published("refused");
      return CompletableFuture.failedFuture(e);
    }
    return publisher.publish(event).whenComplete((r, error) -> meters.published(publishOutcome(error)));
  }

  /** See {@link Almanac#publishAll(List)}. */
  CompletionStage<List<PublishResult>> publishAll(List<IncomingEvent> events) {
    try {
      if (events == null) {
        throw new InvalidSpecException("events", null, "a batch needs a list of events (it may be empty)");
      }
      Instant now = clock.instant();
      for (int i = 0; i < events.size(); i++) {
        IncomingEvent event = events.get(i);
        if (event == null) {
          throw new InvalidSpecException("events[" + i + "]", null, "an event of a batch is never null");
        }
        try {
          event.validate();
        } catch (InvalidSpecException e) {
          throw new InvalidSpecException("events[" + i + "]." + e.field(), e.value(), e.reason());
        }
        if (event.eventTime() != null && event.eventTime().isAfter(now.plus(maxEventFuture))) {
          throw new InvalidSpecException("events[" + i + "].eventTime", event.eventTime(), "lies more than " + maxEventFuture
              + " ahead of this node's clock (" + now + "; almanac.task.max-event-future)");
        }
      }
    } catch (InvalidSpecException e) {
      meters.published("refused");
      return CompletableFuture.failedFuture(e);
    }
    if (events.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<IncomingEvent> copy = List.copyOf(events);
    return publisher.publishAll(copy).whenComplete((r, error) -> {
      String outcome = publishOutcome(error);
      for (int i = 0; i < copy.size(); i++) {
        meters.published(outcome);
      }
    });
  }

  /** The {@code outcome} tag of {@code almanac.publishes} for a publish's failure (null: recorded). */
  private static String publishOutcome(Throwable error) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e == null) {
      return "recorded";
    }
    if (e instanceof OverloadedException) {
      return "overloaded";
    }
    if (e instanceof PublishOutcomeUnknownException) {
      return "unknown";
    }
    return e instanceof InvalidSpecException || e instanceof RefusedException ? "refused" : "failed";
  }

  /** Starts a source that publishes to {@code to}; see {@link Almanac#attach(EventSource)}. */
  void attach(EventSource source, EventSource.Publisher to) {
    try {
      source.start(to);
    } catch (Exception e) {
      throw new AlmanacException("event source " + source + " failed to start: " + e, e);
    }
    sources.add(source);
  }

  /** Closes the attached sources, when the node stops. */
  void closeSources() {
    for (EventSource s : sources) {
      try {
        s.close();
      } catch (RuntimeException e) {
        LOG.warn("event source {} failed to close: {}", s, e.toString());
      }
    }
    sources.clear();
  }
}
