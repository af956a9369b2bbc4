package io.almanac.internal.executor;

import io.almanac.AlertSink;
import io.almanac.JobResult;
import io.almanac.WindowKey;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.slf4j.event.Level;

/**
 * The executor's resource pools, for windows of tasks that name pools (see {@link PoolGate}, the
 * {@link io.almanac.spi.PoolStore}): the acquire of an admitted window's holds, the waits told to
 * its entity, a day's budget spent, the release of a window's holds (and of orphaned ones), started
 * attempts whose holds were given back before their Started came, the pauses of throttled jobs, the
 * cost of attempts, the store's declaration and gauges. The store's answers come back to the
 * executor as this class's messages, which the executor hands here.
 *
 * <p>Not an actor: the executor's helper, holding the pools' part of its state, called only from
 * the actor's thread. What it needs of the executor besides (admitting, running, the drain's
 * check) it asks of its {@link ExecutorHost}.
 *
 * INTERNAL API.
 */
final class PoolWaits {

  /** The pools' store answered an acquire for an admitted window of a pooled task. */
  record PoolAnswered(Admission.Offered<ActorRef<TaskProtocol.Command>> offered, io.almanac.spi.PoolStore.Answer answer,
      Throwable error, long nanos) implements ExecutorProtocol.Internal {}

  /** The pools' store answered the declaration of this node's pools. */
  record PoolsDeclared(Throwable error) implements ExecutorProtocol.Internal {}

  /**
   * The store gave a window's holds back: a pool of these that this node saw full may have room now,
   * so its windows are asked again (not before: an ask that overtook the release would be refused
   * FULL, and wait a poll interval).
   */
  record PoolReleased(List<String> pools) implements ExecutorProtocol.Internal {}

  /** A release of a window's holds failed: tried again at the next check. */
  record PoolReleaseFailed(String key, String taskId, String window, Throwable error)
      implements ExecutorProtocol.Internal {}

  /** The store answered the acquire of a started attempt whose holds had been given back before its Started came. */
  record PoolStartAnswered(AttemptItem item, TaskProtocol.AttemptGrant grant, List<String> pools,
      io.almanac.spi.PoolStore.Answer answer, Throwable error) implements ExecutorProtocol.Internal {}

  /** A started attempt waiting for its pool holds asks the store again. */
  record PoolStartRetry(AttemptItem item, TaskProtocol.AttemptGrant grant, List<String> pools)
      implements ExecutorProtocol.Internal {}

  /** The store admitted a window after the executor had given up on the acquire (it timed out here). */
  record PoolLateAdmitted(String key, String taskId, String window) implements ExecutorProtocol.Internal {}

  /** The store's count of the pools' holds, for the gauges. */
  record PoolsInUse(Map<String, Integer> inUse) implements ExecutorProtocol.Internal {}

  /** A pool's block ended (its pause, its next rate token, the poll interval): queued windows may go. */
  enum PoolWake implements ExecutorProtocol.Internal { INSTANCE }

  private final ActorContext<ExecutorProtocol.Command> ctx;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final ExecutorSettings settings;
  private final NodeMeters meters;
  private final PoolGate pools;
  private final Admission<ActorRef<TaskProtocol.Command>> admission;
  private final RunningJobs running;
  private final ExecutorHost host;
  /** The pools' spending: costs, budgets, pauses. */
  private final PoolCosts costs;
  /** Started attempts whose pool holds were given back before their Started came, by window: their attempt (waiting for them). */
  private final Map<String, Integer> startsWaitingForPools = new HashMap<>();

  PoolWaits(ActorContext<ExecutorProtocol.Command> ctx, Clock clock, LongSupplier nanoTime, ExecutorSettings settings,
      NodeMeters meters, AlertSink alerts, PoolGate pools, Admission<ActorRef<TaskProtocol.Command>> admission,
      RunningJobs running, ExecutorHost host) {
    this.ctx = ctx;
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.settings = settings;
    this.meters = meters;
    this.pools = pools;
    this.admission = admission;
    this.running = running;
    this.host = host;
    this.costs = new PoolCosts(ctx, clock, meters, alerts, pools, admission, running);
  }

