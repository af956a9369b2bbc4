package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The node's meters, read from a SimpleMeterRegistry given to the builder, on a one-node cluster
 * with the in-memory journal and a SettableClock (as {@link AlmanacNodeTest}).
 */
@ExtendWith(LogCapturingExtension.class)
class NodeMetersTest {

  private static final Instant DAY1 = Instant.parse("2026-11-29T00:00:00Z"); // 08:00 Asia/Shanghai
  private static final Instant DAY2 = Instant.parse("2026-11-30T00:00:00Z");

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

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

  /** The sum over every series of the counter that has these tags (the task's among them, or all tasks'). */
  private double counter(String name, String... tags) {
    return registry.find(name).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
  }

  private long timerCount(String name, String... tags) {
    return registry.find(name).tags(tags).timers().stream().mapToLong(Timer::count).sum();
  }

  private double gauge(String name, String... tags) {
    return registry.get(name).tags(tags).gauge().value();
  }

  @Test
  @DisplayName("a task that succeeds, one that fails finally and one that fails after a retry: decisions by kind, "
      + "attempts by outcome, job durations per task, the trigger's lag, the intervention queue and a paused skip")
  void succeededAndFinallyFailed() {
    testKit = ActorTestKit.create("meters-test", AlmanacNodeTest.config("almanac.executor.backlog-burst-per-task = 10"));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    AgentJob bad = ctx -> CompletableFuture.completedFuture(JobResult.failure("model returned malformed JSON"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).meterRegistry(registry)
        .job("ok", ok).job("bad", bad).start();
    assertTrue(almanac.meterRegistry().getRegistries().contains(registry), "the given registry is a member of the node's");
    await(almanac.registerAll(List.of(
        TaskSpec.builder("ok-task").cron("0 0 8 * * ? Asia/Shanghai").job("ok").build(),
        TaskSpec.builder("failing").cron("0 0 8 * * ? Asia/Shanghai").job("bad").build(),
        TaskSpec.builder("flaky").cron("0 0 8 * * ? Asia/Shanghai").job("bad").retry(RetryPolicy.immediate()).maxRetries(1)
            .build())));
    assertEquals(0.0, gauge("almanac.intervention.queue"));
    // registered, nothing fired: the tasks' counters are there at 0 (made on the dispatcher, moments after the
    // registration), and none has succeeded
    eventually(() -> {
      assertEquals(0.0, registry.get("almanac.attempts").tags("task", "failing", "outcome", "failed").counter().count());
      assertEquals(0.0, registry.get("almanac.decisions").tags("task", "ok-task", "decision", "skipped", "reason", "paused")
          .counter().count());
      assertEquals(1.0, gauge("almanac.task.never.succeeded", "task", "ok-task"));
    });

    clock.set(DAY1);
    eventually(() -> {
      assertEquals(1.0, counter("almanac.attempts", "outcome", "succeeded"));
      assertEquals(3.0, counter("almanac.attempts", "outcome", "failed"), "failing once, flaky twice");
      assertEquals(2.0, gauge("almanac.intervention.queue"), "failing and flaky are FINAL_FAILED");
    });
    assertEquals(3.0, counter("almanac.decisions", "kind", "on_time", "decision", "scheduled", "reason", "none"));
    eventually(() -> assertEquals(3.0, counter("almanac.fires", "kind", "on_time", "result", "acknowledged")));
    assertEquals(1.0, counter("almanac.decisions", "kind", "retry", "decision", "scheduled", "reason", "none"));
    assertEquals(3.0, counter("almanac.attempts.started", "kind", "first"));
    assertEquals(1.0, counter("almanac.attempts.started", "kind", "retry"));
    assertEquals(1.0, counter("almanac.retries.scheduled"));
    assertEquals(2.0, counter("almanac.windows.final.failed"));
    assertEquals(1, timerCount("almanac.job.duration", "task", "ok-task"));
    assertEquals(1, timerCount("almanac.job.duration", "task", "failing"));
    assertEquals(2, timerCount("almanac.job.duration", "task", "flaky"));
    assertEquals(3, timerCount("almanac.trigger.lag"), "one per on-time first attempt, none for the retry");
    assertEquals(0.0, counter("almanac.lease.expiries", "cause", "lease_expired"));
    assertEquals(0.0, gauge("almanac.task.never.succeeded", "task", "ok-task"), "its entity says it succeeded");
    assertEquals(1.0, gauge("almanac.task.never.succeeded", "task", "failing"), "its entity says none of its windows did");
    eventually(() -> { // set by the executor as it reports, which may be a moment after the entity records the result
      assertEquals(0.0, gauge("almanac.backlog", "queue", "fresh"));
      assertEquals(0.0, gauge("almanac.executor.running"));
    });

    // the operator resolves one: the queue shrinks; a paused task's window is a skip with its reason
    await(almanac.resolve("failing", WindowKey.of("2026-11-29"), "sent by hand"));
    eventually(() -> assertEquals(1.0, gauge("almanac.intervention.queue")));
    await(almanac.pause("ok-task"));
    clock.set(DAY2);
    eventually(() -> assertEquals(1.0, counter("almanac.decisions", "kind", "on_time", "decision", "skipped",
        "reason", "paused")));
    eventually(() -> assertEquals(3.0, gauge("almanac.intervention.queue"), "failing and flaky failed again on day 2"));
    assertEquals(1.0, counter("almanac.attempts", "outcome", "succeeded"), "ok-task was paused");
  }

  @Test
  @DisplayName("a lease that runs out counts as a lease expiry and a timed-out attempt; a cancelled running attempt as "
      + "cancelled; an operator's run and backfill as manual and backfill decisions")
  void leaseExpiryCancelAndOperatorDecisions() {
    testKit = ActorTestKit.create("meters-lease-test", AlmanacNodeTest.config("almanac.executor.backlog-burst-per-task = 10"));
    AgentJob hangs = ctx -> new CompletableFuture<>(); // never ends: its lease does, or the operator cancels it
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).meterRegistry(registry)
        .job("hangs", hangs).job("ok", ok).start();
    LeasePolicy oneMinute = LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofMinutes(1)).factor(1.5).minSamples(20).build();
    await(almanac.registerAll(List.of(
        TaskSpec.builder("stuck").cron("0 0 8 * * ? Asia/Shanghai").job("hangs").lease(oneMinute).build(),
        TaskSpec.builder("cancelled").cron("0 0 8 * * ? Asia/Shanghai").job("hangs").build(),
        TaskSpec.builder("operated").cron("0 0 8 * * ? Asia/Shanghai").job("ok").build())));
    clock.set(DAY1);
    eventually(() -> assertEquals(2.0, gauge("almanac.executor.running"), "stuck and cancelled run"));
    await(almanac.cancel("cancelled", WindowKey.of("2026-11-29"), "bad input"));
    eventually(() -> assertEquals(1.0, counter("almanac.attempts", "outcome", "cancelled")));
    clock.set(DAY1.plus(Duration.ofMinutes(2)));
    eventually(() -> {
      assertEquals(1.0, counter("almanac.lease.expiries", "cause", "lease_expired"));
      assertEquals(1.0, counter("almanac.attempts", "outcome", "timed_out"));
      assertEquals(1.0, gauge("almanac.intervention.queue"), "stuck is FINAL_FAILED (not retried)");
    });
    assertEquals(0.0, counter("almanac.lease.expiries", "cause", "executor_gone"));
    assertEquals(0, timerCount("almanac.job.duration", "task", "stuck"), "a timed-out attempt has no job duration");

