package io.almanac.persistence;

import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.Audit;
import io.almanac.persistence.audit.AuditReader;
import io.almanac.persistence.audit.AuditRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Set;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.RetryPolicy;
import io.almanac.CatchUpPolicy;
import io.almanac.InstanceStatus;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.LeasePolicy;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Whole nodes stopped and started again on the same journal: the journal brings back every
 * window, the trigger's watermark brings back what was due while the node was down. Time comes
 * from a SettableClock shared by the two incarnations. The scenarios run on each database through
 * a subclass that only says where the journal is: {@link NodeRestartTest} (H2) and
 * {@link PostgresNodeRestartTest}.
 */
@ExtendWith(LogCapturingExtension.class)
abstract class NodeRestartScenarios {

  /**
   * The node's configuration: this test's journal, the same for both incarnations of a test and
   * fresh for each test, with the given lines added.
   *
   * @param extra HOCON lines the scenarios need
   * @return the resolved configuration
   */
  protected abstract Config nodeConfig(String extra);

  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private ActorTestKit node;

  /** Records every attempt across node incarnations. */
  static final class RecordingJob implements AgentJob {
    final List<String> runs = new CopyOnWriteArrayList<>();
    final List<Instant> at = new CopyOnWriteArrayList<>();
    final List<RunKind> kinds = new CopyOnWriteArrayList<>();
    volatile Function<JobContext, CompletionStage<JobResult>> behaviour =
        ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    private final SettableClock clock;

    RecordingJob(SettableClock clock) {
      this.clock = clock;
    }

    @Override
    public CompletionStage<JobResult> run(JobContext ctx) {
      runs.add(ctx.window().value());
      at.add(clock.instant());
      kinds.add(ctx.runKind());
      return behaviour.apply(ctx);
    }
  }

  private Almanac startNode(Map<String, AgentJob> jobs) {
    return startNode(jobs, "");
  }

