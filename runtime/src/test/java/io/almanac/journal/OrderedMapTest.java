package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The trigger's tasks and active set, and a task's remembered event ids, answer "is it there?" by a
 * lookup, counted in key comparisons: the same with 100 entries as with 100,000 (pcollections'
 * ordered collections walked every entry, once per fire on the trigger).
 */
class OrderedMapTest {

  /** A key that counts how often it is compared. */
  record Key(int n, AtomicLong compared) {
    @Override
    public boolean equals(Object o) {
      compared.incrementAndGet();
      return o instanceof Key k && k.n == n;
    }

    @Override
    public int hashCode() {
      return Integer.hashCode(n);
    }
  }

  private static long comparisonsToFind(int size) {
    AtomicLong compared = new AtomicLong();
    OrderedMap<Key, String> map = OrderedMap.empty();
    for (int i = 0; i < size; i++) {
      map = map.plus(new Key(i, compared), "v" + i);
    }
    compared.set(0);
    assertTrue(map.containsKey(new Key(size / 2, compared)));
    assertTrue(map.keySet().contains(new Key(size - 1, compared)));
    assertFalse(map.containsKey(new Key(-1, compared)));
    assertEquals("v7", map.get(new Key(7, compared)));
    return compared.get();
  }

  @Test
  @DisplayName("principle 10: containsKey is a lookup: as many comparisons with 100,000 entries as with 100")
  void containsKeyDoesNotWalk() {
    long small = comparisonsToFind(100);
    long large = comparisonsToFind(100_000);
    assertTrue(large <= 8, "comparisons with 100,000 entries: " + large);
    assertEquals(small, large, "comparisons with 100 and with 100,000 entries");
  }

  @Test
  @DisplayName("keeps insertion order, a key present keeps its place, and the oldest key is first")
  void keepsInsertionOrder() {
    OrderedMap<String, Integer> m = OrderedMap.<String, Integer>empty().plus("c", 1).plus("a", 2).plus("b", 3).plus("c", 4);
    assertEquals(List.of("c", "a", "b"), new ArrayList<>(m.keySet()));
    assertEquals(4, m.get("c"));
    assertEquals("c", m.firstKey());
    assertEquals(List.of("a", "b"), new ArrayList<>(m.minus("c").keySet()));
    Map<String, Integer> plain = new LinkedHashMap<>(m);
    assertEquals(m, OrderedMap.from(plain));
    assertEquals(plain, m);
  }

  @Test
  @DisplayName("the trigger's state keeps its tasks in an OrderedMap and its active set sorted, also from a snapshot's plain collections")
  void triggerStateCollections() {
    TriggerJournal.State s = new TriggerJournal.State(new LinkedHashMap<>(), Instant.EPOCH, new java.util.HashSet<>(List.of("b", "a")), null);
    assertTrue(s.tasks() instanceof OrderedMap<?, ?>);
    assertTrue(s.active() instanceof org.pcollections.TreePSet<?>, "active: " + s.active().getClass());
    assertEquals(List.of("a", "b"), new ArrayList<>(s.active()));
    assertEquals(List.of("a", "c"), new ArrayList<>(s.activeAfter(List.of("c"), List.of("b"))));
  }
}
