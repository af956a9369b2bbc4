package io.almanac.internal.task;

import io.almanac.Alert;
import io.almanac.InstanceStatus;
import io.almanac.OverlapPolicy;
import io.almanac.SkipReason;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.journal.Evolve;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowChange;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What follows a persisted write, as pure decisions: the alerts it raises, the attempts whose jobs
 * must be cancelled, the PENDING windows to offer the executor, and when the task next needs a
 * wake-up. The entity carries them out only after the write succeeded, and only from persisted state
 * (principle 1). A status change is read as the write's {@link WindowChange} (its from, to and
 * cause), never as the class of the event that made it (ReactionsReadChangesTest). INTERNAL API.
 */
public final class Reactions {

  private Reactions() {}

  /**
   * @param taskId the task
   * @param state the state after the write
   * @param events the events written (what they stand for: {@link TaskJournal#expand})
   * @param changes the window status changes they made ({@link Evolve#applyAll}), in the same order
   * @param repeatedSkipAlert consecutive skipped windows that raise an alert (0 = never)
   * @return the alerts to raise, in event order
   */
  static List<Alert> alerts(String taskId, State state, List<Event> events, List<WindowChange> changes,
      int repeatedSkipAlert) {
    List<Alert> alerts = new ArrayList<>();
    boolean budgetAlerted = false; // the write's first budget skip: the day's alert if the day had none before
    int next = 0; // the changes are in event order: those of an event follow those of the events before it
    for (Event e : events) {
      if (next < changes.size() && changes.get(next).event().equals(e)) {
        for (; next < changes.size() && changes.get(next).event().equals(e); next++) {
          WindowChange c = changes.get(next);
          Alert a = null;
          if (c.cause() instanceof WindowChange.Skipped skip) {
            a = skipAlert(taskId, state, c, skip, changes, !budgetAlerted, repeatedSkipAlert);
            budgetAlerted |= budgetSkip(skip);
          } else if (c.cause() instanceof WindowChange.FailedForGood ff) {
            a = new Alert(Alert.Kind.FINAL_FAILED, taskId, c.key().value(), "window '" + c.key() + "' of task '" + taskId
                + "' failed for good and waits in the intervention queue: " + ff.reason(), c.at());
          }
          if (a != null) {
            alerts.add(a);
          }
        }
      } else if (e instanceof TaskJournal.DeadlineMissed dm) { // changes no status
        alerts.add(new Alert(Alert.Kind.DEADLINE_MISSED, taskId, dm.window(), "window '" + dm.window() + "' of task '"
            + taskId + "' missed its deadline " + dm.deadline() + " (due " + dm.dueAt() + "): still " + dm.status()
            + (dm.attempt() > 0 ? " at attempt " + dm.attempt() : ""), dm.at()));
      } else if (e instanceof TaskJournal.TaskPaused p && p.onFailures() && p.failures() != null) { // about the task
        alerts.add(new Alert(Alert.Kind.TASK_PAUSED_ON_FAILURES, taskId, p.failures().last(), "task '" + taskId
            + "' paused itself: " + p.failures().count() + " windows in a row ended FINAL_FAILED, from '"
            + p.failures().first() + "' to '" + p.failures().last() + "'; resume it when the cause is fixed", p.at()));
      }
    }
    return alerts;
  }

