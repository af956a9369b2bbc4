package io.almanac;

import java.util.Objects;

/**
 * An event trigger (R9): the task runs a window when an event of type {@link #type()} arrives for it
 * ({@link Almanac#publish(IncomingEvent)}). Each event maps to one business window of the task, by
 * its own event time or by the time it arrived ({@link #mapBy()}); a duplicate delivery of an event
 * id is recorded and counted but never makes a second instance (the ids are kept in the task's
 * journal, so this survives restarts); a storm of events for one window makes one instance, with the
 * number of events and the first and last ids recorded on it.
 *
 * @param type the event type the task listens to: 1-100 characters of letters, digits, {@code . _ -}
 * @param mapBy which instant of an event picks its window
 */
public record EventTrigger(String type, TimeBasis mapBy) {

  /** Which instant of an event picks its window. Persisted by name. */
  public enum TimeBasis {
    /** The event's own time, as the publisher states it (required on every event). */
    EVENT_TIME,
    /** The instant the event arrived (the node's clock); the event's own time is only recorded. */
    ARRIVAL_TIME
  }

  /** Canonical constructor: {@code mapBy} defaults to {@link TimeBasis#EVENT_TIME}. */
  public EventTrigger {
    mapBy = mapBy == null ? TimeBasis.EVENT_TIME : mapBy;
  }

  /**
   * @param type the event type
   * @return a trigger on events of that type, mapped to windows by their event time
   */
  public static EventTrigger of(String type) {
    return new EventTrigger(type, TimeBasis.EVENT_TIME);
  }

  /** @return this trigger, mapping events to windows by the time they arrive */
  public EventTrigger byArrivalTime() {
    return new EventTrigger(type, TimeBasis.ARRIVAL_TIME);
  }

  /**
   * Checks the type.
   *
   * @return this trigger
   * @throws InvalidSpecException (field {@code event.type}) when the type is missing or malformed
   */
  public EventTrigger validate() {
    validateType("event.type", type);
    return this;
  }

  /**
   * Checks an event type: 1-100 characters of letters, digits, {@code . _ -}.
   *
   * @param field the field's name for the message
   * @param type the type
   * @throws InvalidSpecException naming the field when it is invalid
   */
  public static void validateType(String field, String type) {
    if (type == null || type.isBlank()) {
      throw new InvalidSpecException(field, type, "an event type must not be empty");
    }
    if (type.length() > 100 || !type.matches("[A-Za-z0-9._-]+")) {
      throw new InvalidSpecException(field, type, "1-100 characters of letters, digits, '.', '_' and '-'");
    }
    Objects.requireNonNull(type);
  }
}
