package io.almanac.persistence.pools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.PoolSpec;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node on almanac-h2.conf keeps each pool's day in the pool's own journal ({@code pool|<name>}, in
 * the H2 file): a pool declared in almanac.pools holds across tasks, its holds are in the journal
 * while the jobs run and given back once they end, its usage and an operator's raise are journaled
 * (with who raised it), and the audit's fold of the journal finds the pool's invariants held.
 */
class PoolsH2NodeTest {

  @TempDir Path dir;
  private ActorTestKit node;
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));

  @AfterEach
  void stop() {
    if (node != null) {
      node.shutdownTestKit();
    }
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = node.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(25), () -> {
      assertion.run();
      return null;
    });
  }

  private static <T> T await(CompletionStage<T> s) {
    return s.toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
  }

  /** The pool's journal, read back with the audit's reader. */
  private java.util.List<io.almanac.journal.PoolJournal.Event> journal(String pool) {
    try (io.almanac.persistence.audit.AuditReader reader = io.almanac.persistence.audit.AuditReader
        .builder(node.system()).start()) {
      return reader.readPool(pool);
    }
  }

  /** The live holds of the pool by its journal, folded as the entity folds it. */
  private int holds(String pool) {
    io.almanac.journal.PoolState s = io.almanac.journal.PoolState.empty(pool);
    for (io.almanac.journal.PoolJournal.Event e : journal(pool)) {
      s = s.evolve(e);
    }
    return s.liveHolds(clock.instant());
  }

  @Test
  @DisplayName("max-concurrent = 2 across five tasks, through the pool store in the H2 journal's database")
  void poolThroughTheJournalsDatabase() throws Exception {
    Config config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-embedded.conf\"",
        "include \"almanac-h2.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.pool-store.poll-interval = 50ms",
        "almanac.pools.llm { max-concurrent = 2, rate = \"1000/1s\" }")));
    assertEquals("", config.getString("almanac.pool-store.class"), "the journaled pools are the default");
    node = ActorTestKit.create("pools-h2", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    CompletableFuture<Void> release = new CompletableFuture<>();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger started = new AtomicInteger();
    AgentJob job = ctx -> {
      started.incrementAndGet();
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      return release.thenApply(v -> {
        running.decrementAndGet();
        return JobResult.success("ok");
      });
    };
    Almanac almanac = Almanac.builder(node.system()).clock(clock).job("j", job).start();
    for (int i = 0; i < 5; i++) {
      await(almanac.register(TaskSpec.builder("t" + i).cron("0 0 0 * * ? UTC").job("j").pools("llm").build()));
    }
    clock.set(Instant.parse("2026-11-29T00:00:01Z"));
    eventually(() -> assertEquals(2, started.get()));
    assertEquals(2, holds("llm"), "two holds in the pool's journal");
    release.complete(null);
    eventually(() -> {
      for (int i = 0; i < 5; i++) {
        WindowView w = await(almanac.windows("t" + i)).get(0);
        assertEquals(InstanceStatus.SUCCEEDED, w.status(), "t" + i);
      }
    });
    assertTrue(most.get() <= 2, "at most max-concurrent at once: " + most.get());
    eventually(() -> assertEquals(0, holds("llm"), "every hold given back in the pool's journal"));
    io.almanac.persistence.audit.PoolAudit.Report report = io.almanac.persistence.audit.PoolAudit.verify("llm",
        journal("llm"));
    assertEquals(java.util.List.of(), report.violations());
    assertEquals(5, report.admissions());
    assertEquals(2, report.peakHolders());
  }

  @Test
  @DisplayName("a pool's budget-per-day in almanac.pools: cost summed in almanac_pool_usage, the next window SKIPPED "
      + "BUDGET_EXHAUSTED naming the pool, a raise lets the next one run")
  void poolBudgetThroughTheJournalsDatabase() throws Exception {
    Config config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-embedded.conf\"",
        "include \"almanac-h2.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }",
        "almanac.executor { check-interval = 20ms }",
        "almanac.pool-store.poll-interval = 50ms",
        "almanac.pools.llm { max-concurrent = 2, budget-per-day = 1.00 }")));
    node = ActorTestKit.create("pool-budget-h2", config);
    SchemaBootstrap.ensureSchemaBlocking(node.system(), Duration.ofSeconds(30));
    AgentJob job = ctx -> CompletableFuture.completedFuture(JobResult.success("ok")
        .withUsage(io.almanac.Usage.of("m", 1, 1, new java.math.BigDecimal("0.75"))));
    Almanac almanac = Almanac.builder(node.system()).clock(clock).job("j", job).start();
    await(almanac.register(TaskSpec.builder("t").cron("0 0 * * * ? UTC").window("per-firing").job("j").pools("llm")
        .build()));
    java.util.function.Function<String, WindowView> at = start -> await(almanac.windows("t")).stream()
        .filter(w -> w.start().equals(Instant.parse(start))).findFirst().orElse(null);
    for (String hour : java.util.List.of("00", "01")) {
      clock.set(Instant.parse("2026-11-29T" + hour + ":00:01Z"));
      eventually(() -> {
        WindowView w = at.apply("2026-11-29T" + hour + ":00:00Z");
        assertTrue(w != null && w.status() == InstanceStatus.SUCCEEDED, String.valueOf(w));
      });
    }
    eventually(() -> assertEquals(new java.math.BigDecimal("1.50"), await(almanac.pools()).get(0).cost()));
    java.util.List<io.almanac.journal.PoolJournal.UsageAdded> usage = journal("llm").stream()
        .filter(e -> e instanceof io.almanac.journal.PoolJournal.UsageAdded)
        .map(e -> (io.almanac.journal.PoolJournal.UsageAdded) e).toList();
    assertEquals(2, usage.size(), "one usage event per attempt in the pool's journal: " + usage);
    assertTrue(usage.stream().allMatch(u -> u.day().equals(java.time.LocalDate.of(2026, 11, 29))
        && u.costMicros() == 750_000), usage::toString);
    clock.set(Instant.parse("2026-11-29T02:00:01Z"));
    eventually(() -> {
      WindowView w = at.apply("2026-11-29T02:00:00Z");
      assertTrue(w != null && w.status() == InstanceStatus.SKIPPED, String.valueOf(w));
      assertTrue(w.reason().contains("pool llm's budget for 2026-11-29 (UTC) was spent: cost 1.50 reached the budget per "
          + "day 1.00"), w.reason());
    });
    assertEquals(new java.math.BigDecimal("2.00"), await(almanac.as("alice").raisePoolBudget("llm",
        java.math.BigDecimal.ONE, "more")).limit());
    assertEquals(java.util.List.of("budget of 2026-11-29 raised by 1.00 by alice: more"), io.almanac.persistence.audit
        .PoolAudit.verify("llm", journal("llm")).raises().stream().map(r -> r.substring(r.indexOf(' ') + 1)).toList(),
        "the raise is in the pool's journal with who did it and why");
    clock.set(Instant.parse("2026-11-29T03:00:01Z"));
    eventually(() -> {
      WindowView w = at.apply("2026-11-29T03:00:00Z");
      assertTrue(w != null && w.status() == InstanceStatus.SUCCEEDED, String.valueOf(w));
    });
  }
}
