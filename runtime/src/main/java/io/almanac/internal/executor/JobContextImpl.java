package io.almanac.internal.executor;

import io.almanac.EffectLedger;
import io.almanac.EffectOutcomeUnknownException;
import io.almanac.JobContext;
import io.almanac.LeaseLostException;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The context of one running attempt; called from job threads. It holds the attempt's data and a
 * {@link JobPort}, never an actor (JobContextHoldsNoActorTest). INTERNAL API.
 */
final class JobContextImpl implements JobContext, EffectLedger {
  private final JobPort port;
  private final RunningAttempt running;
  private final TaskProtocol.AttemptGrant grant;
  private final ZoneId zone;
  private final Map<String, String> recorded;
  private final Set<String> pendingAtStart;
  private final Set<String> intendedHere = ConcurrentHashMap.newKeySet();

  JobContextImpl(JobPort port, RunningAttempt running, TaskProtocol.AttemptGrant grant, String zone) {
    this.port = port;
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

  /** Never an intent or an effect recorded for an attempt that may run beside its retry. */
  private CompletionStage<TaskProtocol.EffectReply> recordEffect(String key, String value, boolean intent) {
    if (!holdsLease()) {
      return CompletableFuture.failedFuture(leaseLost());
    }
    return port.recordEffect(running.item, running.attempt, key, value, intent);
  }

  @Override
  public CompletionStage<Void> cancellation() {
    return running.cancelled.copy();
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
