package io.almanac.internal.executor;

import io.almanac.JobResult;
import io.almanac.PoolSpec;
import io.almanac.spi.PoolStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * What the executor knows of the resource pools: the store, the pools declared here, the holds this
 * node took (by window), which waits were told to their entity (see {@link #tellWait}), the pools'
 * budgets and days (each pool's zone) and the releases to try again. Owned by the executor actor (not thread-safe); the store's calls are asynchronous and
 * their answers come back to the actor as messages. Tasks without pools never reach it. INTERNAL API.
 */
final class PoolGate {

  private final PoolStore store;
  private final PoolSettings settings;
  private final Map<String, PoolSpec> declared;
  final TimerScheduler<io.almanac.internal.protocol.ExecutorProtocol.Command> timers;
  /** This node's holds, by window key: the pools each holds. */
  private final Map<String, List<String>> held = new HashMap<>();
  /** Windows whose wait was told to their entity, and not admitted since: each pool and reason told for this attempt. */
  private final Map<String, Set<Told>> waitTold = new HashMap<>();
  /** Per pool with a budget: the last day whose BUDGET_EXHAUSTED alert this node raised. */
  private final Map<String, java.time.LocalDate> budgetAlerted = new HashMap<>();

  /** A pool and reason a window's entity was told it waits for. */
  private record Told(String pool, io.almanac.PoolWaitReason reason) {}
  /** Releases that failed, by window key (task, window): tried again at the next check. */
  private final Map<String, String[]> toRelease = new HashMap<>();
  /** A window's holds given back while its Started may still come: its pools, and when. */
  private record Unheld(List<String> pools, java.time.Instant at) {}

  /** Windows whose holds were given back before their Started came, by window key. */
  private final Map<String, Unheld> unheld = new HashMap<>();
  /** Windows whose acquire is on its way to the store. */
  private final Set<String> asking = new java.util.HashSet<>();
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

  /**
   * The store's stage, bounded by {@code almanac.pool-store.operation-timeout}: a stage the store
   * does not complete in time fails (a store failure, like any other), whatever the store does.
   *
   * @param stage what the store returned
   * @param late called (on the store's thread) with the value the store completed the stage with
   *     after it had timed out here; null for none
   * @return a stage completed by the store's, or failed with a {@link java.util.concurrent.TimeoutException}
   */
  <T> java.util.concurrent.CompletableFuture<T> timed(java.util.concurrent.CompletionStage<T> stage,
      java.util.function.Consumer<T> late) {
    java.util.concurrent.CompletableFuture<T> out = new java.util.concurrent.CompletableFuture<>();
    stage.whenComplete((value, error) -> {
      boolean inTime = error != null ? out.completeExceptionally(error) : out.complete(value);
      if (!inTime && error == null && late != null) {
        late.accept(value);
      }
    });
    return out.orTimeout(settings.operationTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** @return a store failure in words: a timeout names almanac.pool-store.operation-timeout */
  String failure(Throwable error) {
    Throwable e = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
    return e instanceof java.util.concurrent.TimeoutException
        ? "no answer within almanac.pool-store.operation-timeout = " + settings.operationTimeout() : e.toString();
  }

  /** @return {@link #timed(java.util.concurrent.CompletionStage, java.util.function.Consumer)} without a late call */
  <T> java.util.concurrent.CompletableFuture<T> timed(java.util.concurrent.CompletionStage<T> stage) {
    return timed(stage, null);
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
    toRelease.remove(key); // admitted anew: the store's hold of the window is this admission's
  }

  /** @return the windows that hold pools here (a copy) */
  List<String> heldKeys() {
    return new ArrayList<>(held.keySet());
  }

  /**
   * The window's holds were given back while its entity had been told it was admitted (the entity
   * restarted meanwhile): a Started of it that still comes must take them again before it runs.
   */
  void unheld(String key, List<String> pools, java.time.Instant now) {
    unheld.put(key, new Unheld(pools, now));
  }

  /** @return the pools of a window whose holds were given back before its Started came (taken), or null */
  List<String> takeUnheld(String key) {
    Unheld u = unheld.remove(key);
    return u == null ? null : u.pools();
  }

  /** Forgets what was given back before {@code before}: a Started comes within the entity's answer time, or not at all. */
  void forgetUnheldBefore(java.time.Instant before) {
    unheld.values().removeIf(u -> u.at().isBefore(before));
  }

  /** An acquire for the window is on its way to the store. */
  void asking(String key) {
    asking.add(key);
  }

  /** The acquire for the window was answered here (or failed, or timed out). */
  void answered(String key) {
    asking.remove(key);
  }

  /**
   * @return whether the store may hold the window's holds for something this node knows of: it
   *     holds them here, or an acquire for it is on its way (a hold the store took for an acquire
   *     given up on is then the new one's, released when its attempt leaves)
   */
  boolean knows(String key) {
    return held.containsKey(key) || asking.contains(key);
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

  /**
   * Whether this refusal of the window's wait is told to its entity (and so recorded in its journal):
   * only the first refusal of each pool and reason in the window's attempt (until it is admitted).
   * A wait that flips between reasons (a rate and a full pool in turn) or that outlasts its {@code
   * until} is not told again: a window's attempt records at most one wait per pool and reason, never
   * one per flip or per poll. Remembers it when told.
   *
   * @param key the window
   * @param pool the pool that refused
   * @param reason why
   * @return whether to tell it
   */
  boolean tellWait(String key, String pool, io.almanac.PoolWaitReason reason) {
    return waitTold.computeIfAbsent(key, k -> new java.util.HashSet<>()).add(new Told(pool, reason));
  }

  /** The window's wait ended here without an admission (its pool's budget was spent): forgotten. */
  void waitEnded(String key) {
    waitTold.remove(key);
  }

  /** Forgets the told waits of windows that are no longer here (their entity forgot them, or restarted). */
  void forgetWaitsUnless(Predicate<String> here) {
    waitTold.keySet().removeIf(k -> !here.test(k));
  }

  /** @return the pool's declaration here, or null */
  PoolSpec spec(String pool) {
    return declared.get(pool);
  }

  /**
   * @param pool a declared pool
   * @param now the time now
   * @return the pool's day now, in its zone
   */
  java.time.LocalDate dayOf(String pool, java.time.Instant now) {
    PoolSpec p = declared.get(pool);
    return java.time.LocalDate.ofInstant(now, p == null ? java.time.ZoneOffset.UTC : p.zone());
  }

  /**
   * @param pools a window's pools
   * @param now the time now
   * @return the budgets of those that have one, for the store to check (empty when none has)
   */
  Map<String, PoolStore.Budget> budgets(List<String> pools, java.time.Instant now) {
    Map<String, PoolStore.Budget> out = null;
    for (String pool : pools) {
      PoolSpec p = declared.get(pool);
      if (p != null && p.budgetPerDay() != null) {
        if (out == null) {
          out = new HashMap<>();
        }
        out.put(pool, new PoolStore.Budget(dayOf(pool, now), p.budgetPerDayMicros()));
      }
    }
    return out == null ? Map.of() : out;
  }

  /** @return whether this node raises the pool's BUDGET_EXHAUSTED alert for the day now (once per pool per day) */
  boolean alertBudget(String pool, java.time.LocalDate day) {
    return !day.equals(budgetAlerted.put(pool, day));
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
