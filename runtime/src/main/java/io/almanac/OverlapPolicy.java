package io.almanac;

/**
 * What a task does when a new window fires while its previous instance is still running or waiting
 * to retry (R6), that is while that instance is {@linkplain InstanceStatus#isActive() active}. The
 * default is {@link #SKIP}.
 */
public enum OverlapPolicy {
  /**
   * The new window does not run: it is recorded as {@link InstanceStatus#SKIPPED} with the reason
   * "previous still running" (R7). The default.
   */
  SKIP,
  /**
   * At most one window waits: the first window that fires during the run is kept and starts when
   * the running instance ends; any further window that fires meanwhile is recorded as skipped.
   */
  BUFFER_ONE,
  /** The new window runs at once, concurrently with the previous instance. */
  ALLOW,
  /**
   * The running or retry-waiting instance is cancelled ({@link InstanceStatus#CANCELLED}) and the
   * new window runs instead.
   */
  CANCEL_PREVIOUS;

  /** The policy a task gets when it names none: {@link #SKIP}. */
  public static final OverlapPolicy DEFAULT = SKIP;
}
