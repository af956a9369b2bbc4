package io.almanac.internal.task;

import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.protocol.TaskProtocol.Admitted;
import io.almanac.internal.protocol.TaskProtocol.Command;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.internal.protocol.TaskProtocol.OfferUnanswered;
import io.almanac.internal.protocol.TaskProtocol.Queued;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A fire whose fresh window was offered to the node's executor before anything was written (R20,
 * R21): until the executor answers, the task's other commands wait (the entity stashes them).
 * Admitted, the window's schedule and first start are one event in one write; queued or unanswered,
 * the schedule is written alone and the window starts when admitted. Pure: the entity holds it and
 * persists what it says. INTERNAL API.
 *
 * @param fire the fire
 * @param decided its decision, with the settlement of dead attempts ahead of it
 * @param decidedOn the state it was decided on (after the settlement)
 */
record HeldFire(Fire fire, Decided<FireOutcome> decided, State decidedOn) {

  /**
   * Whether a fire takes this path: a fresh first run alone that may start at once (see {@link
   * #startsAtOnce}), on a node with an executor.
   *
   * @param decided the fire's decision, settlement included
   * @param own the fire's own events (without the settlement)
   * @param decidedOn the state it was decided on
   * @param hasExecutor whether the node has an executor to offer to
   */
  static boolean applies(Decided<FireOutcome> decided, List<Event> own, State decidedOn, boolean hasExecutor) {
    // A task with resource pools is admitted after a round trip to the pools' store: its fire
    // records the window's schedule first (one more write, for pooled tasks only) and offers it.
    return !decided.refused() && hasExecutor && decidedOn.spec().pools() == null && startsAtOnce(decidedOn, own);
  }

  /**
   * Whether a fire's decision is a fresh first run alone (no cancellation), with nothing running and
   * nothing queued before it (an older PENDING window starts first): such a window is offered before
   * its schedule is written, so that an admitted one starts in the same write.
   *
   * @param state the state the fire was decided on
   * @param decided the fire's events
   * @return whether the fired window may start at once
   */
  static boolean startsAtOnce(State state, List<Event> decided) {
    if (decided.size() == 2 && decided.get(0) instanceof io.almanac.journal.TaskJournal.SkipRangeClosed) {
      decided = decided.subList(1, 2); // the close of a skip range before it changes nothing here
    }
    if (decided.size() != 1 || !(decided.get(0) instanceof io.almanac.journal.TaskJournal.InstanceScheduled scheduled)
        || scheduled.kind() != io.almanac.RunKind.FIRST || state.running("").isPresent()) {
      return false;
    }
    for (io.almanac.journal.WindowState x : state.table().live()) {
      if (x.status() == io.almanac.InstanceStatus.PENDING) {
        return false;
      }
    }
    return true;
  }

  /** @return the fired window's key */
  String window() {
    return fire.window().value();
  }

  /** @return what brought the write about, for the meters */
  NodeMeters.Origin origin() {
    return NodeMeters.Origin.of(fire.kind());
  }

  /**
   * @param cmd a command that arrived meanwhile
   * @return whether it is the executor's answer to the offer (or the offer's timeout); the rest waits
   */
  boolean answeredBy(Command cmd) {
    return cmd instanceof Admitted a && a.window().value().equals(window())
        || cmd instanceof Queued q && q.window().value().equals(window())
        || cmd instanceof OfferUnanswered o && o.window().equals(window());
  }

  /**
   * The write of an admitted window: the fresh window's schedule and start as one event (one row).
   * {@link #startsAtOnce}: the fire decided exactly one InstanceScheduled of a first run,
   * the last event (after what settling the task's dead attempts wrote first, {@link Decided#after}).
   *
   * @param attempts the attempt lifecycle
   * @param executorId the admitting executor's identity
   * @param now the time
   * @return the events and the start among them
   */
  Start admitted(AttemptLifecycle attempts, String executorId, Instant now) {
    return admitted(attempts, executorId, null, now);
  }

  /** As {@link #admitted(AttemptLifecycle, String, Instant)}, with the trace context of the attempt's span (or null). */
  Start admitted(AttemptLifecycle attempts, String executorId, String traceparent, Instant now) {
    AttemptStarted started = attempts.firstStart(decidedOn, window(), executorId, traceparent, now);
    List<Event> events = new ArrayList<>(decided.events());
    int last = events.size() - 1;
    events.set(last, TaskJournal.WindowStarted.of((TaskJournal.InstanceScheduled) events.get(last), started));
    return new Start(events, started);
  }

  /**
   * @param events what an admitted window writes
   * @param started its attempt's start
   */
  record Start(List<Event> events, AttemptStarted started) {}

  /**
   * @param written the state after the write
   * @param wakes the task's wake-up report, for the trigger
   * @return the fire's answer
   */
  FireOutcome outcome(State written, TriggerProtocol.TaskWakes wakes) {
    return decided.reply().apply(written).withWakes(wakes);
  }
}
