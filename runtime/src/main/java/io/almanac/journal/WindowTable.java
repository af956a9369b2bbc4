package io.almanac.journal;

import io.almanac.InstanceStatus;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.pcollections.HashTreePMap;
import org.pcollections.PMap;
import org.pcollections.TreePSet;

/**
 * A task's hot windows: an immutable map by key with structural sharing (a new table after one
 * change shares all but a few nodes with the old one), and the indexes a fire needs, kept as the
 * table changes, so that no event and no fire walks every hot window:
 *
 * <ul>
 *   <li>the live windows (PENDING, RUNNING, RETRY_WAIT, WAITING, and the FAILED or TIMED_OUT that a
 *       write turns into a retry or a final failure), by start: what fires, leases, retries, offers
 *       and gates look at;
 *   <li>every window by start (a walk from the newest back: the streak of skips);
 *   <li>the windows that are done, by start, in two groups (those that ran: SUCCEEDED, RESOLVED; the
 *       others: SKIPPED, MISSED, CANCELLED), of which the oldest start leaves first by count, and by
 *       end (those past the hot state's age);
 *   <li>the FINAL_FAILED windows (the intervention queue).
 * </ul>
 *
 * A change costs O(log n) in the number of hot windows; reading the live windows costs their number.
 * Every walk over all windows is counted ({@link WorkMeter}). As a {@link Map} it is read-only and
 * walks its windows oldest first (by start, then key). INTERNAL API.
 */
public final class WindowTable extends AbstractMap<String, WindowState> {

  /** A window's place in a by-start order. */
  private record Pos(Instant at, String key) {}

