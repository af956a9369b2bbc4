package io.almanac.internal.trace;

import io.almanac.EndCause;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.almanac.Usage;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One attempt's span, begun when its executor admitted the window and ended once, when its job
 * ended or its executor gave it up (cancelled, timed out, interrupted), whichever comes first; and
 * its steps' spans. Thread-safe: the executor's actor and the job's threads use it. INTERNAL API.
 */
public final class AttemptTrace {
  private final Tracer tracer;
  private final Span span;
  private final Context context;
  private final AtomicBoolean ended = new AtomicBoolean();

  AttemptTrace(Tracer tracer, Span span) {
    this.tracer = tracer;
    this.span = span;
    this.context = Context.root().with(span);
  }

  /** @return the span's W3C trace context, recorded with the attempt's start */
  public String traceparent() {
    return AttemptTracing.traceparent(span.getSpanContext());
  }

  /** @return the context that holds the attempt's span: current while the job's code runs */
  public Context context() {
    return context;
  }

  /** @return the attempt's span */
  public Span span() {
    return span;
  }

  /**
   * Its task started the attempt: what the grant says.
   *
   * @param job the job's name
   * @param attempt the attempt's number
   * @param kind why it runs
   * @param previousTraceparent the window's previous attempt's span, linked to; or null
   * @param poolWaitSince since when the window waited for its pools, or null
   * @param startedAt when it started
   */
  public void started(String job, int attempt, RunKind kind, String previousTraceparent, Instant poolWaitSince,
      Instant startedAt) {
    if (job != null) {
      span.setAttribute(AttemptTracing.JOB, job);
    }
    span.setAttribute(AttemptTracing.ATTEMPT, (long) attempt);
    span.setAttribute(AttemptTracing.RUN_KIND, kind == null ? "" : kind.name());
    if (poolWaitSince != null && startedAt != null && !startedAt.isBefore(poolWaitSince)) {
      span.setAttribute(AttemptTracing.POOL_WAIT_MS, Duration.between(poolWaitSince, startedAt).toMillis());
    }
    SpanContext previous = AttemptTracing.parse(previousTraceparent);
    if (previous != null) {
      span.addLink(previous, Attributes.of(AttemptTracing.LINKED_ATTEMPT, (long) attempt - 1));
    }
  }

  /** The job begins to run in its slot (after the start's round trip and any wait for a slot). */
  public void running() {
    span.addEvent("almanac.job.run");
  }

  /**
   * Ends the span with the job's result (the first end wins; a later one does nothing).
   *
   * @param result what the job returned, or the failure made of how it ended
   * @param cancelled whether it was cancelled (its executor ends the span first, with the cause, when it knows it)
   */
  public void end(JobResult result, boolean cancelled) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    if (cancelled) {
      span.setAttribute(AttemptTracing.OUTCOME, "cancelled");
    } else if (result.succeeded()) {
      span.setAttribute(AttemptTracing.OUTCOME, "succeeded");
    } else if (result.throttled()) {
      span.setAttribute(AttemptTracing.OUTCOME, "throttled");
      span.setAttribute(AttemptTracing.END_CAUSE, EndCause.THROTTLED.name());
    } else {
      span.setAttribute(AttemptTracing.OUTCOME, "failed");
      span.setAttribute(AttemptTracing.END_CAUSE, EndCause.JOB_FAILED.name());
      span.setStatus(StatusCode.ERROR, result.reason());
    }
    usage(span, result.usage());
    span.end();
  }

  /**
   * Ends the span of an attempt its executor gave up before its job returned (or never ran).
   *
   * @param cause why, or null when its task did not say (a cancel: outcome cancelled)
   * @param reason the cancel's reason in words, or null
   */
  public void abandoned(EndCause cause, String reason) {
    if (!ended.compareAndSet(false, true)) {
      return;
    }
    span.setAttribute(AttemptTracing.OUTCOME, cause == null ? "cancelled" : outcomeOf(cause));
    if (cause != null) {
      span.setAttribute(AttemptTracing.END_CAUSE, cause.name());
    }
    if (reason != null) {
      span.addEvent("almanac.cancelled", Attributes.of(AttemptTracing.REASON, reason));
    }
    if (cause == EndCause.TIMED_OUT) {
      span.setStatus(StatusCode.ERROR, "its lease passed");
    }
    span.end();
  }

  /** @return the outcome a cause stands for */
  static String outcomeOf(EndCause cause) {
    return switch (cause) {
      case JOB_FAILED -> "failed";
      case THROTTLED -> "throttled";
      case TIMED_OUT -> "timed_out";
      case NODE_STOPPED, NODE_LOST, FENCED -> "interrupted";
      case CANCELLED, TASK_REMOVED, SUPERSEDED -> "cancelled";
    };
  }

  /**
   * Sets a step's usage on its span.
   *
   * @param span the step's span
   * @param usage what it used, as recorded, or null
   */
  public static void usage(Span span, io.almanac.journal.UsageRecord usage) {
    if (usage != null) {
      usage(span, Usage.ofMicros(usage.model(), usage.tokensIn(), usage.tokensOut(), usage.costMicros()));
    }
  }

  static void usage(Span span, Usage usage) {
    if (usage == null) {
      return;
    }
    span.setAttribute(AttemptTracing.TOKENS_IN, usage.tokensIn());
    span.setAttribute(AttemptTracing.TOKENS_OUT, usage.tokensOut());
    span.setAttribute(AttemptTracing.COST, usage.cost().doubleValue());
    if (usage.model() != null) {
      span.setAttribute(AttemptTracing.MODEL, usage.model());
    }
  }

  /**
   * Begins a step's span, under the span current on this thread when it belongs to this attempt's
   * trace (a span of the job's own, or the step that runs this one), under the attempt's otherwise.
   *
   * @param name the step's name
   * @param replayed whether its result comes from the journal (its body does not run)
   * @param recordedBy for a replayed step, the attempt that recorded it; otherwise ignored
   * @return the step's span
   */
  public Span step(String name, boolean replayed, int recordedBy) {
    Context current = Context.current();
    Context parent = Span.fromContext(current).getSpanContext().getTraceId().equals(span.getSpanContext().getTraceId())
        ? current : context;
    Span s = tracer.spanBuilder("almanac.step " + name)
        .setSpanKind(SpanKind.INTERNAL)
        .setParent(parent)
        .setAttribute(AttemptTracing.STEP, name)
        .setAttribute(AttemptTracing.STEP_REPLAYED, replayed)
        .startSpan();
    if (replayed) {
      s.setAttribute(AttemptTracing.STEP_RECORDED_BY, (long) recordedBy);
    }
    return s;
  }

  /**
   * Ends a step's span.
   *
   * @param step the step's span
   * @param error why it failed, or null
   */
  public static void endStep(Span step, Throwable error) {
    if (error != null) {
      step.recordException(error);
      step.setStatus(StatusCode.ERROR, error.getClass().getSimpleName()
          + (error.getMessage() == null ? "" : ": " + error.getMessage()));
    }
    step.end();
  }
}
