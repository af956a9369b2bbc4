package io.almanac;

import java.util.concurrent.CompletionStage;

/**
 * The adapter interface for a message-queue consumer (Kafka, RabbitMQ, SQS, a spool directory...)
 * that feeds event-triggered tasks. {@link Almanac#attach(EventSource)} starts it with a {@link
 * Publisher}; the source hands each message to it as an {@link IncomingEvent} and acknowledges the
 * message to its broker only when the returned stage completes: the event is then in the journal.
 * A stage that fails with {@link InvalidSpecException} or {@link RefusedException} names a message
 * that will never be accepted (dead-letter it); any other failure is transient (redeliver it):
 * {@link OverloadedException} stored nothing and says when to try again ({@link
 * OverloadedException#retryAfter()}: pause the consumer that long rather than redeliver at once), and
 * {@link PublishOutcomeUnknownException} may have stored it. A redelivered event is recognised by its
 * id and counted as a duplicate, so at-least-once delivery makes one instance per window. Keep a
 * source's publishes in flight per task below {@code almanac.task.max-pending-publishes} (a handful
 * reaches a task's full write rate). Stopped with the node ({@link #close()}).
 */
public interface EventSource extends AutoCloseable {

  /** Where a source hands its events; {@link Almanac#publish(IncomingEvent)}. */
  @FunctionalInterface
  interface Publisher {
    /**
     * @param event the event
     * @return completes when the event is recorded by every listening task
     */
    CompletionStage<PublishResult> publish(IncomingEvent event);
  }

  /**
   * Starts consuming. Called once, by {@link Almanac#attach(EventSource)}.
   *
   * @param publisher where events go
   * @throws Exception if the source cannot start; the attach fails with it
   */
  void start(Publisher publisher) throws Exception;

  /** Stops consuming; called once when the node stops. */
  @Override
  void close();
}
