package io.almanac;

import java.time.Duration;
import java.time.Instant;

/**
 * How old a missed window may be and still be caught up (R14). Windows that were due while the
 * runtime was down or the task paused, and that are older than the horizon, are not run: they are
 * recorded as {@link InstanceStatus#MISSED}. Whether younger ones run is up to the task's {@link
 * BackfillPolicy}.
 *
 * @param horizon how far back from now a due window may lie, from zero to {@link #MAX_HORIZON};
 *     zero means missed windows are never caught up
 */
public record CatchUpPolicy(Duration horizon) {

  /** The default horizon: 24 hours. */
  public static final Duration DEFAULT_HORIZON = Duration.ofHours(24);

  /**
   * The longest horizon accepted: 366 days. Bounded so that {@code now - horizon} can never
   * overflow, and a missed year is the most anyone catches up.
   */
  public static final Duration MAX_HORIZON = Duration.ofDays(366);

  /** A horizon of 24 hours. */
  public static final CatchUpPolicy DEFAULT = new CatchUpPolicy(DEFAULT_HORIZON);

  /**
   * Validates the horizon.
   *
   * @param horizon how far back from now a due window may lie, zero or more
   * @throws InvalidSpecException ({@code catchUp.horizon}) if null, negative or above {@link
   *     #MAX_HORIZON}
   */
  public CatchUpPolicy {
    if (horizon == null || horizon.isNegative()) {
      throw new InvalidSpecException("catchUp.horizon", horizon, "must be zero or more");
    }
    if (horizon.compareTo(MAX_HORIZON) > 0) {
      throw new InvalidSpecException("catchUp.horizon", horizon, "must be at most " + MAX_HORIZON);
    }
  }

  /**
   * Whether a window due at {@code dueAt} is still inside the horizon: {@code dueAt >= now -
   * horizon} (the edge itself is inside).
   *
   * @param dueAt when the window was due
   * @param now the current instant
   * @return true if the window may still be caught up
   */
  public boolean withinHorizon(Instant dueAt, Instant now) {
    return !dueAt.isBefore(now.minus(horizon));
  }
}
