package io.almanac.persistence.audit;

import io.almanac.persistence.audit.TaskCheck.Range;
import io.almanac.persistence.audit.TaskCheck.Segment;
import io.almanac.persistence.audit.TaskCheck.Win;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Violation;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The schedule's invariant, I2 (see {@link Verifier}): every window due in the range by the task's
 * schedule, and every window an event reached, has a scheduling, wait, skip or miss event (a skip
 * range accounts for the windows it covers).
 * Stateless: judges a {@link TaskCheck}'s records into its verifier's report.
 */
final class ScheduleInvariants {

  private ScheduleInvariants() {}
  /**
   * I2: every window due in the range by the task's schedule, and every window an event reached,
   * has a scheduling, wait, skip or miss event.
   */
  static void checkDue(TaskCheck c) {
    if (c.end == null) {
      return;
    }
    Set<String> found = new HashSet<>();
    Set<String> lost = new HashSet<>();
    Instant until = dueBySchedule(c, found, lost);
    Instant byEvents = reachedByEvents(c, found, lost);
    c.v.windowsChecked += found.size() + lost.size();
    long events = 0;
    for (String key : found) {
      Win w = c.windows.get(key);
      events += w == null ? 0 : w.events.size(); // a window a skip range accounts for has no events of its own
    }
    for (String key : lost) {
      Win w = c.windows.get(key);
      events += w == null ? 0 : w.events.size();
    }
    c.v.count(Invariant.I2, found.size() + lost.size(), 0, events);
    c.v.windowsLost += lost.size();
    Instant checked = TaskCheck.latest(until, byEvents);
    if (checked != null && (c.v.checkedUntil == null || checked.isAfter(c.v.checkedUntil))) {
      c.v.checkedUntil = checked;
    }
  }

  /**
   * I2 by the schedule: the windows due by the cron (or the one-shot instant) of each spec in
   * effect, up to the journal's end less the grace (or {@code to}), are looked for; a jittered
   * window is looked for once its fire time (its due time plus its {@code Jitter} offset) is
   * before the journal's end less the grace.
   *
   * @return the latest due time checked (null when none was due)
   */
  static Instant dueBySchedule(TaskCheck c, Set<String> found, Set<String> lost) {
    if (c.specs.isEmpty()) {
      c.v.notes.add("task '" + c.task + "': I2 not checked: no SpecDefined in the journal, so its schedule is unknown");
      return null;
    }
    Instant until = c.end.minus(c.grace);
    if (c.to != null && c.to.isBefore(until)) {
      until = c.to;
    }
    Instant latestDue = null;
    for (int i = 0; i < c.specs.size(); i++) {
      Segment seg = c.specs.get(i);
      Instant lo = seg.at();
      if (c.from != null && c.from.minusNanos(1).isAfter(lo)) {
        lo = c.from.minusNanos(1);
      }
      Instant hi = until;
      if (i + 1 < c.specs.size() && c.specs.get(i + 1).at().minusNanos(1).isBefore(hi)) {
        hi = c.specs.get(i + 1).at().minusNanos(1);
      }
      Instant removed = c.removedAfter(seg.at(), i + 1 < c.specs.size() ? c.specs.get(i + 1).at() : null);
      if (removed != null && removed.minus(c.grace).minusNanos(1).isBefore(hi)) {
        hi = removed.minus(c.grace).minusNanos(1); // nothing is fired after a removal, nor judged in the grace before it
      }
      // A jittered window fires at its due time plus its offset: one due by hi may fire after the journal's end
      // less the grace (or the removal's), not yet due to have fired
      Instant firedBy = c.end.minus(c.grace);
      if (removed != null && removed.minus(c.grace).minusNanos(1).isBefore(firedBy)) {
        firedBy = removed.minus(c.grace).minusNanos(1);
      }
      if (!lo.isBefore(hi)) {
        continue;
      }
      TaskSchedule schedule;
      try {
        schedule = Schedules.of(seg.spec().toSpec());
      } catch (RuntimeException e) {
        c.v.notes.add("task '" + c.task + "': I2 not checked for due times in (" + lo + ", " + hi + "]: " + e.getMessage());
        continue;
      }
      Instant cursor = lo;
      while (true) {
        List<DueWindow> due = schedule.dueBetween(cursor, hi, Verifier.CHUNK);
        for (DueWindow d : due) {
          String key = d.key().value();
          if (schedule.fireAt(d).isAfter(firedBy)) {
            continue; // due in the range, fires after the end (jitter): not judged yet
          }
          latestDue = d.dueAt();
          if (!c.selected(key) || found.contains(key) || lost.contains(key)) {
            continue;
          }
          Win w = c.windows.get(key);
          if (w != null && w.accountedBy != null || inSkipRange(c, d.dueAt())) {
            found.add(key); // a window a skip range accounts for is its range's
            continue;
          }
          lost.add(key);
          String local = Timeline.local(d.dueAt(), schedule.zone());
          c.v.violations.add(new Violation(c.task, key, Invariant.I2, "lost window: due " + d.dueAt() + " (" + local + " "
              + schedule.zone() + "), no InstanceScheduled, WindowWaiting, FireSkipped or WindowMissed"
              + (w == null ? " and no event at all" : ", only other events"), w == null ? List.of() : w.events));
        }
        if (due.size() < Verifier.CHUNK) {
          break;
        }
        cursor = due.get(due.size() - 1).dueAt();
      }
    }
    Instant lastRemoval = c.removedAfter(c.specs.get(c.specs.size() - 1).at(), null);
    if (lastRemoval != null && lastRemoval.minus(c.grace).minusNanos(1).isBefore(until)) {
      until = lastRemoval.minus(c.grace).minusNanos(1); // a task that stays removed was checked until its removal
    }
    return latestDue == null ? null : until;
  }

