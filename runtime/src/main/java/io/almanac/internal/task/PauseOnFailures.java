package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FailureStreak;
import io.almanac.journal.TaskJournal.PauseCause;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowChange;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Pause on failure, as a pure decision on what a write is about to record: when its events end a
 * window FINAL_FAILED and so make the task's streak of windows in a row that ended FINAL_FAILED
 * ({@link State#failures()}, kept by {@link Evolve}) reach the task's {@code pause-after-failures},
 * a {@link TaskJournal.TaskPaused} with cause {@link PauseCause#FAILURES} and that streak is added
 * to the same write. The count is the state's; a SUCCEEDED window ends it (except while paused),
 * a resume resets it, and RESOLVED, SKIPPED, MISSED and CANCELLED windows neither count nor reset
 * it. A write ends a window FINAL_FAILED when one of its {@link WindowChange}s says so, whatever
 * event kind brought it about; a task without the setting costs nothing. INTERNAL API.
 */
final class PauseOnFailures {

  private PauseOnFailures() {}

  /**
   * @param before the state the events apply to
   * @param events the events about to be written
   * @param hot how much the hot state keeps (for the fold)
   * @param now the entity's clock
   * @return the events, with the pause added last when they make the streak reach the setting
   */
  static List<Event> withPause(State before, List<Event> events, HotState hot, Instant now) {
    if (!watches(before)) {
      return events;
    }
    return withPause(before, events, Evolve.applyAll(before, events, hot, Evolve.Violations.IGNORE), now);
  }

  /**
   * @param before the state the events apply to
   * @param events the events about to be written
   * @param applied the state after them and the window status changes they make ({@link Evolve#applyAll})
   * @param now the entity's clock
   * @return the events, with the pause added last when they make the streak reach the setting
   */
  static List<Event> withPause(State before, List<Event> events, Evolve.Applied applied, Instant now) {
    if (!watches(before) || !endsFailed(applied.changes())) {
      return events;
    }
    State after = applied.state();
    FailureStreak f = after.failures();
    if (after.paused() || after.removed() || f == null || f.count() < after.spec().pauseAfterFailures()) {
      return events;
    }
    List<Event> out = new ArrayList<>(events);
    out.add(new TaskJournal.TaskPaused(now, PauseCause.FAILURES, f.facts()));
    return out;
  }

  /** Whether a write of the task may pause it: it has the setting and is not paused already. */
  private static boolean watches(State before) {
    return before.defined() && before.spec().pauseAfterFailures() != null && !before.paused();
  }

  /** Whether the write ends a window FINAL_FAILED, whatever event says so. */
  private static boolean endsFailed(List<WindowChange> changes) {
    for (WindowChange c : changes) {
      if (c.to() == InstanceStatus.FINAL_FAILED) {
        return true;
      }
    }
    return false;
  }
}
