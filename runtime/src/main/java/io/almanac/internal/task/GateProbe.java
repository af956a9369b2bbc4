package io.almanac.internal.task;

import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.GateChecked;
import io.almanac.internal.protocol.TaskProtocol.GetUpstreamReport;
import io.almanac.internal.protocol.TaskProtocol.UpstreamReport;
import io.almanac.journal.SpecRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.pattern.StatusReply;

/**
 * Checks the gates of a task's waiting windows for its entity (R9): asks each upstream task for
 * its report (within {@code almanac.task.upstream-ask-timeout}) and polls the condition on the
 * blocking dispatcher (within the condition's timeout), then tells the entity what it found as one
 * {@link GateChecked}. A child of the entity, spawned on its first check: the entity does no I/O,
 * and every answer, from whichever thread, comes back here as a message. One check per window at a
 * time (the entity sees to it); a condition call that outlived its timeout keeps its window's call
 * slot until it returns, so no second call runs beside it (threads are not leaked). INTERNAL API.
 */
final class GateProbe extends AbstractBehavior<GateProbe.Command> {

  /** What the probe is told. */
  interface Command {}

  /**
   * Check one waiting window's gates.
   *
   * @param window the window's key
   * @param start its start
   * @param end its end
   * @param upstream the upstream tasks to ask, or null when the task has no dependency
   * @param condition the condition to poll, or null
   * @param poll the number of this poll of the window's condition
   */
  record Check(String window, Instant start, Instant end, List<String> upstream, SpecRecord.Condition condition,
      int poll) implements Command {}

  private record Answered(String window, long check, String upstream, UpstreamReport report, String error) implements Command {}

  private record CallEnded(String window, long call, Boolean holds, Throwable error) implements Command {}

  private record CallTimedOut(String window, long call) implements Command {}

  /** A check under way: what came back so far. */
  private static final class Pending {
    final long id; // a check sent again for its window (after the entity's restart) replaces this one
    final Check check;
    final Map<String, UpstreamReport> reports = new HashMap<>();
    final Map<String, String> errors = new HashMap<>();
    int asks;
    long call = -1; // the condition call this check waits for, or -1
    Boolean holds;
    String error;

    Pending(long id, Check check) {
      this.id = id;
      this.check = check;
    }
  }

  private final String taskId;
  private final TaskEnv env;
  private final Duration askTimeout;
  private final ActorRef<TaskProtocol.Command> entity;
  private final TimerScheduler<Command> timers;
  // the probe's own, touched only on its thread
  private final Map<String, Pending> pending = new HashMap<>();
  private final Set<String> callsRunning = new HashSet<>();
  private long checks;
  private long calls;

  static Behavior<Command> create(String taskId, TaskEnv env, Duration askTimeout, ActorRef<TaskProtocol.Command> entity) {
    return Behaviors.<Command>supervise(Behaviors.setup(ctx -> Behaviors.withTimers(
        timers -> new GateProbe(ctx, taskId, env, askTimeout, entity, timers)))).onFailure(SupervisorStrategy.resume());
  }

