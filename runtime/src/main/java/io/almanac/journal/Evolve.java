package io.almanac.journal;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.TaskJournal.EffectIntended;
import io.almanac.journal.TaskJournal.EffectRecorded;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.HotState;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceResolved;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.LateResultRecorded;
import io.almanac.journal.TaskJournal.LeaseExtended;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.TaskPaused;
import io.almanac.journal.TaskJournal.TaskRemoved;
import io.almanac.journal.TaskJournal.TaskResumed;
import io.almanac.journal.TaskJournal.WindowEvent;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.journal.TaskJournal.WindowWaiting;
import io.almanac.journal.TaskJournal.WaitEnded;
import io.almanac.journal.TaskJournal.EventReceived;
import io.almanac.journal.TaskJournal.EventDuplicated;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The one place a window's status changes: {@code evolve(state, event) -> state}. Every status
 * change is looked up in the transition table ({@link Transition}); the task entity's event handler
 * and the audit's replay both fold the journal through this class, so the codebase has one
 * event-to-status mapping. {@link #applyAll} also tells the status changes it made, typed ({@link
 * WindowChange}, each with its cause, named here where each kind of event is applied): what follows
 * a write reads those rather than the event classes.
 *
 * <p>An event whose transition the table does not allow (only a corrupted journal or a second
 * writer can produce one: decisions check the table before they emit) is reported to the {@link
 * Violations} sink and leaves the window's status and result as they were; replay never throws.
 * INTERNAL API.
 */
public final class Evolve {

  /** Where a transition the table does not allow is reported during a fold. */
  @FunctionalInterface
  public interface Violations {
    /**
     * @param window the window key
     * @param from its status before (null: no instance yet)
     * @param to the status the event asked for
     * @param event the event
     */
    void violated(String window, InstanceStatus from, InstanceStatus to, Event event);

    /** Ignores violations (for folds whose caller checks them otherwise). */
    Violations IGNORE = (w, f, t, e) -> { };

    /**
     * @param log where to log
     * @param what whose journal it is, for the message (e.g. {@code task 'digest'})
     * @return violations logged as errors; the window keeps its status
     */
    static Violations logTo(org.slf4j.Logger log, String what) {
      return (window, from, to, e) -> log.error("{}: journal event {} asks window '{}' to go {} -> {}, which the "
          + "transition table refuses (R20); the window keeps its status", what, e.getClass().getSimpleName(), window,
          from == null ? "NEW" : from, to);
    }
  }

  private Evolve() {}

  /** An event that names no attempt: its change is about the window's current one. */
  private static final int NO_ATTEMPT = -1;

  /** The end of the reason of an open skip range's first window (docs/skip-ranges.md). */
  public static final String OPEN_RANGE = " [skip range: this window and the ones due after it, still open]";

  /**
   * @param count a closed skip range's windows
   * @param first its first window
   * @param last its last window
   * @return the end of its first window's reason, naming the range: {@code [skip range: 12 windows from A to B]};
   *     empty for a range of one window (its reason is any skipped window's)
   */
  public static String rangeText(long count, String first, String last) {
    return count <= 1 ? "" : " [skip range: " + count + " windows from " + first + " to " + last + "]";
  }

  /**
   * The status an event asks its window to take, or empty when the event changes no status: what
   * the event itself states ({@link WindowEvent#statusAfter}); task-level events change no window.
   *
   * @param current the window's status before the event, or null when it has no instance
   * @param event the event
   * @return the status after, if the event changes it
   */
  public static Optional<InstanceStatus> targetStatus(InstanceStatus current, Event event) {
    return event instanceof WindowEvent we ? Optional.ofNullable(we.statusAfter(current)) : Optional.empty();
  }

  /**
   * The state after one event.
   *
   * @param s the state before
   * @param e the event
   * @param hot how much the hot state keeps (R30)
   * @param violations where a transition the table refuses is reported
   * @return the state after
   */
  public static State apply(State s, Event e, HotState hot, Violations violations) {
    return e.accept(new Step(s, hot, violations, null));
  }

  /**
   * A state after events, with the window status changes they made, in order.
   *
   * @param state the state after the last event
   * @param changes each window status change, in event order (none for an event that changes no
   *     status, or one the table refuses)
   */
  public record Applied(State state, List<WindowChange> changes) {}

