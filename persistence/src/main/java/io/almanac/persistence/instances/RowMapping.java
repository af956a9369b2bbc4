package io.almanac.persistence.instances;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.journal.DurationSamples;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.WindowEvent;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The row mapping: what one task journal event does to its window's row. Pure. It folds the event
 * through the runtime's one event-to-status mapping ({@link Evolve}) on a one-window state made
 * from the row, so the table agrees with the task's own view; a transition the table refuses is
 * reported to the {@link Evolve.Violations} sink and changes nothing, as in the entity.
 */
final class RowMapping {

  /** Keeps every window hot: the projection keeps its own rows. */
  private static final HotState ALL = new HotState(Integer.MAX_VALUE, Duration.ofDays(3_650_000));

  /** Statuses in which no attempt runs or waits to run: an attempt or the window is done. */
  static final Set<InstanceStatus> DONE = EnumSet.of(InstanceStatus.SUCCEEDED, InstanceStatus.FAILED,
      InstanceStatus.TIMED_OUT, InstanceStatus.INTERRUPTED, InstanceStatus.FINAL_FAILED, InstanceStatus.CANCELLED, InstanceStatus.SKIPPED,
      InstanceStatus.MISSED, InstanceStatus.RESOLVED);

  private RowMapping() {}

  /**
   * The row after one event.
   *
   * @param current the window's row before the event (live or from the history table), or null
   * @param taskId the task
   * @param maxRetry the task's retry cap as of this event
   * @param seq the event's sequence number in the task's journal
   * @param event a window event of the task
   * @param violations where a transition the table refuses is reported
   * @return the new row (a live row, {@code movedAt} null), or empty when the event changes nothing:
   *     an event already applied ({@code seq <= current.lastSeq()}), an event that changes no row
   *     (a skip recorded for an existing window), or a refused transition
   */
  static Optional<InstanceRow> apply(InstanceRow current, String taskId, int maxRetry, long seq, WindowEvent event,
      Evolve.Violations violations) {
    if (current != null && seq <= current.lastSeq()) {
      return Optional.empty(); // a replay: applied already
    }
    TaskJournal.State before = TaskJournal.State.empty(1);
    WindowState w = null;
    if (current != null) {
      w = toWindowState(current);
      before = new TaskJournal.State(null, false, Map.of(w.key(), w), null, 0, DurationSamples.empty(1), null);
    }
    TaskJournal.State after = Evolve.apply(before, event, ALL, violations);
    WindowState next = after.windows().get(event.window());
    if (next == null || next == w) {
      return Optional.empty();
    }
    InstanceStatus from = current == null ? null : current.status();
    Instant finishedAt = finishedAt(current, from, next.status(), event.at());
    Instant start = next.start() != null ? next.start() : next.dueAt() != null ? next.dueAt() : next.createdAt();
    return Optional.of(new InstanceRow(taskId, next.key(), start, next.end(), next.status(), next.attempt(),
        next.retries(), maxRetry, next.runKind(), next.summary(), next.reason(), next.dueAt(), next.startedAt(), finishedAt,
        next.createdAt(), next.updatedAt(), seq, null, next.waitUntil(),
        next.events() == null ? 0 : next.events().received(), next.events() == null ? 0 : next.events().duplicates(),
        next.events() == null ? null : next.events().firstId(), next.events() == null ? null : next.events().lastId(),
        current == null ? 0 : current.tokensIn(), current == null ? 0 : current.tokensOut(),
        current == null ? null : current.cost(), current == null ? null : current.model(), next.deadlineMissedAt(),
        next.poolWait() == null ? null : next.poolWait().pool(), next.poolWait() == null ? null : next.poolWait().reason(),
        next.poolWait() == null ? null : next.poolWait().until(),
        next.reasonCode()).withUsage(usageOf(event)));
  }

  /** What an event that ends an attempt reports the attempt used, or null. */
  static io.almanac.journal.UsageRecord usageOf(WindowEvent e) {
    if (e instanceof TaskJournal.AttemptSucceeded s) {
      return s.usage();
    }
    if (e instanceof TaskJournal.AttemptFailed f) {
      return f.usage();
    }
    return e instanceof TaskJournal.LateResultRecorded l ? l.usage() : null;
  }

  /**
   * When the window's last attempt ended, or it reached a done status without one, from the statuses
   * before and after the event ({@link Evolve}'s): moving into a done status from one that is not
   * sets it (an attempt's outcome, from RUNNING; a cancel, skip or miss); moving between done
   * statuses keeps it (FAILED to FINAL_FAILED to RESOLVED); PENDING and RUNNING clear it; RETRY_WAIT
   * keeps the failed attempt's.
   */
  static Instant finishedAt(InstanceRow current, InstanceStatus from, InstanceStatus to, Instant at) {
    Instant before = current == null ? null : current.finishedAt();
    if (to == InstanceStatus.PENDING || to == InstanceStatus.RUNNING) {
      return null;
    }
    if (DONE.contains(to)) {
      return from != null && DONE.contains(from) && before != null ? before : (from == to && before != null ? before : at);
    }
    return before;
  }

  /** The row as the one window of a state; what the row does not hold is empty. */
  static WindowState toWindowState(InstanceRow r) {
    boolean counted = r.eventCount() != 0 || r.eventDuplicates() != 0 || r.firstEventId() != null || r.lastEventId() != null;
    return new WindowState(r.windowKey(), r.windowStart(), r.windowEnd(), r.scheduledAt(), r.status(), r.runKind(),
        r.attempt(), r.retryCount(), 0, r.startedAt(), null, null, null, r.resultSummary(), null, r.failReason(), Map.of(),
        List.of(), r.createdAt(), r.updatedAt(), r.reasonCode() instanceof io.almanac.SkipReason s ? s : null,
        r.status() == InstanceStatus.WAITING ? r.waitUntil() : null,
        counted ? new WindowState.EventTally(r.eventCount(), r.eventDuplicates(), r.firstEventId(), r.lastEventId()) : null,
        r.deadlineMissedAt(), r.status() == InstanceStatus.PENDING && r.poolWaitPool() != null
            ? new WindowState.PoolWait(r.poolWaitPool(), r.poolWaitReason(), r.poolWaitUntil(), null) : null,
        null, // the row sums its usage itself (InstanceRow.withUsage)
        0, Map.of(), 0, r.reasonCode() instanceof io.almanac.MissReason m ? m : null, // version 0: the row keeps none
        r.reasonCode() instanceof io.almanac.EndCause c ? c : null);
  }

  /** @return the run kind's name, or null */
  static String name(RunKind k) {
    return k == null ? null : k.name();
  }
}
