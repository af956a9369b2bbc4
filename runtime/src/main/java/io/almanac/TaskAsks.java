package io.almanac;

import io.almanac.internal.node.Node;
import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.SpecRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.pattern.StatusReply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The facade's asks ({@link Almanac}): of the trigger, and of a task's entity, given the spec the
 * trigger has registered when the entity needs it (docs/registration.md); and the facade's reads of
 * tasks, built on them, which write nothing. A refusal fails the stage
 * with its typed {@link AlmanacException}; no answer within the ask timeout fails it with an {@code
 * AlmanacException} that says so. Package-private: no part of the API.
 *
 * <p>INTERNAL API.
 */
final class TaskAsks {
  private static final Logger LOG = LoggerFactory.getLogger(Almanac.class);

  private final ActorSystem<?> system;
  private final ClusterSharding sharding;
  private final ActorRef<TriggerProtocol.Command> trigger;
  private final Duration askTimeout;

  TaskAsks(Node node) {
    this.system = node.system();
    this.sharding = node.sharding();
    this.trigger = node.trigger();
    this.askTimeout = node.askTimeout();
  }

  /** Asks the trigger, within {@code timeout}, for a {@link StatusReply}: its refusal fails the stage. */
  <T> CompletionStage<T> trigger(Function<ActorRef<StatusReply<T>>, TriggerProtocol.Command> message, Duration timeout) {
    return unwrap(Asks.<TriggerProtocol.Command, StatusReply<T>>ask(trigger, message::apply, timeout, system.scheduler()));
  }

  /** Asks the trigger, within the ask timeout, for a {@link StatusReply}: its refusal fails the stage. */
  <T> CompletionStage<T> trigger(Function<ActorRef<StatusReply<T>>, TriggerProtocol.Command> message) {
    return trigger(message, askTimeout);
  }

  /** @return the ids of the registered tasks, sorted */
  CompletionStage<List<String>> taskIds() {
    return Asks.<TriggerProtocol.Command, TriggerProtocol.TriggerStatus>ask(trigger, TriggerProtocol.GetStatus::withTaskIds,
        askTimeout, system.scheduler()).thenApply(TriggerProtocol.TriggerStatus::taskIds);
  }

  CompletionStage<Done> markActive(String taskId) {
    return trigger(r -> new TriggerProtocol.MarkActive(taskId, r));
  }

  /**
   * A read of a task's entity. One that was never written (registered, nothing to do yet: registration
   * writes no entity) answers that it is unknown; then it is asked again with the spec the trigger has
   * registered, and answers on the task that spec defines, nothing written (docs/registration.md).
   */
  <T> CompletionStage<T> ask(String taskId, Function<ActorRef<StatusReply<T>>, TaskProtocol.Command> message) {
    return this.<T>rawAsk(taskId, message).handle((value, error) -> {
      if (error == null) {
        return CompletableFuture.completedFuture(value);
      }
      if (!unknownTask(error)) {
        return CompletableFuture.<T>failedFuture(error);
      }
      return specOrNone(taskId).thenCompose(spec -> spec == null ? CompletableFuture.<T>failedFuture(error)
          : this.<T>rawAsk(taskId, r -> new TaskProtocol.ReadWithSpec(spec, (TaskProtocol.QueryCommand) message.apply(r))));
    }).thenCompose(Function.identity());
  }

  /**
   * An operator's command on a task's entity, with the spec the trigger has registered: an entity that
   * has recorded it carries the command out as it is; one never written, or whose spec changed since
   * its last message from the trigger, decides the command on that spec and records it in the same
   * write (not at all when the command is refused). No ask inside the entity: the facade asks the trigger.
   */
  <T> CompletionStage<T> act(String taskId, Function<ActorRef<StatusReply<T>>, TaskProtocol.Command> message) {
    if (taskId == null || taskId.isBlank()) {
      return CompletableFuture.failedFuture(new InvalidSpecException("taskId", taskId, "must not be empty"));
    }
    return specOrNone(taskId).thenCompose(spec -> spec == null ? rawAsk(taskId, message)
        : rawAsk(taskId, r -> new TaskProtocol.WithSpec(spec, (TaskProtocol.OperatorCommand) message.apply(r))));
  }

