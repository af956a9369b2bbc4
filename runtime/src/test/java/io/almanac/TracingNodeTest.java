package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Traces of attempts (docs/tracing.md) on one embedded node whose OpenTelemetry is the SDK with an
 * in-memory exporter: a three-step agent job's attempt span with its steps as children, the job's
 * own spans nested under them, a retry linked to the attempt it retries, a failed attempt's ERROR
 * status. The three-step job's tree is written to target/tracing/three-step-agent.txt, and the
 * README's tree must be the same.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TracingNodeTest {

  private static final Instant WINDOW = Instant.parse("2026-11-29T00:00:00Z");
  private final SettableClock clock = new SettableClock(WINDOW.minusSeconds(60));
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private OpenTelemetrySdk otel;
  private ActorTestKit testKit;
  private Almanac almanac;
  /** What the job saw as the current context and on its JobContext (agent job, as it began). */
  private volatile Span currentInJob;
  private volatile Span onContext;

  @BeforeAll
  void start() {
    otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
        .build();
    Tracer model = otel.getTracer("a-model-client");
    testKit = ActorTestKit.create("tracing-test", AlmanacNodeTest.config(""));
    almanac = Almanac.builder(testKit.system()).clock(clock).openTelemetry(otel)
        .job("research-agent", ctx -> {
          currentInJob = Span.current();
          onContext = Span.fromContext(ctx.traceContext());
          Span plan = model.spanBuilder("plan").startSpan(); // the job's own span: under the attempt's
          plan.end();
          return ctx.step("search", String.class, () -> call(model, "model.search", "facts"))
              .thenCompose(facts -> ctx.step("draft", String.class, () -> call(model, "model.draft", "draft of " + facts),
                  d -> Usage.of("model-x", 1200, 300, new BigDecimal("0.042"))))
              .thenCompose(draft -> ctx.step("review", String.class, () -> call(model, "model.review", "ok: " + draft)))
              .thenApply(JobResult::success);
        })
        .job("flaky", ctx -> ctx.step("fetch", String.class, () -> CompletableFuture.completedFuture("page"))
            .thenApply(page -> ctx.attempt() == 1 ? JobResult.failure("model returned malformed JSON")
                : JobResult.success("parsed " + page)))
        .start();
    NodeReady.await(almanac);
    for (String task : List.of("research-agent", "flaky")) {
      await(almanac.register(TaskSpec.builder(task).cron("0 0 0 * * ? UTC").job(task)
          .retry(RetryPolicy.immediate()).maxRetries(1).build()));
    }
    clock.set(WINDOW);
    eventually(() -> {
      assertEquals(InstanceStatus.SUCCEEDED, status("research-agent"));
      assertEquals(InstanceStatus.SUCCEEDED, status("flaky"));
    });
    // the spans end as the jobs end; the results are recorded after: wait for the exported attempts
    eventually(() -> assertEquals(3, attempts().size(), "attempt spans: " + attempts()));
  }

  /** A model client's call: a span of its own, under the step's current one. */
  private static CompletionStage<String> call(Tracer model, String name, String answer) {
    Span s = model.spanBuilder(name).setSpanKind(SpanKind.CLIENT).startSpan();
    s.end();
    return CompletableFuture.completedFuture(answer);
  }

  @AfterAll
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
    if (otel != null) {
      otel.close();
    }
  }

  @Test
  @DisplayName("a three-step agent job makes one attempt span (INTERNAL, its attributes) with three step spans as "
      + "children; the job's own spans nest under the attempt and the steps")
  void threeStepAgentJob() throws IOException {
    SpanData attempt = attempt("research-agent", 1);
    assertEquals("almanac.attempt research-agent", attempt.getName());
    assertEquals(SpanKind.INTERNAL, attempt.getKind());
    assertFalse(attempt.getParentSpanContext().isValid(), "an attempt is the root of its trace");
    assertEquals("2026-11-29", attr(attempt, "almanac.window"));
    assertEquals(1L, (Long) attempt.getAttributes().get(AttributeKey.longKey("almanac.attempt")));
    assertEquals("FIRST", attr(attempt, "almanac.run_kind"));
    assertEquals("succeeded", attr(attempt, "almanac.outcome"));
    assertEquals("research-agent", attr(attempt, "almanac.job"));
    assertEquals(StatusCode.UNSET, attempt.getStatus().getStatusCode());
    assertTrue(attempt.getLinks().isEmpty(), "a first attempt links to nothing");

    List<SpanData> steps = children(attempt).stream().filter(s -> s.getName().startsWith("almanac.step")).toList();
    assertEquals(List.of("almanac.step search", "almanac.step draft", "almanac.step review"),
        steps.stream().map(SpanData::getName).toList());
    for (SpanData step : steps) {
      assertEquals(Boolean.FALSE, step.getAttributes().get(AttributeKey.booleanKey("almanac.step.replayed")));
      List<SpanData> calls = children(step);
      assertEquals(1, calls.size(), "the model client's span nests under its step: " + calls);
      assertTrue(calls.get(0).getName().startsWith("model."), calls.get(0).getName());
    }
    SpanData draft = steps.get(1);
    assertEquals(1200L, (Long) draft.getAttributes().get(AttributeKey.longKey("almanac.usage.tokens_in")));
    assertEquals(0.042, draft.getAttributes().get(AttributeKey.doubleKey("almanac.usage.cost")), 1e-9);
    assertEquals("model-x", attr(draft, "almanac.usage.model"));
    assertTrue(children(attempt).stream().anyMatch(s -> s.getName().equals("plan")), "the job's own span nests under "
        + "the attempt");
    assertEquals(attempt.getSpanContext(), currentInJob.getSpanContext(), "Context.current() in the job is the attempt's");
    assertEquals(attempt.getSpanContext(), onContext.getSpanContext(), "JobContext.traceContext() holds the attempt's span");

    String tree = tree(attempt);
    Path out = Path.of("target", "tracing", "three-step-agent.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, tree);
    String readme = Files.readString(Path.of("..", "README.md"));
    String start = "<!-- trace-tree: written by TracingNodeTest -->\n```\n";
    int at = readme.indexOf(start);
    assertTrue(at >= 0, "the README shows the trace tree");
    String shown = readme.substring(at + start.length(), readme.indexOf("```", at + start.length()));
    assertEquals(tree, shown, "the README's tree is the one the test prints (" + out + ")");
  }

  @Test
  @DisplayName("a failed attempt records outcome failed, end cause JOB_FAILED and status ERROR; its retry links to it "
      + "and replays the recorded step (almanac.step.replayed = true)")
  void retryLinksToTheFailedAttempt() {
    SpanData first = attempt("flaky", 1);
    SpanData retry = attempt("flaky", 2);
    assertEquals("failed", attr(first, "almanac.outcome"));
    assertEquals("JOB_FAILED", attr(first, "almanac.end_cause"));
    assertEquals(StatusCode.ERROR, first.getStatus().getStatusCode());
    assertEquals("model returned malformed JSON", first.getStatus().getDescription());
    assertEquals("RETRY", attr(retry, "almanac.run_kind"));
    assertEquals("succeeded", attr(retry, "almanac.outcome"));
    List<LinkData> links = retry.getLinks();
    assertEquals(1, links.size(), "the retry links to the attempt it retries");
    assertEquals(first.getSpanContext().getTraceId(), links.get(0).getSpanContext().getTraceId());
    assertEquals(first.getSpanContext().getSpanId(), links.get(0).getSpanContext().getSpanId());
    assertEquals(1L, (Long) links.get(0).getAttributes().get(AttributeKey.longKey("almanac.linked_attempt")));
    assertEquals(Boolean.FALSE, children(first).get(0).getAttributes().get(AttributeKey.booleanKey("almanac.step.replayed")));
    SpanData replayed = children(retry).get(0);
    assertEquals("almanac.step fetch", replayed.getName());
    assertEquals(Boolean.TRUE, replayed.getAttributes().get(AttributeKey.booleanKey("almanac.step.replayed")));
    assertEquals(1L, (Long) replayed.getAttributes().get(AttributeKey.longKey("almanac.step.recorded_by_attempt")));
  }

  @Test
  @DisplayName("a context that keeps no trace gives Context.root(); the no-op OpenTelemetry traces nothing")
  void untracedDefaults() {
    JobContext plain = new JobContext() {
      public String taskId() { return "t"; }
      public WindowKey window() { return WindowKey.of("w"); }
      public Instant windowStart() { return WINDOW; }
      public Instant windowEnd() { return WINDOW; }
      public Instant scheduledAt() { return WINDOW; }
      public java.time.ZoneId zone() { return java.time.ZoneOffset.UTC; }
      public int attempt() { return 1; }
      public RunKind runKind() { return RunKind.FIRST; }
      public String idempotencyKey() { return "t/w"; }
      public Instant deadline() { return WINDOW; }
      public CompletionStage<Instant> heartbeat() { return CompletableFuture.completedFuture(WINDOW); }
      public boolean isCancelled() { return false; }
      public boolean holdsLease() { return true; }
      public CompletionStage<Void> cancellation() { return new CompletableFuture<>(); }
      public EffectLedger ledger() { return null; }
      public JobLog log() { return null; }
      public void progress(double fraction, String text) { }
    };
    assertEquals(Context.root(), plain.traceContext());
    assertEquals(io.almanac.internal.trace.AttemptTracing.OFF,
        io.almanac.internal.trace.AttemptTracing.of(io.opentelemetry.api.OpenTelemetry.noop()));
    assertTrue(io.almanac.internal.trace.AttemptTracing.of(otel).on());
  }

  // ---- helpers

  private InstanceStatus status(String task) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals("2026-11-29"))
        .map(WindowView::status).findFirst().orElse(null);
  }

  private List<SpanData> attempts() {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().startsWith("almanac.attempt ")).toList();
  }

  private SpanData attempt(String task, long number) {
    return attempts().stream().filter(s -> task.equals(attr(s, "almanac.task"))
            && Long.valueOf(number).equals(s.getAttributes().get(AttributeKey.longKey("almanac.attempt"))))
        .findFirst().orElseThrow(() -> new AssertionError("no span of attempt " + number + " of " + task + ": " + attempts()));
  }

  private List<SpanData> children(SpanData parent) {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getParentSpanContext().getSpanId().equals(parent.getSpanContext().getSpanId())
            && s.getTraceId().equals(parent.getTraceId()))
        .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos)).toList();
  }

  private static String attr(SpanData s, String key) {
    return s.getAttributes().get(AttributeKey.stringKey(key));
  }

  /** The span and its descendants, one per line, with their attributes (no times or ids: it reads the same each run). */
  private String tree(SpanData root) {
    StringBuilder out = new StringBuilder();
    line(out, root, "", "");
    return out.toString();
  }

  private void line(StringBuilder out, SpanData s, String lead, String childLead) {
    Map<String, String> attrs = new TreeMap<>();
    s.getAttributes().forEach((k, v) -> attrs.put(k.getKey(), String.valueOf(v)));
    out.append(lead).append(s.getName()).append(" (").append(s.getKind())
        .append(s.getStatus().getStatusCode() == StatusCode.UNSET ? "" : ", " + s.getStatus().getStatusCode()).append(")");
    if (!attrs.isEmpty()) {
      out.append(' ').append(attrs.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(" ")));
    }
    out.append('\n');
    List<SpanData> kids = new ArrayList<>(children(s));
    for (int i = 0; i < kids.size(); i++) {
      boolean last = i == kids.size() - 1;
      line(out, kids.get(i), childLead + (last ? "└─ " : "├─ "), childLead + (last ? "   " : "│  "));
    }
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(20), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }
}
