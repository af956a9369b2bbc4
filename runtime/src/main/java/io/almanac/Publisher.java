package io.almanac;

import io.almanac.internal.node.PublishGate;
import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.pattern.StatusReply;

/**
 * A validated event's way to its tasks (R9): the trigger says who listens to its type, the {@link
 * PublishGate} takes a slot in each of them, and each is asked to record it. Every way this fails
 * under load is typed, and says whether anything was stored only when that is known:
 *
 * <ul>
 *   <li>{@link OverloadedException}: refused before the event was sent to any task (a listening task's
 *       queue is full, or the trigger did not say in time who listens): nothing was stored;
 *   <li>{@link PublishOutcomeUnknownException}: sent, and not every task answered (a timeout, a lost
 *       reply, a send that failed): it may have been recorded; a publish again with the same id is safe.
 * </ul>
 *
 * Besides these, a refusal of the event itself ({@link RefusedException}, {@link InvalidSpecException}),
 * which stores nothing in the refusing task. Holds no state but the gate's; called from any thread.
 * The facade's part, apart so that its failures can be tested with a trigger and tasks that do not answer.
 */
final class Publisher {

  private final PublishGate gate;
  private final Duration retryAfter;
  private final RecipientRef<TriggerProtocol.Command> trigger;
  private final Function<String, RecipientRef<TaskProtocol.Command>> tasks;
  private final Duration askTimeout;
  private final Scheduler scheduler;

  /**
   * @param gate the bound on each task's queue of publishes from this node
   * @param retryAfter what an {@link OverloadedException} tells the caller to wait
   * @param trigger who says which tasks listen to a type
   * @param tasks a task's entity by its id
   * @param askTimeout how long the trigger, and then each task, is waited for
   * @param scheduler the actor system's scheduler
   */
  Publisher(PublishGate gate, Duration retryAfter, RecipientRef<TriggerProtocol.Command> trigger,
      Function<String, RecipientRef<TaskProtocol.Command>> tasks, Duration askTimeout, Scheduler scheduler) {
    this.gate = gate;
    this.retryAfter = retryAfter;
    this.trigger = trigger;
    this.tasks = tasks;
    this.askTimeout = askTimeout;
    this.scheduler = scheduler;
  }

  /** @return the gate (its counts are the node's publishes waiting for their tasks) */
  PublishGate gate() {
    return gate;
  }

  /**
   * Publishes a validated event.
   *
   * @param event the event (already validated)
   * @return what each listening task did; fails as the class says
   */
  CompletableFuture<PublishResult> publish(IncomingEvent event) {
    String busy = gate.full(event.type());
    if (busy != null) { // refused at once, no message sent: an overloaded publish costs the node next to nothing
      return CompletableFuture.failedFuture(new OverloadedException(busy, gate.limit(), retryAfter));
    }
    CompletableFuture<TriggerProtocol.SubscriberList> lookup;
    try {
      lookup = Asks.ask(trigger, r -> new TriggerProtocol.Subscribers(event.type(), r), askTimeout, scheduler);
    } catch (RuntimeException e) {
      lookup = CompletableFuture.failedFuture(e);
    }
    return lookup.handle((list, error) -> {
      if (error != null) {
        // Only asked who listens: the event went to no task, so nothing was stored anywhere.
        throw new CompletionException(new OverloadedException("no answer from the trigger within " + askTimeout
            + " saying which tasks listen to type '" + InvalidSpecException.echo(event.type()) + "' (" + unwrap(error)
            + "): the event was sent to no task, nothing was stored; publish again after " + retryAfter, retryAfter));
      }
      return list;
    }).thenCompose(list -> {
      if (list.taskIds().isEmpty()) {
        throw new CompletionException(RefusedException.invalid(RefusedException.Reason.UNKNOWN_EVENT_TYPE, "type",
            InvalidSpecException.echo(event.type()), "no registered task listens to this event type"));
      }
      if (event.eventTime() == null && !list.byEventTime().isEmpty()) {
        // refused before any task sees it, so no task stores what another refuses
        throw new CompletionException(new InvalidSpecException("eventTime", null, "task(s) "
            + String.join(", ", list.byEventTime()) + " map events of type '" + event.type()
            + "' to windows by their event time"));
      }
      String full = gate.admit(event.type(), list.taskIds());
      if (full != null) {
        throw new CompletionException(new OverloadedException(full, gate.limit(), retryAfter));
      }
      return send(event, list);
    });
  }

