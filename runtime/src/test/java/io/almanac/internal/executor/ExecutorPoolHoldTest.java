package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.JobResult;
import io.almanac.PoolSpec;
import io.almanac.RunKind;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.task.TaskSettings;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A pooled attempt runs only in its pool holds: a Started that comes after its window's holds were
 * given back (its entity restarted in between) takes them again before it runs. The test plays the
 * task entities with a probe; the pools' counts are an in-memory store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutorPoolHoldTest {
  private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "almanac.executor.max-concurrent = 4",
      "almanac.executor.check-interval = 50ms")).withFallback(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  private void eventually(Runnable assertion) {
    testKit.createTestProbe().awaitAssert(Duration.ofSeconds(10), Duration.ofMillis(10), () -> {
      assertion.run();
      return null;
    });
  }

  /** An executor of {@code jobs} on the pool store {@code store}, its entities all {@code tasks}. */
  private ActorRef<ExecutorProtocol.Command> spawn(SettableClock clock, JobRegistry jobs, TestProbe<TaskProtocol.Command> tasks,
      InMemoryPoolStore store) {
    PoolSettings settings = new PoolSettings("", Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(5),
        Duration.ofMillis(50));
    return testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG), TaskSettings.from(CONFIG).maxReasonLength(),
        jobs, id -> tasks.getRef(), "test-executor", store, settings, io.almanac.internal.meter.NodeMeters.NONE));
  }

  private static ExecutorProtocol.Started started(TaskProtocol.Admitted a, SettableClock clock) {
    return new ExecutorProtocol.Started("j", "UTC", new TaskProtocol.AttemptGrant(a.window().value(), a.window().value(), 1,
        RunKind.FIRST, clock.instant().plus(Duration.ofMinutes(5)), T0, T0, T0, Map.of(), List.of(), "test-executor"));
  }

  @Test
  @DisplayName("a Started whose holds were given back (its entity restarted) runs only once it holds them again: the "
      + "pool never runs more than max-concurrent")
  void startedWithoutItsHoldWaitsForIt() {
    SettableClock clock = new SettableClock(T0);
    TestProbe<TaskProtocol.Command> tasks = testKit.createTestProbe();
    Map<String, CompletableFuture<JobResult>> held = new ConcurrentHashMap<>();
    JobRegistry jobs = new JobRegistry();
    jobs.registerPool(PoolSpec.of("p", 1));
    jobs.register("j", ctx -> held.computeIfAbsent(ctx.taskId(), k -> new CompletableFuture<>()));
    InMemoryPoolStore store = new InMemoryPoolStore(clock);
    ActorRef<ExecutorProtocol.Command> executor = spawn(clock, jobs, tasks, store);
    executor.tell(new ExecutorProtocol.Offer("a", "a", RunKind.FIRST, tasks.getRef(), false, List.of("p")));
    TaskProtocol.Admitted a = tasks.expectMessageClass(TaskProtocol.Admitted.class);
    assertEquals(Map.of("p", 1), store.inUse().toCompletableFuture().join());
    executor.tell(new ExecutorProtocol.TaskRecovered("a")); // a's entity restarted: its reservation and hold are freed
    executor.tell(new ExecutorProtocol.Offer("b", "b", RunKind.FIRST, tasks.getRef(), false, List.of("p")));
    TaskProtocol.Admitted b = tasks.expectMessageClass(TaskProtocol.Admitted.class);
    assertEquals("b", b.window().value());
    b.replyTo().tell(started(b, clock));
    a.replyTo().tell(started(a, clock)); // the Started of a's earlier incarnation, on its way meanwhile
    TestProbe<ExecutorProtocol.Stats> stats = testKit.createTestProbe();
    executor.tell(new ExecutorProtocol.GetStats(stats.getRef()));
    assertEquals(1, stats.receiveMessage().running(), "a does not run without its hold: b holds the pool's one place");
    assertEquals(Map.of("p", 1), store.inUse().toCompletableFuture().join());
    eventually(() -> assertTrue(held.containsKey("b")));
    assertFalse(held.containsKey("a"));
    held.get("b").complete(JobResult.success("ok"));
    TaskProtocol.FinishAttempt finished = tasks.expectMessageClass(TaskProtocol.FinishAttempt.class);
    assertEquals("b", finished.window().value());
    finished.replyTo().tell(StatusReply.ack());
    eventually(() -> assertTrue(held.containsKey("a"), "a runs once it holds the pool"));
    assertEquals(Map.of("p", 1), store.inUse().toCompletableFuture().join());
    held.get("a").complete(JobResult.success("ok"));
    TaskProtocol.FinishAttempt done = tasks.expectMessageClass(TaskProtocol.FinishAttempt.class);
    done.replyTo().tell(StatusReply.ack());
    eventually(() -> assertEquals(Map.of("p", 0), store.inUse().toCompletableFuture().join()));
  }

  @Test
  @DisplayName("a pool's holds go back when the job ends, not when its result is acknowledged: a pool of 1 runs the next "
      + "window while the first one's result is on its way, never two jobs at once")
  void theHoldGoesBackWhenTheJobEnds() {
    SettableClock clock = new SettableClock(T0);
    TestProbe<TaskProtocol.Command> tasks = testKit.createTestProbe();
    Map<String, CompletableFuture<JobResult>> held = new ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicInteger inPool = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
    JobRegistry jobs = new JobRegistry();
    jobs.registerPool(PoolSpec.of("p", 1));
    jobs.register("j", ctx -> {
      most.accumulateAndGet(inPool.incrementAndGet(), Math::max);
      return held.computeIfAbsent(ctx.taskId(), k -> new CompletableFuture<>())
          .whenComplete((r, e) -> inPool.decrementAndGet());
    });
    InMemoryPoolStore store = new InMemoryPoolStore(clock);
    ActorRef<ExecutorProtocol.Command> executor = spawn(clock, jobs, tasks, store);
    executor.tell(new ExecutorProtocol.Offer("a", "a", RunKind.FIRST, tasks.getRef(), false, List.of("p")));
    TaskProtocol.Admitted a = tasks.expectMessageClass(TaskProtocol.Admitted.class);
    a.replyTo().tell(started(a, clock));
    eventually(() -> assertTrue(held.containsKey("a")));
    executor.tell(new ExecutorProtocol.Offer("b", "b", RunKind.FIRST, tasks.getRef(), false, List.of("p")));
    TaskProtocol.PoolWait wait = tasks.expectMessageClass(TaskProtocol.PoolWait.class); // a holds the pool's one place
    assertEquals("b", wait.window().value());
    held.get("a").complete(JobResult.success("ok"));
    TaskProtocol.FinishAttempt first = null;
    TaskProtocol.Admitted b = null;
    while (first == null || b == null) { // a's result (not acknowledged) and b's admission, in either order
      TaskProtocol.Command m = tasks.receiveMessage(Duration.ofSeconds(5));
      if (m instanceof TaskProtocol.FinishAttempt f) {
        first = f;
      } else if (m instanceof TaskProtocol.Admitted ad) {
        b = ad;
      }
    }
    assertEquals("a", first.window().value());
    assertEquals("b", b.window().value(), "b is admitted while a's result is unacknowledged");
    b.replyTo().tell(started(b, clock));
    eventually(() -> assertTrue(held.containsKey("b"), "b runs while a's result is unacknowledged"));
    assertEquals(Map.of("p", 1), store.inUse().toCompletableFuture().join());
    assertEquals(1, most.get(), "never two jobs of the pool at once");
    first.replyTo().tell(StatusReply.ack());
    held.get("b").complete(JobResult.success("ok"));
    tasks.expectMessageClass(TaskProtocol.FinishAttempt.class).replyTo().tell(StatusReply.ack());
    eventually(() -> assertEquals(Map.of("p", 0), store.inUse().toCompletableFuture().join()));
  }
}
