package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.PoolWaitReason;
import io.almanac.RunKind;
import io.almanac.spi.PoolRules;
import io.almanac.spi.PoolStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The executor's admission of windows of tasks that name pools (pure: no actors, time passed in), and the pools' rule. */
class AdmissionPoolsTest {
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final List<Duration> NONE_RUNNING = List.of();

  private static Admission<String> admission(int slots) {
    ExecutorSettings s = new ExecutorSettings(slots, 10, 0, Duration.ofSeconds(1), 1000, 1000, 1000, 1000,
        Duration.ofMillis(50), Duration.ofSeconds(5), 3, Duration.ofMillis(100), Duration.ofSeconds(10),
        Duration.ofSeconds(30), 10, "");
    return new Admission<>(s, T0, new Admission.Watch<>() {
      @Override
      public void watch(String task) {}

      @Override
      public void unwatch(String task) {}
    });
  }

  private static List<String> windows(List<Admission.Offered<String>> admitted) {
    return admitted.stream().map(Admission.Offered::window).toList();
  }

  @Test
  @DisplayName("a refused window goes back to the front of its queue; the pool is skipped until its block ends, others go on")
  void refusedWindowKeepsItsPlace() {
    Admission<String> a = admission(10);
    a.offer("t", "w1", RunKind.FIRST, "e", false, List.of("llm"));
    a.offer("t", "w2", RunKind.FIRST, "e", false, List.of("llm"));
    a.offer("u", "w3", RunKind.FIRST, "f", false, List.of());
    List<Admission.Offered<String>> first = a.admit(NONE_RUNNING, T0);
    assertEquals(List.of("w1", "w2", "w3"), windows(first));
    assertTrue(first.get(0).pooled());
    assertFalse(first.get(2).pooled());
    // the store refused w2 (full) and w1 (full): both back in the queue, in their order
    assertTrue(a.requeue("t|w2", "llm", T0.plusSeconds(2), PoolWaitReason.FULL));
    assertTrue(a.requeue("t|w1", "llm", T0.plusSeconds(2), PoolWaitReason.FULL));
    assertTrue(a.isQueued("t|w1") && a.isQueued("t|w2"));
    a.offer("v", "w4", RunKind.FIRST, "g", false, List.of());
    assertEquals(List.of("w4"), windows(a.admit(NONE_RUNNING, T0.plusSeconds(1))), "the blocked pool is skipped, not the queue");
    assertEquals(T0.plusSeconds(2), a.nextUnblock(T0.plusSeconds(1)));
    assertEquals(List.of("w1", "w2"), windows(a.admit(NONE_RUNNING, T0.plusSeconds(2))), "in their order, once unblocked");
    assertEquals(java.util.Map.of(), a.waitingPerPool());
  }

  @Test
  @DisplayName("a release of one of this node's holds lifts a FULL block at once; a pause or a rate block stays")
  void releaseLiftsFullOnly() {
    Admission<String> a = admission(10);
    a.offer("t", "w1", RunKind.FIRST, "e", false, List.of("llm"));
    a.offer("t", "w2", RunKind.FIRST, "e", false, List.of("img"));
    a.admit(NONE_RUNNING, T0);
    a.requeue("t|w1", "llm", T0.plusSeconds(60), PoolWaitReason.FULL);
    a.requeue("t|w2", "img", T0.plusSeconds(60), PoolWaitReason.PAUSED);
    assertEquals(java.util.Map.of("llm", 1, "img", 1), a.waitingPerPool());
    a.unblockFull(List.of("llm", "img"));
    assertEquals(List.of("w1"), windows(a.admit(NONE_RUNNING, T0.plusSeconds(1))));
  }

  @Test
  @DisplayName("fresh windows of a pool go before its catch-up and backfill")
  void freshBeforeBacklog() {
    Admission<String> a = admission(1);
    a.offer("t", "old", RunKind.BACKFILL, "e", false, List.of("llm"));
    a.offer("t", "retry", RunKind.RETRY, "e", false, List.of("llm"));
    a.offer("u", "new", RunKind.FIRST, "f", false, List.of("llm"));
    assertEquals(List.of("new"), windows(a.admit(NONE_RUNNING, T0)));
    a.requeue("u|new", "llm", T0.plusSeconds(1), PoolWaitReason.FULL);
    assertEquals(List.of(), windows(a.admit(NONE_RUNNING, T0)), "the pool is blocked: nothing of it is asked");
    assertEquals(List.of("new"), windows(a.admit(NONE_RUNNING, T0.plusSeconds(1))), "still first once unblocked");
  }

