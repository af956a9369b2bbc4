package io.almanac.internal.executor;

import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorFence;
import io.almanac.internal.protocol.Asks;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.AttemptLog;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.pattern.StatusReply;
import org.slf4j.event.Level;

/**
 * The executor's drain at the node's stop ({@link ExecutorProtocol.Drain}, on coordinated
 * shutdown): nothing more is admitted, started attempts without a slot are handed back, running jobs
 * are told, after {@code shutdown-grace} what still runs is recorded interrupted (NODE_STOPPED)
 * through its entity and cancelled, and the drain answers once nothing runs, nothing is reported and
 * every interruption was answered; the node's lease is released then if no job is stuck.
 *
 * <p>Not an actor: the executor's helper, called only from the actor's thread.
 *
 * INTERNAL API.
 */
final class Draining {

  /** The drain's shutdown-grace ended: what still runs is recorded interrupted (NODE_STOPPED) and cancelled. */
  enum GraceEnded implements ExecutorProtocol.Internal { INSTANCE }

  /** An entity answered an interruption this node reported ({@code error} null when it was recorded or not needed). */
  record InterruptAnswered(String taskId, String window, int attempt, Throwable error)
      implements ExecutorProtocol.Internal {}

  private final ActorContext<ExecutorProtocol.Command> ctx;
  private final TimerScheduler<ExecutorProtocol.Command> timers;
  private final Clock clock;
  private final ExecutorSettings settings;
  private final Function<String, RecipientRef<TaskProtocol.Command>> tasks;
  private final ExecutorFence fence;
  private final FenceHold hold;
  private final Admission<ActorRef<TaskProtocol.Command>> admission;
  private final RunningJobs running;
  private final PoolWaits pools;
  private final ResultRouting results;
  private final ExecutorHost host;
  private boolean draining;
  private final List<ActorRef<Done>> drainWaiters = new ArrayList<>();
  /** Interruptions reported to entities and not answered yet: the drain ends after them. */
  private int interrupting;
  /** The executor's job slots: set once, after both are made (each needs the other). */
  private JobSlots slots;

  Draining(ActorContext<ExecutorProtocol.Command> ctx, TimerScheduler<ExecutorProtocol.Command> timers, Clock clock,
      ExecutorSettings settings, Function<String, RecipientRef<TaskProtocol.Command>> tasks, ExecutorFence fence,
      FenceHold hold, Admission<ActorRef<TaskProtocol.Command>> admission, RunningJobs running, PoolWaits pools,
      ResultRouting results, ExecutorHost host) {
    this.ctx = ctx;
    this.timers = timers;
    this.clock = clock;
    this.settings = settings;
    this.tasks = tasks;
    this.fence = fence;
    this.hold = hold;
    this.admission = admission;
    this.running = running;
    this.pools = pools;
    this.results = results;
    this.host = host;
  }

  void slots(JobSlots slots) {
    this.slots = slots;
  }

  /** @return whether the node is draining: nothing more is admitted */
  boolean draining() {
    return draining;
  }

  /**
   * The node stops (coordinated shutdown). At once: nothing more is admitted (queued offers stay
   * PENDING in their entities, for the other nodes or the next start), attempts started here that
   * have not run yet are handed back (recorded interrupted, so they are PENDING again), and running
   * jobs are told ({@code JobContext.isStopping()}). Then it waits up to {@code shutdown-grace} for
   * them to end and report; see {@link #onGraceEnded}.
   */
  void onDrain(ExecutorProtocol.Drain m) {
    if (!draining) {
      ctx.getLog().info("executor draining: no new attempts; {} running jobs told to stop and given {} to end, {} started "
          + "and waiting for a slot handed back", running.size(), settings.shutdownGrace(), admission.readyCount());
      draining = true; // no more admissions; what is queued stays PENDING in its entity
      Admission.Ready r;
      while ((r = admission.pollReady()) != null) {
        admission.release(r.item().taskId());
        pools.releasePools(r.item().key(), r.item().taskId(), r.item().window());
        handBack(r.item().taskId(), r.item().window(), r.grant().attempt());
      }
      for (RunningAttempt a : running.inSlotNow()) {
        a.stopping.complete(null);
      }
      timers.startSingleTimer(GraceEnded.INSTANCE, io.almanac.spi.Saturating.timerDelay(settings.shutdownGrace()));
    }
    drainWaiters.add(m.replyTo());
    check();
  }

