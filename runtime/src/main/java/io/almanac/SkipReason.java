package io.almanac;

/** Why a window that was due did not run (R7). Persisted by name: never rename a constant. */
public enum SkipReason implements ReasonCode {
  /** The window already has an instance (R5); a run-now or backfill found it done. */
  WINDOW_EXISTS,
  /** The task's previous instance was still running or waiting to retry (R6, overlap SKIP). */
  PREVIOUS_RUNNING,
  /**
   * The task already holds as many windows waiting to start as its overlap policy allows (one with
   * BUFFER_ONE; two not yet started with SKIP).
   */
  BUFFER_FULL,
  /** The task was paused (R31). */
  PAUSED,
  /** A dependency had not succeeded for the window (R9). */
  DEPENDENCY_NOT_MET,
  /** The task's condition did not hold (R9). */
  CONDITION_NOT_MET,
  /**
   * The task's budget for the day (in its zone) was spent: today's reported cost reached its
   * budget per day plus any raise an operator made for the day. The next day starts afresh. Also a
   * window that would start when a resource pool it names had spent its budget for the pool's day
   * ({@link PoolSpec#withBudgetPerDay}); its reason names the pool.
   */
  BUDGET_EXHAUSTED,
  /** The window's due date is in one of the task's exclusion calendars (docs/schedules.md); the record names it. */
  EXCLUDED,
  /**
   * The window is due outside the task's start and end bounds (docs/schedules.md): a fire the trigger
   * computed before the bounds changed; the record names the bound.
   */
  OUT_OF_BOUNDS
}
