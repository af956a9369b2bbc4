package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Resource pools end to end on one node (the in-memory pool store): a pool's max-concurrent across
 * tasks, the wait recorded once, a throttled result that pauses the pool and consumes no retry, and
 * an unknown pool refused at registration. Time comes from a SettableClock.
 */
class PoolsNodeTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private final io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
      new io.micrometer.core.instrument.simple.SimpleMeterRegistry();

  private Almanac start(String extraConfig, Map<String, AgentJob> jobs, PoolSpec... pools) {
    testKit = ActorTestKit.create("pools-test", AlmanacNodeTest.config(extraConfig));
    Almanac.Builder b = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { }).meterRegistry(registry);
    jobs.forEach(b::job);
    for (PoolSpec p : pools) {
      b.pool(p);
    }
    return b.start();
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(20), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  /**
   * Moves the clock to {@code at}, when task a's window runs and is throttled for 5 minutes, and waits
   * until a's window is RETRY_WAIT and its executor paused pool llm. The task records the throttled
   * result before the executor pauses the pool (the result goes to the task straight from the job): the
   * clock moves on only once the pause counts from {@code at} (it failed on a loaded machine, the pause
   * counting from the clock's next step).
   */
  private void throttledAt(Almanac almanac, Instant at) {
    org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit.info("executor: pool 'llm' paused for PT5M")
        .expect(testKit.system(), () -> {
          clock.set(at);
          eventually(() -> assertEquals(InstanceStatus.RETRY_WAIT, window(almanac, "a", "2026-11-29").status()));
          return null;
        });
  }

  private WindowView window(Almanac almanac, String task, String key) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no window " + key + " in " + await(almanac.windows(task))));
  }

  private List<TaskJournal.PoolWaited> waits(String task) {
    return PersistenceTestKit.create(testKit.system()).persistedInStorage(TaskJournal.persistenceId(task)).stream()
        .filter(e -> e instanceof TaskJournal.PoolWaited).map(e -> (TaskJournal.PoolWaited) e).toList();
  }

  @Test
  @DisplayName("max-concurrent holds across tasks: the second window waits (recorded once, FULL) until the first ends")
  void poolLimitsAcrossTasks() {
    CompletableFuture<JobResult> first = new CompletableFuture<>();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    List<String> ran = new CopyOnWriteArrayList<>();
    AgentJob job = ctx -> {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      ran.add(ctx.taskId());
      CompletableFuture<JobResult> r = ctx.taskId().equals("a") ? first : CompletableFuture.completedFuture(JobResult.success("ok"));
      return r.whenComplete((x, e) -> running.decrementAndGet());
    };
    Almanac almanac = start("almanac.pool-store.poll-interval = 50ms", Map.of("j", job), PoolSpec.of("llm", 1));
    await(almanac.register(TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    await(almanac.register(TaskSpec.builder("b").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    // b may run and end before this first look, and a then runs too: wait for the first start, not for exactly one
    eventually(() -> assertTrue(!ran.isEmpty()));
    String holder = ran.get(0);
    String other = holder.equals("a") ? "b" : "a";
    if (holder.equals("b")) { // b ran first and ended: a runs and holds the pool now
      eventually(() -> assertEquals(2, ran.size()));
    } else {
      eventually(() -> assertEquals(1, waits("b").size()));
      assertEquals(PoolWaitReason.FULL, waits("b").get(0).reason());
      assertEquals("llm", waits("b").get(0).pool());
      clock.set(Instant.parse("2026-11-29T00:00:05Z")); // polls go on: still one wait recorded
      assertEquals(InstanceStatus.PENDING, window(almanac, "b", "2026-11-29").status());
      assertEquals(1, ran.size());
    }
    first.complete(JobResult.success("done"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "a", "2026-11-29").status()));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "b", "2026-11-29").status()));
    assertEquals(1, most.get(), "never two attempts of the pool at once");
    assertTrue(waits(other).size() <= 1, "a wait is recorded once, not at every poll: " + waits(other));
  }

  @Test
  @DisplayName("a throttled result pauses the pool for D (another task of the pool waits, PAUSED), retries after D, and "
      + "consumes no retry")
  void throttledPausesThePool() {
    AtomicInteger calls = new AtomicInteger();
    List<String> ran = new CopyOnWriteArrayList<>();
    AgentJob job = ctx -> {
      ran.add(ctx.taskId() + "@" + clock.instant());
      if (ctx.taskId().equals("a") && calls.getAndIncrement() == 0) {
        return CompletableFuture.completedFuture(JobResult.throttled(Duration.ofMinutes(5)));
      }
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    };
    Almanac almanac = start("almanac.pool-store.poll-interval = 50ms", Map.of("j", job), PoolSpec.of("llm", 4));
    // task a is not marked for retry (max retries 0): a throttled attempt is retried all the same
    await(almanac.register(TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    await(almanac.register(TaskSpec.builder("b").cron("0 1 0 * * ? UTC").job("j").pools("llm").build()));
    throttledAt(almanac, Instant.parse("2026-11-29T00:00:01Z"));
    WindowView a = window(almanac, "a", "2026-11-29");
    assertEquals(0, a.retries(), "a throttled attempt does not count against the retry cap");
    assertEquals(Instant.parse("2026-11-29T00:05:01Z"), a.retryDueAt());
    clock.set(Instant.parse("2026-11-29T00:01:01Z")); // b is due, but the pool is paused until 00:05:01
    eventually(() -> assertEquals(1, waits("b").size()));
    assertEquals(PoolWaitReason.PAUSED, waits("b").get(0).reason());
    assertEquals(Instant.parse("2026-11-29T00:05:01Z"), waits("b").get(0).until());
    assertEquals(1, ran.size(), ran.toString());
    assertEquals("waiting for pool llm: PAUSED until 2026-11-29T00:05:01Z", window(almanac, "b", "2026-11-29").reason(),
        "the view says what the window waits for");
    eventually(() -> assertEquals(1.0, registry.get("almanac.pool.waiting").tag("pool", "llm").gauge().value()));
    clock.set(Instant.parse("2026-11-29T00:05:02Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "a", "2026-11-29").status()));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "b", "2026-11-29").status()));
    assertEquals(0, window(almanac, "a", "2026-11-29").retries());
    assertEquals(2, window(almanac, "a", "2026-11-29").attempt());
    List<Object> journal = PersistenceTestKit.create(testKit.system()).persistedInStorage(TaskJournal.persistenceId("a"));
    TaskJournal.AttemptFailed throttled = journal.stream().filter(e -> e instanceof TaskJournal.AttemptFailed)
        .map(e -> (TaskJournal.AttemptFailed) e).findFirst().orElseThrow();
    assertTrue(throttled.throttled());
    assertEquals(Duration.ofMinutes(5), throttled.throttledFor());
    assertEquals(1.0, registry.get("almanac.attempts").tag("task", "a").tag("outcome", "throttled").counter().count());
    assertTrue(registry.get("almanac.pool.admissions").tag("pool", "llm").tag("outcome", "admitted").counter().count() >= 3);
    assertTrue(registry.get("almanac.pool.admission.latency").tag("pool", "llm").timer().count() >= 3);
  }

  @Test
  @DisplayName("a reason new to the attempt is recorded: PAUSED until T, then (the pause over) RATE; polls record "
      + "nothing more")
  void changedWaitReasonIsRecordedAgain() {
    AtomicInteger calls = new AtomicInteger();
    AgentJob job = ctx -> CompletableFuture.completedFuture(ctx.taskId().equals("a") && calls.getAndIncrement() == 0
        ? JobResult.throttled(Duration.ofMinutes(5)) : JobResult.success("ok"));
    Almanac almanac = start("almanac.pool-store.poll-interval = 50ms", Map.of("j", job),
        PoolSpec.of("llm", 4).withRate(1, Duration.ofHours(1)));
    await(almanac.register(TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    await(almanac.register(TaskSpec.builder("b").cron("0 1 0 * * ? UTC").job("j").pools("llm").build()));
    throttledAt(almanac, Instant.parse("2026-11-29T00:00:01Z")); // a takes the hour's one token, and is throttled
    clock.set(Instant.parse("2026-11-29T00:01:01Z"));
    eventually(() -> assertEquals(1, waits("b").size()));
    assertEquals(PoolWaitReason.PAUSED, waits("b").get(0).reason());
    clock.set(Instant.parse("2026-11-29T00:05:02Z")); // the pause is over; the rate allows the next start after 01:00:01
    eventually(() -> assertEquals(2, waits("b").size()));
    TaskJournal.PoolWaited rate = waits("b").get(1);
    assertEquals(PoolWaitReason.RATE, rate.reason());
    assertTrue(rate.until().isAfter(clock.instant()), rate.toString());
    assertTrue(window(almanac, "b", "2026-11-29").reason().startsWith("waiting for pool llm: RATE until "),
        window(almanac, "b", "2026-11-29").reason());
    clock.set(Instant.parse("2026-11-29T00:05:30Z")); // polls go on: the same wait is not recorded again
    assertEquals(InstanceStatus.PENDING, window(almanac, "b", "2026-11-29").status());
    assertEquals(2, waits("b").size(), waits("b").toString());
  }

  @Test
  @DisplayName("a flapping pool (RATE and FULL in turn for 60 s of the node's clock): each window's attempt records at "
      + "most one wait per reason, however often the reason flips; then every window runs")
  void flappingPoolRecordsEachReasonOncePerAttempt() {
    FlappingPoolStore.CLOCK.set(clock);
    FlappingPoolStore.REFUSED.clear();
    Instant fire = Instant.parse("2026-11-29T00:00:01Z");
    FlappingPoolStore.FLAP_UNTIL.set(fire.plusSeconds(60));
    List<String> tasks = List.of("a", "b", "c", "d");
    AgentJob job = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    Almanac almanac = start("almanac.pool-store { class = \"io.almanac.FlappingPoolStore\", poll-interval = 50ms }",
        Map.of("j", job), PoolSpec.of("llm", 4));
    for (String t : tasks) {
      await(almanac.register(TaskSpec.builder(t).cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    }
    clock.set(fire);
    // every window offered and waiting (the first refusal blocks the pool for the rest at this frozen instant)
    eventually(() -> assertEquals((double) tasks.size(), registry.get("almanac.pool.waiting").tag("pool", "llm").gauge().value(),
        "windows waiting for llm"));
    for (int s = 1; s <= 60; s++) { // 60 s of the node's clock, a second at a time: the pool is asked again each time
      // The clock moves only once the executor took in every refusal so far: a refusal taken in after the
      // move blocks the pool from the moved clock on (its poll interval, its retry-after), which this
      // frozen clock never passes, and that ask was counted before the move.
      eventually(() -> assertEquals(refusals(), refusalsTakenIn(), "every refusal taken in by the executor"));
      int before = refusals();
      clock.set(fire.plusSeconds(s));
      if (s < 60) {
        eventually(() -> assertTrue(refusals() > before, "asked again after the clock moved"));
      }
    }
    for (String t : tasks) {
      eventually(() -> {
        clock.set(clock.instant().plusMillis(100));
        assertEquals(InstanceStatus.SUCCEEDED, window(almanac, t, "2026-11-29").status());
      });
    }
    int mostRefused = FlappingPoolStore.REFUSED.values().stream().mapToInt(java.util.concurrent.atomic.AtomicInteger::get)
        .max().orElse(0);
    assertTrue(mostRefused >= 10, "the reason flipped many times: " + FlappingPoolStore.REFUSED);
    for (String t : tasks) {
      List<TaskJournal.PoolWaited> w = waits(t);
      long distinct = w.stream().map(TaskJournal.PoolWaited::reason).distinct().count();
      assertEquals(distinct, w.size(), t + ": one wait per reason in the attempt, not one per flip (refused "
          + FlappingPoolStore.REFUSED.get(t + "|2026-11-29") + " times): " + w);
      assertTrue(w.size() <= 2, t + ": " + w);
    }
  }

  private static int refusals() {
    return FlappingPoolStore.REFUSED.values().stream().mapToInt(java.util.concurrent.atomic.AtomicInteger::get).sum();
  }

  /** The refusals the executor took in (it counts an answer when it handles it, before it blocks the pool). */
  private int refusalsTakenIn() {
    return (int) registry.find("almanac.pool.admissions").tag("pool", "llm").counters().stream()
        .filter(c -> !"admitted".equals(c.getId().getTag("outcome"))).mapToDouble(io.micrometer.core.instrument.Counter::count)
        .sum();
  }

  @Test
  @DisplayName("an unknown pool is refused at registration, naming the task, the field and the pool; nothing is stored")
  void unknownPoolRefused() {
    Almanac almanac = start("", Map.of("j", ctx -> CompletableFuture.completedFuture(JobResult.success("ok"))),
        PoolSpec.of("llm", 1));
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> almanac.register(TaskSpec.builder("t").cron("0 0 0 * * ? UTC").job("j").pools("llm", "nope").build()));
    assertTrue(e.getMessage().contains("t") && e.getMessage().contains("pools") && e.getMessage().contains("nope"),
        e.getMessage());
    assertFalse(await(almanac.taskIds()).contains("t"));
  }

  @Test
  @DisplayName("a pool store that fails keeps the window queued (PENDING, no wait recorded), counts the error, and admits "
      + "it once the store answers again")
  void storeFailureKeepsTheWindowQueued() {
    FlakyPoolStore.DOWN.set(true);
    FlakyPoolStore.FAILED.set(0);
    List<String> ran = new CopyOnWriteArrayList<>();
    AgentJob job = ctx -> {
      ran.add(ctx.taskId());
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    };
    Almanac almanac = start("almanac.pool-store { class = \"io.almanac.FlakyPoolStore\", poll-interval = 50ms }",
        Map.of("j", job), PoolSpec.of("llm", 1));
    await(almanac.register(TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> {
      clock.set(clock.instant().plusMillis(100)); // the poll interval passes by the node's clock
      assertTrue(FlakyPoolStore.FAILED.get() >= 3, "asked again and again");
    });
    assertEquals(InstanceStatus.PENDING, window(almanac, "a", "2026-11-29").status());
    assertEquals(List.of(), ran);
    assertEquals(List.of(), waits("a"), "a failed store is not a wait for the pool");
    assertTrue(registry.get("almanac.pool.admissions").tag("outcome", "error").counter().count() >= 3);
    FlakyPoolStore.DOWN.set(false);
    eventually(() -> {
      clock.set(clock.instant().plusMillis(100));
      assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "a", "2026-11-29").status());
    });
    assertEquals(List.of("a"), ran);
  }

  @Test
  @DisplayName("a cancelled job whose thread does not return keeps its pool hold until it returns: another window of "
      + "the pool waits meanwhile")
  void abandonedJobKeepsItsHoldUntilItsThreadReturns() {
    java.util.concurrent.CountDownLatch letGo = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch cancelSeen = new java.util.concurrent.CountDownLatch(1);
    List<String> ran = new CopyOnWriteArrayList<>();
    AgentJob job = ctx -> {
      ran.add(ctx.taskId());
      if (ctx.taskId().equals("a")) {
        ctx.cancellation().thenRun(cancelSeen::countDown);
        while (true) { // ignores interrupts and cancellation until let go
          try {
            letGo.await();
            break;
          } catch (InterruptedException e) {
            // stuck on purpose
          }
        }
      }
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    };
    // the test's clock jumps a minute: holds live an hour between renewals, so none expires by the jump
    Almanac almanac = start("almanac.pool-store.poll-interval = 50ms\nalmanac.pool-store.hold-ttl = 1h",
        Map.of("j", job), PoolSpec.of("llm", 1));
    await(almanac.register(TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(List.of("a"), ran));
    await(almanac.cancel("a", WindowKey.of("2026-11-29"), "operator"));
    eventually(() -> assertEquals(0, cancelSeen.getCount()));
    await(almanac.health()); // a round trip through the executor: the cancel was handled there
    assertEquals(1, await(almanac.pools()).get(0).inUse(), "the stuck job still holds its place in the pool");
    await(almanac.register(TaskSpec.builder("b").cron("0 1 0 * * ? UTC").job("j").pools("llm").build()));
    clock.set(Instant.parse("2026-11-29T00:01:01Z"));
    eventually(() -> assertEquals(1, waits("b").size()));
    assertEquals(PoolWaitReason.FULL, waits("b").get(0).reason());
    assertEquals(List.of("a"), ran);
    letGo.countDown(); // its thread returns: the hold goes, and b runs
    eventually(() -> {
      clock.set(clock.instant().plusMillis(100));
      assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "b", "2026-11-29").status());
    });
    eventually(() -> assertEquals(0, await(almanac.pools()).get(0).inUse()));
  }
}
