package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.testkit.SettableClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** almanac.journal.write counts the journal's writes on a real node on an H2 file, with and without writer stamps. */
@ExtendWith(LogCapturingExtension.class)
class JournalWriteMetricsTest {

  @TempDir Path dir;

  private ActorTestKit node;

  @AfterEach
  void stop() {
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  @ParameterizedTest(name = "stamp writers: {0}")
  @ValueSource(booleans = {false, true})
  void journalWritesAreTimed(boolean stamp) {
    Config config = H2TestConfig.at(dir.resolve("almanac"), (stamp ? H2TestConfig.STAMP_WRITERS : "") + String.join("\n",
        "include \"almanac-embedded.conf\"",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }"));
    assertEquals(stamp ? WriterStampingJournal.class.getName() : MeteredJournal.class.getName(),
        config.getString("jdbc-journal.class"));
    node = ActorTestKit.create("journal-metrics", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
    AgentJob job = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    Almanac almanac = Almanac.builder(node.system()).clock(clock).meterRegistry(registry).job("j", job).start();
    await(almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("j").build()));
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventually(() -> assertEquals(InstanceStatus.SUCCEEDED, await(almanac.windows("digest")).stream()
        .filter(w -> w.window().equals(WindowKey.of("2026-11-29"))).findFirst().orElseThrow().status()));
    // the task alone wrote its spec, its scheduled-and-started window and its success: three writes at least,
    // besides the trigger's
    eventually(() -> {
      Timer ok = registry.get("almanac.journal.write").tag("outcome", "ok").timer();
      assertTrue(ok.count() >= 3, "writes timed: " + ok.count());
      assertTrue(ok.totalTime(TimeUnit.NANOSECONDS) > 0);
    });
    assertEquals(0, registry.get("almanac.journal.write").tag("outcome", "failed").timer().count());
  }

  /** A journal-shaped event (Jackson, as Almanac's events are). */
  record Wrote(int n) implements io.almanac.internal.protocol.AlmanacSerializable {}

  /** Persists one event per command, the next command only after the write (as a task entity does). */
  static org.apache.pekko.actor.typed.Behavior<Integer> writer(String id,
      org.apache.pekko.actor.typed.ActorRef<Integer> done) {
    return new org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior<Integer, Wrote, Integer>(
        org.apache.pekko.persistence.typed.PersistenceId.ofUniqueId(id)) {
      @Override
      public Integer emptyState() {
        return 0;
      }

      @Override
      public org.apache.pekko.persistence.typed.javadsl.CommandHandler<Integer, Wrote, Integer> commandHandler() {
        return newCommandHandlerBuilder().forAnyState().onCommand(Integer.class,
            (state, n) -> Effect().persist(new Wrote(n)).thenRun(st -> done.tell(n))).build();
      }

      @Override
      public org.apache.pekko.persistence.typed.javadsl.EventHandler<Integer, Wrote> eventHandler() {
        return newEventHandlerBuilder().forAnyState().onEvent(Wrote.class, (st, e) -> st + 1).build();
      }
    };
  }

  @org.junit.jupiter.api.Test
  @org.junit.jupiter.api.DisplayName("principle 10: the timed journal counts persists and events, and starts no thread per write "
      + "(a stage's callback on the common pool did, on 2 cores: a thread per write, 2.5x fewer persists/s)")
  void journalWritesAreCountedWithoutAThreadEach() {
    Config config = H2TestConfig.at(dir.resolve("plain"), "");
    node = ActorTestKit.create("journal-threads", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    io.almanac.internal.meter.NodeMeters.install(node.system(), new io.almanac.internal.meter.NodeMeters(registry));
    TestProbe<Integer> done = node.createTestProbe();
    var w = node.spawn(writer("threads-1", done.getRef()));
    for (int i = 0; i < 50; i++) { // warm-up: the dispatchers and the pool start their threads
      w.tell(i);
      done.expectMessage(Duration.ofSeconds(30), i);
    }
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long started = threads.getTotalStartedThreadCount();
    double persists = registry.get("almanac.journal.persists").functionCounter().count();
    double events = registry.get("almanac.journal.events").functionCounter().count();
    int writes = 300;
    for (int i = 50; i < 50 + writes; i++) {
      w.tell(i);
      done.expectMessage(Duration.ofSeconds(30), i);
    }
    long newThreads = threads.getTotalStartedThreadCount() - started;
    assertTrue(newThreads < 30, writes + " journal writes started " + newThreads + " threads");
    assertEquals(writes, registry.get("almanac.journal.persists").functionCounter().count() - persists, 0.0);
    assertEquals(writes, registry.get("almanac.journal.events").functionCounter().count() - events, 0.0);
    eventually(() -> assertTrue(registry.get("almanac.journal.write").tag("outcome", "ok").timer().count() >= 50 + writes));
    // the bench's mean write time reads the same writes without a registry
    long[] times = io.almanac.internal.meter.NodeMeters.of(node.system()).journalWriteTimes();
    assertEquals(registry.get("almanac.journal.write").tag("outcome", "ok").timer().count(), times[0]);
    assertEquals(registry.get("almanac.journal.write").tag("outcome", "ok").timer().totalTime(TimeUnit.NANOSECONDS), times[1], 1e6);
  }
}
