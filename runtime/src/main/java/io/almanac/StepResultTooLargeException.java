package io.almanac;

/**
 * A durable step's result is larger than a window may record ({@code almanac.task.max-step-result-size},
 * 64 KiB of JSON by default): nothing was recorded, and a later attempt of the window runs the step
 * again. A step records a result small enough to ride in its task's journal: keep a large output (a
 * document, a model's long answer) in an artifact store and return its URI from the step instead.
 */
public class StepResultTooLargeException extends AlmanacException {
  private static final long serialVersionUID = 1L;

  private final String step;
  private final long size;
  private final long limit;

  /**
   * @param taskId the task
   * @param window the window
   * @param step the step's name
   * @param size the result's size, in bytes of JSON (UTF-8)
   * @param limit the largest size recorded, in bytes
   */
  public StepResultTooLargeException(String taskId, String window, String step, long size, long limit) {
    super("task '" + taskId + "' window '" + window + "': step '" + step + "' produced a result of " + size
        + " bytes of JSON, more than the " + limit + " bytes a step may record (almanac.task.max-step-result-size); "
        + "nothing was recorded. Keep a large output in an artifact store and return its URI from the step "
        + "(as JobResult.success(summary, artifactUri) does for a whole job)");
    this.step = step;
    this.size = size;
    this.limit = limit;
  }

  /** @return the step's name */
  public String step() {
    return step;
  }

  /** @return the result's size, in bytes of JSON */
  public long size() {
    return size;
  }

  /** @return the largest size a step may record, in bytes */
  public long limit() {
    return limit;
  }
}
