package io.almanac;

import java.util.concurrent.CompletionStage;

/**
 * A predicate a condition trigger polls ({@link ConditionTrigger}): asynchronous, answered within
 * the trigger's timeout. Registered by name on every node that runs tasks ({@link
 * Almanac.Builder#condition}). It is called on a dispatcher for blocking work, so it may block, but
 * it should answer quickly: a poll that throws, fails or times out is recorded and the condition is
 * polled again at the next poll. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Condition {

  /**
   * @param ctx the task and window it is polled for
   * @return whether the condition holds now
   * @throws Exception a failure, recorded like a failed stage
   */
  CompletionStage<Boolean> check(ConditionContext ctx) throws Exception;

  /**
   * What a poll is for.
   *
   * @param taskId the task
   * @param window the window's key
   * @param windowStart the window's start
   * @param windowEnd the window's end
   * @param poll the number of this poll for this window on this node (1 for the first)
   */
  record ConditionContext(String taskId, WindowKey window, java.time.Instant windowStart, java.time.Instant windowEnd,
      int poll) {}
}
