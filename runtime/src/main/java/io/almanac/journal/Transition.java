package io.almanac.journal;

import static io.almanac.InstanceStatus.CANCELLED;
import static io.almanac.InstanceStatus.FAILED;
import static io.almanac.InstanceStatus.FINAL_FAILED;
import static io.almanac.InstanceStatus.INTERRUPTED;
import static io.almanac.InstanceStatus.MISSED;
import static io.almanac.InstanceStatus.PENDING;
import static io.almanac.InstanceStatus.RESOLVED;
import static io.almanac.InstanceStatus.RETRY_WAIT;
import static io.almanac.InstanceStatus.RUNNING;
import static io.almanac.InstanceStatus.SKIPPED;
import static io.almanac.InstanceStatus.SUCCEEDED;
import static io.almanac.InstanceStatus.TIMED_OUT;
import static io.almanac.InstanceStatus.WAITING;

import io.almanac.IllegalTransitionException;
import io.almanac.InstanceStatus;
import java.util.Optional;

/**
 * The one table of allowed instance transitions (R20). A {@code from} of null means the window has
 * no instance yet ("NEW"). {@link InstanceStatus#SUCCEEDED} and {@link InstanceStatus#RESOLVED}
 * have no way out: no window succeeds twice. Every status change in the runtime goes through {@link
 * #check(InstanceStatus, TaskJournal.WindowEvent)}: a decision checks the event it is about to write,
 * and the target status is the event's own ({@link TaskJournal.WindowEvent#statusAfter}), never named
 * again by hand.
 */
public enum Transition {
  /** A trigger or backfill creates the window's instance. */
  NEW_TO_PENDING(null, PENDING),
  /** The window fired but is not run (overlap, paused, ...), recorded with its reason. */
  NEW_TO_SKIPPED(null, SKIPPED),
  /** Due but not caught up: outside the horizon, or the catch-up policy does not run it. */
  NEW_TO_MISSED(null, MISSED),
  /** An executor takes the instance (compare-and-set, R21). */
  PENDING_TO_RUNNING(PENDING, RUNNING),
  /** Cancelled before it started. */
  PENDING_TO_CANCELLED(PENDING, CANCELLED),
  /** The attempt succeeded. */
  RUNNING_TO_SUCCEEDED(RUNNING, SUCCEEDED),
  /** The attempt failed. */
  RUNNING_TO_FAILED(RUNNING, FAILED),
  /** The lease expired (R23). */
  RUNNING_TO_TIMED_OUT(RUNNING, TIMED_OUT),
  /** Cancelled while it ran. */
  RUNNING_TO_CANCELLED(RUNNING, CANCELLED),
  /** The retry policy allows another attempt. */
  FAILED_TO_RETRY_WAIT(FAILED, RETRY_WAIT),
  /** Past the retry cap or span, or not marked for retry (R12, R15). */
  FAILED_TO_FINAL_FAILED(FAILED, FINAL_FAILED),
  /** The retry policy allows another attempt after a time-out. */
  TIMED_OUT_TO_RETRY_WAIT(TIMED_OUT, RETRY_WAIT),
  /** Past the retry cap or span after a time-out, or not marked for retry. */
  TIMED_OUT_TO_FINAL_FAILED(TIMED_OUT, FINAL_FAILED),
  /** The back-off delay passed. */
  RETRY_WAIT_TO_PENDING(RETRY_WAIT, PENDING),
  /** Cancelled while waiting to retry. */
  RETRY_WAIT_TO_CANCELLED(RETRY_WAIT, CANCELLED),
  /** An operator retries a final failure (R31). */
  FINAL_FAILED_TO_PENDING(FINAL_FAILED, PENDING),
  /** An operator marks a final failure resolved (R31). */
  FINAL_FAILED_TO_RESOLVED(FINAL_FAILED, RESOLVED),
  /** An operator runs a skipped window now, or backfills it. */
  SKIPPED_TO_PENDING(SKIPPED, PENDING),
  /** A backfill runs a missed window. */
  MISSED_TO_PENDING(MISSED, PENDING),
  /** An operator retries a cancelled window. */
  CANCELLED_TO_PENDING(CANCELLED, PENDING),
  /** A due window of a task with a dependency or condition waits for it (R9). */
  NEW_TO_WAITING(null, WAITING),
  /** Its dependency or condition was met: it runs. */
  WAITING_TO_PENDING(WAITING, PENDING),
  /** Its deadline passed first (DEPENDENCY_NOT_MET, CONDITION_NOT_MET), or the overlap policy skipped it when met. */
  WAITING_TO_SKIPPED(WAITING, SKIPPED),
  /** Cancelled while it waited. */
  WAITING_TO_CANCELLED(WAITING, CANCELLED),
  /** A resource pool's budget for the day was spent before it started (BUDGET_EXHAUSTED, the pool named). */
  PENDING_TO_SKIPPED(PENDING, SKIPPED),
  /** Its node's life stopped the attempt (stopped past its grace, lost, fenced out): not a failure. */
  RUNNING_TO_INTERRUPTED(RUNNING, INTERRUPTED),
  /** The interrupted window runs again at once (RESUME), no retry spent. */
  INTERRUPTED_TO_PENDING(INTERRUPTED, PENDING),
  /** Interrupted more than max-resumes times in a row: the retry policy allows another attempt. */
  INTERRUPTED_TO_RETRY_WAIT(INTERRUPTED, RETRY_WAIT),
  /** The task's on-interruption is FAIL, or the retry policy allows no more after too many interruptions. */
  INTERRUPTED_TO_FINAL_FAILED(INTERRUPTED, FINAL_FAILED);

