package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.http.AlmanacHttp;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code almanac logs TASK WINDOW [--attempt N]} against a real node on an H2 file: a running attempt's
 * progress and latest lines, then, once it failed, its lines and stack trace from the journal.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LogsCliTest {

  @TempDir static Path dir;
  private static final String WINDOW = "2026-11-29T00:00:00Z";
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:30Z"));
  private final CompletableFuture<Void> release = new CompletableFuture<>();
  private ActorTestKit node;
  private Almanac almanac;
  private String base;
  private AlmanacCliTest.Run whileRunning;

  private AlmanacCliTest.Run cli(String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--url";
    all[1] = base;
    System.arraycopy(args, 0, all, 2, args.length);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = AlmanacCli.execute(all, new PrintWriter(out, true), new PrintWriter(err, true));
    return new AlmanacCliTest.Run(code, out.toString(), err.toString());
  }

  private void eventually(Runnable check) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      check.run();
      return null;
    });
  }

  @BeforeAll
  void start() throws Exception {
    node = ActorTestKit.create("logs-cli", ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.http.port = 0"))));
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(60));
    AgentJob job = ctx -> {
      ctx.log().info("gathered {} sources", 12);
      ctx.progress(0.25, "drafting with the model");
      return release.thenApply(v -> {
        ctx.log().error("publish refused: {}", "HTTP 409");
        throw new IllegalStateException("tool 'publish' refused the draft");
      });
    };
    almanac = Almanac.builder(node.system()).clock(clock).job("agent", job).start();
    almanac.register(TaskSpec.builder("agent").cron("0 0 * * * ? UTC").window("per-firing").retry(RetryPolicy.none())
        .job("agent").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    ServerBinding binding = AlmanacHttp.start(node.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
    clock.set(Instant.parse(WINDOW));
    eventually(() -> {
      AlmanacCliTest.Run r = cli("logs", "agent", WINDOW);
      assertTrue(r.out().contains("attempt 1 running: 25%"), r.toString());
      whileRunning = r;
    });
    release.complete(null);
    eventually(() -> assertEquals(InstanceStatus.FINAL_FAILED, almanac.windows("agent").toCompletableFuture().join()
        .get(0).status()));
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("while the attempt runs: its progress, what it is doing, and its latest line")
  void running() {
    assertEquals(0, whileRunning.code(), whileRunning.toString());
    assertTrue(whileRunning.out().startsWith("attempt 1 running: 25%, drafting with the model (at 2026-11-29 00:00:00 UTC)"),
        whileRunning.toString());
    assertTrue(whileRunning.out().contains("  2026-11-29 00:00:00 INFO gathered 12 sources"), whileRunning.toString());
  }

  @Test
  @DisplayName("after it failed: each line with its time and level, then the stack trace; --attempt keeps one, a bad "
      + "one is exit 2; --json prints the API's body")
  void failed() throws Exception {
    AlmanacCliTest.Run r = cli("logs", "agent", WINDOW);
    assertEquals(0, r.code(), r.toString());
    String[] lines = r.out().split("\n");
    assertTrue(lines[0].startsWith("attempt 1 (ended 2026-11-29 00:00:00"), r.toString());
    assertEquals("  2026-11-29 00:00:00 INFO gathered 12 sources", lines[1], r.toString());
    assertEquals("  2026-11-29 00:00:00 ERROR publish refused: HTTP 409", lines[2], r.toString());
    assertEquals("  stack trace:", lines[3], r.toString());
    assertEquals("    java.lang.IllegalStateException: tool 'publish' refused the draft", lines[4], r.toString());
    assertTrue(lines[5].startsWith("    \tat "), r.toString());

    AlmanacCliTest.Run none = cli("logs", "agent", WINDOW, "--attempt", "2");
    assertEquals(0, none.code(), none.toString());
    assertTrue(none.out().startsWith("no log lines or stack traces recorded for agent " + WINDOW + " attempt 2"),
        none.toString());
    AlmanacCliTest.Run bad = cli("logs", "agent", WINDOW, "--attempt", "0");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, bad.code(), bad.toString());
    assertTrue(bad.err().contains("--attempt '0' is invalid"), bad.toString());
    AlmanacCliTest.Run json = cli("logs", "agent", WINDOW, "--attempt", "1", "--json");
    assertEquals(0, json.code(), json.toString());
    assertEquals(1, new ObjectMapper().readTree(json.out()).get("attempts").size(), json.toString());
  }

  @Test
  @DisplayName("why names the failure's first stack line")
  void why() {
    AlmanacCliTest.Run r = cli("why", "agent", WINDOW);
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().contains("threw java.lang.IllegalStateException: tool 'publish' refused the draft"), r.toString());
  }
}
