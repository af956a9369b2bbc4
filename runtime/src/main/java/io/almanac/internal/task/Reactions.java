package io.almanac.internal.task;

import io.almanac.Alert;
import io.almanac.InstanceStatus;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.State;
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
 * (principle 1). INTERNAL API.
 */
public final class Reactions {

  private Reactions() {}

  /**
   * @param taskId the task
   * @param state the state after the write
   * @param events the events written
   * @param repeatedSkipAlert consecutive skipped windows that raise an alert (0 = never)
   * @return the alerts to raise, in event order
   */
  static List<Alert> alerts(String taskId, State state, List<Event> events, int repeatedSkipAlert) {
    List<Alert> alerts = new ArrayList<>();
    boolean budgetAlerted = false;
    for (Event e : events) {
      if (e instanceof io.almanac.journal.TaskJournal.WaitEnded we
          && (we.reason() == SkipReason.DEPENDENCY_NOT_MET || we.reason() == SkipReason.CONDITION_NOT_MET)) {
        alerts.add(new Alert(Alert.Kind.WAIT_EXPIRED, taskId, we.window(), "window '" + we.window() + "' of task '" + taskId
            + "' did not run: " + we.reason() + " (" + we.detail() + ")", we.at()));
      } else if (e instanceof InstanceFinalFailed ff) {
        alerts.add(new Alert(Alert.Kind.FINAL_FAILED, taskId, ff.window(), "window '" + ff.window() + "' of task '"
            + taskId + "' failed for good and waits in the intervention queue: " + ff.reason(), ff.at()));
      } else if (e instanceof io.almanac.journal.TaskJournal.DeadlineMissed dm) {
        alerts.add(new Alert(Alert.Kind.DEADLINE_MISSED, taskId, dm.window(), "window '" + dm.window() + "' of task '"
            + taskId + "' missed its deadline " + dm.deadline() + " (due " + dm.dueAt() + "): still " + dm.status()
            + (dm.attempt() > 0 ? " at attempt " + dm.attempt() : ""), dm.at()));
      } else if (e instanceof io.almanac.journal.TaskJournal.TaskPaused p && p.onFailures() && p.failures() != null) {
        alerts.add(new Alert(Alert.Kind.TASK_PAUSED_ON_FAILURES, taskId, p.failures().last(), "task '" + taskId
            + "' paused itself: " + p.failures().count() + " windows in a row ended FINAL_FAILED, from '"
            + p.failures().first() + "' to '" + p.failures().last() + "'; resume it when the cause is fixed", p.at()));
      } else if (budgetSkip(e) && !budgetAlerted) {
        budgetAlerted = true; // the write's first budget skip: the day's alert if the day had none before
        Alert a = budgetAlert(state, e, budgetSkips(events));
        if (a != null) {
          alerts.add(a);
        }
      } else if (e instanceof io.almanac.journal.TaskJournal.SkipRangeOpened r && repeatedSkipAlert == 1
          && r.skipReason() != null && r.skipReason() != SkipReason.WINDOW_EXISTS) {
        // a range's first window is its first skip; its later ones are covered, and the task entity raises the alert
        // when the range reaches repeatedSkipAlert windows (TaskEnv.covered)
        alerts.add(new Alert(Alert.Kind.REPEATED_SKIPS, taskId, r.window(), "task '" + taskId + "' skipped 1 window in a row,"
            + " the last '" + r.window() + "': " + r.skipReason() + " (" + r.detail() + ")", r.at()));
      } else if (e instanceof FireSkipped fs && fs.reason() != SkipReason.WINDOW_EXISTS && repeatedSkipAlert > 0
          && skipStreak(state) == repeatedSkipAlert) {
        alerts.add(new Alert(Alert.Kind.REPEATED_SKIPS, taskId, fs.window(), "task '" + taskId + "' skipped "
            + repeatedSkipAlert + " windows in a row, the last '" + fs.window() + "': " + fs.reason() + " ("
            + fs.detail() + ")", fs.at()));
      }
    }
    return alerts;
  }

  /**
   * The day's BUDGET_EXHAUSTED alert, raised by the write holding the day's first window skipped
   * because the budget was spent (the day's skip count, kept in the state, is then what this write
   * added): once per task per day. Null when the day had such a skip before.
   */
  private static Alert budgetAlert(State state, Event e, int skipsInWrite) {
    String window = ((io.almanac.journal.TaskJournal.WindowEvent) e).window();
    String detail = e instanceof FireSkipped fs ? fs.detail()
        : e instanceof io.almanac.journal.TaskJournal.SkipRangeOpened r ? r.detail()
        : e instanceof io.almanac.journal.TaskJournal.WindowsSkipped r ? r.detail()
        : ((io.almanac.journal.TaskJournal.WaitEnded) e).detail();
    java.time.LocalDate day = io.almanac.journal.BudgetDay.dayOf(state.spec(), e.at());
    if (state.budgetOn(day).exhaustedSkips() != skipsInWrite) {
      return null; // the day's alert was raised by an earlier write
    }
    String taskId = state.spec().id();
    return new Alert(Alert.Kind.BUDGET_EXHAUSTED, taskId, window, "task '" + taskId + "' spent its budget for " + day
        + ": its further windows of the day are skipped (" + detail + "); an operator may raise it for the day", e.at());
  }

