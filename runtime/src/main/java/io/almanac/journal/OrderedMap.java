package io.almanac.journal;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.pcollections.OrderedPMap;

/**
 * An immutable map that keeps its keys in insertion order and shares structure with the map it was
 * built from: pcollections' {@link OrderedPMap}, with {@link #containsKey} answered by a lookup.
 * {@code OrderedPMap} inherits {@code AbstractMap.containsKey}, a walk over every entry (and so does
 * {@code keySet().contains}): on the trigger's 10,000 tasks that walk ran once per fire, and on a task's
 * remembered event ids once per publish. Values are never null. INTERNAL API.
 *
 * @param <K> key
 * @param <V> value (never null)
 */
public final class OrderedMap<K, V> extends AbstractMap<K, V> {

  private static final OrderedMap<Object, Object> EMPTY = new OrderedMap<>(OrderedPMap.empty());

  private final OrderedPMap<K, V> entries;

  private OrderedMap(OrderedPMap<K, V> entries) {
    this.entries = entries;
  }

  /**
   * @param <K> key
   * @param <V> value
   * @return the empty map
   */
  @SuppressWarnings("unchecked")
  public static <K, V> OrderedMap<K, V> empty() {
    return (OrderedMap<K, V>) EMPTY;
  }

  /**
   * @param map entries, in its iteration order (an {@code OrderedMap} is returned as it is)
   * @param <K> key
   * @param <V> value
   * @return an ordered map of them
   */
  @SuppressWarnings("unchecked")
  public static <K, V> OrderedMap<K, V> from(Map<? extends K, ? extends V> map) {
    if (map instanceof OrderedMap<?, ?> o) {
      return (OrderedMap<K, V>) o;
    }
    return map == null || map.isEmpty() ? empty() : OrderedMap.<K, V>empty().plusAll(map);
  }

  /**
   * @param key a key (a key present keeps its place)
   * @param value its value, not null
   * @return the map with it
   */
  public OrderedMap<K, V> plus(K key, V value) {
    return new OrderedMap<>(entries.plus(key, Objects.requireNonNull(value, "value")));
  }

  /**
   * @param map entries to add, in its order
   * @return the map with them
   */
  public OrderedMap<K, V> plusAll(Map<? extends K, ? extends V> map) {
    OrderedPMap<K, V> next = entries;
    for (Map.Entry<? extends K, ? extends V> e : map.entrySet()) {
      next = next.plus(e.getKey(), Objects.requireNonNull(e.getValue(), "value"));
    }
    return new OrderedMap<>(next);
  }

  /**
   * @param key a key
   * @return the map without it
   */
  public OrderedMap<K, V> minus(Object key) {
    return new OrderedMap<>(entries.minus(key));
  }

  /**
   * @param keys keys
   * @return the map without them
   */
  public OrderedMap<K, V> minusAll(Collection<?> keys) {
    return new OrderedMap<>(entries.minusAll(keys));
  }

  /** @return the first key inserted (and still present), or null when empty */
  public K firstKey() {
    return entries.isEmpty() ? null : entries.keySet().iterator().next();
  }

  @Override
  public V get(Object key) {
    return entries.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return entries.get(key) != null;
  }

  @Override
  public int size() {
    return entries.size();
  }

  @Override
  public Set<Map.Entry<K, V>> entrySet() {
    return entries.entrySet();
  }
}
