package io.almanac.journal;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;

/**
 * What a resource pool's entity ({@code pool|<name>}) writes to the journal: every hold taken and
 * given back, every renewal of a node's holds, every pause, every cost reported and every budget
 * raise, each with when it happened by the entity's clock. A pool has one writer across the cluster
 * (a sharded entity), so its journal is the pool's whole day: {@link PoolState#evolve} folds it
 * (the entity, on recovery, and the audit with the same code) and the audit checks its invariants
 * (never more live holds than max-concurrent, never more starts than the rate). Persisted as JSON: a
 * component is never renamed without a migration.
 */
public final class PoolJournal {

  private PoolJournal() {}

  /**
   * @param pool a pool's name
   * @return the persistence id of its entity
   */
  public static String persistenceId(String pool) {
    return PREFIX + pool;
  }

  /** The prefix of every pool's persistence id. */
  public static final String PREFIX = "pool|";

  /** An event of a pool's journal. */
  public sealed interface Event extends JournalSerializable {
    /** @return the pool */
    String pool();

    /** @return when it happened, by the pool entity's clock */
    Instant at();
  }

  /**
   * A node declared the pool with its limits when it started: the limits apply from now, and the
   * holds the same node left in an earlier life (another incarnation) are given back.
   *
   * @param pool the pool
   * @param maxConcurrent most live holds at once
   * @param ratePermits starts per {@code ratePer}, 0 for no rate
   * @param ratePer the rate's period, or null for no rate
   * @param node the declaring node (its address)
   * @param incarnation the declaring node's incarnation (one per start)
   * @param at when
   */
  public record PoolDeclared(String pool, int maxConcurrent, int ratePermits, Duration ratePer, String node,
      String incarnation, Instant at) implements Event {}

  /**
   * An attempt of a task's window took a place in the pool (and, with a rate, one of its starts).
   *
   * @param pool the pool
   * @param taskId the task
   * @param window the window's key
   * @param node the node whose executor admitted it
   * @param incarnation that node's incarnation
   * @param at when (the start the rate counts)
   * @param expiresAt when the hold stops counting unless its node renews it
   */
  public record HoldAcquired(String pool, String taskId, String window, String node, String incarnation, Instant at,
      Instant expiresAt) implements Event {}

  /**
   * The hold was given back: its attempt ended, was cancelled, never ran, or another pool refused it.
   *
   * @param pool the pool
   * @param taskId the task
   * @param window the window's key
   * @param at when
   */
  public record HoldReleased(String pool, String taskId, String window, Instant at) implements Event {}

  /**
   * A node renewed all its holds in the pool: they count until {@code until} (one event per node and
   * renewal, not one per hold).
   *
   * @param pool the pool
   * @param node the node
   * @param incarnation its incarnation
   * @param at when
   * @param until the holds' new end
   */
  public record HoldsRenewed(String pool, String node, String incarnation, Instant at, Instant until)
      implements Event {}

  /**
   * Admissions paused until {@code until} (an attempt reported throttling, R15).
   *
   * @param pool the pool
   * @param at when
   * @param until the pause's end
   */
  public record PoolPaused(String pool, Instant at, Instant until) implements Event {}

  /**
   * An attempt of a task naming the pool reported a cost, added to the pool's day.
   *
   * @param pool the pool
   * @param day the day, in the pool's zone
   * @param costMicros the cost, in millionths
   * @param at when
   */
  public record UsageAdded(String pool, LocalDate day, long costMicros, Instant at) implements Event {}

  /**
   * An operator raised the pool's budget for one day.
   *
   * @param pool the pool
   * @param day the day, in the pool's zone
   * @param amountMicros by how much, in millionths
   * @param actor who did it
   * @param note why, or null
   * @param at when
   */
  public record PoolBudgetRaised(String pool, LocalDate day, long amountMicros, String actor, String note, Instant at)
      implements Event {}
}