  private static final Comparator<Pos> ORDER = Comparator.comparing(Pos::at, Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(Pos::key);

  /** By end: a window without an end never leaves by age, so it sorts last. */
  private static final Comparator<Pos> END_ORDER = Comparator.comparing(Pos::at, Comparator.nullsLast(Comparator.naturalOrder()))
      .thenComparing(Pos::key);

  private static final TreePSet<Pos> NO_POS = TreePSet.empty(ORDER);

  /** No windows. */
  public static final WindowTable EMPTY = new WindowTable(HashTreePMap.empty(), NO_POS, NO_POS, NO_POS, NO_POS,
      TreePSet.empty(END_ORDER), NO_POS, new int[InstanceStatus.values().length]);

  private final PMap<String, WindowState> byKey;
  private final TreePSet<Pos> all;
  private final TreePSet<Pos> live;
  private final TreePSet<Pos> ran;
  private final TreePSet<Pos> other;
  private final TreePSet<Pos> doneByEnd;
  private final TreePSet<Pos> finalFailed;
  /** How many windows have each status, by ordinal (never written after construction). */
  private final int[] counts;

  private WindowTable(PMap<String, WindowState> byKey, TreePSet<Pos> all, TreePSet<Pos> live, TreePSet<Pos> ran,
      TreePSet<Pos> other, TreePSet<Pos> doneByEnd, TreePSet<Pos> finalFailed, int[] counts) {
    this.byKey = byKey;
    this.all = all;
    this.live = live;
    this.ran = ran;
    this.other = other;
    this.doneByEnd = doneByEnd;
    this.finalFailed = finalFailed;
    this.counts = counts;
  }

  /** The counts with one more (or, with -1, one fewer) window of this status: a copy, O(statuses). */
  private int[] counted(InstanceStatus s, int by) {
    int[] c = counts.clone();
    c[s.ordinal()] += by;
    return c;
  }

  /**
   * @param windows windows by key (a snapshot's, or a plain map)
   * @return them as a table (the same object when it is one)
   */
  public static WindowTable of(Map<String, WindowState> windows) {
    if (windows instanceof WindowTable t) {
      return t;
    }
    WindowTable t = EMPTY;
    if (windows != null) {
      for (WindowState w : windows.values()) {
        t = t.with(w);
      }
    }
    return t;
  }

  /** Whether a status belongs to the live index. */
  static boolean live(InstanceStatus s) {
    return !s.isTerminal() && s != InstanceStatus.FINAL_FAILED;
  }

  private static boolean ran(InstanceStatus s) {
    return s == InstanceStatus.SUCCEEDED || s == InstanceStatus.RESOLVED;
  }

  /**
   * @param w a window (new, or a new version of one with its key)
   * @return the table with it in
   */
  public WindowTable with(WindowState w) {
    WindowTable t = without(w.key());
    Pos at = new Pos(w.start(), w.key());
    InstanceStatus s = w.status();
    return new WindowTable(t.byKey.plus(w.key(), w), t.all.plus(at),
        live(s) ? t.live.plus(at) : t.live,
        s.isTerminal() && ran(s) ? t.ran.plus(at) : t.ran,
        s.isTerminal() && !ran(s) ? t.other.plus(at) : t.other,
        s.isTerminal() ? t.doneByEnd.plus(new Pos(w.end(), w.key())) : t.doneByEnd,
        s == InstanceStatus.FINAL_FAILED ? t.finalFailed.plus(at) : t.finalFailed, t.counted(s, 1));
  }

  /**
   * @param key a window's key
   * @return the table without it (this one when it is not in)
   */
  public WindowTable without(String key) {
    WindowState w = byKey.get(key);
    if (w == null) {
      return this;
    }
    Pos at = new Pos(w.start(), key);
    InstanceStatus s = w.status();
    return new WindowTable(byKey.minus(key), all.minus(at),
        live(s) ? live.minus(at) : live,
        s.isTerminal() && ran(s) ? ran.minus(at) : ran,
        s.isTerminal() && !ran(s) ? other.minus(at) : other,
        s.isTerminal() ? doneByEnd.minus(new Pos(w.end(), key)) : doneByEnd,
        s == InstanceStatus.FINAL_FAILED ? finalFailed.minus(at) : finalFailed, counted(s, -1));
  }

  @Override
  public WindowState get(Object key) {
    return byKey.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return byKey.containsKey(key);
  }

  @Override
  public int size() {
    return byKey.size();
  }

  @Override
  public boolean isEmpty() {
    return byKey.isEmpty();
  }

  /** @return the live windows, oldest first (their number is small: what runs, waits or is queued) */
  public Iterable<WindowState> live() {
    return () -> windows(live.iterator());
  }

  /** @return how many windows are live */
  public int liveCount() {
    return live.size();
  }

  /** @return the FINAL_FAILED windows, oldest first */
  public Iterable<WindowState> finalFailed() {
    return () -> windows(finalFailed.iterator());
  }

  /** @return how many windows are FINAL_FAILED */
  public int finalFailedCount() {
    return finalFailed.size();
  }

  /**
   * @param status a status
   * @return how many of the table's windows have it, in O(1) (kept as windows change: the node's
   *     gauges of PENDING, WAITING and RUNNING windows read it after every write)
   */
  public int count(InstanceStatus status) {
    return counts[status.ordinal()];
  }

  /**
   * @return when the newest SUCCEEDED window of the table last changed (its success), or null: a walk
   *     of the windows that ran from the newest back, stopped at the first SUCCEEDED (RESOLVED ones are
   *     passed over)
   */
  public Instant lastSucceededAt() {
    var it = ran.descendingIterator();
    while (it.hasNext()) {
      WindowState w = byKey.get(it.next().key());
      if (w != null && w.status() == InstanceStatus.SUCCEEDED) {
        return w.updatedAt();
      }
    }
    return null;
  }

  /** @return every window, newest first (a walk from the newest back, stopped early by its caller) */
  public Iterable<WindowState> newestFirst() {
    return () -> windows(all.descendingIterator());
  }

  /**
   * @param at an instant
   * @return the windows that start at or before it, latest start first
   */
  public Iterable<WindowState> startingAtOrBefore(Instant at) {
    return () -> windows(all.headSet(new Pos(at, "\uffff"), true).descendingIterator());
  }

  /**
   * @param from the first start (inclusive)
   * @param to the end (exclusive)
   * @return the windows that start in [from, to), oldest first
   */
  public Iterable<WindowState> startingIn(Instant from, Instant to) {
    if (!from.isBefore(to)) {
      return java.util.List.of();
    }
    return () -> windows(all.subSet(new Pos(from, ""), new Pos(to, "")).iterator());
  }

  /**
   * @return the done window that leaves the hot state first by count: the one with the oldest start
   *     (then key), whatever its terminal status, so that a window newer than any kept done window
   *     never leaves before it (R30)
   */
  WindowState nextToLeave() {
    Pos p = ran.isEmpty() ? (other.isEmpty() ? null : other.first())
        : other.isEmpty() || ORDER.compare(ran.first(), other.first()) <= 0 ? ran.first() : other.first();
    return p == null ? null : byKey.get(p.key());
  }

  /** @return how many windows are done (terminal: SUCCEEDED, RESOLVED, SKIPPED, MISSED, CANCELLED) */
  public int doneCount() {
    return ran.size() + other.size();
  }

  /** @return the done window with the earliest end, or null */
  WindowState earliestEnded() {
    return doneByEnd.isEmpty() ? null : byKey.get(doneByEnd.first().key());
  }

  private Iterator<WindowState> windows(Iterator<Pos> positions) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return positions.hasNext();
      }

      @Override
      public WindowState next() {
        WorkMeter.visited(1);
        return byKey.get(positions.next().key());
      }
    };
  }

  @Override
  public Set<Entry<String, WindowState>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public Iterator<Entry<String, WindowState>> iterator() {
        Iterator<WindowState> it = windows(all.iterator());
        return new Iterator<>() {
          @Override
          public boolean hasNext() {
            return it.hasNext();
          }

          @Override
          public Entry<String, WindowState> next() {
            WindowState w = it.next();
            return new SimpleImmutableEntry<>(w.key(), w);
          }
        };
      }

      @Override
      public int size() {
        return byKey.size();
      }
    };
  }
}
