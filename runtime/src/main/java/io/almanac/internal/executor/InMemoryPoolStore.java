package io.almanac.internal.executor;

import io.almanac.spi.PoolRules;
import io.almanac.spi.PoolStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The pools' counts in this JVM's memory: the limits hold for the nodes that share this instance (one
 * node, or the nodes of one test), not across a cluster; nothing outlives the JVM. The store of a
 * node that declares no pool (nothing to count), and of the executor's tests; a node with pools
 * keeps them in their journals ({@code io.almanac.internal.pool.JournalPoolStore}). Thread-safe (one
 * lock). INTERNAL API.
 */
public final class InMemoryPoolStore implements PoolStore {

  /** One pool's state. */
  private static final class Pool {
    Limit limit;
    /** With a rate of N per period: the latest starts, oldest first; at most N, none older than a period. */
    final ArrayDeque<Instant> starts = new ArrayDeque<>();
    Instant pausedUntil;
    final Set<String> holds = new HashSet<>();
  }

  private final Clock clock;
  private final Map<String, Pool> pools = new LinkedHashMap<>();
  /** Days kept before the latest day with usage (older ones are dropped: nothing asks for them). */
  private static final int KEEP_DAYS = 3;
  /** The pools' days with usage or raises, by pool and day. */
  private final Map<String, PoolDay> days = new HashMap<>();

  /** @param clock where the pools' time (rate, pause) comes from */
  public InMemoryPoolStore(Clock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized CompletionStage<Void> declare(List<Limit> limits) {
    Instant now = clock.instant();
    for (Limit l : limits) {
      Pool p = pools.computeIfAbsent(l.name(), n -> new Pool());
      p.limit = l;
      forget(p, now);
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> names, String taskId, String window) {
    return acquire(names, taskId, window, Map.of());
  }

  @Override
  public synchronized CompletionStage<Answer> acquire(List<String> names, String taskId, String window,
      Map<String, Budget> budgets) {
    for (String name : names) {
      Budget b = budgets.get(name);
      if (b != null && pools.containsKey(name)) {
        Answer spent = PoolRules.checkBudget(day(name, b.day()), b);
        if (spent != null) {
          return CompletableFuture.completedFuture(spent);
        }
      }
    }
    Instant now = clock.instant();
    List<Pool> chosen = new ArrayList<>();
    for (String name : names) {
      Pool p = pools.get(name);
      if (p == null) {
        return CompletableFuture.failedFuture(new IllegalStateException("pool '" + name + "' is not declared in this store"));
      }
      forget(p, now);
      Answer refusal = PoolRules.check(name, p.limit, p.holds.size(), nthLatestStart(p), p.pausedUntil, now);
      if (refusal != null) {
        return CompletableFuture.completedFuture(refusal);
      }
      chosen.add(p);
    }
    String key = taskId + "|" + window;
    for (Pool p : chosen) {
      if (p.limit.hasRate()) {
        p.starts.addLast(now);
        forget(p, now);
      }
      p.holds.add(key);
    }
    return CompletableFuture.completedFuture(Answer.ADMITTED);
  }

  /**
   * Forgets the starts the rate no longer needs: beyond the latest N, and those more than a period
   * ago (they can refuse nothing). Bounded memory: at most N instants per pool.
   */
  private static void forget(Pool p, Instant now) {
    if (!p.limit.hasRate()) {
      p.starts.clear();
      return;
    }
    while (p.starts.size() > p.limit.ratePermits()) {
      p.starts.removeFirst();
    }
    while (!p.starts.isEmpty() && PoolRules.untilStart(p.limit, p.starts.peekFirst(), now) == null) {
      p.starts.removeFirst();
    }
  }

  /** @return the pool's N-th latest start (its rate's N), or null when it recorded fewer */
  private static Instant nthLatestStart(Pool p) {
    return p.limit.hasRate() && p.starts.size() >= p.limit.ratePermits() ? p.starts.peekFirst() : null;
  }

  /** @return how many start instants the store keeps for the pool (tests: at most its rate's N) */
  synchronized int startsKept(String pool) {
    Pool p = pools.get(pool);
    return p == null ? 0 : p.starts.size();
  }

  @Override
  public synchronized CompletionStage<Void> release(String taskId, String window) {
    String key = taskId + "|" + window;
    pools.values().forEach(p -> p.holds.remove(key));
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized CompletionStage<Void> pause(String pool, Duration pause) {
    Pool p = pools.get(pool);
    if (p != null) {
      Instant until = io.almanac.spi.Saturating.plus(clock.instant(), pause);
      if (p.pausedUntil == null || until.isAfter(p.pausedUntil)) {
        p.pausedUntil = until;
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized CompletionStage<Map<String, Integer>> inUse() {
    Map<String, Integer> out = new HashMap<>();
    pools.forEach((name, p) -> out.put(name, p.holds.size()));
    return CompletableFuture.completedFuture(out);
  }

  private PoolDay day(String pool, java.time.LocalDate day) {
    PoolDay d = days.get(pool + "|" + day);
    return d != null ? d : PoolDay.empty(pool, day);
  }

  @Override
  public synchronized CompletionStage<Void> addUsage(String pool, java.time.LocalDate day, long costMicros) {
    PoolDay d = day(pool, day);
    days.put(pool + "|" + day, new PoolDay(pool, day, PoolRules.plus(d.costMicros(), costMicros), d.attempts() + 1,
        d.raisedMicros()));
    java.time.LocalDate keepFrom = day.minusDays(KEEP_DAYS);
    days.values().removeIf(x -> x.day().isBefore(keepFrom)); // bounded: a few days per pool
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized CompletionStage<PoolDay> dayUsage(String pool, java.time.LocalDate day) {
    return CompletableFuture.completedFuture(day(pool, day));
  }

  @Override
  public synchronized CompletionStage<PoolDay> raiseBudget(String pool, java.time.LocalDate day, long amountMicros) {
    if (!pools.containsKey(pool)) {
      return CompletableFuture.failedFuture(new IllegalStateException("pool '" + pool + "' is not declared in this store"));
    }
    PoolDay d = day(pool, day);
    PoolDay after = new PoolDay(pool, day, d.costMicros(), d.attempts(), PoolRules.plus(d.raisedMicros(), amountMicros));
    days.put(pool + "|" + day, after);
    return CompletableFuture.completedFuture(after);
  }

  @Override
  public void close() {}
}
