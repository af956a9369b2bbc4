package io.almanac.internal.executor;

import io.almanac.Alert;
import io.almanac.AlertSink;
import io.almanac.JobResult;
import io.almanac.WindowKey;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.slf4j.event.Level;

/**
 * The resource pools' spending, for the executor's {@link PoolWaits}: the cost of a pooled task's
 * attempts added to its pools' day in the store, a window refused because a pool's budget for the
 * day is spent (its entity told, the BUDGET_EXHAUSTED alert), and the pause of the pools of a job
 * that ended throttled. Not an actor: called only from the executor's thread; the store's answers
 * are only logged, on the store's thread.
 *
 * INTERNAL API.
 */
final class PoolCosts {

  private static final org.slf4j.Logger POOL_LOG = org.slf4j.LoggerFactory.getLogger(Executor.class);

  private final ActorContext<ExecutorProtocol.Command> ctx;
  private final Clock clock;
  private final NodeMeters meters;
  private final AlertSink alerts;
  private final PoolGate pools;
  private final Admission<ActorRef<TaskProtocol.Command>> admission;
  private final RunningJobs running;

  PoolCosts(ActorContext<ExecutorProtocol.Command> ctx, Clock clock, NodeMeters meters, AlertSink alerts, PoolGate pools,
      Admission<ActorRef<TaskProtocol.Command>> admission, RunningJobs running) {
    this.ctx = ctx;
    this.clock = clock;
    this.meters = meters;
    this.alerts = alerts;
    this.pools = pools;
    this.admission = admission;
    this.running = running;
  }

  private void log(Level level, String taskId, String window, int attempt, String format, Object... args) {
    Executor.log(ctx, level, taskId, window, attempt, format, args);
  }

  /** A step's cost counts toward the pools the attempt holds, once, when the step is recorded (a replay adds none). */
  void onStepUsed(Executor.StepUsed m) {
    RunningAttempt r = running.get(m.key());
    if (r == null || r.attempt != m.attempt()) {
      r = running.pending(m.key(), m.attempt()); // its job ended, its result is on its way
    }
    if (r == null) {
      r = running.abandoned().stream().filter(a -> a.item.key().equals(m.key()) && a.attempt == m.attempt()).findFirst()
          .orElse(null); // cancelled while its step's record was on its way: the task counted it, so do its pools
    }
    if (r != null) {
      addPoolUsage(r, m.usage() == null ? null : m.usage().costMicros());
    }
  }

  /** An attempt of a pooled task ended with usage: its cost is added to each of its pools' day (the day it ended on). */
  void addPoolUsage(RunningAttempt r, JobResult result) {
    addPoolUsage(r, result.usage() == null ? null : result.usage().costMicros());
  }

  /** A cost (in micros, or null for none) of an attempt of a pooled task is added to each of its pools' day. */
  void addPoolUsage(RunningAttempt r, Long costOrNull) {
    if (r.pools == null || r.pools.isEmpty() || costOrNull == null) {
      return;
    }
    Instant now = clock.instant();
    long cost = costOrNull;
    for (String pool : r.pools) {
      meters.poolCost(pool, cost);
      try {
        pools.timed(pools.store().addUsage(pool, pools.dayOf(pool, now), cost)).whenComplete((ok, error) -> {
          if (error != null) { // on the store's thread: logged, never the actor touched
            POOL_LOG.warn("executor: adding cost {} to pool '{}' in the pools' store failed ({}); the pool's day misses it",
                io.almanac.Usage.fromMicros(cost).toPlainString(), pool, pools.failure(error));
          }
        });
      } catch (RuntimeException e) {
        ctx.getLog().warn("executor: adding cost to pool '{}' failed ({}); the pool's day misses it", pool, e.toString());
      }
    }
  }

  /**
   * The store refused the window because a pool's budget for the day is spent: its reservation ends,
   * it leaves this executor, and its entity is told to record it SKIPPED (BUDGET_EXHAUSTED). The
   * pool's BUDGET_EXHAUSTED alert is raised once per pool per day on this node.
   */
  void budgetSpent(Admission.Offered<ActorRef<TaskProtocol.Command>> o, io.almanac.spi.PoolStore.Answer a,
      Instant now) {
    String key = o.key();
    if (admission.endReservation(key)) {
      admission.release(o.taskId());
    }
    pools.waitEnded(key);
    io.almanac.spi.PoolStore.PoolDay day = a.day() != null ? a.day()
        : io.almanac.spi.PoolStore.PoolDay.empty(a.pool(), pools.dayOf(a.pool(), now));
    io.almanac.PoolSpec spec = pools.spec(a.pool());
    long budget = spec == null || spec.budgetPerDayMicros() == null ? 0 : spec.budgetPerDayMicros();
    java.time.ZoneId zone = spec == null ? java.time.ZoneId.of("UTC") : spec.zone();
    String detail = "pool " + a.pool() + "'s budget for " + day.day() + " (" + zone + ") was spent: cost "
        + io.almanac.Usage.fromMicros(day.costMicros()).toPlainString() + " reached the budget per day "
        + io.almanac.Usage.fromMicros(budget).toPlainString()
        + (day.raisedMicros() > 0 ? " + " + io.almanac.Usage.fromMicros(day.raisedMicros()).toPlainString() + " raised" : "");
    log(Level.DEBUG, o.taskId(), o.window(), 0, "task '{}' window '{}' not started: {}", o.taskId(), o.window(), detail);
    o.task().tell(new TaskProtocol.PoolBudgetSpent(WindowKey.of(o.window()), a.pool(), detail));
    if (pools.alertBudget(a.pool(), day.day())) {
      ctx.getLog().warn("executor: {}; windows of its tasks that would start are skipped until the day ends or an operator "
          + "raises the budget", detail);
      alerts.alert(new Alert(Alert.Kind.BUDGET_EXHAUSTED, o.taskId(), o.window(), detail + "; windows of the tasks naming "
          + "it that would start are skipped (BUDGET_EXHAUSTED) until the day ends; an operator may raise it for the day",
          now));
    }
  }

  /** A throttled job pauses its pools, here at once and in the store (so across the cluster). */
  void pausePools(String key, JobResult result) {
    Instant until = io.almanac.spi.Saturating.plus(clock.instant(), result.retryAfter()); // never overflows, whatever the job said
    for (String pool : pools.pausedBy(result, key, List.of())) {
      admission.block(pool, until, io.almanac.PoolWaitReason.PAUSED);
      try {
        pools.timed(pools.store().pause(pool, result.retryAfter())).whenComplete((ok, error) -> {
          if (error != null) { // on the store's thread: logged, never the actor touched; the pause holds here
            POOL_LOG.warn("executor: pausing pool '{}' in the pools' store failed ({}); it pauses on this node only", pool,
                pools.failure(error));
          }
        });
      } catch (RuntimeException e) {
        ctx.getLog().warn("executor: pausing pool '{}' in the store failed ({}); it pauses on this node only", pool, e.toString());
      }
      // logged once the store was asked (a synchronous store has paused the pool by then)
      ctx.getLog().info("executor: pool '{}' paused for {} (a throttled result of '{}')", pool, result.retryAfter(), key);
    }
  }
}
