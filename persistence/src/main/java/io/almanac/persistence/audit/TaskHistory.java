package io.almanac.persistence.audit;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Every event of one task's journal, in journal order, and how far the journal is known to go.
 *
 * @param taskId the task's id
 * @param events its events, ordered by sequence number
 * @param observedUntil the latest time the journal is known to cover for this task: the later of
 *     its own last event and the trigger's last event (the trigger writes its progress while the
 *     node runs, so a quiet task's journal still "goes on" while the node is up); null when empty
 */
public record TaskHistory(String taskId, List<AuditEvent> events, Instant observedUntil) {

  /** Refuses nulls and copies the list. */
  public TaskHistory {
    Objects.requireNonNull(taskId, "taskId");
    events = List.copyOf(events);
  }

  /**
   * A history whose journal ends at its own last event.
   *
   * @param taskId the task's id
   * @param events its events, ordered by sequence number
   * @return the history
   */
  public static TaskHistory of(String taskId, List<AuditEvent> events) {
    return new TaskHistory(taskId, events, lastAt(events));
  }

  /**
   * Whether the journal holds no event of this task (an unknown task).
   *
   * @return true when there are no events
   */
  public boolean isEmpty() {
    return events.isEmpty();
  }

  /**
   * How many distinct windows the events are about.
   *
   * @return the number of distinct window keys
   */
  public int windowCount() {
    Set<String> keys = new HashSet<>();
    for (AuditEvent e : events) {
      if (e.window() != null) {
        keys.add(e.window());
      }
    }
    return keys.size();
  }

  /**
   * The task's zone as of its last event.
   *
   * @return the zone of the latest spec, or UTC when there is none
   */
  public ZoneId zone() {
    return events.isEmpty() ? ZoneOffset.UTC : events.get(events.size() - 1).zone();
  }

  static Instant lastAt(List<AuditEvent> events) {
    Instant last = null;
    for (AuditEvent e : events) {
      if (e.at() != null && (last == null || e.at().isAfter(last))) {
        last = e.at();
      }
    }
    return last;
  }
}
