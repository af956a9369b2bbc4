package io.almanac;

import com.typesafe.config.Config;
import io.almanac.internal.executor.InMemoryPoolStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A pool store (named by almanac.pool-store.class in a test) whose pool flaps: until {@link #FLAP_UNTIL}
 * by {@link #CLOCK}, each window's asks are refused RATE and FULL in turn (rate-limited, then
 * concurrency-limited, and so on); afterwards it admits as the in-memory store does.
 */
public final class FlappingPoolStore extends DelegatingPoolStore {
  static final AtomicReference<Clock> CLOCK = new AtomicReference<>(Clock.systemUTC());
  static final AtomicReference<Instant> FLAP_UNTIL = new AtomicReference<>(Instant.MIN);
  /** Refusals per window (task|window). */
  static final Map<String, AtomicInteger> REFUSED = new ConcurrentHashMap<>();
  private final InMemoryPoolStore inner = new InMemoryPoolStore(Clock.systemUTC());

  /**
   * @param system the node's system
   * @param config the almanac.pool-store block
   * @return a store
   */
  public static FlappingPoolStore create(ActorSystem<?> system, Config config) {
    return new FlappingPoolStore();
  }

  @Override
  protected InMemoryPoolStore inner() {
    return inner;
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window) {
    if (CLOCK.get().instant().isBefore(FLAP_UNTIL.get())) {
      int n = REFUSED.computeIfAbsent(taskId + "|" + window, k -> new AtomicInteger()).getAndIncrement();
      return CompletableFuture.completedFuture(n % 2 == 0
          ? Answer.refused(pools.get(0), PoolWaitReason.RATE, Duration.ofMillis(200))
          : Answer.refused(pools.get(0), PoolWaitReason.FULL, null));
    }
    return inner.acquire(pools, taskId, window);
  }
}
