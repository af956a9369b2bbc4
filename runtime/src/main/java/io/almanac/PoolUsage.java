package io.almanac;

import java.math.BigDecimal;
import java.time.LocalDate;

/**
 * A resource pool ({@link PoolSpec}) as an operator sees it: its limits, its holds across the
 * cluster, and today's cost (in the pool's zone) against its budget ({@link Almanac#pools()}, {@link
 * Almanac#raisePoolBudget}). Made by the runtime and read by the caller; amounts are in the unit jobs
 * report cost in ({@link Usage}).
 *
 * @param pool the pool
 * @param maxConcurrent its {@code max-concurrent}
 * @param rate its rate as {@code N/duration}, or null without one
 * @param inUse its holds across the nodes sharing the pool store now, or null when the store could not
 *     be asked
 * @param day today, in the pool's zone
 * @param zone the pool's zone
 * @param cost the cost the pool's attempts reported today, summed over the cluster
 * @param attempts how many attempts reported usage today
 * @param budgetPerDay its budget per day, or null without one
 * @param raised how much operators raised today's budget by (0 when not raised)
 * @param limit today's limit, the budget plus what was raised, or null without a budget
 * @param exhausted whether today's cost reached the limit: windows of the pool's tasks that would
 *     start are skipped with {@link SkipReason#BUDGET_EXHAUSTED}
 */
public record PoolUsage(
    String pool,
    int maxConcurrent,
    String rate,
    Integer inUse,
    LocalDate day,
    String zone,
    BigDecimal cost,
    long attempts,
    BigDecimal budgetPerDay,
    BigDecimal raised,
    BigDecimal limit,
    boolean exhausted) {}
