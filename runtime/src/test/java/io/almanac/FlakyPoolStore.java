package io.almanac;

import com.typesafe.config.Config;
import io.almanac.internal.executor.InMemoryPoolStore;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;

/** A pool store (named by almanac.pool-store.class in a test) whose acquires fail while {@link #DOWN} is set. */
public final class FlakyPoolStore extends DelegatingPoolStore {
  static final AtomicBoolean DOWN = new AtomicBoolean();
  static final AtomicInteger FAILED = new AtomicInteger();
  private final InMemoryPoolStore inner = new InMemoryPoolStore(Clock.systemUTC());

  /**
   * @param system the node's system
   * @param config the almanac.pool-store block
   * @return a store
   */
  public static FlakyPoolStore create(ActorSystem<?> system, Config config) {
    return new FlakyPoolStore();
  }

  @Override
  protected InMemoryPoolStore inner() {
    return inner;
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window) {
    if (DOWN.get()) {
      FAILED.incrementAndGet();
      return CompletableFuture.failedFuture(new java.sql.SQLException("connection refused (test)"));
    }
    return inner.acquire(pools, taskId, window);
  }
}
