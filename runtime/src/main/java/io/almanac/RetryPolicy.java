package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * What happens after an attempt failed or timed out (R12, R13, R15, R23): how many times the window
 * is retried, when each retry is due (the back-off), and optionally how long after the window's
 * start a retry may still be made. Past the cap, or past the span, the window is {@link
 * InstanceStatus#FINAL_FAILED} and goes to the manual-intervention queue.
 *
 * <p>By default a task is not marked for retry ({@link #none()}, {@code maxRetries} 0): a failure is
 * final at once and recorded with its reason (R12). A task is marked for retry by a policy with
 * {@code maxRetries > 0}: the factories {@link #immediate()}, {@link #delayed(Duration...)} (an
 * explicit list such as 5, 15, 30 minutes) and {@link #exponential(Duration, double, Duration,
 * double)} choose the back-off and cap the retries at {@value #DEFAULT_MAX_RETRIES} (R15); change the
 * cap with {@link #withMaxRetries(int)}, limit retries to a span with {@link #withinSpan(Duration)}.
 * Windows missed while nothing fired them are the {@link CatchUpPolicy}'s business, not this one's.
 *
 * <p>Components that the back-off does not use hold neutral values (empty list, {@link
 * Duration#ZERO}, multiplier 1.0, jitter 0.0); the factories, and {@link #builder()} that names
 * every part, refuse anything else, so equal policies have equal parts.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({"maxRetries", "backoff", "delays", "initialDelay", "multiplier", "maxDelay", "jitter", "span"})
public final class RetryPolicy extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(),
      "maxRetries", "backoff", "delays", "initialDelay", "multiplier", "maxDelay", "jitter", "span");

  @Override
  Parts parts() {
    return PARTS;
  }

  private final int maxRetries;
  private final Backoff backoff;
  private final List<Duration> delays;
  private final Duration initialDelay;
  private final double multiplier;
  private final Duration maxDelay;
  private final double jitter;
  private final Duration span;

  /** When a retry is due after a failure (R13). */
  public enum Backoff {
    /** At the instant the attempt failed. */
    IMMEDIATE,
    /** After the n-th delay of an explicit list, e.g. 5, 15, 30 minutes; the last one repeats. */
    DELAYS,
    /** After {@code initial * multiplier^(n-1)}, capped, spread by jitter. */
    EXPONENTIAL
  }

  /** The cap a factory gives a task it marks for retry: 3 retries (R15). */
  public static final int DEFAULT_MAX_RETRIES = 3;

  /** The largest retry cap accepted. */
  public static final int MAX_ALLOWED_RETRIES = 1000;

  /**
   * The longest delay accepted: each delay of {@link #delayed(Duration...)}, and the initial delay
   * and the cap of {@link #exponential(Duration, double, Duration, double)}: 366 days. Bounded so
   * that {@code failedAt + delay} can never overflow.
   */
  public static final Duration MAX_DELAY = Duration.ofDays(366);

  /** The most delays {@link #delayed(Duration...)} accepts: 100 (the last one repeats anyway). */
  public static final int MAX_DELAYS = 100;

  /** The largest factor between consecutive exponential delays: 100.0. */
  public static final double MAX_MULTIPLIER = 100.0;

  /** The longest span of {@link #withinSpan(Duration)}: 366 days. */
  public static final Duration MAX_SPAN = Duration.ofDays(366);

  /** Not marked for retry, the default (R12): no retries; a failure is final at once. */
  public static final RetryPolicy DEFAULT =
      new RetryPolicy(0, Backoff.IMMEDIATE, List.of(), Duration.ZERO, 1.0, Duration.ZERO, 0.0, Duration.ZERO);

  /**
   * Validates the components for the back-off; used by the factories and {@link Builder#build()}
   * (which a persisted spec is read back with, {@code SpecRecord.Retry#toPolicy}). A null component
   * that the back-off does not use is
   * read as its neutral value, a null span as zero.
   *
   * @param maxRetries the number of retries after the first attempt
   * @param backoff when each retry is due
   * @param delays the explicit delays of {@link Backoff#DELAYS}, or empty
   * @param initialDelay the first exponential delay, or zero
   * @param multiplier the exponential factor, or 1.0
   * @param maxDelay the exponential cap, or zero
   * @param jitter the exponential jitter, or 0.0
   * @param span how long after the window's start a retry may be due, or zero for no limit
   * @throws InvalidSpecException naming the field ({@code retry.maxRetries}, {@code retry.backoff},
   *     {@code retry.delays}, {@code retry.initialDelay}, {@code retry.multiplier}, {@code
   *     retry.maxDelay}, {@code retry.jitter} or {@code retry.span}) and the value refused
   */
  @JsonCreator
  private RetryPolicy(
      @JsonProperty("maxRetries") int maxRetries,
      @JsonProperty("backoff") Backoff backoff,
      @JsonProperty("delays") List<Duration> delays,
      @JsonProperty("initialDelay") Duration initialDelay,
      @JsonProperty("multiplier") double multiplier,
      @JsonProperty("maxDelay") Duration maxDelay,
      @JsonProperty("jitter") double jitter,
      @JsonProperty("span") Duration span) {
    checkMaxRetries(maxRetries);
    if (backoff == null) {
      throw new InvalidSpecException("retry.backoff", null, "must be one of IMMEDIATE, DELAYS, EXPONENTIAL");
    }
    String usedBy = "retry back-off " + backoff;
    if (backoff == Backoff.DELAYS) {
      delays = checkDelays(delays);
    } else {
      delays = neutralList(delays, usedBy);
    }
    if (backoff == Backoff.EXPONENTIAL) {
      checkPositive("retry.initialDelay", initialDelay);
      checkAtMost("retry.initialDelay", initialDelay, MAX_DELAY);
      if (!(multiplier >= 1.0 && multiplier <= MAX_MULTIPLIER)) {
        throw new InvalidSpecException(
            "retry.multiplier", multiplier, "must be a number from 1.0 to " + MAX_MULTIPLIER);
      }
      if (maxDelay == null) {
        throw new InvalidSpecException("retry.maxDelay", null, "must be set");
      }
      checkAtMost("retry.maxDelay", maxDelay, MAX_DELAY);
      if (maxDelay.compareTo(initialDelay) < 0) {
        throw new InvalidSpecException(
            "retry.maxDelay", maxDelay, "must not be less than retry.initialDelay " + initialDelay);
      }
      if (!(jitter >= 0.0 && jitter <= 1.0)) {
        throw new InvalidSpecException("retry.jitter", jitter, "must be between 0.0 and 1.0");
      }
    } else {
      initialDelay = neutral("retry.initialDelay", initialDelay, usedBy);
      maxDelay = neutral("retry.maxDelay", maxDelay, usedBy);
      if (multiplier != 1.0) {
        throw new InvalidSpecException("retry.multiplier", multiplier, unused(usedBy, "1.0"));
      }
      if (jitter != 0.0) {
        throw new InvalidSpecException("retry.jitter", jitter, unused(usedBy, "0.0"));
      }
    }
    span = span == null ? Duration.ZERO : span;
    if (span.isNegative()) {
      throw new InvalidSpecException("retry.span", span, "must be positive, or zero for no limit");
    }
    checkAtMost("retry.span", span, MAX_SPAN);
    this.maxRetries = maxRetries;
    this.backoff = backoff;
    this.delays = delays;
    this.initialDelay = initialDelay;
    this.multiplier = multiplier;
    this.maxDelay = maxDelay;
    this.jitter = jitter;
    this.span = span;
  }

  /**
   * Not marked for retry (R12): a failed or timed-out attempt makes the window FINAL_FAILED at
   * once, recorded with its reason. Same as {@link #DEFAULT}.
   *
   * @return the policy
   */
  public static RetryPolicy none() {
    return DEFAULT;
  }

  /**
   * Retry at the instant the attempt failed, up to {@value #DEFAULT_MAX_RETRIES} times.
   *
   * @return the policy
   */
  public static RetryPolicy immediate() {
    return new RetryPolicy(DEFAULT_MAX_RETRIES, Backoff.IMMEDIATE, List.of(), Duration.ZERO, 1.0, Duration.ZERO, 0.0,
        Duration.ZERO);
  }

  /**
   * Retry after the given delays, counted from the failure: retry 1 after the first, retry 2 after
   * the second, and so on; the last delay repeats for further retries. Up to {@value
   * #DEFAULT_MAX_RETRIES} retries. Example: {@code delayed(ofMinutes(5), ofMinutes(15),
   * ofMinutes(30))}.
   *
   * @param delays positive, at most {@link #MAX_DELAY} and strictly increasing, from 1 to {@value
   *     #MAX_DELAYS} of them
   * @return the policy
   * @throws InvalidSpecException ({@code retry.delays}) if the list is empty or too long, holds a
   *     null, a delay that is not positive or above {@link #MAX_DELAY}, or is not strictly increasing
   */
  public static RetryPolicy delayed(Duration... delays) {
    if (delays == null || delays.length == 0) {
      throw new InvalidSpecException(
          "retry.delays", delays == null ? null : "[]", "must list at least one delay");
    }
    return new RetryPolicy(DEFAULT_MAX_RETRIES, Backoff.DELAYS, Arrays.asList(delays), Duration.ZERO, 1.0,
        Duration.ZERO, 0.0, Duration.ZERO);
  }

  /**
   * Retry after an exponential back-off: retry n waits {@code initial * multiplier^(n-1)}, capped at
   * {@code cap}, then spread by a factor drawn from {@code [1 - jitter, 1 + jitter]}. Up to {@value
   * #DEFAULT_MAX_RETRIES} retries.
   *
   * @param initial the delay before the first retry, positive, at most {@link #MAX_DELAY}
   * @param multiplier the factor between consecutive delays, from 1.0 (a constant delay) to {@value
   *     #MAX_MULTIPLIER}
   * @param cap the largest delay before jitter, at least {@code initial}, at most {@link #MAX_DELAY}
   * @param jitter the relative spread, between 0.0 (none) and 1.0
   * @return the policy
   * @throws InvalidSpecException naming {@code retry.initialDelay}, {@code retry.multiplier}, {@code
   *     retry.maxDelay} or {@code retry.jitter}
   */
  public static RetryPolicy exponential(Duration initial, double multiplier, Duration cap, double jitter) {
    return new RetryPolicy(DEFAULT_MAX_RETRIES, Backoff.EXPONENTIAL, List.of(), initial, multiplier, cap, jitter,
        Duration.ZERO);
  }

  /**
   * An exponential back-off without jitter whose cap is {@link #capFor(Duration, Duration,
   * double)}: as many retries as fit in the acceptable recovery time (R16). For 1 hour, 5 minutes
   * and x2: 3 retries, 5, 10 and 20 minutes after each failure. When not even the first delay fits,
   * the cap is 0 and the task is not retried.
   *
   * @param acceptableRecovery how long after the first failure the last retry may start, positive, at
   *     most {@link #MAX_SPAN}
   * @param firstDelay the delay before the first retry, positive, at most {@link #MAX_DELAY}
   * @param multiplier the factor between consecutive delays, from 1.0 to {@value #MAX_MULTIPLIER}
   * @return the policy
   * @throws InvalidSpecException naming {@code acceptableRecovery}, {@code firstDelay} or {@code
   *     multiplier}
   */
  public static RetryPolicy forRecoveryTime(Duration acceptableRecovery, Duration firstDelay, double multiplier) {
    int cap = capFor(acceptableRecovery, firstDelay, multiplier);
    if (firstDelay.compareTo(MAX_DELAY) > 0) {
      throw new InvalidSpecException("firstDelay", firstDelay, "must be at most " + MAX_DELAY);
    }
    // Every delay of the retries that fit is at most the recovery time, so this cap never bites.
    Duration longest = acceptableRecovery.compareTo(MAX_DELAY) > 0 ? MAX_DELAY : acceptableRecovery;
    Duration maxDelay = longest.compareTo(firstDelay) < 0 ? firstDelay : longest;
    return exponential(firstDelay, multiplier, maxDelay, 0.0).withMaxRetries(cap);
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
   * @param acceptableRecovery how long after the first failure the last retry may start, positive, at
   *     most {@link #MAX_SPAN}
   * @param firstDelay the delay before the first retry, positive, at most {@link #MAX_DELAY}
   * @param multiplier the factor between consecutive delays, from 1.0 to {@value #MAX_MULTIPLIER}
   * @return the retry cap
   * @throws InvalidSpecException naming {@code acceptableRecovery}, {@code firstDelay} or {@code
   *     multiplier}
   */
  public static int capFor(Duration acceptableRecovery, Duration firstDelay, double multiplier) {
    checkPositive("acceptableRecovery", acceptableRecovery);
    checkAtMost("acceptableRecovery", acceptableRecovery, MAX_SPAN);
    checkPositive("firstDelay", firstDelay);
    checkAtMost("firstDelay", firstDelay, MAX_DELAY);
    if (!(multiplier >= 1.0 && multiplier <= MAX_MULTIPLIER)) {
      throw new InvalidSpecException("multiplier", multiplier, "must be a number from 1.0 to " + MAX_MULTIPLIER);
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
   * This back-off with another cap.
   *
   * @param cap the number of retries after the first attempt, 0 (not retried) to {@value
   *     #MAX_ALLOWED_RETRIES}
   * @return the policy
   * @throws InvalidSpecException ({@code retry.maxRetries}) if negative or above {@value
   *     #MAX_ALLOWED_RETRIES}
   */
  public RetryPolicy withMaxRetries(int cap) {
    return new RetryPolicy(cap, backoff, delays, initialDelay, multiplier, maxDelay, jitter, span);
  }

  /**
   * This policy, with no retry due at or after {@code window start + span} (R13's windowed
   * strategy: e.g. a span of 24 hours keeps a daily task's retries in the same business day). A
   * retry that would be due later is not made: the window is FINAL_FAILED.
   *
   * @param limit positive, at most {@link #MAX_SPAN}
   * @return the policy
   * @throws InvalidSpecException ({@code retry.span}) if the span is null, not positive or above
   *     {@link #MAX_SPAN}
   */
  public RetryPolicy withinSpan(Duration limit) {
    checkPositive("retry.span", limit);
    return new RetryPolicy(maxRetries, backoff, delays, initialDelay, multiplier, maxDelay, jitter, limit);
  }

  /**
   * Whether the task is marked for retry (R12): {@code maxRetries > 0}.
   *
   * @return true if a failed window may be retried
   */
  public boolean allowsRetry() {
    return maxRetries > 0;
  }

  /**
   * Whether retries are limited to a span after the window's start.
   *
   * @return true if {@link #span()} is set (not zero)
   */
  public boolean hasSpan() {
    return !span.isZero();
  }

  /**
   * When retry number {@code retryNumber} of a window is due by the back-off, or empty when it would
   * fall outside the span. The cap is not checked here ({@link #maxRetries()}).
   *
   * <ul>
   *   <li>{@link Backoff#IMMEDIATE}: {@code failedAt}.
   *   <li>{@link Backoff#DELAYS}: {@code failedAt + delays[min(n - 1, size - 1)]}.
   *   <li>{@link Backoff#EXPONENTIAL}: {@code failedAt + min(initial * multiplier^(n-1), maxDelay) *
   *       f}, where the jitter factor {@code f} in {@code [1 - jitter, 1 + jitter]} is drawn from
   *       {@code new SplittableRandom(jitterSeed + n)}, so the same arguments always give the same
   *       answer. The delay is never negative and never above {@code maxDelay * (1 + jitter)}; it is
   *       computed to the millisecond.
   * </ul>
   *
   * With a span, a due instant at or after {@code windowStart + span} gives empty.
   *
   * @param retryNumber 1 for the first retry, 2 for the second, ...
   * @param failedAt when the failed attempt ended
   * @param windowStart the start of the instance's business window
   * @param jitterSeed a seed for the jitter, e.g. a hash of the task and window
   * @return the instant the retry is due, or empty if it is outside the span
   * @throws IllegalArgumentException if {@code retryNumber} is less than 1
   */
  public Optional<Instant> retryDueAt(int retryNumber, Instant failedAt, Instant windowStart, long jitterSeed) {
    if (retryNumber < 1) {
      throw new IllegalArgumentException("retryNumber must be >= 1, was " + retryNumber);
    }
    Instant due = switch (backoff) {
      case IMMEDIATE -> failedAt;
      case DELAYS, EXPONENTIAL -> failedAt.plus(delayBefore(retryNumber, jitterSeed));
    };
    if (hasSpan() && !due.isBefore(windowStart.plus(span))) {
      return Optional.empty();
    }
    return Optional.of(due);
  }

  private Duration delayBefore(int retryNumber, long jitterSeed) {
    if (backoff == Backoff.DELAYS) {
      return delays.get(Math.min(retryNumber - 1, delays.size() - 1));
    }
    // Both durations are at most MAX_DELAY, so their nanoseconds fit a long. The growth saturates
    // at the cap: multiplier^(n-1) may be +Infinity for a large n (and 0 * Infinity would be NaN),
    // so anything that is not a number below the cap is the cap.
    double capMillis = maxDelay.toNanos() / 1e6;
    double grown = initialDelay.toNanos() / 1e6 * Math.pow(multiplier, retryNumber - 1.0);
    double base = grown < capMillis ? grown : capMillis;
    double draw = new SplittableRandom(jitterSeed + retryNumber).nextDouble();
    double factor = 1.0 - jitter + 2.0 * jitter * draw;
    double millis = Math.min(base * factor, capMillis * (1.0 + jitter));
    return Duration.ofMillis((long) Math.floor(Math.max(0.0, millis)));
  }

  private static void checkMaxRetries(int maxRetries) {
    if (maxRetries < 0) {
      throw new InvalidSpecException("retry.maxRetries", maxRetries, "must be >= 0");
    }
    if (maxRetries > MAX_ALLOWED_RETRIES) {
      throw new InvalidSpecException("retry.maxRetries", maxRetries, "must be <= " + MAX_ALLOWED_RETRIES);
    }
  }

  private static List<Duration> checkDelays(List<Duration> delays) {
    if (delays == null || delays.isEmpty()) {
      throw new InvalidSpecException("retry.delays", delays == null ? null : "[]", "must list at least one delay");
    }
    List<Duration> copy = new ArrayList<>(delays); // may hold nulls; List.copyOf would throw
    if (copy.size() > MAX_DELAYS) {
      throw new InvalidSpecException(
          "retry.delays", copy, "lists " + copy.size() + " delays; at most " + MAX_DELAYS);
    }
    Duration previous = null;
    for (Duration d : copy) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new InvalidSpecException("retry.delays", copy, "every delay must be positive, found " + d);
      }
      if (d.compareTo(MAX_DELAY) > 0) {
        throw new InvalidSpecException(
            "retry.delays", copy, "every delay must be at most " + MAX_DELAY + ", found " + d);
      }
      if (previous != null && d.compareTo(previous) <= 0) {
        throw new InvalidSpecException(
            "retry.delays", copy, "must be strictly increasing, found " + d + " after " + previous);
      }
      previous = d;
    }
    return List.copyOf(copy);
  }

  private static BigDecimal seconds(Duration d) {
    return BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9));
  }

  private static void checkPositive(String field, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new InvalidSpecException(field, d, "must be positive");
    }
  }

  private static void checkAtMost(String field, Duration d, Duration max) {
    if (d.compareTo(max) > 0) {
      throw new InvalidSpecException(field, d, "must be at most " + max);
    }
  }

  private static List<Duration> neutralList(List<Duration> delays, String usedBy) {
    if (delays != null && !delays.isEmpty()) {
      throw new InvalidSpecException("retry.delays", delays, unused(usedBy, "empty"));
    }
    return List.of();
  }

  private static Duration neutral(String field, Duration d, String usedBy) {
    if (d != null && !d.isZero()) {
      throw new InvalidSpecException(field, d, unused(usedBy, "zero"));
    }
    return Duration.ZERO;
  }

  private static String unused(String usedBy, String neutral) {
    return "not used by " + usedBy + ", must be " + neutral;
  }


  /**
   * A builder that names every part, starting from {@link #DEFAULT}: for a policy read back part by
   * part (from a journal, from configuration). The factories ({@link #immediate()}, {@link
   * #delayed(Duration...)}, {@link #exponential(Duration, double, Duration, double)}) are the usual
   * way to choose a policy.
   *
   * @return a builder holding the parts of {@link #DEFAULT}
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Names each part of a {@link RetryPolicy}; {@link #build()} validates them together. */
  public static final class Builder {
    private int maxRetries;
    private Backoff backoff = Backoff.IMMEDIATE;
    private List<Duration> delays = List.of();
    private Duration initialDelay = Duration.ZERO;
    private double multiplier = 1.0;
    private Duration maxDelay = Duration.ZERO;
    private double jitter;
    private Duration span = Duration.ZERO;

    private Builder() {}

    /**
     * @param cap how many retries follow the first attempt
     * @return this builder
     */
    public Builder maxRetries(int cap) {
      this.maxRetries = cap;
      return this;
    }

    /**
     * @param b when each retry is due
     * @return this builder
     */
    public Builder backoff(Backoff b) {
      this.backoff = b;
      return this;
    }

    /**
     * @param list the delays of {@link Backoff#DELAYS}; empty (or null) for another back-off
     * @return this builder
     */
    public Builder delays(List<Duration> list) {
      this.delays = list;
      return this;
    }

    /**
     * @param d the first delay of {@link Backoff#EXPONENTIAL}; zero (or null) for another back-off
     * @return this builder
     */
    public Builder initialDelay(Duration d) {
      this.initialDelay = d;
      return this;
    }

    /**
     * @param m the factor of {@link Backoff#EXPONENTIAL}; 1.0 for another back-off
     * @return this builder
     */
    public Builder multiplier(double m) {
      this.multiplier = m;
      return this;
    }

    /**
     * @param d the cap of {@link Backoff#EXPONENTIAL}; zero (or null) for another back-off
     * @return this builder
     */
    public Builder maxDelay(Duration d) {
      this.maxDelay = d;
      return this;
    }

    /**
     * @param j the jitter of {@link Backoff#EXPONENTIAL}; 0.0 for another back-off
     * @return this builder
     */
    public Builder jitter(double j) {
      this.jitter = j;
      return this;
    }

    /**
     * @param limit how long after the window's start a retry may be due; zero (or null) for no limit
     * @return this builder
     */
    public Builder span(Duration limit) {
      this.span = limit;
      return this;
    }

    /**
     * @return the policy
     * @throws InvalidSpecException naming the field ({@code retry.*}) and the value refused, as the
     *     factories do
     */
    public RetryPolicy build() {
      return new RetryPolicy(maxRetries, backoff, delays, initialDelay, multiplier, maxDelay, jitter, span);
    }
  }

  /**
   * @return how many retries follow the first attempt, 0 to {@value #MAX_ALLOWED_RETRIES}; 0 means
   *     the task is not marked for retry and a failure is final at once
   */
  public int maxRetries() {
    return maxRetries;
  }

  /** @return when each retry is due */
  public Backoff backoff() {
    return backoff;
  }

  /**
   * @return for {@link Backoff#DELAYS}: 1 to {@value #MAX_DELAYS} positive, strictly increasing
   *     delays from the failure to the retry, each at most {@link #MAX_DELAY}; the last one repeats.
   *     Empty otherwise
   */
  public List<Duration> delays() {
    return delays;
  }

  /**
   * @return for {@link Backoff#EXPONENTIAL}: the delay before the first retry, at most {@link
   *     #MAX_DELAY}; zero otherwise
   */
  public Duration initialDelay() {
    return initialDelay;
  }

  /**
   * @return for {@link Backoff#EXPONENTIAL}: the factor between consecutive delays (1.0 to {@value
   *     #MAX_MULTIPLIER}); 1.0 otherwise
   */
  public double multiplier() {
    return multiplier;
  }

  /**
   * @return for {@link Backoff#EXPONENTIAL}: the cap on a delay before jitter, at most {@link
   *     #MAX_DELAY}; zero otherwise
   */
  public Duration maxDelay() {
    return maxDelay;
  }

  /**
   * @return for {@link Backoff#EXPONENTIAL}: the relative spread in [0, 1] applied to each delay;
   *     0.0 otherwise
   */
  public double jitter() {
    return jitter;
  }

  /**
   * @return how long after the window's start a retry may be due, e.g. 24 hours for the same
   *     business day of a daily task (R13's windowed strategy), at most {@link #MAX_SPAN}; zero for
   *     no such limit
   */
  public Duration span() {
    return span;
  }
}
