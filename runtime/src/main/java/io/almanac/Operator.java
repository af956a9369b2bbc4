package io.almanac;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;

/**
 * A node's operator actions done as one named actor ({@link Almanac#as(String)}): each action is
 * recorded in the task's journal with the actor's name and, where given, the operator's note, and
 * "why", the timeline and the audit show them (e.g. {@code alice retried the window (note:
 * "provider fixed")}). The actions behave as {@link Almanac}'s methods of the same names; the
 * HTTP API acts as the name of the token a call carries.
 */
public final class Operator {

  /** The longest actor name taken. */
  public static final int MAX_ACTOR_LENGTH = 64;

  private final Almanac almanac;
  private final String actor;

  Operator(Almanac almanac, String actor) {
    this.almanac = almanac;
    this.actor = actor;
  }

  /**
   * @param actor a proposed actor name
   * @return it, when it is 1 to {@value #MAX_ACTOR_LENGTH} letters, digits or {@code . _ @ -}
   * @throws InvalidSpecException naming {@code actor} and the value otherwise
   */
  static String checkedActor(String actor) {
    if (actor == null || actor.isEmpty()) {
      throw new InvalidSpecException("actor", actor, "an actor needs a name (e.g. alice)");
    }
    if (actor.length() > MAX_ACTOR_LENGTH) {
      throw new InvalidSpecException("actor", actor.substring(0, MAX_ACTOR_LENGTH) + "...", actor.length()
          + " characters, at most " + MAX_ACTOR_LENGTH);
    }
    if (!actor.matches("[A-Za-z0-9._@-]+")) {
      throw new InvalidSpecException("actor", actor, "must be letters, digits and . _ @ - only");
    }
    return actor;
  }

  /** @return the actor's name, as recorded */
  public String actor() {
    return actor;
  }

  /**
   * {@link Almanac#pause(String)} as this actor.
   *
   * @param taskId the task
   * @param note why (recorded with the pause), or null
   * @return completes when the pause is recorded
   */
  public CompletionStage<Done> pause(String taskId, String note) {
    return almanac.pause(taskId, actor, note);
  }

  /**
   * {@link Almanac#resume(String)} as this actor.
   *
   * @param taskId the task
   * @param note why, or null
   * @return completes when the resume is recorded
   */
  public CompletionStage<Done> resume(String taskId, String note) {
    return almanac.resume(taskId, actor, note);
  }

  /**
   * {@link Almanac#runNow(String)} as this actor.
   *
   * @param taskId the task
   * @param note why, or null
   * @return what the task decided
   */
  public CompletionStage<FireDecision> runNow(String taskId, String note) {
    return almanac.runNow(taskId, actor, note);
  }

  /**
   * {@link Almanac#backfill(String, Instant, Instant)} as this actor.
   *
   * @param taskId the task
   * @param from the start of the range (exclusive)
   * @param to the end of the range (inclusive), not in the future
   * @param note why, or null
   * @return what the task decided for each window
   */
  public CompletionStage<List<FireDecision>> backfill(String taskId, Instant from, Instant to, String note) {
    return almanac.backfill(taskId, from, to, actor, note);
  }

  /**
   * {@link Almanac#retry(String, WindowKey)} as this actor.
   *
   * @param taskId the task
   * @param window the window
   * @param note why, or null
   * @return completes when the window is PENDING again
   */
  public CompletionStage<Done> retry(String taskId, WindowKey window, String note) {
    return almanac.retry(taskId, window, actor, note, null);
  }

  /**
   * {@link Almanac#retry(String, WindowKey, Expecting)} as this actor.
   *
   * @param taskId the task
   * @param window the window
   * @param note why, or null
   * @param expecting the window's version and/or status the retry was decided on; null: any
   * @return completes when the window is PENDING again
   */
  public CompletionStage<Done> retry(String taskId, WindowKey window, String note, Expecting expecting) {
    return almanac.retry(taskId, window, actor, note, expecting);
  }

  /**
   * {@link Almanac#resolve(String, WindowKey, String)} as this actor.
   *
   * @param taskId the task
   * @param window the window
   * @param note what the operator did
   * @return completes when recorded
   */
  public CompletionStage<Done> resolve(String taskId, WindowKey window, String note) {
    return almanac.resolve(taskId, window, note, actor, null);
  }

  /**
   * {@link Almanac#resolve(String, WindowKey, String, Expecting)} as this actor.
   *
   * @param taskId the task
   * @param window the window
   * @param note what the operator did
   * @param expecting the window's version and/or status the resolve was decided on; null: any
   * @return completes when recorded
   */
  public CompletionStage<Done> resolve(String taskId, WindowKey window, String note, Expecting expecting) {
    return almanac.resolve(taskId, window, note, actor, expecting);
  }

  /**
   * {@link Almanac#cancel(String, WindowKey, String)} as this actor.
   *
   * @param taskId the task
   * @param window the window
   * @param reason why
   * @return completes when recorded
   */
  public CompletionStage<Done> cancel(String taskId, WindowKey window, String reason) {
    return almanac.cancel(taskId, window, reason, actor, null);
  }

  /**
   * {@link Almanac#cancel(String, WindowKey, String, Expecting)} as this actor.
   *
   * @param taskId the task
   * @param window the window
   * @param reason why
   * @param expecting the window's version and/or status the cancel was decided on; null: any
   * @return completes when recorded
   */
  public CompletionStage<Done> cancel(String taskId, WindowKey window, String reason, Expecting expecting) {
    return almanac.cancel(taskId, window, reason, actor, expecting);
  }

  /**
   * {@link Almanac#cancelAll(String, java.time.Instant, java.time.Instant, RunKind, String)} as this actor.
   *
   * @param taskId the task
   * @param from the range's start (exclusive), by due time; null: no start
   * @param to the range's end (inclusive); null: no end
   * @param kind the run kind of the windows' next attempt; null: any
   * @param reason why, or null
   * @return the windows cancelled, oldest first
   */
  public CompletionStage<java.util.List<WindowKey>> cancelAll(String taskId, java.time.Instant from, java.time.Instant to,
      RunKind kind, String reason) {
    return almanac.cancelAll(taskId, from, to, kind, reason, actor);
  }

  /**
   * {@link Almanac#raiseBudget(String, BigDecimal, String)} as this actor.
   *
   * @param taskId the task
   * @param amount how much to raise today's limit by
   * @param note why, or null
   * @return the day's usage and budget after the raise
   */
  public CompletionStage<DailyUsage> raiseBudget(String taskId, BigDecimal amount, String note) {
    return almanac.raiseBudget(taskId, amount, note, actor);
  }

  /**
   * {@link Almanac#raisePoolBudget(String, BigDecimal, String)} as this actor (recorded in the pool's
   * journal with the raise).
   *
   * @param pool the pool
   * @param amount how much to raise today's limit by
   * @param note why, or null
   * @return the pool after the raise
   */
  public CompletionStage<PoolUsage> raisePoolBudget(String pool, BigDecimal amount, String note) {
    return almanac.raisePoolBudget(pool, amount, note, actor);
  }

  @Override
  public String toString() {
    return "Operator[" + actor + "]";
  }
}
