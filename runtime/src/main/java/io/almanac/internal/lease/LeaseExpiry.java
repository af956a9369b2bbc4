package io.almanac.internal.lease;

import io.almanac.InstanceStatus;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.Transition;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;

/**
 * The one rule of lease expiry (R23): when an attempt's lease is over, and what is recorded then.
 * A lease holds up to, not including, its end: at {@code leaseUntil} it is over. The entity's lease
 * timer (due at {@link #endsAt}), its settling of dead attempts, its results and heartbeats, the
 * trigger's wake-up for a running window and the executor's cancel and drop all ask this class
 * instead of comparing instants themselves. Pure. INTERNAL API.
 */
public final class LeaseExpiry {

  private LeaseExpiry() {}

  /**
   * @param leaseUntil the lease's end
   * @param now the time
   * @return whether the lease is over at {@code now}
   */
  public static boolean over(Instant leaseUntil, Instant now) {
    return io.almanac.journal.Rules.leaseOver(leaseUntil, now); // the one rule, published for the audit
  }

  /**
   * @param w a running window
   * @param now the time
   * @return whether its attempt's lease is over at {@code now}
   */
  public static boolean over(WindowState w, Instant now) {
    return over(w.leaseUntil(), now);
  }

  /**
   * @param w a running window
   * @return when its attempt's lease is over (its lease timer and the trigger's wake-up are due then)
   */
  public static Instant endsAt(WindowState w) {
    return w.leaseUntil();
  }

  /**
   * @param leaseUntil the lease's end
   * @return why an attempt whose lease is over ended, for people and for the job's cancel
   */
  public static String reason(Instant leaseUntil) {
    return "lease expired at " + leaseUntil;
  }

  /**
   * The time-out of a running attempt whose lease is over while its executor runs, settled by the
   * entity (an attempt whose executor is gone is interrupted instead, not timed out). An attempt that
   * ran its whole lease counts with the lease as a (lower bound) duration sample, so a job longer
   * than its lease makes the next lease longer (R23).
   *
   * @param w the running window
   * @param now the time
   * @return the event
   */
  public static AttemptTimedOut timedOut(WindowState w, Instant now) {
    Duration held = null;
    Instant startedAt = w.startedAt() != null ? w.startedAt() : w.updatedAt();
    if (over(w, now) && startedAt != null) {
      held = Duration.between(startedAt, w.leaseUntil());
      held = held.isNegative() ? Duration.ZERO : held;
    }
    return timedOut(w, held, now);
  }

  /**
   * The time-out of a running attempt whose result came after its lease was over.
   *
   * @param w the running window
   * @param reported the duration the job reported
   * @param now the time
   * @return the event
   */
  public static AttemptTimedOut timedOut(WindowState w, Duration reported, Instant now) {
    return Transition.check(w.status(), new AttemptTimedOut(w.key(), w.attempt(), w.leaseUntil(), reported, now));
  }

  /**
   * @param t a recorded time-out
   * @return whether it was a lease that ended (rather than an executor found gone before it)
   */
  public static boolean leaseEnded(AttemptTimedOut t) {
    return io.almanac.journal.Rules.leaseEnded(t);
  }
}
