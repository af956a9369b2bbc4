package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.OperatorNarrator.who;
import static io.almanac.persistence.audit.OperatorNarrator.withNote;
import static io.almanac.persistence.audit.WindowExplanation.ON_TIME;
import static io.almanac.persistence.audit.WindowExplanation.failures;
import static io.almanac.persistence.audit.WindowExplanation.human;
import static io.almanac.persistence.audit.WindowExplanation.late;
import static io.almanac.persistence.audit.WindowExplanation.node;

import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.journal.Rules;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.journal.WindowState;
import io.almanac.persistence.audit.AuditKinds.Placed;
import io.almanac.persistence.audit.AuditKinds.Told;
import io.almanac.persistence.audit.TaskCheck.Range;
import io.almanac.persistence.audit.TaskCheck.Segment;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The schedule's events, told and noted: the spec, fires, skips and misses, skip ranges
 * (docs/skip-ranges.md), catch-up and backfill, and the events that reach an event-triggered window
 * (coalesced). Owns their wording ({@link AuditEvent#detail()}), their steps in a window's
 * explanation ({@link WindowExplanation}) and why a window was skipped or missed, and what the verifier
 * notes of them ({@link TaskCheck}); their invariant is {@link ScheduleInvariants}.
 * Stateless: what they learn goes to the {@link Explainer} and the {@link TaskCheck}.
 */
final class ScheduleNarrator {

  private ScheduleNarrator() {}

  /** Registers the kinds this feature tells. */
  static void kinds(AuditKinds.Table t) {
    t.kind(TaskJournal.SpecDefined.class)
        .told(e -> new Told(AuditEvent.describe(e.spec()), 0))
        .narrated(ScheduleNarrator::specDefined)
        .noted((c, e) -> {
          c.specs.add(new Segment(e.spec(), c.at));
          c.specInEffect = e.spec();
        });
    t.kind(TaskJournal.InstanceScheduled.class)
        .told(e -> new Told(e.kind() + ", due " + e.dueAt() + ", window [" + e.start() + ", " + e.end() + ")"
            + AuditEvent.by(e.actor(), e.note()), 0))
        .placed(e -> new Placed(e.start(), e.dueAt()))
        .narrated(ScheduleNarrator::instanceScheduled)
        .noted((c, e) -> c.accounted(c.win, c.ref, e.dueAt()));
    t.kind(TaskJournal.FireSkipped.class)
        .told(e -> new Told(e.reason() + ": " + e.detail() + " (due " + e.dueAt() + ")", 0))
        .placed(e -> new Placed(e.start(), e.dueAt()))
        .narrated(ScheduleNarrator::fireSkipped)
        .noted((c, e) -> c.accounted(c.win, c.ref, e.dueAt()));
    t.kind(TaskJournal.WindowMissed.class)
        .told(e -> new Told(e.reason() + ": " + e.detail() + " (due " + e.dueAt() + ")", 0))
        .placed(e -> new Placed(e.start(), e.dueAt()))
        .narrated(ScheduleNarrator::windowMissed)
        .noted((c, e) -> c.accounted(c.win, c.ref, e.dueAt()));
    t.kind(TaskJournal.SkipRangeOpened.class)
        .told(e -> new Told(e.range().reason() + ": " + e.detail() + " (due " + e.dueAt() + "); opens a skip range: each window"
            + " due after it and decided alike is one of its windows, without an event of its own", 0))
        .placed(e -> new Placed(e.start(), e.dueAt()))
        .narrated(ScheduleNarrator::skipRangeOpened)
        .noted((c, e) -> {
          c.accounted(c.win, c.ref, e.dueAt());
          c.ranges.add(new Range(e.window(), e.dueAt(), null, c.ref)); // open: it covers every window due from its first on
        });
    t.kind(TaskJournal.SkipRangeClosed.class)
        .told(e -> new Told("skip range closed: " + e.count() + (e.count() == 1 ? " window, " : " windows from ") + e.window()
            + (e.count() == 1 ? "" : " to " + e.lastWindow()) + " (last due " + e.lastDue() + ")", 0))
        .narrated(ScheduleNarrator::skipRangeClosed)
        .noted((c, e) -> {
          for (int i = c.ranges.size() - 1; i >= 0; i--) {
            Range r = c.ranges.get(i);
            if (r.first().equals(e.window()) && r.lastDue() == null) {
              c.ranges.set(i, new Range(r.first(), r.firstDue(), e.lastDue(), r.ref()));
              break;
            }
          }
        });
    t.kind(TaskJournal.WindowsSkipped.class)
        .told(e -> new Told(e.outcome() + " " + e.range().reason() + ": " + e.detail() + "; " + e.count() + " windows from " + e.window()
            + " to " + e.lastWindow() + " (due " + e.dueAt() + " to " + e.lastDue() + ")", 0))
        .placed(e -> new Placed(e.start(), e.dueAt()))
        .narrated(ScheduleNarrator::windowsSkipped)
        .noted((c, e) -> {
          c.accounted(c.win, c.ref, e.dueAt());
          c.ranges.add(new Range(e.window(), e.dueAt(), e.lastDue(), c.ref));
        });
    t.kind(TaskJournal.EventReceived.class)
        .told(e -> new Told("event " + e.type() + " id " + e.eventId() + (e.eventTime() == null ? "" : ", event time " + e.eventTime())
            + (e.summary() == null ? "" : ": " + e.summary()), 0))
        .narrated(ScheduleNarrator::eventReceived)
        .noted((c, e) -> {
          if (c.win.reachedBy == null) {
            c.win.reachedBy = c.ref; // its decision, if it made one, came first in the same write
            c.win.reachedAfterAnEnd = c.windowEnded || c.gaps;
          }
        });
    t.kind(TaskJournal.EventDuplicated.class)
        .told(e -> new Told("event id " + e.eventId() + " delivered again (duplicate, counted)", 0))
        .narrated(ScheduleNarrator::eventDuplicated)
        .noted((c, e) -> { });
  }

  static void specDefined(Explainer x, TaskJournal.SpecDefined d) {
    x.spec = d.spec();
    if (x.registeredAt == null) {
      x.registeredAt = d.at();
    }
  }

  static void instanceScheduled(Explainer x, TaskJournal.InstanceScheduled e) {
    if (x.dueAt == null) {
      x.dueAt = e.dueAt();
      x.dueDate = x.local(e.dueAt()).toLocalDate();
    }
    x.scheduledAt = e.at();
    x.scheduledKind = e.kind();
    x.scheduledBy = e.actor();
    x.reopenedFrom = x.from;
    Duration late = Duration.between(e.dueAt(), e.at());
    Duration offset = x.jitterOffset();
    if (e.kind() == RunKind.FIRST && !offset.isZero() && !x.releasePending) {
      // a jittered window fires at its offset after due: that part is not lateness (docs/schedules.md)
      x.step(x.at, "Due " + x.time(e.dueAt()) + " " + x.zone.getId() + ", the task's jitter " + human(x.spec.schedule().jitter())
          + " gives this window the offset " + human(offset) + ": it fires at " + x.time(e.dueAt().plus(offset))
          + " (its key and due time are unchanged).");
      late = late.minus(offset);
    }
    if (x.releasePending) {
      x.releasePending = false;
      x.reopenedFrom = null;
      x.step(x.at, "Released, it was scheduled to run as " + e.kind() + " at " + x.time(e.at()) + ", " + human(late)
          + " after due.");
      return;
    }
    switch (e.kind()) {
      case FIRST -> {
        if (Rules.onTime(e.dueAt().plus(offset), e.at(), ON_TIME)) {
          x.step(x.at, "Due " + x.time(e.dueAt()) + " " + x.zone.getId() + ", the trigger fired it on time"
              + (late.compareTo(Duration.ofSeconds(1)) < 0 ? "" : " (" + human(late) + " after due"
              + (x.downtime == null ? "" : ": " + x.downtime) + ")")
              + " and it was scheduled to run" + (Objects.equals(e.start(), e.end()) ? "" : " (window "
              + x.dateTime(e.start()) + " to " + x.dateTime(e.end()) + ")") + ".");
        } else {
          x.step(x.at, "Due " + x.time(e.dueAt()) + " " + x.zone.getId() + ", the trigger fired it only at " + x.time(e.at())
              + ", " + human(late) + " after due" + (x.downtime == null ? "" : ", because " + x.downtime)
              + "; as the latest window due while nothing fired it, it runs as a first run, not as a catch-up.");
        }
      }
      case RETRY -> x.step(x.at, x.throttledLast ? "The throttled attempt's wait passed: the window was scheduled again."
          : "The back-off passed: the window was scheduled again for "
          + (x.lastRetry == null ? "a retry" : "retry " + x.lastRetry.retryNumber()) + ".");
      case BACKFILL -> {
        if (x.from == null) {
          x.step(x.at, "Due " + x.time(e.dueAt()) + " " + x.zone.getId() + " but not fired on time"
              + (x.downtime == null ? "" : " (" + x.downtime + ")") + ", it was scheduled at " + x.time(e.at()) + ", "
              + human(late) + " after due, as a BACKFILL " + (e.actor() == null ? "(the catch-up policy runs missed "
              + "windows, or an operator's backfill)." : "by " + e.actor() + "'s backfill" + withNote(e.note()) + "."));
        } else {
          x.step(x.at, (e.actor() == null ? "An operator's backfill" : e.actor() + "'s backfill" + withNote(e.note()))
              + " reopened the window (it was " + x.from + ") and scheduled it to run as a BACKFILL.");
        }
      }
      case MANUAL -> {
        if (x.from == InstanceStatus.FINAL_FAILED) {
          x.manualRetry = true;
          x.step(x.at, who(e.actor()) + " retried the window" + withNote(e.note()) + " (it was FINAL_FAILED): it was "
              + "scheduled to run again as MANUAL.");
        } else if (x.from == null) {
          x.step(x.at, who(e.actor()) + " ran the task now" + withNote(e.note()) + ": window " + x.window + " was scheduled "
              + "to run as MANUAL.");
        } else {
          x.step(x.at, who(e.actor()) + " ran the window" + withNote(e.note()) + " (it was " + x.from + "): it was scheduled "
              + "to run again as MANUAL.");
        }
      }
      case RESUME -> x.step(x.at, "The interrupted attempt's window was scheduled to run again at once as RESUME"
          + " (no retry spent).");
      default -> x.step(x.at, "The window was scheduled to run as " + e.kind() + ".");
    }
  }

  static void fireSkipped(Explainer x, TaskJournal.FireSkipped e) {
    if (x.dueAt == null) {
      x.dueAt = e.dueAt();
      x.dueDate = x.local(e.dueAt()).toLocalDate();
    }
    if (x.from != null) {
      x.step(x.at, "An operator's run or backfill found the window already " + x.from + " (" + e.reason()
          + "): nothing changed.");
      return;
    }
    x.skipText = skipped(x, e.reason(), e.detail(), x.other);
    x.step(x.at, "Due " + x.time(e.dueAt()) + " " + x.zone.getId() + ", it was skipped: " + x.skipText + ".");
  }

  static void windowMissed(Explainer x, TaskJournal.WindowMissed e) {
    if (x.dueAt == null) {
      x.dueAt = e.dueAt();
      x.dueDate = x.local(e.dueAt()).toLocalDate();
    }
    if (x.from != null) {
      x.step(x.at, "A miss (" + e.reason() + ") was recorded for the window, which was already " + x.from
          + ": its status did not change.");
      return;
    }
    if (x.downtime != null) {
      x.step(x.at, "Nothing fired the window when it was due at " + x.time(e.dueAt()) + ": " + x.downtime + ".");
    }
    x.missText = missed(x, e);
    x.step(x.at, "At " + x.time(e.at()) + ", " + human(Duration.between(e.dueAt(), e.at())) + " after due, it was "
        + "recorded MISSED: " + x.missText + ".");
  }

  static void skipRangeOpened(Explainer x, TaskJournal.SkipRangeOpened e) {
    if (e.skipReason() != null) {
      fireSkipped(x, new FireSkipped(e.window(), e.start(), e.end(), e.dueAt(), e.skipReason(), e.detail(), e.at()));
    } else {
      windowMissed(x, new WindowMissed(e.window(), e.start(), e.end(), e.dueAt(), e.missReason(), e.detail(), e.at()));
    }
    x.rangeText = "the first window of a skip range: the windows due after it and decided alike are recorded with it, "
        + "as one record";
    x.step(x.at, "It opened a skip range: each window due after it and decided the same way (" + e.range().reason()
        + ") is one of its windows, with no event of its own, until a window is decided otherwise.");
  }

  static void skipRangeClosed(Explainer x, TaskJournal.SkipRangeClosed e) {
    if (e.count() <= 1) {
      x.rangeText = null; // a range of its one window: a window skipped as any other
      x.step(x.at, "The skip range it opened was closed: it holds this window only.");
      return;
    }
    x.rangeText = "the first of " + e.count() + (e.count() == 1 ? " window" : " windows from " + e.window() + " to "
        + e.lastWindow()) + ", recorded as one skip range";
    x.step(x.at, "The skip range it opened was closed: " + e.count() + (e.count() == 1 ? " window" : " windows, from "
        + e.window() + " to " + e.lastWindow() + " (last due " + x.time(e.lastDue()) + ")") + ".");
  }

  static void windowsSkipped(Explainer x, TaskJournal.WindowsSkipped e) {
    if (e.skipReason() != null) {
      fireSkipped(x, new FireSkipped(e.window(), e.start(), e.end(), e.dueAt(), e.skipReason(), e.detail(), e.at()));
    } else {
      windowMissed(x, new WindowMissed(e.window(), e.start(), e.end(), e.dueAt(), e.missReason(), e.detail(), e.at()));
    }
    x.rangeText = "the first of " + e.count() + " windows from " + e.window() + " to " + e.lastWindow()
        + ", recorded as one skip range";
    x.step(x.at, "It was recorded with the " + (e.count() - 1) + " windows after it, to " + e.lastWindow() + " (due "
        + x.time(e.lastDue()) + "), decided alike, as one skip range.");
  }

  static void eventReceived(Explainer x, TaskJournal.EventReceived e) {
    x.eventsReceived++;
    x.firstEventId = x.firstEventId == null ? e.eventId() : x.firstEventId;
    x.lastEventId = e.eventId();
    if (x.eventsReceived == 1 && x.eventsDuplicated == 0) {
      x.step(x.at, "Event " + e.type() + " id " + e.eventId() + " arrived at " + x.time(e.at())
          + (e.eventTime() == null ? "" : " (event time " + x.time(e.eventTime()) + ")")
          + (e.summary() == null || e.summary().isBlank() ? "" : ": " + e.summary())
          + (x.before == null ? "" : "; it decided the window") + ".");
    } else {
      x.coalesced(x.at);
    }
  }

  static void eventDuplicated(Explainer x, TaskJournal.EventDuplicated e) {
    x.eventsDuplicated++;
    x.coalesced(x.at);
  }

  static String skipped(Explainer x, SkipReason r, String why, WindowState o) {
    String detail = why == null ? "" : why;
    return switch (r) {
      case PREVIOUS_RUNNING -> {
        String policy = x.spec == null ? "the overlap policy" : "the overlap policy " + x.spec.overlap();
        if (o != null) {
          yield "window " + o.key() + " was RUNNING (attempt " + o.attempt() + " on node " + node(o.executor(), null)
              + ", lease until " + x.time(o.leaseUntil()) + ") and " + policy + " runs one window at a time"
              + " (PREVIOUS_RUNNING)";
        }
        yield detail + " and " + policy + " runs one window at a time (PREVIOUS_RUNNING)";
      }
      case BUFFER_FULL -> detail + " and " + (x.spec == null ? "the overlap policy" : "the overlap policy " + x.spec.overlap())
          + " queues no more (BUFFER_FULL)";
      case PAUSED -> x.pausedOnFailures != null ? "the task had paused itself since " + x.time(x.pausedAt) + ", after "
          + failures(x.pausedOnFailures) + ", so the window was recorded SKIPPED (PAUSED)"
          : "the task was paused" + (x.pausedAt == null ? "" : " since " + x.time(x.pausedAt) + " by an operator")
          + ", so the window was recorded SKIPPED (PAUSED)";
      case WINDOW_EXISTS -> "the window already had an instance (WINDOW_EXISTS: " + detail + ")";
      case DEPENDENCY_NOT_MET -> "a dependency had not succeeded for this window (DEPENDENCY_NOT_MET: " + detail + ")";
      case CONDITION_NOT_MET -> "the task's condition did not hold (CONDITION_NOT_MET: " + detail + ")"
          + (x.conditionError == null ? "" : "; the last poll failed: " + x.conditionError);
      case BUDGET_EXHAUSTED -> "the task's budget for the day was spent (BUDGET_EXHAUSTED: " + detail + "); the day's "
          + "first such skip raises a BUDGET_EXHAUSTED alert, the next day starts afresh, and an operator may raise the "
          + "budget for the day";
      case EXCLUDED -> excludedText(x, detail);
      case OUT_OF_BOUNDS -> outOfBoundsText(x, detail);
    };
  }

  /** Which calendar of the spec holds the window's due date. */
  static String excludedText(Explainer x, String detail) {
    if (x.spec != null && x.spec.schedule() != null && x.spec.schedule().calendars() != null && x.dueDate != null) {
      for (SpecRecord.Calendar c : x.spec.schedule().calendars()) {
        try {
          String entry = io.almanac.ExclusionCalendar.of(c.name(), c.dates()).entryFor(x.dueDate);
          if (entry != null) {
            return "its due date " + x.dueDate + " (" + x.zone.getId() + ") is in the task's exclusion calendar " + c.name()
                + " (" + entry + "), so it was recorded SKIPPED (EXCLUDED) and did not run";
          }
        } catch (RuntimeException e) {
          // a stored calendar today's rules refuse: told from the record below
        }
      }
    }
    return "its due date is in an exclusion calendar of the task (EXCLUDED: " + detail + ")";
  }

  /** Which bound of the spec the window is outside of. */
  static String outOfBoundsText(Explainer x, String detail) {
    if (x.spec != null && x.spec.schedule() != null && x.dueAt != null) {
      SpecRecord.Schedule b = x.spec.schedule();
      try {
        Instant start = io.almanac.schedule.Bounds.start(b.from(), x.zone);
        Instant end = io.almanac.schedule.Bounds.end(b.until(), x.zone);
        if (start != null && x.dueAt.isBefore(start)) {
          return "it was due " + x.dateTime(x.dueAt) + " " + x.zone.getId() + ", before the task's start bound (from "
              + b.from() + "), so it was recorded SKIPPED (OUT_OF_BOUNDS): the trigger fired it before the bounds changed";
        }
        if (end != null && !x.dueAt.isBefore(end)) {
          return "it was due " + x.dateTime(x.dueAt) + " " + x.zone.getId() + ", after the task's end bound (until "
              + b.until() + "), so it was recorded SKIPPED (OUT_OF_BOUNDS): the trigger fired it before the bounds changed";
        }
      } catch (RuntimeException e) {
        // told from the record below
      }
    }
    return "it was due outside the task's bounds (OUT_OF_BOUNDS: " + detail + ")";
  }

  static String missed(Explainer x, WindowMissed e) {
    MissReason r = e.reason();
    String horizon = x.spec == null ? "" : " of " + human(x.spec.catchUp().horizon());
    return switch (r) {
      case OUTSIDE_HORIZON -> "it was older than the catch-up horizon" + horizon
          + ", and windows beyond it are not run whatever the catch-up mode (OUTSIDE_HORIZON)";
      case BACKFILL_NOT_ALLOWED -> {
        if (x.spec != null && x.spec.catchUp().mode() == io.almanac.CatchUpPolicy.Mode.NONE) {
          yield "the catch-up policy NONE records windows that were not fired within the on-time grace as MISSED "
              + "instead of running them (BACKFILL_NOT_ALLOWED)";
        }
        yield "the catch-up policy " + (x.spec == null ? "" : x.spec.catchUp().mode() + " ") + "does not run it: "
            + e.detail() + " (BACKFILL_NOT_ALLOWED)";
      }
    };
  }
}
