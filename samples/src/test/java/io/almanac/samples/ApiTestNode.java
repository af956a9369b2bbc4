package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.http.AlmanacHttp;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.InstanceFilter;
import io.almanac.persistence.instances.InstanceProjection;
import io.almanac.persistence.instances.InstanceQueries;
import io.almanac.testkit.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.http.javadsl.ServerBinding;

/**
 * A real node for the CLI and dashboard tests: an embedded one-node cluster on an H2 file in a
 * temporary folder, its time from a {@link SettableClock}, serving the HTTP API on a free loopback
 * port with the token {@value #TOKEN}, started as the README says ({@code AlmanacHttp.start(system,
 * almanac)}) with the instance table's projection running, so {@code /api/windows} reads the table. Once started it holds, on 2026-11-29 (UTC):
 *
 * <ul>
 *   <li>{@value #DIGEST} (08:00 Asia/Shanghai, daily): window {@code 2026-11-29} SUCCEEDED;
 *   <li>{@value #BROKEN} (08:00 Asia/Shanghai, daily, always fails after its durable step {@code fetch}): window {@code 2026-11-29}
 *       FINAL_FAILED, in the intervention queue;
 *   <li>{@value #MINUTELY} (every minute UTC, per-firing, overlap skip): {@code 2026-11-29T00:00:00Z}
 *       SUCCEEDED after a long run, during which {@code 2026-11-29T00:01:00Z} was SKIPPED.
 * </ul>
 */
final class ApiTestNode implements AutoCloseable {

  static final String TOKEN = "s3cret-token-for-tests";

  /** A token of role read, named grafana: it reads, never acts (403). */
  static final String READ_TOKEN = "grafana-read-token-0001";
  static final String DIGEST = "digest";
  static final String BROKEN = "broken";
  static final String MINUTELY = "minutely";
  static final String DAY = "2026-11-29";
  static final String SKIPPED_WINDOW = "2026-11-29T00:01:00Z";

  final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
  final ActorTestKit node;
  final Almanac almanac;
  final String base;
  private final CompletableFuture<JobResult> release = new CompletableFuture<>();

  /** A resource pool with a budget of 5.00 a day (UTC) that no task names. */
  static final String POOL = "llm-pool";

  private ApiTestNode(String name, Path dir) throws Exception {
    Config config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "jdbc-journal.class = \"io.almanac.persistence.WriterStampingJournal\"",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.instances.poll-interval = 20ms",
        "almanac.http.port = 0",
        "almanac.http.token = " + ConfigUtil.quoteString(TOKEN),
        "almanac.http.tokens { grafana { token = " + ConfigUtil.quoteString(READ_TOKEN) + ", role = read } }")));
    node = ActorTestKit.create(name, config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(60));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("digest of " + ctx.window().value() + " pushed"));
    // a durable step first: its attempts show it RECORDED once and REPLAYED after (almanac steps)
    AgentJob fails = ctx -> ctx.step("fetch", String.class, () -> CompletableFuture.completedFuture("rows"),
            rows -> io.almanac.Usage.of("model-x", 120, 30, new java.math.BigDecimal("0.02")))
        .thenApply(rows -> JobResult.failure("upstream schema changed: field 'price' is missing (attempt "
            + ctx.attempt() + ")"));
    AgentJob slowFirst = ctx -> ctx.window().value().equals("2026-11-29T00:00:00Z") ? release
        : CompletableFuture.completedFuture(JobResult.success("quick"));
    almanac = Almanac.builder(node.system()).clock(clock).job("ok", ok).job("fails", fails).job("slow", slowFirst)
        .pool(io.almanac.PoolSpec.of(POOL, 2).withBudgetPerDay(new java.math.BigDecimal("5.00"))).start();
    InstanceProjection.start(node.system(), clock);
    ServerBinding binding = AlmanacHttp.start(node.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + binding.localAddress().getPort();
  }

  /**
   * Starts the node and brings it to the state the class doc describes.
   *
   * @param name the ActorSystem's name
   * @param dir a folder for the H2 file
   * @return the node
   */
  static ApiTestNode start(String name, Path dir) throws Exception {
    ApiTestNode n = new ApiTestNode(name, dir);
    try {
      n.populate();
    } catch (Exception | Error e) {
      n.close();
      throw e;
    }
    return n;
  }

  private void populate() {
    await(almanac.register(TaskSpec.builder(DIGEST).cron("0 0 8 * * ? Asia/Shanghai").job("ok").build()));
    await(almanac.register(TaskSpec.builder(BROKEN).cron("0 0 8 * * ? Asia/Shanghai").job("fails").build()));
    await(almanac.register(TaskSpec.builder(MINUTELY).cron("0 * * * * ? UTC").window("per-firing").job("slow").build()));
    await(almanac.ready());
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    eventuallyStatus(DIGEST, DAY, InstanceStatus.SUCCEEDED);
    eventuallyStatus(BROKEN, DAY, InstanceStatus.FINAL_FAILED);
    eventuallyStatus(MINUTELY, "2026-11-29T00:00:00Z", InstanceStatus.RUNNING);
    clock.set(Instant.parse("2026-11-29T00:01:00Z"));
    eventuallyStatus(MINUTELY, SKIPPED_WINDOW, InstanceStatus.SKIPPED);
    release.complete(JobResult.success("slow one done"));
    eventuallyStatus(MINUTELY, "2026-11-29T00:00:00Z", InstanceStatus.SUCCEEDED);
    clock.set(Instant.parse("2026-11-29T00:01:30Z"));
    tableCaughtUp();
  }

  /** Waits until the instance table holds every task's windows with the statuses the tasks hold. */
  void tableCaughtUp() {
    InstanceQueries queries = InstanceQueries.create(node.system());
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      Map<String, InstanceStatus> hot = new java.util.TreeMap<>();
      for (String task : java.util.List.of(DIGEST, BROKEN, MINUTELY)) {
        await(almanac.windows(task)).forEach(w -> hot.put(task + " " + w.window().value(), w.status()));
      }
      Map<String, InstanceStatus> table = new java.util.TreeMap<>();
      queries.find(InstanceFilter.builder().limit(500).build()).rows()
          .forEach(r -> table.put(r.taskId() + " " + r.windowKey(), r.status()));
      assertEquals(hot, table, "the instance table has caught up with the tasks");
      return null;
    });
  }

  static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  /** @return the window as the Java API sees it, or null */
  WindowView window(String task, String window) {
    Map<String, WindowView> byKey = await(almanac.windows(task)).stream()
        .collect(Collectors.toMap(w -> w.window().value(), w -> w));
    return byKey.get(window);
  }

  void eventuallyStatus(String task, String window, InstanceStatus status) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      WindowView w = window(task, window);
      assertEquals(status, w == null ? null : w.status(), task + " " + window);
      return null;
    });
  }

  @Override
  public void close() {
    node.shutdownTestKit();
  }
}
