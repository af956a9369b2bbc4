package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.util.Optional;

/**
 * How long a running instance's lease lasts before it counts as {@link InstanceStatus#TIMED_OUT}
 * (R23). Once the task has at least {@code minSamples} recorded durations, the lease is {@code
 * factor} times their P99, kept between {@code floor} and {@code ceiling}. Until then the duration
 * is unknown and the lease is the generous {@code ceiling}, so that a slow first run is not killed.
 * A job can heartbeat to extend its lease.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({"floor", "ceiling", "factor", "minSamples"})
public final class LeasePolicy extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(), "floor", "ceiling", "factor", "minSamples");

  @Override
  Parts parts() {
    return PARTS;
  }

  private final Duration floor;
  private final Duration ceiling;
  private final double factor;
  private final int minSamples;

  /** The default floor: 1 minute. */
  public static final Duration DEFAULT_FLOOR = Duration.ofMinutes(1);

  /** The default ceiling: 2 hours. */
  public static final Duration DEFAULT_CEILING = Duration.ofHours(2);

  /** The default factor: 1.5 x P99. */
  public static final double DEFAULT_FACTOR = 1.5;

  /** The default number of samples before the P99 is used: 20. */
  public static final int DEFAULT_MIN_SAMPLES = 20;

  /**
   * The longest lease ceiling (and so the longest floor) accepted: 7 days. A job that runs longer
   * heartbeats to extend its lease. Bounded so that {@code now + lease} can never overflow.
   */
  public static final Duration MAX_CEILING = Duration.ofDays(7);

  /** The largest factor accepted: 100.0 x P99. */
  public static final double MAX_FACTOR = 100.0;

  /**
   * The most samples that may be required before the P99 is used: 10,000 (the entity keeps {@code
   * almanac.task.duration-samples} of them, 100 by default; more than it keeps means never).
   */
  public static final int MAX_MIN_SAMPLES = 10_000;

  /** Floor 1 minute, ceiling 2 hours, 1.5 x P99 once there are 20 samples. */
  public static final LeasePolicy DEFAULT =
      new LeasePolicy(DEFAULT_FLOOR, DEFAULT_CEILING, DEFAULT_FACTOR, DEFAULT_MIN_SAMPLES);

  /**
   * Validates the settings.
   *
   * @param floor the shortest lease, positive
   * @param ceiling the longest lease, at least {@code floor}, at most {@link #MAX_CEILING}
   * @param factor the multiple of the P99 duration, from 1.0 to {@value #MAX_FACTOR}
   * @param minSamples how many durations are needed before the P99 is trusted, 1 to {@value
   *     #MAX_MIN_SAMPLES}
   * @throws InvalidSpecException naming {@code lease.floor}, {@code lease.ceiling}, {@code
   *     lease.factor} or {@code lease.minSamples}
   */
  @JsonCreator
  private LeasePolicy(
      @JsonProperty("floor") Duration floor,
      @JsonProperty("ceiling") Duration ceiling,
      @JsonProperty("factor") double factor,
      @JsonProperty("minSamples") int minSamples) {
    if (floor == null || floor.isNegative() || floor.isZero()) {
      throw new InvalidSpecException("lease.floor", floor, "must be positive");
    }
    if (ceiling == null) {
      throw new InvalidSpecException("lease.ceiling", null, "must be set");
    }
    if (ceiling.compareTo(MAX_CEILING) > 0) {
      throw new InvalidSpecException("lease.ceiling", ceiling, "must be at most " + MAX_CEILING);
    }
    if (floor.compareTo(ceiling) > 0) {
      throw new InvalidSpecException(
          "lease.floor", floor, "must not exceed lease.ceiling " + ceiling);
    }
    if (!(factor >= 1.0 && factor <= MAX_FACTOR)) {
      throw new InvalidSpecException(
          "lease.factor", factor, "must be a number from 1.0 to " + MAX_FACTOR);
    }
    if (minSamples < 1 || minSamples > MAX_MIN_SAMPLES) {
      throw new InvalidSpecException(
          "lease.minSamples", minSamples, "must be from 1 to " + MAX_MIN_SAMPLES);
    }
    this.floor = floor;
    this.ceiling = ceiling;
    this.factor = factor;
    this.minSamples = minSamples;
  }

  /**
   * The lease for the next attempt: {@code ceiling} while {@code sampleCount < minSamples} or no
   * P99 is known; otherwise {@code factor * p99} (to the millisecond), clamped to {@code [floor,
   * ceiling]}.
   *
   * @param p99 the P99 of the task's recorded durations, if any
   * @param sampleCount how many durations the P99 was computed from
   * @return the lease length
   */
  public Duration leaseFor(Optional<Duration> p99, int sampleCount) {
    if (sampleCount < minSamples || p99.isEmpty()) {
      return ceiling;
    }
    Duration base = p99.get();
    if (base.compareTo(ceiling) >= 0) {
      return ceiling; // factor >= 1, and this keeps the arithmetic below within range
    }
    Duration scaled = Duration.ofMillis(Math.round(base.toMillis() * factor));
    if (scaled.compareTo(floor) < 0) {
      return floor;
    }
    return scaled.compareTo(ceiling) > 0 ? ceiling : scaled;
  }


  /**
   * @return a builder holding the parts of {@link #DEFAULT}; set those that differ
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Names each part of a {@link LeasePolicy}; {@link #build()} validates them together. */
  public static final class Builder {
    private Duration floor = DEFAULT_FLOOR;
    private Duration ceiling = DEFAULT_CEILING;
    private double factor = DEFAULT_FACTOR;
    private int minSamples = DEFAULT_MIN_SAMPLES;

    private Builder() {}

    /**
     * @param d the shortest lease, positive (default {@link #DEFAULT_FLOOR})
     * @return this builder
     */
    public Builder floor(Duration d) {
      this.floor = d;
      return this;
    }

    /**
     * @param d the longest lease, and the lease while samples are too few (default {@link
     *     #DEFAULT_CEILING})
     * @return this builder
     */
    public Builder ceiling(Duration d) {
      this.ceiling = d;
      return this;
    }

    /**
     * @param f the multiple of the P99 duration (default {@value #DEFAULT_FACTOR})
     * @return this builder
     */
    public Builder factor(double f) {
      this.factor = f;
      return this;
    }

    /**
     * @param n how many durations are needed before the P99 is trusted (default {@value
     *     #DEFAULT_MIN_SAMPLES})
     * @return this builder
     */
    public Builder minSamples(int n) {
      this.minSamples = n;
      return this;
    }

    /**
     * @return the policy
     * @throws InvalidSpecException naming {@code lease.floor}, {@code lease.ceiling}, {@code
     *     lease.factor} or {@code lease.minSamples}
     */
    public LeasePolicy build() {
      return new LeasePolicy(floor, ceiling, factor, minSamples);
    }
  }

  /** @return the shortest lease, positive */
  public Duration floor() {
    return floor;
  }

  /**
   * @return the longest lease, and the lease while samples are too few; at least {@code floor} and
   *     at most {@link #MAX_CEILING}
   */
  public Duration ceiling() {
    return ceiling;
  }

  /** @return the multiple of the P99 duration, from 1.0 to {@value #MAX_FACTOR} */
  public double factor() {
    return factor;
  }

  /** @return how many durations are needed before the P99 is trusted, from 1 to {@value #MAX_MIN_SAMPLES} */
  public int minSamples() {
    return minSamples;
  }
}
