package io.almanac.journal;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the trigger's journal holds: its events (past tense, data only) and its snapshot state. The
 * trigger is a cluster singleton with one journal, {@value #PERSISTENCE_ID}. Published like
 * {@link TaskJournal}: the audit and any reader of the journal use these types, never the runtime's
 * internals. Persisted: a type, component or enum constant is never renamed without a migration
 * ({@link JournalRenames}). Specs are held as the journal's {@link SpecRecord}, not as the API's
 * {@link io.almanac.TaskSpec}.
 */
public final class TriggerJournal {

  /** The persistence id of the trigger's journal: there is one per cluster. */
  public static final String PERSISTENCE_ID = "almanac-trigger";

  private TriggerJournal() {}

  /** What the trigger persisted. */
  public interface Event extends JournalSerializable {}

  /**
   * Tasks were registered or their specs changed.
   *
   * @param specs the tasks' specs as registered, as the journal holds them
   * @param at when
   * @param since their windows are fired from here (exclusive): when it lies before the watermark
   *     (the trigger moved on before the registration reached it), the watermark goes back to it, so
   *     a trigger recovering before those fires were acknowledged fires them again. Null in journals
   *     written before this component existed (the watermark then stays where it is)
   */
  public record TasksRegistered(List<SpecRecord> specs, Instant at, Instant since) implements Event {}

  /**
   * A task's schedule failed (its cron or window spec threw): its windows are fired no more until it
   * is registered with a changed spec, or the trigger restarts and its schedule computes again;
   * every other task goes on (principle 8).
   *
   * @param taskId the task set aside
   * @param reason why its schedule failed
   * @param at when
   */
  public record TaskSetAside(String taskId, String reason, Instant at) implements Event {}

  /**
   * A task was removed: its windows are fired no more, and it is no longer woken, also after a
   * restart (registering it again brings it back with a new {@link TasksRegistered}).
   *
   * @param taskId the task removed
   * @param at when
   */
  public record TaskRemoved(String taskId, Instant at) implements Event {}

  /**
   * The watermark moved, and tasks became active or idle.
   *
   * @param watermark every fire due at or before it was acknowledged
   * @param active tasks that may now have active windows
   * @param idle tasks that have none any more
   * @param at when
   */
  public record Progressed(Instant watermark, List<String> active, List<String> idle, Instant at) implements Event {}

  /**
   * The trigger stopped firing because its node is leaving a cluster whose other members stay up (a
   * normal stop, a rolling restart): a planned hand-over, not downtime. Its successor, if it starts
   * within {@code almanac.trigger.hand-over-timeout} (the lease time) of {@code at}, fires every
   * window due since the watermark that is within the on-time grace as on time (not only the latest,
   * as after downtime), so a hand-over does not turn the windows due during it into catch-ups. A
   * trigger that starts later took over from nobody (the cluster stopped, node after node): the gap
   * is downtime. Cleared when the successor's watermark moves.
   *
   * @param watermark the watermark when it stopped: every fire due at or before it was acknowledged
   * @param node the address of the node it stopped on
   * @param at when
   */
  public record HandedOver(Instant watermark, String node, Instant at) implements Event {}

  /**
   * The trigger's durable state (its snapshot).
   *
   * @param tasks the registered tasks' specs by id, as the journal holds them
   * @param watermark every fire due at or before it was acknowledged (null before the first tick)
   * @param active tasks that may have active windows: woken after a restart
   * @param handedOverAt when the trigger last stopped in a hand-over ({@link HandedOver}) and no
   *     trigger has moved the watermark since; null otherwise, and in snapshots written before this
   *     component existed
   */
  public record State(Map<String, SpecRecord> tasks, Instant watermark, Set<String> active, Instant handedOverAt)
      implements JournalSerializable {
    /**
     * Canonical constructor: never null, never shared mutable; persistent collections (a state built
     * from another shares their structure: registering or removing a task, or a change of activity,
     * costs O(log n), not a copy of every task). A snapshot's plain ones are converted once.
     */
    public State {
      tasks = OrderedMap.from(tasks);
      // sorted (TreePSet): its contains is a lookup (pcollections' OrderedPSet walks every element)
      active = active instanceof org.pcollections.TreePSet<String> p ? p
          : active == null ? org.pcollections.TreePSet.<String>empty() : org.pcollections.TreePSet.from(active);
    }

    /**
     * @param specs specs registered (new or changed)
     * @return the state with them
     */
    public State withTasks(List<SpecRecord> specs) {
      OrderedMap<String, SpecRecord> next = (OrderedMap<String, SpecRecord>) tasks;
      for (SpecRecord spec : specs) {
        next = next.plus(spec.id(), spec);
      }
      return new State(next, watermark, active, handedOverAt);
    }

    /**
     * @param taskId a removed task
     * @return the state without it
     */
    public State withoutTask(String taskId) {
      return new State(((OrderedMap<String, SpecRecord>) tasks).minus(taskId), watermark,
          ((org.pcollections.TreePSet<String>) active).minus(taskId), handedOverAt);
    }

    /**
     * @param nowActive tasks that became active
     * @param nowIdle tasks that became idle
     * @return the active set after both
     */
    public Set<String> activeAfter(List<String> nowActive, List<String> nowIdle) {
      org.pcollections.TreePSet<String> next = (org.pcollections.TreePSet<String>) active;
      return next.plusAll(nowActive).minusAll(nowIdle);
    }
  }
}
