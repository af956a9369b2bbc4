package io.almanac.internal.lease;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.apache.pekko.coordination.lease.javadsl.Lease;

/**
 * The lease a node's executor holds while it runs jobs, so that a node which lost it runs no job on
 * and a survivor retries that node's attempts only once the lease has ended by the lease's own clock
 * (for Almanac's JDBC lease: the database's).
 *
 * <p>Configured by {@code almanac.executor.fence-lease} (the configuration path of a Pekko
 * coordination lease implementation, e.g. {@code almanac.lease.jdbc}); empty, there is no fence:
 * {@link #valid()} is always true and every executor other than this one counts as gone once its
 * node is no member (an embedded node, whose only other executor is its own previous life).
 *
 * <p>The lease is named after the executor's identity ({@link #leaseName}), and an identity holds
 * its lease once: an executor that lost it (a freeze past the lease, a lost database, downed) goes
 * on under a new identity, {@code <unique address>#<n>} for the n-th loss, with a lease of its own.
 * So a lease that ended stays ended, and whoever can take the row of an identity's lease (it was
 * free or expired by the lease's clock) knows that identity runs nothing any more (see {@link
 * ExecutorLiveness}).
 *
 * <p>Read from any thread (job threads through their context, task entities through the liveness
 * check); changed only by the executor actor. INTERNAL API.
 */
public final class ExecutorFence {

  /** Opens the lease of an identity: (lease name, owner name) to the lease. */
  @FunctionalInterface
  public interface Leases {
    /**
     * @param leaseName the lease's name
     * @return the lease, owned by this node
     */
    Lease lease(String leaseName);
  }

  private final String systemName;
  private final String baseId;
  private final Leases leases;
  private final Duration pauseLimit;
  private volatile int epoch;
  private volatile Lease lease;
  /** The current identity's lease was granted and not lost since; false while a renewal is pending. */
  private volatile boolean held;
  /** Terminal: the node was downed or removed; no lease is taken again. */
  private volatile boolean ended;

  /**
   * @param systemName the ActorSystem's name (the first part of every lease name)
   * @param baseId the executor's identity in its first epoch (the node's unique address)
   * @param leases opens a lease by name (null: no fence)
   * @param pauseLimit a gap in the executor's periodic check longer than this (its check interval
   *     plus the lease's safety margin) counts as a pause: the lease is suspect until renewed
   */
  public ExecutorFence(String systemName, String baseId, Leases leases, Duration pauseLimit) {
    this.systemName = systemName;
    this.baseId = baseId;
    this.leases = leases;
    this.pauseLimit = pauseLimit;
  }

  /**
   * No fence: the executor always holds what it needs (embedded nodes, unit tests).
   *
   * @param baseId the executor's identity
   * @return the fence
   */
  public static ExecutorFence none(String baseId) {
    return new ExecutorFence("none", baseId, null, Duration.ofDays(365));
  }

  /**
   * @param systemName the ActorSystem's name
   * @param executorId an executor's identity
   * @return the name of that identity's lease
   */
  public static String leaseName(String systemName, String executorId) {
    return systemName + "-executor-" + executorId;
  }

  /**
   * @param executorId an executor's identity
   * @return its node's unique address (the identity without its epoch)
   */
  public static String nodeOf(String executorId) {
    int hash = executorId.lastIndexOf('#');
    if (hash < 0) {
      return executorId;
    }
    String epoch = executorId.substring(hash + 1);
    return !epoch.isEmpty() && epoch.chars().allMatch(Character::isDigit) ? executorId.substring(0, hash) : executorId;
  }

  /** @return whether a lease fences this executor */
  public boolean configured() {
    return leases != null;
  }

  /** @return the executor's identity now (recorded with every attempt it starts) */
  public String id() {
    int e = epoch;
    return e == 0 ? baseId : baseId + "#" + e;
  }

  /** @return the executor's identity in its first epoch (its node's unique address) */
  public String baseId() {
    return baseId;
  }

  /** @return the ActorSystem's name */
  public String systemName() {
    return systemName;
  }

  /** @return how long a gap between two checks may be before the lease is suspect */
  public Duration pauseLimit() {
    return pauseLimit;
  }

  /**
   * Whether the executor may run jobs now, and a job may make an effect: no fence, or the current
   * identity's lease is held (granted, not lost, not suspect after a pause) and the lease itself
   * says so (a memory read for the JDBC lease, false from the moment its local deadline passed).
   *
   * @return whether the lease is valid now
   */
  public boolean valid() {
    if (leases == null) {
      return true;
    }
    Lease l = lease;
    return held && !ended && l != null && l.checkLease();
  }

  /** @return whether the node was downed or removed (no lease is taken again) */
  public boolean ended() {
    return ended;
  }

  /**
   * Acquires the current identity's lease (again: a renewal, after a pause).
   *
   * @param onLost called once if the lease is lost later (on a lease's thread)
   * @return whether it is held
   */
  public CompletionStage<Boolean> acquire(Consumer<Optional<Throwable>> onLost) {
    if (leases == null) {
      return CompletableFuture.completedFuture(true);
    }
    if (ended) {
      return CompletableFuture.completedFuture(false);
    }
    Lease l = lease;
    if (l == null) {
      l = leases.lease(leaseName(systemName, id()));
      lease = l;
    }
    return l.acquire(onLost);
  }

  /** The acquire (or renewal) succeeded: jobs may run. */
  public void granted() {
    held = !ended;
  }

  /** A pause: the lease is suspect until a renewal succeeds; nothing runs meanwhile. */
  public void suspect() {
    held = false;
  }

  /**
   * The lease is lost (or could not be renewed): this identity runs nothing any more. The next
   * {@link #acquire} is for a new identity.
   *
   * @return the identity that lost it
   */
  public String lost() {
    String was = id();
    held = false;
    Lease l = lease;
    lease = null;
    epoch++;
    if (l != null) {
      // frees the row sooner when the database answers (never another owner's); never taken again under this name
      l.release().exceptionally(e -> false);
    }
    return was;
  }

  /** The node was downed or removed: nothing runs again here. */
  public void end() {
    ended = true;
    held = false;
  }

  /**
   * Releases the lease at a normal stop, once every job ended.
   *
   * @return when released (or at once without a lease)
   */
  public CompletionStage<Boolean> release() {
    held = false;
    Lease l = lease;
    return l == null ? CompletableFuture.completedFuture(true) : l.release();
  }
}
