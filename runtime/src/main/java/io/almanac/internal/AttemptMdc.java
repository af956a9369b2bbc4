package io.almanac.internal;

import org.slf4j.MDC;

/**
 * The MDC of one attempt ({@link Executor#MDC_TASK}, {@link Executor#MDC_WINDOW},
 * {@link Executor#MDC_ATTEMPT}) for the lines logged inside a {@code try}-with-resources block: on
 * the thread that runs a job, and around the executor's own lines about an attempt. Closing it
 * removes the three keys. INTERNAL API.
 */
final class AttemptMdc implements AutoCloseable {

  private AttemptMdc() {}

  /**
   * @param taskId the task
   * @param window the window's key
   * @param attempt the attempt's number
   * @return a scope that removes the keys when closed
   */
  static AttemptMdc of(String taskId, String window, int attempt) {
    MDC.put(Executor.MDC_TASK, taskId);
    MDC.put(Executor.MDC_WINDOW, window);
    MDC.put(Executor.MDC_ATTEMPT, String.valueOf(attempt));
    return new AttemptMdc();
  }

  @Override
  public void close() {
    MDC.remove(Executor.MDC_TASK);
    MDC.remove(Executor.MDC_WINDOW);
    MDC.remove(Executor.MDC_ATTEMPT);
  }
}
