package io.almanac.internal.trigger;

import io.almanac.journal.TriggerJournal.HandedOver;
import io.almanac.journal.TriggerJournal.Progressed;
import io.almanac.journal.TriggerJournal.State;
import io.almanac.journal.TriggerJournal.TasksRegistered;
import java.time.Instant;
import java.util.Set;

/**
 * How the trigger's events change its state: only the next state is built, nothing is checked
 * (replay must always succeed). Pure. INTERNAL API.
 */
final class TriggerEvolve {

  private TriggerEvolve() {}

  /**
   * Fires due after the registration's start are not acknowledged yet: a watermark past it (the
   * trigger ran on while the registration was on its way) goes back to it, and moves on only once
   * they are (R11, R24).
   */
  static State registered(State s, TasksRegistered e) {
    Instant w = s.watermark() != null && e.since() != null && e.since().isBefore(s.watermark()) ? e.since() : s.watermark();
    State next = s.withTasks(e.specs());
    return new State(next.tasks(), w, next.active(), next.handedOverAt());
  }

  /**
   * The watermark moves only forward. A trigger that fires again (its watermark moved) ends a
   * hand-over; an operator's MarkActive persisted by a quiesced trigger (same watermark) does not.
   */
  static State progressed(State s, Progressed e) {
    Set<String> active = e.active().isEmpty() && e.idle().isEmpty() ? s.active() : s.activeAfter(e.active(), e.idle());
    boolean moved = s.watermark() == null || (e.watermark() != null && e.watermark().isAfter(s.watermark()));
    return new State(s.tasks(), moved ? e.watermark() : s.watermark(), active, moved ? null : s.handedOverAt());
  }

  static State handedOver(State s, HandedOver e) {
    return new State(s.tasks(), s.watermark(), s.active(), e.at());
  }
}
