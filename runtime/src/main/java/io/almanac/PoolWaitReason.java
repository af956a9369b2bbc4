package io.almanac;

/**
 * Why a window waits for a resource pool ({@link PoolSpec}) before its attempt may start. Persisted
 * by name (the journal's record of a wait): a constant is never renamed, new ones are added last.
 */
public enum PoolWaitReason {
  /** The pool's {@code max-concurrent} attempts are running across the cluster. */
  FULL,
  /** The pool's rate allows no start now: the next one is allowed once the N-th latest start is a period old. */
  RATE,
  /** A job of the pool answered "throttled": the pool admits nothing until the pause ends. */
  PAUSED,
  /**
   * The pool's budget for the day ({@link PoolSpec#withBudgetPerDay}) is spent. Never a wait: the
   * window that would start is skipped with {@link SkipReason#BUDGET_EXHAUSTED} instead.
   */
  BUDGET
}
