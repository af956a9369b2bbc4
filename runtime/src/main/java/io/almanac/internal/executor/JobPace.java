package io.almanac.internal.executor;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * The pace of the node's job slots, as observed, and the prefetch rule it feeds (docs/start-ahead.md):
 * rings of the latest jobs' own times, of the latest slot holds (a slot's take to its release: the
 * job and the message that tells the executor it ended; the slot does not wait for its result's
 * write), of the latest start round trips (an
 * admission to its entity's answer that the attempt is started: the journal write of the start) and
 * of the instants slots took attempts. Not thread-safe: owned by the executor actor. INTERNAL API.
 */
final class JobPace {
  private final Duration[] jobs = new Duration[16];
  private int nextJob;
  private final Duration[] holds = new Duration[16];
  private int nextHold;
  private final Duration[] trips = new Duration[16];
  private int nextTrip;
  private final Instant[] takes = new Instant[32];
  private int nextTake;

  /** A job that took {@code took} gave its slot back after holding it {@code held} (the job, not its result's write). */
  void ended(Duration took, Duration held) {
    jobs[nextJob] = took;
    nextJob = (nextJob + 1) % jobs.length;
    holds[nextHold] = held;
    nextHold = (nextHold + 1) % holds.length;
  }

  /** The ring of the jobs' own times, in storage order; a null where it is not full yet. */
  List<Duration> jobs() {
    return Arrays.asList(jobs);
  }

  /** An admitted attempt was answered started {@code took} after its admission. */
  void startTook(Duration took) {
    trips[nextTrip] = took;
    nextTrip = (nextTrip + 1) % trips.length;
  }

  /** A slot took a started attempt at {@code at}. */
  void taken(Instant at) {
    takes[nextTake] = at;
    nextTake = (nextTake + 1) % takes.length;
  }

  /** The ring of slot holds, in storage order; a null where it is not full yet. */
  List<Duration> holds() {
    return Arrays.asList(holds);
  }

  /** The ring of start round trips, in storage order; a null where none was seen yet. */
  List<Duration> trips() {
    return Arrays.asList(trips);
  }

  /** The ring of slot takes, in storage order; a null where it is not full yet. */
  List<Instant> takes() {
    return Arrays.asList(takes);
  }

  /**
   * How many started attempts may wait for a slot (the prefetch): as many as the slots take in
   * about one job time, at the pace they are observed to take attempts, and never more than
   * max-concurrent x prefetch-per-slot.
   *
   * <ul>
   *   <li>None while a ring is not full yet (a new node), or while a recent or a running job (its
   *       own time) reached {@code maxJob}: behind long jobs a started attempt would wait that long,
   *       RUNNING without running.
   *   <li>Otherwise the slots' observed pace, attempts taken into slots per second (the ring of
   *       takes up to {@code now}, so an idle node's pace decays), times one job time: the longer
   *       of the mean slot hold (the job; not the write of its result) and the mean start round trip
   *       (the write of the start: the prefetch is there to cover it). A prefetched attempt then
   *       waits about one job time for its slot; with the slots busy, the slots take about
   *       max-concurrent x (start round trip / slot hold) in that time.
   * </ul>
   *
   * @param maxConcurrent job slots
   * @param perSlot prefetch-per-slot (0: off)
   * @param maxJob prefetch-max-job
   * @param jobs the last jobs' own times (a null: the ring is not full yet)
   * @param running how long each job in a slot has run (its own time once it ended)
   * @param holds the last slot holds (a null: the ring is not full yet)
   * @param trips the last start round trips (nulls where none was seen)
   * @param takes the instants of the last slot takes (a null: the ring is not full yet)
   * @param now the time now
   * @return started attempts that may wait for a slot
   */
  static int ahead(int maxConcurrent, int perSlot, Duration maxJob, List<Duration> jobs, List<Duration> running,
      List<Duration> holds, List<Duration> trips, List<Instant> takes, Instant now) {
    if (perSlot == 0) {
      return 0;
    }
    for (List<Duration> times : List.of(jobs, running)) {
      for (Duration d : times) {
        if (d == null || d.compareTo(maxJob) >= 0) {
          return 0;
        }
      }
    }
    long hold = mean(holds);
    Instant oldest = null;
    for (Instant t : takes) {
      if (t == null) {
        return 0;
      }
      if (oldest == null || t.isBefore(oldest)) {
        oldest = t;
      }
    }
    if (hold < 0) {
      return 0;
    }
    long jobTime = Math.max(hold, Math.max(0, mean(trips)));
    long span = Math.max(1, Duration.between(oldest, now).toNanos());
    double takesPerNano = (double) takes.size() / span;
    long paced = Math.round(takesPerNano * jobTime);
    return (int) Math.min((long) maxConcurrent * perSlot, Math.max(0, paced));
  }

  /** The mean of the ring's times in nanoseconds, skipping nulls; -1 when a null is there and none is not. */
  private static long mean(List<Duration> ring) {
    long sum = 0;
    int n = 0;
    boolean gap = false;
    for (Duration d : ring) {
      if (d == null) {
        gap = true;
      } else {
        sum += d.toNanos();
        n++;
      }
    }
    return n == 0 ? (gap ? -1 : 0) : sum / n;
  }
}
