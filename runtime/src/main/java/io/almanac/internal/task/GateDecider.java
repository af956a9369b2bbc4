package io.almanac.internal.task;

import io.almanac.DependencyTrigger;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.GateChecked;
import io.almanac.internal.protocol.TaskProtocol.UpstreamSucceeded;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.Transition;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decisions about windows that wait for a dependency or a condition (R9), as pure functions: a
 * check's result releases a window (then its overlap policy decides), keeps it waiting (with the
 * condition's debounce carried forward), or at its deadline ends its wait as DEPENDENCY_NOT_MET or
 * CONDITION_NOT_MET. A late upstream success releases a window that did not meet its dependency in
 * time, or is recorded against one that already ran, as the task's on-upstream-rerun option says.
 * INTERNAL API.
 */
final class GateDecider {

  /**
   * What the entity remembers between polls of one waiting window (in memory only: after a restart
   * the debounce starts again, which can only delay a fire, never make one).
   *
   * @param consecutive polls in a row the condition held
   * @param holdingSince the first of those polls, or null
   * @param lastError the error of the last poll when it failed, or null
   * @param polls polls so far
   */
  record Memory(int consecutive, Instant holdingSince, String lastError, int polls) {
    static final Memory NONE = new Memory(0, null, null, 0);
  }

  /**
   * A decision and the memory that follows it.
   *
   * @param events what to persist (none: keep waiting)
   * @param memory the window's memory after it
   */
  record Result(List<Event> events, Memory memory) {}

  private final FireDecider fires;

  GateDecider(FireDecider fires) {
    this.fires = fires;
  }

