package io.almanac.internal.protocol;

import io.almanac.journal.SpecRecord;
import io.almanac.journal.TriggerJournal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;

/**
 * What the trigger ({@code TriggerActor}) is told and what it answers: the messages that cross
 * from the facade, the task entities and the watchdog to the trigger singleton, declared apart
 * from the actor so that their senders depend on the protocol, not on the actor. INTERNAL API.
 */
public final class TriggerProtocol {

  private TriggerProtocol() {}

  /** What the trigger is told. */
  public sealed interface Command extends AlmanacSerializable
      permits Register, TaskWakes, Remove, MarkActive, Quiesce, GetStatus, Subscribers, SubscribersOfTypes, CheckDependencies, UpstreamDone, GetSpec,
      Internal {}

  /**
   * The trigger's messages to itself (its ticks, the answers to its own asks): declared by the actor,
   * never sent by another.
   */
  public non-sealed interface Internal extends Command {}

  /**
   * Start (or keep) firing these tasks' windows: every window due after {@code since} (when the
   * registration began, before the tasks stored their specs; null means now), so a window due while
   * the registration was on its way is fired, not lost. The specs are the journal's records of them
   * ({@link SpecRecord#of}), not the API's {@code TaskSpec}, so that nodes of different versions
   * understand each other.
   */
  public record Register(List<SpecRecord> specs, Instant since, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /**
   * A task's next wake-up and whether it has active windows (from its entity, after each change, and
   * in its answer to every fire).
   *
   * @param taskId the task
   * @param nextWake when it must next be woken, or null
   * @param active whether it has active windows
   * @param seq the entity's journal sequence number when it said so: an older one than the trigger
   *     has applied (a fire's answer overtaken by a later report) is ignored
   */
  public record TaskWakes(String taskId, Instant nextWake, boolean active, long seq) implements Command {}

  /**
   * Stop firing and waking this task, for good (persisted, so a restart does not bring it back);
   * sent by the facade after the task's entity recorded its removal. A task not registered is
   * acknowledged.
   */
  public record Remove(String taskId, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** An operator is about to act on a task: remember it may have active windows (persisted first). */
  public record MarkActive(String taskId, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /**
   * The node at {@code node} is shutting down: if the trigger runs there, it stops sending fires and
   * wake-ups (its successor on another node, or after the restart, resumes from the watermark).
   *
   * @param node the address of the node shutting down
   * @param othersStayUp whether, as that node sees it, other members of the cluster are up and stay:
   *     the trigger then records a planned hand-over ({@link TriggerJournal.HandedOver}), so its
   *     successor, if it starts within {@code almanac.trigger.hand-over-timeout}, fires the windows
   *     due meanwhile on time
   * @param replyTo answered once the trigger has stopped firing (and recorded the hand-over)
   */
  public record Quiesce(String node, boolean othersStayUp, ActorRef<Done> replyTo) implements Command {}

  /** Ask for the trigger's liveness and counters (R25). */
  public record GetStatus(ActorRef<TriggerStatus> replyTo, boolean withTaskIds) implements Command {
    /**
     * The status without the registered tasks' ids (the watchdog's and the health check's: their
     * number grows with the tasks, and these ask every few seconds).
     *
     * @param replyTo where the status goes
     */
    public GetStatus(ActorRef<TriggerStatus> replyTo) {
      this(replyTo, false);
    }

    /**
     * @param replyTo where the status goes
     * @return a status request that lists the registered tasks' ids, sorted
     */
    public static GetStatus withTaskIds(ActorRef<TriggerStatus> replyTo) {
      return new GetStatus(replyTo, true);
    }
  }

  /**
   * Which registered tasks listen to events of this type (R9).
   *
   * @param type the event type
   * @param replyTo the task ids, sorted (empty: none listens)
   */
  public record Subscribers(String type, ActorRef<SubscriberList> replyTo) implements Command {}

  /**
   * Which registered tasks listen to each of these event types (R9): a batch's one question.
   *
   * @param types the event types
   * @param replyTo each type's {@link SubscriberList}
   */
  public record SubscribersOfTypes(List<String> types, ActorRef<SubscriberLists> replyTo) implements Command {}

  /**
   * The answer to {@link SubscribersOfTypes}.
   *
   * @param byType each type asked for, with its listeners
   */
  public record SubscriberLists(Map<String, SubscriberList> byType) implements AlmanacSerializable {}

  /**
   * The answer to {@link Subscribers}.
   *
   * @param taskIds the tasks, sorted
   * @param byEventTime those of them that map events by their event time (they need one)
   * @param specs the tasks' specs as registered, in the order of {@code taskIds} (an entity that has
   *     not recorded its spec yet records it with the event); empty from a trigger that sends none
   */
  public record SubscriberList(List<String> taskIds, List<String> byEventTime, List<io.almanac.journal.SpecRecord> specs)
      implements AlmanacSerializable {

    /** Never null. */
    public SubscriberList {
      specs = specs == null ? List.of() : specs;
    }

    /** A list without the specs. */
    public SubscriberList(List<String> taskIds, List<String> byEventTime) {
      this(taskIds, byEventTime, List.of());
    }

    /**
     * @param i the index of a task in {@link #taskIds}
     * @return its registered spec, or null when the trigger sent none
     */
    public io.almanac.journal.SpecRecord specAt(int i) {
      return i < specs.size() ? specs.get(i) : null;
    }
  }

  /**
   * The spec the trigger has registered for a task (the facade gives it to a task's entity that has
   * not recorded it yet, before an operator's command or a read: registration writes no entity).
   *
   * @param taskId the task
   * @param replyTo its spec, or none when the task is not registered (never, or removed)
   */
  public record GetSpec(String taskId, ActorRef<RegisteredSpec> replyTo) implements Command {}

  /**
   * The answer to {@link GetSpec}.
   *
   * @param spec the registered spec, or null when the task is not registered
   */
  public record RegisteredSpec(io.almanac.journal.SpecRecord spec) implements AlmanacSerializable {}

  /**
   * Check a registration's dependencies against the registered tasks before anything is stored
   * (R9): refused with the cycle, or the missing upstream task, named.
   *
   * @param specs the specs to register
   * @param replyTo ack, or an error naming the task, the field and the cycle
   */
  public record CheckDependencies(List<SpecRecord> specs, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /**
   * A task succeeded for a window (from its entity): the tasks that depend on it are told (R9).
   *
   * @param taskId the upstream task
   * @param window its window
   * @param start the window's start
   * @param end the window's end
   * @param at when it succeeded
   */
  public record UpstreamDone(String taskId, String window, Instant start, Instant end, Instant at) implements Command {}

  /**
   * The trigger's liveness and counters.
   *
   * @param tasks registered tasks
   * @param queued entries in the due queue
   * @param inFlight fires not yet acknowledged
   * @param watermark every fire due at or before it was acknowledged
   * @param lastTick when the trigger last looked at its queue
   * @param nextTask the task due next, or null
   * @param nextAt when it is due, or null
   * @param firesSent fires sent since start (retries included)
   * @param taskIds the registered task ids, sorted
   * @param ticks how many times this incarnation of the trigger has looked at its queue (its
   *     progress, judged without the wall clock)
   */
  public record TriggerStatus(
      int tasks, int queued, int inFlight, Instant watermark, Instant lastTick, String nextTask, Instant nextAt,
      long firesSent, List<String> taskIds, long ticks)
      implements AlmanacSerializable {}
}