  // Row 0 is "no instance yet"; row i + 1 is InstanceStatus ordinal i.
  private static final Transition[][] TABLE =
      new Transition[InstanceStatus.values().length + 1][InstanceStatus.values().length];

  static {
    for (Transition t : values()) {
      TABLE[row(t.from)][t.to.ordinal()] = t;
    }
  }

  private final InstanceStatus from;
  private final InstanceStatus to;

  Transition(InstanceStatus from, InstanceStatus to) {
    this.from = from;
    this.to = to;
  }

  /**
   * @return the status before, or null for "no instance yet"
   */
  public InstanceStatus from() {
    return from;
  }

  /**
   * @return the status after
   */
  public InstanceStatus to() {
    return to;
  }

  /**
   * The transition from {@code from} to {@code to}, if the table has it.
   *
   * @param from the current status, or null when the window has no instance yet
   * @param to the status asked for
   * @return the transition, or empty if it is not allowed
   */
  public static Optional<Transition> find(InstanceStatus from, InstanceStatus to) {
    return Optional.ofNullable(lookup(from, to));
  }

  /**
   * Whether the table allows {@code from -> to}.
   *
   * @param from the current status, or null when the window has no instance yet
   * @param to the status asked for
   * @return true if allowed
   */
  public static boolean isAllowed(InstanceStatus from, InstanceStatus to) {
    return lookup(from, to) != null;
  }

  /**
   * The transition from {@code from} to {@code to}, or a refusal. For the table's own readers (tests,
   * tools); the runtime's decisions check the event they write instead ({@link #check(InstanceStatus,
   * TaskJournal.WindowEvent)}), whose target is the event's {@code statusAfter}.
   *
   * @param from the current status, or null when the window has no instance yet
   * @param to the status asked for
   * @param window the window key, for the message
   * @return the transition
   * @throws IllegalTransitionException if the table does not allow it
   */
  public static Transition check(InstanceStatus from, InstanceStatus to, String window) {
    Transition t = lookup(from, to);
    if (t == null) {
      throw new IllegalTransitionException(from, to, window);
    }
    return t;
  }

  /**
   * Whether the table allows what {@code event} asks of a window in {@code from} ({@link
   * TaskJournal.WindowEvent#statusAfter}): an event that changes no status is always allowed. A
   * {@link TaskJournal.WindowStarted} is checked as its schedule, then its start. Decisions ask this
   * before they emit, instead of naming the status their event will produce.
   *
   * @param from the window's status, or null when it has no instance yet
   * @param event the event a decision is about to write
   * @return true if allowed
   */
  public static boolean allows(InstanceStatus from, TaskJournal.WindowEvent event) {
    if (event instanceof TaskJournal.WindowStarted started) {
      return allows(from, started.scheduled()) && allows(started.scheduled().statusAfter(from), started.started());
    }
    InstanceStatus to = event.statusAfter(from);
    return to == null || lookup(from, to) != null;
  }

  /**
   * The event, if the table allows what it asks of a window in {@code from}; a refusal otherwise.
   *
   * @param from the window's status, or null when it has no instance yet
   * @param event the event a decision is about to write
   * @param <E> the event's type
   * @return the event
   * @throws IllegalTransitionException naming the window, from and to, if the table does not allow it
   */
  public static <E extends TaskJournal.WindowEvent> E check(InstanceStatus from, E event) {
    if (event instanceof TaskJournal.WindowStarted started) {
      check(from, started.scheduled());
      check(started.scheduled().statusAfter(from), started.started());
    } else if (!allows(from, event)) {
      throw new IllegalTransitionException(from, event.statusAfter(from), event.window());
    }
    return event;
  }

  private static Transition lookup(InstanceStatus from, InstanceStatus to) {
    return to == null ? null : TABLE[row(from)][to.ordinal()];
  }

  private static int row(InstanceStatus from) {
    return from == null ? 0 : from.ordinal() + 1;
  }
}
