package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.math.BigDecimal;
import java.time.LocalDate;

/**
 * What a task used on one day in its zone, and its budget for that day, as an operator sees it
 * ({@link Almanac#usage(String)}, {@link Almanac#raiseBudget}). Made by the runtime and read by
 * callers; it has no public constructor, so that a part added later changes no caller's build (the
 * runtime makes these with {@link Builder}, which is INTERNAL API). Two of them are equal when all
 * their parts are, like a record's; {@link #toString()} names every part.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonDeserialize(builder = DailyUsage.Builder.class)
public final class DailyUsage {
  private final String taskId;
  private final LocalDate day;
  private final String zone;
  private final long tokensIn;
  private final long tokensOut;
  private final BigDecimal cost;
  private final long attempts;
  private final BigDecimal budgetPerDay;
  private final BigDecimal raised;
  private final BigDecimal limit;
  private final boolean exhausted;
  private final long windowsSkipped;

  private DailyUsage(Builder b) {
    this.taskId = b.taskId;
    this.day = b.day;
    this.zone = b.zone;
    this.tokensIn = b.tokensIn;
    this.tokensOut = b.tokensOut;
    this.cost = b.cost;
    this.attempts = b.attempts;
    this.budgetPerDay = b.budgetPerDay;
    this.raised = b.raised;
    this.limit = b.limit;
    this.exhausted = b.exhausted;
    this.windowsSkipped = b.windowsSkipped;
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

  /** @return the task */
  public String taskId() {
    return taskId;
  }

  /** @return the day, in the task's zone (today, when asked) */
  public LocalDate day() {
    return day;
  }

  /** @return the task's zone */
  public String zone() {
    return zone;
  }

  /** @return tokens the day's attempts reported sending */
  public long tokensIn() {
    return tokensIn;
  }

  /** @return tokens they reported receiving */
  public long tokensOut() {
    return tokensOut;
  }

  /** @return the cost they reported (see {@link Usage} for its unit and precision) */
  public BigDecimal cost() {
    return cost;
  }

  /** @return how many attempt results reported usage that day */
  public long attempts() {
    return attempts;
  }

  /** @return the task's budget per day, or null when it has none */
  public BigDecimal budgetPerDay() {
    return budgetPerDay;
  }

  /** @return what operators raised the day's budget by (0 when not raised) */
  public BigDecimal raised() {
    return raised;
  }

  /** @return the day's limit, the budget plus what was raised, or null without a budget */
  public BigDecimal limit() {
    return limit;
  }

  /**
   * @return whether the day's cost reached its limit: further windows of the day are skipped with {@link
   *     SkipReason#BUDGET_EXHAUSTED}
   */
  public boolean exhausted() {
    return exhausted;
  }

  /** @return how many windows of the day were skipped because the budget was spent */
  public long windowsSkipped() {
    return windowsSkipped;
  }

  /**
   * @param other another object
   * @return whether it is a DailyUsage with equal parts
   */
  @Override
  public boolean equals(Object other) {
    return this == other || other instanceof DailyUsage o && java.util.Arrays.equals(parts(), o.parts());
  }

  /** @return a hash of every part */
  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(parts());
  }

  /** @return every part, named, as a record shows them */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("DailyUsage[");
    Object[] parts = parts();
    for (int i = 0; i < parts.length; i++) {
      b.append(i == 0 ? "" : ", ").append(NAMES[i]).append('=').append(parts[i]);
    }
    return b.append(']').toString();
  }

  private static final String[] NAMES = {
      "taskId", "day", "zone", "tokensIn", "tokensOut", "cost", "attempts", "budgetPerDay", "raised", "limit",
      "exhausted", "windowsSkipped"};

  private Object[] parts() {
    return new Object[] {
        taskId, day, zone, tokensIn, tokensOut, cost, attempts, budgetPerDay, raised, limit, exhausted,
        windowsSkipped};
  }

  /**
   * INTERNAL API: makes a {@link DailyUsage}, part by part (for the runtime and its modules: a user reads
   * these, never makes one). A part not set is null, 0 or false; the JSON of one between nodes is read
   * through it too, so a part a node did not send reads so.
   *
   * @hidden
   */
  @JsonPOJOBuilder(withPrefix = "")
  public static final class Builder {
    private String taskId;
    private LocalDate day;
    private String zone;
    private long tokensIn;
    private long tokensOut;
    private BigDecimal cost;
    private long attempts;
    private BigDecimal budgetPerDay;
    private BigDecimal raised;
    private BigDecimal limit;
    private boolean exhausted;
    private long windowsSkipped;

    private Builder() {}

    /**
     * @param v see {@link DailyUsage#taskId()}
     * @return this builder
     */
    public Builder taskId(String v) {
      taskId = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#day()}
     * @return this builder
     */
    public Builder day(LocalDate v) {
      day = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#zone()}
     * @return this builder
     */
    public Builder zone(String v) {
      zone = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#tokensIn()}
     * @return this builder
     */
    public Builder tokensIn(long v) {
      tokensIn = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#tokensOut()}
     * @return this builder
     */
    public Builder tokensOut(long v) {
      tokensOut = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#cost()}
     * @return this builder
     */
    public Builder cost(BigDecimal v) {
      cost = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#attempts()}
     * @return this builder
     */
    public Builder attempts(long v) {
      attempts = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#budgetPerDay()}
     * @return this builder
     */
    public Builder budgetPerDay(BigDecimal v) {
      budgetPerDay = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#raised()}
     * @return this builder
     */
    public Builder raised(BigDecimal v) {
      raised = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#limit()}
     * @return this builder
     */
    public Builder limit(BigDecimal v) {
      limit = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#exhausted()}
     * @return this builder
     */
    public Builder exhausted(boolean v) {
      exhausted = v;
      return this;
    }

    /**
     * @param v see {@link DailyUsage#windowsSkipped()}
     * @return this builder
     */
    public Builder windowsSkipped(long v) {
      windowsSkipped = v;
      return this;
    }

    /** @return the DailyUsage */
    public DailyUsage build() {
      return new DailyUsage(this);
    }
  }
}
