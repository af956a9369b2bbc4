package io.almanac.journal;

import io.almanac.InvalidSpecException;
import io.almanac.RefusedException;
import io.almanac.TaskSpec;
import io.almanac.Usage;
import java.math.BigDecimal;

/**
 * The budget rules a task's and a pool's day share, in one place: amounts in millionths add up
 * saturating (never wrapping to a negative limit), a day's limit is its budget plus its raises, the
 * day is spent once its cost reaches that limit, and a raise is checked the same way whoever asks
 * (the task's entity, the facade for a pool). Used by the runtime, the audit and the projection;
 * beside {@link Rules} (on time, lease end) and {@link Transition} (status changes). Pure.
 */
public final class BudgetRules {

  private BudgetRules() {}

  /**
   * @param a an amount in millionths, at least 0
   * @param b another
   * @return their sum, at most {@link Long#MAX_VALUE} (saturating instead of wrapping)
   */
  public static long plus(long a, long b) {
    long s = a + b;
    return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
  }

  /**
   * @param budgetMicros the budget per day
   * @param raisedMicros what operators raised that day's budget by
   * @return the day's limit (saturating)
   */
  public static long limit(long budgetMicros, long raisedMicros) {
    return plus(budgetMicros, raisedMicros);
  }

  /**
   * @param costMicros the day's cost so far
   * @param budgetMicros the budget per day
   * @param raisedMicros that day's raises
   * @return whether the day is spent: its cost reached its limit
   */
  public static boolean spent(long costMicros, long budgetMicros, long raisedMicros) {
    return costMicros >= limit(budgetMicros, raisedMicros);
  }

  /**
   * Checks a raise of a day's budget: an amount above 0, at most 6 decimal places, at most {@link
   * TaskSpec#MAX_BUDGET_MICROS}; a note within {@code maxNote} characters.
   *
   * @param amount how much to raise by
   * @param note the operator's note, or null
   * @param maxNote the longest note allowed ({@code almanac.task.max-reason-length})
   * @return the amount in millionths
   * @throws RefusedException naming the field ({@code amount} or {@code note}) and the value
   */
  public static long checkRaise(BigDecimal amount, String note, int maxNote) {
    if (amount == null || amount.signum() <= 0) {
      throw RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "amount",
          amount == null ? null : amount.toPlainString(), "must be more than 0");
    }
    long micros;
    try {
      micros = Usage.toMicros("amount", amount);
    } catch (InvalidSpecException e) {
      throw RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "amount", amount.toPlainString(),
          e.reason());
    }
    if (micros > TaskSpec.MAX_BUDGET_MICROS) {
      throw RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "amount", amount.toPlainString(),
          "at most " + Usage.fromMicros(TaskSpec.MAX_BUDGET_MICROS).toPlainString());
    }
    if (note != null && note.length() > maxNote) {
      throw RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "note",
          note.length() <= 40 ? note : note.substring(0, 40) + "...", note.length() + " characters, at most " + maxNote
              + " (almanac.task.max-reason-length)");
    }
    return micros;
  }
}
