package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A pool store that does not answer in time (almanac.pool-store.operation-timeout, applied by the
 * executor to each store operation), and one whose admission commits after the executor gave up on
 * it. The node's clock is a SettableClock; the operation timeout is real time (short here).
 */
class PoolStoreTimeoutNodeTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  private final io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
      new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
  private final List<String> ran = new CopyOnWriteArrayList<>();

  @BeforeEach
  void reset() {
    HangingPoolStore.reset();
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private Almanac start() {
    testKit = ActorTestKit.create("pool-timeout-test", AlmanacNodeTest.config("almanac.pool-store { class = "
        + "\"io.almanac.HangingPoolStore\", poll-interval = 50ms, operation-timeout = 200ms }"));
    AgentJob job = ctx -> {
      ran.add(ctx.taskId());
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    };
    return Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { }).meterRegistry(registry).job("j", job)
        .pool(PoolSpec.of("llm", 1)).start();
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

  private InstanceStatus status(Almanac almanac) {
    return await(almanac.windows("a")).stream().filter(w -> w.window().value().equals("2026-11-29")).findFirst()
        .orElseThrow().status();
  }

  private double errors() {
    var c = registry.find("almanac.pool.admissions").tag("outcome", "error").counter();
    return c == null ? 0 : c.count();
  }

  private Almanac hungFirstAcquire() {
    HangingPoolStore.HANG.set(true);
    Almanac almanac = start();
    await(almanac.register(TaskSpec.builder("a").cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> {
      clock.set(clock.instant().plusMillis(100)); // the poll interval passes by the node's clock
      assertTrue(HangingPoolStore.ASKED.get() >= 2, "a store that does not answer is asked again");
    });
    assertTrue(errors() >= 1, "the unanswered acquire counts as a store error");
    assertEquals(InstanceStatus.PENDING, status(almanac));
    assertEquals(List.of(), ran);
    return almanac;
  }

  @Test
  @DisplayName("an acquire the store does not answer within operation-timeout fails: the window stays queued, is asked "
      + "again, and runs once the store answers")
  void unansweredAcquireTimesOut() {
    Almanac almanac = hungFirstAcquire();
    HangingPoolStore.HANG.set(false);
    eventually(() -> {
      clock.set(clock.instant().plusMillis(100));
      assertEquals(InstanceStatus.SUCCEEDED, status(almanac));
    });
    assertEquals(List.of("a"), ran);
  }

  @Test
  @DisplayName("an acquire that commits after the executor gave up on it is given back: the pool's holds return to 0 "
      + "though the window is never asked again")
  void lateAdmissionIsReleased() {
    Almanac almanac = hungFirstAcquire();
    HangingPoolStore.HANG.set(false);
    eventually(() -> {
      clock.set(clock.instant().plusMillis(100));
      assertEquals(InstanceStatus.SUCCEEDED, status(almanac));
    });
    // the executor gives the attempt's hold back once its success is recorded: just after the window reads SUCCEEDED
    eventually(() -> assertEquals(Map.of("llm", 0), await(HangingPoolStore.inner.inUse())));
    HangingPoolStore.commitLate(); // the acquires the executor gave up on commit now
    // each took a hold (counted as it was admitted: the executor may give it back before a look at the count)
    eventually(() -> assertTrue(HangingPoolStore.LATE_ADMITTED.get() >= 1, "the late admission took a hold"));
    eventually(() -> assertEquals(Map.of("llm", 0), await(HangingPoolStore.inner.inUse())));
  }
}
