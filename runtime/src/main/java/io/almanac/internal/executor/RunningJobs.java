package io.almanac.internal.executor;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The attempts that hold a job slot here, by window; those whose job ended in its slot and whose
 * result's report is on its way (they hold no slot: the slot is given back when the job ends, the
 * attempt is tracked until its task acknowledges the result); and the cancelled ones whose thread has
 * not returned (they hold no slot; stuck once they have not returned stuck-after their cancel). Holds
 * no actor; not thread-safe, owned by the executor actor. INTERNAL API.
 */
final class RunningJobs {
  private final Map<String, RunningAttempt> inSlot = new HashMap<>();
  /** Jobs that ended in their slot, their result reported and not acknowledged yet, by window. */
  private final Map<String, RunningAttempt> resultPending = new HashMap<>();
  /** By {@link RunningAttempt#id()}. */
  private final Map<String, RunningAttempt> abandoned = new HashMap<>();
  private int stuck;

  int size() {
    return inSlot.size();
  }

  boolean isEmpty() {
    return inSlot.isEmpty();
  }

  /** Whether an attempt of this window holds a slot, or ended in one and its result is not acknowledged yet. */
  boolean holds(String key) {
    return inSlot.containsKey(key) || resultPending.containsKey(key);
  }

  /** Results of jobs that ended in their slot, reported and not acknowledged yet. */
  int pendingResults() {
    return resultPending.size();
  }

  /**
   * The attempt of this number ended its job in the window's slot: it gives the slot back and waits
   * for its result's acknowledgement.
   *
   * @return it, or null when no attempt of this number holds the slot
   */
  RunningAttempt jobReturned(String key, int attempt) {
    RunningAttempt r = leave(key, attempt);
    if (r != null) {
      resultPending.put(key, r);
    }
    return r;
  }

  /**
   * The task answered the report of this attempt's result (or the report is given to the executor's
   * retries): it is no longer tracked here.
   *
   * @return it, or null when no result of this attempt was pending
   */
  RunningAttempt acknowledged(String key, int attempt) {
    return take(resultPending, key, attempt);
  }

  /** Removes and returns the window's attempt of this number from {@code map}; null (nothing removed) for another. */
  private static RunningAttempt take(Map<String, RunningAttempt> map, String key, int attempt) {
    RunningAttempt r = map.get(key);
    if (r == null || r.attempt != attempt) {
      return null;
    }
    map.remove(key);
    return r;
  }

  /** The attempt of this window and number whose result is pending, or null. */
  RunningAttempt pending(String key, int attempt) {
    RunningAttempt r = resultPending.get(key);
    return r != null && r.attempt == attempt ? r : null;
  }

  /** The attempts whose result is pending (a copy). */
  List<RunningAttempt> pendingNow() {
    return new ArrayList<>(resultPending.values());
  }

  /** Whether the thread of an abandoned attempt of this window has not returned yet (its job may still run). */
  boolean threadRuns(String key) {
    for (RunningAttempt r : abandoned.values()) {
      if (r.item.key().equals(key)) {
        return true;
      }
    }
    return false;
  }

  /** The attempt that holds this window's slot, or null. */
  RunningAttempt get(String key) {
    return inSlot.get(key);
  }

  void add(RunningAttempt r) {
    inSlot.put(r.item.key(), r);
  }

  /** The attempts holding a slot now (a copy: the caller may abandon them as it goes). */
  List<RunningAttempt> inSlotNow() {
    return new ArrayList<>(inSlot.values());
  }

  /**
   * The attempt of this number leaves the window's slot (its job ended).
   *
   * @return it, or null when no attempt of this number holds the slot
   */
  RunningAttempt leave(String key, int attempt) {
    return take(inSlot, key, attempt);
  }

  /**
   * A cancelled job gives up its slot at once, whatever its thread does; it is watched until it
   * returns.
   */
  void abandon(RunningAttempt r, Instant now) {
    inSlot.remove(r.item.key(), r);
    r.inSlot = false;
    r.abandonedAt = now;
    abandoned.put(r.id(), r);
  }

  /**
   * The thread of an abandoned attempt returned.
   *
   * @return the attempt (its {@code stuck} flag says whether it was counted stuck), or null if none
   */
  RunningAttempt returned(String key, int attempt) {
    RunningAttempt gone = abandoned.remove(key + "#" + attempt);
    if (gone != null && gone.stuck) {
      stuck--;
    }
    return gone;
  }

  Collection<RunningAttempt> abandoned() {
    return abandoned.values();
  }

  boolean noneAbandoned() {
    return abandoned.isEmpty();
  }

  int stuck() {
    return stuck;
  }

  /** How long each attempt holding a slot has run (or took, when its job ended and the executor has not heard yet). */
  List<Duration> times(Instant now) {
    List<Duration> times = new ArrayList<>(inSlot.size());
    for (RunningAttempt r : inSlot.values()) {
      Duration took = r.took; // its job ended and the message that frees its slot is on its way
      times.add(took != null ? took : Duration.between(r.startedAt, now));
    }
    return times;
  }

  /** The abandoned attempts whose thread has not returned within {@code stuckAfter}, not counted before: now counted stuck. */
  List<RunningAttempt> newlyStuck(Instant now, Duration stuckAfter) {
    List<RunningAttempt> found = new ArrayList<>();
    for (RunningAttempt r : abandoned.values()) {
      if (r.stuck || now.isBefore(r.abandonedAt.plus(stuckAfter))) {
        continue;
      }
      r.stuck = true;
      stuck++;
      found.add(r);
    }
    return found;
  }

  /** The JOB_STUCK alert's and log line's text; {@code count}: the stuck jobs on this node with it. */
  static String stuckMessage(RunningAttempt r, int count, int maxStuckJobs) {
    return "task '" + r.item.taskId() + "' window '" + r.item.window() + "' attempt " + r.attempt
        + " was cancelled at " + r.abandonedAt + (r.fenced ? " (its node lost its lease)" : "") + " and its job has not "
        + "returned since (it ignores interrupts and cancellation): its thread is stuck (" + count + " stuck on this "
        + "node; not ready past almanac.executor.max-stuck-jobs = " + maxStuckJobs + "). The task's next "
        + "windows run; its result, if it ever comes, is recorded as a late one";
  }
}
