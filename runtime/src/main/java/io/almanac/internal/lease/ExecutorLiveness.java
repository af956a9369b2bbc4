package io.almanac.internal.lease;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.pekko.coordination.lease.javadsl.Lease;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the executor that runs an attempt may still be running it, as a task entity asks before it
 * times out an attempt whose executor looks gone (R24). Membership alone is not enough: a frozen or
 * partitioned node is removed from the cluster while its job may go on, so with a fence ({@link
 * ExecutorFence}) an executor that is no up member counts as gone only once its lease has ended by
 * the lease's own clock, which this class learns by taking that lease's row: the lease grants it
 * only when the row is free or expired (for the JDBC lease, by the database's clock), and then the
 * frozen holder, should it wake, finds its lease taken and runs nothing on. The row is released at
 * once; the identity is never used again (an executor that lost its lease takes a new one).
 *
 * <p>Answers from memory at once and checks in the background, at most one check per identity per
 * {@code recheckNanos}; an entity told {@link State#ENDING} asks again a little later. Thread-safe.
 * INTERNAL API.
 */
public final class ExecutorLiveness {

  private static final Logger LOG = LoggerFactory.getLogger(ExecutorLiveness.class);

  /** Identities known to have ended, most recent last (a bounded memory: ends are final). */
  private static final int ENDED_KEPT = 10_000;

  /** What is known of an executor identity. */
  public enum State {
    /** It runs (this node's executor now, or an up member's): its attempts end with their lease. */
    RUNS,
    /** Its node is no up member, and its lease has not been seen ended yet: wait, and ask again. */
    ENDING,
    /**
     * It runs nothing any more, and its node is gone: a past life of this node (it restarted after a
     * crash or a kill), or, without a fence, a node that is no member. Its attempts were interrupted
     * {@link io.almanac.InterruptCause#NODE_LOST}.
     */
    ENDED,
    /**
     * It runs nothing any more: it was another node's, that node is no member, and its lease was seen
     * ended by the lease's own clock (taken here), so should it wake it runs nothing on. Its attempts
     * were interrupted {@link io.almanac.InterruptCause#FENCED}.
     */
    FENCED;

    /** @return whether it runs nothing any more ({@link #ENDED} or {@link #FENCED}) */
    public boolean gone() {
      return this == ENDED || this == FENCED;
    }

    /** @return the cause an attempt of a {@link #gone()} executor is interrupted with, or null while it may run */
    public io.almanac.InterruptCause interruptCause() {
      return switch (this) {
        case ENDED -> io.almanac.InterruptCause.NODE_LOST;
        case FENCED -> io.almanac.InterruptCause.FENCED;
        default -> null;
      };
    }
  }

  private final ExecutorFence self;
  private final Predicate<String> memberUp;
  private final ExecutorFence.Leases foreign;
  private final LongSupplier nanoTime;
  private final long recheckNanos;
  /** This node runs alone (embedded: it joined itself, no seed nodes): every other identity is a past life of it. */
  private final boolean alone;
  private final Set<String> ended = Collections.newSetFromMap(Collections.synchronizedMap(
      new LinkedHashMap<String, Boolean>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > ENDED_KEPT;
        }
      }));
  /** Identity to the nanoTime its last check started (present while one runs or ran lately). */
  private final Map<String, Long> checks = new ConcurrentHashMap<>();

  /**
   * @param self this node's executor fence (its identity now)
   * @param memberUp whether a node's unique address is an up (or joining) member of the cluster
   * @param foreign opens another identity's lease, owned by this node (null: no fence configured)
   * @param nanoTime the monotonic clock the checks are spaced on
   * @param recheckNanos the least time between two checks of one identity
   */
  public ExecutorLiveness(ExecutorFence self, Predicate<String> memberUp, ExecutorFence.Leases foreign,
      LongSupplier nanoTime, long recheckNanos) {
    this(self, memberUp, foreign, nanoTime, recheckNanos, false);
  }

  /**
   * @param self this node's executor fence (its identity now)
   * @param memberUp whether a node's unique address is an up (or joining) member of the cluster
   * @param foreign opens another identity's lease, owned by this node (null: no fence configured)
   * @param nanoTime the monotonic clock the checks are spaced on
   * @param recheckNanos the least time between two checks of one identity
   * @param alone whether this node runs alone (embedded): an identity that ended is then a past life
   *     of this node ({@link State#ENDED}, lost), never another node fenced out
   */
  public ExecutorLiveness(ExecutorFence self, Predicate<String> memberUp, ExecutorFence.Leases foreign,
      LongSupplier nanoTime, long recheckNanos, boolean alone) {
    this.alone = alone;
    this.self = self;
    this.memberUp = memberUp;
    this.foreign = foreign;
    this.nanoTime = nanoTime;
    this.recheckNanos = recheckNanos;
  }

  /**
   * @param executorId the identity an attempt was started by
   * @return what is known of it now (a check starts in the background when that may change)
   */
  public State of(String executorId) {
    if (executorId.equals(self.id())) {
      return State.RUNS;
    }
    String node = ExecutorFence.nodeOf(executorId);
    if (!self.configured() || foreign == null) {
      // no fence: a node that is no member is gone, and this node's other identities are its past lives
      return !node.equals(self.baseId()) && memberUp.test(node) ? State.RUNS : State.ENDED;
    }
    if (ended.contains(executorId)) {
      return gone(node);
    }
    if (!node.equals(self.baseId()) && memberUp.test(node)) {
      return State.RUNS; // another member's: it fences itself; its attempt ends with its lease at worst
    }
    check(executorId);
    return ended.contains(executorId) ? gone(node) : State.ENDING;
  }

  /**
   * A past life of this node is lost (an earlier epoch of this executor, or, on a node that runs alone
   * or at the same host and port, an incarnation before a restart); another node's identity was fenced out.
   */
  private State gone(String node) {
    return alone || node.equals(self.baseId()) || sameHostPort(node, self.baseId()) ? State.ENDED : State.FENCED;
  }

  /** Unique addresses {@code UniqueAddress(pekko://system@host:port,uid)}: the same but for the incarnation's uid. */
  private static boolean sameHostPort(String a, String b) {
    int ca = a.lastIndexOf(',');
    int cb = b.lastIndexOf(',');
    return ca > 0 && cb > 0 && a.substring(0, ca).equals(b.substring(0, cb));
  }

  private void check(String executorId) {
    long now = nanoTime.getAsLong();
    Long last = checks.get(executorId);
    if (last != null && now - last < recheckNanos) {
      return;
    }
    if (last == null ? checks.putIfAbsent(executorId, now) != null : !checks.replace(executorId, last, now)) {
      return; // another thread started this check
    }
    Lease lease;
    try {
      lease = foreign.lease(ExecutorFence.leaseName(self.systemName(), executorId));
    } catch (RuntimeException e) {
      LOG.warn("cannot open the lease of executor {}: {}", executorId, e.toString());
      return;
    }
    lease.acquire().whenComplete((taken, error) -> {
      if (error != null) {
        LOG.debug("the lease of executor {} could not be checked: {}", executorId, error.toString());
      } else if (Boolean.TRUE.equals(taken)) {
        ended.add(executorId);
        checks.remove(executorId);
        LOG.info("executor {} is gone: its lease has ended (taken and released here); its attempts are timed out",
            executorId);
        lease.release().exceptionally(e -> false);
      } else {
        LOG.debug("executor {} is no member but still holds its lease: its attempts wait", executorId);
      }
    });
  }
}
