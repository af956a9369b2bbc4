package io.almanac.internal;

import io.almanac.AlertSink;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a task entity talks to besides its journal: the trigger (told the task's next wake-up),
 * the node's executor (offered the windows that may start), the alert sink, and a liveness check for
 * executors. INTERNAL API.
 *
 * @param trigger the trigger singleton (proxy), or null in unit tests
 * @param executor the node's executor, or null in unit tests
 * @param alerts where final failures and repeated skips are reported
 * @param executorAlive whether the executor with this identity still runs (an attempt whose executor
 *     is gone is timed out at once instead of at its lease's end)
 * @param repeatedSkipAlert consecutive skipped windows that raise an alert (0 = never)
 * @param meters the node's meters ({@link NodeMeters#NONE} in unit tests)
 * @param conditions the conditions registered on this node by name (null when none can be)
 * @param tasks how to reach another task's entity (a dependency's upstream), or null in unit tests
 */
public record TaskEnv(
    ActorRef<TriggerActor.Command> trigger,
    ActorRef<Executor.Command> executor,
    AlertSink alerts,
    Predicate<String> executorAlive,
    int repeatedSkipAlert,
    NodeMeters meters,
    java.util.function.Function<String, io.almanac.Condition> conditions,
    java.util.function.Function<String, org.apache.pekko.actor.typed.RecipientRef<TaskProtocol.Command>> tasks) {

  /** Without conditions or other tasks: for unit tests of the entity. */
  public TaskEnv(ActorRef<TriggerActor.Command> trigger, ActorRef<Executor.Command> executor, AlertSink alerts,
      Predicate<String> executorAlive, int repeatedSkipAlert, NodeMeters meters) {
    this(trigger, executor, alerts, executorAlive, repeatedSkipAlert, meters, name -> null, null);
  }

  /** Without meters (they record nothing): for unit tests of the entity. */
  public TaskEnv(ActorRef<TriggerActor.Command> trigger, ActorRef<Executor.Command> executor, AlertSink alerts,
      Predicate<String> executorAlive, int repeatedSkipAlert) {
    this(trigger, executor, alerts, executorAlive, repeatedSkipAlert, NodeMeters.NONE);
  }

  /**
   * Logs an alert (a final failure as an error, the rest as warnings) and hands it to the sink; a
   * failing sink is logged and never fails the caller.
   *
   * @param a the alert
   * @param log where to log it
   */
  public void raise(io.almanac.Alert a, org.slf4j.Logger log) {
    if (a.kind() == io.almanac.Alert.Kind.FINAL_FAILED) {
      log.error(a.message());
    } else {
      log.warn(a.message());
    }
    try {
      alerts.alert(a);
    } catch (RuntimeException ex) {
      log.error("alert sink failed on {}: {}", a.kind(), ex.toString());
    }
  }

  /** No trigger, no executor, alerts dropped, every executor alive: for unit tests of the entity. */
  public static final TaskEnv NONE = new TaskEnv(null, null, a -> { }, id -> true, 0);
}