  /** Whether a skip range of the journal accounts for a window due then (I2). */
  static boolean inSkipRange(TaskCheck c, Instant dueAt) {
    for (Range r : c.ranges) {
      if (r.covers(dueAt)) {
        return true;
      }
    }
    return false;
  }

  /**
   * I2 by the events: a window an event reached ({@code EventReceived}) is due, whatever the
   * task's schedule (an event-only task has none). Its decision is written in the same write as
   * the event, so no grace applies. A window an event reached with no decision is lost, unless a
   * window of the task had ended before (or events are missing): then it may be one before the
   * task's archived windows, for which the runtime records the event and runs nothing.
   *
   * @return up to when windows were judged ({@code to} or the journal's end), or null when none was
   */
  static Instant reachedByEvents(TaskCheck c, Set<String> found, Set<String> lost) {
    boolean any = false;
    int archived = 0;
    for (Win w : c.windows.values()) {
      if (w.reachedBy == null || !c.inRange(w) || found.contains(w.key) || lost.contains(w.key)) {
        continue;
      }
      any = true;
      if (w.accountedBy != null) {
        found.add(w.key);
      } else if (w.reachedAfterAnEnd) {
        found.add(w.key);
        archived++;
      } else {
        lost.add(w.key);
        c.v.violations.add(new Violation(c.task, w.key, Invariant.I2, "lost window: an event reached it (" + w.reachedBy.type() + " #"
            + w.reachedBy.sequenceNr() + " at " + w.reachedBy.at() + "), no InstanceScheduled, WindowWaiting, FireSkipped or"
            + " WindowMissed, and no window of the task had ended before (so it is not one before the task's archived"
            + " windows)", w.events));
      }
    }
    if (archived > 0) {
      c.v.notes.add("task '" + c.task + "': " + archived + (archived == 1 ? " window" : " windows") + " reached only by an"
          + " EventReceived, after windows of the task had ended: taken as events for windows before the task's archived"
          + " ones (the event is recorded, nothing runs, and no decision is written)");
    }
    return !any ? null : c.to != null && c.to.isBefore(c.end) ? c.to : c.end;
  }
}
