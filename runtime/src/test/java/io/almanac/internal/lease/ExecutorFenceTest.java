package io.almanac.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.LeaseLostException;
import io.almanac.RunKind;
import io.almanac.internal.executor.Executor;
import io.almanac.internal.executor.ExecutorSettings;
import io.almanac.internal.executor.JobRegistry;
import io.almanac.internal.meter.NodeMeters;
import io.almanac.internal.node.Node;
import io.almanac.internal.protocol.ExecutorProtocol;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.task.TaskSettings;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.coordination.lease.LeaseSettings;
import org.apache.pekko.coordination.lease.javadsl.Lease;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The executor's two guarantees about jobs that will not stop: a cancelled job gives up its slot at
 * once whatever its thread does (and is counted and alerted as stuck when it does not return), and
 * a node without its lease runs nothing, cancels everything and reports nothing (R23, R24). The
 * lease here is a controllable Pekko {@link Lease}; the JDBC lease itself, a frozen JVM and a real
 * database are in the persistence module's cluster tests. A probe plays the task entities.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExecutorFenceTest {
  private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "almanac.executor.max-concurrent = 4",
      "almanac.executor.max-concurrent-per-task = 1",
      "almanac.executor.prefetch-per-slot = 0",
      "almanac.executor.stuck-after = 10s",
      "almanac.executor.check-interval = 50ms")).withFallback(ConfigFactory.load());
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration MARGIN = Duration.ofSeconds(2);

  private final ActorTestKit testKit = ActorTestKit.create();

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  /** A lease the test holds, loses and answers by hand. */
  static final class TestLease extends Lease {
    final String name;
    volatile boolean valid;
    volatile CompletableFuture<Boolean> nextAnswer = CompletableFuture.completedFuture(true);
    volatile Consumer<Optional<Throwable>> onLost;
    volatile int acquires;
    volatile boolean released;

    TestLease(String name) {
      this.name = name;
    }

    @Override
    public LeaseSettings getSettings() {
      return null;
    }

    @Override
    public CompletionStage<Boolean> acquire() {
      return acquire(x -> { });
    }

    @Override
    public CompletionStage<Boolean> acquire(Consumer<Optional<Throwable>> leaseLostCallback) {
      onLost = leaseLostCallback;
      acquires++;
      return nextAnswer.thenApply(held -> {
        valid = held;
        return held;
      });
    }

    @Override
    public CompletionStage<Boolean> release() {
      released = true;
      valid = false;
      return CompletableFuture.completedFuture(true);
    }

    @Override
    public boolean checkLease() {
      return valid;
    }

    /** Taken over: the lease says so and calls back, as the JDBC lease's heartbeat does. */
    void lose() {
      valid = false;
      onLost.accept(Optional.of(new RuntimeException("taken over")));
    }
  }

  /** A job that blocks until released and, like a hung model call, ignores interrupts and cancellation. */
  static final class Jobs {
    final Map<String, CountDownLatch> release = new ConcurrentHashMap<>();
    final Map<String, JobContext> contexts = new ConcurrentHashMap<>();
    final Map<String, Boolean> interrupted = new ConcurrentHashMap<>();
    /** Tasks named "polite-*" return at the first interrupt. */
    JobRegistry registry() {
      JobRegistry jobs = new JobRegistry();
      jobs.register("j", ctx -> {
        String k = ctx.taskId() + "/" + ctx.attempt();
        contexts.put(k, ctx);
        CountDownLatch latch = release.computeIfAbsent(k, x -> new CountDownLatch(1));
        while (true) {
          try {
            latch.await();
            return CompletableFuture.completedFuture(JobResult.success("released"));
          } catch (InterruptedException e) {
            interrupted.put(k, true);
            if (ctx.taskId().startsWith("polite-")) {
              return CompletableFuture.completedFuture(JobResult.failure("interrupted"));
            }
          }
        }
      });
      return jobs;
    }

    void free(String taskId, int attempt) {
      release.computeIfAbsent(taskId + "/" + attempt, x -> new CountDownLatch(1)).countDown();
    }
  }

  private record Node(ActorRef<ExecutorProtocol.Command> executor, TestProbe<TaskProtocol.Command> tasks, SettableClock clock,
      Jobs jobs, Map<String, TestLease> leases, List<Alert> alerts, AtomicLong nanos) {
    TestLease lease(String suffix) {
      return leases.get(ExecutorFence.leaseName("test", "node-1" + suffix));
    }

    ExecutorProtocol.Stats stats(ActorTestKit kit) {
      TestProbe<ExecutorProtocol.Stats> p = kit.createTestProbe();
      executor.tell(new ExecutorProtocol.GetStats(p.getRef()));
      return p.receiveMessage();
    }
  }

  private Node node(boolean fenced) {
    SettableClock clock = new SettableClock(T0);
    TestProbe<TaskProtocol.Command> tasks = testKit.createTestProbe();
    Jobs jobs = new Jobs();
    Map<String, TestLease> leases = new ConcurrentHashMap<>();
    List<Alert> alerts = new CopyOnWriteArrayList<>();
    AtomicLong nanos = new AtomicLong();
    ExecutorFence fence = fenced
        ? new ExecutorFence("test", "node-1", name -> leases.computeIfAbsent(name, TestLease::new), MARGIN)
        : ExecutorFence.none("node-1");
    ActorRef<ExecutorProtocol.Command> executor = testKit.spawn(Executor.create(clock, ExecutorSettings.from(CONFIG),
        TaskSettings.from(CONFIG).maxReasonLength(), jobs.registry(), id -> tasks.getRef(), fence, NodeMeters.NONE, alerts::add, nanos::get));
    return new Node(executor, tasks, clock, jobs, leases, alerts, nanos);
  }

  /** Offers a window (named after its task) and starts the attempt the executor admits, as its entity would. */
  private static void start(Node n, String taskId, int attempt) {
    n.executor().tell(new ExecutorProtocol.Offer(taskId, taskId, RunKind.FIRST, n.tasks().getRef(), false));
    TaskProtocol.Admitted a = n.tasks().expectMessageClass(TaskProtocol.Admitted.class);
    assertEquals(taskId, a.window().value());
    a.replyTo().tell(grant(n, taskId, attempt, a.executorId()));
  }

  private static ExecutorProtocol.Started grant(Node n, String taskId, int attempt, String executor) {
    return new ExecutorProtocol.Started("j", "UTC", new TaskProtocol.AttemptGrant(taskId, taskId, attempt, RunKind.FIRST,
        n.clock().instant().plus(LEASE), T0, T0, T0, Map.of(), List.of(), executor));
  }

  private static void awaitRunning(Node n, String taskId, int attempt) {
    n.tasks().awaitAssert(() -> {
      assertTrue(n.jobs().contexts.containsKey(taskId + "/" + attempt), taskId + " attempt " + attempt + " runs");
      return null;
    });
  }

  @Test
  @DisplayName("R23: a job that ignores interrupts frees its slot at its lease end; the task's next window runs; "
      + "past stuck-after it is JOB_STUCK (alert, count); its late result is still reported")
  void uncooperativeJobFreesItsSlot() {
    Node n = node(false);
    start(n, "hung", 1);
    awaitRunning(n, "hung", 1);
    // the next window of the same task (max-concurrent-per-task = 1) waits while the job runs
    n.executor().tell(new ExecutorProtocol.Offer("hung", "hung-2", RunKind.FIRST, n.tasks().getRef(), false));
    n.tasks().expectNoMessage(Duration.ofMillis(300));
    n.clock().set(T0.plus(LEASE).plusSeconds(1)); // past its lease: cancelled (interrupted), and the slot is free
    TaskProtocol.Admitted next = n.tasks().expectMessageClass(TaskProtocol.Admitted.class, Duration.ofSeconds(5));
    assertEquals("hung-2", next.window().value());
    n.tasks().awaitAssert(() -> {
      assertTrue(n.jobs().interrupted.containsKey("hung/1"), "the job's thread was interrupted");
      return null;
    });
    assertEquals(0, n.stats(testKit).stuck(), "not stuck before stuck-after");
    n.clock().set(T0.plus(LEASE).plusSeconds(12)); // 11 s after the cancel > stuck-after 10 s
    n.tasks().awaitAssert(() -> {
      assertEquals(1, n.alerts().stream().filter(a -> a.kind() == Alert.Kind.JOB_STUCK).count());
      return null;
    });
    Alert stuck = n.alerts().get(0);
    assertEquals("hung", stuck.taskId());
    assertEquals("hung", stuck.window());
    assertEquals(1, n.stats(testKit).stuck());
    n.tasks().expectNoMessage(Duration.ofMillis(300));
    assertEquals(1, n.alerts().size(), "one alert per stuck job, not one per check");
    n.jobs().free("hung", 1); // it returns at last: its result is reported (its entity records it late)
    TaskProtocol.FinishAttempt late = n.tasks().expectMessageClass(TaskProtocol.FinishAttempt.class, Duration.ofSeconds(5));
    assertEquals("hung", late.window().value());
    late.replyTo().tell(StatusReply.ack());
    n.tasks().awaitAssert(() -> {
      assertEquals(0, n.stats(testKit).stuck());
      return null;
    });
  }

  @Test
  @DisplayName("R24: without its lease nothing is admitted; a lost lease cancels every job (a polite one returns), reports "
      + "nothing, refuses the ledger and heartbeats, runs nothing started under the lost identity, and the node goes on "
      + "under a new identity with a new lease")
  void lostLeaseFencesEveryJob() throws Exception {
    Node n = node(true);
    n.tasks().awaitAssert(() -> {
      assertTrue(n.lease("") != null && n.lease("").valid, "the lease of node-1 is taken at start");
      return null;
    });
    start(n, "polite-a", 1);
    start(n, "hung-b", 1);
    awaitRunning(n, "polite-a", 1);
    awaitRunning(n, "hung-b", 1);
    JobContext hung = n.jobs().contexts.get("hung-b/1");
    assertTrue(hung.holdsLease());
    n.executor().tell(new ExecutorProtocol.Offer("c", "c", RunKind.FIRST, n.tasks().getRef(), false));
    TaskProtocol.Admitted c = n.tasks().expectMessageClass(TaskProtocol.Admitted.class);
    assertEquals("node-1", c.executorId());

    n.lease("").lose();
    n.tasks().awaitAssert(() -> {
      assertTrue(n.jobs().interrupted.containsKey("polite-a/1") && n.jobs().interrupted.containsKey("hung-b/1"),
          "every running job is interrupted");
      return null;
    });
    assertFalse(hung.holdsLease(), "the job sees it");
    CompletionStage<String> effect = hung.ledger().once("push", () -> CompletableFuture.completedFuture("sent"));
    Throwable refused = effect.toCompletableFuture().handle((v, e) -> e).get(5, TimeUnit.SECONDS);
    assertInstanceOf(LeaseLostException.class, refused instanceof java.util.concurrent.CompletionException
        ? refused.getCause() : refused, String.valueOf(refused));
    Throwable noBeat = hung.heartbeat().toCompletableFuture().handle((v, e) -> e).get(5, TimeUnit.SECONDS);
    assertTrue(noBeat != null, "a heartbeat is refused");
    // the admitted window's entity answers with a start under the lost identity: not run
    c.replyTo().tell(grant(n, "c", 1, "node-1"));
    // nothing reaches the entities: no result of the cancelled jobs, no effect, no start
    n.tasks().expectNoMessage(Duration.ofMillis(500));
    assertFalse(n.jobs().contexts.containsKey("c/1"), "a start under the lost identity is not run");
    n.jobs().free("hung-b", 1);
    n.tasks().expectNoMessage(Duration.ofMillis(300)); // its result is not reported either

    // the node goes on as node-1#1 with a lease of its own
    n.tasks().awaitAssert(() -> {
      assertTrue(n.lease("#1") != null && n.lease("#1").valid, "a new lease for node-1#1");
      return null;
    });
    assertTrue(n.lease("").released, "the lost lease is released (never taken again)");
    assertEquals("node-1#1", n.stats(testKit).identity());
    n.executor().tell(new ExecutorProtocol.Offer("d", "d", RunKind.FIRST, n.tasks().getRef(), false));
    TaskProtocol.Admitted d = n.tasks().expectMessageClass(TaskProtocol.Admitted.class, Duration.ofSeconds(5));
    assertEquals("node-1#1", d.executorId());
  }

  @Test
  @DisplayName("R24: a pause longer than the lease's safety margin makes the lease suspect: nothing starts, the ledger "
      + "refuses and no result is reported until it is renewed; a renewal keeps the jobs and reports what came "
      + "meanwhile, a failed renewal cancels the jobs and reports nothing")
  void pauseMakesTheLeaseSuspect() throws Exception {
    Node n = node(true);
    n.tasks().awaitAssert(() -> {
      assertTrue(n.lease("") != null && n.lease("").valid);
      return null;
    });
    start(n, "polite-a", 1); // lease until T0 + 30 s
    n.clock().set(T0.plusSeconds(20));
    start(n, "polite-b", 1); // lease until T0 + 50 s
    awaitRunning(n, "polite-a", 1);
    awaitRunning(n, "polite-b", 1);
    JobContext ctx = n.jobs().contexts.get("polite-b/1");
    CompletableFuture<Boolean> renewal = new CompletableFuture<>();
    n.lease("").nextAnswer = renewal;
    // the JVM stood still for 40 s: polite-a's attempt lease (30 s) passed meanwhile
    n.nanos().addAndGet(Duration.ofSeconds(40).toNanos());
    n.clock().set(T0.plusSeconds(40));
    n.tasks().awaitAssert(() -> {
      assertEquals(2, n.lease("").acquires, "a renewal is asked for");
      assertTrue(n.jobs().interrupted.containsKey("polite-a/1"), "the attempt past its lease is cancelled");
      return null;
    });
    assertFalse(ctx.holdsLease(), "suspect until renewed");
    Throwable refused = ctx.ledger().once("push", () -> CompletableFuture.completedFuture("sent"))
        .toCompletableFuture().handle((v, e) -> e).get(5, TimeUnit.SECONDS);
    assertTrue(refused != null, "the ledger refuses while the lease is suspect");
    n.executor().tell(new ExecutorProtocol.Offer("c", "c", RunKind.FIRST, n.tasks().getRef(), false));
    // nothing admitted, and polite-a's result ("interrupted") is held back
    n.tasks().expectNoMessage(Duration.ofMillis(400));
    renewal.complete(true);
    boolean reported = false;
    TaskProtocol.Admitted c = null;
    for (int i = 0; i < 2; i++) {
      TaskProtocol.Command m = n.tasks().receiveMessage(Duration.ofSeconds(5));
      if (m instanceof TaskProtocol.FinishAttempt f) {
        assertEquals("polite-a", f.window().value());
        f.replyTo().tell(StatusReply.ack());
        reported = true;
      } else {
        c = assertInstanceOf(TaskProtocol.Admitted.class, m);
      }
    }
    assertTrue(reported, "once renewed, the result held back is reported");
    assertEquals("node-1", c.executorId(), "the same identity: the lease was still ours");
    assertTrue(ctx.holdsLease());
    assertFalse(n.jobs().interrupted.containsKey("polite-b/1"), "a renewed lease keeps its jobs");

    // a second pause, and this time the lease was taken meanwhile
    CompletableFuture<Boolean> taken = new CompletableFuture<>();
    n.lease("").nextAnswer = taken;
    n.nanos().addAndGet(Duration.ofSeconds(40).toNanos());
    n.clock().set(T0.plusSeconds(80)); // polite-b's lease passed too: cancelled, its result held back
    n.tasks().awaitAssert(() -> {
      assertTrue(n.jobs().interrupted.containsKey("polite-b/1"));
      return null;
    });
    n.tasks().expectNoMessage(Duration.ofMillis(300));
    taken.complete(false);
    n.tasks().expectNoMessage(Duration.ofMillis(500)); // the result held back is dropped: reported by no one
    n.tasks().awaitAssert(() -> {
      assertEquals("node-1#1", n.stats(testKit).identity());
      return null;
    });
  }

  @Test
  @DisplayName("R24: a downed node cancels its jobs, reports nothing and takes no lease again")
  void downedNodeRunsNothingAgain() {
    Node n = node(true);
    n.tasks().awaitAssert(() -> {
      assertTrue(n.lease("") != null && n.lease("").valid);
      return null;
    });
    start(n, "polite-a", 1);
    awaitRunning(n, "polite-a", 1);
    n.executor().tell(new ExecutorProtocol.NodeDown("this node was downed"));
    n.tasks().awaitAssert(() -> {
      assertTrue(n.jobs().interrupted.containsKey("polite-a/1"));
      return null;
    });
    n.executor().tell(new ExecutorProtocol.Offer("b", "b", RunKind.FIRST, n.tasks().getRef(), false));
    n.tasks().expectNoMessage(Duration.ofMillis(500));
    assertEquals(null, n.lease("#1"), "no new lease after being downed");
    assertFalse(n.stats(testKit).holdsLease());
  }
}
