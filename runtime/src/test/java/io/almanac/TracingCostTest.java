package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.JournalOperation;
import org.apache.pekko.persistence.testkit.ProcessingResult;
import org.apache.pekko.persistence.testkit.ProcessingSuccess$;
import org.apache.pekko.persistence.testkit.WriteEvents;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What tracing costs a fire (docs/tracing.md, principle 10): the same fire of the same task on a
 * node whose OpenTelemetry is the no-op and on one with the SDK. Untraced, nothing the journal holds
 * names a trace; traced, the fire makes the same journal writes and the same messages, and its
 * events differ only by the start's {@code traceparent}.
 */
class TracingCostTest {

  private static final Instant DUE = Instant.parse("2026-11-29T00:00:00Z");
  private static final String TRACEPARENT = ",\"traceparent\":\"00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}\"";

  /** One fire's journal writes (the task's, as JSON, the executor's identity masked) and messages. */
  record Fire(List<List<String>> writes, Map<String, Long> messages, int spans) {}

  @Test
  @DisplayName("tracing off: no trace context in the journal; tracing on: the same journal writes and messages per fire, "
      + "the start carrying its traceparent")
  void tracingAddsNoWriteAndNoMessage() {
    Fire off = fire(OpenTelemetry.noop(), null);
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
        .build();
    Fire on;
    try {
      on = fire(sdk, exporter);
    } finally {
      sdk.close();
    }
    System.out.println("fire untraced: " + off.writes().size() + " writes, messages " + off.messages());
    System.out.println("fire traced: " + on.writes().size() + " writes, messages " + on.messages() + ", " + on.spans()
        + " spans");
    assertFalse(String.valueOf(off.writes()).contains("traceparent"), "untraced: no trace context written");
    assertEquals(2, on.spans(), "traced: the two attempts' spans");
    assertEquals(off.writes().size(), on.writes().size(), "the same journal writes");
    assertEquals(off.messages(), on.messages(), "the same messages");
    long traced = on.writes().stream().flatMap(List::stream)
        .filter(json -> java.util.regex.Pattern.compile(TRACEPARENT).matcher(json).find()).count();
    assertEquals(1, traced, "one event (the start) carries the traceparent: " + on.writes());
    List<List<String>> withoutTrace = on.writes().stream()
        .map(batch -> batch.stream().map(json -> json.replaceAll(TRACEPARENT, "")).toList()).toList();
    assertEquals(off.writes(), withoutTrace, "the events are the same but for the start's traceparent");
  }

  /** The second fire of task "cost" on a fresh node with this OpenTelemetry, from the trigger to its acknowledged result. */
  private Fire fire(OpenTelemetry otel, InMemorySpanExporter exporter) {
    SettableClock clock = new SettableClock(DUE.minusSeconds(60));
    ActorTestKit testKit = ActorTestKit.create("tracing-cost", AlmanacNodeTest.config(""));
    try {
      Serialization serialization = SerializationExtension.get(testKit.system());
      List<List<String>> writes = new CopyOnWriteArrayList<>();
      CountDownLatch first = new CountDownLatch(1);
      CountDownLatch second = new CountDownLatch(2);
      String executorId = "executor-id";
      PersistenceTestKit.create(testKit.system()).withPolicy((String pid, JournalOperation op) -> {
        if (op instanceof WriteEvents w && pid.equals("task|cost")) {
          List<String> batch = new java.util.ArrayList<>();
          for (Object e : w.getBatch()) {
            batch.add(new String(serialization.serialize(e).get(), StandardCharsets.UTF_8)
                .replaceAll("\"executor\":\"[^\"]*\"", "\"executor\":\"" + executorId + "\""));
          }
          writes.add(batch);
          if (w.getBatch().stream().anyMatch(e -> e instanceof io.almanac.journal.TaskJournal.AttemptSucceeded)) {
            first.countDown();
            second.countDown();
          }
        }
        return (ProcessingResult) ProcessingSuccess$.MODULE$;
      });
      FireCostTest.Messages messages = new FireCostTest.Messages();
      Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { }).openTelemetry(otel)
          .job("noop", ctx -> CompletableFuture.completedFuture(JobResult.success("ok")))
          .messageTap(messages::received).start();
      NodeReady.await(almanac);
      // every minute, one window per firing: the first fire wakes the task's entity; the second is counted
      almanac.register(TaskSpec.builder("cost").cron("0 * * * * ? UTC").window("per-firing").job("noop")
          .catchUp(CatchUpPolicy.none()).build()).toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
      clock.set(DUE);
      assertTrue(await(first), "the first fire's result was recorded");
      settle(messages);
      clock.set(DUE.plusSeconds(59));
      settle(messages);
      writes.clear();
      messages.on = true;
      clock.set(DUE.plusSeconds(60));
      assertTrue(await(second), "the counted fire's result was recorded");
      TestProbe<Object> probe = testKit.createTestProbe();
      probe.awaitAssert(Duration.ofSeconds(20), Duration.ofMillis(20), () -> {
        assertTrue(messages.counts.containsKey("executor <- Executor$ReportDone"), "the result acknowledged");
        return null;
      });
      settle(messages);
      messages.on = false;
      Map<String, Long> counted = new TreeMap<>();
      messages.counts.forEach((k, v) -> {
        if (!FireCostTest.Cost.background(k)) {
          counted.put(k, v.get());
        }
      });
      return new Fire(List.copyOf(writes), counted, exporter == null ? 0 : exporter.getFinishedSpanItems().size());
    } finally {
      testKit.shutdownTestKit();
    }
  }

  private static boolean await(CountDownLatch latch) {
    try {
      return latch.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** Until no message but the background ones came for a quiet spell (no clock moves meanwhile), at most 20 s. */
  private static void settle(FireCostTest.Messages messages) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    long last = -1;
    while (messages.seen.get() != last && System.nanoTime() < deadline) {
      last = messages.seen.get();
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
