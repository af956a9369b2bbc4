package io.almanac;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The cluster as an operator sees it ({@link Almanac#nodes()}): its members with their executors'
 * slots, where the trigger runs, and the resource pools with their holders and waiters. Each node's
 * executor is asked over the cluster with a timeout: a node that did not answer in time has a null
 * {@link Member#executor()} and says why, and never holds the answer up.
 *
 * @param at when it was read, by this node's clock (UTC)
 * @param self this node's address
 * @param triggerNode where the trigger (the cluster singleton) runs: the oldest up member, or null
 *     when no member is up
 * @param triggerAnswers whether the trigger answered within the timeout
 * @param members the cluster's members, oldest first
 * @param pools the pools declared on this node, by name
 */
public record ClusterView(Instant at, String self, String triggerNode, boolean triggerAnswers, List<Member> members,
    List<Pool> pools) {

  /** Never null, never shared mutable. */
  public ClusterView {
    members = List.copyOf(members);
    pools = List.copyOf(pools);
  }

  /**
   * A member of the cluster.
   *
   * @param address its address
   * @param roles its roles
   * @param status its membership status ({@code Up}, {@code Joining}, {@code Leaving}, ...)
   * @param reachable whether this node sees it reachable
   * @param self whether it is this node
   * @param executor its executor's slots and lease, or null when it did not answer
   * @param problem why {@code executor} is null, or null
   */
  public record Member(String address, List<String> roles, String status, boolean reachable, boolean self,
      Executor executor, String problem) {
    /** Never null, never shared mutable. */
    public Member {
      roles = List.copyOf(roles);
    }
  }

  /**
   * A node's executor: its lease and slots.
   *
   * @param identity its identity (the owner of its node lease)
   * @param holdsLease whether it holds its node lease now (jobs run only while it does)
   * @param upSince when the executor started, by that node's clock
   * @param slots its slots ({@code almanac.executor.max-concurrent})
   * @param running jobs holding a slot
   * @param queuedFresh first and manual runs waiting for a slot
   * @param queuedBacklog retries, backfills and catch-ups waiting for a slot
   * @param stuck cancelled jobs whose thread has not returned
   * @param poolWaiting per resource pool, how many of its queued windows name it
   */
  public record Executor(String identity, boolean holdsLease, Instant upSince, int slots, int running, int queuedFresh,
      int queuedBacklog, int stuck, Map<String, Integer> poolWaiting) {
    /** Never null, never shared mutable. */
    public Executor {
      poolWaiting = Map.copyOf(poolWaiting);
    }
  }

  /**
   * A resource pool.
   *
   * @param pool its name
   * @param maxConcurrent its {@code max-concurrent}
   * @param holders its holds that count now, oldest first, or null when the pools could not be asked
   * @param waiting windows queued for it on the members that answered
   */
  public record Pool(String pool, int maxConcurrent, List<Holder> holders, int waiting) {
    /** Never shared mutable. */
    public Pool {
      holders = holders == null ? null : List.copyOf(holders);
    }
  }

  /**
   * A hold of a pool: one running attempt's place in it.
   *
   * @param taskId the task
   * @param window the window
   * @param node the node that took it
   * @param since when it was taken, or null when not known (a hold older than this version)
   * @param expiresAt when it stops counting unless its node renews it
   */
  public record Holder(String taskId, String window, String node, Instant since, Instant expiresAt) {}
}
