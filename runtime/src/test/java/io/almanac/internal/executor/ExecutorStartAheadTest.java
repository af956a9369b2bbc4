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
 * a stopped one; while slots are held briefly it admits a bounded prefetch of attempts before a slot
 * is free (at most max-concurrent x {@code prefetch-per-slot}, fewer at the slots' observed pace),
 * never runs more than {@code max-concurrent} jobs, admits nothing ahead while a slot is held long, and lets a started attempt whose lease ends before it got a slot go without running it
 * (its entity's lease timer times it out) (R17, R21, R23). The test plays the task entities with a
 * probe.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutorStartAheadTest {
  private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "almanac.executor.max-concurrent = 2",
      "almanac.executor.prefetch-per-slot = 1",
      "almanac.executor.prefetch-max-job = 1s",
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
    /** Attempts the test answered started (RUNNING in their entity), and jobs a slot ran. */
    final AtomicInteger started = new AtomicInteger();
    final AtomicInteger invoked = new AtomicInteger();

    JobRegistry registry() {
      JobRegistry jobs = new JobRegistry();
      jobs.register("j", ctx -> {
        invoked.incrementAndGet();
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
    return answer(n, n.tasks().receiveMessage());
  }

  private static TaskProtocol.Command answer(Node n, TaskProtocol.Command m) {
    if (m instanceof TaskProtocol.Admitted a) {
      n.jobs().started.incrementAndGet();
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

  /**
   * Runs 32 quick jobs to the end, two at a time, each start taking 10 ms to come back (the clock
   * moves on between the admissions and their answers): the executor has seen full rings of short
   * slot holds (a slot is given back when its job ends, not when its result is acknowledged), of
   * start round trips of 10 ms and of slot takes, both slots busy (2 taken per 10 ms, 2 taken in one
   * job time, the round trip).
   */
  private static void warmUp(Node n) {
    for (int pair = 0; pair < 16; pair++) {
      run(n, "quick-" + (2 * pair));
      run(n, "quick-" + (2 * pair + 1));
      List<TaskProtocol.Admitted> admitted = new java.util.ArrayList<>();
      while (admitted.size() < 2) {
        admitted.add((TaskProtocol.Admitted) n.tasks().expectMessageClass(TaskProtocol.Admitted.class));
      }
      n.clock().set(n.clock().instant().plusMillis(10));
      admitted.forEach(a -> answer(n, a));
      List<TaskProtocol.FinishAttempt> results = new java.util.ArrayList<>();
      while (results.size() < 2) {
        results.add((TaskProtocol.FinishAttempt) n.tasks().expectMessageClass(TaskProtocol.FinishAttempt.class));
      }
      results.forEach(f -> f.replyTo().tell(StatusReply.ack()));
    }
    n.tasks().expectNoMessage(Duration.ofMillis(100));
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
  @DisplayName("R21: while slots are held briefly, a prefetch is admitted before a slot is free; never more than max-concurrent "
      + "jobs run, never more than the prefetch's bound started without a slot")
  void startsAheadWhileJobsRunShort() {
    Node n = node();
    warmUp(n);
    for (int i = 1; i <= 6; i++) {
      run(n, "held-" + i);
    }
    // max-concurrent 2 + prefetch 2 (2 x prefetch-per-slot 1, and 2 taken in one job time): four
    // admissions go out, two jobs run, two attempts wait; the other two windows are not admitted
    // (they stay PENDING in their entities, not RUNNING).
    assertEquals(4, startsFor(n, 4));
    n.tasks().awaitAssert(() -> {
      assertEquals(Set.of("held-1", "held-2"), n.jobs().held.keySet());
      return null;
    });
    n.tasks().expectNoMessage(Duration.ofMillis(300));
    assertStartedWithoutASlotAtMost(n, 2);
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
    assertStartedWithoutASlotAtMost(n, 2);
  }

  /** Attempts answered started (RUNNING in their entity) that no slot has taken yet: at most {@code bound}. */
  private static void assertStartedWithoutASlotAtMost(Node n, int bound) {
    int started = n.jobs().started.get();
    int inSlotOrRan = n.jobs().invoked.get();
    assertTrue(started - inSlotOrRan <= bound, started + " started, " + inSlotOrRan + " in a slot or ran: more than "
        + bound + " wait for a slot");
  }

  @Test
  @DisplayName("R23: nothing is admitted ahead while a job has run longer than prefetch-max-job")
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
    n.clock().set(T0.plusSeconds(2)); // both jobs have now run for over 1 s (prefetch-max-job)
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
  @DisplayName("R21, R23: how many start ahead: none until full rings of jobs and takes or while a job runs long, then what the slots take in "
      + "about one job time (the longer of a slot hold and a start's round trip) at their observed pace, at most "
      + "max-concurrent x prefetch-per-slot")
  void aheadFollowsThePace() {
    Duration second = Duration.ofSeconds(1);
    List<Duration> ms10 = java.util.Collections.nCopies(16, Duration.ofMillis(10));
    List<Duration> none = List.of();
    List<Duration> noTrips = java.util.Collections.nCopies(16, null);
    // 1,000 takes a second: 32 in the last 32 ms
    List<Instant> thousandPerSecond = new java.util.ArrayList<>();
    for (int i = 1; i <= 32; i++) {
      thousandPerSecond.add(T0.minusMillis(i));
    }
    assertEquals(10, JobPace.ahead(16, 4, second, ms10, none, ms10, noTrips, thousandPerSecond, T0),
        "1,000 takes a second x 10 ms holds");
    assertEquals(64, JobPace.ahead(16, 4, second, ms10, none, java.util.Collections.nCopies(16, Duration.ofMillis(500)), noTrips,
        thousandPerSecond, T0), "1,000 takes a second x 500 ms holds = 500, at most 16 x 4");
    List<Duration> ms1 = java.util.Collections.nCopies(16, Duration.ofMillis(1));
    assertEquals(1, JobPace.ahead(8, 4, second, ms1, none, ms1, noTrips, thousandPerSecond, T0),
        "millisecond jobs whose starts come back at once: one");
    List<Duration> trips30 = java.util.Collections.nCopies(16, Duration.ofMillis(30));
    assertEquals(30, JobPace.ahead(8, 4, second, ms1, none, ms1, trips30, thousandPerSecond, T0),
        "a start's round trip of 30 ms is the job time: the slots take 30 meanwhile");
    assertEquals(32, JobPace.ahead(8, 4, second, ms1, none, ms1, java.util.Collections.nCopies(16, Duration.ofMillis(300)),
        thousandPerSecond, T0), "never more than 8 x 4, however slow the journal");
    assertEquals(0, JobPace.ahead(8, 4, second, ms10, List.of(second), ms10, noTrips, thousandPerSecond, T0),
        "a job running 1 s: none ahead");
    assertEquals(32, JobPace.ahead(8, 4, second, ms1, none, java.util.Collections.nCopies(16, Duration.ofSeconds(2)),
        noTrips, thousandPerSecond, T0), "1 ms jobs whose results take 2 s to be written: the prefetch stays (the bound)");
    List<Duration> notFull = new java.util.ArrayList<>(ms10);
    notFull.set(15, null);
    assertEquals(0, JobPace.ahead(8, 4, second, notFull, none, notFull, noTrips, thousandPerSecond, T0),
        "before a full ring of jobs: none ahead");
    assertEquals(0, JobPace.ahead(8, 0, second, ms10, none, ms10, noTrips, thousandPerSecond, T0), "prefetch-per-slot 0: off");
    assertEquals(1, JobPace.ahead(8, 4, second, ms10, none, ms10, noTrips, thousandPerSecond, T0.plusMillis(300)),
        "no take for 300 ms: the pace decays (32 takes in 332 ms x 10 ms)");
  }
}