  /**
   * Publishes validated events in one go: the trigger is asked once per distinct type, and each
   * listening task gets all its events in one message (one slot of its queue, one journal write).
   * Fails as a whole, as {@link #publish} fails for one event: a refusal before sending (no listener
   * for a type, a missing event time, a full queue) stores nothing anywhere.
   *
   * @param events the events (already validated), in order
   * @return one result per event, in order
   */
  CompletableFuture<List<PublishResult>> publishAll(List<IncomingEvent> events) {
    List<String> types = events.stream().map(IncomingEvent::type).distinct().toList();
    for (String type : types) {
      String busy = gate.full(type);
      if (busy != null) {
        return CompletableFuture.failedFuture(new OverloadedException(busy, gate.limit(), retryAfter));
      }
    }
    CompletableFuture<TriggerProtocol.SubscriberLists> lookup; // one question for all the batch's types
    try {
      lookup = Asks.ask(trigger, r -> new TriggerProtocol.SubscribersOfTypes(types, r), askTimeout, scheduler);
    } catch (RuntimeException e) {
      lookup = CompletableFuture.failedFuture(e);
    }
    return lookup.handle((lists, error) -> {
      if (error != null) {
        throw new CompletionException(new OverloadedException("no answer from the trigger within " + askTimeout
            + " saying which tasks listen to the batch's types (" + unwrap(error) + "): the batch was sent to no task,"
            + " nothing was stored; publish again after " + retryAfter, retryAfter));
      }
      return lists.byType();
    }).thenCompose(byType -> sendAll(events, byType));
  }

  /** Checks a batch against its listeners, takes one slot per task and sends each task its events. */
  private CompletableFuture<List<PublishResult>> sendAll(List<IncomingEvent> events,
      java.util.Map<String, TriggerProtocol.SubscriberList> byType) {
    java.util.Map<String, List<Integer>> indexes = new java.util.LinkedHashMap<>(); // task -> its events' positions
    java.util.Map<String, io.almanac.journal.SpecRecord> specs = new java.util.HashMap<>();
    for (int i = 0; i < events.size(); i++) {
      IncomingEvent event = events.get(i);
      TriggerProtocol.SubscriberList list = byType.get(event.type());
      if (list.taskIds().isEmpty()) {
        throw new CompletionException(RefusedException.invalid(RefusedException.Reason.UNKNOWN_EVENT_TYPE, "events[" + i
            + "].type", InvalidSpecException.echo(event.type()), "no registered task listens to this event type; nothing of"
            + " the batch was stored"));
      }
      if (event.eventTime() == null && !list.byEventTime().isEmpty()) {
        throw new CompletionException(new InvalidSpecException("events[" + i + "].eventTime", null, "task(s) "
            + String.join(", ", list.byEventTime()) + " map events of type '" + event.type()
            + "' to windows by their event time; nothing of the batch was stored"));
      }
      for (int t = 0; t < list.taskIds().size(); t++) {
        String taskId = list.taskIds().get(t);
        indexes.computeIfAbsent(taskId, k -> new ArrayList<>()).add(i);
        io.almanac.journal.SpecRecord spec = list.specAt(t);
        if (spec != null) {
          specs.putIfAbsent(taskId, spec);
        }
      }
    }
    List<String> taskIds = List.copyOf(indexes.keySet());
    String full = gate.admit(taskIds);
    if (full != null) {
      throw new CompletionException(new OverloadedException(full, gate.limit(), retryAfter));
    }
    List<CompletableFuture<StatusReply<TaskProtocol.EventOutcomes>>> asks = new ArrayList<>();
    for (String taskId : taskIds) {
      List<TaskProtocol.BatchedEvent> mine = new ArrayList<>();
      for (int i : indexes.get(taskId)) {
        IncomingEvent e = events.get(i);
        mine.add(new TaskProtocol.BatchedEvent(e.type(), e.id(), e.eventTime(), e.summary()));
      }
      io.almanac.journal.SpecRecord spec = specs.get(taskId);
      CompletableFuture<StatusReply<TaskProtocol.EventOutcomes>> ask;
      try {
        ask = Asks.ask(tasks.apply(taskId), r -> new TaskProtocol.PublishEvents(mine, r, spec), askTimeout, scheduler);
      } catch (RuntimeException e) {
        ask = CompletableFuture.failedFuture(e);
      }
      asks.add(ask.whenComplete((r, e) -> gate.release(taskId)));
    }
    return CompletableFuture.allOf(asks.toArray(new CompletableFuture[0])).handle((all, ignored) -> {
      Joined<TaskProtocol.EventOutcomes> joined = Joined.of(taskIds, asks);
      java.util.Map<String, List<TaskProtocol.EventOutcome>> answers = new java.util.HashMap<>();
      List<PublishResult.TaskOutcome> recorded = new ArrayList<>();
      joined.answers().forEach((taskId, outcomes) -> {
        answers.put(taskId, outcomes.outcomes());
        recorded.add(outcome(taskId, outcomes.outcomes().get(0)));
      });
      if (!joined.unanswered().isEmpty()) {
        IncomingEvent first = events.get(0);
        throw new CompletionException(new PublishOutcomeUnknownException(first.type(), first.id() + " (and the "
            + (events.size() - 1) + " other event(s) of its batch)", joined.unanswered(), recorded, joined.noAnswer()));
      }
      if (joined.refusal() != null) {
        throw new CompletionException(refusedByOne(joined.refusal(), recorded));
      }
      java.util.Map<String, Integer> next = new java.util.HashMap<>(); // each task's answers are in its events' order
      List<PublishResult> results = new ArrayList<>(events.size());
      for (IncomingEvent event : events) {
        List<PublishResult.TaskOutcome> outcomes = new ArrayList<>();
        for (String taskId : byType.get(event.type()).taskIds()) {
          int at = next.merge(taskId, 1, Integer::sum) - 1;
          outcomes.add(outcome(taskId, answers.get(taskId).get(at)));
        }
        results.add(new PublishResult(event.type(), event.id(), outcomes));
      }
      return results;
    });
  }