  private void log(Level level, String taskId, String window, int attempt, String format, Object... args) {
    Executor.log(ctx, level, taskId, window, attempt, format, args);
  }

  /** @return the pools' spending (costs, budgets, pauses) */
  PoolCosts costs() {
    return costs;
  }

  /** @return the pools the window holds here, or null (a task without pools, or none held) */
  List<String> poolsOf(String key) {
    return pools.poolsOf(key);
  }

  /**
   * An admitted window of a pooled task: its holds are asked of the store (its slot stays reserved
   * meanwhile), or, while an abandoned attempt of the window still runs in the window's holds, it is
   * asked again once its thread returned.
   */
  void admitted(Admission.Offered<ActorRef<TaskProtocol.Command>> next, Instant now) {
    if (running.threadRuns(next.key())) {
      admission.requeue(next.key(), next.pools().get(0), now.plus(pools.settings().pollInterval()), null);
      wakeForPools(now);
    } else {
      askPools(next, now); // admitted once the store says every pool has room
    }
  }

  /** After an admission: the windows passed over for a pool's block are told they wait for it. */
  void tellSkipped() {
    if (!pools.any()) {
      return;
    }
    for (Admission.Skipped<ActorRef<TaskProtocol.Command>> k : admission.takeSkipped()) {
      io.almanac.PoolWaitReason why = k.block().reason();
      if (why == null) {
        continue; // passed over while the store could not be asked: not a wait for the pool
      }
      toldWait(k.offered(), k.pool(), why, why == io.almanac.PoolWaitReason.FULL ? null : k.block().until());
    }
  }

  /**
   * A started attempt whose reservation had been freed: if its pool holds were given back meanwhile,
   * it runs only once it holds them again.
   *
   * @return whether it waits for its holds (asked of the store now)
   */
  boolean waitForHolds(AttemptItem item, TaskProtocol.AttemptGrant grant) {
    List<String> gaveBack = pools.takeUnheld(item.key());
    if (gaveBack != null && pools.poolsOf(item.key()) == null) {
      startsWaitingForPools.put(item.key(), grant.attempt());
      askPoolsForStart(item, grant, gaveBack);
      return true;
    }
    return false;
  }

  /** Frees the reservations and drops the queued offers that match: admitted windows' holds are given back. */
  void forget(Predicate<Admission.Offered<ActorRef<TaskProtocol.Command>>> which) {
    List<String> admittedWithHolds = pools.heldKeys().stream().filter(k -> admission.admitted(k) && !running.holds(k))
        .toList();
    admission.forget(which);
    Instant now = clock.instant();
    for (String key : admittedWithHolds) {
      if (!admission.admitted(key)) { // told Admitted, its holds given back now: a Started still on its way takes them again
        pools.unheld(key, pools.poolsOf(key), now);
      }
    }
    releaseOrphanedPools();
  }

  /**
   * A job that held its slot ended: a throttled result pauses its pools, its cost counts, its holds
   * go back (a pool's max-concurrent counts jobs that run).
   */
  void jobEnded(RunningAttempt r, JobResult result) {
    if (result.throttled()) {
      costs.pausePools(r.item.key(), result);
      wakeForPools(clock.instant());
    }
    costs.addPoolUsage(r, result);
    releasePools(r.item.key(), r.item.taskId(), r.item.window());
  }

  /** The thread of an abandoned attempt returned: its pool holds go back now. */
  void threadReturned(RunningAttempt gone) {
    String key = gone.item.key();
    if (!running.threadRuns(key) && !running.holds(key) && !admission.admitted(key)) {
      releasePools(key, gone.item.taskId(), gone.item.window());
    }
  }

