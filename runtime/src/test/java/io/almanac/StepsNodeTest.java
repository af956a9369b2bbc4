package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Durable steps end to end on the embedded node (task entity, executor, the job's context, the
 * serialized in-memory journal): a retry gets the steps an earlier attempt recorded without running
 * them, and runs the rest.
 */
@ExtendWith(LogCapturingExtension.class)
class StepsNodeTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));

  /** A draft as a model might answer it: a record read back from its JSON on replay. */
  record Draft(String text, int tokens) {}

  private Almanac start(String extra, AgentJob job) {
    testKit = ActorTestKit.create("steps-test", AlmanacNodeTest.config(extra));
    return Almanac.builder(testKit.system()).clock(clock).job("agent", job).start();
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
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

  private WindowView window(Almanac almanac, String key) {
    return await(almanac.windows("agent")).stream().filter(w -> w.window().value().equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no window " + key));
  }

  private Almanac runOnce(String extra, Function<JobContext, CompletionStage<JobResult>> body, int maxRetries) {
    Almanac almanac = start(extra, body::apply);
    await(almanac.register(TaskSpec.builder("agent").cron("0 0 0 * * ? UTC").job("agent")
        .retry(RetryPolicy.immediate()).maxRetries(maxRetries).build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    return almanac;
  }

  @Test
  @DisplayName("attempt 1 runs step A and fails in step B; attempt 2 gets A's recorded result without running it "
      + "and runs B; A's usage counts once toward the task's budget")
  void retryReplaysRecordedSteps() {
    AtomicInteger gathered = new AtomicInteger();
    AtomicInteger drafted = new AtomicInteger();
    List<String> seen = new CopyOnWriteArrayList<>();
    Usage cost = Usage.of("model-x", 100, 50, new BigDecimal("0.25"));
    Almanac almanac = runOnce("", ctx -> ctx.step("gather", String.class,
            () -> CompletableFuture.completedFuture("facts #" + gathered.incrementAndGet()))
        .thenCompose(facts -> ctx.step("draft", Draft.class, () -> {
          if (drafted.incrementAndGet() == 1) {
            throw new IllegalStateException("model returned malformed JSON");
          }
          return CompletableFuture.completedFuture(new Draft("draft of " + facts, 42));
        }, d -> cost).thenApply(d -> {
          seen.add(ctx.attempt() + ":" + facts + ":" + d.text());
          return JobResult.success(d.text());
        })), 2);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "2026-11-29").status()));
    assertEquals(1, gathered.get(), "the retry did not gather again");
    assertEquals(2, drafted.get(), "the step that threw recorded nothing: the retry ran it again");
    assertEquals(List.of("2:facts #1:draft of facts #1"), seen);
    assertEquals(2, window(almanac, "2026-11-29").attempt());
    DailyUsage usage = await(almanac.usage("agent"));
    assertEquals(0, new BigDecimal("0.25").compareTo(usage.cost()), "the draft's cost counted once: " + usage);
  }

  @Test
  @DisplayName("a step's result over almanac.task.max-step-result-size is refused with StepResultTooLargeException "
      + "naming the step and the size; nothing is recorded, so the retry runs it again")
  void oversizeRefused() {
    AtomicInteger runs = new AtomicInteger();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    Almanac almanac = runOnce("almanac.task.max-step-result-size = 1KiB", ctx -> ctx.step("fetch", String.class,
            () -> CompletableFuture.completedFuture("x".repeat(2000 + runs.incrementAndGet())))
        .handle((v, e) -> {
          errors.add(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
          return JobResult.failure("too big");
        }), 1);
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window(almanac, "2026-11-29").status()));
    assertEquals(2, runs.get(), "nothing recorded: the retry ran the step again");
    StepResultTooLargeException e = assertInstanceOf(StepResultTooLargeException.class, errors.get(0));
    assertEquals("fetch", e.step());
    assertEquals(2003, e.size());
    assertEquals(1024, e.limit());
    assertTrue(e.getMessage().contains("step 'fetch'") && e.getMessage().contains("artifact"), e.getMessage());
  }

  @Test
  @DisplayName("a replayed step whose recorded JSON does not read as the asked type fails with "
      + "StepTypeMismatchException naming the step and both types, not a ClassCastException")
  void typeMismatch() {
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    Almanac almanac = runOnce("", ctx -> {
      if (ctx.attempt() == 1) {
        return ctx.step("draft", String.class, () -> CompletableFuture.completedFuture("plain text"))
            .thenApply(s -> JobResult.failure("fail after the step"));
      }
      return ctx.step("draft", Draft.class, () -> CompletableFuture.completedFuture(new Draft("never", 0)))
          .handle((v, e) -> {
            errors.add(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            return JobResult.success("handled");
          });
    }, 1);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "2026-11-29").status()));
    StepTypeMismatchException e = assertInstanceOf(StepTypeMismatchException.class, errors.get(0));
    assertEquals("draft", e.step());
    assertEquals("java.lang.String", e.recordedType());
    assertEquals(Draft.class.getName(), e.askedType());
    assertTrue(e.getMessage().contains("attempt 1") && e.getMessage().contains(Draft.class.getName()), e.getMessage());
  }

  @Test
  @DisplayName("a step's name is checked: blank and reached twice in one attempt are refused naming the name")
  void namesChecked() {
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    Almanac almanac = runOnce("", ctx -> {
      Function<CompletionStage<String>, CompletionStage<Object>> keep = s -> s.handle((v, e) -> {
        errors.add(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
        return null;
      });
      return keep.apply(ctx.step(" ", String.class, () -> CompletableFuture.completedFuture("a")))
          .thenCompose(x -> ctx.step("same", String.class, () -> CompletableFuture.completedFuture("1")))
          .thenCompose(x -> keep.apply(ctx.step("same", String.class, () -> CompletableFuture.completedFuture("2"))))
          .thenApply(x -> JobResult.success("ok"));
    }, 0);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "2026-11-29").status()));
    assertEquals("step.name", assertInstanceOf(InvalidSpecException.class, errors.get(0)).field());
    InvalidSpecException twice = assertInstanceOf(InvalidSpecException.class, errors.get(1));
    assertTrue(twice.getMessage().contains("already reached step 'same'"), twice.getMessage());
  }

  @Test
  @DisplayName("an operator's retry of a FINAL_FAILED window replays the steps its attempts recorded")
  void operatorRetryReplays() {
    AtomicInteger gathered = new AtomicInteger();
    AtomicInteger published = new AtomicInteger();
    Map<Integer, RunKind> kinds = new java.util.concurrent.ConcurrentHashMap<>();
    Almanac almanac = runOnce("", ctx -> {
      kinds.put(ctx.attempt(), ctx.runKind());
      return ctx.step("gather", Integer.class, () -> CompletableFuture.completedFuture(gathered.incrementAndGet()))
          .thenApply(n -> ctx.runKind() == RunKind.MANUAL && published.incrementAndGet() > 0
              ? JobResult.success("published " + n) : JobResult.failure("downstream down"));
    }, 0);
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window(almanac, "2026-11-29").status()));
    await(almanac.retry("agent", WindowKey.of("2026-11-29")));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "2026-11-29").status()));
    assertEquals(1, gathered.get());
    assertEquals("published 1", window(almanac, "2026-11-29").summary());
  }

  @Test
  @DisplayName("a pooled task's step cost counts toward its pool's day once: recorded by attempt 1, replayed by "
      + "attempt 2, which reports its own cost outside the step")
  void stepCostCountsOnceTowardPools() {
    AtomicInteger drafts = new AtomicInteger();
    AgentJob job = ctx -> ctx.step("draft", String.class,
            () -> CompletableFuture.completedFuture("draft " + drafts.incrementAndGet()),
            d -> Usage.of("model-x", 100, 10, new BigDecimal("0.40")))
        .thenApply(d -> ctx.attempt() == 1 ? JobResult.failure("publish failed")
            : JobResult.success(d).withUsage(Usage.of("model-x", 1, 1, new BigDecimal("0.05"))));
    testKit = ActorTestKit.create("steps-pool-test", AlmanacNodeTest.config("almanac.pool-store.poll-interval = 50ms"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).job("agent", job)
        .pool(PoolSpec.of("openai", 2).withBudgetPerDay(new BigDecimal("10.00"))).start();
    await(almanac.register(TaskSpec.builder("agent").cron("0 0 0 * * ? UTC").job("agent").pools("openai")
        .retry(RetryPolicy.immediate()).maxRetries(1).build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "2026-11-29").status()));
    assertEquals(1, drafts.get());
    eventually(() -> assertEquals(0, new BigDecimal("0.45").compareTo(await(almanac.pools()).get(0).cost()),
        "the step's 0.40 once and the attempt's own 0.05: " + await(almanac.pools()).get(0)));
    assertEquals(0, new BigDecimal("0.45").compareTo(await(almanac.usage("agent")).cost()));
  }

  /** The example of docs/long-jobs/steps.md, with counters, and a draft that fails once. */
  static final class DigestJob implements AgentJob {
    /** What the model answers: the draft and what it cost. */
    public record Draft(String text, long tokensIn, long tokensOut, BigDecimal cost) {}

    final AtomicInteger gathers = new AtomicInteger();
    final AtomicInteger drafts = new AtomicInteger();
    final AtomicInteger publishes = new AtomicInteger();

    @Override
    public CompletionStage<JobResult> run(JobContext ctx) {
      return ctx.step("gather", String[].class, () -> gather(ctx.windowStart()))
          .thenCompose(sources -> ctx.step("draft", Draft.class, () -> draft(sources),
              d -> Usage.of("model-x", d.tokensIn(), d.tokensOut(), d.cost())))
          .thenCompose(d -> ctx.ledger().once("publish", () -> publish(d.text(), ctx.idempotencyKey()))
              .thenApply(id -> JobResult.success("published " + id)));
    }

    private CompletionStage<String[]> gather(Instant since) {
      gathers.incrementAndGet();
      return CompletableFuture.completedFuture(new String[] {"source 1", "source 2"});
    }

    private CompletionStage<Draft> draft(String[] sources) {
      if (drafts.incrementAndGet() == 1) {
        throw new IllegalStateException("model timed out");
      }
      return CompletableFuture.completedFuture(new Draft("digest of " + List.of(sources), 1200, 300, new BigDecimal("0.02")));
    }

    private CompletionStage<String> publish(String text, String idempotencyKey) {
      publishes.incrementAndGet();
      return CompletableFuture.completedFuture("msg-1");
    }
  }

  @Test
  @DisplayName("the example of docs/long-jobs/steps.md: its draft fails once; the retry gathers nothing again, drafts "
      + "once more and publishes once")
  void documentedExample() {
    DigestJob job = new DigestJob();
    testKit = ActorTestKit.create("steps-doc-test", AlmanacNodeTest.config(""));
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).meterRegistry(registry).job("digest", job).start();
    await(almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? UTC").job("digest")
        .retry(RetryPolicy.immediate()).maxRetries(2).build()));
    clock.set(Instant.parse("2026-11-29T08:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, await(almanac.windows("digest")).get(0).status()));
    assertEquals(List.of(1, 2, 1), List.of(job.gathers.get(), job.drafts.get(), job.publishes.get()));
    assertEquals("published msg-1", await(almanac.windows("digest")).get(0).summary());
    eventually(() -> assertEquals(List.of(2.0, 1.0), List.of(
        registry.counter("almanac.steps", "task", "digest", "kind", "recorded").count(),
        registry.counter("almanac.steps", "task", "digest", "kind", "replayed").count())));
  }
}