  private GateProbe(ActorContext<Command> ctx, String taskId, TaskEnv env, Duration askTimeout,
      ActorRef<TaskProtocol.Command> entity, TimerScheduler<Command> timers) {
    super(ctx);
    this.taskId = taskId;
    this.env = env;
    this.askTimeout = askTimeout;
    this.entity = entity;
    this.timers = timers;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Check.class, this::onCheck)
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(CallEnded.class, this::onCallEnded)
        .onMessage(CallTimedOut.class, this::onCallTimedOut)
        .build();
  }

  private Behavior<Command> onCheck(Check c) {
    Pending p = new Pending(++checks, c);
    pending.put(c.window(), p);
    if (c.upstream() != null) {
      for (String upstream : c.upstream()) {
        ask(p, upstream);
      }
    }
    if (c.condition() != null) {
      poll(p);
    }
    reportIfDone(p);
    return this;
  }

  private void ask(Pending p, String upstream) {
    if (env.tasks() == null) {
      p.errors.put(upstream, "no route to other tasks on this node");
      return;
    }
    Check c = p.check;
    p.asks++;
    CompletableFuture<StatusReply<UpstreamReport>> asked;
    try {
      asked = Asks.ask(env.tasks().apply(upstream), r -> new GetUpstreamReport(c.window(), c.start(), c.end(), r),
          askTimeout, getContext().getSystem().scheduler());
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    long id = p.id;
    getContext().pipeToSelf(asked, (reply, error) -> error != null
        ? new Answered(c.window(), id, upstream, null, String.valueOf(error.getMessage()))
        : reply.isError() ? new Answered(c.window(), id, upstream, null, String.valueOf(reply.getError().getMessage()))
        : new Answered(c.window(), id, upstream, reply.getValue(), null));
  }

  /** One poll of the task's condition for the window, on the blocking dispatcher, within its timeout. */
  private void poll(Pending p) {
    Check c = p.check;
    io.almanac.Condition condition = env.conditions() == null ? null : env.conditions().apply(c.condition().name());
    if (condition == null) {
      p.error = new IllegalStateException("condition '" + c.condition().name() + "' is not registered on this node").toString();
      return;
    }
    if (!callsRunning.add(c.window())) {
      p.error = new IllegalStateException("the previous poll of condition '" + c.condition().name()
          + "' has not returned yet").toString();
      return;
    }
    long call = ++calls;
    p.call = call;
    io.almanac.Condition.ConditionContext cc = new io.almanac.Condition.ConditionContext(taskId,
        io.almanac.WindowKey.of(c.window()), c.start(), c.end(), c.poll());
    java.util.concurrent.Executor blocking = getContext().getSystem().dispatchers().lookup(DispatcherSelector.blocking());
    CompletableFuture<Boolean> result = CompletableFuture.supplyAsync(() -> {
          try {
            return condition.check(cc);
          } catch (Exception e) {
            throw new CompletionException(e);
          }
        }, blocking)
        .thenCompose(stage -> stage == null
            ? CompletableFuture.<Boolean>failedFuture(new IllegalStateException("returned no stage"))
            : stage.toCompletableFuture());
    // the call holds its window's slot until it ends itself, not at its timeout
    getContext().pipeToSelf(result, (holds, error) -> new CallEnded(c.window(), call, holds, error));
    timers.startSingleTimer(timerKey(c.window()), new CallTimedOut(c.window(), call),
        io.almanac.spi.Saturating.timerDelay(c.condition().timeout()));
  }

  private Behavior<Command> onAnswered(Answered a) {
    Pending p = pending.get(a.window());
    if (p != null && p.id == a.check() && p.asks > 0) {
      p.asks--;
      if (a.report() != null) {
        p.reports.put(a.upstream(), a.report());
      } else {
        p.errors.put(a.upstream(), a.error());
      }
      reportIfDone(p);
    }
    return this;
  }

  private Behavior<Command> onCallEnded(CallEnded e) {
    callsRunning.remove(e.window());
    Pending p = pending.get(e.window());
    if (p != null && p.call == e.call()) {
      timers.cancel(timerKey(e.window()));
      p.call = -1;
      if (e.error() != null) {
        Throwable cause = (e.error() instanceof CompletionException || e.error() instanceof CancellationException)
            && e.error().getCause() != null ? e.error().getCause() : e.error();
        p.error = cause.toString();
      } else if (e.holds() == null) {
        p.error = "answered null";
      } else {
        p.holds = e.holds();
      }
      reportIfDone(p);
    }
    return this;
  }

  private Behavior<Command> onCallTimedOut(CallTimedOut t) {
    Pending p = pending.get(t.window());
    if (p != null && p.call == t.call()) {
      p.call = -1;
      p.error = "timed out after " + p.check.condition().timeout();
      reportIfDone(p);
    }
    return this;
  }

  private void reportIfDone(Pending p) {
    if (p.asks > 0 || p.call >= 0) {
      return;
    }
    pending.remove(p.check.window());
    entity.tell(new GateChecked(p.check.window(), p.check.upstream() == null ? null : Map.copyOf(p.reports),
        Map.copyOf(p.errors), p.holds, p.error == null ? null : truncate(p.error)));
  }

  private static String timerKey(String window) {
    return "call|" + window;
  }

  private static String truncate(String s) {
    return s.length() <= 500 ? s : s.substring(0, 500) + "...";
  }
}
