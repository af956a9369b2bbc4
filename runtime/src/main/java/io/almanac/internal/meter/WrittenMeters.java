package io.almanac.internal.meter;

import static io.almanac.internal.meter.Counts.name;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.internal.meter.NodeMeters.Origin;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowChange;
import io.almanac.journal.WindowState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a task entity's write counts: the decisions, attempts, retries, final failures and lease
 * expiries its window status changes say ({@link WindowChange}, whatever event kind made them), the
 * jobs' durations and usage, the trigger's lag, and the few facts that change no status (steps, late
 * results, deadlines missed, budget raises). A new kind of event that changes a status is counted by
 * its change, with no edit here. INTERNAL API.
 */
final class WrittenMeters {

  private final Counts counts;
  private final TaskTags taskTags;
  private final Timer triggerLag;
  /**
   * Windows ("task|window") a gate let go that have not started yet: their first start is not the
   * trigger's lag. As many as released windows queued (a node that restarts forgets them: their
   * start is then measured as lag once).
   */
  private final Map<String, Boolean> released = new ConcurrentHashMap<>();

  WrittenMeters(MeterRegistry registry, Counts counts, TaskTags taskTags) {
    this.counts = counts;
    this.taskTags = taskTags;
    this.triggerLag = Timer.builder("almanac.trigger.lag")
        .description("start of an on-time window's first attempt minus its due time")
        .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofHours(1))
        .register(registry);
  }

  /**
   * Counts one write, in event order: each event's status changes, then what it says besides.
   *
   * @return when a window of the write succeeded (the last such), or null
   */
  Instant written(String taskId, Origin origin, State before, State after, List<Event> events, List<WindowChange> changes) {
    String tag = taskTags.tag(taskId);
    Instant succeededAt = null;
    int next = 0; // the changes are in event order: those of an event follow those of the events before it
    for (Event e : events) {
      boolean changed = false;
      for (; next < changes.size() && changes.get(next).event().equals(e); next++) {
        changed = true;
        Instant ok = changed(taskId, tag, origin, before, after, changes.get(next));
        succeededAt = ok != null ? ok : succeededAt;
      }
      recorded(taskId, tag, origin, e, changed);
    }
    return succeededAt;
  }

  /** What one status change counts; when a window succeeded, its time. */
  private Instant changed(String taskId, String tag, Origin origin, State before, State after, WindowChange c) {
    String window = c.key().value();
    if (c.cause() instanceof WindowChange.Scheduled x) {
      counts.decision(tag, kind(origin, x.kind()), "scheduled", "none", 1); // an operator's retry leaves the queue
    } else if (c.cause() instanceof WindowChange.Waiting x) {
      counts.decision(tag, kind(origin, x.kind()), "waiting", "none", 1); // a gate holds it (dependency, condition)
    } else if (c.cause() instanceof WindowChange.Skipped x) {
      // a wait that ended (its deadline passed first, DEPENDENCY_NOT_MET, CONDITION_NOT_MET) is of the kind it waited as
      RunKind waited = c.from() == null || before == null ? null : before.window(window).map(WindowState::runKind).orElse(null);
      counts.decision(tag, kind(origin, waited), c.to() == InstanceStatus.MISSED ? "missed" : "skipped",
          x.skipReason() != null ? name(x.skipReason()) : name(x.missReason()), x.windows());
    } else if (c.cause() instanceof WindowChange.Started x) {
      counts.count("almanac.attempts.started", tag, "kind", name(x.kind()));
      if (x.kind() == RunKind.FIRST && released.remove(taskId + "|" + window) == null && !was(before, window,
          InstanceStatus.WAITING)) {
        // a window a gate held (WAITING) started once it was let go, not when due: not the trigger's lag
        after.window(window).map(WindowState::dueAt).ifPresent(due -> triggerLag.record(lag(firesAt(after, window, due),
            c.at())));
      }
    } else if (c.cause() instanceof WindowChange.Ended x) {
      boolean ok = c.to() == InstanceStatus.SUCCEEDED;
      counts.count("almanac.attempts", tag, "outcome", ok ? "succeeded" : x.throttled() ? "throttled" : "failed");
      counts.jobDuration(tag, x.duration());
      counts.usage(tag, x.usage());
      return ok ? c.at() : null;
    } else if (c.cause() instanceof WindowChange.TimedOut x) {
      counts.count("almanac.attempts", tag, "outcome", "timed_out");
      counts.count("almanac.lease.expiries", "cause", x.leaseEnded() ? "lease_expired" : "executor_gone");
    } else if (c.cause() instanceof WindowChange.Interrupted) {
      counts.count("almanac.attempts", tag, "outcome", "interrupted");
    } else if (c.cause() instanceof WindowChange.RetryPlanned) {
      counts.count("almanac.retries.scheduled", null, null);
    } else if (c.cause() instanceof WindowChange.FailedForGood) {
      counts.count("almanac.windows.final.failed", null, null);
    } else if (c.cause() instanceof WindowChange.Cancelled) {
      released.remove(taskId + "|" + window);
      if (was(before, window, InstanceStatus.RUNNING)) {
        count(tag, "cancelled");
      }
    }
    return null; // RESOLVED: the gauges count it
  }

  private void count(String tag, String outcome) {
    counts.count("almanac.attempts", tag, "outcome", outcome);
  }

  /**
   * What an event says besides a status change: a skip or a miss recorded beside a window that
   * already has an instance (a decision all the same), late results, steps, a gate's release,
   * deadlines missed, budget raises. The other kinds count nothing of their own.
   */
  private void recorded(String taskId, String tag, Origin origin, Event e, boolean changed) {
    if (!changed && e instanceof TaskJournal.FireSkipped x) {
      counts.decision(tag, kind(origin, null), "skipped", name(x.reason()), 1);
    } else if (!changed && e instanceof TaskJournal.WindowMissed x) {
      counts.decision(tag, kind(origin, null), "missed", name(x.reason()), 1);
    } else if (!changed && e instanceof TaskJournal.SkipRangeOpened x) {
      counts.decision(tag, kind(origin, null), x.outcome() == InstanceStatus.MISSED ? "missed" : "skipped",
          reasonOf(x.range()), 1);
    } else if (!changed && e instanceof TaskJournal.WindowsSkipped x) {
      counts.decision(tag, kind(origin, null), x.outcome() == InstanceStatus.MISSED ? "missed" : "skipped",
          reasonOf(x.range()), x.count());
    } else if (e instanceof TaskJournal.LateResultRecorded x) {
      count(tag, "late_result");
      counts.usage(tag, x.usage());
    } else if (e instanceof TaskJournal.StepRecorded) {
      counts.count("almanac.steps", tag, "kind", "recorded");
    } else if (e instanceof TaskJournal.StepsReplayed x) {
      for (int i = 0; i < x.names().size(); i++) {
        counts.count("almanac.steps", tag, "kind", "replayed");
      }
    } else if (e instanceof TaskJournal.WaitSatisfied x) {
      released.put(taskId + "|" + x.window(), Boolean.TRUE); // its start, in this write or a later one, is not lag
    } else if (e instanceof TaskJournal.DeadlineMissed x) {
      counts.count("almanac.deadlines.missed", "status", name(x.status()));
    } else if (e instanceof TaskJournal.BudgetRaised) {
      counts.count("almanac.budget.raises", null, null);
    }
  }

  /**
   * A window an open skip range covered (docs/skip-ranges.md): decided like the range's first, with
   * no event written; counted as a decision all the same.
   */
  void covered(String taskId, io.almanac.journal.SkipRange range, boolean catchUp) {
    counts.decision(taskTags.tag(taskId), kind(catchUp ? Origin.CATCH_UP : Origin.ON_TIME, null),
        range.outcome() == InstanceStatus.MISSED ? "missed" : "skipped", reasonOf(range), 1);
  }

  /** Whether the window had the status before the write. */
  private static boolean was(State before, String window, InstanceStatus status) {
    return before != null && before.window(window).map(w -> w.status() == status).orElse(false);
  }

  private static String reasonOf(io.almanac.journal.SkipRange r) {
    return r.skipReason() != null ? name(r.skipReason()) : name(r.missReason());
  }

  /** The decision's kind: a retry is a retry whoever wrote it; else what brought the write about. */
  private static String kind(Origin origin, RunKind scheduled) {
    if (scheduled == RunKind.RETRY) {
      return "retry";
    }
    if (origin != null) {
      return name(origin);
    }
    if (scheduled == null) {
      return "unknown";
    }
    return switch (scheduled) {
      case FIRST -> "on_time";
      case MANUAL -> "manual";
      case BACKFILL -> "backfill";
      case RETRY -> "retry";
      case RESUME -> "resume";
    };
  }

  /**
   * When a window was meant to fire: its due time, plus its jitter offset for a task with jitter
   * (docs/schedules.md), so that the lag does not count the jitter.
   */
  static Instant firesAt(State state, String window, Instant due) {
    io.almanac.journal.SpecRecord spec = state.spec();
    if (spec == null || spec.schedule() == null || spec.schedule().jitter() == null) {
      return due;
    }
    return due.plus(io.almanac.schedule.Jitter.offset(spec.id(), window, spec.schedule().jitter()));
  }

  /** The trigger's lag: started minus due, never negative (a clock step or skew). */
  static Duration lag(Instant due, Instant started) {
    Duration d = Duration.between(due, started);
    return d.isNegative() ? Duration.ZERO : d;
  }
}
