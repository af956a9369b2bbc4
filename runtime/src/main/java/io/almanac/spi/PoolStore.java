package io.almanac.spi;

import io.almanac.PoolWaitReason;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Where a node's executor keeps the counts of the resource pools ({@code io.almanac.PoolSpec}), so
 * that a pool's limits hold across every node that shares the store. By default each pool is a
 * sharded persistent entity with its own journal (the limits hold across the cluster and the audit
 * rebuilds the pool's day); a node uses another store when {@code almanac.pool-store.class} names
 * one (see the runtime's reference.conf), e.g. to keep the counts in a service of its own.
 *
 * <p>A hold is one admitted attempt's place in a pool, keyed by task and window, owned by the node
 * that admitted it. A pool may have a budget per day: the store sums the cost its attempts report per
 * pool and day ({@link #addUsage}), keeps the day's raises ({@link #raiseBudget}) and refuses an
 * acquire with {@link io.almanac.PoolWaitReason#BUDGET} once the day is spent (the days and budgets
 * are the caller's, see {@link Budget}). Every operation is asynchronous and never runs on the caller's thread; a failed
 * stage means the store could not be asked (the caller keeps the window queued and asks again).
 * The executor bounds every stage by {@code almanac.pool-store.operation-timeout}: a stage not
 * completed in time counts as failed, and an acquire that still admits afterwards is given back with
 * {@link #release}, so a store should complete each stage with what it did, however late.
 * Implementations are thread-safe.
 */
public interface PoolStore extends AutoCloseable {

  /**
   * A pool's limits, as the store applies them.
   *
   * @param name the pool
   * @param maxConcurrent most holds at once
   * @param ratePermits starts per {@code ratePer}, 0 for no rate
   * @param ratePer the rate's period, or null for no rate
   */
  record Limit(String name, int maxConcurrent, int ratePermits, Duration ratePer) {
    /** @return whether the pool has a rate */
    public boolean hasRate() {
      return ratePer != null && ratePermits > 0;
    }
  }

  /**
   * The answer to an acquire: admitted (a hold is taken in every pool named), or refused by the first
   * pool without room, with why and, when known, when to ask again.
   *
   * @param admitted whether the holds were taken
   * @param pool the pool that refused, or null when admitted
   * @param reason why it refused, or null when admitted
   * @param retryAfter when asking again may succeed, from now (RATE: when the rate allows the next start; PAUSED: the
   *     pause's end); null when unknown (FULL: when a hold is released; BUDGET)
   * @param day for {@link PoolWaitReason#BUDGET}: the pool's day whose cost reached the budget; else null
   */
  record Answer(boolean admitted, String pool, PoolWaitReason reason, Duration retryAfter, PoolDay day) {
    /**
     * An answer without a day (every refusal but {@link PoolWaitReason#BUDGET}).
     *
     * @param admitted whether the holds were taken
     * @param pool the pool that refused, or null when admitted
     * @param reason why it refused, or null when admitted
     * @param retryAfter when asking again may succeed, or null
     */
    public Answer(boolean admitted, String pool, PoolWaitReason reason, Duration retryAfter) {
      this(admitted, pool, reason, retryAfter, null);
    }

    /** Admitted. */
    public static final Answer ADMITTED = new Answer(true, null, null, null);

    /**
     * @param pool the pool that refused
     * @param reason why
     * @param retryAfter when to ask again, or null
     * @return a refusal
     */
    public static Answer refused(String pool, PoolWaitReason reason, Duration retryAfter) {
      return new Answer(false, pool, reason, retryAfter);
    }

    /**
     * @param day the pool's day whose cost reached its limit
     * @return a refusal because the pool's budget for the day is spent
     */
    public static Answer budgetSpent(PoolDay day) {
      return new Answer(false, day.pool(), PoolWaitReason.BUDGET, null, day);
    }
  }

  /**
   * A pool's usage on one day (in its zone), summed over the cluster.
   *
   * @param pool the pool
   * @param day the day
   * @param costMicros the cost its attempts reported that day, in millionths
   * @param attempts how many attempts reported usage that day
   * @param raisedMicros how much operators raised that day's budget by, in millionths
   */
  record PoolDay(String pool, java.time.LocalDate day, long costMicros, long attempts, long raisedMicros) {
    /**
     * @param pool the pool
     * @param day the day
     * @return a day without usage or raises
     */
    public static PoolDay empty(String pool, java.time.LocalDate day) {
      return new PoolDay(pool, day, 0, 0, 0);
    }

    /**
     * @param budgetMicros the pool's budget per day
     * @return the day's limit: the budget plus the day's raises (saturating)
     */
    public long limitMicros(long budgetMicros) {
      return io.almanac.journal.BudgetRules.limit(budgetMicros, raisedMicros);
    }
  }

  /**
   * A pool's budget as an acquire checks it: the pool's current day (in its zone, by the caller's
   * clock) and its budget per day.
   *
   * @param day the pool's day now
   * @param budgetMicros its budget per day, in millionths
   */
  record Budget(java.time.LocalDate day, long budgetMicros) {}

  /**
   * Makes the store know these pools (creates what is missing and applies the limits given; a pool
   * of another node's configuration is left as it is). Called once at the node's start, before any
   * acquire, and it also deletes the holds this node left in an earlier life.
   *
   * @param pools the pools of this node's configuration
   * @return completes when done
   */
  CompletionStage<Void> declare(List<Limit> pools);

  /**
   * Takes a hold in every pool named, all or none: each has fewer than max-concurrent live holds,
   * room in its rate ({@link PoolRules#untilStart}: at most N starts in any period, the start recorded), and is not paused.
   *
   * @param pools the pools, each declared
   * @param taskId the task
   * @param window the window
   * @return the answer
   */
  CompletionStage<Answer> acquire(List<String> pools, String taskId, String window);

  /**
   * {@link #acquire(List, String, String)}, and first, for each pool in {@code budgets}: refuses with
   * {@link Answer#budgetSpent} when that day's cost is at or above the budget plus the day's raises.
   * The default ignores the budgets (a store without them).
   *
   * @param pools the pools, each declared
   * @param taskId the task
   * @param window the window
   * @param budgets the budgets to check, by pool (a subset of {@code pools}); empty for none
   * @return the answer
   */
  default CompletionStage<Answer> acquire(List<String> pools, String taskId, String window, Map<String, Budget> budgets) {
    return acquire(pools, taskId, window);
  }

  /**
   * Adds one attempt's reported cost to the pool's day. The default does nothing (a store without
   * budgets).
   *
   * @param pool the pool
   * @param day the day the attempt ended on, in the pool's zone
   * @param costMicros the cost, in millionths, at least 0
   * @return completes when done
   */
  default CompletionStage<Void> addUsage(String pool, java.time.LocalDate day, long costMicros) {
    return java.util.concurrent.CompletableFuture.completedFuture(null);
  }

  /**
   * @param pool the pool
   * @param day the day
   * @return the pool's usage and raises of that day (the default: none)
   */
  default CompletionStage<PoolDay> dayUsage(String pool, java.time.LocalDate day) {
    return java.util.concurrent.CompletableFuture.completedFuture(PoolDay.empty(pool, day));
  }

  /**
   * Raises the pool's budget for one day by an amount (adds to that day's raises). The default fails:
   * a store without budgets.
   *
   * @param pool the pool
   * @param day the day
   * @param amountMicros the amount, in millionths, above 0
   * @return the day after the raise
   */
  default CompletionStage<PoolDay> raiseBudget(String pool, java.time.LocalDate day, long amountMicros) {
    return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException(
        getClass().getName() + " keeps no pool budgets"));
  }

  /**
   * Raises the pool's budget for one day, recording who did it and why where the store keeps a
   * history (the runtime's journaled pools do; the default forgets both and calls {@link
   * #raiseBudget(String, java.time.LocalDate, long)}).
   *
   * @param pool the pool
   * @param day the day
   * @param amountMicros the amount, in millionths, above 0
   * @param actor who raised it
   * @param note why, or null
   * @return the day after the raise
   */
  default CompletionStage<PoolDay> raiseBudget(String pool, java.time.LocalDate day, long amountMicros, String actor,
      String note) {
    return raiseBudget(pool, day, amountMicros);
  }

  /**
   * Gives up this node's holds of the window (its attempt ended, was cancelled or never ran).
   * Idempotent.
   *
   * @param taskId the task
   * @param window the window
   * @return completes when done
   */
  CompletionStage<Void> release(String taskId, String window);

  /**
   * Pauses admissions to the pool for {@code pause} from now (a pause that ends later stays).
   *
   * @param pool the pool
   * @param pause how long
   * @return completes when done
   */
  CompletionStage<Void> pause(String pool, Duration pause);

  /**
   * @return each declared pool's live holds across the store's nodes now
   */
  CompletionStage<Map<String, Integer>> inUse();

  /**
   * The holds of a pool that count now, each with its task, window, node and since when (the
   * operators' nodes page). A store that cannot list them answers null (the default).
   *
   * @param pool a declared pool
   * @return its live holds, in the order taken, or null when this store cannot list them
   */
  default CompletionStage<List<io.almanac.journal.PoolState.Hold>> holds(String pool) {
    return java.util.concurrent.CompletableFuture.completedFuture(null);
  }

  /**
   * Stops the store's own threads and connections (after the operations already asked for); this
   * node's holds are not deleted (their jobs may still run): they expire with their TTL.
   */
  @Override
  void close();
}