  /**
   * The grace ended: every job still running here is recorded INTERRUPTED (NODE_STOPPED) through its
   * entity (fenced by its attempt number) and cancelled; nothing is reported for it afterwards (its
   * window runs again as RESUME). Never a failure.
   */
  void onGraceEnded() {
    Instant now = clock.instant();
    List<RunningAttempt> still = running.inSlotNow();
    if (!still.isEmpty()) {
      ctx.getLog().warn("executor {}: shutdown-grace {} ended with {} jobs running: recorded interrupted (NODE_STOPPED), "
          + "cancelled; their windows run again (RESUME), no retry spent", fence.id(), settings.shutdownGrace(), still.size());
    }
    for (RunningAttempt r : still) {
      r.fenced = true; // its result, should it still come, is not reported: the interruption is its outcome
      interrupt(r.item.taskId(), r.item.window(), r.attempt, "executor " + fence.id() + " stopped: shutdown-grace "
          + settings.shutdownGrace() + " ended with the job running",
          r.context == null ? AttemptLog.EMPTY : r.context.end(null)); // its lines so far; no live report after it
      r.cancel();
      JobSlots.abandoned(r, io.almanac.EndCause.NODE_STOPPED, null);
      slots.abandon(r, now);
    }
    pools.handBackWaitingStarts(this::handBack);
    host.gauges();
    check();
  }

  /** A started attempt that has not run is handed back to its entity: recorded interrupted, PENDING again. */
  void handBack(String taskId, String window, int attempt) {
    interrupt(taskId, window, attempt, "handed back before it ran: executor " + fence.id() + " is stopping",
        AttemptLog.EMPTY);
  }

  /**
   * Reports to the attempt's entity that it was interrupted by this node's stop, with what its job
   * logged so far; the drain waits for the answer.
   */
  private void interrupt(String taskId, String window, int attempt, String detail, AttemptLog log) {
    interrupting++;
    CompletionStage<StatusReply<Done>> asked;
    try {
      asked = Asks.<TaskProtocol.Command, StatusReply<Done>>ask(tasks.apply(taskId), replyTo -> new TaskProtocol.InterruptAttempt(
          WindowKey.of(window), attempt, io.almanac.InterruptCause.NODE_STOPPED, detail, log, replyTo), settings.askTimeout(),
          ctx.getSystem().scheduler());
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(asked, (reply, error) -> new InterruptAnswered(taskId, window, attempt,
        error != null ? error : reply.isError() ? reply.getError() : null));
  }

  void onInterruptAnswered(InterruptAnswered m) {
    interrupting = Math.max(0, interrupting - 1);
    if (m.error() != null) {
      Executor.log(ctx, Level.WARN, m.taskId(), m.window(), m.attempt(), "task '{}' window '{}' attempt {}: its interruption "
          + "could not be recorded ({}): it is found interrupted (NODE_LOST) once this executor is gone", m.taskId(),
          m.window(), m.attempt(), m.error().toString());
    }
    check();
  }

  /** Answers the drain's waiters once nothing runs, waits or is reported here; the lease is released then. */
  void check() {
    if (draining && running.isEmpty() && running.pendingResults() == 0 && admission.noneAdmitted() && results.settled()
        && pools.noStartWaiting() && interrupting == 0 && !drainWaiters.isEmpty()) {
      drainWaiters.forEach(w -> w.tell(Done.getInstance()));
      drainWaiters.clear();
      timers.cancel(GraceEnded.INSTANCE);
      if (hold.state() == FenceHold.State.HELD && running.noneAbandoned()) {
        // Nothing runs here any more: survivors need not wait for the lease to expire. With a job
        // still stuck, the lease is left to expire with the JVM instead.
        hold.end();
        fence.end();
        fence.release();
        ctx.getLog().info("executor {} drained: its lease is released", fence.id());
      }
    }
  }
}
