package io.almanac;

import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A named resource pool that tasks share, e.g. one model provider's quota: at most {@link
 * #maxConcurrent()} attempts of the tasks that name it run at once across the whole cluster, and,
 * with a rate, at most {@link #ratePermits()} attempts start in any span of one {@link #ratePer()} (a
 * sliding window: no burst above {@code ratePermits} after an idle spell). Declared in {@code almanac.pools.<name>} or with
 * {@code Almanac.Builder.pool(PoolSpec)}, the same on every node; a task names its pools with
 * {@link TaskSpec.Builder#pools(String...)}.
 *
 * <pre>{@code
 * PoolSpec openai = PoolSpec.of("openai", 8).withRate("60/1m");
 * }</pre>
 */
public final class PoolSpec extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(), "name", "maxConcurrent", "ratePermits", "ratePer",
      "budgetPerDay", "zone");

  /** Longest pool name accepted. */
  public static final int MAX_NAME_LENGTH = 100;

  /** The largest {@code max-concurrent} of a pool: 100,000 attempts at once. */
  public static final int MAX_CONCURRENT = 100_000;

  /** The most starts of a rate: 1,000,000 per period. */
  public static final int MAX_RATE_PERMITS = 1_000_000;

  /**
   * The longest period of a rate: 366 days, as the policies' longest durations. Bounded so that the
   * time to the next start (period / starts) is always a duration the pools' stores and the
   * executor's timers can hold.
   */
  public static final Duration MAX_RATE_PERIOD = Duration.ofDays(366);

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+");
  private static final Pattern RATE = Pattern.compile("\\s*(\\d{1,9})\\s*/\\s*(\\S.*?)\\s*");

  @Override
  Parts parts() {
    return PARTS;
  }

  private final String name;
  private final int maxConcurrent;
  private final int ratePermits;
  private final Duration ratePer;
  private final java.math.BigDecimal budgetPerDay;
  private final java.time.ZoneId zone;

  private PoolSpec(String name, int maxConcurrent, int ratePermits, Duration ratePer, java.math.BigDecimal budgetPerDay,
      java.time.ZoneId zone) {
    this.name = name;
    this.maxConcurrent = maxConcurrent;
    this.ratePermits = ratePermits;
    this.ratePer = ratePer;
    this.budgetPerDay = budgetPerDay;
    this.zone = zone;
  }

  /**
   * @param name the pool's name: 1 to {@value #MAX_NAME_LENGTH} letters, digits, {@code .}, {@code _}
   *     and {@code -}
   * @param maxConcurrent how many attempts of the pool may run at once across the cluster, at least 1, at most
   *     {@value #MAX_CONCURRENT}
   * @return a pool without a rate
   * @throws InvalidSpecException ({@code almanac.pools.<name>} or {@code .max-concurrent}) naming the value
   */
  public static PoolSpec of(String name, int maxConcurrent) {
    validateName(name);
    if (maxConcurrent < 1) {
      throw new InvalidSpecException(key(name, "max-concurrent"), maxConcurrent, "must be at least 1");
    }
    if (maxConcurrent > MAX_CONCURRENT) {
      throw new InvalidSpecException(key(name, "max-concurrent"), maxConcurrent, "must be at most " + MAX_CONCURRENT);
    }
    return new PoolSpec(name, maxConcurrent, 0, null, null, java.time.ZoneId.of("UTC"));
  }

  /**
   * @param permits how many attempts may start per {@code per}, at least 1, at most {@value #MAX_RATE_PERMITS}
   * @param per the period, positive, at most {@link #MAX_RATE_PERIOD}
   * @return this pool with that rate
   * @throws InvalidSpecException ({@code almanac.pools.<name>.rate}) naming the value
   */
  public PoolSpec withRate(int permits, Duration per) {
    return rate(permits, per, permits + "/" + per);
  }

  /** Checks a rate's parts against their bounds, naming the rate as given. */
  private PoolSpec rate(int permits, Duration per, String text) {
    if (permits < 1) {
      throw new InvalidSpecException(key(name, "rate"), text, "the number of starts must be at least 1");
    }
    if (permits > MAX_RATE_PERMITS) {
      throw new InvalidSpecException(key(name, "rate"), text, "the number of starts must be at most " + MAX_RATE_PERMITS);
    }
    if (per == null || per.isNegative() || per.isZero()) {
      throw new InvalidSpecException(key(name, "rate"), text, "the period must be positive");
    }
    if (per.compareTo(MAX_RATE_PERIOD) > 0) {
      throw new InvalidSpecException(key(name, "rate"), text, "the period must be at most " + MAX_RATE_PERIOD
          + " (366 days)");
    }
    return new PoolSpec(name, maxConcurrent, permits, per, budgetPerDay, zone);
  }

  /**
   * @param rate {@code N/duration}, e.g. {@code 60/1m}, {@code 5/1s}, {@code 1000 / 1h} (the duration
   *     in HOCON's format: {@code ms}, {@code s}, {@code m}, {@code h}, {@code d} and their long forms)
   * @return this pool with that rate
   * @throws InvalidSpecException ({@code almanac.pools.<name>.rate}) naming the value when it is not
   *     {@code N/duration}, N is below 1 or the duration is not positive
   */
  public PoolSpec withRate(String rate) {
    Matcher m = rate == null ? null : RATE.matcher(rate);
    if (m == null || !m.matches()) {
      throw new InvalidSpecException(key(name, "rate"), rate,
          "must be N/duration with N a whole number of starts at least 1, e.g. 60/1m");
    }
    Duration per;
    try {
      per = com.typesafe.config.ConfigFactory.parseString("d = \"" + m.group(2).replace("\"", "") + "\"").getDuration("d");
    } catch (com.typesafe.config.ConfigException e) {
      throw new InvalidSpecException(key(name, "rate"), rate, "'" + InvalidSpecException.echo(m.group(2))
          + "' is not a duration (e.g. 1s, 1m, 1h)");
    }
    return rate(Integer.parseInt(m.group(1)), per, rate);
  }

  /**
   * Gives the pool a budget per day, in its {@link #zone()}: once the cost that the attempts of the
   * tasks naming it reported that day reaches the budget (plus that day's raises, {@link
   * Almanac#raisePoolBudget}), the windows of those tasks that would start are skipped with {@link
   * SkipReason#BUDGET_EXHAUSTED}, across the cluster. The next day starts afresh.
   *
   * @param amount the budget, at least 0, at most 6 decimal places, at most 1,000,000,000, in the unit
   *     usage reports cost in ({@link Usage}); null for none
   * @return this pool with that budget
   * @throws InvalidSpecException ({@code almanac.pools.<name>.budget-per-day}) naming the value
   */
  public PoolSpec withBudgetPerDay(java.math.BigDecimal amount) {
    if (amount == null) {
      return new PoolSpec(name, maxConcurrent, ratePermits, ratePer, null, zone);
    }
    String key = key(name, "budget-per-day");
    long micros;
    try {
      micros = Usage.toMicros(key, amount);
    } catch (InvalidSpecException e) {
      throw new InvalidSpecException(key, amount.toPlainString(), e.reason());
    }
    if (micros > TaskSpec.MAX_BUDGET_MICROS) {
      throw new InvalidSpecException(key, amount.toPlainString(), "at most "
          + Usage.fromMicros(TaskSpec.MAX_BUDGET_MICROS).toPlainString());
    }
    java.math.BigDecimal plain = amount.signum() == 0 ? java.math.BigDecimal.ZERO : amount.stripTrailingZeros();
    return new PoolSpec(name, maxConcurrent, ratePermits, ratePer, plain, zone);
  }

  /**
   * @param zone the zone of the pool's day, for its budget (UTC unless set)
   * @return this pool with that zone
   * @throws InvalidSpecException ({@code almanac.pools.<name>.zone}) if it is null
   */
  public PoolSpec withZone(java.time.ZoneId zone) {
    if (zone == null) {
      throw new InvalidSpecException(key(name, "zone"), null, "must be a zone id, e.g. UTC or Europe/Berlin");
    }
    return new PoolSpec(name, maxConcurrent, ratePermits, ratePer, budgetPerDay, zone);
  }

  /** @return the pool's budget per day, in the unit usage reports cost in, or null for none */
  public java.math.BigDecimal budgetPerDay() {
    return budgetPerDay;
  }

  /** @return the budget per day in millionths, or null for none */
  public Long budgetPerDayMicros() {
    return budgetPerDay == null ? null : Usage.toMicros("budgetPerDay", budgetPerDay);
  }

  /** @return the zone of the pool's day (UTC unless set) */
  public java.time.ZoneId zone() {
    return zone;
  }

  /**
   * @param name a pool's name
   * @throws InvalidSpecException ({@code almanac.pools}) if it is empty, too long or has another character
   */
  public static void validateName(String name) {
    if (name == null || name.isBlank()) {
      throw new InvalidSpecException("almanac.pools", name, "a pool name must not be empty");
    }
    if (name.length() > MAX_NAME_LENGTH) {
      throw new InvalidSpecException("almanac.pools", name, "is " + name.length() + " characters; at most " + MAX_NAME_LENGTH);
    }
    if (!NAME.matcher(name).matches()) {
      throw new InvalidSpecException("almanac.pools", name, "a pool name has only letters, digits, '.', '_' and '-'");
    }
  }

  private static String key(String name, String field) {
    return "almanac.pools." + name + "." + field;
  }

  /** @return the pool's name */
  public String name() {
    return name;
  }

  /** @return how many attempts of the pool may run at once across the cluster */
  public int maxConcurrent() {
    return maxConcurrent;
  }

  /** @return how many attempts may start per {@link #ratePer()}, 0 without a rate */
  public int ratePermits() {
    return ratePermits;
  }

  /** @return the rate's period, or null without a rate */
  public Duration ratePer() {
    return ratePer;
  }

  /** @return whether the pool has a rate */
  public boolean hasRate() {
    return ratePer != null;
  }

  /** @return the rate as {@code N/duration}, or null without one */
  public String rateText() {
    return ratePer == null ? null : ratePermits + "/" + ratePer;
  }
}
