package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.invoke.MethodHandles;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * What one attempt of a job used: the model it called, the tokens it sent and received, and what
 * it cost. A job reports it with its result ({@link JobResult#withUsage(Usage)}); the task sums it
 * per day in its zone, and a task's daily budget ({@link TaskSpec.Builder#budgetPerDay(BigDecimal)})
 * is measured against that sum.
 *
 * <p>Cost is a plain amount in whatever currency the operator counts in (the budget is in the same
 * unit). It is kept exactly, as a whole number of millionths ({@link #costMicros()}): {@link
 * #cost()} is that number divided by a million, so sums never drift as doubles would. An amount
 * finer than a millionth is refused, never rounded silently.
 *
 * <p>Refused, naming the field and the value: a negative token count or cost, a cost finer than a
 * millionth or above {@value #MAX_COST_MICROS} millionths, a model name longer than {@value
 * #MAX_MODEL_LENGTH} characters.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonPropertyOrder({"model", "tokensIn", "tokensOut", "costMicros"})
public final class Usage extends Value {
  private static final Parts PARTS = Parts.of(MethodHandles.lookup(), "model", "tokensIn", "tokensOut", "costMicros");

  @Override
  Parts parts() {
    return PARTS;
  }

  /** Longest model name accepted. */
  public static final int MAX_MODEL_LENGTH = 100;

  /** Largest cost of one attempt accepted, in millionths (one trillion, i.e. a million whole units). */
  public static final long MAX_COST_MICROS = 1_000_000_000_000L;

  /**
   * Most tokens of one attempt accepted, in and out each: one trillion. Bounded so that a day's sums
   * of many attempts never overflow.
   */
  public static final long MAX_TOKENS = 1_000_000_000_000L;

  /** Millionths per whole unit of cost. */
  public static final long MICROS_PER_UNIT = 1_000_000L;

  private final String model;
  private final long tokensIn;
  private final long tokensOut;
  private final long costMicros;

  @JsonCreator
  private Usage(@JsonProperty("model") String model, @JsonProperty("tokensIn") long tokensIn,
      @JsonProperty("tokensOut") long tokensOut, @JsonProperty("costMicros") long costMicros) {
    if (model != null && model.length() > MAX_MODEL_LENGTH) {
      throw new InvalidSpecException("usage.model", model, "is " + model.length() + " characters; at most "
          + MAX_MODEL_LENGTH);
    }
    if (tokensIn < 0) {
      throw new InvalidSpecException("usage.tokensIn", tokensIn, "must be >= 0");
    }
    if (tokensOut < 0) {
      throw new InvalidSpecException("usage.tokensOut", tokensOut, "must be >= 0");
    }
    if (tokensIn > MAX_TOKENS) {
      throw new InvalidSpecException("usage.tokensIn", tokensIn, "at most " + MAX_TOKENS + " per attempt");
    }
    if (tokensOut > MAX_TOKENS) {
      throw new InvalidSpecException("usage.tokensOut", tokensOut, "at most " + MAX_TOKENS + " per attempt");
    }
    if (costMicros < 0) {
      throw new InvalidSpecException("usage.cost", BigDecimal.valueOf(costMicros, 6).toPlainString(), "must be >= 0");
    }
    if (costMicros > MAX_COST_MICROS) {
      throw new InvalidSpecException("usage.cost", BigDecimal.valueOf(costMicros, 6).toPlainString(), "at most "
          + BigDecimal.valueOf(MAX_COST_MICROS, 6).toPlainString() + " per attempt");
    }
    this.model = model == null || model.isBlank() ? null : model;
    this.tokensIn = tokensIn;
    this.tokensOut = tokensOut;
    this.costMicros = costMicros;
  }

  /**
   * @param model the model the attempt called (e.g. {@code gpt-4o}), or null when not known
   * @param tokensIn tokens sent to the model, from 0 to {@value #MAX_TOKENS}
   * @param tokensOut tokens received from it, from 0 to {@value #MAX_TOKENS}
   * @param cost what the attempt cost, at least 0, at most 6 decimal places (null: 0)
   * @return the usage
   * @throws InvalidSpecException naming the field ({@code usage.model}, {@code usage.tokensIn}, {@code
   *     usage.tokensOut}, {@code usage.cost}) and its value, if one is refused
   */
  public static Usage of(String model, long tokensIn, long tokensOut, BigDecimal cost) {
    return new Usage(model, tokensIn, tokensOut, cost == null ? 0 : toMicros("usage.cost", cost));
  }

  /**
   * @param model the model the attempt called, or null when not known
   * @param tokensIn tokens sent to the model, from 0 to {@value #MAX_TOKENS}
   * @param tokensOut tokens received from it, from 0 to {@value #MAX_TOKENS}
   * @param costMicros what the attempt cost, in millionths, at least 0
   * @return the usage
   * @throws InvalidSpecException naming the field and its value, if one is refused
   */
  public static Usage ofMicros(String model, long tokensIn, long tokensOut, long costMicros) {
    return new Usage(model, tokensIn, tokensOut, costMicros);
  }

  /**
   * An amount as a whole number of millionths, exactly.
   *
   * @param field the field's name, for the refusal
   * @param amount an amount, at least 0, at most 6 decimal places
   * @return the amount in millionths
   * @throws InvalidSpecException naming the field and the value if it is negative, finer than a
   *     millionth or too large
   */
  public static long toMicros(String field, BigDecimal amount) {
    if (amount.signum() < 0) {
      throw new InvalidSpecException(field, amount.toPlainString(), "must be >= 0");
    }
    try {
      return amount.movePointRight(6).setScale(0, RoundingMode.UNNECESSARY).longValueExact();
    } catch (ArithmeticException e) {
      throw new InvalidSpecException(field, amount.toPlainString(), amount.scale() > 6
          ? "at most 6 decimal places (costs are kept in millionths)" : "too large");
    }
  }

  /**
   * @param micros an amount in millionths
   * @return it as a decimal amount with 6 decimal places stripped of trailing zeros to at least 2
   */
  public static BigDecimal fromMicros(long micros) {
    BigDecimal d = BigDecimal.valueOf(micros, 6).stripTrailingZeros();
    return d.scale() < 2 ? d.setScale(2) : d;
  }

  /** @return the model the attempt called, or null when not reported */
  public String model() {
    return model;
  }

  /** @return tokens sent to the model */
  public long tokensIn() {
    return tokensIn;
  }

  /** @return tokens received from the model */
  public long tokensOut() {
    return tokensOut;
  }

  /** @return what the attempt cost, in millionths */
  public long costMicros() {
    return costMicros;
  }

  /** @return what the attempt cost, as a decimal amount ({@link #costMicros()} / 1,000,000) */
  public BigDecimal cost() {
    return fromMicros(costMicros);
  }
}