  @Test
  @DisplayName("a reservation freed meanwhile (its entity restarted) is not requeued, but the pool is blocked all the same")
  void requeueOfAForgottenWindow() {
    Admission<String> a = admission(1);
    a.offer("t", "w1", RunKind.FIRST, "e", false, List.of("llm"));
    a.admit(NONE_RUNNING, T0);
    a.forget(o -> o.taskId().equals("t"));
    assertFalse(a.requeue("t|w1", "llm", T0.plusSeconds(5), PoolWaitReason.FULL));
    assertFalse(a.isQueued("t|w1"));
    assertEquals(T0.plusSeconds(5), a.nextUnblock(T0));
  }

  @Test
  @DisplayName("a pool's ended block (nothing of its pool queued) neither hides another pool's later block nor wakes for "
      + "the past: the window waiting for the other pool is woken at its block's end")
  void endedBlockHidesNoLaterBlock() {
    Admission<String> a = admission(10);
    a.block("img", T0.plusSeconds(1), PoolWaitReason.PAUSED); // paused by a throttled result: nothing of img queued
    a.offer("t", "w1", RunKind.FIRST, "e", false, List.of("llm"));
    a.admit(NONE_RUNNING, T0);
    a.requeue("t|w1", "llm", T0.plusSeconds(10), PoolWaitReason.RATE);
    assertEquals(T0.plusSeconds(1), a.nextUnblock(T0));
    Instant wake = T0.plusSeconds(1); // the wake for img's pause: w1 is passed over (llm's rate), img is not looked at
    assertEquals(List.of(), a.admit(NONE_RUNNING, wake));
    assertEquals(T0.plusSeconds(10), a.nextUnblock(wake), "woken again for llm's block, not for img's ended pause");
    assertEquals(List.of("w1"), windows(a.admit(NONE_RUNNING, T0.plusSeconds(10))));
    assertNull(a.nextUnblock(T0.plusSeconds(10)), "nothing blocked: nothing to wake for");
  }

  /**
   * The rule of the pools' wake-ups, over every mix of blocks (none, ended, ending now, ahead) of two
   * pools, windows naming one or both, and room or none: planned at the instant of an admission, the
   * next wake-up is never at or before that instant (no wake-up for the past, which spun every 1 ms),
   * and is at the latest when the block of every window the admission passed over ends (no window
   * waits for a pool with nothing armed to ask the store again).
   */
  @Test
  @DisplayName("the next pool wake-up, planned at an admission's instant, is after it and no later than the end of the "
      + "block of any window that admission passed over, whatever the blocks, the pools named and the room")
  void wakeUpRule() {
    List<Duration> offsets = java.util.Arrays.asList(null, Duration.ofSeconds(-1), Duration.ZERO, Duration.ofMillis(1),
        Duration.ofSeconds(1), Duration.ofSeconds(10));
    List<List<String>> named = List.of(List.of("llm"), List.of("img"), List.of("img", "llm"), List.of("llm", "img"));
    Instant now = T0.plusSeconds(60);
    int cases = 0;
    for (Duration llm : offsets) {
      for (Duration img : offsets) {
        for (boolean room : List.of(true, false)) {
          for (int queued = 0; queued < 1 << named.size(); queued++) { // which windows are queued: each subset
            Admission<String> a = admission(room ? 10 : 1);
            if (!room) {
              a.offer("busy", "w", RunKind.FIRST, "b", false, List.of());
              assertEquals(1, a.admit(NONE_RUNNING, T0).size()); // its slot stays reserved: no room
            }
            for (int i = 0; i < named.size(); i++) {
              if ((queued & 1 << i) != 0) {
                a.offer("t" + i, "w", RunKind.FIRST, "e" + i, false, named.get(i));
              }
            }
            if (llm != null) {
              a.block("llm", now.plus(llm), PoolWaitReason.RATE);
            }
            if (img != null) {
              a.block("img", now.plus(img), PoolWaitReason.PAUSED);
            }
            a.admit(NONE_RUNNING, now);
            List<Admission.Skipped<String>> skipped = a.takeSkipped();
            Instant next = a.nextUnblock(now);
            String what = "llm " + llm + ", img " + img + ", room " + room + ", queued " + Integer.toBinaryString(queued)
                + ": next " + next + ", passed over " + skipped;
            assertTrue(next == null || next.isAfter(now), "no wake-up for the past: " + what);
            for (Admission.Skipped<String> k : skipped) {
              assertTrue(next != null && !next.isAfter(k.block().until()), "woken by the block's end: " + what);
            }
            cases++;
          }
        }
      }
    }
    assertEquals(6 * 6 * 2 * 16, cases);
  }

