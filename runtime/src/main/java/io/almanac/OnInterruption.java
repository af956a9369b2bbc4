package io.almanac;

/**
 * What a task does with a window whose attempt was interrupted ({@link InterruptCause}): a job whose
 * node stopped, died or was fenced out while it ran. Set with {@link TaskSpec.Builder#onInterruption}
 * or the task key {@code on-interruption} ({@code resume} or {@code fail}).
 */
public enum OnInterruption {
  /**
   * The default: the window runs again at once ({@link RunKind#RESUME}; on another node in a cluster,
   * at the next start embedded), without spending a retry. A job body may therefore run more than
   * once for a window (at least once); a window interrupted more than {@code almanac.task.max-resumes}
   * times in a row is handed to the retry policy instead.
   */
  RESUME,
  /**
   * The window goes to {@link InstanceStatus#FINAL_FAILED} (the manual-intervention queue) with the
   * cause in its reason, and its job is never run again by itself: for a body that must never run
   * twice (at most once). An operator retries or resolves it.
   */
  FAIL;

  /** The default: {@link #RESUME}. */
  public static final OnInterruption DEFAULT = RESUME;
}
