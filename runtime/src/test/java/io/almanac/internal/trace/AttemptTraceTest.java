package io.almanac.internal.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.almanac.EndCause;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** An attempt's span as its executor ends it: each way an attempt ends, its outcome, end cause and status; the traceparent. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AttemptTraceTest {

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
  private final AttemptTracing tracing = AttemptTracing.of(sdk);

  @AfterAll
  void close() {
    sdk.close();
  }

  private SpanData ended(java.util.function.Consumer<AttemptTrace> end) {
    exporter.reset();
    AttemptTrace t = tracing.begin("t", "w");
    t.started("job", 2, RunKind.RESUME, null, Instant.parse("2026-11-29T00:00:00Z"), Instant.parse("2026-11-29T00:00:02.5Z"));
    end.accept(t);
    List<SpanData> spans = exporter.getFinishedSpanItems();
    assertEquals(1, spans.size());
    return spans.get(0);
  }

  private static String outcome(SpanData s) {
    return s.getAttributes().get(AttemptTracing.OUTCOME);
  }

  @Test
  @DisplayName("timed out: outcome timed_out, TIMED_OUT, ERROR; the job's later end changes nothing")
  void timedOut() {
    SpanData s = ended(t -> {
      t.abandoned(EndCause.TIMED_OUT, null);
      t.end(JobResult.success("late"), true);
    });
    assertEquals("timed_out", outcome(s));
    assertEquals("TIMED_OUT", s.getAttributes().get(AttemptTracing.END_CAUSE));
    assertEquals(StatusCode.ERROR, s.getStatus().getStatusCode());
    assertEquals(2500L, s.getAttributes().get(AttemptTracing.POOL_WAIT_MS));
    assertEquals("RESUME", s.getAttributes().get(AttemptTracing.RUN_KIND));
  }

  @Test
  @DisplayName("interrupted by the drain: outcome interrupted, NODE_STOPPED, status unset (not a failure)")
  void interrupted() {
    SpanData s = ended(t -> t.abandoned(EndCause.NODE_STOPPED, null));
    assertEquals("interrupted", outcome(s));
    assertEquals("NODE_STOPPED", s.getAttributes().get(AttemptTracing.END_CAUSE));
    assertEquals(StatusCode.UNSET, s.getStatus().getStatusCode());
  }

  @Test
  @DisplayName("cancelled by its task: outcome cancelled, the reason as an event, no end cause")
  void cancelled() {
    SpanData s = ended(t -> t.abandoned(null, "cancelled by an operator"));
    assertEquals("cancelled", outcome(s));
    assertNull(s.getAttributes().get(AttemptTracing.END_CAUSE));
    assertEquals("cancelled by an operator",
        s.getEvents().stream().filter(e -> e.getName().equals("almanac.cancelled")).findFirst().orElseThrow()
            .getAttributes().get(AttemptTracing.REASON));
  }

  @Test
  @DisplayName("throttled: outcome throttled, THROTTLED, status unset; a success's usage is on the span")
  void throttledAndUsage() {
    SpanData throttled = ended(t -> t.end(JobResult.throttled(java.time.Duration.ofSeconds(30)), false));
    assertEquals("throttled", outcome(throttled));
    assertEquals(StatusCode.UNSET, throttled.getStatus().getStatusCode());
    SpanData ok = ended(t -> t.end(JobResult.success("ok").withUsage(io.almanac.Usage.of("m", 10, 5,
        new java.math.BigDecimal("0.5"))), false));
    assertEquals("succeeded", outcome(ok));
    assertEquals(10L, ok.getAttributes().get(AttributeKey.longKey("almanac.usage.tokens_in")));
    assertEquals(0.5, ok.getAttributes().get(AttemptTracing.COST), 1e-9);
  }

  @Test
  @DisplayName("a traceparent reads back as the span's context; a malformed one as none; the no-op is OFF")
  void traceparentRoundTrip() {
    AttemptTrace t = tracing.begin("t", "w");
    String tp = t.traceparent();
    assertEquals(55, tp.length());
    assertEquals(t.span().getSpanContext().getSpanId(), AttemptTracing.parse(tp).getSpanId());
    assertEquals(t.span().getSpanContext().getTraceId(), AttemptTracing.parse(tp).getTraceId());
    assertNull(AttemptTracing.parse("00-zz"));
    assertNull(AttemptTracing.parse(null));
    assertNull(AttemptTracing.parse("00-00000000000000000000000000000000-0000000000000000-01"));
    assertSame(AttemptTracing.OFF, AttemptTracing.of(OpenTelemetry.noop()));
    assertNull(AttemptTracing.OFF.begin("t", "w"));
    t.span().end();
  }

  @Test
  @DisplayName("with no global set and no autoconfigure asked for, a node traces nothing and leaves the global unset; "
      + "a global set before the start is the node's; autoconfigure asked for reads the global")
  void theNodesDefaultOpenTelemetry() {
    io.opentelemetry.api.GlobalOpenTelemetry.resetForTest();
    try {
      assertSame(AttemptTracing.OFF, AttemptTracing.of(AttemptTracing.nodeDefault(null, null)));
      assertSame(AttemptTracing.OFF, AttemptTracing.of(AttemptTracing.nodeDefault("false", "true")), "the property wins");
      org.junit.jupiter.api.Assertions.assertFalse(io.opentelemetry.api.GlobalOpenTelemetry.isSet(),
          "the no-op was not made the global: an application may still set its own");
      io.opentelemetry.api.GlobalOpenTelemetry.set(sdk);
      org.junit.jupiter.api.Assertions.assertTrue(AttemptTracing.of(AttemptTracing.nodeDefault(null, null)).on(),
          "the global set before the start traces");
    } finally {
      io.opentelemetry.api.GlobalOpenTelemetry.resetForTest();
    }
  }
}
