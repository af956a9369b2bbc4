package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Start-up on a slow node: registering the declared tasks keeps asking until
 * almanac.node.registration-timeout, and {@link Almanac#ready()} says when the node is ready.
 * The slow node is one that has not joined its cluster yet (sharding and the singleton buffer
 * every ask meanwhile), with an ask timeout of 500 ms.
 */
@ExtendWith(LogCapturingExtension.class)
class AlmanacStartTest {

  private ActorTestKit testKit;

  @AfterEach
  void stop() {
    if (testKit != null) {
      // a node that never joined its cluster takes longer than the test kit's 10 s to leave it
      Cluster cluster = Cluster.get(testKit.system());
      cluster.manager().tell(Join.create(cluster.selfMember().address()));
      ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(60), true);
    }
  }

  private Almanac start(String registrationTimeout) {
    testKit = ActorTestKit.create("start-test", AlmanacNodeTest.config(String.join("\n",
        "almanac.node.join-self = off",
        "almanac.node.registration-timeout = " + registrationTimeout,
        "almanac.executor.ask-timeout = 500ms",
        "almanac.tasks.declared { cron = \"0 0 8 * * ? Asia/Shanghai\", job = \"" + NoopJob.class.getName() + "\" }")));
    return Almanac.builder(testKit.system()).clock(new SettableClock(Instant.parse("2026-11-28T23:59:00Z"))).start();
  }

  /** A job that does nothing. */
  public static final class NoopJob implements AgentJob {
    @Override
    public java.util.concurrent.CompletionStage<JobResult> run(JobContext context) {
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    }
  }

  @Test
  @DisplayName("R10: a node whose first asks find no answer keeps registering its declared tasks and becomes ready")
  void registrationOutlastsASlowStart() {
    Almanac almanac = start("60s");
    long t0 = System.nanoTime();
    Cluster cluster = Cluster.get(testKit.system());
    // the node joins its cluster only after several asks have timed out
    testKit.system().scheduler().scheduleOnce(Duration.ofSeconds(2),
        () -> cluster.manager().tell(Join.create(cluster.selfMember().address())), testKit.system().executionContext());
    NodeReady.await(almanac);
    assertTrue(System.nanoTime() - t0 >= Duration.ofSeconds(2).toNanos(), "ready only after the join");
    TaskView view = almanac.task("declared").toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
    assertEquals("declared", view.spec().id());
  }

  @Test
  @DisplayName("R10/R33: a node that never answers fails ready() at the registration deadline, naming the setting")
  void readyFailsAtTheDeadline() {
    Almanac almanac = start("3s");
    CompletionException e = assertThrows(CompletionException.class,
        () -> almanac.ready().toCompletableFuture().orTimeout(60, TimeUnit.SECONDS).join());
    AlmanacException cause = assertInstanceOf(AlmanacException.class, e.getCause());
    assertTrue(cause.getMessage().contains("almanac.node.registration-timeout = PT3S"), cause.getMessage());
    // this node never joined its cluster (join-self off, no seed nodes): the message says so
    assertTrue(cause.getMessage().contains("has not joined its cluster: pekko.cluster.seed-nodes is empty and "
        + "almanac.node.join-self is off"), cause.getMessage());
  }

  @Test
  @DisplayName("R33: a refusal is not retried: it fails at once; an unanswered ask is tried again until it is answered")
  void refusalIsNotRetried() {
    Almanac almanac = start("60s");
    java.util.concurrent.atomic.AtomicInteger tries = new java.util.concurrent.atomic.AtomicInteger();
    CompletionException e = assertThrows(CompletionException.class, () -> almanac.<Object>retrying("a refused step", () -> {
      tries.incrementAndGet();
      return CompletableFuture.failedFuture(new RefusedException(RefusedException.Reason.UNKNOWN_TASK, "task 'x' is unknown"));
    }).toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join());
    assertInstanceOf(RefusedException.class, e.getCause());
    assertEquals(1, tries.get());
    tries.set(0);
    Object value = almanac.<Object>retrying("a slow step", () -> tries.incrementAndGet() < 3
        ? CompletableFuture.failedFuture(new java.util.concurrent.TimeoutException("no reply within 500ms"))
        : CompletableFuture.completedFuture("answered")).toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
    assertEquals("answered", value);
    assertEquals(3, tries.get());
  }
}
