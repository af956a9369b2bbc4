package io.almanac.internal.trace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;

/**
 * Where a node's attempt spans come from: a tracer of the node's {@link OpenTelemetry}, or {@link
 * #OFF} when that is the no-op (no SDK, no agent), so that an untraced node allocates no span, writes
 * no trace context and sends nothing more. The attribute keys are the ones docs/tracing.md lists.
 * Thread-safe (immutable). INTERNAL API.
 */
public final class AttemptTracing {

  /** The instrumentation scope of Almanac's spans. */
  public static final String SCOPE = "io.almanac";

  /** Traces nothing: {@link #on()} is false and nothing is begun. */
  public static final AttemptTracing OFF = new AttemptTracing(null);

  /** The task's id. */
  public static final AttributeKey<String> TASK = AttributeKey.stringKey("almanac.task");
  /** The window's key. */
  public static final AttributeKey<String> WINDOW = AttributeKey.stringKey("almanac.window");
  /** The attempt's number (its fencing token). */
  public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("almanac.attempt");
  /** Why it runs: a {@link io.almanac.RunKind} name. */
  public static final AttributeKey<String> RUN_KIND = AttributeKey.stringKey("almanac.run_kind");
  /** The job's registered name. */
  public static final AttributeKey<String> JOB = AttributeKey.stringKey("almanac.job");
  /** How the attempt ended, as its executor saw it: succeeded, failed, throttled, timed_out, interrupted, cancelled. */
  public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("almanac.outcome");
  /** Why it ended without a success: an {@link io.almanac.EndCause} name. */
  public static final AttributeKey<String> END_CAUSE = AttributeKey.stringKey("almanac.end_cause");
  /** How long the window waited for its resource pools before this attempt started, in milliseconds. */
  public static final AttributeKey<Long> POOL_WAIT_MS = AttributeKey.longKey("almanac.pool_wait_ms");
  /** Tokens in that the attempt (outside its steps) or the step reported. */
  public static final AttributeKey<Long> TOKENS_IN = AttributeKey.longKey("almanac.usage.tokens_in");
  /** Tokens out that the attempt (outside its steps) or the step reported. */
  public static final AttributeKey<Long> TOKENS_OUT = AttributeKey.longKey("almanac.usage.tokens_out");
  /** The cost that the attempt (outside its steps) or the step reported, in the budget's currency. */
  public static final AttributeKey<Double> COST = AttributeKey.doubleKey("almanac.usage.cost");
  /** The model the usage was reported for, when named. */
  public static final AttributeKey<String> MODEL = AttributeKey.stringKey("almanac.usage.model");
  /** A step's name. */
  public static final AttributeKey<String> STEP = AttributeKey.stringKey("almanac.step");
  /** Whether a step's result came from the journal (true) or its body ran (false). */
  public static final AttributeKey<Boolean> STEP_REPLAYED = AttributeKey.booleanKey("almanac.step.replayed");
  /** A replayed step: the attempt that ran it and recorded its result. */
  public static final AttributeKey<Long> STEP_RECORDED_BY = AttributeKey.longKey("almanac.step.recorded_by_attempt");
  /** On the event of a cancel: its reason, as the task gave it. */
  public static final AttributeKey<String> REASON = AttributeKey.stringKey("almanac.reason");
  /** On the link to the previous attempt's span: that attempt's number. */
  public static final AttributeKey<Long> LINKED_ATTEMPT = AttributeKey.longKey("almanac.linked_attempt");

  private final Tracer tracer;

  private AttemptTracing(Tracer tracer) {
    this.tracer = tracer;
  }

  /**
   * The OpenTelemetry a node takes when its embedder passed none: the global one when something set
   * it (the Java agent does, before {@code main}), or when the SDK's autoconfigure was asked for
   * ({@code otel.java.global-autoconfigure.enabled} / {@code OTEL_JAVA_GLOBAL_AUTOCONFIGURE_ENABLED});
   * otherwise the no-op, without making it the global ({@code GlobalOpenTelemetry.get()} would, for
   * good, and an application setting its own global after the node started would then fail).
   *
   * @param property the system property {@code otel.java.global-autoconfigure.enabled}, or null
   * @param env the environment variable {@code OTEL_JAVA_GLOBAL_AUTOCONFIGURE_ENABLED}, or null
   * @return the node's OpenTelemetry
   */
  public static OpenTelemetry nodeDefault(String property, String env) {
    if (io.opentelemetry.api.GlobalOpenTelemetry.isSet()) {
      return io.opentelemetry.api.GlobalOpenTelemetry.get();
    }
    String asked = property != null ? property : env;
    if (asked != null && Boolean.parseBoolean(asked.trim())) {
      return io.opentelemetry.api.GlobalOpenTelemetry.get(); // configures itself from the OTEL_* settings
    }
    return OpenTelemetry.noop();
  }

  /** @return {@link #nodeDefault(String, String)} of this JVM's property and environment */
  public static OpenTelemetry nodeDefault() {
    return nodeDefault(System.getProperty("otel.java.global-autoconfigure.enabled"),
        System.getenv("OTEL_JAVA_GLOBAL_AUTOCONFIGURE_ENABLED"));
  }

  /**
   * @param openTelemetry the node's OpenTelemetry, or null
   * @return its tracing, or {@link #OFF} for null or the no-op (an SDK-less {@code GlobalOpenTelemetry})
   */
  public static AttemptTracing of(OpenTelemetry openTelemetry) {
    if (openTelemetry == null) {
      return OFF;
    }
    TracerProvider provider = openTelemetry.getTracerProvider();
    if (provider == null || provider == TracerProvider.noop()) {
      return OFF;
    }
    String version = AttemptTracing.class.getPackage().getImplementationVersion();
    return new AttemptTracing(version == null ? provider.get(SCOPE) : provider.get(SCOPE, version));
  }

  /** @return whether attempts are traced */
  public boolean on() {
    return tracer != null;
  }

  /**
   * Begins an attempt's span (a root: each attempt is a trace of its own, linked to the window's
   * previous attempt once started, {@link AttemptTrace#started}).
   *
   * @param taskId the task
   * @param window the window's key
   * @return the attempt's trace, or null when tracing is {@link #OFF}
   */
  public AttemptTrace begin(String taskId, String window) {
    if (tracer == null) {
      return null;
    }
    Span span = tracer.spanBuilder("almanac.attempt " + taskId)
        .setSpanKind(SpanKind.INTERNAL)
        .setNoParent()
        .setAttribute(TASK, taskId)
        .setAttribute(WINDOW, window)
        .startSpan();
    return new AttemptTrace(tracer, span);
  }

  /**
   * @param context a span's context
   * @return it as a W3C {@code traceparent} ({@code 00-<trace id>-<span id>-<flags>}), or null when invalid
   */
  public static String traceparent(SpanContext context) {
    if (context == null || !context.isValid()) {
      return null;
    }
    return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex();
  }

  /**
   * @param traceparent a W3C {@code traceparent} as {@link #traceparent(SpanContext)} writes it
   * @return its span context (remote), or null when it is null or does not read as one
   */
  public static SpanContext parse(String traceparent) {
    if (traceparent == null || traceparent.length() != 55 || !traceparent.startsWith("00-")
        || traceparent.charAt(35) != '-' || traceparent.charAt(52) != '-') {
      return null;
    }
    SpanContext c = SpanContext.createFromRemoteParent(traceparent.substring(3, 35), traceparent.substring(36, 52),
        TraceFlags.fromHex(traceparent, 53), TraceState.getDefault());
    return c.isValid() ? c : null;
  }
}