  /** Sends an admitted event to its tasks (one slot taken in each, given back as each answers) and joins their answers. */
  private CompletableFuture<PublishResult> send(IncomingEvent event, TriggerProtocol.SubscriberList list) {
    List<String> taskIds = list.taskIds();
    List<CompletableFuture<StatusReply<TaskProtocol.EventOutcome>>> asks = new ArrayList<>();
    for (int i = 0; i < taskIds.size(); i++) {
      String taskId = taskIds.get(i);
      // the registered spec rides along: a task whose entity was never written records it with the event
      io.almanac.journal.SpecRecord spec = list.specAt(i);
      CompletableFuture<StatusReply<TaskProtocol.EventOutcome>> ask;
      try {
        ask = Asks.ask(tasks.apply(taskId), r -> new TaskProtocol.PublishEvent(event.type(), event.id(),
            event.eventTime(), event.summary(), r, spec), askTimeout, scheduler);
      } catch (RuntimeException e) { // never sent: its slot is given back below all the same
        ask = CompletableFuture.failedFuture(e);
      }
      asks.add(ask.whenComplete((r, e) -> gate.release(taskId)));
    }
    return CompletableFuture.allOf(asks.toArray(new CompletableFuture[0])).handle((all, ignored) -> {
      Joined<TaskProtocol.EventOutcome> joined = Joined.of(taskIds, asks);
      List<PublishResult.TaskOutcome> answered = new ArrayList<>();
      joined.answers().forEach((taskId, o) -> answered.add(outcome(taskId, o)));
      if (!joined.unanswered().isEmpty()) {
        throw new CompletionException(new PublishOutcomeUnknownException(event.type(), event.id(), joined.unanswered(),
            answered, joined.noAnswer()));
      }
      if (joined.refusal() != null) {
        throw new CompletionException(refusedByOne(joined.refusal(), answered));
      }
      return new PublishResult(event.type(), event.id(), answered);
    });
  }

  /**
   * The listening tasks' answers to one publish call, once every ask ended.
   *
   * @param answers each answering task's answer, in the tasks' order
   * @param unanswered the tasks that did not answer (a timeout, a lost message)
   * @param noAnswer the first of their failures, or null
   * @param refusal the first task's refusal, or null
   */
  private record Joined<T>(java.util.Map<String, T> answers, List<String> unanswered, Throwable noAnswer, Throwable refusal) {
    static <T> Joined<T> of(List<String> taskIds, List<CompletableFuture<StatusReply<T>>> asks) {
      java.util.Map<String, T> answers = new java.util.LinkedHashMap<>();
      List<String> unanswered = new ArrayList<>();
      Throwable noAnswer = null;
      Throwable refusal = null;
      for (int i = 0; i < taskIds.size(); i++) {
        String taskId = taskIds.get(i);
        StatusReply<T> reply;
        try {
          reply = asks.get(i).join();
        } catch (CompletionException | CancellationException e) {
          unanswered.add(taskId);
          noAnswer = noAnswer != null ? noAnswer : unwrap(e);
          continue;
        }
        if (reply.isError()) {
          refusal = refusal != null ? refusal : reply.getError();
        } else {
          answers.put(taskId, reply.getValue());
        }
      }
      return new Joined<>(answers, unanswered, noAnswer, refusal);
    }
  }

  private static PublishResult.TaskOutcome outcome(String taskId, TaskProtocol.EventOutcome o) {
    return new PublishResult.TaskOutcome(taskId, WindowKey.of(o.window()), o.outcome(), o.detail());
  }

  /** A task's refusal as the publish's failure; when other tasks recorded the event, the message says which. */
  private static AlmanacException refusedByOne(Throwable refusal, List<PublishResult.TaskOutcome> recorded) {
    if (recorded.isEmpty()) {
      return refusal instanceof AlmanacException a ? a : new AlmanacException(refusal.getMessage(), refusal);
    }
    String by = "; the other listening task(s) " + String.join(", ", recorded.stream().map(PublishResult.TaskOutcome::taskId)
        .toList()) + " recorded the event";
    if (refusal instanceof RefusedException r) {
      return r.withMore(by);
    }
    return new AlmanacException(refusal.getMessage() + by, refusal);
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
  }
}
