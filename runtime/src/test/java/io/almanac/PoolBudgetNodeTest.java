package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.journal.TaskJournal;
import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.persistence.testkit.javadsl.PersistenceTestKit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A pool's budget per day end to end on one node (the in-memory pool store, a SettableClock): the
 * cost of a pooled task's attempts sums into the pool's day; once spent, the windows that would start
 * are SKIPPED BUDGET_EXHAUSTED naming the pool, with one alert for the day; a raise lets them run
 * again, and the next day starts afresh.
 */
class PoolBudgetNodeTest {

  private ActorTestKit testKit;
  private final SettableClock clock = new SettableClock(Instant.parse("2027-01-03T23:59:00Z"));
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
  }

  private void eventually(Runnable assertion) {
    TestProbe<Object> probe = testKit.createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(20), Duration.ofMillis(20), () -> {
      assertion.run();
      return null;
    });
  }

  private WindowView at(Almanac almanac, String task, String start) {
    Instant s = Instant.parse(start);
    return await(almanac.windows(task)).stream().filter(w -> w.start().equals(s)).findFirst()
        .orElseThrow(() -> new AssertionError("no window at " + start + " in " + await(almanac.windows(task))));
  }

  private void settles(Almanac almanac, String task, String start, InstanceStatus status) {
    eventually(() -> {
      List<WindowView> ws = await(almanac.windows(task));
      assertTrue(ws.stream().anyMatch(w -> w.start().equals(Instant.parse(start)) && w.status() == status),
          start + " " + status + " in " + ws);
    });
  }

  private List<Alert> budgetAlerts() {
    return alerts.stream().filter(a -> a.kind() == Alert.Kind.BUDGET_EXHAUSTED).toList();
  }

  @Test
  @DisplayName("a spent pool budget skips the pooled task's windows BUDGET_EXHAUSTED (one alert a day), a raise runs them "
      + "again, and the next day starts afresh; a task without pools is untouched")
  void spentRaisedNextDay() {
    AgentJob job = ctx -> CompletableFuture.completedFuture(JobResult.success("ok")
        .withUsage(Usage.of("gpt-4o", 100, 10, new BigDecimal("0.60"))));
    testKit = ActorTestKit.create("pool-budget-test", AlmanacNodeTest.config("almanac.pool-store.poll-interval = 50ms"));
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).meterRegistry(registry).alertSink(alerts::add).job("j", job)
        .pool(PoolSpec.of("openai", 4).withBudgetPerDay(new BigDecimal("1.00")))
        .start();
    await(almanac.register(TaskSpec.builder("a").cron("0 0 * * * ? UTC").window("per-firing").job("j").pools("openai").build()));
    await(almanac.register(TaskSpec.builder("free").cron("0 0 * * * ? UTC").window("per-firing").job("j").build()));

    clock.set(Instant.parse("2027-01-04T00:00:01Z"));
    settles(almanac, "a", "2027-01-04T00:00:00Z", InstanceStatus.SUCCEEDED);
    clock.set(Instant.parse("2027-01-04T01:00:01Z"));
    settles(almanac, "a", "2027-01-04T01:00:00Z", InstanceStatus.SUCCEEDED); // the day's cost is 1.20 now
    eventually(() -> assertEquals(new BigDecimal("1.20"), await(almanac.pools()).get(0).cost()));
    PoolUsage p = await(almanac.pools()).get(0);
    assertEquals("openai", p.pool());
    assertEquals(java.time.LocalDate.of(2027, 1, 4), p.day());
    assertEquals("UTC", p.zone());
    assertEquals(2, p.attempts());
    assertEquals(new BigDecimal("1.00"), p.limit());
    assertTrue(p.exhausted());
    assertTrue(budgetAlerts().isEmpty(), "no alert before a window is skipped");

    clock.set(Instant.parse("2027-01-04T02:00:01Z"));
    settles(almanac, "a", "2027-01-04T02:00:00Z", InstanceStatus.SKIPPED);
    WindowView skipped = at(almanac, "a", "2027-01-04T02:00:00Z");
    assertTrue(skipped.reason().startsWith("BUDGET_EXHAUSTED: "), skipped.reason());
    // the pool's skip is a decision like any other, counted by its reason
    assertTrue(registry.find("almanac.decisions").tags("decision", "skipped", "reason", "budget_exhausted").counters()
        .stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum() >= 1, "budget skips in almanac.decisions");
    assertTrue(skipped.reason().contains("pool openai's budget for 2027-01-04 (UTC) was spent: cost 1.20 reached the budget "
        + "per day 1.00"), skipped.reason());
    eventually(() -> assertEquals(1, budgetAlerts().size()));
    assertTrue(budgetAlerts().get(0).message().contains("pool openai"), budgetAlerts().get(0).message());
    settles(almanac, "free", "2027-01-04T02:00:00Z", InstanceStatus.SUCCEEDED); // a task without pools is untouched
    DailyUsage taskDay = await(almanac.usage("a"));
    assertEquals(0, taskDay.windowsSkipped(), "a pool's skip is not the task's budget");

    clock.set(Instant.parse("2027-01-04T03:00:01Z"));
    settles(almanac, "a", "2027-01-04T03:00:00Z", InstanceStatus.SKIPPED);
    assertEquals(1, budgetAlerts().size(), "one alert per pool per day");

    PoolUsage raised = await(almanac.raisePoolBudget("openai", new BigDecimal("0.50"), "quarter end"));
    assertEquals(new BigDecimal("1.50"), raised.limit());
    assertEquals(new BigDecimal("0.50"), raised.raised());
    assertFalse(raised.exhausted());
    clock.set(Instant.parse("2027-01-04T04:00:01Z"));
    settles(almanac, "a", "2027-01-04T04:00:00Z", InstanceStatus.SUCCEEDED); // 1.80 now
    clock.set(Instant.parse("2027-01-04T05:00:01Z"));
    settles(almanac, "a", "2027-01-04T05:00:00Z", InstanceStatus.SKIPPED);
    assertEquals(1, budgetAlerts().size(), "after a raise runs out, no second alert that day");

    clock.set(Instant.parse("2027-01-05T00:00:01Z"));
    settles(almanac, "a", "2027-01-05T00:00:00Z", InstanceStatus.SUCCEEDED);
    PoolUsage next = await(almanac.pools()).get(0);
    assertEquals(java.time.LocalDate.of(2027, 1, 5), next.day());
    assertEquals(new BigDecimal("1.00"), next.limit(), "the raise was for its day only");

    List<TaskJournal.WaitEnded> ends = PersistenceTestKit.create(testKit.system())
        .persistedInStorage(TaskJournal.persistenceId("a")).stream().filter(e -> e instanceof TaskJournal.WaitEnded)
        .map(e -> (TaskJournal.WaitEnded) e).toList();
    assertEquals(3, ends.size(), ends.toString());
    assertTrue(ends.stream().allMatch(e -> "openai".equals(e.pool()) && e.reason() == SkipReason.BUDGET_EXHAUSTED));
  }

  @Test
  @DisplayName("raisePoolBudget refuses an unknown pool, a pool without a budget, a bad amount and a long note, naming "
      + "the field")
  void raiseRefusals() {
    testKit = ActorTestKit.create("pool-budget-refusals", AlmanacNodeTest.config(""));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add)
        .job("j", ctx -> CompletableFuture.completedFuture(JobResult.success("ok")))
        .pool(PoolSpec.of("openai", 4).withBudgetPerDay(new BigDecimal("1.00"))).pool(PoolSpec.of("search", 1)).start();
    assertEquals("pool", refusedField(almanac, "nope", new BigDecimal("1"), null));
    assertEquals("budgetPerDay", refusedField(almanac, "search", new BigDecimal("1"), null));
    assertEquals("amount", refusedField(almanac, "openai", BigDecimal.ZERO, null));
    assertEquals("amount", refusedField(almanac, "openai", new BigDecimal("0.0000001"), null));
    assertEquals("amount", refusedField(almanac, "openai", new BigDecimal("1000000001"), null));
    assertEquals("note", refusedField(almanac, "openai", BigDecimal.ONE, "x".repeat(100_000)));
    assertEquals(new BigDecimal("0.00"), await(almanac.pools()).get(0).raised(), "nothing stored");
  }

  private static String refusedField(Almanac almanac, String pool, BigDecimal amount, String note) {
    try {
      await(almanac.raisePoolBudget(pool, amount, note));
    } catch (java.util.concurrent.CompletionException e) {
      return ((RefusedException) e.getCause()).field();
    }
    throw new AssertionError("not refused");
  }
}