  /**
   * A check of one window came back.
   *
   * @param state the task's state
   * @param check what the check found
   * @param memory what was remembered of the window's earlier polls
   * @param now the time
   */
  Result checked(State state, GateChecked check, Memory memory, Instant now) {
    SpecRecord spec = state.spec();
    Optional<WindowState> found = state.window(check.window());
    if (spec == null || state.removed() || found.isEmpty()) {
      return new Result(List.of(), Memory.NONE);
    }
    WindowState w = found.get();
    boolean lateRelease = spec.dependency() != null
        && w.status() == InstanceStatus.SKIPPED && w.skipReason() == SkipReason.DEPENDENCY_NOT_MET;
    if (w.status() != InstanceStatus.WAITING && !lateRelease) {
      return new Result(List.of(), Memory.NONE);
    }
    if (state.paused()) {
      // A paused task releases nothing; its deadline still applies (below), so the wait ends as it would.
      if (w.status() == InstanceStatus.WAITING && w.waitUntil() != null && !now.isBefore(w.waitUntil())) {
        return new Result(List.of(new TaskJournal.WaitEnded(w.key(), SkipReason.PAUSED, "the task was paused until the"
            + " deadline " + w.waitUntil() + " passed", now)), Memory.NONE);
      }
      return new Result(List.of(), memory == null ? Memory.NONE : memory);
    }
    List<Event> events = new ArrayList<>();
    // The dependency.
    DependencyCheck.Verdict dep = spec.dependency() == null ? null
        : DependencyCheck.evaluate(spec.dependency(), w, check.upstream(), check.upstreamErrors());
    // The condition, debounced.
    Memory next = memory == null ? Memory.NONE : memory;
    boolean conditionMet = true;
    String conditionDetail = null;
    if (spec.condition() != null) {
      SpecRecord.Condition c = spec.condition();
      int polls = next.polls() + 1;
      if (check.conditionError() != null) {
        if (!check.conditionError().equals(next.lastError())) {
          events.add(new TaskJournal.ConditionCheckFailed(w.key(), c.name(), check.conditionError(), now));
        }
        next = new Memory(0, null, check.conditionError(), polls);
        conditionMet = false;
        conditionDetail = "condition " + c.name() + " failed at its last poll: " + check.conditionError();
      } else if (Boolean.TRUE.equals(check.conditionHolds())) {
        Instant since = next.holdingSince() == null ? now : next.holdingSince();
        int consecutive = next.consecutive() + 1;
        next = new Memory(consecutive, since, null, polls);
        Duration held = Duration.between(since, now);
        conditionMet = consecutive >= c.debounce() && held.compareTo(c.holdFor()) >= 0;
        conditionDetail = "condition " + c.name() + " held at " + consecutive + " poll(s) in a row"
            + (c.holdFor().isZero() ? "" : ", for " + held) + (conditionMet ? "" : " (needs " + c.debounce() + " in a row"
            + (c.holdFor().isZero() ? "" : " and " + c.holdFor()) + ")");
      } else if (Boolean.FALSE.equals(check.conditionHolds())) {
        next = new Memory(0, null, null, polls);
        conditionMet = false;
        conditionDetail = "condition " + c.name() + " did not hold at poll " + polls;
      } else {
        conditionMet = false;
        conditionDetail = "condition " + c.name() + " not polled yet";
      }
    }
    boolean depMet = dep == null || dep.met();
    if (lateRelease) {
      // Released late: only by its dependency, checked when the upstream's success arrives; a condition
      // must hold at that one poll (its debounce applies while a window waits: a late release is one
      // check, so a debounce above 1 could never be met here). No deadline applies any more.
      boolean holdsNow = spec.condition() == null || Boolean.TRUE.equals(check.conditionHolds());
      if (holdsNow && spec.condition() != null) {
        conditionDetail = "condition " + spec.condition().name() + " held at the late check";
      }
      if (depMet && holdsNow) {
        // Through the overlap policy, as a fresh release: if it would skip, the window stays as it was.
        Decided<TaskProtocol.FireOutcome> d = fires.overlap(state,
            new Fire(WindowKey.of(w.key()), w.start(), w.end(), w.dueAt(), FireKind.ON_TIME, null), now, true);
        if (d.events().stream().anyMatch(e -> e instanceof TaskJournal.InstanceScheduled)) {
          for (Event e : d.events()) { // the release, checked as the event it writes
            if (e instanceof TaskJournal.InstanceScheduled x && x.window().equals(w.key())) {
              Transition.check(w.status(), x);
            }
          }
          events.add(new TaskJournal.WaitSatisfied(w.key(), "released late: " + join(dep, conditionDetail), now));
          events.addAll(d.events());
        }
      }
      return new Result(events, next);
    }
    if (depMet && conditionMet) {
      events.add(new TaskJournal.WaitSatisfied(w.key(), join(dep, conditionDetail), now));
      State after = io.almanac.journal.Evolve.fold(state, events, HOT_UNBOUNDED);
      if (w.runKind() == RunKind.BACKFILL) {
        events.add(new TaskJournal.InstanceScheduled(w.key(), w.start(), w.end(), w.dueAt(), RunKind.BACKFILL, now));
      } else {
        Decided<TaskProtocol.FireOutcome> d = fires.overlap(after,
            new Fire(WindowKey.of(w.key()), w.start(), w.end(), w.dueAt(), FireKind.ON_TIME, null), now, true);
        events.addAll(d.events());
      }
      return new Result(events, Memory.NONE);
    }
    if (w.waitUntil() != null && !now.isBefore(w.waitUntil())) {
      SkipReason reason = !depMet ? SkipReason.DEPENDENCY_NOT_MET : SkipReason.CONDITION_NOT_MET;
      String why = (!depMet ? dep.detail() : conditionDetail) + "; deadline " + w.waitUntil() + " passed";
      events.add(new TaskJournal.WaitEnded(w.key(), reason, why, now));
      return new Result(events, Memory.NONE);
    }
    return new Result(events, next);
  }

  /**
   * An upstream task succeeded for a window: the dependent window it maps to, if this task has it,
   * is checked (a waiting window, or one that did not meet its dependency in time: {@code check}),
   * or, when it already ran, the late success is recorded as the on-upstream-rerun option decides.
   *
   * @param state the task's state
   * @param msg the upstream success
   * @param schedule makes the task's schedule (maps the upstream window to this task's window; may throw)
   * @param now the time
   * @return the events to persist (for a window that already ran) and the window to check, if any
   */
  Upstream upstreamSucceeded(State state, UpstreamSucceeded msg, java.util.function.Supplier<io.almanac.schedule.TaskSchedule> schedule,
      Instant now) {
    try {
      return upstreamSucceeded(state, msg, schedule.get(), now);
    } catch (RuntimeException e) { // the task's schedule cannot be had, or the mapping failed: nothing is written
      return new Upstream(List.of(), null, e.toString());
    }
  }

