package io.almanac.internal.trigger;

import io.almanac.RefusedException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The trigger's fires sent and not yet acknowledged: each fire is delivered at least once (sent
 * again until its task answers; the entity deduplicates by window, R5), a fire already in flight is
 * not sent twice, and the earliest due instant among them holds the watermark back. Which answers
 * end a fire and which send it again is {@link Answer}.
 *
 * <p>Pure. Mutable and not thread-safe: owned by one trigger actor, which alone calls it, and never
 * shared; in memory only (after a restart the watermark says what to fire again). INTERNAL API.
 */
final class InFlightFires {

  /** What a fire's answer means for its delivery, and how the node's meters count it. */
  enum Answer {
    /** The task decided (scheduled, skipped, missed...): the fire is done. */
    ACKNOWLEDGED("acknowledged", false),
    /** Refused because the task was removed while the fire was in flight: done, fired no more. */
    REMOVED("refused", false),
    /** Refused by a task that has no spec: done, with a warning. */
    UNKNOWN_TASK("refused", false),
    /** Refused for another reason: sent again after the retry delay. */
    REFUSED_RETRIED("refused", true),
    /** No answer (a timeout, a lost message, a crashed node): sent again after the retry delay. */
    UNANSWERED("unanswered", true),
    /** The retry delay of an earlier answer passed: send it again if it is still in flight. */
    RETRY_DUE(null, false);

    private final String meter;
    private final boolean retried;

    Answer(String meter, boolean retried) {
      this.meter = meter;
      this.retried = retried;
    }

    /** How the node's meters count it, or null: not an answer. */
    String meter() {
      return meter;
    }

    /** Whether the fire is sent again after the retry delay (it stays in flight). */
    boolean retried() {
      return retried;
    }

    /** Whether the fire is done (no longer in flight). */
    boolean done() {
      return this == ACKNOWLEDGED || this == REMOVED || this == UNKNOWN_TASK;
    }

    /**
     * @param outcome what the task decided, or null
     * @param error why it did not, or null (both null: the retry delay passed)
     * @return what the answer means
     */
    static Answer of(String outcome, Throwable error) {
      if (outcome != null) {
        return ACKNOWLEDGED;
      }
      if (error == null) {
        return RETRY_DUE;
      }
      if (error instanceof RefusedException r) {
        return r.reason() == RefusedException.Reason.REMOVED ? REMOVED
            : r.reason() == RefusedException.Reason.UNKNOWN_TASK ? UNKNOWN_TASK : REFUSED_RETRIED;
      }
      return UNANSWERED;
    }
  }

  private final Map<String, FireKey> byId = new HashMap<>();
  /** How many fires in flight were due at each instant: the first key holds the watermark back. */
  private final TreeMap<Instant, Integer> byDue = new TreeMap<>();
  private long sent;

  /**
   * @param key a fire to send
   * @return whether it is to be sent: false when a fire of the same window is in flight already
   */
  boolean add(FireKey key) {
    if (byId.putIfAbsent(key.id(), key) != null) {
      return false;
    }
    byDue.merge(key.dueAt(), 1, Integer::sum);
    return true;
  }

  /** Counts a fire sent (a first send or a retry). */
  void sent() {
    sent++;
  }

  /** Whether a fire of this window is in flight. */
  boolean contains(FireKey key) {
    return byId.containsKey(key.id());
  }

  /** The fire of this window is done: it no longer holds the watermark back. */
  void done(FireKey key) {
    FireKey gone = byId.remove(key.id());
    if (gone != null) {
      byDue.computeIfPresent(gone.dueAt(), (k, v) -> v <= 1 ? null : v - 1);
    }
  }

  /** The earliest due instant among the fires in flight, or null. */
  Instant earliestDue() {
    return byDue.isEmpty() ? null : byDue.firstKey();
  }

  /** Fires in flight. */
  int size() {
    return byId.size();
  }

  /** Fires sent since start, retries included. */
  long sentCount() {
    return sent;
  }
}