  /**
   * The state after events, and the typed changes of window status they made ({@link WindowChange}):
   * what follows a write (alerts, cancellations, meters, pause on failures) reads these rather than
   * the event classes. The same fold as {@link #apply}, which {@link #fold} and {@link #replay} are.
   *
   * @param s the state before
   * @param events the events, in order
   * @param hot how much the hot state keeps
   * @param violations where a transition the table refuses is reported
   * @return the state after the last event, and the changes
   */
  public static Applied applyAll(State s, List<? extends Event> events, HotState hot, Violations violations) {
    List<WindowChange> changes = new ArrayList<>(events.size() + 1);
    State after = s;
    for (Event e : events) {
      after = e.accept(new Step(after, hot, violations, changes));
    }
    return new Applied(after, changes);
  }

  /**
   * The state after events that a decision is about to write (refused transitions cannot occur
   * there: the decisions check the table first).
   *
   * @param s the state before
   * @param events the events, in order
   * @param hot how much the hot state keeps
   * @return the state after the last event
   */
  public static State fold(State s, List<? extends Event> events, HotState hot) {
    State after = s;
    for (Event e : events) {
      after = apply(after, e, hot, Violations.IGNORE);
    }
    return after;
  }

  /**
   * Folds events from an empty state.
   *
   * @param events the events in journal order
   * @param hot how much the hot state keeps
   * @param violations where refused transitions are reported
   * @param sampleCapacity the duration samples kept
   * @return the state after the last event
   */
  public static State replay(Iterable<? extends Event> events, HotState hot, Violations violations, int sampleCapacity) {
    State s = State.empty(sampleCapacity);
    for (Event e : events) {
      s = apply(s, e, hot, violations);
    }
    return s;
  }

  /**
   * The state with a window it has no instance of taken at an event's word: the window goes on from
   * the status the event asks of a new window ({@link WindowEvent#statusAfter statusAfter(null)}),
   * also when the table refuses that from NEW. For a reader of a journal whose earlier events of the
   * window are gone (deleted by retention) or refused (reported as a violation): the audit goes on
   * judging what follows. The runtime never adopts (it recovers from its snapshot).
   *
   * @param s the state, without an instance of the event's window
   * @param e the window's first event that the state has
   * @param hot how much the hot state keeps
   * @return the state with the window at the event's status; the same state when the event asks no
   *     status of a new window, or the window has an instance
   */
  public static State adopt(State s, WindowEvent e, HotState hot) {
    InstanceStatus to = e.statusAfter(null);
    if (to == null || s.windows().containsKey(e.window())) {
      return s;
    }
    return s.withWindow(WindowState.created(e.window(), null, null, null, to, RunKind.FIRST, null, null, e.at()), hot);
  }

  /**
   * One event applied to a state: task-level events change the task; a window event's status comes
   * from the event ({@link WindowEvent#statusAfter}), is checked against the table, and the event's
   * other changes are copied in. A window event for a window without an instance creates it only
   * when the event creates instances (a schedule, a skip, a miss or a wait); otherwise the window
   * left the hot state (R30) or never had an instance, and the state is unchanged.
   */
  private static final class Step implements TaskJournal.Visitor<State> {
    private final State s;
    private final HotState hot;
    private final Violations violations;
    /** Where the status changes are told, or null when nobody reads them. */
    private final List<WindowChange> changes;
    private WindowState w;
    private InstanceStatus to;

    Step(State s, HotState hot, Violations violations, List<WindowChange> changes) {
      this.s = s;
      this.hot = hot;
      this.violations = violations;
      this.changes = changes;
    }

    @Override
    public State specDefined(SpecDefined e) {
      return s.withSpec(e.spec()).withRemovedAt(null); // a removed task defined again is live again
    }

    @Override
    public State taskPaused(TaskPaused e) {
      if (e.onFailures() && e.failures() != null) { // the streak that paused it, kept for "why" until a resume
        TaskJournal.FailureStreak f = e.failures();
        return s.withPaused(true).withFailures(new TaskJournal.FailureStreak(f.count(), f.first(), f.last(), e.at()));
      }
      return s.withPaused(true);
    }

