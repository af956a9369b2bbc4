package io.almanac;

import java.time.Duration;
import java.util.Objects;

/**
 * A call was refused because this node cannot take it now, before it reached any task: <em>nothing
 * was stored</em>, and the same call may be made again after {@link #retryAfter()}. Not a refusal of
 * the input (see {@link RefusedException}): the same call succeeds once the node has room.
 *
 * <p>{@link Almanac#publish(IncomingEvent)} fails with it when a task listening to the event's type
 * already has {@code almanac.task.max-pending-publishes} publishes from this node waiting for its
 * answer ({@link #taskId()} names it), and when the trigger did not say in time which tasks listen
 * to the type (then the event was sent to no task; {@link #taskId()} is null). The bound is per
 * node: with several nodes publishing to one task, that task's queue holds up to the bound times the
 * number of nodes.
 */
public class OverloadedException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  private final String taskId;
  private final int limit;
  private final Duration retryAfter;

  /**
   * @param taskId the task whose queue is full
   * @param limit the queue's bound (the setting named in the message)
   * @param retryAfter how long the caller should wait before it tries again
   */
  public OverloadedException(String taskId, int limit, Duration retryAfter) {
    super("task '" + taskId + "' has " + limit + " publishes from this node waiting for its answer "
        + "(almanac.task.max-pending-publishes): nothing was stored; publish again after " + retryAfter, false);
    this.taskId = Objects.requireNonNull(taskId, "taskId");
    this.limit = limit;
    this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
  }

  /**
   * A call refused before it was sent to any task, for a reason other than a full queue (e.g. the
   * trigger, which says where it goes, did not answer in time): {@link #taskId()} is null and {@link
   * #limit()} 0.
   *
   * @param message what could not be done, saying that nothing was stored
   * @param retryAfter how long the caller should wait before it tries again
   */
  public OverloadedException(String message, Duration retryAfter) {
    super(Objects.requireNonNull(message, "message"), false);
    this.taskId = null;
    this.limit = 0;
    this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
  }

  /** @return the task whose queue is full, or null when no task's queue was the reason */
  public String taskId() {
    return taskId;
  }

  /** @return the queue's bound (0 when no task's queue was the reason) */
  public int limit() {
    return limit;
  }

  /** @return how long to wait before trying again ({@code almanac.task.publish-retry-after}) */
  public Duration retryAfter() {
    return retryAfter;
  }
}
