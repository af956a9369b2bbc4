package io.almanac.persistence.instances;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Decides when a hole in the journal's ordering may be passed. Pure; not thread-safe.
 *
 * <p>A missing ordering number {@code m} below a committed row's number was allocated before that
 * row's (the journal's sequence or identity only grows), so the insert that took {@code m} had
 * begun when the projection first saw the journal's head at or above {@code m}. If that insert has
 * not committed {@code gapWait} later, it is taken as rolled back (or its events deleted) and the
 * hole is passed: {@link #settledThrough(Instant)} is the highest head observed at least
 * {@code gapWait} ago. Every hole is thus waited for once, however many holes a batch holds, and a
 * replay of an old journal waits once in all.
 */
final class GapTracker {

  private record Seen(Instant at, long head) {}

  private final Duration gapWait;
  private final Deque<Seen> seen = new ArrayDeque<>();
  private long settled = 0;

  GapTracker(Duration gapWait) {
    this.gapWait = gapWait;
  }

  /**
   * Notes the journal's head (its highest ordering) as observed now.
   *
   * @param now when it was observed
   * @param head the highest ordering then
   */
  void observe(Instant now, long head) {
    Seen last = seen.peekLast();
    if (last == null || head > last.head()) {
      seen.addLast(new Seen(now, head));
    }
  }

  /**
   * @param now the current time
   * @return the ordering through which every hole may be passed: the highest head observed at least
   *     {@code gapWait} before {@code now} (0 when none was)
   */
  long settledThrough(Instant now) {
    Instant limit = now.minus(gapWait);
    while (!seen.isEmpty() && !seen.peekFirst().at().isAfter(limit)) {
      settled = Math.max(settled, seen.pollFirst().head());
    }
    return settled;
  }

  /** Forgets every observation (another instance moved the offset). */
  void reset() {
    seen.clear();
    settled = 0;
  }
}