  /**
   * The alert a window that did not run raises, if any: a wait that ended at its deadline
   * (WAIT_EXPIRED), the write's first budget skip (BUDGET_EXHAUSTED, once per day), the first window
   * of a skip range or the {@code repeatedSkipAlert}-th skipped window in a row (REPEATED_SKIPS).
   */
  private static Alert skipAlert(String taskId, State state, WindowChange c, WindowChange.Skipped skip,
      List<WindowChange> changes, boolean firstBudgetSkip, int repeatedSkipAlert) {
    String window = c.key().value();
    SkipReason reason = skip.skipReason();
    if (c.from() != null && (reason == SkipReason.DEPENDENCY_NOT_MET || reason == SkipReason.CONDITION_NOT_MET)) {
      // a wait ended (a window that was not new): its deadline passed before its dependency or condition was met
      return new Alert(Alert.Kind.WAIT_EXPIRED, taskId, window, "window '" + window + "' of task '" + taskId
          + "' did not run: " + reason + " (" + skip.detail() + ")", c.at());
    }
    if (budgetSkip(skip) && firstBudgetSkip) {
      return budgetAlert(state, c, skip, budgetSkips(changes));
    }
    if (skip.opensRange() && repeatedSkipAlert == 1 && reason != null && reason != SkipReason.WINDOW_EXISTS) {
      // a range's first window is its first skip; its later ones are covered, and the task entity raises the alert
      // when the range reaches repeatedSkipAlert windows (TaskEnv.covered)
      return new Alert(Alert.Kind.REPEATED_SKIPS, taskId, window, "task '" + taskId + "' skipped 1 window in a row,"
          + " the last '" + window + "': " + reason + " (" + skip.detail() + ")", c.at());
    }
    if (c.from() == null && skip.single() && reason != null && reason != SkipReason.WINDOW_EXISTS && repeatedSkipAlert > 0
        && skipStreak(state) == repeatedSkipAlert) {
      return new Alert(Alert.Kind.REPEATED_SKIPS, taskId, window, "task '" + taskId + "' skipped "
          + repeatedSkipAlert + " windows in a row, the last '" + window + "': " + reason + " ("
          + skip.detail() + ")", c.at());
    }
    return null;
  }

  /**
   * The day's BUDGET_EXHAUSTED alert, raised by the write holding the day's first window skipped
   * because the budget was spent (the day's skip count, kept in the state, is then what this write
   * added): once per task per day. Null when the day had such a skip before.
   */
  private static Alert budgetAlert(State state, WindowChange c, WindowChange.Skipped skip, int skipsInWrite) {
    java.time.LocalDate day = io.almanac.journal.BudgetDay.dayOf(state.spec(), c.at());
    if (state.budgetOn(day).exhaustedSkips() != skipsInWrite) {
      return null; // the day's alert was raised by an earlier write
    }
    String taskId = state.spec().id();
    return new Alert(Alert.Kind.BUDGET_EXHAUSTED, taskId, c.key().value(), "task '" + taskId + "' spent its budget for "
        + day + ": its further windows of the day are skipped (" + skip.detail() + "); an operator may raise it for the day",
        c.at());
  }

  /** A window skipped because the task's budget was spent; a pool's budget: its alert is the executor's, once per pool per day. */
  private static boolean budgetSkip(WindowChange.Skipped skip) {
    return skip.skipReason() == SkipReason.BUDGET_EXHAUSTED && skip.pool() == null;
  }

  private static int budgetSkips(List<WindowChange> changes) {
    int n = 0;
    for (WindowChange c : changes) {
      if (c.cause() instanceof WindowChange.Skipped skip && budgetSkip(skip)) {
        n += (int) Math.min(skip.windows(), 1_000_000); // a range written closed counts its windows
      }
    }
    return n;
  }

  /** How many of the latest windows (by start) were skipped in a row, for the overlap reasons. */
  static int skipStreak(State state) {
    int streak = 0;
    for (WindowState w : state.table().newestFirst()) { // stops at the first that was not skipped
      if (w.skipReason() != SkipReason.PREVIOUS_RUNNING && w.skipReason() != SkipReason.BUFFER_FULL) {
        break;
      }
      streak++;
    }
    return streak;
  }

  /**
   * @param taskId the task
   * @param changes the window status changes of a write
   * @return the jobs to cancel: attempts timed out or cancelled by it
   */
  static List<ExecutorProtocol.CancelAttempt> cancels(String taskId, List<WindowChange> changes) {
    List<ExecutorProtocol.CancelAttempt> cancels = new ArrayList<>();
    for (WindowChange c : changes) {
      if (c.cause() instanceof WindowChange.TimedOut t) {
        cancels.add(new ExecutorProtocol.CancelAttempt(taskId, c.key().value(), c.attempt(), LeaseExpiry.reason(t.leaseUntil())));
      } else if (c.cause() instanceof WindowChange.Cancelled x) {
        cancels.add(new ExecutorProtocol.CancelAttempt(taskId, c.key().value(), c.attempt(), x.reason()));
      }
    }
    return cancels;
  }

