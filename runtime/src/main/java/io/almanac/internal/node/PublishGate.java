package io.almanac.internal.node;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bound on each task's queue of publishes from this node (almanac.task.max-pending-publishes):
 * how many publishes to a task the node's facade has sent and not had answered. A publish takes a
 * slot in every task listening to its type before it is sent to any of them, and gives each back
 * when that task answers or its ask times out; if one task is full it takes none, so an overloaded
 * publish reaches no task and stores nothing.
 *
 * <p>Why here and not in the entity: the entity cannot refuse what Pekko holds for it while it writes
 * (its stash takes every command that arrives during a write and drops what does not fit, unanswered).
 * The facade knows what it sent, at no cost. The bound is per node; almanac.task.stash-capacity holds
 * what every node may send. Not an actor's state: the facade is called from any thread, and the
 * counts are touched by the callers and by the threads that complete the asks. INTERNAL API.
 */
public final class PublishGate {

  private final int limit;
  private final ConcurrentHashMap<String, AtomicInteger> pending = new ConcurrentHashMap<>();
  /** The tasks the trigger last named as listening to each type (only for {@link #full}: a hint, never for sending). */
  private final ConcurrentHashMap<String, List<String>> lastSubscribers = new ConcurrentHashMap<>();

  /** @param limit publishes to one task sent and not answered, at most (>= 1) */
  public PublishGate(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, was " + limit);
    }
    this.limit = limit;
  }

  /** @return the bound per task */
  public int limit() {
    return limit;
  }

  /**
   * A cheap look before asking the trigger who listens: while a task that listened to this type at
   * the last publish of it is full, a publish is refused without any message sent. Only ever refuses
   * early: a task that stopped listening receives no more publishes from here, so its count drains to
   * zero and it stops counting; a task that started listening is checked by {@link #admit}.
   *
   * @param type an event type
   * @return a full task that listened to it at its last publish, or null
   */
  public String full(String type) {
    List<String> tasks = lastSubscribers.get(type);
    if (tasks != null) {
      for (String t : tasks) {
        if (pending(t) >= limit) {
          return t;
        }
      }
    }
    return null;
  }

  /**
   * Takes one slot in each task listening to a type, all or none.
   *
   * @param type the event type (its listeners are remembered for {@link #full})
   * @param taskIds the tasks a publish goes to
   * @return null when a slot was taken in every task (give each back with {@link #release}); else the
   *     first task that is full, and no slot was taken
   */
  public String admit(String type, List<String> taskIds) {
    lastSubscribers.put(type, taskIds);
    return admit(taskIds);
  }

  /**
   * Takes one slot in each task, all or none.
   *
   * @param taskIds the tasks a publish goes to
   * @return null when a slot was taken in every task (give each back with {@link #release}); else the
   *     first task that is full, and no slot was taken
   */
  public String admit(List<String> taskIds) {
    for (int i = 0; i < taskIds.size(); i++) {
      AtomicInteger n = pending.computeIfAbsent(taskIds.get(i), k -> new AtomicInteger());
      if (n.incrementAndGet() > limit) {
        n.decrementAndGet();
        for (int j = 0; j < i; j++) {
          release(taskIds.get(j));
        }
        return taskIds.get(i);
      }
    }
    return null;
  }

  /** @param taskId a task whose publish was answered (or whose ask timed out): its slot is free again */
  public void release(String taskId) {
    AtomicInteger n = pending.get(taskId);
    if (n != null) {
      n.decrementAndGet();
    }
  }

  /**
   * @param taskId a task
   * @return its publishes sent and not answered
   */
  public int pending(String taskId) {
    AtomicInteger n = pending.get(taskId);
    return n == null ? 0 : n.get();
  }
}
