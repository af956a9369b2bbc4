package io.almanac.internal.executor;

import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.trace.AttemptTrace;
import io.almanac.internal.trace.AttemptTracing;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The spans of attempts admitted here and not run yet, by window: an attempt's span begins as its
 * window is admitted, so that its task records the span's trace context with the start (the
 * window's next attempt links to it), and runs once the start comes back. A span whose admission
 * was declined or forgotten is dropped without being ended, so it is never exported. Without
 * tracing ({@link AttemptTracing#OFF}) it holds nothing and begins nothing. Actor-owned (the
 * executor's thread only). INTERNAL API.
 */
final class AttemptTraces {
  private final AttemptTracing tracing;
  private final Map<String, AttemptTrace> admitted = new HashMap<>();

  AttemptTraces(AttemptTracing tracing) {
    this.tracing = tracing;
  }

  /** @return whether attempts are traced */
  boolean on() {
    return tracing.on();
  }

  /**
   * A window is admitted: its attempt's span begins.
   *
   * @return the span's trace context for the start's record, or null without tracing
   */
  String admit(String taskId, String window) {
    if (!tracing.on()) {
      return null;
    }
    AttemptTrace t = tracing.begin(taskId, window);
    admitted.put(taskId + "|" + window, t);
    return t.traceparent();
  }

  /** @return the span begun for this window's admission (removed), or null */
  AttemptTrace take(String key) {
    return admitted.isEmpty() ? null : admitted.remove(key);
  }

  /** The admission of this window was declined: its span is dropped, never ended. */
  void drop(String key) {
    if (!admitted.isEmpty()) {
      admitted.remove(key);
    }
  }

  /** Drops the spans of windows no longer admitted here (their entity restarted or stopped, the lease was lost). */
  void prune(Predicate<String> stillAdmitted) {
    if (!admitted.isEmpty()) {
      admitted.keySet().removeIf(k -> !stillAdmitted.test(k));
    }
  }

  /**
   * An attempt takes its slot: its span (begun at its admission, or now when it was started without
   * one here), with what its grant says.
   *
   * @return the attempt's trace, or null without tracing
   */
  AttemptTrace run(AttemptItem item, TaskProtocol.AttemptGrant grant, Instant now) {
    if (!tracing.on()) {
      return null;
    }
    AttemptTrace t = take(item.key());
    if (t == null) {
      t = tracing.begin(item.taskId(), item.window());
    }
    t.started(item.job(), grant.attempt(), grant.kind(), grant.previousTraceparent(), grant.poolWaitSince(), now);
    t.running();
    return t;
  }

  /** A started attempt that will not run here (its lease ended, its identity lost the lease, the node drains): its span ends. */
  void notRun(String key, TaskProtocol.AttemptGrant grant, io.almanac.EndCause cause) {
    AttemptTrace t = take(key);
    if (t != null) {
      t.started(null, grant.attempt(), grant.kind(), grant.previousTraceparent(), grant.poolWaitSince(), null);
      t.abandoned(cause, null);
    }
  }
}
