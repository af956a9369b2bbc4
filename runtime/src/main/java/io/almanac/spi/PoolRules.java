package io.almanac.spi;

import io.almanac.PoolWaitReason;
import io.almanac.spi.PoolStore.Answer;
import io.almanac.spi.PoolStore.Limit;
import java.time.Duration;
import java.time.Instant;

/**
 * The admission rule every store applies, pure: a pool admits when it is not paused, has fewer
 * holds than max-concurrent and (with a rate of N per period) a start would not make more than N
 * starts in any span of one period. Shared by the stores, so that they agree.
 *
 * <p>The rate is a sliding window, not a token bucket: a store keeps the pool's recent start
 * instants (at most N are ever needed) and a start is allowed when fewer than N are recorded or
 * the N-th latest is more than one period ago. So at most N starts fall in any closed interval of
 * one period, whenever it begins, also after an idle spell (no burst above N).
 */
public final class PoolRules {
  private PoolRules() {}

  /**
   * @param name the pool
   * @param limit its limits
   * @param holds its live holds
   * @param nthLatestStart with a rate of N per period: the N-th latest start the pool recorded, or null
   *     when it recorded fewer than N (see {@link #untilStart}); ignored without a rate
   * @param pausedUntil its pause's end, or null
   * @param now the store's time
   * @return the refusal, or null when the pool has room
   */
  public static Answer check(String name, Limit limit, int holds, Instant nthLatestStart, Instant pausedUntil,
      Instant now) {
    if (pausedUntil != null && pausedUntil.isAfter(now)) {
      return Answer.refused(name, PoolWaitReason.PAUSED, Duration.between(now, pausedUntil));
    }
    if (holds >= limit.maxConcurrent()) {
      return Answer.refused(name, PoolWaitReason.FULL, null);
    }
    Duration wait = limit.hasRate() ? untilStart(limit, nthLatestStart, now) : null;
    if (wait != null) {
      return Answer.refused(name, PoolWaitReason.RATE, wait);
    }
    return null;
  }

  /**
   * The rate's rule: with N starts per period, a start at {@code now} is allowed when the pool
   * recorded fewer than N starts, or its N-th latest start is more than one period before {@code
   * now} (then no closed interval of one period holds more than N starts).
   *
   * @param limit a pool with a rate
   * @param nthLatestStart the N-th latest start the pool recorded, or null when fewer than N
   * @param now the time now
   * @return null when a start is allowed now, else how long until it is (at least a millisecond)
   */
  public static Duration untilStart(Limit limit, Instant nthLatestStart, Instant now) {
    if (nthLatestStart == null) {
      return null;
    }
    Duration since = Duration.between(nthLatestStart, now);
    if (since.compareTo(limit.ratePer()) > 0) {
      return null;
    }
    Duration left = limit.ratePer().minus(since.isNegative() ? Duration.ZERO : since); // no overflow: both >= 0
    return left.compareTo(MAX_WAIT) >= 0 ? MAX_WAIT : left.plus(MILLI); // just past the period: allowed then
  }

  private static final Duration MILLI = Duration.ofMillis(1);
  /** The longest wait {@link #untilStart} answers (a period that long is never reached; no overflow). */
  private static final Duration MAX_WAIT = Duration.ofSeconds(Long.MAX_VALUE / 2);

  /**
   * @param day the pool's day as the store counts it
   * @param budget the budget to check, or null for none
   * @return the refusal when the day's cost reached the budget plus its raises, or null
   */
  public static Answer checkBudget(PoolStore.PoolDay day, PoolStore.Budget budget) {
    if (budget == null || !io.almanac.journal.BudgetRules.spent(day.costMicros(), budget.budgetMicros(), day.raisedMicros())) {
      return null;
    }
    return Answer.budgetSpent(day);
  }

  /**
   * @param a an amount in millionths
   * @param b another
   * @return their sum, at most {@link Long#MAX_VALUE}
   */
  public static long plus(long a, long b) {
    return io.almanac.journal.BudgetRules.plus(a, b);
  }
}
