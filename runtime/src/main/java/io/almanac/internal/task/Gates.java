package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a window of a task with a dependency or condition waits for, until when, and when it is
 * checked next (R9). Pure. INTERNAL API.
 */
final class Gates {

  /** How long a window that ends when it starts (per-firing) waits by default. */
  static final Duration DEFAULT_WAIT_FOR_INSTANT_WINDOWS = Duration.ofHours(24);

  private Gates() {}

  /**
   * A waiting window's deadline: for each of its gates, its {@code wait-at-most} after the window
   * came due, or else the window's end (24 h after it came due for a window that ends at once); the
   * earliest of them.
   */
  static Instant deadline(SpecRecord spec, Instant start, Instant end, Instant dueAt) {
    Instant byDefault = end != null && end.isAfter(dueAt) ? end : dueAt.plus(DEFAULT_WAIT_FOR_INSTANT_WINDOWS);
    Instant deadline = null;
    if (spec.dependency() != null) {
      deadline = earliest(deadline, spec.dependency().waitAtMost() == null ? byDefault : dueAt.plus(spec.dependency().waitAtMost()));
    }
    if (spec.condition() != null) {
      deadline = earliest(deadline, spec.condition().waitAtMost() == null ? byDefault : dueAt.plus(spec.condition().waitAtMost()));
    }
    return deadline == null ? byDefault : deadline;
  }

  /** What a window of this task waits for, for people. */
  static String waitingFor(SpecRecord spec) {
    List<String> parts = new ArrayList<>();
    if (spec.dependency() != null) {
      SpecRecord.Dependency d = spec.dependency();
      parts.add((d.upstream().size() == 1 ? "upstream " + d.upstream().get(0)
          : d.require().name().toLowerCase() + " of upstream " + String.join(", ", d.upstream()))
          + " (" + d.mapping() + ")");
    }
    if (spec.condition() != null) {
      SpecRecord.Condition c = spec.condition();
      parts.add("condition " + c.name() + (c.debounce() > 1 ? " (" + c.debounce() + " polls in a row)" : "")
          + (c.holdFor().isZero() ? "" : " held for " + c.holdFor()));
    }
    return String.join(" and ", parts);
  }

  /**
   * The next poll of a task strictly after {@code t}: polls fall on a grid of {@code every} at a
   * phase of its own (from its id), so thousands of tasks with the same interval spread over it.
   */
  static Instant nextPoll(String taskId, Duration every, Instant t) {
    long period = Math.max(1, every.toMillis());
    long phase = Math.floorMod(taskId.hashCode() * 2_654_435_761L, period);
    long ms = t.toEpochMilli();
    long k = Math.floorDiv(ms - phase, period) + 1;
    return Instant.ofEpochMilli(k * period + phase);
  }

  /** How often a waiting window of this task is checked: its condition's interval, or the dependency poll. */
  static Duration pollEvery(SpecRecord spec, Duration dependencyPoll) {
    return spec.condition() != null ? spec.condition().every() : dependencyPoll;
  }

  /**
   * When the task next needs a wake-up for its waiting windows: the next poll, or a deadline if one
   * comes first; null when no window waits.
   */
  static Instant nextWake(String taskId, State state, Duration dependencyPoll, Instant now) {
    if (state.spec() == null || state.removed()) {
      return null;
    }
    Instant next = null;
    for (WindowState w : state.table().live()) {
      if (w.status() == InstanceStatus.WAITING) {
        Instant poll = nextPoll(taskId, pollEvery(state.spec(), dependencyPoll), now);
        next = earliest(next, earliest(poll, w.waitUntil()));
      }
    }
    return next;
  }

  static Instant earliest(Instant a, Instant b) {
    return a == null ? b : b == null ? a : a.isBefore(b) ? a : b;
  }
}
