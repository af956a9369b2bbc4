package io.almanac;

import io.almanac.internal.node.Node;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;

/**
 * The operator actions on tasks and their windows (R31), as {@link Almanac} and an {@link Operator}
 * take them: each is a command to the task's entity with the spec the trigger has registered
 * ({@link TaskAsks#act}), recorded with the actor who acts and the operator's note. Package-private:
 * no part of the API.
 *
 * <p>INTERNAL API.
 */
final class WindowActions {
  private final TaskAsks asks;
  private final Node node;

  WindowActions(TaskAsks asks, Node node) {
    this.asks = asks;
    this.node = node;
  }

  CompletionStage<Done> pause(String taskId, String actor, String note) {
    return asks.act(taskId, r -> new TaskProtocol.PauseBy(actor, note, r));
  }

  CompletionStage<Done> resume(String taskId, String actor, String note) {
    return asks.act(taskId, r -> new TaskProtocol.ResumeBy(actor, note, r));
  }

  CompletionStage<FireDecision> runNow(String taskId, String actor, String note) {
    return asks.markActive(taskId)
        .thenCompose(d -> asks.<TaskProtocol.FireOutcome>act(taskId, r -> new TaskProtocol.RunNowBy(actor, note, r)))
        .thenApply(WindowActions::decision);
  }

  CompletionStage<List<FireDecision>> backfill(String taskId, Instant from, Instant to, String actor, String note) {
    return asks.markActive(taskId)
        .thenCompose(d -> asks.<TaskProtocol.BackfillReport>act(taskId, r -> new TaskProtocol.Backfill(from, to, false,
            actor, note, r)))
        .thenApply(report -> report.outcomes().stream().map(WindowActions::decision).toList());
  }

  /** What a backfill would decide, decided and refused as it would be, nothing written (a dry run). */
  CompletionStage<List<FireDecision>> planBackfill(String taskId, Instant from, Instant to) {
    return asks.<TaskProtocol.BackfillReport>act(taskId, r -> new TaskProtocol.Backfill(from, to, true, r))
        .thenApply(report -> report.outcomes().stream().map(WindowActions::decision).toList());
  }

  CompletionStage<Done> retry(String taskId, WindowKey window, String actor, String note, Expecting expecting) {
    return asks.markActive(taskId)
        .thenCompose(d -> asks.act(taskId, r -> new TaskProtocol.Retry(window, actor, note, expecting, r)));
  }

  CompletionStage<Done> resolve(String taskId, WindowKey window, String note, String actor, Expecting expecting) {
    return asks.act(taskId, r -> new TaskProtocol.Resolve(window, note, actor, expecting, r));
  }

  CompletionStage<Done> cancel(String taskId, WindowKey window, String reason, String actor, Expecting expecting) {
    return asks.act(taskId, r -> new TaskProtocol.Cancel(window, reason, actor, expecting, r));
  }

  CompletionStage<List<WindowKey>> cancelAll(String taskId, Instant from, Instant to, RunKind kind, String reason,
      String actor) {
    return asks.<TaskProtocol.CancelReport>act(taskId, r -> new TaskProtocol.CancelAll(from, to, kind, reason, false, actor,
        r)).thenApply(TaskProtocol.CancelReport::windows);
  }

  /** What a bulk cancel would cancel, decided and refused as it would be, nothing written (a dry run). */
  CompletionStage<List<WindowKey>> planCancelAll(String taskId, Instant from, Instant to, RunKind kind) {
    return asks.<TaskProtocol.CancelReport>act(taskId, r -> new TaskProtocol.CancelAll(from, to, kind, null, true, r))
        .thenApply(TaskProtocol.CancelReport::windows);
  }

  CompletionStage<DailyUsage> raiseBudget(String taskId, BigDecimal amount, String note, String actor) {
    return asks.<TaskProtocol.UsageInfo>act(taskId, r -> new TaskProtocol.RaiseBudget(amount, note, actor, r))
        .thenApply(TaskProtocol.UsageInfo::usage);
  }

  /** See {@link Almanac#remove(String)}. */
  CompletionStage<Done> remove(String taskId) {
    if (taskId == null || taskId.isBlank()) {
      return CompletableFuture.failedFuture(new InvalidSpecException("taskId", taskId, "must not be empty"));
    }
    // The trigger first: once it has recorded the removal it sends the task nothing more (a message of
    // it may bring the registered spec, which would define the task again). Then the entity records the
    // removal, given the spec first if it never recorded one (registration writes no entity).
    return asks.registeredSpec(taskId).thenCompose(spec -> node.retrying("the trigger's removal of task '" + taskId + "'",
        () -> asks.<Done>trigger(r -> new TriggerProtocol.Remove(taskId, r)))
        .thenCompose(d -> spec == null ? asks.rawAsk(taskId, TaskProtocol.Remove::new)
            : asks.rawAsk(taskId, r -> new TaskProtocol.WithSpec(spec, new TaskProtocol.Remove(r)))));
  }

  private static FireDecision decision(TaskProtocol.FireOutcome o) {
    return new FireDecision(WindowKey.of(o.window()), o.decision(), o.reason());
  }
}
