package io.almanac;

import java.math.BigDecimal;
import java.time.LocalDate;

/**
 * What a task used on one day in its zone, and its budget for that day, as an operator sees it
 * ({@link Almanac#usage(String)}, {@link Almanac#raiseBudget}). Made by the runtime and read by
 * callers; it keeps only its canonical constructor, so that a part added later fails a build that
 * constructs one rather than binding its call to another shape.
 *
 * @param taskId the task
 * @param day the day, in the task's zone (today, when asked)
 * @param zone the task's zone
 * @param tokensIn tokens the day's attempts reported sending
 * @param tokensOut tokens they reported receiving
 * @param cost the cost they reported (see {@link Usage} for its unit and precision)
 * @param attempts how many attempt results reported usage that day
 * @param budgetPerDay the task's budget per day, or null when it has none
 * @param raised what operators raised the day's budget by (0 when not raised)
 * @param limit the day's limit, the budget plus what was raised, or null without a budget
 * @param exhausted whether the day's cost reached its limit: further windows of the day are skipped
 *     with {@link SkipReason#BUDGET_EXHAUSTED}
 * @param windowsSkipped how many windows of the day were skipped because the budget was spent
 */
public record DailyUsage(
    String taskId,
    LocalDate day,
    String zone,
    long tokensIn,
    long tokensOut,
    BigDecimal cost,
    long attempts,
    BigDecimal budgetPerDay,
    BigDecimal raised,
    BigDecimal limit,
    boolean exhausted,
    long windowsSkipped) {}