  /** The spec the trigger has registered for a task, or null when it is not registered (never, or removed). */
  CompletionStage<SpecRecord> registeredSpec(String taskId) {
    return Asks.<TriggerProtocol.Command, TriggerProtocol.RegisteredSpec>ask(trigger,
            r -> new TriggerProtocol.GetSpec(taskId, r), askTimeout, system.scheduler())
        .handle((r, error) -> {
          if (error != null) {
            throw new CompletionException(new AlmanacException("no answer from the trigger within the ask timeout "
                + "(the task's registered spec): " + error.getMessage(), error));
          }
          return r.spec();
        });
  }

  /**
   * The registered spec, or null when the task is not registered or the trigger does not answer (a
   * failover): the entity is then asked as it is, and one that has its spec answers as before.
   */
  CompletionStage<SpecRecord> specOrNone(String taskId) {
    return registeredSpec(taskId).exceptionally(e -> {
      LOG.debug("task '{}': the trigger did not give its registered spec ({}); asking the task as it is", taskId,
          e.toString());
      return null;
    });
  }

  // Reads (Almanac#task, #windows, the intervention queues): nothing is written

  /** See {@link Almanac#task(String)}. */
  CompletionStage<TaskView> task(String taskId) {
    // with the registered spec, so the view is the task's as registered (a spec changed or registered
    // anew after a removal shows before its next fire records it); nothing is written
    return specOrNone(taskId).thenCompose(spec -> spec == null
        ? this.<TaskProtocol.TaskInfo>rawAsk(taskId, TaskProtocol.GetTask::new)
        : this.<TaskProtocol.TaskInfo>rawAsk(taskId, r -> new TaskProtocol.ReadWithSpec(spec, new TaskProtocol.GetTask(r))))
        .thenApply(TaskProtocol.TaskInfo::view);
  }

  /** See {@link Almanac#windows(String)}. */
  CompletionStage<List<WindowView>> windows(String taskId) {
    return this.<TaskProtocol.WindowList>ask(taskId, TaskProtocol.GetWindows::new).thenApply(TaskProtocol.WindowList::windows);
  }

  /** See {@link Almanac#interventionQueue(String)}. */
  CompletionStage<List<WindowView>> interventionQueue(String taskId) {
    return this.<TaskProtocol.WindowList>ask(taskId, TaskProtocol.GetInterventionQueue::new)
        .thenApply(TaskProtocol.WindowList::windows);
  }

  /** See {@link Almanac#interventionQueue()}. */
  CompletionStage<List<WindowView>> interventionQueue() {
    return taskIds().thenCompose(ids -> {
      List<CompletableFuture<List<WindowView>>> all = new ArrayList<>();
      for (String id : ids) {
        // a task whose entity was never written (registered, nothing to do yet) has none: not written for this
        all.add(this.<TaskProtocol.WindowList>rawAsk(id, TaskProtocol.GetInterventionQueue::new)
            .thenApply(TaskProtocol.WindowList::windows).exceptionally(e -> {
              if (unknownTask(e)) {
                return List.of();
              }
              throw e instanceof CompletionException c ? c : new CompletionException(e);
            }).toCompletableFuture());
      }
      return CompletableFuture.allOf(all.toArray(new CompletableFuture[0]))
          .thenApply(v -> all.stream().flatMap(f -> f.join().stream()).toList());
    });
  }

  static boolean unknownTask(Throwable error) {
    Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return e instanceof RefusedException r && r.reason() == RefusedException.Reason.UNKNOWN_TASK;
  }

  <T> CompletionStage<T> rawAsk(String taskId, Function<ActorRef<StatusReply<T>>, TaskProtocol.Command> message) {
    if (taskId == null || taskId.isBlank()) {
      return CompletableFuture.failedFuture(new InvalidSpecException("taskId", taskId, "must not be empty"));
    }
    return unwrap(Asks.ask(sharding.entityRefFor(TaskEntity.TYPE_KEY, taskId), message::apply, askTimeout,
        system.scheduler()));
  }

  static <T> CompletionStage<T> unwrap(CompletionStage<StatusReply<T>> reply) {
    return reply.handle((r, error) -> {
      if (error != null) {
        throw new CompletionException(new AlmanacException("no answer within the ask timeout: " + error.getMessage(), error));
      }
      if (r.isError()) {
        // typed refusals (RefusedException, InvalidSpecException, IllegalTransitionException) as they are
        Throwable refusal = r.getError();
        throw new CompletionException(refusal instanceof AlmanacException a ? a : new AlmanacException(refusal.getMessage()));
      }
      return r.getValue();
    });
  }
}
