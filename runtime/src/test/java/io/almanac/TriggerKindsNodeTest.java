package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Event, dependency and condition triggers end to end on an embedded node (R9): the trigger
 * singleton, sharded entities and the executor on the in-memory journal, time from a SettableClock.
 */
@ExtendWith(LogCapturingExtension.class)
class TriggerKindsNodeTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();

  private Almanac start(Map<String, AgentJob> jobs, Map<String, Condition> conditions) {
    testKit = ActorTestKit.create("trigger-kinds", AlmanacNodeTest.config(""));
    Almanac.Builder b = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add);
    jobs.forEach(b::job);
    conditions.forEach(b::condition);
    Almanac almanac = b.start();
    await(almanac.ready());
    return almanac;
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  private WindowView window(Almanac almanac, String task, String key) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no window " + key + " in " + await(almanac.windows(task))));
  }

  private List<Object> journal(String task) {
    return PersistenceTestKit.create(testKit.system()).persistedInStorage(TaskEntity.persistenceId(task).id());
  }

  /** A job that records its runs and answers as the test says. */
  static final class Job implements AgentJob {
    final List<JobContext> runs = new CopyOnWriteArrayList<>();
    volatile Function<JobContext, java.util.concurrent.CompletionStage<JobResult>> behaviour =
        ctx -> CompletableFuture.completedFuture(JobResult.success("ok " + ctx.window()));

    @Override
    public java.util.concurrent.CompletionStage<JobResult> run(JobContext context) {
      runs.add(context);
      return behaviour.apply(context);
    }

    long runsOf(String window) {
      return runs.stream().filter(r -> r.window().value().equals(window)).count();
    }
  }

  @Test
  @DisplayName("R9/R5: a storm of 1,000 events with 200 distinct ids for one window makes one instance; the counts are recorded"
      + " (10,000 / 2,000 through the deciders: TriggerDecidersTest)")
  void eventStormMakesOneInstance() {
    Job job = new Job();
    Almanac almanac = start(Map.of("sync", job), Map.of());
    await(almanac.register(TaskSpec.builder("order-sync").onEvent(EventTrigger.of("order.paid")).zone("UTC")
        .window("hourly").job("sync").build()));
    Map<PublishResult.Outcome, Integer> outcomes = new EnumMap<>(PublishResult.Outcome.class);
    Instant base = Instant.parse("2026-11-28T23:00:00Z");
    for (int i = 0; i < 1_000; i++) {
      PublishResult r = await(almanac.publish("order.paid", "evt-" + (i % 200), base.plusMillis(i * 100L), "order " + i));
      assertEquals(1, r.tasks().size());
      assertEquals("2026-11-28-23", r.tasks().get(0).window().value());
      outcomes.merge(r.tasks().get(0).outcome(), 1, Integer::sum);
    }
    assertEquals(Map.of(PublishResult.Outcome.SCHEDULED, 1, PublishResult.Outcome.COALESCED, 199,
        PublishResult.Outcome.DUPLICATE, 800), outcomes);
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "order-sync", "2026-11-28-23").status()));
    assertEquals(1, await(almanac.windows("order-sync")).size());
    assertEquals(1, job.runsOf("2026-11-28-23"));
    long received = journal("order-sync").stream().filter(e -> e instanceof TaskJournal.EventReceived).count();
    long duplicated = journal("order-sync").stream().filter(e -> e instanceof TaskJournal.EventDuplicated).count();
    assertEquals(200, received);
    assertEquals(800, duplicated);
    assertEquals(new WindowView.Events(200, 800, "evt-0", "evt-199"), window(almanac, "order-sync", "2026-11-28-23").events());
    TaskJournal.EventReceived first = (TaskJournal.EventReceived) journal("order-sync").stream()
        .filter(e -> e instanceof TaskJournal.EventReceived).findFirst().orElseThrow();
    assertEquals("evt-0", first.eventId());
  }

  @Test
  @DisplayName("R9/R33: an unknown event type, an event without an id, and one from the far future are refused; nothing is stored")
  void badEventsAreRefused() {
    Almanac almanac = start(Map.of("sync", new Job()), Map.of());
    await(almanac.register(TaskSpec.builder("order-sync").onEvent(EventTrigger.of("order.paid")).zone("UTC")
        .window("hourly").job("sync").build()));
    int before = journal("order-sync").size();
    CompletionException unknown = assertThrows(CompletionException.class,
        () -> await(almanac.publish("order.refunded", "e1", clock.instant(), null)));
    RefusedException r = assertInstanceOf(RefusedException.class, unknown.getCause());
    assertEquals(RefusedException.Reason.UNKNOWN_EVENT_TYPE, r.reason());
    assertTrue(r.getMessage().startsWith("type 'order.refunded'"), r.getMessage());
    CompletionException noId = assertThrows(CompletionException.class,
        () -> await(almanac.publish("order.paid", " ", clock.instant(), null)));
    assertTrue(noId.getCause().getMessage().startsWith("id ' '"), noId.getCause().getMessage());
    CompletionException future = assertThrows(CompletionException.class,
        () -> await(almanac.publish("order.paid", "e2", clock.instant().plus(Duration.ofDays(2)), null)));
    assertTrue(future.getCause().getMessage().startsWith("eventTime '"), future.getCause().getMessage());
    CompletionException noTime = assertThrows(CompletionException.class,
        () -> await(almanac.publish("order.paid", "e3", null, null)));
    assertTrue(noTime.getCause().getMessage().startsWith("eventTime is missing: "), noTime.getCause().getMessage());
    assertEquals(before, journal("order-sync").size());
    assertTrue(await(almanac.windows("order-sync")).isEmpty());
  }

  @Test
  @DisplayName("R9/R14: an event for a window outside the catch-up horizon is recorded MISSED with its reason")
  void eventOutsideHorizonIsMissed() {
    Almanac almanac = start(Map.of("sync", new Job()), Map.of());
    await(almanac.register(TaskSpec.builder("order-sync").onEvent(EventTrigger.of("order.paid")).zone("UTC")
        .window("hourly").job("sync").build()));
    PublishResult r = await(almanac.publish("order.paid", "old", clock.instant().minus(Duration.ofDays(3)), null));
    assertEquals(PublishResult.Outcome.MISSED, r.tasks().get(0).outcome());
    WindowView w = window(almanac, "order-sync", "2026-11-25-23");
    assertEquals(InstanceStatus.MISSED, w.status());
    assertTrue(w.reason().startsWith("OUTSIDE_HORIZON"), w.reason());
  }

  @Test
  @DisplayName("R9/R33: a cycle of three tasks is refused naming it, and nothing is registered")
  void cycleOfThreeIsRefused() {
    Almanac almanac = start(Map.of("j", new Job()), Map.of());
    List<TaskSpec> cycle = List.of(
        TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").dependsOn(DependencyTrigger.on("c")).build(),
        TaskSpec.builder("b").cron("0 0 0 * * ? UTC").job("j").dependsOn(DependencyTrigger.on("a")).build(),
        TaskSpec.builder("c").cron("0 0 0 * * ? UTC").job("j").dependsOn(DependencyTrigger.on("b")).build());
    CompletionException e = assertThrows(CompletionException.class, () -> await(almanac.registerAll(cycle)));
    InvalidSpecException i = assertInstanceOf(InvalidSpecException.class, e.getCause());
    assertTrue(i.getMessage().contains("dependency.upstream") && i.getMessage().contains("a -> c -> b -> a"), i.getMessage());
    assertTrue(await(almanac.taskIds()).stream().noneMatch(id -> List.of("a", "b", "c").contains(id)), "nothing registered");
    // and closing a cycle through tasks already registered is refused too, leaving them as they were
    await(almanac.registerAll(List.of(
        TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").build(),
        TaskSpec.builder("b").cron("0 0 0 * * ? UTC").job("j").dependsOn(DependencyTrigger.on("a")).build())));
    CompletionException closing = assertThrows(CompletionException.class, () -> await(almanac.register(
        TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").dependsOn(DependencyTrigger.on("b")).build())));
    assertTrue(closing.getCause().getMessage().contains("a -> b -> a"), closing.getCause().getMessage());
    assertEquals(null, await(almanac.task("a")).spec().dependency());
    // a missing upstream is refused unless the dependency waits for it
    CompletionException missing = assertThrows(CompletionException.class, () -> await(almanac.register(
        TaskSpec.builder("d").cron("0 0 0 * * ? UTC").job("j").dependsOn(DependencyTrigger.on("nope")).build())));
    assertTrue(missing.getCause().getMessage().contains("dependency.upstream 'nope'"), missing.getCause().getMessage());
    await(almanac.register(TaskSpec.builder("d").cron("0 0 0 * * ? UTC").job("j")
        .dependsOn(DependencyTrigger.on("nope").missingUpstream(DependencyTrigger.MissingUpstream.WAIT)).build()));
    assertTrue(await(almanac.taskIds()).contains("d"));
  }

  @Test
  @DisplayName("R9/R7: a dependency met late releases B's window; one never met records DEPENDENCY_NOT_MET and alerts; a late upstream success then releases it")
  void dependencyMetLateAndNeverMet() {
    Job export = new Job();
    Job report = new Job();
    CompletableFuture<JobResult> exportDone = new CompletableFuture<>();
    export.behaviour = ctx -> ctx.window().value().equals("2026-11-29") ? exportDone
        : CompletableFuture.completedFuture(JobResult.failure("upstream database down"));
    Almanac almanac = start(Map.of("export", export, "report", report), Map.of());
    await(almanac.registerAll(List.of(
        TaskSpec.builder("export").cron("0 0 0 * * ? UTC").window("daily").job("export").build(),
        TaskSpec.builder("report").cron("0 5 0 * * ? UTC").window("daily").job("report")
            .dependsOn(DependencyTrigger.on("export").waitAtMost(Duration.ofHours(2))).build())));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(InstanceStatus.RUNNING, window(almanac, "export", "2026-11-29").status()));
    clock.set(Instant.parse("2026-11-29T00:05:01Z"));
    eventually(() -> assertEquals(InstanceStatus.WAITING, window(almanac, "report", "2026-11-29").status()));
    assertEquals(Instant.parse("2026-11-29T02:05:00Z"), journal("report").stream()
        .filter(e -> e instanceof TaskJournal.WindowWaiting).map(e -> ((TaskJournal.WindowWaiting) e).waitUntil())
        .findFirst().orElseThrow());
    assertEquals(0, report.runsOf("2026-11-29"));
    clock.set(Instant.parse("2026-11-29T01:00:00Z"));
    exportDone.complete(JobResult.success("exported"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "report", "2026-11-29").status()));
    assertEquals(1, report.runsOf("2026-11-29"));
    assertTrue(journal("report").stream().anyMatch(e -> e instanceof TaskJournal.WaitSatisfied s
        && s.detail().contains("upstream export window 2026-11-29 is SUCCEEDED")), "released with its reason");

    // Next day: the export fails for good (no retries); the report waits until 02:05 and is skipped.
    clock.set(Instant.parse("2026-11-30T00:00:01Z"));
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window(almanac, "export", "2026-11-30").status()));
    clock.set(Instant.parse("2026-11-30T00:05:01Z"));
    eventually(() -> assertEquals(InstanceStatus.WAITING, window(almanac, "report", "2026-11-30").status()));
    clock.set(Instant.parse("2026-11-30T02:05:01Z"));
    eventually(() -> assertEquals(InstanceStatus.SKIPPED, window(almanac, "report", "2026-11-30").status()));
    WindowView skipped = window(almanac, "report", "2026-11-30");
    assertTrue(skipped.reason().startsWith("DEPENDENCY_NOT_MET: upstream export window 2026-11-30 is FINAL_FAILED"),
        skipped.reason());
    eventually(() -> assertTrue(alerts.stream().anyMatch(a -> a.kind() == Alert.Kind.WAIT_EXPIRED
        && "report".equals(a.taskId()) && "2026-11-30".equals(a.window())), alerts.toString()));
    assertEquals(0, report.runsOf("2026-11-30"));

    // An operator retries the export's window; it succeeds and releases the report's window late.
    export.behaviour = ctx -> CompletableFuture.completedFuture(JobResult.success("exported on retry"));
    await(almanac.retry("export", WindowKey.of("2026-11-30")));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "report", "2026-11-30").status()));
    assertEquals(1, report.runsOf("2026-11-30"));
  }

  @Test
  @DisplayName("R9: a flapping condition (true/false at alternate polls) fires nothing under a debounce of 3; CONDITION_NOT_MET at the deadline")
  void flappingConditionFiresNothing() {
    Job job = new Job();
    AtomicInteger polls = new AtomicInteger();
    Condition flapping = ctx -> CompletableFuture.completedFuture(polls.incrementAndGet() % 2 == 0);
    Almanac almanac = start(Map.of("j", job), Map.of("flapping", flapping));
    await(almanac.register(TaskSpec.builder("report").cron("0 0 0 * * ? UTC").window("daily").job("j")
        .when(ConditionTrigger.named("flapping").every(Duration.ofSeconds(10)).debounce(3)
            .waitAtMost(Duration.ofMinutes(5))).build()));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(InstanceStatus.WAITING, window(almanac, "report", "2026-11-29").status()));
    for (int step = 1; step <= 20; step++) {
      int seen = polls.get();
      clock.set(Instant.parse("2026-11-29T00:00:01Z").plusSeconds(10L * step));
      eventually(() -> assertTrue(polls.get() > seen, "polled again"));
    }
    assertEquals(InstanceStatus.WAITING, window(almanac, "report", "2026-11-29").status());
    clock.set(Instant.parse("2026-11-29T00:05:01Z"));
    eventually(() -> assertEquals(InstanceStatus.SKIPPED, window(almanac, "report", "2026-11-29").status()));
    assertTrue(window(almanac, "report", "2026-11-29").reason().startsWith("CONDITION_NOT_MET"));
    assertEquals(0, job.runs.size());
  }

  @Test
  @DisplayName("R9: a condition that holds for 3 polls in a row fires its window once")
  void conditionHoldingFiresOnce() {
    Job job = new Job();
    AtomicInteger polls = new AtomicInteger();
    Condition arrives = ctx -> CompletableFuture.completedFuture(polls.incrementAndGet() >= 3);
    Almanac almanac = start(Map.of("j", job), Map.of("data-arrived", arrives));
    await(almanac.register(TaskSpec.builder("report").cron("0 0 8 * * ? Asia/Shanghai").window("daily").job("j")
        .when(ConditionTrigger.named("data-arrived").every(Duration.ofSeconds(10)).debounce(3)
            .waitAtMost(Duration.ofHours(2))).build()));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    for (int step = 1; step <= 8 && job.runs.isEmpty(); step++) {
      int seen = polls.get();
      clock.set(Instant.parse("2026-11-29T00:00:01Z").plusSeconds(10L * step));
      eventually(() -> assertTrue(polls.get() > seen || !job.runs.isEmpty(), "polled again"));
    }
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "report", "2026-11-29").status()));
    assertEquals(1, job.runs.size());
    assertTrue(polls.get() >= 5, "held at polls 3, 4 and 5: " + polls.get());
  }

  @Test
  @DisplayName("R9/principle 8: a predicate that throws is recorded and polled again; another task runs on meanwhile")
  void throwingPredicateIsRecordedAndIsolated() {
    Job job = new Job();
    Job other = new Job();
    AtomicInteger polls = new AtomicInteger();
    Condition flaky = ctx -> {
      if (polls.incrementAndGet() <= 3) {
        throw new IllegalStateException("settlement bucket unreachable");
      }
      return CompletableFuture.completedFuture(true);
    };
    Almanac almanac = start(Map.of("j", job, "other", other), Map.of("flaky", flaky));
    await(almanac.registerAll(List.of(
        TaskSpec.builder("report").cron("0 0 0 * * ? UTC").window("daily").job("j")
            .when(ConditionTrigger.named("flaky").every(Duration.ofSeconds(10))).build(),
        TaskSpec.builder("other").cron("0 0 0 * * ? UTC").window("daily").job("other").build())));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "other", "2026-11-29").status()));
    for (int step = 1; step <= 6 && job.runs.isEmpty(); step++) {
      int seen = polls.get();
      clock.set(Instant.parse("2026-11-29T00:00:01Z").plusSeconds(10L * step));
      eventually(() -> assertTrue(polls.get() > seen || !job.runs.isEmpty(), "polled again"));
    }
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "report", "2026-11-29").status()));
    List<TaskJournal.ConditionCheckFailed> failures = journal("report").stream()
        .filter(e -> e instanceof TaskJournal.ConditionCheckFailed).map(e -> (TaskJournal.ConditionCheckFailed) e).toList();
    assertEquals(1, failures.size(), "one record for a run of the same error: " + failures);
    assertTrue(failures.get(0).error().contains("settlement bucket unreachable"), failures.get(0).error());
  }
}
