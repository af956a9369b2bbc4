package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.task.TaskSettings;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A job slot is given back when the job ends, not when its task acknowledges the result; results
 * not acknowledged are bounded (max-pending-results), and at the bound nothing more is admitted or
 * run. The tasks are played by one probe that answers the results late.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutorPendingResultsTest {
  private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "almanac.executor.max-concurrent = 2",
      "almanac.executor.max-concurrent-per-task = 2",
      "almanac.executor.prefetch-per-slot = 0",
      "almanac.executor.max-pending-results = 3",
      "almanac.executor.ask-timeout = 30s", // a result not answered is not tried again within the test
      "almanac.executor.check-interval = 50ms")).withFallback(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-12-05T00:00:00Z");

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  @DisplayName("max-concurrent 2, results answered late: more than 2 jobs end, never more than 2 at once, "
      + "admission stops at max-pending-results (3)")
  void theSlotIsFreedWhenTheJobEnds() {
    AtomicInteger now = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger ran = new AtomicInteger();
    JobRegistry jobs = new JobRegistry();
    jobs.register("j", ctx -> {
      int at = now.incrementAndGet();
      most.accumulateAndGet(at, Math::max);
      ran.incrementAndGet();
      now.decrementAndGet();
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    });
    TestProbe<TaskProtocol.Command> task = testKit.createTestProbe();
    ActorRef<ExecutorProtocol.Command> executor = testKit.spawn(Executor.create(new SettableClock(T0),
        ExecutorSettings.from(CONFIG), TaskSettings.from(CONFIG).maxReasonLength(), jobs, id -> task.getRef(),
        "pending-executor"));
    for (int i = 1; i <= 6; i++) {
      executor.tell(new ExecutorProtocol.Offer("t" + i, "w" + i, RunKind.FIRST, task.getRef(), false));
    }

    Messages first = receive(task, 2);
    assertEquals(List.of("w1", "w2"), first.admitted(), "two slots: two windows admitted");
    first.startAll();
    // both jobs end; their results are not answered, yet a slot is free: one more is admitted (with 2
    // results pending, one slot is usable: its job's result will make 3, the bound)
    Messages second = receive(task, 3);
    assertEquals(2, second.finished.size(), "the two results reported");
    assertEquals(List.of("w3"), second.admitted());
    second.startAll();
    Messages third = receive(task, 1);
    assertEquals(1, third.finished.size(), "w3 ran while w1's and w2's results were unacknowledged");
    // 3 results pending: the bound; nothing is admitted
    task.expectNoMessage(Duration.ofMillis(500));
    assertEquals(3, ran.get(), "more jobs ended than there are slots, their results unacknowledged");
    assertTrue(most.get() <= 2, "never more than max-concurrent jobs at once: " + most.get());

    // one result acknowledged: one more window is admitted, and runs
    second.finished.get(0).replyTo().tell(StatusReply.ack());
    Messages fourth = receive(task, 1);
    assertEquals(List.of("w4"), fourth.admitted(), "admission goes on below the bound");
    fourth.startAll();
    Messages fifth = receive(task, 1);
    assertEquals("w4", fifth.finished.get(0).window().value());
    assertEquals(4, ran.get());
    assertTrue(most.get() <= 2);
    task.expectNoMessage(Duration.ofMillis(300)); // 3 pending again: w5 and w6 wait
  }

  /** Receives {@code n} messages, sorted into admissions and results. */
  private static Messages receive(TestProbe<TaskProtocol.Command> task, int n) {
    Messages m = new Messages();
    for (int i = 0; i < n; i++) {
      TaskProtocol.Command c = task.receiveMessage(Duration.ofSeconds(5));
      if (c instanceof TaskProtocol.Admitted a) {
        m.admitted.add(a);
      } else if (c instanceof TaskProtocol.FinishAttempt f) {
        m.finished.add(f);
      } else {
        throw new AssertionError("unexpected " + c);
      }
    }
    return m;
  }

  private static final class Messages {
    final List<TaskProtocol.Admitted> admitted = new ArrayList<>();
    final List<TaskProtocol.FinishAttempt> finished = new ArrayList<>();

    List<String> admitted() {
      return admitted.stream().map(a -> a.window().value()).sorted().toList();
    }

    void startAll() {
      for (TaskProtocol.Admitted a : admitted) {
        String w = a.window().value();
        a.replyTo().tell(new ExecutorProtocol.Started("j", "UTC", new TaskProtocol.AttemptGrant("t" + w.substring(1), w,
            1, RunKind.FIRST, T0.plusSeconds(30), T0, T0, T0, Map.of(), List.of(), "pending-executor")));
      }
    }
  }
}
