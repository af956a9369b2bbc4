package io.almanac;

import com.typesafe.config.Config;
import io.almanac.internal.executor.InMemoryPoolStore;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A pool store (named by almanac.pool-store.class in a test) whose acquires do not answer while
 * {@link #HANG} is set: each is kept, and {@link #commitLate} takes their holds and answers them
 * (an admission that commits after its caller gave up).
 */
public final class HangingPoolStore extends DelegatingPoolStore {
  static final AtomicBoolean HANG = new AtomicBoolean();
  static final AtomicInteger ASKED = new AtomicInteger();
  static final List<Runnable> PENDING = new CopyOnWriteArrayList<>();
  /** Late acquires ({@link #commitLate}) that the inner store admitted: each took a hold. */
  static final AtomicInteger LATE_ADMITTED = new AtomicInteger();
  static volatile InMemoryPoolStore inner;

  /** Resets the statics (each test starts a new node). */
  static void reset() {
    HANG.set(false);
    ASKED.set(0);
    LATE_ADMITTED.set(0);
    PENDING.clear();
    inner = new InMemoryPoolStore(Clock.systemUTC());
  }

  /** Takes the holds of the acquires kept so far, and answers them. */
  static void commitLate() {
    List<Runnable> all = List.copyOf(PENDING);
    PENDING.removeAll(all);
    all.forEach(Runnable::run);
  }

  /**
   * @param system the node's system
   * @param config the almanac.pool-store block
   * @return a store
   */
  public static HangingPoolStore create(ActorSystem<?> system, Config config) {
    return new HangingPoolStore();
  }

  @Override
  protected InMemoryPoolStore inner() {
    return inner;
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window) {
    ASKED.incrementAndGet();
    if (HANG.get()) {
      CompletableFuture<Answer> answer = new CompletableFuture<>();
      PENDING.add(() -> inner.acquire(pools, taskId, window).whenComplete((a, e) -> {
        if (e != null) {
          answer.completeExceptionally(e);
        } else {
          if (a.admitted()) {
            LATE_ADMITTED.incrementAndGet();
          }
          answer.complete(a);
        }
      }));
      return answer;
    }
    return inner.acquire(pools, taskId, window);
  }
}