  private Upstream upstreamSucceeded(State state, UpstreamSucceeded msg, io.almanac.schedule.TaskSchedule schedule, Instant now) {
    SpecRecord spec = state.spec();
    if (spec == null || state.removed() || spec.dependency() == null || !spec.dependency().upstream().contains(msg.upstream())) {
      return new Upstream(List.of(), null, null);
    }
    WindowState w = mapped(state, msg, schedule);
    if (w == null) {
      return new Upstream(List.of(), null, null); // not due yet here: its own trigger fires it, and it checks then
    }
    if (w.status() == InstanceStatus.WAITING
        || (w.status() == InstanceStatus.SKIPPED && w.skipReason() == SkipReason.DEPENDENCY_NOT_MET)) {
      return new Upstream(List.of(), w.key(), null);
    }
    boolean ran = w.attempt() > 0 && (w.startedAt() == null || w.startedAt().isBefore(msg.succeededAt()));
    if (!ran || w.status() == InstanceStatus.PENDING) {
      return new Upstream(List.of(), null, null); // it runs anyway, or it never ran for a reason of its own (skipped, missed)
    }
    DependencyTrigger.Rerun option = spec.dependency().onUpstreamRerun();
    boolean again = option == DependencyTrigger.Rerun.RUN_AGAIN
        && (w.status() == InstanceStatus.FINAL_FAILED || w.status() == InstanceStatus.CANCELLED);
    String what = "upstream " + msg.upstream() + " succeeded for " + msg.window() + " at " + msg.succeededAt()
        + " after this window had run (attempt " + w.attempt() + ", " + w.status() + ")";
    List<Event> events = new ArrayList<>();
    if (again) {
      events.add(new TaskJournal.UpstreamRerunRecorded(w.key(), msg.upstream(), msg.window(), "RUN_AGAIN",
          what + "; on-upstream-rerun RUN_AGAIN: it runs again", now));
      events.add(new TaskJournal.InstanceScheduled(w.key(), w.start(), w.end(), w.dueAt(), RunKind.BACKFILL, now));
    } else {
      events.add(new TaskJournal.UpstreamRerunRecorded(w.key(), msg.upstream(), msg.window(), "KEPT", what + "; "
          + (option == DependencyTrigger.Rerun.KEEP ? "on-upstream-rerun KEEP"
          : w.status() == InstanceStatus.SUCCEEDED || w.status() == InstanceStatus.RESOLVED
              ? "on-upstream-rerun RUN_AGAIN, but a window never succeeds twice"
              : "on-upstream-rerun RUN_AGAIN, but it is " + w.status() + " now") + ": kept", now));
    }
    return new Upstream(events, null, null);
  }

  /**
   * What an upstream success leads to.
   *
   * @param events to persist now
   * @param checkWindow a window to check now, or null
   * @param failure why the success could not be handled (then nothing else), or null
   */
  record Upstream(List<Event> events, String checkWindow, String failure) {}

  /** This task's window an upstream window maps to: the same key, or the one containing its start. */
  private static WindowState mapped(State state, UpstreamSucceeded msg, io.almanac.schedule.TaskSchedule schedule) {
    if (state.spec().dependency().mapping() == DependencyTrigger.Mapping.SAME_WINDOW) {
      return state.window(msg.window()).orElse(null);
    }
    for (WindowState w : state.table().startingAtOrBefore(msg.start())) {
      if (w.end() != null && msg.start().isBefore(w.end())) {
        return w;
      }
    }
    return null;
  }

  private static String join(DependencyCheck.Verdict dep, String condition) {
    List<String> parts = new ArrayList<>();
    if (dep != null) {
      parts.add(dep.detail());
    }
    if (condition != null) {
      parts.add(condition);
    }
    return String.join("; ", parts);
  }

  /** A fold used only to decide on the state after the release (nothing is archived in it). */
  private static final io.almanac.journal.HotState HOT_UNBOUNDED =
      new io.almanac.journal.HotState(Integer.MAX_VALUE, Duration.ofDays(365_000));
}
