package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.PoolWaitReason;
import io.almanac.spi.PoolStore;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A pool's rate "N per period" means at most N starts in any span of one period, whenever it begins:
 * also right after an idle spell (no token-bucket burst of N plus what refilled meanwhile). The
 * in-memory store with a settable clock (pure: no actors), checked over every sliding window.
 */
class PoolRateWindowTest {
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private static PoolStore.Answer ask(InMemoryPoolStore store, String window) {
    return store.acquire(List.of("llm"), "t", window).toCompletableFuture().join();
  }

  /** @return the most starts any closed interval of one period holds (the worst window begins at a start) */
  static int mostInAnyWindow(List<Instant> starts, Duration period) {
    int most = 0;
    for (int i = 0; i < starts.size(); i++) {
      Instant end = starts.get(i).plus(period);
      int n = 0;
      for (int j = i; j < starts.size() && !starts.get(j).isAfter(end); j++) {
        n++;
      }
      most = Math.max(most, n);
    }
    return most;
  }

  /**
   * Asks every {@code step} from {@code from} for {@code length}, each admitted start released at
   * once (only the rate limits), and returns the admitted instants; each refusal is RATE and its
   * retryAfter is exact: asking just before refuses, asking then admits.
   */
  private static List<Instant> greedy(InMemoryPoolStore store, SettableClock clock, Instant from, Duration length,
      Duration step) {
    List<Instant> admitted = new ArrayList<>();
    int i = 0;
    for (Instant t = from; t.isBefore(from.plus(length)); t = t.plus(step)) {
      clock.set(t);
      String w = "w" + t + "-" + i++;
      PoolStore.Answer a = ask(store, w);
      if (a.admitted()) {
        admitted.add(t);
        store.release("t", w);
      } else {
        assertEquals(PoolWaitReason.RATE, a.reason());
      }
    }
    return admitted;
  }

  @Test
  @DisplayName("4 per 10 s after an idle spell: 4 starts in the first 10 s (not 7), then 4 per 10 s; every sliding "
      + "window of 10 s holds at most 4")
  void idleSpellThenBurst() {
    SettableClock clock = new SettableClock(T0);
    InMemoryPoolStore store = new InMemoryPoolStore(clock);
    Duration period = Duration.ofSeconds(10);
    store.declare(List.of(new PoolStore.Limit("llm", 100, 4, period)));
    // some starts, then an idle spell of ten minutes
    List<Instant> starts = new ArrayList<>(greedy(store, clock, T0, Duration.ofSeconds(30), Duration.ofMillis(100)));
    Instant busy = T0.plus(Duration.ofMinutes(10));
    List<Instant> burst = greedy(store, clock, busy, Duration.ofSeconds(60), Duration.ofMillis(100));
    starts.addAll(burst);
    long first10s = burst.stream().filter(s -> s.isBefore(busy.plus(period))).count();
    assertEquals(4, first10s, "the first 10 s after the idle spell: " + burst);
    assertEquals(4, mostInAnyWindow(starts, period), "at most 4 in any 10 s: " + starts);
    assertTrue(burst.size() >= 20, "a greedy caller gets about 4 per 10 s, not fewer: " + burst.size());
  }

  @Test
  @DisplayName("a RATE refusal's retryAfter is exact: a millisecond earlier is refused, then is admitted")
  void retryAfterIsExact() {
    SettableClock clock = new SettableClock(T0);
    InMemoryPoolStore store = new InMemoryPoolStore(clock);
    store.declare(List.of(new PoolStore.Limit("llm", 100, 3, Duration.ofSeconds(7))));
    for (int i = 0; i < 3; i++) {
      clock.set(T0.plusSeconds(i));
      assertTrue(ask(store, "a" + i).admitted());
    }
    clock.set(T0.plusSeconds(3));
    PoolStore.Answer refused = ask(store, "b");
    assertEquals(PoolWaitReason.RATE, refused.reason());
    Instant then = clock.instant().plus(refused.retryAfter());
    assertEquals(T0.plusSeconds(7).plusMillis(1), then, "just past a period after the oldest of the 3");
    clock.set(then.minusMillis(1));
    assertFalse(ask(store, "b").admitted());
    clock.set(then);
    assertTrue(ask(store, "b").admitted());
  }

  @Test
  @DisplayName("random asks against several rates: no closed interval of one period ever holds more than N starts, and "
      + "every refusal's wait is when the next start is allowed")
  void everySlidingWindow() {
    Random random = new Random(34);
    for (PoolStore.Limit limit : List.of(new PoolStore.Limit("llm", 1000, 1, Duration.ofSeconds(1)),
        new PoolStore.Limit("llm", 1000, 3, Duration.ofSeconds(7)), new PoolStore.Limit("llm", 1000, 60,
            Duration.ofMinutes(1)), new PoolStore.Limit("llm", 1000, 4, Duration.ofSeconds(10)))) {
      SettableClock clock = new SettableClock(T0);
      InMemoryPoolStore store = new InMemoryPoolStore(clock);
      store.declare(List.of(limit));
      List<Instant> starts = new ArrayList<>();
      Instant t = T0;
      for (int i = 0; i < 3000; i++) {
        // mostly quick asks, sometimes an idle spell of up to three periods
        long gap = random.nextInt(20) == 0 ? random.nextLong(limit.ratePer().toMillis() * 3)
            : random.nextLong(Math.max(1, limit.ratePer().toMillis() / limit.ratePermits() / 4));
        t = t.plusMillis(gap);
        clock.set(t);
        PoolStore.Answer a = ask(store, "w" + i);
        if (a.admitted()) {
          starts.add(t);
          store.release("t", "w" + i); // only the rate limits
        } else {
          assertEquals(PoolWaitReason.RATE, a.reason());
          clock.set(t.plus(a.retryAfter()).minusMillis(1));
          assertFalse(ask(store, "x" + i).admitted(), "not before its retryAfter");
          t = t.plus(a.retryAfter());
          clock.set(t);
          assertTrue(ask(store, "y" + i).admitted(), "at its retryAfter");
          starts.add(t);
          store.release("t", "y" + i);
        }
      }
      assertEquals(limit.ratePermits(), mostInAnyWindow(starts, limit.ratePer()), limit + ": " + starts.size());
    }
  }

  @Test
  @DisplayName("the store keeps at most N start instants per pool, and a pool redeclared with a lower N counts the "
      + "starts it knows")
  void boundedMemoryAndRedeclare() {
    SettableClock clock = new SettableClock(T0);
    InMemoryPoolStore store = new InMemoryPoolStore(clock);
    store.declare(List.of(new PoolStore.Limit("llm", 100, 5, Duration.ofSeconds(10))));
    List<Instant> starts = greedy(store, clock, T0, Duration.ofMinutes(5), Duration.ofMillis(10));
    assertEquals(5, mostInAnyWindow(starts, Duration.ofSeconds(10)));
    assertTrue(store.startsKept("llm") <= 5, "bounded by N: " + store.startsKept("llm"));
    clock.set(T0.plus(Duration.ofMinutes(10)));
    for (int i = 0; i < 5; i++) {
      assertTrue(ask(store, "z" + i).admitted());
    }
    store.declare(List.of(new PoolStore.Limit("llm", 100, 2, Duration.ofSeconds(10))));
    assertEquals(PoolWaitReason.RATE, ask(store, "y").reason(), "2 per 10 s: the 5 starts of now still count");
  }
}
