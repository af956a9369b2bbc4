package io.almanac.internal.executor;

import io.almanac.EffectLedger;
import io.almanac.EffectOutcomeUnknownException;
import io.almanac.JobContext;
import io.almanac.LeaseLostException;
import io.almanac.LeasePolicy;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.pekko.pattern.AskTimeoutException;

/**
 * The context of one running attempt; called from job threads. It holds the attempt's data and a
 * {@link JobPort}, never an actor (JobContextHoldsNoActorTest). INTERNAL API.
 */
final class JobContextImpl implements JobContext, EffectLedger {
  private final JobPort port;
  /** The executor's clock: the lease's remaining time is measured on it, as the executor's lease check does. */
  private final Clock clock;
  private final RunningAttempt running;
  private final TaskProtocol.AttemptGrant grant;
  private final ZoneId zone;
  private final Map<String, String> recorded;
  private final Set<String> pendingAtStart;
  private final Set<String> intendedHere = ConcurrentHashMap.newKeySet();

  JobContextImpl(JobPort port, RunningAttempt running, TaskProtocol.AttemptGrant grant, String zone, Clock clock) {
    this.port = port;
    this.clock = clock;
    this.running = running;
    this.grant = grant;
    this.zone = ZoneId.of(zone);
    this.recorded = new ConcurrentHashMap<>(grant.effects());
    this.pendingAtStart = new HashSet<>(grant.pendingEffects());
  }

  @Override
  public String taskId() {
    return grant.taskId();
  }

  @Override
  public WindowKey window() {
    return WindowKey.of(grant.window());
  }

  @Override
  public Instant windowStart() {
    return grant.windowStart();
  }

  @Override
  public Instant scheduledAt() {
    return grant.dueAt();
  }

  @Override
  public Instant windowEnd() {
    return grant.windowEnd();
  }

  @Override
  public ZoneId zone() {
    return zone;
  }

  @Override
  public int attempt() {
    return grant.attempt();
  }

  @Override
  public RunKind runKind() {
    return grant.kind();
  }

  @Override
  public String idempotencyKey() {
    return grant.taskId() + "/" + grant.window();
  }

  @Override
  public Instant deadline() {
    return running.deadline;
  }

  @Override
  public CompletionStage<Instant> heartbeat() {
    if (!holdsLease()) {
      return CompletableFuture.failedFuture(leaseLost());
    }
    return port.heartbeat(running.item, running.attempt);
  }

  @Override
  public boolean isCancelled() {
    return running.cancelled.isDone();
  }

  @Override
  public boolean holdsLease() {
    return !running.fenced && !running.cancelled.isDone() && port.leaseValid();
  }

  private LeaseLostException leaseLost() {
    String why;
    if (running.fenced || !port.leaseValid()) {
      why = "its node lost the executor's lease (a freeze, the journal's database out of reach, or downed); "
          + "another node may run the window's retry";
    } else {
      why = "the attempt was cancelled (its lease expired, an operator cancelled it, or it was superseded)";
    }
    return new LeaseLostException(running.item.taskId(), running.item.window(), running.attempt, why);
  }

  /**
   * Never an intent or an effect recorded for an attempt that may run beside its retry. A write waits
   * for the task's journal as long as the attempt holds its lease, not a fixed ask timeout (a loaded
   * journal answers late, and a write given up early fails a job that would have succeeded): until
   * the answer, or the attempt's cancellation (the executor cancels it when its lease ends, as it does
   * on an operator's cancel or a lost fence), or, should neither come, the lease's remaining time
   * plus the ask timeout. Without an answer the write fails with {@link EffectOutcomeUnknownException}
   * saying whether the effect ran; a refusal is passed on as it is.
   */
  private CompletionStage<TaskProtocol.EffectReply> recordEffect(String key, String value, boolean intent) {
    if (!holdsLease()) {
      return CompletableFuture.failedFuture(leaseLost());
    }
    CompletableFuture<TaskProtocol.EffectReply> out = new CompletableFuture<>();
    write(key, value, intent, out);
    running.cancelled.whenComplete((v, e) -> out.completeExceptionally(noAnswer(key, intent, leaseLost())));
    return out;
  }

