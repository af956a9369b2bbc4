package io.almanac.internal.task;

import io.almanac.AlmanacException;
import io.almanac.EventTrigger;
import io.almanac.PublishResult.Outcome;
import io.almanac.RefusedException;
import io.almanac.RefusedException.Reason;
import io.almanac.Window;
import io.almanac.internal.protocol.TaskProtocol.EventOutcome;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.internal.protocol.TaskProtocol.BatchedEvent;
import io.almanac.internal.protocol.TaskProtocol.EventOutcomes;
import io.almanac.internal.protocol.TaskProtocol.PublishEvent;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import io.almanac.schedule.TaskSchedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Event-trigger decisions as pure functions (R9): an event id seen before is a duplicate (counted);
 * an event maps to a window by its event time or its arrival; a window that exists already coalesces
 * it (counted, first and last ids kept); a new window is decided like a fire (paused, outside the
 * catch-up horizon, waiting for a dependency or condition, or by the overlap policy), with the event
 * recorded in the same write. INTERNAL API.
 */
final class EventDecider {

  private final FireDecider fires;

  EventDecider(FireDecider fires) {
    this.fires = fires;
  }

  /**
   * As {@link #publish}, with the schedule made here: a task whose window spec throws, or whose stored
   * spec is refused today, refuses the event.
   *
   * @param taskId the task
   * @param schedule makes the task's schedule (may throw)
   */
  Decided<EventOutcome> publishScheduled(String taskId, State state, PublishEvent cmd, Supplier<TaskSchedule> schedule,
      Instant now) {
    try {
      return publish(state, cmd, schedule.get(), now);
    } catch (io.almanac.AlmanacException e) {
      return Decided.refuse(Reason.SCHEDULE_FAILED, "task '" + taskId + "' cannot map the event to a window: " + e.getMessage());
    }
  }

  /**
   * Several events, decided one by one in their order exactly as {@link #publish} decides each, every
   * one on the state the earlier ones leave (so an id repeated inside the batch is a duplicate, and a
   * window the batch creates coalesces the later events): their events are recorded in one write. A
   * refusal of any event refuses the batch, naming the event; nothing is stored.
   *
   * @param taskId the task
   * @param state the task's state (its dead attempts already settled)
   * @param batch the events, in order
   * @param schedule makes the task's schedule (may throw; made once)
   * @param now the time the events arrived
   * @param hot how the state keeps its windows (to fold each event's decision before the next)
   * @return the events to record and one outcome per event, in order; or the refusal
   */
  Decided<EventOutcomes> publishAll(String taskId, State state, List<BatchedEvent> batch, Supplier<TaskSchedule> schedule,
      Instant now, HotState hot) {
    TaskSchedule made;
    try {
      made = schedule.get();
    } catch (io.almanac.AlmanacException e) {
      return Decided.refuse(Reason.SCHEDULE_FAILED, "task '" + taskId + "' cannot map the events to windows: " + e.getMessage());
    }
    List<Event> events = new ArrayList<>();
    List<EventOutcome> outcomes = new ArrayList<>(batch.size());
    // The state is folded only when an event makes a window (what the next decisions read: the windows and
    // their statuses); an id counted or coalesced is remembered here, so a later copy of it is a duplicate.
    java.util.Map<String, String> received = new java.util.HashMap<>(); // id -> window, for the ids of this batch
    State s = state;
    for (int i = 0; i < batch.size(); i++) {
      BatchedEvent e = batch.get(i);
      String seen = e.eventId() == null ? null : received.get(e.eventId());
      if (seen != null && s.spec().event() != null && s.spec().event().type().equals(e.type())) {
        events.add(new TaskJournal.EventDuplicated(seen, e.eventId(), now));
        outcomes.add(new EventOutcome(seen, Outcome.DUPLICATE, "event id " + e.eventId() + " arrived before (window " + seen + ")"));
        continue;
      }
      Decided<EventOutcome> d = publish(s, e.asPublish(), made, now);
      if (d.refused()) {
        AlmanacException r = d.refusal();
        String which = " (event " + i + " of the batch of " + batch.size() + ", id '" + e.eventId()
            + "'; nothing of the batch was stored)";
        return Decided.refuse(r instanceof RefusedException re ? re.withMore(which) : new AlmanacException(r.getMessage() + which, r));
      }
      EventOutcome o = d.reply().apply(s);
      outcomes.add(o);
      events.addAll(d.events());
      if (o.outcome() != Outcome.DUPLICATE) {
        received.put(e.eventId(), o.window());
      }
      if (d.events().stream().anyMatch(x -> !(x instanceof TaskJournal.EventReceived) && !(x instanceof TaskJournal.EventDuplicated))) {
        s = Evolve.fold(s, d.events(), hot);
      }
    }
    return Decided.persist(events, new EventOutcomes(outcomes));
  }

