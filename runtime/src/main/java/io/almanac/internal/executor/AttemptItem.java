package io.almanac.internal.executor;

import io.almanac.RunKind;

/**
 * A started attempt's window as the executor runs it. INTERNAL API.
 *
 * @param taskId the task
 * @param window the window's key
 * @param job the job's name
 * @param kind why it runs
 * @param zone the task's zone
 */
record AttemptItem(String taskId, String window, String job, RunKind kind, String zone) {
  String key() {
    return taskId + "|" + window;
  }
}
