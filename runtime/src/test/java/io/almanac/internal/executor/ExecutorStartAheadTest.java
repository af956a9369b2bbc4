package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.JobResult;
import io.almanac.RefusedException;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.internal.node.Node;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.task.TaskSettings;
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
 * The executor as the one admission authority: it admits offered windows only into free slots
 * (reserving each until its entity answers), frees a reservation on a decline, a recovered entity or
 * a stopped one; while jobs run short it admits up to {@code start-ahead} attempts before a slot is
 * free, never runs more than {@code max-concurrent} jobs, admits nothing ahead while a long job
 * runs, and lets a started attempt whose lease ends before it got a slot go without running it
 * (its entity's lease timer times it out) (R17, R21, R23). The test plays the task entities with a
 * probe.
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

  private record Node(ActorRef<ExecutorProtocol.Command> executor, TestProbe<TaskProtocol.Command> tasks, SettableClock clock,
                      Jobs jobs) {}

  private Node node() {
    SettableClock clock = new SettableClock(T0);
    TestProbe<TaskProtocol.Command> tasks = testKit.createTestProbe();
    Jobs jobs = new Jobs();
    ActorRef<ExecutorProtocol.Command> executor = testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG),
        TaskSettings.from(CONFIG).maxReasonLength(), jobs.registry(), id -> tasks.getRef(), "test-executor"));
    return new Node(executor, tasks, clock, jobs);
  }

  /** The probe stands for every task: each window is named after its task, so an admission names both. */
  private static void offer(Node n, String taskId, boolean answerIfQueued) {
    n.executor().tell(new ExecutorProtocol.Offer(taskId, taskId, RunKind.FIRST, n.tasks().getRef(), answerIfQueued));
  }

  private static void run(Node n, String taskId) {
    offer(n, taskId, false);
  }

  /** Answers the next message the executor sends a task: starts an admitted window, acknowledges a result. */
  private static TaskProtocol.Command answer(Node n) {
    TaskProtocol.Command m = n.tasks().receiveMessage();
    if (m instanceof TaskProtocol.Admitted a) {
      a.replyTo().tell(new ExecutorProtocol.Started("j", "UTC", new TaskProtocol.AttemptGrant(a.window().value(), a.window().value(), 1,
          RunKind.FIRST, n.clock().instant().plus(LEASE), T0, T0, T0, Map.of(), List.of(), "test-executor")));
    } else if (m instanceof TaskProtocol.FinishAttempt f) {
      f.replyTo().tell(StatusReply.ack());
    }
    return m;
  }

  private static TaskProtocol.Admitted admitted(Node n, String window) {
    TaskProtocol.Admitted a = (TaskProtocol.Admitted) n.tasks().expectMessageClass(TaskProtocol.Admitted.class);
    assertEquals(window, a.window().value());
    assertEquals("test-executor", a.executorId());
    return a;
  }

  @Test
  @DisplayName("R21: the executor admits offered windows only into free slots; an offer that asks is told it is queued")
  void admitsOnlyFreeSlots() {
    Node n = node();
    offer(n, "fired-1", true);
    offer(n, "fired-2", true);
    offer(n, "fired-3", true);
    TaskProtocol.Admitted a1 = admitted(n, "fired-1");
    TaskProtocol.Admitted a2 = admitted(n, "fired-2");
    assertEquals("fired-3", ((TaskProtocol.Queued) n.tasks().expectMessageClass(TaskProtocol.Queued.class)).window().value());
    offer(n, "fired-1", true); // offered again while admitted: ignored
    n.tasks().expectNoMessage(Duration.ofMillis(200));
    for (TaskProtocol.Admitted a : List.of(a1, a2)) {
      a.replyTo().tell(new ExecutorProtocol.Started("j", "UTC", new TaskProtocol.AttemptGrant(a.window().value(), a.window().value(),
          1, RunKind.FIRST, T0.plus(LEASE), T0, T0, T0, Map.of(), List.of(), "test-executor")));
    }
    n.tasks().awaitAssert(() -> {
      assertEquals(Set.of("fired-1", "fired-2"), n.jobs().held.keySet());
      return null;
    });
    // A job ends: its result is reported and the queued window is admitted into its slot.
    n.jobs().held.get("fired-1").complete(JobResult.success("ok"));
    boolean finished = false;
    boolean admittedThird = false;
    for (int i = 0; i < 2; i++) {
      TaskProtocol.Command m = n.tasks().receiveMessage();
      if (m instanceof TaskProtocol.FinishAttempt f) {
        f.replyTo().tell(StatusReply.ack());
        finished = true;
      }
      admittedThird |= m instanceof TaskProtocol.Admitted a && a.window().value().equals("fired-3");
    }
    assertTrue(finished && admittedThird, "a result and the queued window's admission");
    assertEquals(2, n.jobs().maxRunning.get());
  }

  @Test
  @DisplayName("R21: a declined admission, a recovered entity and a stopped entity each free their reserved slot at once")
  void reservationsAreFreedWithoutATimer() {
    Node n = node();
    offer(n, "a", false);
    offer(n, "b", false);
    admitted(n, "a");
    admitted(n, "b");
    offer(n, "c", false);
    n.tasks().expectNoMessage(Duration.ofMillis(200)); // both slots are reserved
    n.executor().tell(new ExecutorProtocol.Declined("a", "a", RefusedException.Reason.CONFLICT, "no longer PENDING"));
    admitted(n, "c");
    offer(n, "d", false);
    n.tasks().expectNoMessage(Duration.ofMillis(200));
    n.executor().tell(new ExecutorProtocol.TaskRecovered("b")); // b's entity restarted after a failed write
    admitted(n, "d");
    // An entity that stops with a reservation (passivated, rebalanced) frees it through death watch.
    n.executor().tell(new ExecutorProtocol.TaskRecovered("c"));
    TestProbe<TaskProtocol.Command> gone = testKit.createTestProbe();
    n.executor().tell(new ExecutorProtocol.Offer("f", "f", RunKind.FIRST, gone.getRef(), false));
    gone.expectMessageClass(TaskProtocol.Admitted.class);
    offer(n, "g", false);
    n.tasks().expectNoMessage(Duration.ofMillis(200)); // d and f hold both slots
    gone.stop();
    admitted(n, "g");
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
      assertTrue(m instanceof TaskProtocol.Admitted, "expected an admission, got " + m);
      starts++;
    }
    return starts;
  }

  @Test
  @DisplayName("R21: while jobs run short, start-ahead attempts are admitted before a slot is free; never more than max-concurrent jobs run")
  void startsAheadWhileJobsRunShort() {
    Node n = node();
    warmUp(n);
    for (int i = 1; i <= 6; i++) {
      run(n, "held-" + i);
    }
    // max-concurrent 2 + start-ahead 2: four admissions go out, two jobs run, two attempts wait.
    assertEquals(4, startsFor(n, 4));
    n.tasks().awaitAssert(() -> {
      assertEquals(Set.of("held-1", "held-2"), n.jobs().held.keySet());
      return null;
    });
    n.tasks().expectNoMessage(Duration.ofMillis(300));
    // One job ends: its result is reported, a waiting attempt runs at once, and one more is admitted.
    n.jobs().held.get("held-1").complete(JobResult.success("ok"));
    boolean finished = false;
    boolean started = false;
    for (int i = 0; i < 2; i++) {
      TaskProtocol.Command m = answer(n);
      finished |= m instanceof TaskProtocol.FinishAttempt;
      started |= m instanceof TaskProtocol.Admitted;
    }
    assertTrue(finished && started, "a result and one more admission");
    n.tasks().awaitAssert(() -> {
      assertEquals(Set.of("held-1", "held-2", "held-3"), n.jobs().held.keySet());
      return null;
    });
    assertEquals(2, n.jobs().maxRunning.get(), "jobs running at once");
  }

  @Test
  @DisplayName("R23: nothing is admitted ahead while a job has run longer than start-ahead-max-job")
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
    // A slot frees: exactly one admission, the job runs; still nothing ahead.
    n.jobs().held.get("long-1").complete(JobResult.success("ok"));
    int starts = 0;
    for (int i = 0; i < 2; i++) {
      if (answer(n) instanceof TaskProtocol.Admitted) {
        starts++;
      }
    }
    assertEquals(1, starts);
    n.tasks().expectNoMessage(Duration.ofMillis(300));
  }

  @Test
  @DisplayName("R23: past their leases, running jobs are cancelled and waiting attempts are not run; the executor only cancels "
      + "(the entity's lease timer owns the time-out)")
  void cancelsButDoesNotExpire() {
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
    // The two cancelled jobs end and report their failure; nothing else reaches the tasks.
    for (int i = 0; i < 2; i++) {
      TaskProtocol.Command m = answer(n);
      TaskProtocol.FinishAttempt f = org.junit.jupiter.api.Assertions.assertInstanceOf(TaskProtocol.FinishAttempt.class, m);
      assertTrue(f.result().reason().contains("cancelled"), f.result().reason());
    }
    n.tasks().expectNoMessage(Duration.ofMillis(300));
    assertEquals(Set.of("wait-1", "wait-2"), n.jobs().held.keySet(), "a waiting attempt past its lease never ran");
  }

  @Test
  @DisplayName("R21, R23: how many start ahead: none until a full ring of recent jobs ran short, then what the slots work off in "
      + "about start-ahead-max-job at the recent jobs' mean pace, at most start-ahead")
  void aheadFollowsThePace() {
    Duration second = Duration.ofSeconds(1);
    java.util.List<Duration> ms10 = java.util.Collections.nCopies(16, Duration.ofMillis(10));
    java.util.List<Duration> none = java.util.List.of();
    assertEquals(1024, JobPace.ahead(16, 1024, second, ms10, none), "16 slots x 1 s / 10 ms = 1,600, capped");
    assertEquals(800, JobPace.ahead(8, 1024, second, ms10, none), "8 slots x 1 s / 10 ms");
    java.util.List<Duration> ms500 = java.util.Collections.nCopies(16, Duration.ofMillis(500));
    assertEquals(16, JobPace.ahead(8, 1024, second, ms500, none), "8 slots x 1 s / 500 ms");
    java.util.List<Duration> mixed = new java.util.ArrayList<>(ms10);
    mixed.set(3, Duration.ofMillis(330)); // mean (15 x 10 + 330) / 16 = 30 ms: one slow job does not stop the rest
    assertEquals(266, JobPace.ahead(8, 1024, second, mixed, none), "the mean of the recent jobs sets the pace");
    assertEquals(16, JobPace.ahead(8, 1024, second, ms500, java.util.List.of(Duration.ofMillis(500))),
        "a running job counts with its time so far");
    assertEquals(0, JobPace.ahead(8, 1024, second, ms10, java.util.List.of(second)), "a job running 1 s: none ahead");
    java.util.List<Duration> notFull = new java.util.ArrayList<>(ms10);
    notFull.set(15, null);
    assertEquals(0, JobPace.ahead(8, 1024, second, notFull, none), "before a full ring of jobs: none ahead");
    assertEquals(8000, JobPace.ahead(8, 100_000, second, java.util.Collections.nCopies(16, Duration.ZERO), none),
        "a job counts as 1 ms at least");
    assertEquals(0, JobPace.ahead(8, 0, second, ms10, none), "start-ahead 0: off");
  }
}
