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
 * event-to-status mapping.
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

  /**
   * The status an event asks its window to take, or empty when the event changes no status
   * (leases, late results, effects, task-level events, and a skip or miss recorded for a window
   * that already has an instance).
   *
   * @param current the window's status before the event, or null when it has no instance
   * @param event the event
   * @return the status after, if the event changes it
   */
  public static Optional<InstanceStatus> targetStatus(InstanceStatus current, Event event) {
    InstanceStatus to;
    if (event instanceof InstanceScheduled) {
      to = InstanceStatus.PENDING;
    } else if (event instanceof FireSkipped) {
      to = current == null ? InstanceStatus.SKIPPED : null;
    } else if (event instanceof WindowMissed) {
      to = current == null ? InstanceStatus.MISSED : null;
    } else if (event instanceof AttemptStarted || event instanceof TaskJournal.WindowStarted) {
      to = InstanceStatus.RUNNING; // a WindowStarted goes through PENDING first (see apply)
    } else if (event instanceof AttemptSucceeded) {
      to = InstanceStatus.SUCCEEDED;
    } else if (event instanceof AttemptFailed) {
      to = InstanceStatus.FAILED;
    } else if (event instanceof AttemptTimedOut) {
      to = InstanceStatus.TIMED_OUT;
    } else if (event instanceof RetryScheduled) {
      to = InstanceStatus.RETRY_WAIT;
    } else if (event instanceof InstanceFinalFailed) {
      to = InstanceStatus.FINAL_FAILED;
    } else if (event instanceof InstanceResolved) {
      to = InstanceStatus.RESOLVED;
    } else if (event instanceof InstanceCancelled) {
      to = InstanceStatus.CANCELLED;
    } else if (event instanceof WindowWaiting) {
      to = InstanceStatus.WAITING;
    } else if (event instanceof WaitEnded) {
      to = InstanceStatus.SKIPPED;
    } else {
      to = null;
    }
    return Optional.ofNullable(to);
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
    if (e instanceof SpecDefined d) {
      return s.withSpec(d.spec()).withRemovedAt(null); // a removed task defined again is live again
    }
    if (e instanceof TaskRemoved r) {
      return s.withRemovedAt(r.at()).withPaused(false); // defined again, it starts as a new task would: not paused
    }
    if (e instanceof TaskPaused) {
      return s.withPaused(true);
    }
    if (e instanceof TaskResumed) {
      return s.withPaused(false);
    }
    if (!(e instanceof WindowEvent we)) {
      return s;
    }
    if (e instanceof TaskJournal.WindowStarted started) {
      // its schedule, then its start: each transition looked up in the table like any other
      return apply(apply(s, started.scheduled(), hot, violations), started.started(), hot, violations);
    }
    if (e instanceof EventReceived r) {
      s = s.withEventId(r.eventId(), r.window(), hot.eventIds()); // remembered even when its window left the hot state
    }
    WindowState w = s.windows().get(we.window());
    InstanceStatus from = w == null ? null : w.status();
    Optional<InstanceStatus> to = targetStatus(from, e);
    if (to.isPresent() && !Transition.isAllowed(from, to.get())) {
      if (w == null && s.archivedThrough() != null) {
        return s; // the window left the hot state; the journal keeps the event for audit (R30)
      }
      violations.violated(we.window(), from, to.get(), e);
      return s;
    }
    if (w == null) {
      return created(s, e, hot);
    }
    return changed(s, w, e, to.orElse(null), hot);
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

  /** A window's first event: a schedule, a skip or a miss creates its instance. */
  private static State created(State s, Event e, HotState hot) {
    if (e instanceof InstanceScheduled x) {
      return s.withWindow(
          WindowState.created(x.window(), x.start(), x.end(), x.dueAt(), InstanceStatus.PENDING, x.kind(), null, null, x.at()), hot);
    }
    if (e instanceof FireSkipped x) {
      return s.withWindow(WindowState.created(x.window(), x.start(), x.end(), x.dueAt(), InstanceStatus.SKIPPED,
          RunKind.FIRST, x.reason() + ": " + x.detail(), x.reason(), x.at()), hot);
    }
    if (e instanceof WindowMissed x) {
      return s.withWindow(WindowState.created(x.window(), x.start(), x.end(), x.dueAt(), InstanceStatus.MISSED,
          RunKind.BACKFILL, x.reason() + ": " + x.detail(), null, x.at()), hot);
    }
    if (e instanceof WindowWaiting x) {
      return s.withWindow(WindowState.created(x.window(), x.start(), x.end(), x.dueAt(), InstanceStatus.WAITING,
          x.kind(), "waiting for " + x.waitingFor(), null, x.waitUntil(), x.at()), hot);
    }
    return s; // an event about a window that left the hot state (R30), or never had an instance
  }

  private static State changed(State s, WindowState w, Event e, InstanceStatus to, HotState hot) {
    if (e instanceof InstanceScheduled x) {
      boolean released = w.status() == InstanceStatus.WAITING;
      return update(s, w, x, to, hot, c -> {
        c.runKind = x.kind();
        if (released) {
          c.reason = null; // "waiting for ..." no longer holds
        }
        c.leaseUntil = null;
        c.executor = null;
        c.retryDueAt = null;
        if (x.kind() != RunKind.RETRY) {
          c.retries = 0;
        }
      });
    }
    if (e instanceof FireSkipped || e instanceof WindowMissed) {
      return s; // recorded for an existing window (an operator's run of a done one): status unchanged
    }
    if (e instanceof AttemptStarted x) {
      return update(s, w, x, to, hot, c -> {
        c.attempt = x.attempt();
        c.runKind = x.kind();
        c.leaseUntil = x.leaseUntil();
        c.executor = x.executor();
        c.startedAt = x.at();
        c.retryDueAt = null;
      });
    }
    if (e instanceof LeaseExtended x) {
      return w.status() != InstanceStatus.RUNNING || w.attempt() != x.attempt() ? s
          : update(s, w, x, to, hot, c -> c.leaseUntil = x.leaseUntil());
    }
    if (e instanceof AttemptSucceeded x) {
      return update(s.withSample(x.duration()), w, x, to, hot, c -> {
        c.resultAttempt = x.attempt();
        c.summary = x.summary();
        c.artifactUri = x.artifactUri();
        c.reason = null;
        c.leaseUntil = null;
      });
    }
    if (e instanceof AttemptFailed x) {
      return update(s.withSample(x.duration()), w, x, to, hot, c -> {
        c.resultAttempt = x.attempt();
        c.reason = x.reason();
        c.leaseUntil = null;
      });
    }
    if (e instanceof AttemptTimedOut x) {
      return update(x.duration() == null ? s : s.withSample(x.duration()), w, x, to, hot, c -> {
        c.reason = "lease expired at " + x.leaseUntil();
        c.leaseUntil = null;
      });
    }
    if (e instanceof LateResultRecorded x) {
      return update(s, w, x, to, hot, c -> c.resultAttempt = Math.max(c.resultAttempt, x.attempt()));
    }
    if (e instanceof RetryScheduled x) {
      return update(s, w, x, to, hot, c -> {
        c.retries = x.retryNumber();
        c.retryDueAt = x.dueAt();
      });
    }
    if (e instanceof InstanceFinalFailed x) {
      return update(s, w, x, to, hot, c -> {
        c.reason = x.reason();
        c.leaseUntil = null;
        c.retryDueAt = null;
      });
    }
    if (e instanceof InstanceResolved x) {
      return update(s, w, x, to, hot, c -> {
        c.reason = x.note();
      });
    }
    if (e instanceof InstanceCancelled x) {
      return update(s, w, x, to, hot, c -> {
        c.reason = x.reason();
        c.leaseUntil = null;
        c.retryDueAt = null;
      });
    }
    if (e instanceof WaitEnded x) {
      return update(s, w, x, to, hot, c -> {
        c.reason = x.reason() + ": " + x.detail();
        c.skipReason = x.reason();
      });
    }
    if (e instanceof EventReceived x) {
      return update(s, w, x, to, hot, c -> c.events = (c.events == null ? new WindowState.EventTally(0, 0, null, null)
          : c.events).receivedOne(x.eventId()));
    }
    if (e instanceof EventDuplicated x) {
      return update(s, w, x, to, hot, c -> c.events = (c.events == null ? new WindowState.EventTally(0, 0, null, null)
          : c.events).duplicatedOne());
    }
    if (e instanceof EffectIntended x) {
      return update(s, w, x, to, hot, c -> {
        if (!c.pendingEffects.contains(x.key()) && !c.effects.containsKey(x.key())) {
          List<String> next = new ArrayList<>(c.pendingEffects);
          next.add(x.key());
          c.pendingEffects = next;
        }
      });
    }
    if (e instanceof EffectRecorded x) {
      return update(s, w, x, to, hot, c -> {
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
    return s;
  }

  /** A window's copy with the event's status (from {@link #targetStatus}, if it changes one) and its other changes. */
  private static State update(State s, WindowState w, WindowEvent e, InstanceStatus to, HotState hot,
      Consumer<WindowState.Copy> change) {
    WindowState.Copy c = w.copy();
    if (to != null) {
      c.status = to;
    }
    change.accept(c);
    return s.withWindow(c.at(e.at()), hot);
  }
}
