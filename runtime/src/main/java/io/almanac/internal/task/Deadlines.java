package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal.DeadlineMissed;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import io.almanac.spi.Saturating;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A task's deadlines, as pure decisions: which open windows missed theirs, and when the next one
 * falls due. A window's deadline counts from its fire time: its due time plus its jitter offset. A window is watched when its task has a deadline, it runs on schedule (a first run or
 * its retries: backfills, catch-ups and operators' runs are late by design and not watched), it is
 * still open (PENDING, WAITING, RUNNING, FAILED or TIMED_OUT before its retry is decided, or waiting
 * to retry), and its miss is not recorded yet ({@link WindowState#deadlineMissedAt()}): so each
 * window's miss is recorded once, whatever restarts, passivations or repeated timers come between.
 * A window that ended before its deadline (SUCCEEDED, FINAL_FAILED, SKIPPED, CANCELLED, RESOLVED,
 * MISSED) is not watched: a final failure has its own alert. A task without a deadline costs one
 * null check. INTERNAL API.
 */
final class Deadlines {

  private Deadlines() {}

  /**
   * @param state the task's state
   * @param now the entity's clock
   * @return a {@link DeadlineMissed} for each watched window whose deadline is not after {@code now}
   */
  static List<Event> missed(State state, Instant now) {
    Duration d = deadline(state);
    if (d == null) {
      return List.of();
    }
    List<Event> out = new ArrayList<>();
    for (WindowState w : state.table().live()) {
      if (watched(w)) {
        Instant at = deadlineOf(state.spec(), w, d);
        if (!at.isAfter(now)) {
          out.add(new DeadlineMissed(w.key(), w.dueAt(), at, w.status(), w.attempt(), now));
        }
      }
    }
    return out;
  }

  /**
   * @param state the task's state
   * @return the earliest deadline of a watched window (possibly past: then it is due at once), or
   *     null when none is watched
   */
  static Instant next(State state) {
    Duration d = deadline(state);
    if (d == null) {
      return null;
    }
    Instant next = null;
    for (WindowState w : state.table().live()) {
      if (watched(w)) {
        Instant at = deadlineOf(state.spec(), w, d);
        next = next == null || at.isBefore(next) ? at : next;
      }
    }
    return next;
  }

  /**
   * The miss of a watched window that ends now after its deadline though no miss was recorded (the
   * deadline timer had not fired yet: it was late, or the clock jumped): recorded in the same write
   * as the window's end, so a success after the deadline is never a silent one.
   *
   * @param state the task's state
   * @param w the window, before its end is recorded
   * @param now the entity's clock
   * @return the miss to record first, or null (no deadline, not watched, or not passed)
   */
  static DeadlineMissed missedAtEnd(State state, WindowState w, Instant now) {
    Duration d = deadline(state);
    if (d == null || !watched(w)) {
      return null;
    }
    Instant at = deadlineOf(state.spec(), w, d);
    return at.isAfter(now) ? null : new DeadlineMissed(w.key(), w.dueAt(), at, w.status(), w.attempt(), now);
  }

  /**
   * @param w a window
   * @return whether its deadline is watched (see the class)
   */
  static boolean watched(WindowState w) {
    if (w.deadlineMissedAt() != null || w.dueAt() == null) {
      return false;
    }
    if (w.runKind() != RunKind.FIRST && w.runKind() != RunKind.RETRY) {
      return false;
    }
    return w.status().isActive() || w.status() == InstanceStatus.WAITING;
  }

  /**
   * A window's deadline: {@code d} after its fire time, i.e. its due time plus its jitter offset
   * ({@link io.almanac.schedule.Jitter}; the due time itself without jitter).
   */
  private static Instant deadlineOf(SpecRecord spec, WindowState w, Duration d) {
    java.time.Duration jitter = spec.schedule() == null ? null : spec.schedule().jitter();
    Instant fires = jitter == null || jitter.isZero() ? w.dueAt()
        : Saturating.plus(w.dueAt(), io.almanac.schedule.Jitter.offset(spec.id(), w.key(), jitter));
    return Saturating.plus(fires, d); // a deadline stored before its bound (366 days) never overflows
  }

  private static Duration deadline(State state) {
    SpecRecord spec = state.spec();
    return spec == null || state.removed() ? null : spec.deadline();
  }
}
