package io.almanac;

import java.lang.invoke.MethodHandles;
import java.util.List;

/**
 * What became of a published event in each task listening to its type.
 *
 * @param type the event's type
 * @param id the event's id
 * @param tasks one outcome per listening task
 */
public record PublishResult(String type, String id, List<TaskOutcome> tasks) {

  /** Canonical constructor: the list is never null. */
  public PublishResult {
    tasks = tasks == null ? List.of() : List.copyOf(tasks);
  }

  /** What one task did with an event. */
  public enum Outcome {
    /** Its window had no instance: one was created (PENDING, or WAITING for its dependency or condition). */
    SCHEDULED,
    /** Its window already had an instance: the event was counted on it (a storm is coalesced). */
    COALESCED,
    /** The same event id arrived before: counted as a duplicate, nothing else changed. */
    DUPLICATE,
    /** Its window was created SKIPPED (paused, or by the overlap policy), with the reason. */
    SKIPPED,
    /** Its window lies outside the task's catch-up horizon: created MISSED, with the reason. */
    MISSED,
    /**
     * Its window has no instance in the task's state and starts at or before the task's archived
     * windows (they left its state, see retention and hot windows): the event is recorded in the
     * journal and nothing runs; whether that window ever had an instance is in the journal (the audit).
     */
    ARCHIVED
  }

  /** What one listening task did with the event. Made by the runtime; read by callers. */
  public static final class TaskOutcome extends Value {
    private static final Parts PARTS = Parts.of(MethodHandles.lookup(), "taskId", "window", "outcome", "detail");

    @Override
    Parts parts() {
      return PARTS;
    }

    private final String taskId;
    private final WindowKey window;
    private final Outcome outcome;
    private final String detail;

    TaskOutcome(String taskId, WindowKey window, Outcome outcome, String detail) {
      this.taskId = taskId;
      this.window = window;
      this.outcome = outcome;
      this.detail = detail;
    }

    /** @return the task */
    public String taskId() {
      return taskId;
    }

    /** @return the window the event mapped to */
    public WindowKey window() {
      return window;
    }

    /** @return what the task did */
    public Outcome outcome() {
      return outcome;
    }

    /** @return why, for people */
    public String detail() {
      return detail;
    }
  }
}
