package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.SkipReason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Why a window did not run, as typed facts: a decider builds one of these, and the text the journal
 * and the replies carry ({@link Cause#detail()}, {@link Cause#text()}) is rendered from it here, in one
 * place. Nothing reads the text back: readers that need a fact (which window was running, say) take
 * it from the journal's fold, never from the words. INTERNAL API.
 */
final class Causes {

  private Causes() {}

  /** A typed cause with its journal reason. */
  sealed interface Cause permits SkipCause, MissCause {
    /** @return the journal's detail text, rendered from the facts */
    String detail();

    /** @return the reason's name */
    String reasonName();

    /** @return {@code REASON: detail}, as replies and alerts show it */
    default String text() {
      return reasonName() + ": " + detail();
    }
  }

  /** Why a due window is skipped (R6, R7). */
  sealed interface SkipCause extends Cause
      permits Paused, PreviousRunning, StartQueueFull, AlreadyWaiting, WindowExists, BudgetExhausted, Excluded,
          OutOfBounds {
    /** @return the journal's reason */
    SkipReason reason();

    @Override
    default String reasonName() {
      return reason().name();
    }
  }

  /** Why a past window is not caught up (R12, R14). */
  sealed interface MissCause extends Cause permits OutsideHorizon, NoCatchUp, OutsideSpan {
    /** @return the journal's reason */
    MissReason reason();

    @Override
    default String reasonName() {
      return reason().name();
    }
  }

  /** The task is paused (R31). */
  record Paused(io.almanac.journal.TaskJournal.FailureStreak failures) implements SkipCause {

    /** Paused by an operator. */
    Paused() {
      this(null);
    }

    /**
     * @param state the task's state, paused
     * @return the pause as the state knows it: by its failures (the streak that paused it), or by an operator
     */
    static Paused of(io.almanac.journal.TaskJournal.State state) {
      io.almanac.journal.TaskJournal.FailureStreak f = state.failures();
      return new Paused(f != null && f.pausedAt() != null ? f : null);
    }

    @Override
    public SkipReason reason() {
      return SkipReason.PAUSED;
    }

    @Override
    public String detail() {
      return failures == null ? "task is paused" : "task paused itself after " + failures.count()
          + " windows in a row ended FINAL_FAILED, from '" + failures.first() + "' to '" + failures.last()
          + "'; an operator's resume runs it again";
    }
  }


  /**
   * Overlap SKIP: another fresh window's attempt runs (R6).
   *
   * @param window the running window
   * @param attempt its attempt
   * @param leaseUntil its lease
   */
  record PreviousRunning(String window, int attempt, Instant leaseUntil) implements SkipCause {
    @Override
    public SkipReason reason() {
      return SkipReason.PREVIOUS_RUNNING;
    }

    @Override
    public String detail() {
      return "window " + window + " is RUNNING";
    }
  }

  /**
   * Overlap SKIP: as many fresh windows as it queues wait to start.
   *
   * @param waiting the waiting windows
   * @param cap how many it queues
   */
  record StartQueueFull(List<String> waiting, int cap) implements SkipCause {
    StartQueueFull {
      waiting = List.copyOf(waiting);
    }

    @Override
    public SkipReason reason() {
      return SkipReason.BUFFER_FULL;
    }

    @Override
    public String detail() {
      return "windows " + String.join(", ", waiting) + " are waiting to start (overlap SKIP queues at most " + cap
          + " not yet started)";
    }
  }

  /**
   * Overlap BUFFER_ONE: a fresh window already waits to start.
   *
   * @param window that window
   */
  record AlreadyWaiting(String window) implements SkipCause {
    @Override
    public SkipReason reason() {
      return SkipReason.BUFFER_FULL;
    }

    @Override
    public String detail() {
      return "window " + window + " is already waiting";
    }
  }

  /**
   * An operator's run of a window that has an instance which cannot be reopened (R5).
   *
   * @param status the instance's status
   */
  record WindowExists(InstanceStatus status) implements SkipCause {
    @Override
    public SkipReason reason() {
      return SkipReason.WINDOW_EXISTS;
    }

    @Override
    public String detail() {
      return "window is " + status;
    }
  }

  /**
   * The window's due date is in an exclusion calendar of the task (docs/schedules.md).
   *
   * @param calendar the calendar's name
   * @param date the window's due date in the task's zone
   * @param entry the calendar's entry holding it, e.g. {@code 2027-02-10..2027-02-16}
   */
  record Excluded(String calendar, java.time.LocalDate date, String entry) implements SkipCause {
    @Override
    public SkipReason reason() {
      return SkipReason.EXCLUDED;
    }

    @Override
    public String detail() {
      return "due date " + date + " is in exclusion calendar " + calendar + " (" + entry + ")";
    }
  }

  /**
   * The window is due outside the task's bounds (docs/schedules.md).
   *
   * @param dueAt when it was due
   * @param bound {@code from} or {@code until}
   * @param value the bound as given
   */
  record OutOfBounds(Instant dueAt, String bound, String value) implements SkipCause {
    @Override
    public SkipReason reason() {
      return SkipReason.OUT_OF_BOUNDS;
    }

    @Override
    public String detail() {
      return "due " + dueAt + ", " + ("from".equals(bound) ? "before the schedule's start" : "after the schedule's end")
          + " (" + bound + " " + value + ")";
    }
  }

  /**
   * Older than the catch-up horizon (R14).
   *
   * @param dueAt when it was due
   * @param horizon the horizon
   */
  record OutsideHorizon(Instant dueAt, Duration horizon) implements MissCause {
    @Override
    public MissReason reason() {
      return MissReason.OUTSIDE_HORIZON;
    }

    @Override
    public String detail() {
      return "due " + dueAt + ", older than the catch-up horizon " + horizon;
    }
  }

  /**
   * Catch-up mode NONE: missed windows are not caught up (R12).
   *
   * @param dueAt when it was due
   */
  record NoCatchUp(Instant dueAt) implements MissCause {
    @Override
    public MissReason reason() {
      return MissReason.BACKFILL_NOT_ALLOWED;
    }

    @Override
    public String detail() {
      return "due " + dueAt + " and not fired on time (the trigger was down or behind, or the task was registered"
          + " later); the task does not catch up missed windows (catch-up mode NONE)";
    }
  }

  /**
   * Past the catch-up policy's span after the window's start (R12).
   *
   * @param dueAt when it was due
   * @param span the span
   */
  record OutsideSpan(Instant dueAt, Duration span) implements MissCause {
    @Override
    public MissReason reason() {
      return MissReason.BACKFILL_NOT_ALLOWED;
    }

    @Override
    public String detail() {
      return "due " + dueAt + ", outside the catch-up span " + span + " after the window's start";
    }
  }

  /**
   * The task's budget for the day is spent: the day's cost reached the budget per day plus the day's
   * raises.
   *
   * @param day the day, in the task's zone
   * @param zone the task's zone
   * @param costMicros the day's cost so far, in millionths
   * @param budgetMicros the spec's budget per day
   * @param raisedMicros what operators raised it by for the day
   */
  record BudgetExhausted(java.time.LocalDate day, java.time.ZoneId zone, long costMicros, long budgetMicros,
      long raisedMicros) implements SkipCause {
    @Override
    public SkipReason reason() {
      return SkipReason.BUDGET_EXHAUSTED;
    }

    @Override
    public String detail() {
      String limit = io.almanac.Usage.fromMicros(budgetMicros).toPlainString()
          + (raisedMicros > 0 ? " + " + io.almanac.Usage.fromMicros(raisedMicros).toPlainString() + " raised" : "");
      return "cost " + io.almanac.Usage.fromMicros(costMicros).toPlainString() + " on " + day + " (" + zone
          + ") reached the budget per day " + limit;
    }
  }
}
