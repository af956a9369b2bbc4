package io.almanac.internal.node;

import java.time.Duration;

/**
 * Decides whether the trigger is stalled from its progress alone (R25, R32): the count of ticks it
 * has run, observed on a monotonic clock (nanoseconds, never the wall clock). A trigger whose count
 * has not changed for longer than {@code stallAfter}, whether it answered or not, is stalled; a
 * changed count (a restarted trigger starts again at 0) is progress. So a wall-clock step raises
 * nothing, and a trigger that is gone is reported while it is gone, not when it is back. INTERNAL
 * API.
 */
final class StallDetector {

  /** What an observation changed. */
  enum Change {
    /** Nothing to report. */
    NONE,
    /** No progress for longer than the limit: report TRIGGER_STALLED (once). */
    STALLED,
    /** Progress after a reported stall: report TRIGGER_RECOVERED (once). */
    RECOVERED
  }

  private final long stallAfterNanos;
  private long lastProgress;
  private long lastTicks = -1;
  private boolean stalled;

  /**
   * @param stallAfter how long without progress is a stall
   * @param startNanos the monotonic time the watch starts (counts as progress)
   */
  StallDetector(Duration stallAfter, long startNanos) {
    this.stallAfterNanos = stallAfter.toNanos();
    this.lastProgress = startNanos;
  }

  /**
   * The trigger answered.
   *
   * @param ticks its tick count
   * @param nanos the monotonic time of the answer
   * @return what changed
   */
  Change answered(long ticks, long nanos) {
    if (ticks != lastTicks) {
      lastTicks = ticks;
      lastProgress = nanos;
      if (stalled) {
        stalled = false;
        return Change.RECOVERED;
      }
      return Change.NONE;
    }
    return check(nanos);
  }

  /**
   * A periodic look, whether or not the trigger answered since.
   *
   * @param nanos the monotonic time
   * @return what changed
   */
  Change check(long nanos) {
    if (!stalled && nanos - lastProgress > stallAfterNanos) {
      stalled = true;
      return Change.STALLED;
    }
    return Change.NONE;
  }

  /**
   * @param nanos the monotonic time
   * @return how long the trigger has made no progress
   */
  Duration silentFor(long nanos) {
    return Duration.ofNanos(Math.max(0, nanos - lastProgress));
  }
}