  /**
   * One ask of the write. Should it get no answer while a heartbeat extended the lease meanwhile, it
   * is asked again for the new lease: the same write twice is safe (an intent already recorded by this
   * attempt is answered as pending and lets it run its effect, a value already recorded is answered
   * with that value).
   */
  private void write(String key, String value, boolean intent, CompletableFuture<TaskProtocol.EffectReply> out) {
    Instant leaseAtAsk = running.deadline;
    port.recordEffect(running.item, running.attempt, key, value, intent, ledgerWait()).whenComplete((reply, error) -> {
      if (error == null) {
        out.complete(reply);
        return;
      }
      Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
      if (!unanswered(cause)) {
        out.completeExceptionally(cause);
      } else if (!out.isDone() && holdsLease() && running.deadline.isAfter(leaseAtAsk)) {
        write(key, value, intent, out);
      } else {
        out.completeExceptionally(noAnswer(key, intent, cause));
      }
    });
  }

  /** The attempt's lease's remaining time (none once it ended), at most the longest lease, plus the ask timeout. */
  Duration ledgerWait() {
    Duration remaining = Duration.between(clock.instant(), running.deadline);
    if (remaining.isNegative()) {
      remaining = Duration.ZERO;
    } else if (remaining.compareTo(LeasePolicy.MAX_CEILING) > 0) {
      remaining = LeasePolicy.MAX_CEILING;
    }
    return remaining.plus(port.askTimeout());
  }

  /** Whether a write's failure is the lack of an answer (rather than a refusal). */
  private static boolean unanswered(Throwable error) {
    return error instanceof java.util.concurrent.TimeoutException || error instanceof AskTimeoutException;
  }

  /**
   * A write that got no answer while the attempt held its lease. An intent's: the effect was not run,
   * and whether the intent was recorded is unknown, so this attempt must not make the effect by other
   * means (a job that answers {@link EffectOutcomeUnknownException} by checking downstream and making
   * the effect itself would make it outside the ledger, and a retry that finds no intent would make it
   * again): {@link LeaseLostException}, the attempt is over. A value's: the effect ran and its record
   * is unknown: {@link EffectOutcomeUnknownException}, the downstream check the ledger's contract asks.
   */
  private RuntimeException noAnswer(String key, boolean intent, Throwable cause) {
    String held = "got no answer from the task's journal while the attempt held its lease (" + cause.getMessage() + ")";
    if (intent) {
      LeaseLostException lost = new LeaseLostException(grant.taskId(), grant.window(), grant.attempt(), "the intent of "
          + "effect '" + key + "' " + held + ": the effect was not run and must not be made by this attempt; whether the "
          + "intent was recorded is unknown, so a later attempt may find this effect's outcome unknown");
      lost.initCause(cause);
      return lost;
    }
    return new EffectOutcomeUnknownException(grant.taskId(), grant.window(), key, "ran, but the record of its value "
        + held + "; unless that record lands, a later attempt finds this effect's outcome unknown", cause);
  }


  @Override
  public CompletionStage<Void> cancellation() {
    return running.cancelled.copy();
  }

  @Override
  public boolean isStopping() {
    return running.stopping.isDone();
  }

  @Override
  public CompletionStage<Void> stopping() {
    return running.stopping.copy();
  }

  @Override
  public EffectLedger ledger() {
    return this;
  }

  @Override
  public Optional<String> recorded(String key) {
    return Optional.ofNullable(recorded.get(key));
  }

  @Override
  public CompletionStage<String> once(String key, Supplier<CompletionStage<String>> effect) {
    String done = recorded.get(key);
    if (done != null) {
      return CompletableFuture.completedFuture(done);
    }
    if (pendingAtStart.contains(key) && !intendedHere.contains(key)) {
      return CompletableFuture.failedFuture(new EffectOutcomeUnknownException(grant.taskId(), grant.window(), key));
    }
    return recordEffect(key, null, true).thenCompose(intent -> {
      if (intent.value() != null) {
        recorded.put(key, intent.value());
        return CompletableFuture.completedFuture(intent.value());
      }
      intendedHere.add(key);
      CompletionStage<String> result;
      try {
        result = effect.get();
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      return result.thenCompose(value -> record(key, value == null ? "" : value));
    });
  }

  @Override
  public CompletionStage<String> record(String key, String value) {
    return recordEffect(key, value, false).thenApply(reply -> {
      recorded.put(key, reply.value());
      return reply.value();
    });
  }
}
