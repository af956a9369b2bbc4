package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.JournalOperation;
import org.apache.pekko.persistence.testkit.ProcessingPolicy;
import org.apache.pekko.persistence.testkit.ProcessingResult;
import org.apache.pekko.persistence.testkit.ProcessingSuccess$;
import org.apache.pekko.persistence.testkit.StorageFailure;
import org.apache.pekko.persistence.testkit.WriteEvents;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Journal writes that fail at the worst moments, injected with the persistence testkit: the entity
 * restarts with back-off and nothing is lost, doubled, or repeated.
 */
@ExtendWith(LogCapturingExtension.class)
class JournalFaultTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));

  @AfterEach
  void stop() {
    testKit.shutdownTestKit();
  }

  /** Fails, once, the first journal write whose batch holds an event of the given type. */
  static final class FailOnce implements ProcessingPolicy<JournalOperation> {
    private final List<Class<?>> types;
    final AtomicBoolean failed = new AtomicBoolean();

    FailOnce(Class<?>... types) {
      this.types = List.of(types);
    }

    @Override
    public ProcessingResult tryProcess(String persistenceId, JournalOperation op) {
      if (op instanceof WriteEvents w && w.getBatch().stream().anyMatch(e -> types.stream().anyMatch(t -> t.isInstance(unwrap(e))))
          && failed.compareAndSet(false, true)) {
        return new StorageFailure(new RuntimeException("injected: the database went away during this write"));
      }
      return ProcessingSuccess$.MODULE$;
    }

    private static Object unwrap(Object e) {
      return e instanceof org.apache.pekko.persistence.PersistentRepr p ? p.payload() : e;
    }
  }

  private Almanac start(String extra, String jobName, AgentJob job) {
    testKit = ActorTestKit.create("fault-test", AlmanacNodeTest.config(extra));
    return Almanac.builder(testKit.system()).clock(clock).job(jobName, job).start();
  }

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      assertion.run();
      return null;
    });
  }

  private WindowView window(Almanac almanac, String task, String key) {
    return await(almanac.windows(task)).stream().filter(w -> w.window().value().equals(key)).findFirst().orElseThrow();
  }

  @Test
  @DisplayName("R20/R24: the write recording an attempt's start fails: the job does not run; after the restart it runs once")
  void startWriteFails() {
    AtomicInteger runs = new AtomicInteger();
    Almanac almanac = start("almanac.executor.ask-timeout = 2s", "j", ctx -> {
      runs.incrementAndGet();
      return CompletableFuture.completedFuture(JobResult.success("attempt " + ctx.attempt()));
    });
    // a fresh fire's start is written as WindowStarted (schedule and start in one row), a later one as AttemptStarted
    FailOnce policy = new FailOnce(TaskJournal.AttemptStarted.class, TaskJournal.WindowStarted.class);
    PersistenceTestKit.create(testKit.system()).withPolicy(policy);
    await(almanac.register(TaskSpec.builder("t").cron("0 0 8 * * ? Asia/Shanghai").job("j").build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "t", "2026-11-29").status()));
    assertEquals(true, policy.failed.get(), "the fault was injected");
    assertEquals(1, runs.get(), "the job ran once, after its start was recorded");
    assertEquals(1, window(almanac, "t", "2026-11-29").attempt(), "the failed write left no attempt behind");
  }

  @Test
  @DisplayName("R19/R24: the write recording a success fails after the job's ledgered effect: the retry does not repeat the effect")
  void successWriteFailsAfterTheEffect() {
    AtomicInteger pushes = new AtomicInteger();
    List<String> seen = new CopyOnWriteArrayList<>();
    Almanac almanac = start("almanac.executor { ask-timeout = 2s, report-retries = 1 }", "j", ctx ->
        ctx.ledger().once("push:outbox", () -> CompletableFuture.completedFuture("msg-" + pushes.incrementAndGet()))
            .thenApply(id -> {
              seen.add(ctx.attempt() + ":" + id);
              return JobResult.success("pushed " + id + " in attempt " + ctx.attempt());
            }));
    FailOnce policy = new FailOnce(TaskJournal.AttemptSucceeded.class);
    PersistenceTestKit.create(testKit.system()).withPolicy(policy);
    await(almanac.register(TaskSpec.builder("t").cron("0 0 8 * * ? Asia/Shanghai").job("j")
        .retry(RetryPolicy.immediate())
        .lease(LeasePolicy.builder().floor(Duration.ofMinutes(1)).ceiling(Duration.ofMinutes(2)).factor(1.5).minSamples(20).build()).build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(true, policy.failed.get()));
    // The success of attempt 1 was never recorded: the outcome is unknown until the lease ends.
    eventually(() -> assertEquals(InstanceStatus.RUNNING, window(almanac, "t", "2026-11-29").status()));
    clock.set(Instant.parse("2026-11-29T00:02:01Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, window(almanac, "t", "2026-11-29").status()));
    WindowView w = window(almanac, "t", "2026-11-29");
    assertEquals(2, w.attempt());
    assertEquals(1, pushes.get(), "the effect ran once");
    assertEquals(List.of("1:msg-1", "2:msg-1"), seen, "the retry got the recorded message id instead of pushing again");
    assertEquals("msg-1", w.effects().get("push:outbox"));
  }
}