  private Almanac startNode(Map<String, AgentJob> jobs, String extra) {
    Config config = nodeConfig(String.join("\n",
        "include \"almanac-embedded.conf\"",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }", extra));
    node = ActorTestKit.create("restart-test", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    Almanac.Builder b = Almanac.builder(node.system()).clock(clock);
    jobs.forEach(b::job);
    return b.start();
  }

  private void stopNode() {
    node.shutdownTestKit();
    node = null;
  }

  @AfterEach
  void cleanup() {
    if (node != null) {
      stopNode();
    }
  }

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      assertion.run();
      return null;
    });
  }

  private static Map<String, WindowView> byKey(List<WindowView> windows) {
    return windows.stream().collect(Collectors.toMap(w -> w.window().value(), w -> w));
  }

  @Test
  @DisplayName("R1/R24: a restart mid-day neither re-fires the day's window nor shifts the next one")
  void restartMidDayNeitherRefiresNorShifts() {
    RecordingJob job = new RecordingJob(clock);
    TaskSpec digest = TaskSpec.builder("daily-digest").cron("0 0 8 * * ? Asia/Shanghai").job("digest").build();
    Almanac a = startNode(Map.of("digest", job));
    await(a.register(digest));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, byKey(await(a.windows("daily-digest"))).get("2026-11-29").status()));
    clock.set(Instant.parse("2026-11-29T04:00:00Z"));
    List<WindowView> before = await(a.windows("daily-digest"));
    stopNode();

    clock.set(Instant.parse("2026-11-29T12:00:00Z")); // mid-day in Shanghai (20:00)
    Almanac b = startNode(Map.of("digest", job));
    await(b.register(digest)); // what a service does at every start: a no-op for an unchanged spec
    assertEquals(before, await(b.windows("daily-digest")), "every window's state recovered from the journal");
    assertEquals(Instant.parse("2026-11-30T00:00:00Z"), await(b.task("daily-digest")).nextDue(), "not shifted");
    clock.set(Instant.parse("2026-11-29T23:59:59Z"));
    clock.set(Instant.parse("2026-11-30T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, byKey(await(b.windows("daily-digest"))).get("2026-11-30").status()));
    assertEquals(List.of("2026-11-29", "2026-11-30"), job.runs, "no window ran twice");
    assertEquals(List.of(Instant.parse("2026-11-29T00:00:00Z"), Instant.parse("2026-11-30T00:00:00Z")), job.at);
    stopNode();
    auditAfterRestart();
  }

  /**
   * I5 on the journal of a restarted node: the task's and the trigger's journals were written by the
   * node, then by its next incarnation (a new one-node cluster): a succession, so the audit verifies
   * OK with I5 judged on both journals.
   */
  private void auditAfterRestart() {
    Config journal = nodeConfig("");
    try (AuditReader reader = AuditReader.builder(journal).start()) {
      Set<WriterStamp> writers = new LinkedHashSet<>();
      reader.read("daily-digest").events().forEach(e -> writers.add(e.writer()));
      assertEquals(2, writers.size(), "the node and its next incarnation: " + writers);
      assertTrue(writers.stream().allMatch(w -> w != null && w.cluster() != null), writers.toString());
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = Audit.run(journal, AuditRequest.builder().verify(true).timeline(false).grace(Duration.ZERO).build(),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String report = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    assertEquals(Audit.OK, exit, report);
    assertTrue(report.contains("I5 one writer at a time           checked 2 journals ("), report);
    assertTrue(report.contains("OK: I1-I7 hold"), report);
  }

  @Test
  @DisplayName("R12/R14: stopped for 3 days with a 24 h horizon: the window inside it runs, the older ones are MISSED with reason")
  void downForThreeDays() {
    RecordingJob job = new RecordingJob(clock);
    TaskSpec spec = TaskSpec.builder("catch-up").cron("0 0 8 * * ? Asia/Shanghai").job("j")
        .retry(RetryPolicy.immediate()).catchUp(CatchUpPolicy.all().withHorizon(Duration.ofHours(24))).build();
    Almanac a = startNode(Map.of("j", job));
    await(a.register(spec));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, byKey(await(a.windows("catch-up"))).get("2026-11-29").status()));
    stopNode();

    clock.set(Instant.parse("2026-12-02T06:00:00Z")); // windows 11-30, 12-01, 12-02 fell due while down
    Almanac b = startNode(Map.of("j", job));
    eventually(() -> {
      Map<String, WindowView> w = byKey(await(b.windows("catch-up")));
      // the two missed windows are one skip range, listed as its first window (docs/skip-ranges.md)
      assertEquals(InstanceStatus.MISSED, w.get("2026-11-30").status());
      assertTrue(w.get("2026-11-30").reason().startsWith("OUTSIDE_HORIZON"), w.get("2026-11-30").reason());
      assertTrue(w.get("2026-11-30").reason().endsWith("[skip range: 2 windows from 2026-11-30 to 2026-12-01]"),
          w.get("2026-11-30").reason());
      assertFalse(w.containsKey("2026-12-01"), "a window inside a range has no row of its own");
      assertEquals(InstanceStatus.SUCCEEDED, w.get("2026-12-02").status());
      assertEquals(RunKind.BACKFILL, w.get("2026-12-02").runKind());
    });
    assertEquals(List.of("2026-11-29", "2026-12-02"), job.runs);
    assertEquals(List.of(RunKind.FIRST, RunKind.BACKFILL), job.kinds);
  }

  @Test
  @DisplayName("R24/principle 5: an attempt still running when its node stopped past its grace is recorded interrupted and "
      + "resumed at the next start (RESUME, no retry spent), not left RUNNING")
  void runningAttemptOfADeadNodeIsRetried() {
    RecordingJob job = new RecordingJob(clock);
    CompletableFuture<JobResult> never = new CompletableFuture<>();
    job.behaviour = ctx -> ctx.attempt() == 1 ? never : CompletableFuture.completedFuture(JobResult.success("second node"));
    TaskSpec spec = TaskSpec.builder("orphan").cron("0 0 8 * * ? Asia/Shanghai").job("j").retry(RetryPolicy.immediate())
        .lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofHours(2)).factor(1.5).minSamples(20).build()).build();
    Almanac a = startNode(Map.of("j", job), "almanac.executor.shutdown-grace = 1s");
    await(a.register(spec));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, byKey(await(a.windows("orphan"))).get("2026-11-29").status()));
    stopNode();

    clock.set(Instant.parse("2026-11-29T00:01:00Z")); // long before the 2 h lease ends
    Almanac b = startNode(Map.of("j", job));
    eventually(() -> {
      WindowView w = byKey(await(b.windows("orphan"))).get("2026-11-29");
      assertEquals(InstanceStatus.SUCCEEDED, w.status());
      assertEquals(2, w.attempt());
      assertEquals("second node", w.summary());
      assertEquals(0, w.retries());
    });
    assertEquals(List.of(RunKind.FIRST, RunKind.RESUME), job.kinds);
  }

  @Test
  @DisplayName("R24: a node stopped while a job runs waits for its result before the shards stop; nothing is lost or re-run")
  void stoppingNodeDrainsRunningAttempts() {
    RecordingJob job = new RecordingJob(clock);
    job.behaviour = ctx -> {
      try {
        new java.util.concurrent.CountDownLatch(1).await(1, TimeUnit.SECONDS); // a job that takes a second
      } catch (InterruptedException e) {
        return CompletableFuture.completedFuture(JobResult.failure("interrupted"));
      }
      return CompletableFuture.completedFuture(JobResult.success("finished during shutdown"));
    };
    TaskSpec spec = TaskSpec.builder("draining").cron("0 0 8 * * ? Asia/Shanghai").job("j").build();
    Almanac a = startNode(Map.of("j", job));
    await(a.register(spec));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, byKey(await(a.windows("draining"))).get("2026-11-29").status()));
    stopNode(); // coordinated shutdown: the trigger stops firing, the executor drains

    Almanac b = startNode(Map.of("j", job));
    WindowView w = byKey(await(b.windows("draining"))).get("2026-11-29");
    assertEquals(InstanceStatus.SUCCEEDED, w.status(), "the result was recorded before the node stopped");
    assertEquals("finished during shutdown", w.summary());
    assertEquals(1, w.attempt());
    assertEquals(List.of("2026-11-29"), job.runs);
  }

  @Test
  @DisplayName("drain: a running job is told the node is stopping, finishes within shutdown-grace and is recorded "
      + "SUCCEEDED before the shards stop")
  void stoppingNodeTellsRunningJobsAndRecordsThoseThatFinishInTheGrace() {
    RecordingJob job = new RecordingJob(clock);
    java.util.concurrent.atomic.AtomicBoolean sawStopping = new java.util.concurrent.atomic.AtomicBoolean();
    job.behaviour = ctx -> ctx.stopping().thenApply(v -> { // a job that ends when told: a resumable point reached
      sawStopping.set(ctx.isStopping() && !ctx.isCancelled());
      return JobResult.success("stopped at a resumable point");
    });
    TaskSpec spec = TaskSpec.builder("told").cron("0 0 8 * * ? Asia/Shanghai").job("j").build();
    Almanac a = startNode(Map.of("j", job), "almanac.executor.shutdown-grace = 10s");
    await(a.register(spec));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, byKey(await(a.windows("told"))).get("2026-11-29").status()));
    long stop = System.nanoTime();
    stopNode();
    assertTrue(Duration.ofNanos(System.nanoTime() - stop).compareTo(Duration.ofSeconds(9)) < 0,
        "the node did not wait out the grace for a job that ended");
    assertTrue(sawStopping.get(), "the job saw isStopping() (and no cancellation)");

    Almanac b = startNode(Map.of("j", job));
    WindowView w = byKey(await(b.windows("told"))).get("2026-11-29");
    assertEquals(InstanceStatus.SUCCEEDED, w.status());
    assertEquals(1, w.attempt());
  }

  @Test
  @DisplayName("drain: a job still running when shutdown-grace ends is recorded INTERRUPTED (NODE_STOPPED) by the "
      + "stopping node and cancelled; its window is PENDING again as RESUME, no retry spent (a task without retries), "
      + "and runs once more at the next start")
  void jobPastTheGraceIsInterruptedAndResumedWithoutSpendingARetry() {
    RecordingJob job = new RecordingJob(clock);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    job.behaviour = ctx -> {
      if (ctx.runKind() == RunKind.RESUME) {
        try {
          release.await(30, TimeUnit.SECONDS); // held while the test looks at the resumed attempt
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return CompletableFuture.completedFuture(JobResult.success("resumed"));
      }
      try {
        new java.util.concurrent.CountDownLatch(1).await(60, TimeUnit.SECONDS); // longer than the grace
      } catch (InterruptedException e) {
        return CompletableFuture.completedFuture(JobResult.failure("interrupted"));
      }
      return CompletableFuture.completedFuture(JobResult.success("not expected"));
    };
    TaskSpec spec = TaskSpec.builder("long").cron("0 0 8 * * ? Asia/Shanghai").job("j").build(); // no retries
    Almanac a = startNode(Map.of("j", job), "almanac.executor.shutdown-grace = 1s");
    await(a.register(spec));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, byKey(await(a.windows("long"))).get("2026-11-29").status()));
    stopNode();

    Almanac b = startNode(Map.of("j", job));
    try {
      eventually(() -> {
        WindowView w = byKey(await(b.windows("long"))).get("2026-11-29");
        assertEquals(InstanceStatus.RUNNING, w.status());
        assertEquals(2, w.attempt());
      });
      WindowView w = byKey(await(b.windows("long"))).get("2026-11-29");
      assertEquals(RunKind.RESUME, w.runKind());
      assertEquals(0, w.retries(), "no retry spent");
      assertTrue(w.reason() != null && w.reason().startsWith("interrupted (NODE_STOPPED)"), w.reason());
    } finally {
      release.countDown();
    }
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, byKey(await(b.windows("long"))).get("2026-11-29").status()));
    assertEquals(List.of(RunKind.FIRST, RunKind.RESUME), job.kinds);
  }

  @Test
  @DisplayName("R7/R12: after a short stop only the latest due window runs on time; the earlier ones are MISSED with their reason")
  void shortStopFiresOnlyTheLatestWindowOnTime() {
    RecordingJob job = new RecordingJob(clock);
    TaskSpec spec = TaskSpec.builder("minutely").cron("0 * * * * ? UTC").window(io.almanac.WindowSpec.PER_FIRING).job("j").build();
    Almanac a = startNode(Map.of("j", job));
    await(a.register(spec));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED,
        byKey(await(a.windows("minutely"))).get("2026-11-29T00:00:00Z").status()));
    stopNode();

    clock.set(Instant.parse("2026-11-29T00:03:10Z")); // 00:01 and 00:02 were missed; 00:03 is 10 s old
    Almanac b = startNode(Map.of("j", job));
    eventually(() -> {
      Map<String, WindowView> w = byKey(await(b.windows("minutely")));
      // 00:01 and 00:02 are one skip range, listed as its first window (docs/skip-ranges.md)
      assertEquals(InstanceStatus.MISSED, w.get("2026-11-29T00:01:00Z").status());
      String reason = w.get("2026-11-29T00:01:00Z").reason();
      assertTrue(reason.startsWith("BACKFILL_NOT_ALLOWED"), reason);
      assertTrue(reason.endsWith("[skip range: 2 windows from 2026-11-29T00:01:00Z to 2026-11-29T00:02:00Z]"), reason);
      assertFalse(w.containsKey("2026-11-29T00:02:00Z"), "a window inside a range has no row of its own");
      assertEquals(InstanceStatus.SUCCEEDED, w.get("2026-11-29T00:03:00Z").status());
    });
    assertEquals(List.of("2026-11-29T00:00:00Z", "2026-11-29T00:03:00Z"), job.runs);
  }
}
