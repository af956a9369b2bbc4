package io.almanac.journal;

import io.almanac.InstanceStatus;
import io.almanac.InterruptCause;
import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.WindowKey;
import java.time.Duration;
import java.time.Instant;

/**
 * One change of a window's status, as {@link Evolve} applied it ({@link Evolve#applyAll}): from
 * what, to what, at which attempt, and why. What follows a write (alerts, cancellations, meters,
 * pause on failures) reads these instead of the event classes, so the meaning "a window failed for
 * good" or "a window was skipped" is said once, by the status table ({@link Transition}), whatever
 * event kind brought it about. An event that changes no status (a lease extended, a step recorded)
 * gives no change; a {@link TaskJournal.WindowStarted} gives two (its schedule, then its start).
 *
 * @param key the window
 * @param from its status before, or null when it had no instance ("NEW")
 * @param to its status after (never null)
 * @param attempt the attempt the change is about: the event's own when it names one (a start, a
 *     result, a time-out, an interruption, a cancellation), else the window's (0 before its first)
 * @param cause why, as a small summary of the event ({@link Cause})
 * @param event the event that made the change (for a {@link TaskJournal.WindowStarted}, the half
 *     that made it)
 */
public record WindowChange(WindowKey key, InstanceStatus from, InstanceStatus to, int attempt, Cause cause,
    TaskJournal.WindowEvent event) {

  /** @return when the change happened (its event's time) */
  public Instant at() {
    return event.at();
  }

  /** @return the row of the transition table the change took */
  public Transition transition() {
    return Transition.find(from, to).orElseThrow();
  }

  /**
   * Why a window's status changed: what its event says, kept to what readers of the change need.
   * Each kind of event that changes a status is summed up as one of these by {@link Evolve}, where
   * the event is applied; a new kind of event that changes a status maps to one of them there.
   */
  public sealed interface Cause
      permits Scheduled, Waiting, Started, Ended, TimedOut, Interrupted, RetryPlanned, FailedForGood, Resolved, Cancelled,
          Skipped {}

  /**
   * Scheduled to run (to PENDING): a fire, a catch-up, a backfill, an operator's run, a retry due, a
   * resume, a gate's release.
   *
   * @param kind why it runs
   */
  public record Scheduled(RunKind kind) implements Cause {}

  /**
   * Held by a gate (to WAITING, R9): a dependency or a condition.
   *
   * @param kind why it would run
   * @param waitingFor what it waits for, for people
   */
  public record Waiting(RunKind kind, String waitingFor) implements Cause {}

  /**
   * An attempt started (PENDING to RUNNING, R21).
   *
   * @param kind why it runs
   * @param leaseUntil the attempt's lease
   * @param executor the executor identity that runs it
   */
  public record Started(RunKind kind, Instant leaseUntil, String executor) implements Cause {}

  /**
   * An attempt ended with its job's result: SUCCEEDED, or FAILED (a throttled answer included).
   *
   * @param duration how long the job took, as reported
   * @param usage what it reported using, or null
   * @param reason why it failed, or null when it succeeded
   * @param throttled whether it failed throttled (its retry waits without counting a retry)
   */
  public record Ended(Duration duration, UsageRecord usage, String reason, boolean throttled) implements Cause {}

  /**
   * A running attempt's lease ended, or its executor was found gone (to TIMED_OUT, R23).
   *
   * @param leaseUntil the lease it held
   * @param duration the job's reported duration when its result came late, else null
   * @param leaseEnded whether its lease had ended when it was recorded ({@link Rules#leaseEnded}), rather
   *     than its executor being found gone before
   */
  public record TimedOut(Instant leaseUntil, Duration duration, boolean leaseEnded) implements Cause {}

  /**
   * Its node's life stopped the attempt (to INTERRUPTED): not a failure.
   *
   * @param why what stopped it
   * @param detail for people
   */
  public record Interrupted(InterruptCause why, String detail) implements Cause {}

  /**
   * The retry policy planned another attempt (to RETRY_WAIT).
   *
   * @param retryNumber the retry's number
   * @param dueAt when it is due
   */
  public record RetryPlanned(int retryNumber, Instant dueAt) implements Cause {}

  /**
   * The window failed for good and waits in the intervention queue (to FINAL_FAILED, R12, R15).
   *
   * @param reason why, for people
   */
  public record FailedForGood(String reason) implements Cause {}

  /**
   * An operator marked a final failure resolved (to RESOLVED, R31).
   *
   * @param note the operator's note
   */
  public record Resolved(String note) implements Cause {}

  /**
   * Cancelled (to CANCELLED): by an operator, a superseding window, the task's removal.
   *
   * @param reason why, for people
   */
  public record Cancelled(String reason) implements Cause {}

  /**
   * Did not run (to SKIPPED or MISSED, R7, R12, R14): a fire skipped or missed, the first window of
   * a skip range, a wait's deadline passed, a pool's budget spent before the start.
   *
   * @param skipReason why it was skipped, or null when it was missed
   * @param missReason why it was missed, or null when it was skipped
   * @param detail for people
   * @param windows how many windows the change accounts for: 1, or a closed range's count (its first
   *     window is the one that changed; the others have no instance, docs/skip-ranges.md)
   * @param opensRange whether it opens a skip range that covers the windows due after it
   * @param pool the pool whose budget was spent, or null (a task's own skip)
   */
  public record Skipped(SkipReason skipReason, MissReason missReason, String detail, long windows, boolean opensRange,
      String pool) implements Cause {

    /**
     * @return whether it is one fire's skip or miss of a new window: no range, no wait nor pending
     *     window ended (read with the change's {@code from}, which is null then)
     */
    public boolean single() {
      return windows == 1 && !opensRange;
    }
  }
}
