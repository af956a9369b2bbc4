package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.almanac.spi.Saturating;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One task's value never stops a node (R33): a node runs a healthy task beside tasks poisoned with
 * the extreme values a job or a spec can give (a throttled wait of 9,999,999,999 s made by the
 * factory, the same wait in a result that got past the factory, the largest deadline); the healthy
 * task keeps firing, the node stays ready, and each poisoned window is set aside with its reason
 * recorded (and an alert for the refused result). Time comes from a SettableClock.
 */
class PoisonIsolationNodeTest {

  /** 9,999,999,999 seconds: past Duration.toNanos (about 292 years) and Pekko's timer wheel (about 248 days). */
  private static final Duration LONG_OVERFLOW = Duration.ofSeconds(9_999_999_999L);

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:30Z"));
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();

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
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  private WindowView window(Almanac almanac, String task, String key) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no window " + key + " in " + await(almanac.windows(task))));
  }

  /** A throttled result as a job that builds it from JSON (a remote worker's answer) gives it: past the factory's bound. */
  static JobResult throttledPastTheBound(Duration wait) throws Exception {
    return new ObjectMapper().findAndRegisterModules().readValue("{\"outcome\":\"THROTTLED\",\"reason\":\"throttled\","
        + "\"retryAfter\":\"" + wait + "\",\"pool\":\"llm\"}", JobResult.class);
  }

  @Test
  @DisplayName("R33: a node with tasks poisoned by a 9,999,999,999 s throttle (refused, and past the factory) and the "
      + "largest deadline: the healthy task keeps firing, the node stays ready, each poisoned window records its reason")
  void poisonedTasksNeverStopTheNode() throws Exception {
    JobResult pastTheBound = throttledPastTheBound(LONG_OVERFLOW);
    AgentJob job = ctx -> switch (ctx.taskId()) {
      case "refused" -> CompletableFuture.completedFuture(JobResult.throttled(LONG_OVERFLOW)); // throws: refused here
      case "past-bound" -> CompletableFuture.completedFuture(pastTheBound);
      default -> CompletableFuture.completedFuture(JobResult.success("ok"));
    };
    testKit = ActorTestKit.create("poison-test", AlmanacNodeTest.config("almanac.pool-store.poll-interval = 50ms"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add).job("j", job)
        .pool(PoolSpec.of("llm", 4)).start();
    await(almanac.register(TaskSpec.builder("healthy").cron("0 * * * * ? UTC").window(WindowSpec.PER_FIRING).job("j").build()));
    await(almanac.register(TaskSpec.builder("refused").cron("0 0 0 * * ? UTC").job("j").build()));
    await(almanac.register(TaskSpec.builder("past-bound").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    // due at 00:01, in the pool the past-bound result paused: the store answers PAUSED for centuries, as after a restart
    await(almanac.register(TaskSpec.builder("waiter").cron("0 1 0 * * ? UTC").job("j").pools("llm").build()));
    await(almanac.register(TaskSpec.builder("far-deadline").cron("0 0 0 * * ? UTC").job("j")
        .deadline(TaskSpec.MAX_DEADLINE).build()));

    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "healthy", "2026-11-29T00:00:00Z").status()));
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, window(almanac, "refused", "2026-11-29").status()));
    WindowView refused = window(almanac, "refused", "2026-11-29");
    assertTrue(refused.reason().contains("retryAfter") && refused.reason().contains("PT2777777H46M39S"),
        "the refusal names the field and the value: " + refused.reason());
    eventually(() -> assertTrue(alerts.stream().anyMatch(a -> a.kind() == Alert.Kind.FINAL_FAILED
        && "refused".equals(a.taskId())), alerts::toString));

    eventually(() -> assertEquals(InstanceStatus.RETRY_WAIT, window(almanac, "past-bound", "2026-11-29").status()));
    WindowView paused = window(almanac, "past-bound", "2026-11-29");
    assertEquals(Instant.parse("2026-11-29T00:00:01Z").plus(LONG_OVERFLOW), paused.retryDueAt(),
        "the throttled wait is kept as given (it fits an instant), never overflowing");
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "far-deadline", "2026-11-29").status()));

    for (int minute = 1; minute <= 3; minute++) { // the healthy task keeps firing, the node stays ready
      clock.set(Instant.parse("2026-11-29T00:00:01Z").plus(Duration.ofMinutes(minute)));
      String key = String.format("2026-11-29T00:%02d:00Z", minute);
      eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "healthy", key).status()));
    }
    eventually(() -> {
      WindowView waiting = window(almanac, "waiter", "2026-11-29");
      assertEquals(InstanceStatus.PENDING, waiting.status());
      assertEquals(PoolWaitReason.PAUSED, waiting.poolWait() == null ? null : waiting.poolWait().reason(), waiting::toString);
    });
    NodeHealth health = await(almanac.health());
    assertTrue(health.ready(), health::toString);
    // every poisoned task still answers: read, pause, remove
    assertEquals("past-bound", await(almanac.task("past-bound")).spec().id());
    await(almanac.pause("far-deadline"));
    await(almanac.remove("refused"));
    assertTrue(await(almanac.health()).ready());
  }

  @Test
  @DisplayName("R33: a stored throttle of Duration's maximum pauses until the end of year 9999, never overflowing")
  void forEverSaturates() throws Exception {
    JobResult forever = throttledPastTheBound(java.time.temporal.ChronoUnit.FOREVER.getDuration());
    AgentJob job = ctx -> CompletableFuture.completedFuture(ctx.taskId().equals("p") ? forever : JobResult.success("ok"));
    testKit = ActorTestKit.create("poison-forever-test", AlmanacNodeTest.config("almanac.pool-store.poll-interval = 50ms"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add).job("j", job)
        .pool(PoolSpec.of("llm", 4)).start();
    await(almanac.register(TaskSpec.builder("p").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    await(almanac.register(TaskSpec.builder("q").cron("0 1 0 * * ? UTC").job("j").build()));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(InstanceStatus.RETRY_WAIT, window(almanac, "p", "2026-11-29").status()));
    assertEquals(Saturating.LATEST, window(almanac, "p", "2026-11-29").retryDueAt());
    clock.set(Instant.parse("2026-11-29T00:01:01Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "q", "2026-11-29").status()));
    assertTrue(await(almanac.health()).ready());
  }
}
