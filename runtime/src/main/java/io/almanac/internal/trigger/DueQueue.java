package io.almanac.internal.trigger;

import io.almanac.InvalidSpecException;
import io.almanac.ScheduleComputationException;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.SpecRecord;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The trigger's due queue: per registered task its next cron firing and the wake-up its entity
 * asked for (a retry's due time, a lease's end), and the fires a recovery hands over, ordered by due
 * instant, ties in the order they were queued. A tick takes only what is due ({@link #next}), each
 * entry in O(log n): the work is proportional to what is due, not to the number of tasks. A task
 * whose schedule throws is set aside alone (its entries go, the {@link SetAsideListener} is told
 * once); every other task goes on (principle 8).
 *
 * <p>Pure: time is passed in, nothing is sent. Mutable and not thread-safe: owned by one trigger
 * actor, which alone calls it, and never shared. Its content is in memory only, rebuilt on recovery
 * from the trigger's state ({@link #recover}). INTERNAL API.
 */
final class DueQueue {

  enum Kind {
    /** A task's next cron (or one-shot) firing. */
    CRON,
    /** The wake-up a task's entity asked for. */
    WAKE,
    /** A fire handed over by a recovery (on time or a catch-up batch). */
    REFIRE
  }

  /**
   * A queue entry; a catch-up after downtime carries all of a task's missed windows in {@code batch}.
   *
   * @param at when it is due
   * @param seq the order it was queued in (ties)
   * @param taskId the task
   * @param kind what it is
   * @param window the window to fire (null for a wake-up)
   * @param fireKind on time or catch-up (null for a wake-up)
   * @param batch a catch-up's windows, or null
   */
  record Due(Instant at, long seq, String taskId, Kind kind, DueWindow window, TaskProtocol.FireKind fireKind,
             List<DueWindow> batch) {}

  /** Told when a task is set aside: once, until a changed spec of it is registered. */
  interface SetAsideListener {
    void setAside(String taskId, RuntimeException cause);
  }

  /**
   * What a due entry taken off the queue asks for.
   *
   * @param taskId the task
   * @param wake whether the task is to be woken
   * @param fires the fires to send (none when the task was set aside meanwhile)
   * @param behind set when the trigger was behind the task's schedule by more than the on-time grace
   */
  record Step(String taskId, boolean wake, List<FireKey> fires, Behind behind) {}

  /**
   * The trigger was behind a task's schedule (the clock stepped forward, the node was paused): the
   * windows due since {@code since} were planned as after downtime.
   *
   * @param since the due instant of the firing it was behind
   * @param plan which of them fire on time and which go to the catch-up policy
   */
  record Behind(Instant since, CatchUpPlan plan) {}

  /**
   * What a recovery handed over.
   *
   * @param onTime windows queued to fire on time
   * @param catchUp windows queued as catch-up
   * @param beyondCap tasks with more windows due than max-catch-up-per-task (only the latest handed over)
   */
  record Recovered(int onTime, int catchUp, int beyondCap) {}

  /** A task's entries in the queue: at most one cron firing and one wake-up, replaced in place. */
  private static final class Slot {
    SpecRecord spec;
    TaskSchedule schedule;
    Due cron;
    Due wake;
    /** The recovery's fires not yet taken (usually none), so a removal finds them without a walk. */
    List<Due> refires;
    /** Why the task's schedule was set aside (it threw), or null. */
    String setAside;
    /** The sequence number of the last wake-up report applied. */
    long wakesSeq;
  }

  private final int maxCatchUpPerTask;
  private final Duration onTimeGrace;
  private final SetAsideListener listener;
  // An entry that is replaced is removed (O(log n)), so the queue holds at most two entries per task
  // plus the recovery's fires not yet taken.
  private final TreeSet<Due> queue = new TreeSet<>((a, b) -> {
    int c = a.at().compareTo(b.at());
    return c != 0 ? c : Long.compare(a.seq(), b.seq());
  });
  private final Map<String, Slot> slots = new HashMap<>();
  private long seq;

  /**
   * @param maxCatchUpPerTask most windows per task handed over as catch-up (the latest ones)
   * @param onTimeGrace how late a firing may be taken and still fire as on time
   * @param listener told when a task is set aside
   */
  DueQueue(int maxCatchUpPerTask, Duration onTimeGrace, SetAsideListener listener) {
    this.maxCatchUpPerTask = maxCatchUpPerTask;
    this.onTimeGrace = onTimeGrace;
    this.listener = listener;
  }

  /**
   * Rebuilds the queue after a recovery: every task's next firing after {@code now}; the windows due
   * in {@code (from, now]} planned as after downtime (or after a hand-over), the fresh ones queued
   * first and the catch-ups after them, one per task, so a recovery's backlog does not delay what is
   * due now (R11, R17); a wake-up now for every task that may have active windows.
   *
   * @param specs the registered tasks
   * @param active the tasks that may have active windows
   * @param from the watermark (or now)
   * @param now the time
   * @param handOver whether the gap is a planned hand-over rather than downtime
   * @return what was handed over
   */
  Recovered recover(Collection<SpecRecord> specs, Collection<String> active, Instant from, Instant now, boolean handOver) {
    int onTime = 0;
    int catchUp = 0;
    int beyondCap = 0;
    for (SpecRecord spec : specs) {
      Slot slot = slotFor(spec);
      if (slot.setAside != null) {
        continue;
      }
      Missed missed;
      try {
        missed = dueSince(slot, from, now);
      } catch (ScheduleComputationException e) {
        setAside(slot, e);
        continue;
      }
      if (missed.beyondCap()) {
        beyondCap++;
      }
      TaskSchedule schedule = slot.schedule;
      CatchUpPlan plan = handOver ? CatchUpPlan.afterHandOver(missed.due(), now, onTimeGrace, schedule::fireAt)
          : CatchUpPlan.of(missed.due(), now, onTimeGrace, schedule::fireAt);
      // A task's catch-up is queued before its on-time windows (ties go in queue order), so the task decides the
      // windows handed over (older) before the fresh ones: a skip range it left open when its node went down
      // (docs/skip-ranges.md) then closes before the first window handed over, and the downtime's windows are
      // decided by the catch-up policy, not counted into that range.
      catchUp += plan.catchUp().size();
      if (!plan.catchUp().isEmpty()) {
        queueRefire(slot, now, plan.catchUp().get(0), TaskProtocol.FireKind.CATCH_UP, plan.catchUp());
      }
      for (DueWindow w : plan.onTime()) {
        queueRefire(slot, now, w, TaskProtocol.FireKind.ON_TIME, null);
        onTime++;
      }
      scheduleNext(slot, now);
    }
    for (String id : active) {
      Slot slot = slots.get(id);
      if (slot != null) {
        setWake(slot, now);
      }
    }
    return new Recovered(onTime, catchUp, beyondCap);
  }

  /**
   * Registers a task, or a changed spec of it: its next firing after {@code from} is queued. A
   * one-shot task registered at or after its instant (or moved to an instant already past) is
   * planned like a window missed during downtime: on time if recent, else to the task's catch-up
   * horizon and backfill policy (R12, R14); never again once handed over: a re-registration with the
   * same instant is not a new window.
   *
   * @param spec the spec registered
   * @param previous the spec it replaces, or null
   * @param from its windows are fired from here (exclusive)
   * @param now the time
   * @return the one-shot's plan when it was already due, else null
   */
  CatchUpPlan register(SpecRecord spec, SpecRecord previous, Instant from, Instant now) {
    Slot slot = slotFor(spec);
    scheduleNext(slot, from);
    if (spec.once() == null || spec.once().isAfter(from) || slot.setAside != null
        || (previous != null && spec.once().equals(previous.once()))) {
      return null;
    }
    try {
      return CatchUpPlan.of(slot.schedule.dueBetween(spec.once().minusNanos(1), spec.once(), 1), now, onTimeGrace);
    } catch (ScheduleComputationException e) {
      setAside(slot, e);
      return null;
    }
  }

  /**
   * @param taskId the task
   * @return when its schedule fires next (its queued firing), or null when none is queued
   */
  Instant nextFiring(String taskId) {
    Slot slot = slots.get(taskId);
    return slot == null || slot.cron == null ? null : slot.cron.at();
  }

  /**
   * Forgets a task: its firing, its wake-up and the recovery's fires not yet taken go.
   *
   * @param taskId the task
   * @return whether it was registered
   */
  boolean remove(String taskId) {
    Slot slot = slots.remove(taskId);
    if (slot == null) {
      return false;
    }
    dequeue(slot.cron);
    dequeue(slot.wake);
    if (slot.refires != null) {
      slot.refires.forEach(queue::remove);
    }
    return true;
  }

  /**
   * A task entity's report of its next wake-up, applied unless the task is not registered or the
   * report was overtaken by a later one (a fire's answer overtaken by a report after it).
   *
   * @param taskId the task
   * @param nextWake when it must next be woken, or null
   * @param reportSeq the entity's journal sequence number when it said so
   * @return whether it was applied
   */
  boolean reportWakes(String taskId, Instant nextWake, long reportSeq) {
    Slot slot = slots.get(taskId);
    if (slot == null || reportSeq < slot.wakesSeq) {
      return false;
    }
    slot.wakesSeq = reportSeq;
    setWake(slot, nextWake);
    return true;
  }

  /**
   * A wake-up that was not acknowledged: woken again at {@code at}, unless an earlier wake-up is queued.
   *
   * @param taskId the task
   * @param at when to wake it again
   */
  void retryWake(String taskId, Instant at) {
    Slot slot = slots.get(taskId);
    if (slot != null && (slot.wake == null || at.isBefore(slot.wake.at()))) {
      setWake(slot, at);
    }
  }

  /**
   * Takes the earliest entry due at {@code now} off the queue. A cron firing taken is replaced by
   * the task's next one; one taken later than the on-time grace (the clock stepped forward, the node
   * was paused) brings the windows due since, planned as after downtime (R12, R14), each once.
   *
   * @param now the time
   * @return what it asks for, or null when nothing is due
   */
  Step next(Instant now) {
    while (!queue.isEmpty() && !queue.first().at().isAfter(now)) {
      Due due = queue.pollFirst();
      Slot slot = slots.get(due.taskId());
      if (slot == null) {
        continue;
      }
      switch (due.kind()) {
        case CRON:
          slot.cron = null;
          if (!io.almanac.journal.Rules.onTime(due.at(), now, onTimeGrace)) {
            return behind(slot, due.window(), now);
          }
          scheduleNext(slot, due.at()); // the window's fire time: its due time, plus its jitter offset if any
          return new Step(due.taskId(), false,
              List.of(FireKey.of(due.taskId(), due.window(), TaskProtocol.FireKind.ON_TIME, null)), null);
        case REFIRE:
          slot.refires.remove(due);
          if (slot.refires.isEmpty()) {
            slot.refires = null;
          }
          return new Step(due.taskId(), false, List.of(FireKey.of(due.taskId(), due.window(), due.fireKind(), due.batch())),
              null);
        case WAKE:
        default:
          slot.wake = null;
          return new Step(due.taskId(), true, List.of(), null);
      }
    }
    return null;
  }

  /** The earliest entry, or null. */
  Due head() {
    return queue.isEmpty() ? null : queue.first();
  }

  /** Entries queued. */
  int size() {
    return queue.size();
  }

  /** Whether the task is registered. */
  boolean contains(String taskId) {
    return slots.containsKey(taskId);
  }

  /** The earliest entry for the heartbeat line, e.g. "'a' window 2026-11-29 at ... (local time and zone)". */
  String describeHead() {
    Due head = head();
    if (head == null) {
      return "nothing";
    }
    TaskSchedule schedule = slots.get(head.taskId()).schedule;
    return "'" + head.taskId() + "' " + (head.kind() == Kind.WAKE ? "wake-up" : "window " + head.window().key())
        + " at " + head.at() + (schedule == null ? ""
            : " (" + head.at().atZone(schedule.zone()).toLocalDateTime() + " " + schedule.zone() + ")");
  }

  // ---------------------------------------------------------------------------------------------

  private Slot slotFor(SpecRecord spec) {
    Slot slot = slots.computeIfAbsent(spec.id(), id -> new Slot());
    if (!spec.equals(slot.spec)) {
      slot.spec = spec;
      slot.setAside = null;
      try {
        slot.schedule = Schedules.of(spec.toSpec());
      } catch (InvalidSpecException e) {
        // a spec stored by an older build whose cron (or policy) today's checks refuse
        slot.schedule = null;
        setAside(slot, e);
      }
    }
    return slot;
  }

  private Step behind(Slot slot, DueWindow first, Instant now) {
    List<DueWindow> due = new ArrayList<>();
    due.add(first);
    try {
      due.addAll(dueSince(slot, slot.schedule.fireAt(first), now).due());
    } catch (ScheduleComputationException e) {
      setAside(slot, e);
      return new Step(slot.spec.id(), false, List.of(), null);
    }
    if (due.size() > maxCatchUpPerTask) {
      due = due.subList(due.size() - maxCatchUpPerTask, due.size());
    }
    CatchUpPlan plan = CatchUpPlan.of(due, now, onTimeGrace, slot.schedule::fireAt);
    scheduleNext(slot, now);
    return new Step(slot.spec.id(), false, FireKey.of(slot.spec.id(), plan), new Behind(first.dueAt(), plan));
  }

  /** The windows due in (from, now], and whether there were more than the cap. */
  private record Missed(List<DueWindow> due, boolean beyondCap) {}

  /**
   * The task's windows that fire in (from, now] (due then, or, with jitter, due then plus their
   * offset), at most the latest max-catch-up-per-task of them: older ones stay unfired and the audit
   * reports them (R28). Raise almanac.trigger.max-catch-up-per-task to hand over more.
   */
  private Missed dueSince(Slot slot, Instant from, Instant now) {
    List<DueWindow> due = slot.schedule.firingBetween(from, now, maxCatchUpPerTask + 1);
    if (due.size() <= maxCatchUpPerTask) {
      return new Missed(due, false);
    }
    List<DueWindow> all = slot.schedule.firingBetween(from, now, Integer.MAX_VALUE);
    return new Missed(List.copyOf(all.subList(all.size() - maxCatchUpPerTask, all.size())), true);
  }

  private void setAside(Slot slot, RuntimeException e) {
    if (slot.setAside != null) {
      return;
    }
    slot.setAside = e.getMessage();
    dequeue(slot.cron);
    slot.cron = null;
    dequeue(slot.wake);
    slot.wake = null;
    listener.setAside(slot.spec.id(), e);
  }

  private void scheduleNext(Slot slot, Instant after) {
    dequeue(slot.cron);
    slot.cron = null;
    if (slot.setAside != null) {
      return;
    }
    try {
      TaskSchedule schedule = slot.schedule;
      schedule.nextFireAfter(after).ifPresent(d -> {
        slot.cron = new Due(schedule.fireAt(d), seq++, slot.spec.id(), Kind.CRON, d, TaskProtocol.FireKind.ON_TIME, null);
        queue.add(slot.cron);
      });
    } catch (ScheduleComputationException e) {
      setAside(slot, e);
    }
  }

  private void setWake(Slot slot, Instant at) {
    if (slot.setAside != null) {
      return;
    }
    if (slot.wake != null) {
      if (slot.wake.at().equals(at)) {
        return;
      }
      queue.remove(slot.wake);
    }
    slot.wake = at == null ? null : new Due(at, seq++, slot.spec.id(), Kind.WAKE, null, null, null);
    if (slot.wake != null) {
      queue.add(slot.wake);
    }
  }

  private void queueRefire(Slot slot, Instant at, DueWindow window, TaskProtocol.FireKind kind, List<DueWindow> batch) {
    Due due = new Due(at, seq++, slot.spec.id(), Kind.REFIRE, window, kind, batch);
    if (slot.refires == null) {
      slot.refires = new ArrayList<>(2);
    }
    slot.refires.add(due);
    queue.add(due);
  }

  private void dequeue(Due due) {
    if (due != null) {
      queue.remove(due);
    }
  }
}
