package io.almanac.journal;


import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;

/**
 * A task's usage of one day in its zone, as its state keeps it: the sums of the usage its attempts
 * reported that day, the amount an operator raised that day's budget by, and how many windows that
 * day were skipped because the budget was spent. Only the current day is kept: the first usage,
 * raise or skip of a later day starts a new one, so the state does not grow with the task's
 * history (the journal keeps each day's events). Persisted in snapshots: a component is never
 * renamed without a migration.
 *
 * @param day the day, in the task's zone
 * @param tokensIn tokens sent that day
 * @param tokensOut tokens received that day
 * @param costMicros the cost that day, in millionths
 * @param attempts how many attempt results reported usage that day (a durable step's usage adds to
 *     the sums, not to this count)
 * @param raisedMicros how much operators raised that day's budget by, in millionths
 * @param exhaustedSkips how many windows were skipped that day because the budget was spent (the
 *     first one raises the day's alert)
 */
public record BudgetDay(LocalDate day, long tokensIn, long tokensOut, long costMicros, long attempts, long raisedMicros,
    long exhaustedSkips) {

  /**
   * @param day a day
   * @return nothing used that day yet
   */
  public static BudgetDay fresh(LocalDate day) {
    return new BudgetDay(day, 0, 0, 0, 0, 0, 0);
  }

  /**
   * The task's zone for budgets: its spec's zone, UTC when it has none (or one no longer known).
   *
   * @param spec the task's spec, or null
   * @return the zone
   */
  public static ZoneId zoneOf(SpecRecord spec) {
    try {
      return spec == null || spec.zone() == null ? ZoneId.of("UTC") : ZoneId.of(spec.zone());
    } catch (DateTimeException e) {
      return ZoneId.of("UTC");
    }
  }

  /**
   * @param spec the task's spec
   * @param at an instant
   * @return the day it falls on in the task's zone
   */
  public static LocalDate dayOf(SpecRecord spec, Instant at) {
    return LocalDate.ofInstant(at, zoneOf(spec));
  }

  /**
   * The current day's record as of {@code day}: this one when it is that day, a fresh one when
   * this one is of an earlier day (or there is none), null when {@code day} is before this one's
   * (a late event of a past day: today's sums do not take it).
   */
  static BudgetDay on(BudgetDay current, LocalDate day) {
    if (current == null || current.day == null || current.day.isBefore(day)) {
      return fresh(day);
    }
    return current.day.equals(day) ? current : null;
  }

  /**
   * @param current the state's day, or null
   * @param day the day of the event
   * @param u what an attempt used
   * @return the state's day after it (unchanged for a past day's usage)
   */
  static BudgetDay plus(BudgetDay current, LocalDate day, UsageRecord u) {
    return plus(current, day, u, true);
  }

  /**
   * @param current the state's day, or null
   * @param day the day of the event
   * @param u what an attempt, or a durable step, used
   * @param attempt whether an attempt's result reported it (counted in {@code attempts}), not a step
   * @return the state's day after it (unchanged for a past day's usage)
   */
  static BudgetDay plus(BudgetDay current, LocalDate day, UsageRecord u, boolean attempt) {
    BudgetDay d = on(current, day);
    if (d == null || u == null) {
      return current;
    }
    return new BudgetDay(d.day, BudgetRules.plus(d.tokensIn, u.tokensIn()), BudgetRules.plus(d.tokensOut, u.tokensOut()),
        BudgetRules.plus(d.costMicros, u.costMicros()), attempt ? d.attempts + 1 : d.attempts, d.raisedMicros, d.exhaustedSkips);
  }

  /** The state's day after an operator raised {@code day}'s budget by {@code micros}. */
  static BudgetDay raised(BudgetDay current, LocalDate day, long micros) {
    BudgetDay d = on(current, day);
    if (d == null) {
      return current;
    }
    return new BudgetDay(d.day, d.tokensIn, d.tokensOut, d.costMicros, d.attempts, BudgetRules.plus(d.raisedMicros, micros),
        d.exhaustedSkips);
  }

  /** The state's day after a window of {@code day} was skipped because the budget was spent. */
  static BudgetDay skipped(BudgetDay current, LocalDate day) {
    return skipped(current, day, 1);
  }

  /** {@code n} windows skipped because the day's budget was spent (a skip range's windows, docs/skip-ranges.md). */
  static BudgetDay skipped(BudgetDay current, LocalDate day, long n) {
    BudgetDay d = on(current, day);
    if (d == null || n <= 0) {
      return current;
    }
    return new BudgetDay(d.day, d.tokensIn, d.tokensOut, d.costMicros, d.attempts, d.raisedMicros,
        (int) Math.min(Integer.MAX_VALUE, d.exhaustedSkips + n));
  }

  /**
   * What the task used on {@code day}: this record when it is of that day, else a fresh one (the
   * next day starts afresh).
   *
   * @param current the state's day, or null
   * @param day a day
   * @return that day's usage
   */
  public static BudgetDay of(BudgetDay current, LocalDate day) {
    return current != null && day.equals(current.day) ? current : fresh(day);
  }

  /**
   * @param budgetMicros the spec's budget per day, in millionths
   * @return the day's limit: the budget plus what operators raised it by
   */
  public long limitMicros(long budgetMicros) {
    return BudgetRules.limit(budgetMicros, raisedMicros);
  }

  /**
   * @param budgetMicros the spec's budget per day, in millionths
   * @return whether the day's cost reached its limit
   */
  public boolean exhausted(long budgetMicros) {
    return BudgetRules.spent(costMicros, budgetMicros, raisedMicros);
  }
}
