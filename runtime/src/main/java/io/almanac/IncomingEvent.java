package io.almanac;

import java.lang.invoke.MethodHandles;
import java.time.Instant;

/**
 * An event for event-triggered tasks ({@link EventTrigger}), as a publisher or a message-queue
 * adapter hands it to {@link Almanac#publish(IncomingEvent)}: {@code IncomingEvent.of(type,
 * id).withEventTime(at).withSummary(text)}.
 */
public final class IncomingEvent extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(), "type", "id", "eventTime", "summary");

  @Override
  Parts parts() {
    return PARTS;
  }

  private final String type;
  private final String id;
  private final Instant eventTime;
  private final String summary;

  private IncomingEvent(String type, String id, Instant eventTime, String summary) {
    this.type = type;
    this.id = id;
    this.eventTime = eventTime;
    this.summary = summary;
  }

  /** Longest event id accepted. */
  public static final int MAX_ID_LENGTH = 200;

  /** Longest summary accepted. */
  public static final int MAX_SUMMARY_LENGTH = 500;

  /**
   * @param type the event type: tasks with an event trigger of this type receive it
   * @param id the event's id, unique per event: a second delivery of the same id is a duplicate
   * @return the event, without an event time or a summary
   */
  public static IncomingEvent of(String type, String id) {
    return new IncomingEvent(type, id, null, null);
  }

  /**
   * @param at when the event happened by its publisher, or null
   * @return this event with that event time
   */
  public IncomingEvent withEventTime(Instant at) {
    return new IncomingEvent(type, id, at, summary);
  }

  /**
   * @param text a short description kept with the event in the journal, or null
   * @return this event with that summary
   */
  public IncomingEvent withSummary(String text) {
    return new IncomingEvent(type, id, eventTime, text);
  }

  /**
   * Checks the parts that need no task: the type, the id, the event time (from 1970, before 2100) and the summary.
   *
   * @return this event
   * @throws InvalidSpecException naming the field ({@code type}, {@code id}, {@code eventTime}, {@code summary}) and
   *     the value
   */
  public IncomingEvent validate() {
    EventTrigger.validateType("type", type);
    if (id == null || id.isBlank()) {
      throw new InvalidSpecException("id", id, "an event needs an id (duplicate deliveries are recognised by it)");
    }
    if (id.length() > MAX_ID_LENGTH) {
      throw new InvalidSpecException("id", id, "is " + id.length() + " characters; at most " + MAX_ID_LENGTH);
    }
    if (eventTime != null && (eventTime.isBefore(TaskSpec.EARLIEST_ONCE) || !eventTime.isBefore(TaskSpec.LATEST_ONCE))) {
      throw new InvalidSpecException("eventTime", eventTime, "must be from " + TaskSpec.EARLIEST_ONCE + " and before "
          + TaskSpec.LATEST_ONCE + " (the years a schedule can name)");
    }
    if (summary != null && summary.length() > MAX_SUMMARY_LENGTH) {
      throw new InvalidSpecException("summary", summary, "is " + summary.length() + " characters; at most "
          + MAX_SUMMARY_LENGTH);
    }
    return this;
  }

  /** @return the event type: tasks with an event trigger of this type receive it */
  public String type() {
    return type;
  }

  /**
   * @return the event's id, unique per event: a second delivery of the same id is a duplicate (1-200
   *     characters)
   */
  public String id() {
    return id;
  }

  /**
   * @return when the event happened by its publisher; required for tasks that map events by event
   *     time, and never more than {@code almanac.task.max-event-future} ahead of the node's clock
   */
  public Instant eventTime() {
    return eventTime;
  }

  /** @return a short description kept with the event in the journal (at most 500 characters), or null */
  public String summary() {
    return summary;
  }
}