  /**
   * @param state the task's state (its dead attempts already settled)
   * @param cmd the event
   * @param schedule the task's schedule (maps an instant to its window)
   * @param now the time the event arrived
   */
  Decided<EventOutcome> publish(State state, PublishEvent cmd, TaskSchedule schedule, Instant now) {
    SpecRecord spec = state.spec();
    SpecRecord.Event trigger = spec.event();
    if (trigger == null || !trigger.type().equals(cmd.type())) {
      return Decided.refuse(RefusedException.invalid(Reason.UNKNOWN_EVENT_TYPE, "type", cmd.type(), "task '" + spec.id()
          + "' does not listen to it" + (trigger == null ? " (it has no event trigger)" : " (it listens to '" + trigger.type() + "')")));
    }
    if (cmd.eventId() == null || cmd.eventId().isBlank()) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "id", cmd.eventId(), "an event needs an id"));
    }
    Optional<String> seen = state.eventWindow(cmd.eventId());
    if (seen.isPresent()) {
      return Decided.persist(List.of(new TaskJournal.EventDuplicated(seen.get(), cmd.eventId(), now)),
          new EventOutcome(seen.get(), Outcome.DUPLICATE, "event id " + cmd.eventId() + " arrived before (window "
              + seen.get() + ")"));
    }
    Instant basis;
    if (trigger.mapBy() == EventTrigger.TimeBasis.ARRIVAL_TIME) {
      basis = now;
    } else if (cmd.eventTime() == null) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "eventTime", null, "task '" + spec.id()
          + "' maps events to windows by their event time, so every event needs one"));
    } else {
      basis = cmd.eventTime();
    }
    Window window = schedule.windowAt(basis);
    String key = window.key().value();
    Event received = new TaskJournal.EventReceived(key, cmd.type(), cmd.eventId(), cmd.eventTime(), cmd.summary(), now);
    Optional<WindowState> existing = state.window(key);
    if (existing.isPresent()) {
      return Decided.persist(List.of(received), new EventOutcome(key, Outcome.COALESCED, "window " + key + " has an instance ("
          + existing.get().status().name() + "); the event is counted on it"));
    }
    if (state.archived(window.start())) {
      // Not COALESCED: the state cannot say whether this window ever had an instance (the journal can).
      return Decided.persist(List.of(received), new EventOutcome(key, Outcome.ARCHIVED, "window " + key + " starts at or before"
          + " the task's archived windows (through " + state.archivedThrough() + "): the event is recorded, nothing runs"));
    }
    Instant dueAt = basis.isAfter(now) ? now : basis;
    Decided<FireOutcome> fired = fires.fireAlone(state, new Fire(window.key(), window.start(), window.end(), dueAt,
        FireKind.ON_TIME, null), now);
    if (fired.refused()) {
      return Decided.refuse(fired.refusal());
    }
    List<Event> events = new ArrayList<>(fired.events());
    events.add(received);
    FireOutcome o = fired.reply().apply(state);
    Outcome outcome = switch (o.decision()) {
      case SCHEDULED -> Outcome.SCHEDULED;
      case SKIPPED -> Outcome.SKIPPED;
      case MISSED -> Outcome.MISSED;
      case DUPLICATE -> Outcome.COALESCED;
      case ARCHIVED -> Outcome.ARCHIVED;
    };
    return Decided.persist(events, new EventOutcome(key, outcome, o.reason()));
  }

}
