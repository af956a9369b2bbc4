package io.almanac;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.time.Duration;
import java.time.Instant;

/**
 * What happens to windows that were due while nothing fired them: the node was down, the trigger
 * failed over, the clock stepped forward (R12, R14). Such a window is handed to the task as a
 * catch-up, never as an on-time fire, and this policy decides it:
 *
 * <ul>
 *   <li>due longer ago than the {@code horizon}: not run, recorded as {@link InstanceStatus#MISSED}
 *       with {@link MissReason#OUTSIDE_HORIZON} (R14);
 *   <li>otherwise, with mode {@link Mode#NONE} (the default, R12): not run, recorded as MISSED with
 *       {@link MissReason#BACKFILL_NOT_ALLOWED};
 *   <li>with mode {@link Mode#ALL}: run as a {@link RunKind#BACKFILL}, rate-limited with the rest of
 *       the backlog (R17), unless a {@code span} is set and {@code now >= window start + span}
 *       (then MISSED, {@link MissReason#BACKFILL_NOT_ALLOWED}).
 * </ul>
 *
 * Windows due while the task was paused are recorded as skipped ({@link SkipReason#PAUSED}), not
 * caught up. Failed attempts are the {@link RetryPolicy}'s business, and an operator's backfill of a
 * range ({@code Almanac.backfill}) runs whatever this policy says.
 *
 * @param mode whether missed windows inside the horizon run
 * @param horizon how far back from now a missed window's due instant may lie, from zero to {@link
 *     #MAX_HORIZON}; zero means no missed window is ever run
 * @param span for {@link Mode#ALL}: how long after the window's start a catch-up may still run, at
 *     most {@link #MAX_SPAN}; zero for no such limit (and always zero for {@link Mode#NONE})
 */
public record CatchUpPolicy(Mode mode, Duration horizon, Duration span) {

  /** Whether missed windows run. */
  public enum Mode {
    /** Not run: every missed window is recorded as MISSED with its reason (the default, R12). */
    NONE,
    /** Every missed window inside the horizon (and span, if set) runs as a backfill. */
    ALL
  }

  /** The default horizon: 24 hours. */
  public static final Duration DEFAULT_HORIZON = Duration.ofHours(24);

  /**
   * The longest horizon accepted: 366 days. Bounded so that {@code now - horizon} can never
   * overflow, and a missed year is the most anyone catches up.
   */
  public static final Duration MAX_HORIZON = Duration.ofDays(366);

  /** The longest span of {@link #withinSpan(Duration)}: 366 days. */
  public static final Duration MAX_SPAN = Duration.ofDays(366);

  /** Missed windows are not run (R12); the horizon is 24 hours. */
  public static final CatchUpPolicy DEFAULT = new CatchUpPolicy(Mode.NONE, DEFAULT_HORIZON, Duration.ZERO);

  /**
   * Validates the components; used by the factories and when a persisted spec is read ({@code
   * SpecRecord.CatchUp#toPolicy}). A null span reads as zero.
   *
   * @param mode whether missed windows inside the horizon run
   * @param horizon how far back from now a due window may lie, zero or more
   * @param span for {@link Mode#ALL}, how long after the window's start a catch-up may run, or zero
   * @throws InvalidSpecException naming {@code catchUp.mode}, {@code catchUp.horizon} or {@code
   *     catchUp.span} and the value refused
   */
  public CatchUpPolicy {
    if (mode == null) {
      throw new InvalidSpecException("catchUp.mode", null, "must be one of NONE, ALL");
    }
    if (horizon == null || horizon.isNegative()) {
      throw new InvalidSpecException("catchUp.horizon", horizon, "must be zero or more");
    }
    if (horizon.compareTo(MAX_HORIZON) > 0) {
      throw new InvalidSpecException("catchUp.horizon", horizon, "must be at most " + MAX_HORIZON);
    }
    span = span == null ? Duration.ZERO : span;
    if (span.isNegative()) {
      throw new InvalidSpecException("catchUp.span", span, "must be positive, or zero for no limit");
    }
    if (span.compareTo(MAX_SPAN) > 0) {
      throw new InvalidSpecException("catchUp.span", span, "must be at most " + MAX_SPAN);
    }
    if (mode == Mode.NONE && !span.isZero()) {
      throw new InvalidSpecException("catchUp.span", span, "not used by catch-up mode NONE, must be zero");
    }
  }

  /**
   * Missed windows are not run (R12), horizon 24 hours. Same as {@link #DEFAULT}.
   *
   * @return the policy
   */
  public static CatchUpPolicy none() {
    return DEFAULT;
  }

  /**
   * Every missed window inside the default horizon of 24 hours runs as a backfill.
   *
   * @return the policy
   */
  public static CatchUpPolicy all() {
    return new CatchUpPolicy(Mode.ALL, DEFAULT_HORIZON, Duration.ZERO);
  }

  /**
   * This policy with another horizon.
   *
   * @param limit how far back from now a missed window's due instant may lie, from zero to {@link
   *     #MAX_HORIZON}
   * @return the policy
   * @throws InvalidSpecException ({@code catchUp.horizon}) if null, negative or above {@link
   *     #MAX_HORIZON}
   */
  public CatchUpPolicy withHorizon(Duration limit) {
    return new CatchUpPolicy(mode, limit, span);
  }

  /**
   * This policy, running a missed window only while {@code now < window start + span} (R13's
   * windowed strategy: e.g. a span of 24 hours catches a daily task up only during its business
   * day). Only for {@link Mode#ALL}.
   *
   * @param limit positive, at most {@link #MAX_SPAN}
   * @return the policy
   * @throws InvalidSpecException ({@code catchUp.span}) if null, not positive, above {@link
   *     #MAX_SPAN}, or set on mode NONE
   */
  public CatchUpPolicy withinSpan(Duration limit) {
    if (limit == null || limit.isNegative() || limit.isZero()) {
      throw new InvalidSpecException("catchUp.span", limit, "must be positive");
    }
    return new CatchUpPolicy(mode, horizon, limit);
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

  /**
   * Whether a missed window inside the horizon runs now, as far as the mode and the span go: never
   * for {@link Mode#NONE}; for {@link Mode#ALL} while {@code now < windowStart + span} when a span
   * is set, always otherwise.
   *
   * @param now the current instant
   * @param windowStart the start of the missed window
   * @return true if the window may run now
   */
  public boolean allowsCatchUpAt(Instant now, Instant windowStart) {
    return switch (mode) {
      case NONE -> false;
      case ALL -> !hasSpan() || now.isBefore(windowStart.plus(span));
    };
  }

  /**
   * Whether catch-ups are limited to a span after the window's start.
   *
   * @return true if {@link #span()} is set (not zero)
   */
  @JsonIgnore
  public boolean hasSpan() {
    return !span.isZero();
  }
}
