package io.almanac;

/**
 * The status of one instance, that is of one (task, window) (R20). Every change of status is one of
 * the transitions listed in a single table inside the runtime; anything else is refused with an
 * {@link IllegalTransitionException}.
 */
public enum InstanceStatus {
  /** Created for its window and waiting for an executor to take it. */
  PENDING,
  /** An executor took it (a compare-and-set, R21) and holds a lease on it. */
  RUNNING,
  /** The attempt succeeded. Final: a window never succeeds twice. */
  SUCCEEDED,
  /** The attempt failed; the task's retry policy decides what comes next. */
  FAILED,
  /** The attempt outlived its lease (R23); handled like a failure. */
  TIMED_OUT,
  /** Waiting for the back-off delay before the next attempt (R13). */
  RETRY_WAIT,
  /**
   * Past the retry cap, or not retryable (R15): it waits in the manual-intervention queue until an
   * operator retries it or marks it resolved. Not terminal.
   */
  FINAL_FAILED,
  /** Cancelled by an operator or by the {@link OverlapPolicy#CANCEL_PREVIOUS} policy. */
  CANCELLED,
  /** The window fired but did not run, with its reason (overlap, paused, ...) (R7). */
  SKIPPED,
  /** The window was due while nothing ran it (downtime, pause) and was not caught up (R14). */
  MISSED,
  /** An operator marked a final failure resolved by hand. Final. */
  RESOLVED,
  /**
   * Due, and waiting for its dependency or condition (R9) until its deadline: then PENDING when it
   * is met, or SKIPPED (DEPENDENCY_NOT_MET, CONDITION_NOT_MET) when the deadline passes first. Not
   * terminal; not active for the overlap policy (nothing runs).
   */
  WAITING,
  /**
   * The attempt was interrupted by its node's life, not by its job ({@link InterruptCause}: the node
   * stopped past its grace, died, or was fenced out). Transient like {@link #TIMED_OUT}: the same
   * write decides what follows (PENDING again with {@link RunKind#RESUME}, without spending a retry;
   * or, by the task's {@link OnInterruption}, FINAL_FAILED; or, past {@code almanac.task.max-resumes}
   * interruptions in a row, the retry policy).
   */
  INTERRUPTED;

  /**
   * Whether automatic processing is over for this instance: {@link #SUCCEEDED}, {@link #CANCELLED},
   * {@link #SKIPPED}, {@link #MISSED} and {@link #RESOLVED}. Some of these can still be reopened by
   * an operator or a backfill. {@link #FINAL_FAILED} is not terminal: it waits for an operator.
   *
   * @return true if no automatic step follows
   */
  public boolean isTerminal() {
    return switch (this) {
      case SUCCEEDED, CANCELLED, SKIPPED, MISSED, RESOLVED -> true;
      default -> false;
    };
  }

  /**
   * Whether the instance is "still running or waiting to retry" in the sense of the overlap policy
   * (R6): {@link #PENDING}, {@link #RUNNING}, {@link #FAILED}, {@link #TIMED_OUT}, {@link
   * #INTERRUPTED} and {@link #RETRY_WAIT}.
   *
   * @return true if a new window of the same task overlaps with this instance
   */
  public boolean isActive() {
    return switch (this) {
      case PENDING, RUNNING, FAILED, TIMED_OUT, INTERRUPTED, RETRY_WAIT -> true;
      default -> false;
    };
  }
}
