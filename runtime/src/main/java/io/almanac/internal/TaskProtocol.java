package io.almanac.internal;

import io.almanac.journal.TaskJournal;

import io.almanac.Decision;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;

/**
 * What a task entity is told and what it answers: the commands of its audiences (the trigger, the
 * node's executor, operators through the facade, queries) and their replies. Not persisted: the
 * journal holds only {@link TaskJournal.Event}s. INTERNAL API.
 */
public final class TaskProtocol {

  private TaskProtocol() {}

  /** What a task entity is told or asked. */
  public interface Command extends AlmanacSerializable {
    /** @return where the reply goes, or null for a command that gets none */
    default ActorRef<? extends StatusReply<?>> replyTo() {
      return null;
    }
  }

  /** Define or update the task's spec. */
  public record Define(TaskSpec spec, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** A window is due (from the trigger; a hint: duplicates are acknowledged and ignored, R5). */
  public record Fire(
      WindowKey window, Instant start, Instant end, Instant dueAt, FireKind kind, ActorRef<StatusReply<FireOutcome>> replyTo)
      implements Command {}

  /**
   * The windows of this task due while the trigger was down, older than the latest one: each goes to
   * the backfill policy (R12, R14), all in one journal write (from the trigger after a restart or
   * failover; windows already known are acknowledged as duplicates, R5).
   *
   * @param windows the windows, each as a catch-up fire would carry it
   * @param replyTo one outcome per window, in order
   */
  public record CatchUp(List<DueFire> windows, ActorRef<StatusReply<CatchUpOutcome>> replyTo) implements Command {}

  /**
   * A window due while the trigger was down (see {@link CatchUp}).
   *
   * @param window the window's key
   * @param start the window's start
   * @param end the window's end
   * @param dueAt when it was due
   */
  public record DueFire(WindowKey window, Instant start, Instant end, Instant dueAt) implements AlmanacSerializable {}

  /**
   * The outcome of each window of a {@link CatchUp}, in order.
   *
   * @param outcomes one per window
   */
  public record CatchUpOutcome(List<FireOutcome> outcomes) implements AlmanacSerializable {}

  /** How the trigger came to fire a window. Persisted by name. */
  public enum FireKind {
    /** Due now, fired on time. */
    ON_TIME,
    /** Due while the trigger was down or behind: handed to the backfill policy (R12, R14). */
    CATCH_UP
  }

  /**
   * The executor asks to start the next attempt of a PENDING window (R21).
   *
   * @param window the window
   * @param executorId the executor's identity (node address and incarnation): an attempt whose
   *     executor is gone is timed out without waiting for its lease
   * @param executor where to send a cancellation, or null
   * @param replyTo the grant or the refusal
   */
  public record StartAttempt(
      WindowKey window, String executorId, ActorRef<Executor.Command> executor, ActorRef<StatusReply<AttemptGrant>> replyTo)
      implements Command {
    /**
     * @param window the window
     * @param replyTo the grant or the refusal
     */
    public StartAttempt(WindowKey window, ActorRef<StatusReply<AttemptGrant>> replyTo) {
      this(window, null, null, replyTo);
    }
  }

  /**
   * Something may be due (from the trigger at a retry's due time or a lease's expiry, and after a
   * restart): time out expired or orphaned attempts, release due retries, re-dispatch PENDING
   * windows, and report the next wake-up.
   */
  public record Wake(ActorRef<StatusReply<Done>> replyTo) implements Command {}


  /** The running attempt is alive: extend its lease (R23). */
  public record Heartbeat(WindowKey window, int attempt, ActorRef<StatusReply<LeaseGranted>> replyTo) implements Command {}

  /** The attempt ended with this result. */
  public record FinishAttempt(
      WindowKey window, int attempt, JobResult result, Duration duration, ActorRef<StatusReply<Done>> replyTo)
      implements Command {}

  /** The attempt's lease is due to expire (from the trigger); times it out if it has (R23). */
  public record ExpireLease(WindowKey window, int attempt, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** A waiting retry is due (from the trigger): RETRY_WAIT to PENDING. */
  public record ReleaseRetry(WindowKey window, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /**
   * Record an effect in the window's ledger unless it is there already (R19). With {@code intent}
   * the effect is about to run (value ignored); without, it ran and produced {@code value}.
   */
  public record RecordEffect(
      WindowKey window, int attempt, String key, String value, boolean intent, ActorRef<StatusReply<EffectReply>> replyTo)
      implements Command {
    /** Records a completed effect. */
    public RecordEffect(WindowKey window, int attempt, String key, String value, ActorRef<StatusReply<EffectReply>> replyTo) {
      this(window, attempt, key, value, false, replyTo);
    }
  }

  /** Stop firing windows until resumed (R31); fires meanwhile are recorded as skipped. */
  public record Pause(ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Fire windows again (R31). */
  public record Resume(ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Run the window that contains now, as a manual run (R31). */
  public record RunNow(ActorRef<StatusReply<FireOutcome>> replyTo) implements Command {}

  /** Schedule every window due in (from, to] as a backfill (R31). */
  public record Backfill(Instant from, Instant to, ActorRef<StatusReply<BackfillReport>> replyTo) implements Command {}

  /** Run a FINAL_FAILED, cancelled, skipped or missed window again (R15, R31). */
  public record Retry(WindowKey window, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Mark a FINAL_FAILED window resolved by an operator (R15). */
  public record Resolve(WindowKey window, String note, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Cancel a pending, running or retry-waiting window (R31). */
  public record Cancel(WindowKey window, String reason, ActorRef<StatusReply<Done>> replyTo) implements Command {}

  /** Ask for the task's view. */
  public record GetTask(ActorRef<StatusReply<TaskInfo>> replyTo) implements Command {}

  /** Ask for the hot windows, oldest first. */
  public record GetWindows(ActorRef<StatusReply<WindowList>> replyTo) implements Command {}

  /** Ask for one window. */
  public record GetWindow(WindowKey window, ActorRef<StatusReply<WindowList>> replyTo) implements Command {}

  /** Ask for the FINAL_FAILED windows waiting for an operator (R15, R31). */
  public record GetInterventionQueue(ActorRef<StatusReply<WindowList>> replyTo) implements Command {}

  // Replies

  /** What the entity decided about a fire. */
  public record FireOutcome(String window, Decision decision, String reason) implements AlmanacSerializable {}

  /** Permission to run one attempt: the attempt number is its fencing token. */
  public record AttemptGrant(
      String taskId,
      String window,
      int attempt,
      RunKind kind,
      Instant leaseUntil,
      Instant windowStart,
      Instant windowEnd,
      Instant dueAt,
      Map<String, String> effects,
      List<String> pendingEffects)
      implements AlmanacSerializable {}

  /** The lease after a heartbeat. */
  public record LeaseGranted(Instant leaseUntil) implements AlmanacSerializable {}

  /**
   * Whether the effect (or its intent) was recorded now, the value the ledger holds for its key
   * (null while only an intent is recorded), and whether an intent without an end is recorded.
   */
  public record EffectReply(boolean recordedNow, String value, boolean pending) implements AlmanacSerializable {}

  /** The outcome of every window a backfill covered. */
  public record BackfillReport(List<FireOutcome> outcomes) implements AlmanacSerializable {}

  /** A task's view. */
  public record TaskInfo(TaskView view) implements AlmanacSerializable {}

  /** Windows' views. */
  public record WindowList(List<WindowView> windows) implements AlmanacSerializable {}
}
