package io.almanac.internal.meter;

import org.slf4j.MDC;

/**
 * The MDC of one attempt ({@link #MDC_TASK}, {@link #MDC_WINDOW},
 * {@link #MDC_ATTEMPT}) for the lines logged inside a {@code try}-with-resources block: on
 * the thread that runs a job, and around the executor's own lines about an attempt. Closing it
 * removes the three keys. INTERNAL API.
 */
public final class AttemptMdc implements AutoCloseable {

  /** MDC key on a job's thread and on its task entity's lines: the task's id. */
  public static final String MDC_TASK = "almanac.task";

  /** MDC key on a job's thread and on its task entity's lines: the window's key. */
  public static final String MDC_WINDOW = "almanac.window";

  /** MDC key on a job's thread and on its task entity's lines: the attempt's number. */
  public static final String MDC_ATTEMPT = "almanac.attempt";

  private AttemptMdc() {}

  /**
   * @param taskId the task
   * @param window the window's key
   * @param attempt the attempt's number
   * @return a scope that removes the keys when closed
   */
  public static AttemptMdc of(String taskId, String window, int attempt) {
    MDC.put(MDC_TASK, taskId);
    MDC.put(MDC_WINDOW, window);
    MDC.put(MDC_ATTEMPT, String.valueOf(attempt));
    return new AttemptMdc();
  }

  @Override
  public void close() {
    MDC.remove(MDC_TASK);
    MDC.remove(MDC_WINDOW);
    MDC.remove(MDC_ATTEMPT);
  }
}