  /**
   * A cancel of an attempt that waited for its pools: it never ran (holds taken meanwhile go back
   * when answered); its task's count and its holds are released.
   *
   * @return whether the attempt waited for its pools
   */
  boolean cancelWaitingStart(String key, String taskId, String window, int attempt) {
    if (!Integer.valueOf(attempt).equals(startsWaitingForPools.get(key))) {
      return false;
    }
    startsWaitingForPools.remove(key);
    admission.release(taskId);
    releasePools(key, taskId, window);
    return true;
  }

  /** What a started attempt waiting for its pools is handed back to. */
  interface HandBack {
    void handBack(String taskId, String window, int attempt);
  }

  /** The drain's grace ended: every started attempt waiting for its pools is let go and handed back. */
  void handBackWaitingStarts(HandBack to) {
    for (Map.Entry<String, Integer> w : new ArrayList<>(startsWaitingForPools.entrySet())) {
      String[] key = w.getKey().split("\\|", 2);
      startsWaitingForPools.remove(w.getKey());
      admission.release(key[0]);
      releasePools(w.getKey(), key[0], key[1]);
      to.handBack(key[0], key[1], w.getValue());
    }
  }

  /** @return whether no started attempt waits for its pools */
  boolean noStartWaiting() {
    return startsWaitingForPools.isEmpty();
  }

  void onStartRetry(PoolStartRetry m) {
    if (Integer.valueOf(m.grant().attempt()).equals(startsWaitingForPools.get(m.item().key()))) {
      askPoolsForStart(m.item(), m.grant(), m.pools());
    }
  }

  void onReleased(PoolReleased m) {
    admission.unblockFull(m.pools());
    host.admit();
  }

  void onInUse(PoolsInUse m) {
    meters.pools(m.inUse(), admission.waitingPerPool(), pools.names());
  }

