package io.almanac;

import io.almanac.internal.executor.InMemoryPoolStore;
import io.almanac.spi.PoolStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The base of the test pool stores that misbehave in one way (fail, hang, flap): everything they do
 * not change goes to an in-memory store.
 */
abstract class DelegatingPoolStore implements PoolStore {

  /** @return the store that answers what this one does not change */
  protected abstract InMemoryPoolStore inner();

  @Override
  public CompletionStage<Void> declare(List<Limit> pools) {
    return inner().declare(pools);
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window) {
    return inner().acquire(pools, taskId, window);
  }

  @Override
  public CompletionStage<Void> release(String taskId, String window) {
    return inner().release(taskId, window);
  }

  @Override
  public CompletionStage<Void> pause(String pool, Duration pause) {
    return inner().pause(pool, pause);
  }

  @Override
  public CompletionStage<Map<String, Integer>> inUse() {
    return inner().inUse();
  }

  @Override
  public void close() {}
}
