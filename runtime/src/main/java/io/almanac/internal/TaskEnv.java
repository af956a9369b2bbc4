package io.almanac.internal;

import io.almanac.AlertSink;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a task entity talks to besides its journal: the trigger (told the task's next wake-up),
 * the node's executor (told which windows are PENDING), the alert sink, and a liveness check for
 * executors. INTERNAL API.
 *
 * @param trigger the trigger singleton (proxy), or null in unit tests
 * @param executor the node's executor, or null in unit tests
 * @param alerts where final failures and repeated skips are reported
 * @param executorAlive whether the executor with this identity still runs (an attempt whose executor
 *     is gone is timed out at once instead of at its lease's end)
 * @param repeatedSkipAlert consecutive skipped windows that raise an alert (0 = never)
 * @param executorId the node's executor's identity, recorded with an attempt started on a fire
 * @param gate job slots the node's executor offers, to start a window with its schedule
 */
public record TaskEnv(
    ActorRef<TriggerActor.Command> trigger,
    ActorRef<Executor.Command> executor,
    AlertSink alerts,
    Predicate<String> executorAlive,
    int repeatedSkipAlert,
    String executorId,
    StartGate gate) {

  /** No trigger, no executor, alerts dropped, every executor alive: for unit tests of the entity. */
  public static final TaskEnv NONE = new TaskEnv(null, null, a -> { }, id -> true, 0, null, StartGate.closed());
}
