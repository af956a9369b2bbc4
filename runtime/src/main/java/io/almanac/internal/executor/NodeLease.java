package io.almanac.internal.executor;

import io.almanac.internal.lease.ExecutorFence;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.ExecutorProtocol.NodeDown;
import io.almanac.internal.protocol.TaskProtocol;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * The executor's hold of its node's lease ({@link ExecutorFence}, decided by {@link FenceHold}):
 * its acquire and renewals, a pause that makes it suspect, and its loss (the lease says so, a
 * renewal after a pause fails, the node was downed), which cancels every job the executor runs and
 * reports nothing for them. Nothing is admitted or run unless it is held.
 *
 * <p>Not an actor: the executor's helper, called only from the actor's thread.
 *
 * INTERNAL API.
 */
final class NodeLease {

  /** The answer to an acquire (or renewal) of the lease of identity {@code id}. */
  record FenceAnswer(String id, boolean held, Throwable error) implements ExecutorProtocol.Internal {}

  /** The lease of identity {@code id} was lost. */
  record FenceLost(String id, String cause) implements ExecutorProtocol.Internal {}

  private final ActorContext<ExecutorProtocol.Command> ctx;
  private final ExecutorSettings settings;
  private final ExecutorFence fence;
  private final FenceHold hold;
  private final LongSupplier nanoTime;
  private final Admission<ActorRef<TaskProtocol.Command>> admission;
  private final RunningJobs running;
  private final PoolWaits pools;
  private final ResultRouting results;
  private final Draining drain;
  private final JobSlots slots;
  private final ExecutorHost host;

  NodeLease(ActorContext<ExecutorProtocol.Command> ctx, ExecutorSettings settings, ExecutorFence fence, FenceHold hold,
      LongSupplier nanoTime, Admission<ActorRef<TaskProtocol.Command>> admission, RunningJobs running, PoolWaits pools,
      ResultRouting results, Draining drain, JobSlots slots, ExecutorHost host) {
    this.ctx = ctx;
    this.settings = settings;
    this.fence = fence;
    this.hold = hold;
    this.nanoTime = nanoTime;
    this.admission = admission;
    this.running = running;
    this.pools = pools;
    this.results = results;
    this.drain = drain;
    this.slots = slots;
    this.host = host;
  }

  /** At the executor's start: with a configured lease, this node's membership is watched and the lease asked for. */
  void start() {
    if (fence.configured()) {
      try {
        SelfDowning.subscribe(ctx, NodeDown::new, Executor.Check.IGNORED); // a downed (or removed) node runs nothing on
      } catch (RuntimeException e) {
        ctx.getLog().warn("executor: cannot watch this node's membership ({}); a downed node is fenced by its lease only",
            e.toString());
      }
      acquireFence();
    }
  }

  /** Asks for the lease of the identity now (a first acquire, or a renewal after a pause), one ask at a time. */
  private void acquireFence() {
    if (!hold.startAsk()) {
      return;
    }
    String id = fence.id();
    ActorRef<ExecutorProtocol.Command> self = ctx.getSelf();
    CompletionStage<Boolean> asked;
    try {
      asked = fence.acquire(cause -> self.tell(new FenceLost(id, cause.map(Throwable::getMessage).orElse("released"))));
    } catch (RuntimeException e) {
      asked = CompletableFuture.failedFuture(e);
    }
    ctx.pipeToSelf(asked, (held, error) -> new FenceAnswer(id, Boolean.TRUE.equals(held), error));
  }

  void onFenceAnswer(FenceAnswer m) {
    FenceHold.Answer answer = hold.answered(m.id().equals(fence.id()), m.held() && m.error() == null);
    if (answer == FenceHold.Answer.STALE) {
      acquireFence(); // the answer for an identity given up since: ask for the new one's
    } else if (answer == FenceHold.Answer.GRANTED || answer == FenceHold.Answer.RENEWED) {
      fence.granted();
      if (answer == FenceHold.Answer.GRANTED) {
        ctx.getLog().info("executor {} holds its lease: jobs may run", m.id());
      }
      results.renewed(m.id());
      host.admit();
    } else {
      String why = m.error() != null ? m.error().toString() : "the lease is held by another owner";
      if (answer == FenceHold.Answer.RENEWAL_FAILED) {
        // a renewal after a pause failed: the lease may have been taken; this identity runs nothing more
        lose("its renewal after a pause failed: " + why);
      } else {
        ctx.getLog().warn("executor {} could not take its lease ({}); no job runs here until it does; asking again", m.id(),
            why);
      }
    }
  }

  void onFenceLost(FenceLost m) {
    if (hold.lossCounts(m.id().equals(fence.id()))) {
      lose("the lease reported it lost: " + m.cause());
    }
  }

  void onNodeDown(NodeDown m) {
    if (hold.mayEnd()) {
      fence.end();
      if (!drain.draining() || !running.isEmpty() || admission.readyCount() != 0) {
        lose(m.why());
      } // else a node that drained and left: nothing to cancel
      hold.end();
    }
  }

  /** At each check: a pause longer than the lease's safety margin makes the lease suspect; a failed acquire is tried again. */
  void check() {
    long gap = hold.paused(nanoTime.getAsLong(), settings.checkInterval().plus(fence.pauseLimit()).toNanos());
    if (gap >= 0) {
      // The JVM (or this actor) stood still for longer than the lease's safety margin: the lease may
      // have been taken meanwhile. Nothing starts, and the ledger refuses, until a renewal says it is ours.
      fence.suspect();
      ctx.getLog().warn("executor {} saw no check for {} ms (more than check-interval plus the lease's safety margin, {}): "
          + "its lease is suspect until renewed; nothing starts meanwhile", fence.id(), gap / 1_000_000, fence.pauseLimit());
      acquireFence();
    } else if (!broken() && hold.acquiring()) {
      acquireFence(); // again, after a failed try
    }
  }

  /** The lease is not valid although it was held: the same as lost. */
  boolean broken() {
    if (hold.broken(fence.valid())) {
      lose("the lease is no longer valid (its holder could not renew it in time: a pause, or the database)");
      return true;
    }
    return false;
  }

  /**
   * The identity now lost its lease: every job it runs is cancelled and nothing is reported for them;
   * what waited for a slot is not run (each window's entity times its attempt out, here once the lost
   * lease has ended, elsewhere the same way); queued offers stay, for the next identity.
   */
  private void lose(String why) {
    String was = fence.lost();
    int jobsCancelled = slots.cancelAllFenced();
    int notRun = admission.dropAdmitted();
    pools.releaseOrphanedPools();
    slots.fenceAbandoned(); // a result that comes now would be reported by a node without its lease
    results.lost(was);
    hold.lost(fence.ended());
    ctx.getLog().error("executor {} lost its lease ({}): {} running jobs cancelled, nothing is reported for them, and {} "
        + "started or admitted attempts are not run; their windows are timed out once the lease has ended by its "
        + "clock{}", was, why, jobsCancelled, notRun, hold.state() == FenceHold.State.ENDED
            ? "; this node runs no job again" : "; it goes on as " + fence.id() + " once it holds a new lease");
    host.gauges();
    host.checkDrained();
    acquireFence();
  }

  /** @return whether the executor holds its lease and may run jobs */
  boolean mayRun() {
    return hold.mayRun(fence.valid());
  }
}
