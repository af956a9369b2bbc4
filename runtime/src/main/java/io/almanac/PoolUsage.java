package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.math.BigDecimal;
import java.time.LocalDate;

/**
 * A resource pool ({@link PoolSpec}) as an operator sees it: its limits, its holds across the
 * cluster, and today's cost (in the pool's zone) against its budget ({@link Almanac#pools()}, {@link
 * Almanac#raisePoolBudget}). Made by the runtime and read by the caller; amounts are in the unit jobs
 * report cost in ({@link Usage}). It has no public constructor, so that a part added later changes no
 * caller's build (the runtime makes these with {@link Builder}, which is INTERNAL API). Two of them are
 * equal when all their parts are, like a record's; {@link #toString()} names every part.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonDeserialize(builder = PoolUsage.Builder.class)
public final class PoolUsage {
  private final String pool;
  private final int maxConcurrent;
  private final String rate;
  private final Integer inUse;
  private final LocalDate day;
  private final String zone;
  private final BigDecimal cost;
  private final long attempts;
  private final BigDecimal budgetPerDay;
  private final BigDecimal raised;
  private final BigDecimal limit;
  private final boolean exhausted;

  private PoolUsage(Builder b) {
    this.pool = b.pool;
    this.maxConcurrent = b.maxConcurrent;
    this.rate = b.rate;
    this.inUse = b.inUse;
    this.day = b.day;
    this.zone = b.zone;
    this.cost = b.cost;
    this.attempts = b.attempts;
    this.budgetPerDay = b.budgetPerDay;
    this.raised = b.raised;
    this.limit = b.limit;
    this.exhausted = b.exhausted;
  }

  /**
   * INTERNAL API: for the runtime and its modules (and tests); a user reads these, never makes one.
   *
   * @return a builder with every part null, 0 or false
   * @hidden
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the pool */
  public String pool() {
    return pool;
  }

  /** @return its {@code max-concurrent} */
  public int maxConcurrent() {
    return maxConcurrent;
  }

  /** @return its rate as {@code N/duration}, or null without one */
  public String rate() {
    return rate;
  }

  /** @return its holds across the cluster now, or null when the pools could not be asked */
  public Integer inUse() {
    return inUse;
  }

  /** @return today, in the pool's zone */
  public LocalDate day() {
    return day;
  }

  /** @return the pool's zone */
  public String zone() {
    return zone;
  }

  /** @return the cost the pool's attempts reported today, summed over the cluster */
  public BigDecimal cost() {
    return cost;
  }

  /** @return how many attempts reported usage today */
  public long attempts() {
    return attempts;
  }

  /** @return its budget per day, or null without one */
  public BigDecimal budgetPerDay() {
    return budgetPerDay;
  }

  /** @return how much operators raised today's budget by (0 when not raised) */
  public BigDecimal raised() {
    return raised;
  }

  /** @return today's limit, the budget plus what was raised, or null without a budget */
  public BigDecimal limit() {
    return limit;
  }

  /** @return whether today's cost reached the limit: windows of the pool's tasks that would start are skipped with {@link SkipReason#BUDGET_EXHAUSTED} */
  public boolean exhausted() {
    return exhausted;
  }

  /**
   * @param other another object
   * @return whether it is a PoolUsage with equal parts
   */
  @Override
  public boolean equals(Object other) {
    return this == other || other instanceof PoolUsage o && java.util.Arrays.equals(parts(), o.parts());
  }

  /** @return a hash of every part */
  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(parts());
  }

  /** @return every part, named, as a record shows them */
  @Override
  public String toString() {
    String[] names = {"pool", "maxConcurrent", "rate", "inUse", "day", "zone", "cost", "attempts", "budgetPerDay", "raised", "limit", "exhausted"};
    Object[] parts = parts();
    StringBuilder b = new StringBuilder("PoolUsage[");
    for (int i = 0; i < names.length; i++) {
      b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
    }
    return b.append(']').toString();
  }

  private Object[] parts() {
    return new Object[] {pool, maxConcurrent, rate, inUse, day, zone, cost, attempts, budgetPerDay, raised, limit, exhausted};
  }

  /**
   * INTERNAL API: makes a {@link PoolUsage}, part by part (for the runtime and its modules: a user reads
   * these, never makes one). A part not set is null, 0 or false.
   *
   * @hidden
   */
  @JsonPOJOBuilder(withPrefix = "")
  public static final class Builder {
    private String pool;
    private int maxConcurrent;
    private String rate;
    private Integer inUse;
    private LocalDate day;
    private String zone;
    private BigDecimal cost;
    private long attempts;
    private BigDecimal budgetPerDay;
    private BigDecimal raised;
    private BigDecimal limit;
    private boolean exhausted;

    private Builder() {}

    /**
     * @param v see {@link PoolUsage#pool()}
     * @return this builder
     */
    public Builder pool(String v) {
      pool = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#maxConcurrent()}
     * @return this builder
     */
    public Builder maxConcurrent(int v) {
      maxConcurrent = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#rate()}
     * @return this builder
     */
    public Builder rate(String v) {
      rate = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#inUse()}
     * @return this builder
     */
    public Builder inUse(Integer v) {
      inUse = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#day()}
     * @return this builder
     */
    public Builder day(LocalDate v) {
      day = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#zone()}
     * @return this builder
     */
    public Builder zone(String v) {
      zone = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#cost()}
     * @return this builder
     */
    public Builder cost(BigDecimal v) {
      cost = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#attempts()}
     * @return this builder
     */
    public Builder attempts(long v) {
      attempts = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#budgetPerDay()}
     * @return this builder
     */
    public Builder budgetPerDay(BigDecimal v) {
      budgetPerDay = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#raised()}
     * @return this builder
     */
    public Builder raised(BigDecimal v) {
      raised = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#limit()}
     * @return this builder
     */
    public Builder limit(BigDecimal v) {
      limit = v;
      return this;
    }

    /**
     * @param v see {@link PoolUsage#exhausted()}
     * @return this builder
     */
    public Builder exhausted(boolean v) {
      exhausted = v;
      return this;
    }

    /** @return the pool's view */
    public PoolUsage build() {
      return new PoolUsage(this);
    }
  }
}
