package io.almanac.internal.trigger;

import io.almanac.DependencyTrigger;
import io.almanac.InvalidSpecException;
import io.almanac.journal.SpecRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The dependency graph of the registered tasks (R9): a registration that would close a cycle, or
 * name an upstream task that is not registered (unless the dependency waits for missing ones), is
 * refused before anything is stored, with an error naming the cycle or the task. Pure. INTERNAL API.
 */
public final class DependencyGraph {

  private DependencyGraph() {}

  /**
   * Checks a registration against the tasks already registered.
   *
   * @param registered the registered tasks' specs by id
   * @param incoming the specs being registered (they replace registered ones of the same id)
   * @throws InvalidSpecException naming the task, the field {@code dependency.upstream} and the cycle
   *     or the missing task
   */
  public static void check(Map<String, SpecRecord> registered, Collection<SpecRecord> incoming) {
    Map<String, SpecRecord> all = new LinkedHashMap<>(registered);
    for (SpecRecord s : incoming) {
      all.put(s.id(), s);
    }
    for (SpecRecord s : incoming) {
      if (s.dependency() == null) {
        continue;
      }
      for (String u : s.dependency().upstream()) {
        if (!all.containsKey(u) && s.dependency().missingUpstream() != DependencyTrigger.MissingUpstream.WAIT) {
          throw new InvalidSpecException(s.id(), new InvalidSpecException("dependency.upstream", u,
              "no task with this id is registered (register it first, in the same call, or set missing-upstream WAIT)"));
        }
      }
    }
    Map<String, List<String>> edges = new HashMap<>();
    for (SpecRecord s : all.values()) {
      edges.put(s.id(), s.dependency() == null ? List.of() : s.dependency().upstream());
    }
    Set<String> done = new HashSet<>();
    for (SpecRecord s : incoming) {
      List<String> cycle = cycleFrom(s.id(), edges, new ArrayList<>(), new HashSet<>(), done);
      if (cycle != null) {
        throw new InvalidSpecException(s.id(), new InvalidSpecException("dependency.upstream",
            s.dependency() == null ? null : s.dependency().upstream(), "closes a dependency cycle: " + String.join(" -> ", cycle)));
      }
    }
  }

  /**
   * A path that returns to a task on it, as {@code a -> b -> c -> a}, or null. Depth-first with an
   * explicit stack, so a chain of any length (100,000 tasks, one after the other) is checked without
   * running out of thread stack.
   */
  private static List<String> cycleFrom(String id, Map<String, List<String>> edges, List<String> path, Set<String> onPath,
      Set<String> done) {
    if (done.contains(id)) {
      return null;
    }
    ArrayDeque<Iterator<String>> next = new ArrayDeque<>();
    path.add(id);
    onPath.add(id);
    next.push(edges.getOrDefault(id, List.of()).iterator());
    while (!next.isEmpty()) {
      Iterator<String> it = next.peek();
      if (!it.hasNext()) {
        next.pop();
        String finished = path.remove(path.size() - 1);
        onPath.remove(finished);
        done.add(finished);
        continue;
      }
      String u = it.next();
      if (onPath.contains(u)) {
        List<String> cycle = new ArrayList<>(path.subList(path.indexOf(u), path.size()));
        cycle.add(u);
        return cycle;
      }
      if (done.contains(u)) {
        continue;
      }
      path.add(u);
      onPath.add(u);
      next.push(edges.getOrDefault(u, List.of()).iterator());
    }
    return null;
  }
}
