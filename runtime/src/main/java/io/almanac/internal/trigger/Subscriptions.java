package io.almanac.internal.trigger;

import io.almanac.EventTrigger;
import io.almanac.journal.SpecRecord;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who listens to what among the registered tasks (R9): per event type the tasks it triggers (and
 * those of them that map events by their event time), per task the tasks that depend on it. Kept up
 * to date with each registration and removal, so a publish or an upstream's success asks for its
 * listeners without a walk over every task.
 *
 * <p>Pure. Mutable and not thread-safe: owned by one trigger actor, which alone calls it, and never
 * shared. INTERNAL API.
 */
final class Subscriptions {

  private static final TreeSet<String> EMPTY = new TreeSet<>();

  private final Map<String, TreeSet<String>> byType = new HashMap<>();
  private final Map<String, TreeSet<String>> byTypeEventTime = new HashMap<>();
  private final Map<String, TreeSet<String>> dependents = new HashMap<>();

  /**
   * A task was registered, its spec changed, or it was removed.
   *
   * @param before its spec before, or null (new)
   * @param after its spec now, or null (removed)
   */
  void replace(SpecRecord before, SpecRecord after) {
    if (before != null && before.equals(after)) {
      return;
    }
    if (before != null) {
      subscribe(before, false);
      depend(before, false);
    }
    if (after != null) {
      subscribe(after, true);
      depend(after, true);
    }
  }

  /** The tasks this event type triggers, sorted. */
  List<String> listeners(String type) {
    return List.copyOf(byType.getOrDefault(type, EMPTY));
  }

  /** Those of {@link #listeners} that map events by their event time (they need one), sorted. */
  List<String> byEventTime(String type) {
    return List.copyOf(byTypeEventTime.getOrDefault(type, EMPTY));
  }

  /** Whether a registered task depends on this one (its fires then announce its successes). */
  boolean hasDependents(String taskId) {
    return dependents.containsKey(taskId);
  }

  /** The registered tasks that depend on this one, sorted. */
  Collection<String> dependentsOf(String taskId) {
    return Collections.unmodifiableSet(dependents.getOrDefault(taskId, EMPTY));
  }

  private void subscribe(SpecRecord spec, boolean add) {
    if (spec.event() == null) {
      return;
    }
    String type = spec.event().type();
    if (add) {
      byType.computeIfAbsent(type, t -> new TreeSet<>()).add(spec.id());
      if (spec.event().mapBy() != EventTrigger.TimeBasis.ARRIVAL_TIME) {
        byTypeEventTime.computeIfAbsent(type, t -> new TreeSet<>()).add(spec.id());
      }
    } else {
      removeFrom(byType, type, spec.id());
      removeFrom(byTypeEventTime, type, spec.id());
    }
  }

  private void depend(SpecRecord spec, boolean add) {
    if (spec.dependency() == null) {
      return;
    }
    for (String upstream : spec.dependency().upstream()) {
      if (add) {
        dependents.computeIfAbsent(upstream, u -> new TreeSet<>()).add(spec.id());
      } else {
        removeFrom(dependents, upstream, spec.id());
      }
    }
  }

  private static void removeFrom(Map<String, TreeSet<String>> index, String key, String id) {
    Set<String> ids = index.get(key);
    if (ids != null && ids.remove(id) && ids.isEmpty()) {
      index.remove(key);
    }
  }
}
