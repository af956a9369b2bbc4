package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Concurrent operator actions on one window (R31), end to end on a one-node cluster on the
 * in-memory journal: each action carries the window's version it observed ({@link Expecting}), so
 * at most one takes effect per observed version and no extra attempt runs.
 */
class ConcurrentWindowActionsTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-29T00:30:00Z"));
  private final AtomicInteger attempts = new AtomicInteger();

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private Almanac start() {
    testKit = ActorTestKit.create("concurrent-actions", AlmanacNodeTest.config("almanac.executor { backlog-rate = 1000, "
        + "backlog-burst = 1000, backlog-rate-per-task = 1000, backlog-burst-per-task = 1000 }"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(a -> { }).job("fails", ctx -> {
      attempts.incrementAndGet();
      return CompletableFuture.completedFuture(JobResult.failure("provider down"));
    }).start();
    await(almanac.ready());
    return almanac;
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(60, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(60), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  private static WindowView window(Almanac almanac, WindowKey key) {
    return await(almanac.windows("report")).stream().filter(w -> w.window().equals(key)).findFirst().orElseThrow();
  }

  /** A window that is done or FINAL_FAILED: nothing of the task's own moves it on. */
  private static boolean settled(WindowView w) {
    return w.status().isTerminal() || w.status() == InstanceStatus.FINAL_FAILED;
  }

  @Test
  @DisplayName("R31: 50 concurrent mixed retry/resolve/cancel actions on one window, each carrying the version it "
      + "observed: at most one takes effect per observed version, the others are refused STALE_WINDOW or as the "
      + "window's status refuses them, and no attempt runs beyond the retries that took effect")
  void atMostOnePerObservedVersion() throws Exception {
    Almanac almanac = start();
    await(almanac.register(TaskSpec.builder("report").cron("0 * * * * ? UTC").window(WindowSpec.PER_FIRING)
        .retry(RetryPolicy.none()).job("fails").build()));
    Instant to = Instant.parse("2026-11-29T00:00:00Z");
    await(almanac.pause("report"));
    List<FireDecision> one = await(almanac.backfill("report", to.minus(Duration.ofMinutes(1)), to));
    WindowKey key = one.get(0).window();
    // a CANCELLED window: without the rule, retries and cancels decided on it alternate PENDING and CANCELLED
    await(almanac.cancel("report", key, "wrong range"));
    await(almanac.resume("report"));
    assertEquals(InstanceStatus.CANCELLED, window(almanac, key).status());
    assertEquals(0, attempts.get());

    Map<Long, List<String>> tookEffect = new ConcurrentHashMap<>();
    AtomicInteger retries = new AtomicInteger();
    AtomicInteger stale = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(50);
    try {
      CountDownLatch go = new CountDownLatch(1);
      // each reads the window, then all act at once: the bounce the rule prevents needs actions decided on one state
      java.util.concurrent.CyclicBarrier read = new java.util.concurrent.CyclicBarrier(50);
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        int action = new Random(i).nextInt(3);
        done.add(pool.submit(() -> {
          go.await();
          WindowView seen = window(almanac, key);
          read.await(60, TimeUnit.SECONDS);
          Expecting expecting = Expecting.version(seen.version());
          CompletableFuture<?> call = (switch (action) {
            case 0 -> almanac.as("alice").retry("report", key, "try again", expecting);
            case 1 -> almanac.as("bob").resolve("report", key, "fixed by hand", expecting);
            default -> almanac.as("carol").cancel("report", key, "not needed", expecting);
          }).toCompletableFuture();
          try {
            call.get(60, TimeUnit.SECONDS);
            tookEffect.computeIfAbsent(seen.version(), v -> new java.util.concurrent.CopyOnWriteArrayList<>())
                .add(List.of("retry", "resolve", "cancel").get(action) + " at " + seen.status());
            if (action == 0) {
              retries.incrementAndGet();
            }
          } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c ? c.getCause() : e.getCause();
            if (cause instanceof RefusedException r && r.reason() == RefusedException.Reason.STALE_WINDOW) {
              stale.incrementAndGet();
            } else if (!(cause instanceof RefusedException || cause instanceof IllegalTransitionException)) {
              throw e; // only refusals are expected: no timeout, no failure of the task
            }
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    for (Map.Entry<Long, List<String>> e : tookEffect.entrySet()) {
      assertEquals(1, e.getValue().size(), "observed version " + e.getKey() + ": " + e.getValue());
    }
    assertEquals(1, tookEffect.size(), "all observed one version: " + tookEffect);
    assertTrue(stale.get() > 0, "some were refused as stale");
    eventually(() -> assertTrue(settled(window(almanac, key)), window(almanac, key).status().name()));
    eventually(() -> assertTrue(attempts.get() <= retries.get(),
        attempts.get() + " attempts for " + retries.get() + " retries that took effect"));
    WindowView last = window(almanac, key);
    Thread.sleep(300); // nothing in flight moves the settled window on
    assertEquals(last.version(), window(almanac, key).version());
    assertTrue(attempts.get() <= retries.get(), attempts.get() + " attempts for " + retries.get() + " retries");
  }

  @Test
  @DisplayName("R31: the window actions' commands with an expectation cross the cluster: they round-trip through the "
      + "serializer")
  void actionMessagesRoundTrip() {
    start();
    org.apache.pekko.serialization.Serialization serialization =
        org.apache.pekko.serialization.SerializationExtension.get(testKit.system());
    TestProbe<StatusReply<org.apache.pekko.Done>> probe = testKit.createTestProbe();
    WindowKey key = WindowKey.of("2026-11-29");
    for (Object m : List.of(
        new io.almanac.internal.protocol.TaskProtocol.Retry(key, "alice", "again", Expecting.version(4), probe.getRef()),
        new io.almanac.internal.protocol.TaskProtocol.Resolve(key, "fixed", "bob",
            Expecting.status(InstanceStatus.FINAL_FAILED), probe.getRef()),
        new io.almanac.internal.protocol.TaskProtocol.Cancel(key, "stop", "carol", new Expecting(7L, InstanceStatus.RUNNING),
            probe.getRef()),
        new io.almanac.internal.protocol.TaskProtocol.Cancel(key, "stop", "carol", probe.getRef()))) {
      byte[] bytes = serialization.serialize(m).get();
      org.apache.pekko.serialization.Serializer s = serialization.findSerializerFor(m);
      Object back = serialization.deserialize(bytes, s.identifier(),
          org.apache.pekko.serialization.Serializers.manifestFor(s, m)).get();
      assertEquals(m, back);
    }
  }
}
