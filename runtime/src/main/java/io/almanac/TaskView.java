package io.almanac;

import java.time.Duration;
import java.time.Instant;

/**
 * A task as an operator sees it. Made by the runtime and read by callers; it keeps only its
 * canonical constructor, so that a part added later fails a build that constructs a view rather than
 * binding its call to another shape.
 *
 * @param spec the task's current spec
 * @param paused whether the task is paused (R31)
 * @param hotWindows how many windows the task keeps in its hot state
 * @param archivedWindows how many windows left the hot state (they stay in the journal, R30)
 * @param interventionQueue how many windows are FINAL_FAILED, waiting for an operator (R15)
 * @param durationSamples how many attempt durations the P99 is computed from
 * @param p99 the P99 of observed attempt durations, or null before the first sample
 * @param lease the lease an attempt would get now (R23)
 * @param minInterval the shortest interval between the cron's next firings, or null when the schedule failed
 * @param intervalShorterThanP99 true when the cron fires more often than a run lasts at P99 (R8)
 * @param nextDue the next firing after now, or null if the cron never fires again, past its end bound
 *     (or the task was removed); for a task with jitter, when that window fires (its due time plus its
 *     offset, docs/schedules.md)
 * @param removedAt when the task was removed ({@link Almanac#remove(String)}), or null while it is
 *     defined; a removed task's view and windows are its history
 * @param archivedThrough the latest start of a window that left the hot state, or null when none
 *     did: a backfill finds a window starting at or before it, and not in the hot state, archived
 *     ({@link Decision#ARCHIVED})
 */
public record TaskView(
    TaskSpec spec,
    boolean paused,
    int hotWindows,
    long archivedWindows,
    int interventionQueue,
    int durationSamples,
    Duration p99,
    Duration lease,
    Duration minInterval,
    boolean intervalShorterThanP99,
    Instant nextDue,
    Instant removedAt,
    Instant archivedThrough) {

  /** @return whether the task was removed */
  public boolean removed() {
    return removedAt != null;
  }
}