  @Test
  @DisplayName("the pools' rule: paused, then full, then rate; the rate allows a start when fewer than N are recorded or "
      + "the N-th latest is more than a period ago")
  void poolRule() {
    PoolStore.Limit limit = new PoolStore.Limit("p", 2, 60, Duration.ofMinutes(1));
    assertNull(PoolRules.check("p", limit, 1, null, null, T0), "fewer than N starts recorded");
    assertEquals(PoolWaitReason.PAUSED, PoolRules.check("p", limit, 5, T0, T0.plusSeconds(9), T0).reason());
    assertEquals(Duration.ofSeconds(9), PoolRules.check("p", limit, 5, T0, T0.plusSeconds(9), T0).retryAfter());
    assertEquals(PoolWaitReason.FULL, PoolRules.check("p", limit, 2, null, T0.minusSeconds(1), T0).reason());
    PoolStore.Answer rate = PoolRules.check("p", limit, 0, T0.minusSeconds(30), null, T0);
    assertEquals(PoolWaitReason.RATE, rate.reason());
    assertEquals(Duration.ofSeconds(30).plusMillis(1), rate.retryAfter(), "just past the N-th latest start's period");
    assertEquals(PoolWaitReason.RATE, PoolRules.check("p", limit, 0, T0.minusSeconds(60), null, T0).reason(),
        "exactly a period ago: a closed interval of one period would hold N + 1");
    assertNull(PoolRules.check("p", limit, 0, T0.minusSeconds(60).minusMillis(1), null, T0));
    assertEquals(Duration.ofMinutes(1).plusMillis(1), PoolRules.untilStart(limit, T0.plusSeconds(5), T0),
        "a clock that went back waits a whole period, not more");
    PoolStore.Limit huge = new PoolStore.Limit("h", 1, 1, Duration.ofSeconds(Long.MAX_VALUE));
    assertTrue(PoolRules.untilStart(huge, T0, T0).compareTo(Duration.ofDays(365L * 1_000_000)) > 0, "no overflow");
    assertNull(PoolRules.check("p", new PoolStore.Limit("p", 2, 0, null), 0, T0, null, T0), "no rate: no rate rule");
  }

  @Test
  @DisplayName("the in-memory store: all pools or none, rate, pause, release; and what one admission costs there")
  void inMemoryStore() throws Exception {
    Clock clock = Clock.fixed(T0, ZoneOffset.UTC);
    InMemoryPoolStore store = new InMemoryPoolStore(clock);
    store.declare(List.of(new PoolStore.Limit("a", 5, 0, null), new PoolStore.Limit("b", 1, 0, null),
        new PoolStore.Limit("r", 100, 1, Duration.ofHours(1)), new PoolStore.Limit("big", 1_000_000, 0, null)));
    assertTrue(store.acquire(List.of("b"), "t", "0").toCompletableFuture().get().admitted());
    assertEquals("b", store.acquire(List.of("a", "b"), "t", "1").toCompletableFuture().get().pool());
    assertEquals(0, store.inUse().toCompletableFuture().get().get("a"), "all or none");
    assertTrue(store.acquire(List.of("r"), "t", "2").toCompletableFuture().get().admitted());
    assertEquals(PoolWaitReason.RATE, store.acquire(List.of("r"), "t", "3").toCompletableFuture().get().reason());
    store.pause("a", Duration.ofMinutes(1));
    assertEquals(PoolWaitReason.PAUSED, store.acquire(List.of("a"), "t", "4").toCompletableFuture().get().reason());
    store.release("t", "0");
    assertTrue(store.acquire(List.of("b"), "t", "5").toCompletableFuture().get().admitted());
    int n = 200_000;
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      store.acquire(List.of("big"), "t", "w" + i);
      store.release("t", "w" + i);
    }
    System.out.printf("in-memory pool store: %.2f us per admission and release (mean of %d)%n",
        (System.nanoTime() - t0) / 1000.0 / n, n);
  }
}
