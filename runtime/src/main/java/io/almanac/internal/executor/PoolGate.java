package io.almanac.internal.executor;

import io.almanac.JobResult;
import io.almanac.PoolSpec;
import io.almanac.spi.PoolStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * What the executor knows of the resource pools: the store, the pools declared here, the holds this
 * node took (by window), which waits were told to their entity (once per wait) and the releases to
 * try again. Owned by the executor actor (not thread-safe); the store's calls are asynchronous and
 * their answers come back to the actor as messages. Tasks without pools never reach it. INTERNAL API.
 */
final class PoolGate {

  private final PoolStore store;
  private final PoolSettings settings;
  private final Map<String, PoolSpec> declared;
  final TimerScheduler<io.almanac.internal.protocol.ExecutorProtocol.Command> timers;
  /** This node's holds, by window key: the pools each holds. */
  private final Map<String, List<String>> held = new HashMap<>();
  /** Windows whose wait was told to their entity, and not admitted since. */
  private final Set<String> waitTold = new HashSet<>();
  /** Releases that failed, by window key (task, window): tried again at the next check. */
  private final Map<String, String[]> toRelease = new HashMap<>();
  private boolean ready;
  private boolean declaring;

  PoolGate(PoolStore store, PoolSettings settings, Map<String, PoolSpec> declared,
      TimerScheduler<io.almanac.internal.protocol.ExecutorProtocol.Command> timers) {
    this.store = store;
    this.settings = settings;
    this.declared = declared;
    this.timers = timers;
  }

  PoolStore store() {
    return store;
  }

  PoolSettings settings() {
    return settings;
  }

  /** @return whether any pool is declared on this node */
  boolean any() {
    return !declared.isEmpty();
  }

  Set<String> names() {
    return declared.keySet();
  }

  /** @return the pools' limits as the store takes them */
  List<PoolStore.Limit> limits() {
    List<PoolStore.Limit> out = new ArrayList<>();
    for (PoolSpec p : declared.values()) {
      out.add(new PoolStore.Limit(p.name(), p.maxConcurrent(), p.ratePermits(), p.ratePer()));
    }
    return out;
  }

  /** @return whether the store knows the pools (declared at the start): until then nothing pooled is asked */
  boolean ready() {
    return ready;
  }

  /** @return whether a declare should be sent now (none on its way, not declared yet) */
  boolean startDeclare() {
    if (ready || declaring) {
      return false;
    }
    declaring = true;
    return true;
  }

  void declared(boolean ok) {
    declaring = false;
    ready = ok;
  }

  void held(String key, List<String> pools) {
    held.put(key, pools);
    waitTold.remove(key);
  }

  /** @return the pools this window holds here, or null */
  List<String> poolsOf(String key) {
    return held.get(key);
  }

  /** @return the holds of this window, forgotten here (to release in the store), or null if it held none */
  List<String> takeHold(String key) {
    return held.remove(key);
  }

  /** @return the windows that hold pools here but are neither admitted nor running any more */
  List<String> orphans(Predicate<String> stillHere) {
    List<String> out = new ArrayList<>();
    for (String key : held.keySet()) {
      if (!stillHere.test(key)) {
        out.add(key);
      }
    }
    return out;
  }

  /** @return whether this is the first refusal of the window's wait (then it is told to its entity) */
  boolean firstWait(String key) {
    return waitTold.add(key);
  }

  /** Forgets the told waits of windows that are no longer here (their entity forgot them, or restarted). */
  void forgetWaitsUnless(Predicate<String> here) {
    waitTold.removeIf(k -> !here.test(k));
  }

  void releaseFailed(String key, String taskId, String window) {
    toRelease.put(key, new String[] {taskId, window});
  }

  /** @return the releases to try again, taken */
  Map<String, String[]> takeFailedReleases() {
    Map<String, String[]> out = new HashMap<>(toRelease);
    toRelease.clear();
    return out;
  }

  /**
   * @param result a throttled result
   * @param key its window
   * @return the pools it pauses: the one it names if declared here, else all its task's pools here
   */
  List<String> pausedBy(JobResult result, String key, List<String> taskPools) {
    if (result.pool() != null && declared.containsKey(result.pool())) {
      return List.of(result.pool());
    }
    List<String> mine = held.get(key);
    return mine != null ? mine : taskPools;
  }
}
