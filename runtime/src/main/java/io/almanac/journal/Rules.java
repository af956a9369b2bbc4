package io.almanac.journal;

import java.time.Duration;
import java.time.Instant;

/**
 * Two of the runtime's rules, pure, for readers of a journal (the audit, tools) that re-tell what
 * the runtime decided and may not import its internals: when a window fired on time (R12, R14), and
 * when an attempt's lease is over (R23). The runtime decides with the same comparisons: its trigger
 * fires a window later than the on-time grace as a catch-up, and a lease holds up to, not including,
 * its end.
 */
public final class Rules {

  /**
   * The default on-time grace, {@code almanac.task.recent-fire-grace} in the runtime's
   * {@code reference.conf}: how late a window may be fired and still count as on time.
   */
  public static final Duration DEFAULT_ON_TIME_GRACE = Duration.ofSeconds(60);

  private Rules() {}

  /**
   * @param dueAt when the window was due
   * @param at when it was fired (or started)
   * @param grace the on-time grace (e.g. {@link #DEFAULT_ON_TIME_GRACE})
   * @return whether {@code at} is at most {@code grace} after {@code dueAt} (earlier is on time too)
   */
  public static boolean onTime(Instant dueAt, Instant at, Duration grace) {
    return Duration.between(dueAt, at).compareTo(grace) <= 0;
  }

  /**
   * @param leaseUntil the lease's end
   * @param now the time
   * @return whether the lease is over at {@code now}: a lease holds up to, not including, its end
   */
  public static boolean leaseOver(Instant leaseUntil, Instant now) {
    return !now.isBefore(leaseUntil);
  }

  /**
   * @param t a recorded time-out
   * @return whether its lease had ended when it was recorded (rather than its attempt being timed out
   *     before, e.g. its executor found gone); false when the event lacks its lease's end or its time
   */
  public static boolean leaseEnded(TaskJournal.AttemptTimedOut t) {
    return t.leaseUntil() != null && t.at() != null && leaseOver(t.leaseUntil(), t.at());
  }
}
