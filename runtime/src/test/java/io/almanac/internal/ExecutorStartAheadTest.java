package io.almanac.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.JobResult;
import io.almanac.RunKind;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
 * The executor's start-ahead (issue 5's profile: the start round trip idled the job slots): while
 * jobs run short it starts up to {@code start-ahead} attempts before a slot is free, never runs
 * more than {@code max-concurrent} jobs, starts nothing ahead while a long job runs, and drops a
 * started attempt whose lease ends before it got a slot (its entity is told) (R21, R23).
 * The test plays the task entities with a probe.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutorStartAheadTest {
  private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "almanac.executor.max-concurrent = 2",
      "almanac.executor.start-ahead = 2",
      "almanac.executor.start-ahead-max-job = 1s",
      "almanac.executor.backlog-rate = 1000",
      "almanac.executor.backlog-burst = 1000",
      "almanac.executor.check-interval = 50ms")).withFallback(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  /** Jobs of tasks named "quick-*" finish at once; the others wait until the test releases them. */
  private static final class Jobs {
    final Map<String, CompletableFuture<JobResult>> held = new ConcurrentHashMap<>();
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger maxRunning = new AtomicInteger();

    JobRegistry registry() {
      JobRegistry jobs = new JobRegistry();
      jobs.register("j", ctx -> {
        if (ctx.taskId().startsWith("quick-")) {
          return CompletableFuture.completedFuture(JobResult.success("done"));
        }
        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        CompletableFuture<JobResult> f = new CompletableFuture<>();
        held.put(ctx.taskId(), f);
        return f.whenComplete((r, e) -> running.decrementAndGet());
      });
      return jobs;
    }
  }

  private record Node(ActorRef<Executor.Command> executor, TestProbe<TaskProtocol.Command> tasks, SettableClock clock,
                      Jobs jobs, StartGate gate) {}

  private Node node() {
    SettableClock clock = new SettableClock(T0);
    TestProbe<TaskProtocol.Command> tasks = testKit.createTestProbe();
    Jobs jobs = new Jobs();
    StartGate gate = StartGate.closed();
    ActorRef<Executor.Command> executor = testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG),
        TaskSettings.from(CONFIG), jobs.registry(), id -> tasks.getRef(), "test-executor", gate));
    return new Node(executor, tasks, clock, jobs, gate);
  }

  private static Executor.RunStarted started(String taskId) {
    return new Executor.RunStarted(taskId, "j", "UTC", new TaskProtocol.AttemptGrant(taskId, taskId, 1, RunKind.FIRST,
        T0.plus(LEASE), T0, T0, T0, Map.of(), List.of()));
  }

  @Test
  @DisplayName("R21: an attempt its task started with the fire runs without a start round trip; the gate offers only the free slots")
  void runsAttemptsStartedWithTheFire() {
    Node n = node();
    // max-concurrent 2 and no short jobs seen yet: two slots are offered, not more.
    n.tasks().awaitAssert(() -> {
      assertTrue(n.gate().tryTake());
      return null;
    });
    assertTrue(n.gate().tryTake());
    assertTrue(!n.gate().tryTake(), "only max-concurrent slots are offered");
    n.executor().tell(started("fired-1"));
    n.executor().tell(started("fired-2"));
    n.tasks().awaitAssert(() -> {
      assertEquals(Set.of("fired-1", "fired-2"), n.jobs().held.keySet());
      return null;
    });
    n.tasks().expectNoMessage(Duration.ofMillis(200)); // no StartAttempt: the attempts were started by their tasks
    assertTrue(!n.gate().tryTake(), "both slots are busy");
    // A job ends: its result is reported and its slot is offered again.
    n.jobs().held.get("fired-1").complete(JobResult.success("ok"));
    assertTrue(answer(n) instanceof TaskProtocol.FinishAttempt);
    n.tasks().awaitAssert(() -> {
      assertTrue(n.gate().tryTake());
      return null;
    });
    assertEquals(2, n.jobs().maxRunning.get());
  }

  private static void run(Node n, String taskId) {
    // The probe stands for every task: each window is named after its task, so a start names both.
    n.executor().tell(new Executor.Run(taskId, taskId, "j", RunKind.FIRST, "UTC"));
  }

  /** Answers the next message the executor sends a task: grants a start, acknowledges a result. */
  private static TaskProtocol.Command answer(Node n) {
    TaskProtocol.Command m = n.tasks().receiveMessage();
    if (m instanceof TaskProtocol.StartAttempt s) {
      s.replyTo().tell(StatusReply.success(new TaskProtocol.AttemptGrant(s.window().value(), s.window().value(), 1, RunKind.FIRST,
          n.clock().instant().plus(LEASE), T0, T0, T0, Map.of(), List.of())));
    } else if (m instanceof TaskProtocol.FinishAttempt f) {
      f.replyTo().tell(StatusReply.ack());
    } else if (m instanceof TaskProtocol.ExpireLease e) {
      e.replyTo().tell(StatusReply.ack());
    }
    return m;
  }

  /** Runs 16 quick jobs to the end, so the executor has seen a full ring of short jobs. */
  private static void warmUp(Node n) {
    for (int i = 0; i < 16; i++) {
      run(n, "quick-" + i);
    }
    int finished = 0;
    while (finished < 16) {
      if (answer(n) instanceof TaskProtocol.FinishAttempt) {
        finished++;
      }
    }
  }

  private static int startsFor(Node n, int expected) {
    int starts = 0;
    for (int i = 0; i < expected; i++) {
      TaskProtocol.Command m = answer(n);
      assertTrue(m instanceof TaskProtocol.StartAttempt, "expected a start, got " + m);
      starts++;
    }
    return starts;
  }

  @Test
  @DisplayName("R21: while jobs run short, start-ahead attempts are started before a slot is free; never more than max-concurrent jobs run")
  void startsAheadWhileJobsRunShort() {
    Node n = node();
    warmUp(n);
    for (int i = 1; i <= 6; i++) {
      run(n, "held-" + i);
    }
    // max-concurrent 2 + start-ahead 2: four starts go out, two jobs run, two attempts wait.
    assertEquals(4, startsFor(n, 4));
    n.tasks().awaitAssert(() -> {
      assertEquals(Set.of("held-1", "held-2"), n.jobs().held.keySet());
      return null;
    });
    n.tasks().expectNoMessage(Duration.ofMillis(300));
    // One job ends: its result is reported, a waiting attempt runs at once, and one more is started.
    n.jobs().held.get("held-1").complete(JobResult.success("ok"));
    boolean finished = false;
    boolean started = false;
    for (int i = 0; i < 2; i++) {
      TaskProtocol.Command m = answer(n);
      finished |= m instanceof TaskProtocol.FinishAttempt;
      started |= m instanceof TaskProtocol.StartAttempt;
    }
    assertTrue(finished && started, "a result and one more start");
    n.tasks().awaitAssert(() -> {
      assertEquals(Set.of("held-1", "held-2", "held-3"), n.jobs().held.keySet());
      return null;
    });
    assertEquals(2, n.jobs().maxRunning.get(), "jobs running at once");
  }

  @Test
  @DisplayName("R23: nothing is started ahead while a job has run longer than start-ahead-max-job")
  void noStartAheadWithALongJob() {
    Node n = node();
    warmUp(n);
    for (int i = 1; i <= 2; i++) {
      run(n, "long-" + i);
    }
    assertEquals(2, startsFor(n, 2));
    n.tasks().awaitAssert(() -> {
      assertEquals(2, n.jobs().held.size());
      return null;
    });
    n.clock().set(T0.plusSeconds(2)); // both jobs have now run for 2 s > start-ahead-max-job
    for (int i = 3; i <= 4; i++) {
      run(n, "long-" + i);
    }
    n.tasks().expectNoMessage(Duration.ofMillis(300));
    // A slot frees: exactly one start, the job runs; still nothing ahead.
    n.jobs().held.get("long-1").complete(JobResult.success("ok"));
    int starts = 0;
    for (int i = 0; i < 2; i++) {
      if (answer(n) instanceof TaskProtocol.StartAttempt) {
        starts++;
      }
    }
    assertEquals(1, starts);
    n.tasks().expectNoMessage(Duration.ofMillis(300));
  }

  @Test
  @DisplayName("R23: an attempt started ahead whose lease ends before it gets a slot is not run; its task is told to time it out")
  void dropsAWaitingAttemptPastItsLease() {
    Node n = node();
    warmUp(n);
    for (int i = 1; i <= 4; i++) {
      run(n, "wait-" + i);
    }
    assertEquals(4, startsFor(n, 4));
    n.tasks().awaitAssert(() -> {
      assertEquals(Set.of("wait-1", "wait-2"), n.jobs().held.keySet());
      return null;
    });
    n.clock().set(T0.plus(LEASE).plusSeconds(1)); // every lease has ended
    int expired = 0;
    for (int i = 0; i < 4; i++) {
      TaskProtocol.Command m = answer(n);
      assertTrue(m instanceof TaskProtocol.ExpireLease, "expected a lease expiry, got " + m);
      expired++;
    }
    assertEquals(4, expired); // two running jobs cancelled, two waiting attempts dropped
    assertEquals(Set.of("wait-1", "wait-2"), n.jobs().held.keySet(), "a dropped attempt never ran");
  }
}