  /** Makes the store know this node's pools (and drop this node's holds of an earlier life); again at each check until it did. */
  void declarePools() {
    if (!pools.any() || !pools.startDeclare()) {
      return;
    }
    CompletionStage<Void> declared;
    try {
      declared = pools.timed(pools.store().declare(pools.limits()));
    } catch (RuntimeException e) {
      declared = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(declared, (ok, error) -> new PoolsDeclared(error));
  }

  void onPoolsDeclared(PoolsDeclared m) {
    pools.declared(m.error() == null);
    if (m.error() != null) {
      ctx.getLog().warn("executor: the pools' store could not declare the pools {} ({}); windows of pooled tasks stay "
          + "queued; asking again at the next check", pools.names(), pools.failure(m.error()));
    } else {
      ctx.getLog().info("executor: pools {} declared in the pools' store ({})", pools.limits(),
          pools.store().getClass().getSimpleName());
      admission.unblockUnknown(); // what waited for the declaration is asked now
      host.admit();
    }
  }

  /** Asks the store for a hold in every pool the admitted window names; its slot stays reserved until the answer. */
  void askPools(Admission.Offered<ActorRef<TaskProtocol.Command>> next, Instant now) {
    if (!pools.ready()) {
      // the store does not know the pools yet: asked again after the poll interval, no wait recorded (reason null)
      admission.requeue(next.key(), next.pools().get(0), now.plus(pools.settings().pollInterval()), null);
      wakeForPools(now);
      return;
    }
    long start = nanoTime.getAsLong();
    CompletionStage<io.almanac.spi.PoolStore.Answer> asked;
    // a pool's budget stops what would start on schedule (first runs, catch-ups and backfills), not a retry or a manual run
    Map<String, io.almanac.spi.PoolStore.Budget> budgets = next.kind() == io.almanac.RunKind.FIRST
        || next.kind() == io.almanac.RunKind.BACKFILL ? pools.budgets(next.pools(), now) : Map.of();
    ActorRef<ExecutorProtocol.Command> self = ctx.getSelf();
    String key = next.key();
    java.util.function.Consumer<io.almanac.spi.PoolStore.Answer> late = answer -> {
      if (answer != null && answer.admitted()) { // on the store's thread: only a message to the actor
        self.tell(new PoolLateAdmitted(key, next.taskId(), next.window()));
      }
    };
    pools.asking(key);
    try {
      asked = pools.timed(budgets.isEmpty() ? pools.store().acquire(next.pools(), next.taskId(), next.window())
          : pools.store().acquire(next.pools(), next.taskId(), next.window(), budgets), late);
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(asked, (answer, error) -> new PoolAnswered(next, answer, error, nanoTime.getAsLong() - start));
  }

  void onPoolAnswered(PoolAnswered m) {
    Instant now = clock.instant();
    Admission.Offered<ActorRef<TaskProtocol.Command>> o = m.offered();
    String key = o.key();
    pools.answered(key);
    if (m.error() != null) {
      meters.poolAdmission(o.pools(), "error", m.nanos());
      // The store may have taken the holds all the same (its answer was lost, or comes after the
      // timeout): given back, idempotently; an admission that still comes later is given back then.
      releaseInStore(key, o.taskId(), o.window());
      // A failed store keeps the window queued (never failed): asked again after the poll interval.
      ctx.getLog().warn("executor: the pools' store failed for task '{}' window '{}' ({}): it stays queued, asked again "
          + "in {}", o.taskId(), o.window(), pools.failure(m.error()), pools.settings().pollInterval());
      admission.requeue(key, o.pools().get(0), now.plus(pools.settings().pollInterval()), null); // no wait recorded: the store failed
      wakeForPools(now);
      host.admit();
      return;
    }
    io.almanac.spi.PoolStore.Answer a = m.answer();
    meters.poolAdmission(a.admitted() ? o.pools() : List.of(a.pool()),
        a.admitted() ? "admitted" : a.reason().name().toLowerCase(java.util.Locale.ROOT), m.nanos());
    if (a.admitted()) {
      pools.held(key, o.pools());
      if (!admission.admitted(key) || !host.mayRun() || host.draining()) {
        // freed meanwhile (its entity restarted or stopped, the lease was lost): give the holds back
        if (admission.endReservation(key)) {
          admission.release(o.taskId());
        }
        releasePools(key, o.taskId(), o.window());
        host.checkDrained();
        host.admit();
        return;
      }
      o.task().tell(new TaskProtocol.Admitted(WindowKey.of(o.window()), host.executorId(), ctx.getSelf().narrow(),
          host.traceAdmitted(o.taskId(), o.window())));
      return;
    }
    if (a.reason() == io.almanac.PoolWaitReason.BUDGET) {
      costs.budgetSpent(o, a, now);
      host.checkDrained();
      host.admit();
      return;
    }
    boolean full = a.reason() == io.almanac.PoolWaitReason.FULL;
    Instant until = full || a.retryAfter() == null ? now.plus(pools.settings().pollInterval())
        : io.almanac.spi.Saturating.plus(now, a.retryAfter()); // a pause another node stored may lie centuries ahead
    if (admission.requeue(key, a.pool(), until, a.reason())) {
      toldWait(o, a.pool(), a.reason(), full ? null : until);
    }
    wakeForPools(now);
    host.admit();
  }

  /**
   * Tells the window's entity that it waits for the pool: at most once per pool and reason in the
   * window's attempt (see {@link PoolGate#tellWait}), never at every try or flip of the reason.
   */
  void toldWait(Admission.Offered<ActorRef<TaskProtocol.Command>> o, String pool, io.almanac.PoolWaitReason reason,
      Instant until) {
    if (pools.tellWait(o.key(), pool, reason)) {
      log(Level.DEBUG, o.taskId(), o.window(), 0, "task '{}' window '{}' waits for pool '{}': {}", o.taskId(), o.window(),
          pool, reason);
      o.task().tell(new TaskProtocol.PoolWait(WindowKey.of(o.window()), pool, reason, until));
    }
  }

  /**
   * Wakes the executor when the first pool's block still ahead of {@code now} ends (the timer armed
   * before is replaced: it was for that block or a later one). A block that ended by {@code now} is
   * not woken for: the admission that follows, or the next one once there is room, asks for its
   * windows (see {@link Admission#nextUnblock}).
   */
  void wakeForPools(Instant now) {
    Instant next = admission.nextUnblock(now);
    if (next != null) {
      Duration in = io.almanac.spi.Saturating.timerDelay(now, next); // at most a day: a far wake is armed again
      pools.timers.startSingleTimer(PoolWake.INSTANCE, PoolWake.INSTANCE, in.isZero() ? Duration.ofMillis(1) : in);
    }
  }

  /** The window's attempt left (ended, cancelled, not run): its holds go back, and a pool it filled may admit here. */
  void releasePools(String key, String taskId, String window) {
    List<String> held = pools.takeHold(key);
    if (held == null) {
      return;
    }
    releaseInStore(key, taskId, window, held); // once given back, a pool seen full is asked again
  }

  /** Gives the window's holds back in the store (idempotent); a failure is tried again at the next check. */
  void releaseInStore(String key, String taskId, String window) {
    releaseInStore(key, taskId, window, List.of());
  }

  /**
   * Gives the window's holds back in the store (idempotent); a failure is tried again at the next
   * check. Once they are back, the pools {@code freed} (those this window held here) are no longer
   * taken as full: their windows are asked again.
   */
  void releaseInStore(String key, String taskId, String window, List<String> freed) {
    CompletionStage<Void> released;
    try {
      released = pools.timed(pools.store().release(taskId, window));
    } catch (RuntimeException e) {
      released = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(released, (ok, error) -> error != null ? new PoolReleaseFailed(key, taskId, window, error)
        : freed.isEmpty() ? Executor.Check.IGNORED : new PoolReleased(freed));
  }

  /** Holds whose window is neither admitted nor running here any more (forgotten, dropped): released. */
  void releaseOrphanedPools() {
    for (String key : pools.orphans(k -> admission.admitted(k) || running.holds(k) || running.threadRuns(k))) {
      int bar = key.indexOf('|');
      releasePools(key, key.substring(0, bar), key.substring(bar + 1));
    }
  }

  /**
   * A started attempt whose holds were given back before its Started came asks for them again (no
   * budget: it is started already); it runs once they are held, or is let go when its lease ends.
   */
  void askPoolsForStart(AttemptItem item, TaskProtocol.AttemptGrant grant, List<String> wanted) {
    String key = item.key();
    if (Admission.leaseEnded(grant.leaseUntil(), clock.instant())) {
      startsWaitingForPools.remove(key);
      host.dropExpired(item, grant.attempt(), grant.leaseUntil());
      return;
    }
    ActorRef<ExecutorProtocol.Command> self = ctx.getSelf();
    java.util.function.Consumer<io.almanac.spi.PoolStore.Answer> late = answer -> {
      if (answer != null && answer.admitted()) {
        self.tell(new PoolLateAdmitted(key, item.taskId(), item.window()));
      }
    };
    pools.asking(key);
    CompletionStage<io.almanac.spi.PoolStore.Answer> asked;
    try {
      asked = pools.timed(pools.store().acquire(wanted, item.taskId(), item.window()), late);
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(asked, (answer, error) -> new PoolStartAnswered(item, grant, wanted, answer, error));
  }

  void onPoolStartAnswered(PoolStartAnswered m) {
    AttemptItem item = m.item();
    String key = item.key();
    pools.answered(key);
    boolean waiting = Integer.valueOf(m.grant().attempt()).equals(startsWaitingForPools.get(key));
    boolean admitted = m.error() == null && m.answer().admitted();
    if (admitted) {
      pools.held(key, m.pools());
    } else if (m.error() != null) {
      releaseInStore(key, item.taskId(), item.window()); // it may have been taken all the same
    }
    if (!waiting) {
      releasePools(key, item.taskId(), item.window()); // cancelled meanwhile: nothing runs in these holds
      return;
    }
    if (!host.mayRun()) {
      startsWaitingForPools.remove(key);
      admission.release(item.taskId());
      releasePools(key, item.taskId(), item.window());
      log(Level.WARN, item.taskId(), item.window(), m.grant().attempt(), "task '{}' window '{}' attempt {} waited for its "
          + "pools while its executor lost its lease: not run", item.taskId(), item.window(), m.grant().attempt());
      host.checkDrained();
      return;
    }
    if (!admitted) {
      ctx.scheduleOnce(io.almanac.spi.Saturating.timerDelay(pools.settings().pollInterval()), ctx.getSelf(), new PoolStartRetry(item, m.grant(), m.pools()));
      return;
    }
    startsWaitingForPools.remove(key);
    Instant now = clock.instant();
    if (running.size() < settings.maxConcurrent()) {
      host.run(item, m.grant(), now, now);
    } else {
      admission.ready(new Admission.Ready(item, m.grant(), now));
      meters.startedWaiting(admission.readyCount());
    }
    host.gauges();
  }

  /**
   * The store admitted a window after its acquire timed out here: nobody here holds it, so it is
   * given back (unless the window holds or asks for its holds again: they are the same holds then).
   */
  void onPoolLateAdmitted(PoolLateAdmitted m) {
    if (!pools.knows(m.key())) {
      ctx.getLog().info("executor: the pools' store admitted '{}' after its acquire had timed out here: released",
          m.key());
      releaseInStore(m.key(), m.taskId(), m.window());
    }
  }

  void onPoolReleaseFailed(PoolReleaseFailed m) {
    ctx.getLog().warn("executor: releasing the pools' holds of '{}' failed ({}); trying again at the next check", m.key(),
        pools.failure(m.error()));
    pools.releaseFailed(m.key(), m.taskId(), m.window());
  }

  /**
   * The executor stops: the holds of windows with no job running here (admitted, not started) are
   * released; those of jobs whose thread still runs stay (they still use the pool) and expire with
   * the hold TTL, as the store stops renewing when closed.
   */
  void closePools() {
    if (pools.any()) {
      for (String key : pools.orphans(k -> running.holds(k) || running.threadRuns(k))) {
        int bar = key.indexOf('|');
        try {
          pools.store().release(key.substring(0, bar), key.substring(bar + 1)); // not waited for: the store runs it before it closes
        } catch (RuntimeException e) {
          ctx.getLog().warn("executor: releasing the pools' holds of '{}' at stop failed ({}); they expire", key, e.toString());
        }
      }
    }
    pools.store().close();
  }

  /** At each check: the pools' declaration (if it failed), failed releases again, the gauges. */
  void checkPools() {
    if (!pools.any()) {
      return;
    }
    declarePools();
    pools.forgetUnheldBefore(clock.instant().minus(Duration.ofMinutes(1)));
    releaseOrphanedPools();
    pools.forgetWaitsUnless(k -> admission.isQueued(k) || admission.admitted(k));
    pools.takeFailedReleases().forEach((key, tw) -> {
      if (pools.poolsOf(key) != null) {
        return; // admitted again since: the store's hold of the window is the new admission's
      }
      if (pools.knows(key)) {
        pools.releaseFailed(key, tw[0], tw[1]); // an acquire is on its way: released after its answer, at a later check
        return;
      }
      releaseInStore(key, tw[0], tw[1]);
    });
    CompletionStage<Map<String, Integer>> inUse;
    try {
      inUse = pools.timed(pools.store().inUse());
    } catch (RuntimeException e) {
      inUse = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(inUse, (m, error) -> new PoolsInUse(error == null ? m : null));
  }
}
