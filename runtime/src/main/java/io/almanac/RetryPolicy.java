package io.almanac;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;

/**
 * How many times a failed window is retried before it becomes {@link InstanceStatus#FINAL_FAILED}
 * and goes to the manual-intervention queue (R15). Retries only happen when the task's {@link
 * BackfillPolicy} allows backfill; that policy also says when each retry is due.
 *
 * @param maxRetries the number of retries after the first attempt, 0 to {@value
 *     #MAX_ALLOWED_RETRIES}; 0 means a failure is final at once
 */
public record RetryPolicy(int maxRetries) {

  /** The default retry cap: 3 retries (R15). */
  public static final int DEFAULT_MAX_RETRIES = 3;

  /** The largest retry cap accepted. */
  public static final int MAX_ALLOWED_RETRIES = 1000;

  /** Three retries. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(DEFAULT_MAX_RETRIES);

  /**
   * Validates the cap.
   *
   * @param maxRetries the number of retries after the first attempt
   * @throws InvalidSpecException ({@code maxRetries}) if negative or above {@value
   *     #MAX_ALLOWED_RETRIES}
   */
  public RetryPolicy {
    if (maxRetries < 0) {
      throw new InvalidSpecException("maxRetries", maxRetries, "must be >= 0");
    }
    if (maxRetries > MAX_ALLOWED_RETRIES) {
      throw new InvalidSpecException("maxRetries", maxRetries, "must be <= " + MAX_ALLOWED_RETRIES);
    }
  }

  /**
   * Derives a retry cap from how long recovery may take (R16): the largest {@code n} such that the
   * back-off of {@code n} retries, {@code firstDelay * (1 + m + m^2 + ... + m^(n-1))}, fits in
   * {@code acceptableRecovery}. For 1 hour, 5 minutes and x2 it is 3: the retries wait 5 + 10 + 20
   * = 35 minutes, and a 4th after another 40 minutes would come at 75 minutes, past the hour. With
   * {@code multiplier} 1.0 the delays are constant. The result is at most {@value
   * #MAX_ALLOWED_RETRIES}; it is 0 when even the first delay does not fit. Run time of the attempts
   * themselves is not counted.
   *
   * @param acceptableRecovery how long after the first failure the last retry may start, positive
   * @param firstDelay the delay before the first retry, positive
   * @param multiplier the factor between consecutive delays, from 1.0 to {@link
   *     BackfillPolicy#MAX_MULTIPLIER}
   * @return the retry cap
   * @throws InvalidSpecException naming {@code acceptableRecovery}, {@code firstDelay} or {@code
   *     multiplier}
   */
  public static int capFor(Duration acceptableRecovery, Duration firstDelay, double multiplier) {
    checkPositive("acceptableRecovery", acceptableRecovery);
    checkPositive("firstDelay", firstDelay);
    if (!(multiplier >= 1.0 && multiplier <= BackfillPolicy.MAX_MULTIPLIER)) {
      throw new InvalidSpecException(
          "multiplier", multiplier, "must be a number from 1.0 to " + BackfillPolicy.MAX_MULTIPLIER);
    }
    // Decimal arithmetic, so that back-off ending exactly at the limit counts as fitting
    // (e.g. 0.1 s ten times is exactly one second); doubles could land a hair above it.
    BigDecimal limit = seconds(acceptableRecovery);
    BigDecimal delay = seconds(firstDelay);
    BigDecimal factor = new BigDecimal(multiplier);
    BigDecimal total = BigDecimal.ZERO;
    int n = 0;
    while (n < MAX_ALLOWED_RETRIES && total.add(delay).compareTo(limit) <= 0) {
      total = total.add(delay);
      delay = delay.multiply(factor, MathContext.DECIMAL128);
      n++;
    }
    return n;
  }

  /**
   * A retry policy whose cap is {@link #capFor(Duration, Duration, double)}.
   *
   * @param acceptableRecovery how long after the first failure the last retry may start, positive
   * @param firstDelay the delay before the first retry, positive
   * @param multiplier the factor between consecutive delays, at least 1.0
   * @return the policy
   * @throws InvalidSpecException naming {@code acceptableRecovery}, {@code firstDelay} or {@code
   *     multiplier}
   */
  public static RetryPolicy forRecoveryTime(
      Duration acceptableRecovery, Duration firstDelay, double multiplier) {
    return new RetryPolicy(capFor(acceptableRecovery, firstDelay, multiplier));
  }

  private static BigDecimal seconds(Duration d) {
    return BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9));
  }

  private static void checkPositive(String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidSpecException(field, d, "must be positive");
    }
  }
}
