package io.almanac.internal.pool;

import io.almanac.internal.protocol.AlmanacSerializable;
import io.almanac.spi.PoolStore;
import java.time.Duration;
import java.time.LocalDate;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a pool's entity ({@link PoolEntity}) is asked, by the executors' {@link JournalPoolStore}
 * and the facade. Every command names the node and its incarnation where a hold is concerned: a
 * node frees only its own holds. INTERNAL API.
 */
public final class PoolProtocol {

  private PoolProtocol() {}

  /** A command to a pool. */
  public sealed interface Command extends AlmanacSerializable {}

  /**
   * Declares the pool's limits (a node's start); frees the node's holds of an earlier life.
   *
   * @param limit the limits
   * @param node the node
   * @param incarnation its incarnation
   * @param replyTo answered when written
   */
  public record Declare(PoolStore.Limit limit, String node, String incarnation, ActorRef<Done> replyTo)
      implements Command {}

  /**
   * Takes a hold for an attempt, when the pool has room (and its budget, when given, is not spent).
   *
   * @param taskId the task
   * @param window the window's key
   * @param node the node
   * @param incarnation its incarnation
   * @param budget the budget to check, or null
   * @param ttl how long the hold lives without a renewal
   * @param replyTo the answer
   */
  public record Acquire(String taskId, String window, String node, String incarnation, PoolStore.Budget budget,
      Duration ttl, ActorRef<Answered> replyTo) implements Command {}

  /**
   * One attempt's ask in an {@link AcquireAll}.
   *
   * @param taskId the task
   * @param window the window's key
   * @param budget the budget to check, or null
   */
  public record Ask(String taskId, String window, PoolStore.Budget budget) {}

  /**
   * Several {@link Acquire}s of one node at once (those that came while the previous batch was being
   * written), decided in order on the state each admission leaves, and written in one write.
   *
   * @param asks the attempts' asks, in order
   * @param node the node
   * @param incarnation its incarnation
   * @param ttl how long a hold lives without a renewal
   * @param replyTo the answers, in the asks' order
   */
  public record AcquireAll(java.util.List<Ask> asks, String node, String incarnation, Duration ttl,
      ActorRef<AnsweredAll> replyTo) implements Command {}

  /**
   * Gives back the node's hold of the window (idempotent).
   *
   * @param taskId the task
   * @param window the window's key
   * @param node the node
   * @param replyTo answered when written (or when there was nothing to give back)
   */
  public record Release(String taskId, String window, String node, ActorRef<Done> replyTo) implements Command {}

  /**
   * Renews all the node's holds in the pool (nothing is written when it holds none).
   *
   * @param node the node
   * @param incarnation its incarnation
   * @param ttl their new life from now
   * @param replyTo answered when written
   */
  public record Renew(String node, String incarnation, Duration ttl, ActorRef<Done> replyTo) implements Command {}

  /**
   * Pauses admissions for a while (a pause that ends later stays).
   *
   * @param pause how long, from now
   * @param replyTo answered when written
   */
  public record Pause(Duration pause, ActorRef<Done> replyTo) implements Command {}

  /**
   * Adds an attempt's reported cost to a day.
   *
   * @param day the day in the pool's zone
   * @param costMicros the cost
   * @param replyTo answered when written
   */
  public record AddUsage(LocalDate day, long costMicros, ActorRef<Done> replyTo) implements Command {}

  /**
   * Raises a day's budget (an operator's action, audited with who and why).
   *
   * @param day the day in the pool's zone
   * @param amountMicros by how much
   * @param actor who
   * @param note why, or null
   * @param replyTo the day after the raise
   */
  public record RaiseBudget(LocalDate day, long amountMicros, String actor, String note,
      ActorRef<DayIs> replyTo) implements Command {}

  /**
   * @param day a day
   * @param replyTo the pool's usage and raises that day
   */
  public record GetDay(LocalDate day, ActorRef<DayIs> replyTo) implements Command {}

  /** @param replyTo how many holds count now */
  public record GetLiveHolds(ActorRef<LiveHolds> replyTo) implements Command {}

  /** @param replyTo the holds that count now, each with its node, window and since when (the nodes page) */
  public record GetHolds(ActorRef<Holds> replyTo) implements Command {}

  /** @param holds a pool's live holds (a reply that crosses nodes) */
  public record Holds(java.util.List<io.almanac.journal.PoolState.Hold> holds) implements AlmanacSerializable {}

  /** @param answers an {@link AcquireAll}'s answers, in its asks' order (a reply that crosses nodes) */
  public record AnsweredAll(java.util.List<PoolStore.Answer> answers) implements AlmanacSerializable {}

  /** @param answer an acquire's answer (a reply that crosses nodes) */
  public record Answered(PoolStore.Answer answer) implements AlmanacSerializable {}

  /** @param day a pool's day (a reply that crosses nodes) */
  public record DayIs(PoolStore.PoolDay day) implements AlmanacSerializable {}

  /** @param count how many holds count now (a reply that crosses nodes) */
  public record LiveHolds(int count) implements AlmanacSerializable {}
}
