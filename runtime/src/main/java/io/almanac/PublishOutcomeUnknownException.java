package io.almanac;

import java.util.List;
import java.util.Objects;

/**
 * A publish reached its tasks but not every one of them answered in time (or at all: a node
 * stopped, a task's queue was lost): the event may have been recorded by any of them, by none, or
 * by all. <em>Publishing it again with the same id is safe</em>: a task that recorded it counts the
 * second delivery as a duplicate ({@link PublishResult.Outcome#DUPLICATE}) and creates nothing, and
 * one that did not records it then. Like {@link EffectOutcomeUnknownException} for effects, it says
 * "unknown" rather than guess; unlike an effect, an event's id makes the retry harmless.
 */
public class PublishOutcomeUnknownException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  private final String type;
  private final String eventId;
  private final List<String> unanswered;
  private final transient List<PublishResult.TaskOutcome> answered;

  /**
   * @param type the event's type
   * @param eventId the event's id
   * @param unanswered the tasks whose answer did not come (their outcome is unknown)
   * @param answered what the other tasks did (they recorded it)
   * @param cause the first unanswered task's failure (e.g. a timeout)
   */
  public PublishOutcomeUnknownException(String type, String eventId, List<String> unanswered,
      List<PublishResult.TaskOutcome> answered, Throwable cause) {
    super("event '" + eventId + "' of type '" + type + "': no answer from task(s) " + String.join(", ", unanswered)
        + (answered.isEmpty() ? "" : " (recorded by " + String.join(", ", answered.stream().map(PublishResult.TaskOutcome::taskId)
            .toList()) + ")") + "; it may or may not have been recorded there: publish it again with the same id (safe: "
        + "a task that recorded it counts a duplicate)" + (cause == null ? "" : " (" + cause + ")"), cause);
    this.type = Objects.requireNonNull(type, "type");
    this.eventId = Objects.requireNonNull(eventId, "eventId");
    this.unanswered = List.copyOf(unanswered);
    this.answered = List.copyOf(answered);
  }

  /** @return the event's type */
  public String type() {
    return type;
  }

  /** @return the event's id: publish again with it */
  public String eventId() {
    return eventId;
  }

  /** @return the tasks whose answer did not come */
  public List<String> unanswered() {
    return unanswered;
  }

  /** @return what the tasks that answered did (empty after the exception was deserialized) */
  public List<PublishResult.TaskOutcome> answered() {
    return answered == null ? List.of() : answered;
  }
}