    // operated: day 1 succeeded on time; day 2, paused, is skipped and then run by hand
    await(almanac.pause("operated"));
    clock.set(DAY2);
    eventually(() -> assertEquals(1.0, counter("almanac.decisions", "kind", "on_time", "decision", "skipped",
        "reason", "paused")));
    await(almanac.resume("operated"));
    await(almanac.runNow("operated"));
    eventually(() -> assertEquals(1.0, counter("almanac.decisions", "kind", "manual", "decision", "scheduled",
        "reason", "none")));
    // days 3 and 4 pass while nothing fires them on time: missed as catch-ups (the tasks do not catch up), then
    // backfilled by the operator
    clock.set(Instant.parse("2026-12-02T01:00:00Z"));
    eventually(() -> assertTrue(counter("almanac.decisions", "kind", "catch_up", "decision", "missed",
        "reason", "backfill_not_allowed") >= 2));
    eventually(() -> assertEquals(InstanceStatus.MISSED, await(almanac.windows("operated")).stream()
        .filter(w -> w.window().value().equals("2026-12-02")).findFirst().orElseThrow().status()));
    await(almanac.backfill("operated", DAY2, Instant.parse("2026-12-02T00:00:00Z")));
    eventually(() -> assertEquals(2.0, counter("almanac.decisions", "kind", "backfill", "decision", "scheduled",
        "reason", "none")));
    assertEquals(0.0, counter("almanac.decisions", "kind", "catch_up", "decision", "scheduled", "reason", "none"));
  }

  @Test
  @DisplayName("the backlog gauge counts windows waiting for the executor's only slot; running jobs are a gauge too")
  void backlogGauge() {
    testKit = ActorTestKit.create("meters-backlog-test", AlmanacNodeTest.config(
        "almanac.executor { max-concurrent = 1, prefetch-per-slot = 0 }"));
    CompletableFuture<JobResult> release = new CompletableFuture<>();
    AtomicInteger runs = new AtomicInteger();
    AgentJob held = ctx -> {
      runs.incrementAndGet();
      return release;
    };
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).meterRegistry(registry)
        .job("held", held).job("ok", ok).start();
    await(almanac.register(TaskSpec.builder("holder").cron("0 0 8 * * ? Asia/Shanghai").job("held").build()));
    await(almanac.register(TaskSpec.builder("waiter").cron("0 30 8 * * ? Asia/Shanghai").job("ok").build()));
    clock.set(DAY1);
    eventually(() -> assertEquals(1.0, gauge("almanac.executor.running")));
    clock.set(DAY1.plus(Duration.ofMinutes(30)));
    eventually(() -> assertEquals(1.0, gauge("almanac.backlog", "queue", "fresh"), "waiter waits for the slot"));
    release.complete(JobResult.success("done"));
    eventually(() -> {
      assertEquals(2.0, counter("almanac.attempts", "outcome", "succeeded"));
      assertEquals(0.0, gauge("almanac.backlog", "queue", "fresh"));
      assertEquals(0.0, gauge("almanac.executor.running"));
    });
    assertEquals(1, runs.get());
  }

  @Test
  @DisplayName("without a registry the node owns a composite one; a projection-lag gauge can be registered on it later")
  void defaultRegistryAndProjectionLag() {
    testKit = ActorTestKit.create("meters-default-test", AlmanacNodeTest.config(""));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).start();
    assertNotNull(almanac.meterRegistry());
    assertTrue(almanac.meterRegistry().getRegistries().isEmpty());
    assertSame(almanac.meterRegistry(), io.almanac.internal.meter.NodeMeters.of(testKit.system()).registry(),
        "the journal and a projection find the node's meters through its ActorSystem");
    MeterRegistry later = new SimpleMeterRegistry();
    almanac.meterRegistry().add(later);
    io.almanac.internal.meter.NodeMeters.of(testKit.system()).projectionLag(() -> Duration.ofMillis(1500));
    assertEquals(1.5, later.get("almanac.projection.lag").timeGauge().value(TimeUnit.SECONDS));
    assertEquals(0.0, later.get("almanac.intervention.queue").gauge().value(), "meters made before the member was added");
  }

  @Test
  @DisplayName("the windows gauge counts PENDING windows the executor does not hold yet (a backfill waiting behind a running "
      + "job); a dependency skip is a decision by reason; a released window is not trigger lag; last success and paused "
      + "tasks are gauges; task tags stop at the cap")
  void windowsByStatusDependencySkipsLastSuccessAndTaskCap() {
    testKit = ActorTestKit.create("meters-windows-test", AlmanacNodeTest.config(
        "almanac.executor { max-concurrent = 1, prefetch-per-slot = 0, backlog-burst-per-task = 10 }\nalmanac.metrics.max-task-tags = 3"));
    CompletableFuture<JobResult> exportDone = new CompletableFuture<>();
    CompletableFuture<JobResult> hold = new CompletableFuture<>();
    AgentJob export = ctx -> ctx.window().value().equals("2026-11-29") ? exportDone
        : CompletableFuture.completedFuture(JobResult.failure("upstream database down"));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    AgentJob held = ctx -> hold;
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).meterRegistry(registry)
        .job("export", export).job("ok", ok).job("held", held).start();
    // one by one: a task's tag is given at its first metered write, so the order decides which 3 have one
    await(almanac.register(TaskSpec.builder("export").cron("0 0 0 * * ? UTC").window("daily").job("export").build()));
    await(almanac.register(TaskSpec.builder("report").cron("0 5 0 * * ? UTC").window("daily").job("ok")
        .dependsOn(DependencyTrigger.on("export").waitAtMost(Duration.ofHours(2))).build()));
    await(almanac.register(TaskSpec.builder("third").cron("0 0 12 * * ? UTC").job("ok").build()));
    await(almanac.register(TaskSpec.builder("fourth").cron("0 0 12 * * ? UTC").job("ok").build()));
    // registration writes no entity: a task is hosted from its first write (its series are made at its
    // registration: the registration order gives the tags)
    assertEquals(0.0, gauge("almanac.tasks"), "registered, nothing written yet");
    await(almanac.pause("third"));
    await(almanac.resume("third"));
    assertEquals(1.0, gauge("almanac.tasks"));

    // day 1: the report waits for the export (WAITING), which ends late: the report runs when let go
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(1.0, gauge("almanac.windows", "status", "running")));
    clock.set(Instant.parse("2026-11-29T00:05:01Z"));
    eventually(() -> assertEquals(1.0, gauge("almanac.windows", "status", "waiting")));
    assertEquals(1.0, counter("almanac.decisions", "task", "report", "decision", "waiting"));
    clock.set(Instant.parse("2026-11-29T01:00:00Z"));
    exportDone.complete(JobResult.success("exported"));
    eventually(() -> assertEquals(2.0, counter("almanac.attempts", "outcome", "succeeded")));
    assertEquals(1, timerCount("almanac.trigger.lag"), "the export's start only: the report started when let go, "
        + "55 minutes after its due time, which is not the trigger's lag");
    assertTrue(registry.get("almanac.trigger.lag").timer().max(TimeUnit.SECONDS) < 60);
    double lastSuccess = registry.get("almanac.task.last.success.timestamp").tag("task", "report").gauge().value();
    assertEquals(Instant.parse("2026-11-29T01:00:00Z").getEpochSecond(), lastSuccess, 1.0);

    // day 2: the export fails for good; the report's wait ends as a DEPENDENCY_NOT_MET skip, counted by reason
    clock.set(Instant.parse("2026-11-30T00:00:01Z"));
    eventually(() -> assertEquals(1.0, gauge("almanac.windows", "status", "final_failed")));
    eventually(() -> assertEquals(4.0, gauge("almanac.tasks"), "each has written by now"));
    clock.set(Instant.parse("2026-11-30T00:05:01Z"));
    eventually(() -> assertEquals(1.0, gauge("almanac.windows", "status", "waiting")));
    clock.set(Instant.parse("2026-11-30T02:05:01Z"));
    eventually(() -> assertEquals(1.0, counter("almanac.decisions", "task", "report", "decision", "skipped",
        "reason", "dependency_not_met")));
    assertEquals(0.0, gauge("almanac.windows", "status", "waiting"));
    assertEquals(1.0, gauge("almanac.intervention.queue"));

    // a running job holds the only slot; a backfill of 5 windows of another task stays PENDING in its entity
    await(almanac.register(TaskSpec.builder("holder").cron("0 0 3 * * ? UTC").job("held").build()));
    clock.set(Instant.parse("2026-11-30T03:00:01Z"));
    eventually(() -> assertEquals(1.0, gauge("almanac.executor.running")));
    await(almanac.backfill("third", Instant.parse("2026-11-20T00:00:00Z"), Instant.parse("2026-11-25T00:00:00Z")));
    eventually(() -> assertEquals(5.0, gauge("almanac.windows", "status", "pending"), "the backfill's windows"));
    await(almanac.pause("fourth"));
    eventually(() -> assertEquals(1.0, gauge("almanac.tasks.paused")));
    hold.complete(JobResult.success("done"));
    eventually(() -> assertEquals(0.0, gauge("almanac.windows", "status", "pending")));

    // the cap: export, report and third have their own tag; holder (the fifth task metered) counts as ~other
    assertTrue(registry.find("almanac.attempts").tag("task", "holder").counters().isEmpty());
    eventually(() -> assertEquals(5.0, counter("almanac.attempts", "task", "third", "outcome", "succeeded")));
    assertEquals(1.0, counter("almanac.attempts", "task", io.almanac.internal.meter.TaskTags.OTHER, "outcome", "succeeded"));
    assertTrue(registry.find("jvm.memory.used").gauges().size() > 0, "the JVM's meters are bound");
  }
}