  private static boolean budgetSkip(Event e) {
    return e instanceof FireSkipped fs && fs.reason() == SkipReason.BUDGET_EXHAUSTED
        || e instanceof io.almanac.journal.TaskJournal.SkipRangeOpened r && r.skipReason() == SkipReason.BUDGET_EXHAUSTED
        || e instanceof io.almanac.journal.TaskJournal.WindowsSkipped r && r.skipReason() == SkipReason.BUDGET_EXHAUSTED
        || e instanceof io.almanac.journal.TaskJournal.WaitEnded we && we.reason() == SkipReason.BUDGET_EXHAUSTED
        && we.pool() == null; // a pool's budget: its alert is the executor's, once per pool per day
  }

  private static int budgetSkips(List<Event> events) {
    int n = 0;
    for (Event e : events) {
      n += !budgetSkip(e) ? 0 : e instanceof io.almanac.journal.TaskJournal.WindowsSkipped r ? (int) Math.min(r.count(), 1_000_000)
          : 1; // a range written closed counts its windows
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
   * @param events the events written
   * @return the jobs to cancel: attempts timed out or cancelled by these events
   */
  static List<ExecutorProtocol.CancelAttempt> cancels(String taskId, List<Event> events) {
    List<ExecutorProtocol.CancelAttempt> cancels = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof AttemptTimedOut t) {
        cancels.add(new ExecutorProtocol.CancelAttempt(taskId, t.window(), t.attempt(), LeaseExpiry.reason(t.leaseUntil())));
      } else if (e instanceof InstanceCancelled c) {
        cancels.add(new ExecutorProtocol.CancelAttempt(taskId, c.window(), c.attempt(), c.reason()));
      }
    }
    return cancels;
  }

  /**
   * @param taskId the task
   * @param state the state after the write
   * @param events the events written
   * @return what to tell the trigger, for the tasks that depend on this one (R9): each window that
   *     succeeded or was resolved
   */
  static List<TriggerProtocol.UpstreamDone> upstreamDone(String taskId, State state, List<Event> events) {
    List<TriggerProtocol.UpstreamDone> done = new ArrayList<>();
    for (Event e : events) {
      if (e instanceof AttemptSucceeded || e instanceof io.almanac.journal.TaskJournal.InstanceResolved) {
        String key = ((io.almanac.journal.TaskJournal.WindowEvent) e).window();
        state.window(key).ifPresent(w -> done.add(new TriggerProtocol.UpstreamDone(taskId, key, w.start(), w.end(), e.at())));
      }
    }
    return done;
  }

  /**
   * @param events the events written
   * @return whether an attempt ended (then a PENDING window held back by it may start)
   */
  static boolean attemptEnded(List<Event> events) {
    for (Event e : events) {
      if (e instanceof AttemptSucceeded || e instanceof AttemptFailed || e instanceof AttemptTimedOut
          || e instanceof InstanceCancelled) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param events the events written
   * @return whether an attempt finished with a result (its duration then counts)
   */
  static boolean attemptFinished(List<Event> events) {
    for (Event e : events) {
      if (e instanceof AttemptSucceeded || e instanceof AttemptFailed) {
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
   * Whether a fire's decision is a fresh first run alone (no cancellation), with nothing running and
   * nothing queued before it (an older PENDING window starts first): such a window is offered before
   * its schedule is written, so that an admitted one starts in the same write.
   *
   * @param state the state the fire was decided on
   * @param decided the fire's events
   * @return whether the fired window may start at once
   */
  static boolean startsAtOnce(State state, List<Event> decided) {
    if (decided.size() == 2 && decided.get(0) instanceof io.almanac.journal.TaskJournal.SkipRangeClosed) {
      decided = decided.subList(1, 2); // the close of a skip range before it changes nothing here
    }
    if (decided.size() != 1 || !(decided.get(0) instanceof InstanceScheduled scheduled)
        || scheduled.kind() != RunKind.FIRST || state.running("").isPresent()) {
      return false;
    }
    for (WindowState x : state.table().live()) {
      if (x.status() == InstanceStatus.PENDING) {
        return false;
      }
    }
    return true;
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
