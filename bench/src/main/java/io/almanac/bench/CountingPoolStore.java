package io.almanac.bench;

import com.typesafe.config.Config;
import io.almanac.spi.PoolStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The pool workload's store: the node's real pool store ({@code almanac.pool-store.delegate}, made
 * by its own {@code create(ActorSystem, Config)}), each call counted and timed from the call to the
 * completion of its stage, so the workload can say what admission through a pool costs per attempt.
 * Named by {@code almanac.pool-store.class}. One per JVM (the bench runs one node per JVM), so the
 * counts are static.
 */
public final class CountingPoolStore implements PoolStore {

  static final LongAdder ACQUIRES = new LongAdder();
  static final LongAdder ADMITTED = new LongAdder();
  static final LongAdder REFUSED = new LongAdder();
  static final LongAdder RELEASES = new LongAdder();
  static final LongAdder OTHER = new LongAdder();
  static final LongAdder FAILED = new LongAdder();
  private static final List<Double> ACQUIRE_MS = new ArrayList<>();
  private static final List<Double> RELEASE_MS = new ArrayList<>();

  private final PoolStore delegate;

  private CountingPoolStore(PoolStore delegate) {
    this.delegate = delegate;
  }

  /**
   * Makes the delegate and wraps it.
   *
   * @param system the node
   * @param config the {@code almanac.pool-store} block, with {@code delegate} the real store's class
   * @return the store
   * @throws Exception if the delegate cannot be made
   */
  public static PoolStore create(ActorSystem<?> system, Config config) throws Exception {
    Class<?> c = Class.forName(config.getString("delegate"));
    PoolStore d = (PoolStore) c.getMethod("create", ActorSystem.class, Config.class).invoke(null, system, config);
    return new CountingPoolStore(d);
  }

  private static <T> CompletionStage<T> timed(CompletionStage<T> stage, List<Double> into) {
    long t0 = System.nanoTime();
    return stage.whenComplete((r, e) -> {
      double ms = (System.nanoTime() - t0) / 1e6;
      if (e != null) {
        FAILED.increment();
      }
      synchronized (into) {
        into.add(ms);
      }
    });
  }

  @Override
  public CompletionStage<Void> declare(List<Limit> pools) {
    OTHER.increment();
    return delegate.declare(pools);
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window) {
    ACQUIRES.increment();
    return timed(delegate.acquire(pools, taskId, window), ACQUIRE_MS).whenComplete((a, e) -> {
      if (a != null && a.admitted()) {
        ADMITTED.increment();
      } else if (a != null) {
        REFUSED.increment();
      }
    });
  }

  @Override
  public CompletionStage<Void> release(String taskId, String window) {
    RELEASES.increment();
    return timed(delegate.release(taskId, window), RELEASE_MS);
  }

  @Override
  public CompletionStage<Void> pause(String pool, Duration pause) {
    OTHER.increment();
    return delegate.pause(pool, pause);
  }

  @Override
  public CompletionStage<Map<String, Integer>> inUse() {
    OTHER.increment();
    return delegate.inUse();
  }

  @Override
  public void close() {
    delegate.close();
  }

  /** The running counts (read before and after a span by {@link Cost}). */
  static Map<String, Long> counters() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("pool_acquires", ACQUIRES.sum());
    m.put("pool_admitted", ADMITTED.sum());
    m.put("pool_refused", REFUSED.sum());
    m.put("pool_releases", RELEASES.sum());
    m.put("pool_other_calls", OTHER.sum());
    return m;
  }

  /** The calls' latencies since the start, and the failures. */
  static Map<String, Object> latencies() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("acquire", summary(ACQUIRE_MS));
    m.put("release", summary(RELEASE_MS));
    m.put("failed_calls", FAILED.sum());
    m.put("note", "from the call to its stage's completion, ms; every call since the node started");
    return m;
  }

  private static Map<String, Object> summary(List<Double> samples) {
    double[] a;
    synchronized (samples) {
      a = samples.stream().mapToDouble(Double::doubleValue).toArray();
    }
    Map<String, Object> m = Stats.lag(a);
    if (a.length > 0) {
      m.put("mean_ms", java.util.Arrays.stream(a).average().orElse(0));
    }
    return m;
  }
}
