package io.almanac.internal.meter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The value of the {@code task} tag of a node's meters, bounded: the first {@code max} task ids a node
 * registers or meters get their own series, every later one shares {@value #OTHER} (a task id never contains
 * {@code ~}, so it cannot be a task's). A node of ten thousand tasks thus keeps at most {@code max}
 * series per meter and tag set, whatever its tasks are named. Set by {@code almanac.metrics.max-task-tags}.
 * Thread-safe. INTERNAL API.
 */
public final class TaskTags {

  /** The tag of every task past the cap. */
  public static final String OTHER = "~other";

  /** The default cap (the runtime's reference.conf says the same). */
  public static final int DEFAULT_MAX = 1000;

  private final int max;
  private final Map<String, Boolean> named = new ConcurrentHashMap<>();

  /**
   * @param max how many task ids get their own tag; 0 puts every task under {@value #OTHER}
   */
  public TaskTags(int max) {
    if (max < 0) {
      throw new IllegalArgumentException("max-task-tags must be at least 0, not " + max);
    }
    this.max = max;
  }

  /**
   * @param taskId a task
   * @return its tag: its id while it is one of the first {@code max} ids seen, else {@value #OTHER}
   */
  public String tag(String taskId) {
    if (named.containsKey(taskId)) {
      return taskId;
    }
    synchronized (named) {
      if (named.size() < max) {
        named.put(taskId, Boolean.TRUE);
        return taskId;
      }
    }
    return named.containsKey(taskId) ? taskId : OTHER;
  }

  /** @return how many task ids have their own tag */
  public int named() {
    return named.size();
  }
}