    @Override
    public State taskResumed(TaskResumed e) {
      return s.withPaused(false).withFailures(null); // an operator's resume starts the failure count again
    }

    @Override
    public State taskRemoved(TaskRemoved e) {
      return s.withRemovedAt(e.at()).withPaused(false).withFailures(null); // defined again, it starts as a new task would
    }

    /** {@link #enter(State, WindowEvent, WindowChange.Cause, int)} for an event that never changes a status. */
    private State enter(State state, WindowEvent e) {
      return enter(state, e, null, NO_ATTEMPT);
    }

    /**
     * Looks the window up and checks the event's transition. Returns the state to answer with when the
     * event stops here (refused, or about no hot instance), or null to go on with {@link #w} and
     * {@link #to}; a status change that goes on is told as a {@link WindowChange} with its cause (the
     * event's summary) and its attempt (the event's, or {@link #NO_ATTEMPT}: the window's).
     */
    private State enter(State state, WindowEvent e, WindowChange.Cause cause, int attempt) {
      w = state.windows().get(e.window());
      InstanceStatus from = w == null ? null : w.status();
      to = e.statusAfter(from);
      if (to != null && !Transition.isAllowed(from, to)) {
        if (w == null && state.archivedThrough() != null) {
          return state; // the window left the hot state; the journal keeps the event for audit (R30)
        }
        violations.violated(e.window(), from, to, e);
        return state;
      }
      if (w == null && !e.createsInstance()) {
        return state; // an event about a window that left the hot state (R30), or never had an instance
      }
      if (to != null && changes != null) {
        changes.add(new WindowChange(io.almanac.WindowKey.of(e.window()), from, to,
            attempt != NO_ATTEMPT ? attempt : w == null ? 0 : w.attempt(), java.util.Objects.requireNonNull(cause,
                () -> e.getClass().getSimpleName() + " changes a status: Evolve names its cause"), e));
      }
      return null;
    }

    /** The window's copy with the event's status and its other changes. */
    private State update(State state, WindowEvent e, Consumer<WindowState.Copy> change) {
      WindowState.Copy c = w.copy();
      if (to != null) {
        c.status = to;
      }
      change.accept(c);
      return state.withWindow(c.at(e.at()), hot);
    }

    @Override
    public State instanceScheduled(InstanceScheduled x) {
      return scheduled(s, x);
    }

