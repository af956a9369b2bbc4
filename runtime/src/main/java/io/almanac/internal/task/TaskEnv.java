package io.almanac.internal.task;

import io.almanac.AlertSink;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.meter.SkipSummary;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TriggerProtocol;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a task entity talks to besides its journal: the trigger (told the task's next wake-up),
 * the node's executor (offered the windows that may start), the alert sink, and what is known of
 * the executors that run its attempts. INTERNAL API.
 *
 * @param trigger the trigger singleton (proxy), or null in unit tests
 * @param executor the node's executor, or null in unit tests
 * @param alerts where final failures and repeated skips are reported
 * @param executors what is known of an executor identity: an attempt whose executor has
 *     {@link ExecutorLiveness.State#ENDED} is timed out at once instead of at its lease's end; one
 *     {@link ExecutorLiveness.State#ENDING} is asked about again every {@code goneRecheck}
 * @param goneRecheck how soon to ask again about an executor that is ending
 * @param repeatedSkipAlert consecutive skipped windows that raise an alert (0 = never)
 * @param meters the node's meters ({@link NodeMeters#NONE} in unit tests)
 * @param conditions the conditions registered on this node by name (null when none can be)
 * @param tasks how to reach another task's entity (a dependency's upstream), or null in unit tests
 * @param skips the node's tally of windows that did not run, logged as one line per interval
 */
public record TaskEnv(
    ActorRef<TriggerProtocol.Command> trigger,
    ActorRef<ExecutorProtocol.Command> executor,
    AlertSink alerts,
    Function<String, ExecutorLiveness.State> executors,
    Duration goneRecheck,
    int repeatedSkipAlert,
    NodeMeters meters,
    Function<String, io.almanac.Condition> conditions,
    Function<String, org.apache.pekko.actor.typed.RecipientRef<TaskProtocol.Command>> tasks,
    SkipSummary skips) {

  /** Without conditions or other tasks: for unit tests of the entity (a live executor runs, a dead one ended). */
  public TaskEnv(ActorRef<TriggerProtocol.Command> trigger, ActorRef<ExecutorProtocol.Command> executor, AlertSink alerts,
      Predicate<String> executorAlive, int repeatedSkipAlert, NodeMeters meters) {
    this(trigger, executor, alerts, id -> executorAlive.test(id) ? ExecutorLiveness.State.RUNS : ExecutorLiveness.State.ENDED,
        Duration.ofSeconds(1), repeatedSkipAlert, meters, name -> null, null, new SkipSummary());
  }

  /** Without meters (they record nothing): for unit tests of the entity. */
  public TaskEnv(ActorRef<TriggerProtocol.Command> trigger, ActorRef<ExecutorProtocol.Command> executor, AlertSink alerts,
      Predicate<String> executorAlive, int repeatedSkipAlert) {
    this(trigger, executor, alerts, executorAlive, repeatedSkipAlert, NodeMeters.NONE);
  }

  /**
   * Logs an alert (a final failure as an error, the rest as warnings; a REPEATED_SKIPS alert is
   * counted in the node's skip summary instead of a line of its own) and hands it to the sink; a
   * failing sink is logged and never fails the caller.
   *
   * @param a the alert
   * @param log where to log it
   */
  public void raise(io.almanac.Alert a, org.slf4j.Logger log) {
    if (a.kind() == io.almanac.Alert.Kind.FINAL_FAILED) {
      log.error(a.message());
    } else if (a.kind() == io.almanac.Alert.Kind.REPEATED_SKIPS) {
      skips.alerted(a.taskId());
    } else {
      log.warn(a.message());
    }
    try {
      alerts.alert(a);
    } catch (RuntimeException ex) {
      log.error("alert sink failed on {}: {}", a.kind(), ex.toString());
    }
  }

  /**
   * Tells the node what a task's write did, from its persisted state only (principle 1): the meters
   * and the skip tally, the alerts it raises, the jobs it cancels, and, when some task depends on this
   * one, the windows that succeeded (to the trigger, R9). As {@link Reactions} decides.
   */
  void written(String taskId, NodeMeters.Origin origin, io.almanac.journal.TaskJournal.State before,
      io.almanac.journal.TaskJournal.State after, java.util.List<io.almanac.journal.TaskJournal.Event> events,
      java.util.List<io.almanac.journal.WindowChange> changes, boolean announce, org.slf4j.Logger log) {
    meters.written(taskId, origin, before, after, events, changes);
    skips.written(taskId, events);
    Reactions.alerts(taskId, after, events, changes, repeatedSkipAlert).forEach(a -> raise(a, log));
    if (executor != null) {
      Reactions.cancels(taskId, changes).forEach(executor::tell);
    }
    if (trigger != null && announce) {
      Reactions.upstreamDone(taskId, after, changes).forEach(trigger::tell);
    }
  }

  /**
   * A window an open skip range covered: no event was written for it (docs/skip-ranges.md), the
   * meters and the skip tally count it all the same, and the range's {@code repeatedSkipAlert}-th
   * window raises the REPEATED_SKIPS alert ({@code windows}: the range's windows so far, or 0 when
   * not known since a recovery).
   */
  void covered(String taskId, io.almanac.journal.SkipRange range, boolean catchUp, long windows, String window, Instant at,
      org.slf4j.Logger log) {
    meters.covered(taskId, range, catchUp);
    skips.covered(taskId, range);
    if (repeatedSkipAlert > 0 && windows == repeatedSkipAlert && range.outcome() == io.almanac.InstanceStatus.SKIPPED
        && range.skipReason() != io.almanac.SkipReason.WINDOW_EXISTS) {
      raise(new io.almanac.Alert(io.almanac.Alert.Kind.REPEATED_SKIPS, taskId, window, "task '" + taskId + "' skipped "
          + repeatedSkipAlert + " windows in a row, the last '" + window + "': " + range.skipReason() + " ("
          + range.detail() + ")", at), log);
    }
  }

  /** No trigger, no executor, alerts dropped, every executor alive: for unit tests of the entity. */
  public static final TaskEnv NONE = new TaskEnv(null, null, a -> { }, id -> true, 0);
}
