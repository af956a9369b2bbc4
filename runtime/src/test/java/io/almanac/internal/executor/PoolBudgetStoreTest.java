package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.PoolSpec;
import io.almanac.PoolWaitReason;
import io.almanac.spi.PoolStore;
import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The in-memory store's pool budgets, the gate's days and budgets per pool, and when a wait is told
 * to its entity again (pure: no actors, time passed in).
 */
class PoolBudgetStoreTest {
  private static final Instant T0 = Instant.parse("2027-01-04T10:00:00Z");
  private static final LocalDate DAY = LocalDate.of(2027, 1, 4);

  private static <T> T get(java.util.concurrent.CompletionStage<T> s) {
    return s.toCompletableFuture().join();
  }

  @Test
  @DisplayName("in memory: usage sums per pool and day; a spent day refuses BUDGET (before room) with the day; a raise "
      + "and the next day admit again")
  void inMemoryBudgets() {
    InMemoryPoolStore store = new InMemoryPoolStore(new SettableClock(T0));
    get(store.declare(List.of(new PoolStore.Limit("openai", 1, 0, null), new PoolStore.Limit("search", 5, 0, null))));
    get(store.addUsage("openai", DAY, 600_000));
    get(store.addUsage("openai", DAY, 400_000));
    get(store.addUsage("openai", DAY.plusDays(1), 1));
    assertEquals(new PoolStore.PoolDay("openai", DAY, 1_000_000, 2, 0), get(store.dayUsage("openai", DAY)));
    assertEquals(PoolStore.PoolDay.empty("search", DAY), get(store.dayUsage("search", DAY)));
    Map<String, PoolStore.Budget> budgets = Map.of("openai", new PoolStore.Budget(DAY, 1_000_000));
    get(store.acquire(List.of("openai"), "other", "w", Map.of())); // the pool is full now
    PoolStore.Answer a = get(store.acquire(List.of("search", "openai"), "t", "w", budgets));
    assertFalse(a.admitted());
    assertEquals(PoolWaitReason.BUDGET, a.reason(), "the budget is checked before the room");
    assertEquals(1_000_000, a.day().costMicros());
    assertEquals(Map.of("openai", 1, "search", 0), get(store.inUse()), "nothing taken");
    assertEquals(PoolWaitReason.FULL, get(store.acquire(List.of("openai"), "t", "w", Map.of("openai",
        new PoolStore.Budget(DAY, 1_000_001)))).reason());
    get(store.release("other", "w"));
    assertEquals(new PoolStore.PoolDay("openai", DAY, 1_000_000, 2, 250_000), get(store.raiseBudget("openai", DAY, 250_000)));
    assertTrue(get(store.acquire(List.of("openai"), "t", "w", budgets)).admitted(), "raised to 1.25");
    get(store.release("t", "w"));
    get(store.addUsage("openai", DAY, 250_000));
    assertEquals(PoolWaitReason.BUDGET, get(store.acquire(List.of("openai"), "t", "w2", budgets)).reason());
    assertTrue(get(store.acquire(List.of("openai"), "t", "w2", Map.of("openai", new PoolStore.Budget(DAY.plusDays(1),
        1_000_000)))).admitted(), "the next day starts afresh");
    assertTrue(store.raiseBudget("nope", DAY, 1).toCompletableFuture().isCompletedExceptionally(),
        "an undeclared pool is refused");
  }

  @Test
  @DisplayName("the gate: a pool's day in its zone, and budgets only for pools that have one")
  void gateDaysAndBudgets() {
    PoolSpec berlin = PoolSpec.of("openai", 2).withBudgetPerDay(new BigDecimal("5.00")).withZone(ZoneId.of("Europe/Berlin"));
    PoolGate gate = new PoolGate(new InMemoryPoolStore(new SettableClock(T0)), PoolSettings.DEFAULT,
        Map.of("openai", berlin, "search", PoolSpec.of("search", 1)), null);
    Instant lateUtc = Instant.parse("2027-01-04T23:30:00Z"); // 00:30 on the 5th in Berlin
    assertEquals(LocalDate.of(2027, 1, 5), gate.dayOf("openai", lateUtc));
    assertEquals(LocalDate.of(2027, 1, 4), gate.dayOf("search", lateUtc));
    assertEquals(Map.of("openai", new PoolStore.Budget(LocalDate.of(2027, 1, 5), 5_000_000)),
        gate.budgets(List.of("search", "openai"), lateUtc));
    assertEquals(Map.of(), gate.budgets(List.of("search"), lateUtc));
    assertTrue(gate.alertBudget("openai", DAY));
    assertFalse(gate.alertBudget("openai", DAY), "once per pool per day");
    assertTrue(gate.alertBudget("openai", DAY.plusDays(1)));
  }

