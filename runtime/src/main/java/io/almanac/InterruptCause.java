package io.almanac;

/**
 * Why an attempt was interrupted: its job did not fail, its node's life stopped it. Recorded with
 * {@link InstanceStatus#INTERRUPTED}; an interrupted attempt spends no retry, and by default its
 * window runs again at once with {@link RunKind#RESUME} ({@link OnInterruption}). Persisted by name.
 */
public enum InterruptCause {
  /**
   * Its node stopped on purpose (a coordinated shutdown: SIGTERM, a deploy's rolling restart) and the
   * job was still running when {@code almanac.executor.shutdown-grace} ended; the node recorded the
   * interruption itself before it left, and cancelled the job.
   */
  NODE_STOPPED,
  /**
   * Its node died without a word (kill -9, a crash, a machine lost) or left the cluster: found by this
   * node after a restart (a past life of it), or by a survivor once the node was no member.
   */
  NODE_LOST,
  /**
   * Its node's executor lost its lease (frozen, paused or partitioned past the lease): another node
   * took that lease by the lease's own clock, so the old executor can run nothing on, and the
   * attempt was settled there.
   */
  FENCED
}
