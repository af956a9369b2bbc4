package io.almanac;

/**
 * The typed cause of a window whose last attempt, or the window itself, ended without a success: a
 * {@link InstanceStatus#FAILED}, {@link InstanceStatus#TIMED_OUT}, {@link InstanceStatus#INTERRUPTED},
 * {@link InstanceStatus#RETRY_WAIT}, {@link InstanceStatus#FINAL_FAILED} or {@link
 * InstanceStatus#CANCELLED} window ({@link WindowView#reasonCode()}, the HTTP API's {@code
 * reasonCode}). The window's {@code reason} says the same for people, with the details. Persisted by
 * name.
 */
public enum EndCause implements ReasonCode {
  /** The job returned a failure, or threw. */
  JOB_FAILED,
  /** The job reported throttling ({@link JobResult#throttled}): no retry counted, its pools paused. */
  THROTTLED,
  /** Its lease ran out while its executor still ran it (R23). */
  TIMED_OUT,
  /** Interrupted: its node stopped on purpose past its grace ({@link InterruptCause#NODE_STOPPED}). */
  NODE_STOPPED,
  /** Interrupted: its node died or left ({@link InterruptCause#NODE_LOST}). */
  NODE_LOST,
  /** Interrupted: its node's executor lost its lease ({@link InterruptCause#FENCED}). */
  FENCED,
  /** An operator cancelled it (R31). */
  CANCELLED,
  /** Its task was removed (R31). */
  TASK_REMOVED,
  /** The overlap policy CANCEL_PREVIOUS cancelled it when the next window fired (R6). */
  SUPERSEDED;

  /**
   * @param cause why an attempt was interrupted
   * @return the same cause as a window's end cause
   */
  public static EndCause of(InterruptCause cause) {
    return switch (cause) {
      case NODE_STOPPED -> NODE_STOPPED;
      case NODE_LOST -> NODE_LOST;
      case FENCED -> FENCED;
    };
  }
}
