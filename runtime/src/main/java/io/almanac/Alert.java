package io.almanac;

import java.time.Instant;

/**
 * Something an operator must hear about (R32).
 *
 * @param kind what happened
 * @param taskId the task, or null for node-wide alerts
 * @param window the window, or null
 * @param message a sentence for a person
 * @param at when it happened (UTC)
 */
public record Alert(Kind kind, String taskId, String window, String message, Instant at) {

  /** The kinds of alert. */
  public enum Kind {
    /** A window failed for good and waits in the intervention queue (R15). */
    FINAL_FAILED,
    /** A task's windows were skipped several times in a row (its runs outlast its interval). */
    REPEATED_SKIPS,
    /** The trigger's heartbeat stopped: nothing is being fired, retried or timed out (R25). */
    TRIGGER_STALLED,
    /** The trigger's heartbeat is back after a stall. */
    TRIGGER_RECOVERED,
    /**
     * A task's schedule failed at run time (its cron or window spec threw): the trigger set the task
     * aside and fires its windows no more until a corrected spec is registered (or the node restarts with the failing code fixed); every other task goes on.
     */
    TASK_SET_ASIDE,
    /**
     * A window's deadline passed before its dependency or condition was met (R9): it was recorded
     * SKIPPED with DEPENDENCY_NOT_MET or CONDITION_NOT_MET.
     */
    WAIT_EXPIRED,
    /**
     * A cancelled job (its lease ended, an operator cancelled it, or its node lost its lease) has
     * not returned within {@code almanac.executor.stuck-after}: it ignores interrupts and
     * cancellation, and its thread stays busy. Its slot was freed and the task's next windows run;
     * past {@code almanac.executor.max-stuck-jobs} the node is not ready.
     */
    JOB_STUCK,
    /**
     * A window of a task with a deadline ({@link TaskSpec#deadline()}) had not SUCCEEDED by its due
     * time plus that deadline while it was still pending, waiting, running or waiting to retry. Raised
     * once per window; the window goes on running.
     */
    DEADLINE_MISSED,
    /**
     * A task paused itself: its {@link TaskSpec#pauseAfterFailures()} windows in a row ended
     * FINAL_FAILED. Its next windows are skipped (PAUSED) until an operator resumes it.
     */
    TASK_PAUSED_ON_FAILURES,
    /**
     * A task's budget for the day was spent and its further windows of the day are skipped with
     * {@link SkipReason#BUDGET_EXHAUSTED}; raised once per task per day (in the task's zone), on the
     * day's first such skip. Also raised when a resource pool's budget for the day was spent
     * ({@link PoolSpec#withBudgetPerDay}): once per pool per day per node, naming the pool, on the
     * first window it skips there.
     */
    BUDGET_EXHAUSTED
  }
}
