package io.almanac.spi;

import io.almanac.PoolWaitReason;
import io.almanac.spi.PoolStore.Answer;
import io.almanac.spi.PoolStore.Limit;
import java.time.Duration;
import java.time.Instant;

/**
 * The admission rule every store applies, pure: a pool admits when it is not paused, has fewer
 * holds than max-concurrent and (with a rate) a token. Shared by the stores, so
 * that they agree.
 */
public final class PoolRules {
  private PoolRules() {}

  /**
   * @param name the pool
   * @param limit its limits
   * @param holds its live holds
   * @param tokens its bucket's tokens now (refilled)
   * @param pausedUntil its pause's end, or null
   * @param now the store's time
   * @return the refusal, or null when the pool has room
   */
  public static Answer check(String name, Limit limit, int holds, double tokens, Instant pausedUntil, Instant now) {
    if (pausedUntil != null && pausedUntil.isAfter(now)) {
      return Answer.refused(name, PoolWaitReason.PAUSED, Duration.between(now, pausedUntil));
    }
    if (holds >= limit.maxConcurrent()) {
      return Answer.refused(name, PoolWaitReason.FULL, null);
    }
    if (limit.hasRate() && tokens < 1) {
      return Answer.refused(name, PoolWaitReason.RATE, untilToken(limit, tokens));
    }
    return null;
  }

  /**
   * @param day the pool's day as the store counts it
   * @param budget the budget to check, or null for none
   * @return the refusal when the day's cost reached the budget plus its raises, or null
   */
  public static Answer checkBudget(PoolStore.PoolDay day, PoolStore.Budget budget) {
    if (budget == null || day.costMicros() < day.limitMicros(budget.budgetMicros())) {
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
    long s = a + b;
    return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
  }

  /**
   * @param limit a pool with a rate
   * @param tokens its tokens
   * @param refilledAt when they were counted
   * @param now the time now
   * @return the tokens now, at most the rate's permits
   */
  public static double refilled(Limit limit, double tokens, Instant refilledAt, Instant now) {
    if (refilledAt == null || !now.isAfter(refilledAt)) {
      return Math.min(tokens, limit.ratePermits());
    }
    double perNano = limit.ratePermits() / (double) limit.ratePer().toNanos();
    double gained = Duration.between(refilledAt, now).toNanos() * perNano;
    return Math.min(limit.ratePermits(), tokens + gained);
  }

  /**
   * @param limit a pool with a rate
   * @param tokens its tokens now, below one
   * @return how long until the bucket holds one whole token (at least a millisecond)
   */
  public static Duration untilToken(Limit limit, double tokens) {
    double missing = 1 - tokens;
    long nanos = (long) Math.ceil(missing * limit.ratePer().toNanos() / limit.ratePermits());
    return Duration.ofNanos(Math.max(1_000_000, nanos));
  }
}
