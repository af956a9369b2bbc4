package io.almanac.internal.executor;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The pace of the latest finished jobs (a ring of their durations) and the start-ahead rule it
 * feeds. Not thread-safe: owned by the executor actor. INTERNAL API.
 */
final class JobPace {
  private final Duration[] recent = new Duration[16];
  private int next;

  /** A job that held its slot ended after {@code took}. */
  void ended(Duration took) {
    recent[next] = took;
    next = (next + 1) % recent.length;
  }

  /** The ring, oldest slot first in storage order; a null where it is not full yet. */
  List<Duration> recent() {
    return Arrays.asList(recent);
  }

  /**
   * How many attempts may be admitted ahead of a free slot. None unless the last jobs to finish (a
   * full ring of them) and every running one took less than start-ahead-max-job; then as many as the
   * slots work off in about start-ahead-max-job at the pace of those jobs
   * (max-concurrent x start-ahead-max-job / their mean time, at least 1 ms), at most
   * start-ahead: a started attempt waits for its slot about start-ahead-max-job at most, and a burst
   * of millisecond jobs starts most of its windows at their fire (one journal row less each).
   *
   * @param maxConcurrent job slots
   * @param cap start-ahead
   * @param maxJob start-ahead-max-job
   * @param recent the last jobs' times (a null: the ring is not full yet)
   * @param running how long each running job has run so far
   * @return attempts that may be admitted ahead of a free slot
   */
  static int ahead(int maxConcurrent, int cap, Duration maxJob, List<Duration> recent, List<Duration> running) {
    if (cap == 0) {
      return 0;
    }
    long sum = 0;
    int n = 0;
    for (List<Duration> jobs : List.of(recent, running)) {
      for (Duration d : jobs) {
        if (d == null || d.compareTo(maxJob) >= 0) {
          return 0;
        }
        sum += d.toNanos();
        n++;
      }
    }
    // the mean: how fast the slots work off a queue (the longest would let one scheduling hiccup of
    // a millisecond job, 30 ms, cut the room by thirty)
    long pace = Math.max(n == 0 ? 0 : sum / n, 1_000_000L);
    double slotsWorth = (double) maxConcurrent * maxJob.toNanos() / pace;
    return (int) Math.min(cap, Math.floor(slotsWorth));
  }
}
