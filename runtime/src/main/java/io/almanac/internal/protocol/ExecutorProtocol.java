package io.almanac.internal.protocol;

import io.almanac.RunKind;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a node's executor ({@code Executor}) is told and what it answers: the offers and cancels of
 * the task entities, the admission answers, the node's drain and the health check's counters,
 * declared apart from the actor so that their senders depend on the protocol, not on the actor.
 * INTERNAL API.
 */
public final class ExecutorProtocol {

  private ExecutorProtocol() {}

  /** What the executor is told. */
  public sealed interface Command permits Offer, AdmissionAnswer, TaskRecovered, CancelAttempt, Drain, GetStats, GetSlots, NodeDown, Internal {}

  /**
   * The executor's messages to itself and from its job threads (checks, the answers to its own asks,
   * a job's end and its report's answer): declared by the executor, never sent by another actor.
   */
  public non-sealed interface Internal extends Command {}

  /**
   * A window of this task may start (from a task entity of this node): admit it when there is room.
   *
   * @param taskId the task
   * @param window the window
   * @param kind why it runs (fresh windows go before backlog)
   * @param task the entity, to answer
   * @param answerIfQueued whether to answer {@link TaskProtocol.Queued} when there is no slot now
   *     (a fire waits for it before it writes the window's schedule)
   * @param pools the resource pools the task names, or null when none
   */
  public record Offer(String taskId, String window, RunKind kind, ActorRef<TaskProtocol.Command> task,
      boolean answerIfQueued, java.util.List<String> pools) implements Command, AlmanacSerializable {
    /** An offer of a task without pools. */
    public Offer(String taskId, String window, RunKind kind, ActorRef<TaskProtocol.Command> task, boolean answerIfQueued) {
      this(taskId, window, kind, task, answerIfQueued, null);
    }
  }

  /** A task entity's answer to {@link TaskProtocol.Admitted}. */
  public sealed interface AdmissionAnswer extends Command, AlmanacSerializable permits Started, Declined {}

  /**
   * The admitted window's attempt is started in the journal: run it now, or as soon as a slot is
   * free (admitted ahead of a slot).
   *
   * @param job the job's name
   * @param zone the task's zone
   * @param grant the attempt's grant (its number is the fencing token)
   */
  public record Started(String job, String zone, TaskProtocol.AttemptGrant grant) implements AdmissionAnswer {}

  /**
   * The admitted window did not start; its reserved slot is free again.
   *
   * @param taskId the task
   * @param window the window
   * @param reason why, typed
   * @param detail why, in words
   */
  public record Declined(String taskId, String window, io.almanac.RefusedException.Reason reason, String detail)
      implements AdmissionAnswer {}

  /**
   * A task entity recovered (a restart after a failed write, or a new start): the slots reserved for
   * it whose start it never answered are free again, and what it had offered is forgotten (it offers
   * its PENDING windows again).
   *
   * @param taskId the task
   */
  public record TaskRecovered(String taskId) implements Command, AlmanacSerializable {}

  /** Cancel this attempt if it runs here (from a task entity: timed out, cancelled, superseded). */
  public record CancelAttempt(String taskId, String window, int attempt, String reason)
      implements Command, AlmanacSerializable {}

  /**
   * Stop starting work and answer once every running attempt has ended and its result was
   * acknowledged, so a node that shuts down hands over no half-reported result (coordinated
   * shutdown calls this before the task shards stop). Attempts still running when the caller gives
   * up are left to their lease: after a restart the entity times them out at once.
   */
  public record Drain(ActorRef<Done> replyTo) implements Command {}

  /** Ask for the executor's counters. */
  public record GetStats(ActorRef<Stats> replyTo) implements Command {}

  /**
   * The executor's counters.
   *
   * @param running jobs holding a slot
   * @param queuedFresh first and manual runs waiting for a slot
   * @param queuedBacklog retries, backfills and catch-ups waiting
   * @param started jobs started
   * @param finished jobs that ended in their slot
   * @param cancelled jobs cancelled (lease end, operator, superseded, lost node lease)
   * @param stuck cancelled jobs whose thread has not returned within stuck-after
   * @param holdsLease whether the executor holds its node lease now (always true without a fence)
   * @param identity the executor's identity now
   */
  public record Stats(int running, int queuedFresh, int queuedBacklog, long started, long finished, long cancelled,
      int stuck, boolean holdsLease, String identity) implements AlmanacSerializable {}

  /**
   * Ask for the executor's slots (the operators' nodes page): sent from any node of the cluster, found
   * through the receptionist under {@link #SERVICE}.
   *
   * @param replyTo the answer
   */
  public record GetSlots(ActorRef<Slots> replyTo) implements Command, AlmanacSerializable {}

  /** The key under which every node's executor is registered with the receptionist. */
  public static final org.apache.pekko.actor.typed.receptionist.ServiceKey<Command> SERVICE =
      org.apache.pekko.actor.typed.receptionist.ServiceKey.create(Command.class, "almanac-executor");

  /**
   * One node's executor as the nodes page shows it (a reply that crosses nodes).
   *
   * @param identity the executor's identity now (its lease's owner)
   * @param holdsLease whether it holds its node lease now (always true without a fence)
   * @param startedAt when the executor started, by the node's clock
   * @param capacity its slots ({@code almanac.executor.max-concurrent})
   * @param running jobs holding a slot
   * @param queuedFresh first and manual runs waiting for a slot
   * @param queuedBacklog retries, backfills and catch-ups waiting
   * @param stuck cancelled jobs whose thread has not returned
   * @param poolWaiting per resource pool, the queued windows that name it
   */
  public record Slots(String identity, boolean holdsLease, java.time.Instant startedAt, int capacity, int running,
      int queuedFresh, int queuedBacklog, int stuck, java.util.Map<String, Integer> poolWaiting)
      implements AlmanacSerializable {
    /** Never null, never shared mutable. */
    public Slots {
      poolWaiting = poolWaiting == null ? java.util.Map.of() : java.util.Map.copyOf(poolWaiting);
    }
  }

  /**
   * This node was downed (or removed without leaving): cancel every job, report nothing, and never
   * take a lease again.
   *
   * @param why for the log
   */
  public record NodeDown(String why) implements Command {}
}