  @Test
  @DisplayName("a wait is told once per pool and reason in the window's attempt: a changed reason or pool is told, a "
      + "reason told before in the attempt is not (a flip back, a new pause, a passed until), nor any poll; a new "
      + "attempt starts afresh")
  void waitToldOncePerPoolAndReason() {
    PoolGate gate = new PoolGate(new InMemoryPoolStore(new SettableClock(T0)), PoolSettings.DEFAULT,
        Map.of("p", PoolSpec.of("p", 1), "q", PoolSpec.of("q", 1)), null);
    assertTrue(gate.tellWait("t|w", "p", PoolWaitReason.PAUSED), "the wait's first refusal");
    assertFalse(gate.tellWait("t|w", "p", PoolWaitReason.PAUSED), "the same wait");
    assertTrue(gate.tellWait("t|w", "p", PoolWaitReason.RATE), "the pause ended; the rate refuses now");
    assertFalse(gate.tellWait("t|w", "p", PoolWaitReason.RATE), "its until passed: not told again");
    assertFalse(gate.tellWait("t|w", "p", PoolWaitReason.PAUSED), "a new pause: PAUSED was told in this attempt");
    assertTrue(gate.tellWait("t|w", "q", PoolWaitReason.FULL), "another pool");
    assertTrue(gate.tellWait("t|w", "p", PoolWaitReason.FULL), "another reason of the first pool");
    assertTrue(gate.tellWait("u|w", "p", PoolWaitReason.PAUSED), "another window");
    for (int i = 0; i < 100; i++) { // polls and flips go on: nothing more is told
      assertFalse(gate.tellWait("t|w", i % 2 == 0 ? "q" : "p", PoolWaitReason.FULL));
    }
    gate.held("t|w", List.of("q")); // admitted: the next wait is the next attempt's
    assertTrue(gate.tellWait("t|w", "p", PoolWaitReason.PAUSED));
    gate.waitEnded("t|w");
    assertTrue(gate.tellWait("t|w", "p", PoolWaitReason.PAUSED), "a wait that ended without an admission is forgotten");
    gate.forgetWaitsUnless(k -> false);
    assertTrue(gate.tellWait("t|w", "p", PoolWaitReason.PAUSED), "a window that left the executor is forgotten");
  }

  @Test
  @DisplayName("a flapping pool (rate-limited and full in turn, every 100 ms for 60 s, 28 attempts): each attempt's "
      + "waits told are bounded by its distinct reasons, not by its flips")
  void flappingPoolTellsEachReasonOnce() {
    PoolGate gate = new PoolGate(new InMemoryPoolStore(new SettableClock(T0)), PoolSettings.DEFAULT,
        Map.of("llm", PoolSpec.of("llm", 2).withRate(4, java.time.Duration.ofSeconds(10))), null);
    java.util.Map<String, Integer> told = new java.util.HashMap<>();
    int refusals = 0;
    for (int attempt = 0; attempt < 28; attempt++) {
      String key = "t|w" + (attempt % 7); // 7 windows, 4 attempts each
      for (int ms = 0; ms < 60_000; ms += 100) {
        PoolWaitReason reason = (ms / 100) % 2 == 0 ? PoolWaitReason.RATE : PoolWaitReason.FULL;
        refusals++;
        if (gate.tellWait(key, "llm", reason)) {
          told.merge(key + "#" + attempt, 1, Integer::sum);
        }
      }
      gate.held(key, List.of("llm")); // the attempt is admitted at last
    }
    assertEquals(28 * 600, refusals);
    assertEquals(28, told.size());
    told.forEach((attempt, n) -> assertEquals(2, n, attempt + ": RATE and FULL, once each"));
  }
}
