package io.almanac.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The ask helper the trigger and the executor use on their hot paths (issue 5's profile). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AsksTest {
  private final ActorTestKit testKit = ActorTestKit.create();

  record Echo(int n, ActorRef<Integer> replyTo) {}

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  @DisplayName("a reply completes the future on the replying actor's thread: no common-pool hop, no thread per ask")
  void repliesWithoutAThreadPerAsk() throws Exception {
    ActorRef<Echo> echo = testKit.spawn(Behaviors.receiveMessage(m -> {
      m.replyTo().tell(m.n() * 2);
      return Behaviors.same();
    }));
    long threadsBefore = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
    List<CompletableFuture<String>> dependents = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      int n = i;
      dependents.add(Asks.<Echo, Integer>ask(echo, r -> new Echo(n, r), Duration.ofSeconds(5), testKit.scheduler())
          .thenApply(doubled -> {
            assertEquals(2 * n, doubled);
            return Thread.currentThread().getName();
          }));
    }
    CompletableFuture.allOf(dependents.toArray(new CompletableFuture[0])).get(10, TimeUnit.SECONDS);
    long started = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount() - threadsBefore;
    for (CompletableFuture<String> d : dependents) {
      String thread = d.join();
      // AskPattern's own stage runs dependents on ForkJoinPool.commonPool(), or on a new "Thread-N"
      // per stage when the common pool's parallelism is 1 (a 2-core machine).
      assertTrue(!thread.startsWith("ForkJoinPool.commonPool") && !thread.matches("Thread-\\d+"),
          "dependent stage ran on '" + thread + "'");
    }
    assertTrue(started < 50, started + " threads started for 500 asks");
  }

  @Test
  @DisplayName("no reply within the timeout fails the future with a TimeoutException")
  void timesOut() {
    TestProbe<Echo> silent = testKit.createTestProbe();
    CompletableFuture<Integer> reply =
        Asks.<Echo, Integer>ask(silent.getRef(), r -> new Echo(1, r), Duration.ofMillis(100), testKit.scheduler());
    assertEquals(1, silent.expectMessageClass(Echo.class).n());
    ExecutionException e = assertThrows(ExecutionException.class, () -> reply.get(5, TimeUnit.SECONDS));
    assertInstanceOf(TimeoutException.class, e.getCause());
  }
}
