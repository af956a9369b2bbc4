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
}