    private State scheduled(State state, InstanceScheduled x) {
      State stop = enter(state, x, new WindowChange.Scheduled(x.kind()), NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      if (w == null) {
        return state.withWindow(WindowState.created(x.window(), x.start(), x.end(), x.dueAt(), to, x.kind(), null, null,
            x.at()), hot);
      }
      boolean released = w.status() == InstanceStatus.WAITING;
      return update(state, x, c -> {
        c.runKind = x.kind();
        if (released) {
          c.reason = null; // "waiting for ..." no longer holds
        }
        c.leaseUntil = null;
        c.executor = null;
        c.retryDueAt = null;
        if (x.kind() != RunKind.RETRY && x.kind() != RunKind.RESUME) {
          c.retries = 0; // a resume spends no retry and keeps the count
        }
        if (x.kind() != RunKind.RESUME) {
          c.interruptions = 0;
        }
      });
    }

    @Override
    public State fireSkipped(FireSkipped x) {
      State s = budgetSkip(this.s, x.reason(), x.at());
      State stop = enter(s, x, new WindowChange.Skipped(x.reason(), null, x.detail(), 1, false, null), NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      if (w != null) {
        return s; // recorded for an existing window (an operator's run of a done one): status unchanged
      }
      return s.withWindow(WindowState.created(x.window(), x.start(), x.end(), x.dueAt(), to, RunKind.FIRST,
          x.reason() + ": " + x.detail(), x.reason(), x.at()), hot);
    }

    @Override
    public State windowMissed(WindowMissed x) {
      State stop = enter(s, x, new WindowChange.Skipped(null, x.reason(), x.detail(), 1, false, null), NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      if (w != null) {
        return s; // recorded for an existing window: status unchanged
      }
      return s.withWindow(WindowState.created(x.window(), x.start(), x.end(), x.dueAt(), to, RunKind.BACKFILL,
          x.reason() + ": " + x.detail(), null, x.reason(), null, x.at()), hot);
    }

    @Override
    public State skipRangeOpened(TaskJournal.SkipRangeOpened x) {
      State s = x.skipReason() == null ? this.s : budgetSkip(this.s, x.skipReason(), x.at());
      State first = rangeFirst(s, x, x.start(), x.end(), x.dueAt(), x.outcome(), x.skipReason(), x.missReason(), x.detail(),
          OPEN_RANGE, new WindowChange.Skipped(x.skipReason(), x.missReason(), x.detail(), 1, true, null));
      return first.withOpenRange(x.range()); // open even when its first window is already gone (it covers what follows)
    }

    @Override
    public State skipRangeClosed(TaskJournal.SkipRangeClosed x) {
      State named = s;
      WindowState first = s.windows().get(x.window());
      if (first != null && x.reason() != null
          && (first.status() == InstanceStatus.SKIPPED || first.status() == InstanceStatus.MISSED)) {
        // the first window's row names its range (read models and views show the range as this one window)
        WindowState.Copy c = first.copy();
        c.reason = x.reason() + rangeText(x.count(), x.window(), x.lastWindow());
        named = s.withWindow(c.at(x.at()), hot);
      }
      SkipRange open = named.openRange();
      if (open == null || !open.firstWindow().equals(x.window())) {
        return named; // no such open range (a read model's one-window fold): only the window's words change
      }
      if (open.skipReason() == io.almanac.SkipReason.BUDGET_EXHAUSTED && named.spec() != null) {
        // the windows it covered were skipped on its day too: counted when it closes (its first was, when it opened)
        named = named.withBudget(BudgetDay.skipped(named.budget(), BudgetDay.dayOf(named.spec(), open.openedAt()), x.count() - 1));
      }
      return named.withClosedRange(open.closed(x.lastWindow(), x.lastStart(), x.lastDue(), x.count(), x.at()), true);
    }

    @Override
    public State windowsSkipped(TaskJournal.WindowsSkipped x) {
      State s = x.skipReason() != io.almanac.SkipReason.BUDGET_EXHAUSTED || this.s.spec() == null ? this.s
          : this.s.withBudget(BudgetDay.skipped(this.s.budget(), BudgetDay.dayOf(this.s.spec(), x.at()), x.count()));
      State first = rangeFirst(s, x, x.start(), x.end(), x.dueAt(), x.outcome(), x.skipReason(), x.missReason(), x.detail(),
          rangeText(x.count(), x.window(), x.lastWindow()),
          new WindowChange.Skipped(x.skipReason(), x.missReason(), x.detail(), x.count(), false, null));
      return first.withClosedRange(x.range(), false);
    }

    /**
     * A range's first window, created SKIPPED or MISSED as a {@link FireSkipped} or {@link WindowMissed} would; its
     * reason names its range ({@link #OPEN_RANGE} while open, then its count, first and last window).
     */
    private State rangeFirst(State s, WindowEvent x, java.time.Instant start, java.time.Instant end, java.time.Instant dueAt,
        InstanceStatus outcome, io.almanac.SkipReason skip, io.almanac.MissReason miss, String detail, String range,
        WindowChange.Cause cause) {
      State stop = enter(s, x, cause, NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      if (w != null) {
        return s; // recorded for an existing window: status unchanged
      }
      String reason = (skip != null ? skip.name() : String.valueOf(miss)) + ": " + detail + range;
      return s.withWindow(WindowState.created(x.window(), start, end, dueAt, to, skip != null ? RunKind.FIRST : RunKind.BACKFILL,
          reason, skip, miss, null, x.at()), hot);
    }

    @Override
    public State windowWaiting(WindowWaiting x) {
      State stop = enter(s, x, new WindowChange.Waiting(x.kind(), x.waitingFor()), NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      if (w == null) {
        return s.withWindow(WindowState.created(x.window(), x.start(), x.end(), x.dueAt(), to, x.kind(),
            "waiting for " + x.waitingFor(), null, x.waitUntil(), x.at()), hot);
      }
      return s; // unreachable: the table has no way into WAITING from an instance's status, refused above
    }

    @Override
    public State attemptStarted(AttemptStarted x) {
      return started(s, x);
    }

    private State started(State state, AttemptStarted x) {
      State stop = enter(state, x, new WindowChange.Started(x.kind(), x.leaseUntil(), x.executor()), x.attempt());
      if (stop != null) {
        return stop;
      }
      return update(state, x, c -> {
        c.attempt = x.attempt();
        c.runKind = x.kind();
        c.leaseUntil = x.leaseUntil();
        c.executor = x.executor();
        c.startedAt = x.at();
        c.traceparent = x.traceparent(); // null: this attempt's span is not known, so none to link to
        c.retryDueAt = null;
        if (c.poolWait != null) {
          // started: it waits for no pool now. The pool wait set the reason last (another reason, e.g. the last
          // failure's, stays when no pool held it); the wait itself ends as the window leaves PENDING.
          c.reason = null;
        }
      });
    }

    @Override
    public State windowStarted(TaskJournal.WindowStarted x) {
      // its schedule, then its start: each transition looked up in the table like any other
      return started(scheduled(s, x.scheduled()), x.started());
    }

    @Override
    public State leaseExtended(LeaseExtended x) {
      State stop = enter(s, x);
      if (stop != null) {
        return stop;
      }
      return w.status() != InstanceStatus.RUNNING || w.attempt() != x.attempt() ? s
          : update(s, x, c -> c.leaseUntil = x.leaseUntil());
    }

    @Override
    public State attemptSucceeded(AttemptSucceeded x) {
      State used = used(s, x.at(), x.usage());
      State stop = enter(used, x, new WindowChange.Ended(x.duration(), x.usage(), null, false), x.attempt());
      if (stop != null) {
        return stop;
      }
      // a success ends a run of failures, except while paused: the pause's cause stands until a resume
      State after = used.failures() == null || used.paused() ? used : used.withFailures(null);
      return update(after.withSample(x.duration()), x, c -> {
        c.resultAttempt = x.attempt();
        c.summary = x.summary();
        c.artifactUri = x.artifactUri();
        c.reason = null;
        c.leaseUntil = null;
        c.interruptions = 0;
        c.usage = WindowState.plus(c.usage, x.usage());
      });
    }

    @Override
    public State attemptFailed(AttemptFailed x) {
      State used = used(s, x.at(), x.usage());
      State stop = enter(used, x, new WindowChange.Ended(x.duration(), x.usage(), x.reason(), x.throttled()), x.attempt());
      if (stop != null) {
        return stop;
      }
      return update(used.withSample(x.duration()), x, c -> {
        c.resultAttempt = x.attempt();
        c.reason = x.reason();
        c.endCause = x.throttled() ? io.almanac.EndCause.THROTTLED : io.almanac.EndCause.JOB_FAILED;
        c.leaseUntil = null;
        c.interruptions = 0;
        c.usage = WindowState.plus(c.usage, x.usage());
      });
    }

    @Override
    public State attemptTimedOut(AttemptTimedOut x) {
      State stop = enter(s, x, new WindowChange.TimedOut(x.leaseUntil(), x.duration(), Rules.leaseEnded(x)), x.attempt());
      if (stop != null) {
        return stop;
      }
      return update(x.duration() == null ? s : s.withSample(x.duration()), x, c -> {
        c.reason = "lease expired at " + x.leaseUntil();
        c.endCause = io.almanac.EndCause.TIMED_OUT;
        c.leaseUntil = null;
        c.interruptions = 0;
      });
    }

    @Override
    public State attemptInterrupted(TaskJournal.AttemptInterrupted x) {
      State stop = enter(s, x, new WindowChange.Interrupted(x.cause(), x.detail()), x.attempt());
      if (stop != null) {
        return stop;
      }
      // no duration sample: an interruption says nothing of how long the job takes
      return update(s, x, c -> {
        c.reason = x.reason();
        c.endCause = x.cause() == null ? null : io.almanac.EndCause.of(x.cause());
        c.leaseUntil = null;
        c.interruptions = c.interruptions + 1;
      });
    }

    @Override
    public State lateResultRecorded(LateResultRecorded x) {
      State used = used(s, x.at(), x.usage());
      State stop = enter(used, x);
      if (stop != null) {
        return stop;
      }
      return update(used, x, c -> {
        c.resultAttempt = Math.max(c.resultAttempt, x.attempt());
        c.usage = WindowState.plus(c.usage, x.usage());
      });
    }

    @Override
    public State retryScheduled(RetryScheduled x) {
      State stop = enter(s, x, new WindowChange.RetryPlanned(x.retryNumber(), x.dueAt()), NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      return update(s, x, c -> {
        c.retries = x.retryNumber();
        c.retryDueAt = x.dueAt();
      });
    }

    @Override
    public State instanceFinalFailed(InstanceFinalFailed x) {
      State stop = enter(s, x, new WindowChange.FailedForGood(x.reason()), NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      return update(s.withFailures(TaskJournal.FailureStreak.plus(s.failures(), x.window())), x, c -> {
        c.reason = x.reason();
        c.leaseUntil = null;
        c.retryDueAt = null;
      });
    }

    @Override
    public State instanceResolved(InstanceResolved x) {
      State stop = enter(s, x, new WindowChange.Resolved(x.note()), NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      return update(s, x, c -> c.reason = x.note());
    }

    @Override
    public State instanceCancelled(InstanceCancelled x) {
      State stop = enter(s, x, new WindowChange.Cancelled(x.reason()), x.attempt());
      if (stop != null) {
        return stop;
      }
      return update(s, x, c -> {
        c.reason = x.reason();
        c.endCause = x.cause() == TaskJournal.CancelCause.TASK_REMOVED ? io.almanac.EndCause.TASK_REMOVED
            : x.cause() == TaskJournal.CancelCause.SUPERSEDED ? io.almanac.EndCause.SUPERSEDED : io.almanac.EndCause.CANCELLED;
        c.leaseUntil = null;
        c.retryDueAt = null;
      });
    }

    @Override
    public State waitSatisfied(TaskJournal.WaitSatisfied x) {
      return s; // recorded for the audit and "why": the window is unchanged
    }

    @Override
    public State waitEnded(WaitEnded x) {
      State s = x.pool() != null ? this.s : budgetSkip(this.s, x.reason(), x.at()); // a pool's skip is not the task's budget
      State stop = enter(s, x, new WindowChange.Skipped(x.reason(), null, x.detail(), 1, false, x.pool()), NO_ATTEMPT);
      if (stop != null) {
        return stop;
      }
      return update(s, x, c -> {
        c.reason = x.reason() + ": " + x.detail();
        c.skipReason = x.reason();
      });
    }

    @Override
    public State eventReceived(EventReceived x) {
      // remembered even when its window left the hot state
      State withId = s.withEventId(x.eventId(), x.window(), hot.eventIds());
      State stop = enter(withId, x);
      if (stop != null) {
        return stop;
      }
      return update(withId, x, c -> c.events = (c.events == null ? new WindowState.EventTally(0, 0, null, null)
          : c.events).receivedOne(x.eventId()));
    }

    @Override
    public State eventDuplicated(EventDuplicated x) {
      State stop = enter(s, x);
      if (stop != null) {
        return stop;
      }
      return update(s, x, c -> c.events = (c.events == null ? new WindowState.EventTally(0, 0, null, null)
          : c.events).duplicatedOne());
    }

    @Override
    public State effectIntended(EffectIntended x) {
      State stop = enter(s, x);
      if (stop != null) {
        return stop;
      }
      return update(s, x, c -> {
        if (!c.pendingEffects.contains(x.key()) && !c.effects.containsKey(x.key())) {
          List<String> next = new ArrayList<>(c.pendingEffects);
          next.add(x.key());
          c.pendingEffects = next;
        }
      });
    }

    @Override
    public State effectRecorded(EffectRecorded x) {
      State stop = enter(s, x);
      if (stop != null) {
        return stop;
      }
      return update(s, x, c -> {
        Map<String, String> next = new LinkedHashMap<>(c.effects);
        next.putIfAbsent(x.key(), x.value());
        c.effects = next;
        if (c.pendingEffects.contains(x.key())) {
          List<String> pending = new ArrayList<>(c.pendingEffects);
          pending.remove(x.key());
          c.pendingEffects = pending;
        }
      });
    }

    /**
     * A step's result joins the window's steps (the first record of a name stands), and the usage
     * reported inside it is counted once, here: on the task's day and on the window.
     */
    @Override
    public State stepRecorded(TaskJournal.StepRecorded x) {
      State used = x.usage() == null ? s
          : s.withBudget(BudgetDay.plus(s.budget(), BudgetDay.dayOf(s.spec(), x.at()), x.usage(), false));
      State stop = enter(used, x);
      if (stop != null) {
        return stop;
      }
      return update(used, x, c -> {
        if (!c.steps.containsKey(x.name())) {
          Map<String, WindowState.RecordedStep> next = new LinkedHashMap<>(c.steps);
          next.put(x.name(), new WindowState.RecordedStep(x.attempt(), x.type(), x.result(), x.usage(), x.duration(), x.at()));
          c.steps = next;
        }
        c.usage = WindowState.plus(c.usage, x.usage());
      });
    }

    @Override
    public State stepsReplayed(TaskJournal.StepsReplayed x) {
      return s; // recorded for the window's history: the hot state is unchanged
    }

    @Override
    public State conditionCheckFailed(TaskJournal.ConditionCheckFailed x) {
      return s; // recorded for the audit and "why": the window is unchanged
    }

    @Override
    public State upstreamRerunRecorded(TaskJournal.UpstreamRerunRecorded x) {
      return s; // recorded for the audit and "why": the window is unchanged
    }

    // Budgets: the day's usage, raises and budget skips (BudgetDay); the day is the event's, in the task's zone

    @Override
    public State budgetRaised(TaskJournal.BudgetRaised x) {
      return s.withBudget(BudgetDay.raised(s.budget(), x.day(), x.amountMicros()));
    }

    /** The state with an attempt's usage added to its day's sums (a past day's usage is not today's). */
    private static State used(State state, java.time.Instant at, UsageRecord usage) {
      if (usage == null) {
        return state;
      }
      return state.withBudget(BudgetDay.plus(state.budget(), BudgetDay.dayOf(state.spec(), at), usage));
    }

    /** The state with a window skipped because the budget was spent counted on its day. */
    private static State budgetSkip(State state, io.almanac.SkipReason reason, java.time.Instant at) {
      if (reason != io.almanac.SkipReason.BUDGET_EXHAUSTED) {
        return state;
      }
      return state.withBudget(BudgetDay.skipped(state.budget(), BudgetDay.dayOf(state.spec(), at)));
    }

    @Override
    public State attemptLogged(TaskJournal.AttemptLogged x) {
      return s; // kept with the window's history (read by the audit and the views of it), never in the hot state
    }

    @Override
    public State deadlineMissed(TaskJournal.DeadlineMissed x) {
      State stop = enter(s, x);
      if (stop != null || w.deadlineMissedAt() != null) {
        return stop != null ? stop : s; // recorded once per window
      }
      WindowState.Copy c = w.copy();
      c.deadlineMissedAt = x.at();
      return s.withWindow(c.at(w.updatedAt()), hot); // no change of the instance's run: its updatedAt stays
    }

    @Override
    public State poolWaited(TaskJournal.PoolWaited x) {
      State stop = enter(s, x);
      if (stop != null) {
        return stop;
      }
      // the window stays PENDING; its reason says what it waits for (views and the dashboard show it)
      return update(s, x, c -> {
        c.reason = poolWaitText(x);
        c.poolWait = new WindowState.PoolWait(x.pool(), x.reason(), x.until(), x.at()); // cleared when it leaves PENDING
      });
    }
  }

  /** How {@link #poolWaitText} starts. */
  private static final String POOL_WAIT_PREFIX = "waiting for pool ";

  /**
   * @param e a wait for a pool
   * @return how a view shows it, e.g. {@code waiting for pool openai: FULL} or {@code ...: PAUSED until 2026-...}
   */
  public static String poolWaitText(TaskJournal.PoolWaited e) {
    return POOL_WAIT_PREFIX + e.pool() + ": " + e.reason() + (e.until() == null ? "" : " until " + e.until());
  }
}
