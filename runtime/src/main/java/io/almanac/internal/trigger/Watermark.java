package io.almanac.internal.trigger;

import io.almanac.journal.TriggerJournal.Progressed;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The trigger's watermark and the activity changes not yet written. Every fire due at or before the
 * watermark was acknowledged: it stays below the earliest fire in flight and below the earliest
 * entry due but not yet taken off the queue, it moves only forward (a registration that starts
 * before it takes it back, {@link #reset}), and it is written with the tasks that became active or
 * idle at most once per persist-interval ({@link #advance}). After downtime or a failover the
 * windows due since the persisted watermark are handed over as catch-up (R12, R14).
 *
 * <p>Pure: time is passed in. Mutable and not thread-safe: owned by one trigger actor, which alone
 * calls it, and never shared. INTERNAL API.
 */
final class Watermark {

  private final Duration persistInterval;
  private final Set<String> becameActive = new HashSet<>();
  private final Set<String> becameIdle = new HashSet<>();
  private Instant current;
  private Instant lastPersist = Instant.EPOCH;

  /** @param persistInterval the shortest time between two writes */
  Watermark(Duration persistInterval) {
    this.persistInterval = persistInterval;
  }

  /** The watermark in memory (ahead of the persisted one until it is written), or null before the first tick. */
  Instant current() {
    return current;
  }

  /** Starts again from the persisted watermark: after a recovery, and after a registration (which may take it back). */
  void reset(Instant persisted) {
    current = persisted;
  }

  /**
   * A task entity said whether the task has active windows.
   *
   * @param taskId the task
   * @param active whether it has
   * @param knownActive whether the persisted state holds it as active
   */
  void reported(String taskId, boolean active, boolean knownActive) {
    if (active) {
      becameIdle.remove(taskId);
      if (!knownActive) {
        becameActive.add(taskId);
      }
    } else {
      becameActive.remove(taskId);
      if (knownActive) {
        becameIdle.add(taskId);
      }
    }
  }

  /** A task's activity is written by itself (an operator's mark, a removal): no change of it is pending any more. */
  void forget(String taskId) {
    becameActive.remove(taskId);
    becameIdle.remove(taskId);
  }

  /**
   * Moves the watermark to what is acknowledged at {@code now}, and says what to write.
   *
   * @param persisted the persisted watermark, or null
   * @param now the time
   * @param earliestInFlight the earliest due instant of the fires in flight, or null
   * @param head the due instant of the queue's earliest entry, or null
   * @return the progress to persist, or null: nothing moved, or the last write is too recent
   */
  Progressed advance(Instant persisted, Instant now, Instant earliestInFlight, Instant head) {
    Instant candidate = now;
    if (earliestInFlight != null) {
      candidate = min(candidate, earliestInFlight.minusNanos(1));
    }
    if (head != null && !head.isAfter(now)) {
      candidate = min(candidate, head.minusNanos(1));
    }
    if (current == null || candidate.isAfter(current)) {
      current = candidate;
    }
    boolean moved = persisted == null || current.isAfter(persisted);
    boolean activity = !becameActive.isEmpty() || !becameIdle.isEmpty();
    if ((!moved && !activity) || Duration.between(lastPersist, now).compareTo(persistInterval) < 0) {
      return null;
    }
    lastPersist = now;
    List<String> active = List.copyOf(becameActive);
    List<String> idle = List.copyOf(becameIdle);
    becameActive.clear();
    becameIdle.clear();
    return new Progressed(current, active, idle, now);
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }
}