  /**
   * @param taskId the task
   * @param state the state after the write
   * @param changes the window status changes of the write
   * @return what to tell the trigger, for the tasks that depend on this one (R9): each window that
   *     succeeded or was resolved
   */
  static List<TriggerProtocol.UpstreamDone> upstreamDone(String taskId, State state, List<WindowChange> changes) {
    List<TriggerProtocol.UpstreamDone> done = new ArrayList<>();
    for (WindowChange c : changes) {
      if (c.to() == InstanceStatus.SUCCEEDED || c.to() == InstanceStatus.RESOLVED) {
        String key = c.key().value();
        state.window(key).ifPresent(w -> done.add(new TriggerProtocol.UpstreamDone(taskId, key, w.start(), w.end(), c.at())));
      }
    }
    return done;
  }

  /**
   * @param changes the window status changes of a write
   * @return whether an attempt ended (then a PENDING window held back by it may start): a result, a
   *     time-out or a cancellation
   */
  static boolean attemptEnded(List<WindowChange> changes) {
    for (WindowChange c : changes) {
      if (c.to() == InstanceStatus.SUCCEEDED || c.to() == InstanceStatus.FAILED || c.to() == InstanceStatus.TIMED_OUT
          || c.to() == InstanceStatus.CANCELLED) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param changes the window status changes of a write
   * @return whether an attempt finished with a result (its duration then counts)
   */
  static boolean attemptFinished(List<WindowChange> changes) {
    for (WindowChange c : changes) {
      if (c.to() == InstanceStatus.SUCCEEDED || c.to() == InstanceStatus.FAILED) {
        return true;
      }
    }
    return false;
  }

  /**
   * The PENDING windows that may be offered to the executor now, in the order to offer them: fresh
   * windows (first and manual runs, and resumes of interrupted attempts) before retries before backlog (catch-ups, backfills), so a
   * backlog never holds up the window due now (R11, R17); oldest first within each. Under a non-ALLOW
   * overlap policy at most one, and none while a window runs; none while the task is paused ({@link
   * PauseScope}).
   *
   * @param state the task's state
   * @return the windows to offer
   */
  static List<WindowState> offerable(State state) {
    if (!state.defined() || state.removed() || PauseScope.holdsStarts(state)) {
      return List.of();
    }
    boolean allow = state.spec().overlap() == OverlapPolicy.ALLOW;
    if (!allow && state.running("").isPresent()) {
      return List.of(); // offered when the running attempt ends
    }
    List<WindowState> pending = new ArrayList<>();
    for (WindowState w : state.table().live()) {
      if (w.status() == InstanceStatus.PENDING) {
        pending.add(w);
      }
    }
    pending.sort(Comparator.comparingInt((WindowState w) -> switch (w.runKind()) {
      case FIRST, MANUAL, RESUME -> 0; // a resume was running: it goes on first
      case RETRY -> 1;
      case BACKFILL -> 2;
    }).thenComparing(WindowState::start, Comparator.nullsFirst(Comparator.naturalOrder())));
    return allow || pending.isEmpty() ? pending : List.of(pending.get(0));
  }

  /**
   * When the trigger must next wake this task: a running lease's end (a passivated entity's lease
   * timer is gone; the wake-up brings the entity back, which re-arms it), a retry's due time, or a
   * PENDING window's offer going stale; while the task is paused, running leases only ({@link
   * PauseScope}: its PENDING and RETRY_WAIT windows wait for the resume, which offers them).
   *
   * @param state the task's state
   * @param reofferAfter how long a PENDING window waits before it is offered again
   * @return the next wake-up, or null
   */
  public static Instant nextWake(State state, Duration reofferAfter) {
    Instant next = null;
    boolean held = PauseScope.holdsStarts(state);
    for (WindowState w : state.table().live()) {
      Instant at = switch (w.status()) {
        case RUNNING -> LeaseExpiry.endsAt(w);
        case RETRY_WAIT -> held ? null : w.retryDueAt();
        case PENDING -> held ? null : w.updatedAt().plus(reofferAfter);
        default -> null;
      };
      if (at != null && (next == null || at.isBefore(next))) {
        next = at;
      }
    }
    return next;
  }
}
