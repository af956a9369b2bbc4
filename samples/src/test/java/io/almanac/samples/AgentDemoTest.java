package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Alert;
import io.almanac.Almanac;
import io.almanac.DailyUsage;
import io.almanac.InstanceStatus;
import io.almanac.OverlapPolicy;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowView;
import io.almanac.journal.TaskJournal;
import io.almanac.testkit.Eventually;
import io.almanac.testkit.SettableClock;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's agent-job tasks as application.conf declares them (the pool {@code llm}, the calendar
 * {@code demo-holidays}, model-call, token-spender, late-report, holiday-check) and DemoTasks' jobs,
 * on a real H2 file, judged from the journal and the views: the pool throttled and paused, a
 * throttled attempt was tried again without counting a retry, the pool never ran more than its
 * max-concurrent, token-spender's windows after its third run are SKIPPED (BUDGET_EXHAUSTED) with one
 * alert, late-report recorded DEADLINE_MISSED while it ran, and holiday-check's windows of the start
 * day are SKIPPED (EXCLUDED).
 *
 * <p>Time: Almanac runs on a {@link SettableClock} that the test moves one second at a time (each
 * step waits until the trigger has fired the windows due then). The demo's pools are journaled
 * entities, which time the pool's rate, pauses and hold expiry by Almanac's clock; the holds are
 * renewed on real time, so this test lets them live an hour ({@code almanac.pool-store.hold-ttl})
 * while the clock runs ahead. The pool's limits (2 at once, 4 per 10 s) are the demo's own, read
 * from application.conf unchanged. The
 * deadline timer is a real-time timer armed for the clock's distance to the deadline, so the test
 * waits (up to its timeout) for the journal's DeadlineMissed before it moves the clock past the
 * job's end.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(LogCapturingExtension.class)
class AgentDemoTest {

  /** 11:00 Asia/Shanghai: nothing else of application.conf fires near it. */
  private static final Instant START = Instant.parse("2026-11-29T03:00:00Z");
  private static final int SECONDS = 70;
  private static final List<String> POOLED = List.of(DemoTasks.MODEL_CALL, DemoTasks.TOKEN_SPENDER);

  private final SettableClock clock = new SettableClock(START.minusSeconds(2));
  private final List<Alert> alerts = new CopyOnWriteArrayList<>();
  /** The jobs of the pool's tasks running right now, and the most ever at once. */
  private final AtomicInteger inPool = new AtomicInteger();
  private final AtomicInteger maxInPool = new AtomicInteger();
  private final AtomicInteger poolRuns = new AtomicInteger();
  private Path dataDir;
  private ActorTestKit testKit;
  private Almanac almanac;
  private final io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
      new io.micrometer.core.instrument.simple.SimpleMeterRegistry();

  @BeforeAll
  void start(@TempDir Path tmp) throws Exception {
    dataDir = Files.createDirectories(tmp.resolve("data"));
    Config config = ConfigFactory.load(ConfigFactory.parseString(
            "almanac.persistence.h2.path = " + ConfigUtil.quoteString(tmp.resolve("almanac").toString()) + "\n"
                + "almanac-demo.data-dir = " + ConfigUtil.quoteString(dataDir.toString()) + "\n"
                + "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms, retry-delay = 100ms }\n"
                + "almanac.executor { check-interval = 20ms }\n"
                + "almanac.alerts { watchdog-interval = 100ms }\n"
                // The pools' entities judge hold expiry by Almanac's (settable) clock; see the class comment.
                + "almanac.pool-store { poll-interval = 50ms, hold-ttl = 1h }\n"
                + "pekko.actor.testkit.typed.system-shutdown-default = 30s\n")
        .withFallback(ConfigFactory.parseResources("application.conf")));
    assertEquals("", ConfigFactory.load(ConfigFactory.parseResources("application.conf"))
        .getString("almanac.pool-store.class"), "the demo itself keeps its pools in their journals");
    // As DemoNode does: the start day is a holiday.
    config = DemoTasks.withStartDayHoliday(config, LocalDate.ofInstant(START, DemoTasks.HOLIDAY_ZONE));
    testKit = ActorTestKit.create("almanac", config);
    io.almanac.persistence.SchemaBootstrap.ensureSchemaBlocking(testKit.system(), Duration.ofSeconds(20));
    // a registry that keeps the meters, as DemoNode's Prometheus one does (the live table reads the pool's)
    Almanac.Builder builder = Almanac.builder(testKit.system()).clock(clock).alertSink(alerts::add)
        .meterRegistry(registry);
    // The demo's timing, with the jobs 300 ms of real time (model-call, token-spender), so that pool attempts overlap.
    DemoTasks.Timing timing = new DemoTasks.Timing(Duration.ofMillis(300), Duration.ofMillis(300), Duration.ofSeconds(12),
        Duration.ofSeconds(8));
    DemoTasks.jobs(dataDir, clock, timing).forEach((name, job) -> builder.job(name, POOLED.contains(name) ? counted(job) : job));
    DemoTasks.conditions(dataDir).forEach(builder::condition);
    almanac = builder.start();
    // application.conf's tasks: the digest, the e-commerce chain and the four agent-job tasks.
    eventually(Duration.ofSeconds(20), () -> assertEquals(7, await(almanac.taskIds()).size(), await(almanac.taskIds()).toString()));
  }

  /** The job, counting how many jobs of the pool's tasks run at once. */
  private AgentJob counted(AgentJob job) {
    return ctx -> {
      int now = inPool.incrementAndGet(); // the fence: one job of a window at a time
      maxInPool.accumulateAndGet(now, Math::max);
      poolRuns.incrementAndGet();
      try {
        return job.run(ctx).whenComplete((r, e) -> inPool.decrementAndGet());
      } catch (Exception | Error e) {
        inPool.decrementAndGet();
        throw e;
      }
    };
  }

  @AfterAll
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @Order(0)
  @DisplayName("application.conf declares the agent-job tasks with the pool, the budget, the deadline and the calendar")
  void declared() {
    TaskSpec model = await(almanac.task(DemoTasks.MODEL_CALL)).spec();
    assertEquals(List.of(DemoTasks.LLM_POOL), model.pools());
    assertEquals(OverlapPolicy.ALLOW, model.overlap());
    TaskSpec spender = await(almanac.task(DemoTasks.TOKEN_SPENDER)).spec();
    assertEquals(List.of(DemoTasks.LLM_POOL), spender.pools());
    assertEquals(0, new BigDecimal("0.03").compareTo(spender.budgetPerDay()), String.valueOf(spender.budgetPerDay()));
    assertEquals(Duration.ofSeconds(4), await(almanac.task(DemoTasks.LATE_REPORT)).spec().deadline());
    TaskSpec holiday = await(almanac.task(DemoTasks.HOLIDAY_CHECK)).spec();
    assertEquals(List.of(DemoTasks.HOLIDAYS), holiday.calendars().stream().map(c -> c.name()).toList());
    assertTrue(holiday.calendars().get(0).excludes(LocalDate.of(2026, 11, 29)), "the start day was added");
  }

  @Test
  @Order(1)
  @DisplayName("70 s of the demo: throttles pause the pool, the budget runs out, a deadline is missed, the holiday is skipped")
  void showsEachFeature() throws Exception {
    Instant lateDue = null;
    for (int second = 0; second <= SECONDS; second++) {
      Instant t = START.plusSeconds(second);
      if (second % 60 % 30 == 20) {
        lateDue = lateDue == null ? t : lateDue;
      }
      stepTo(t);
      if (lateDue != null && t.equals(lateDue.plusSeconds(5))) {
        // past its 4 s deadline, 3 s before its 8 s job ends: the miss is recorded while it runs
        Instant key = lateDue;
        eventually(Duration.ofSeconds(15), () -> assertNotNull(window(DemoTasks.LATE_REPORT, key).deadlineMissedAt()));
      }
    }
    // The tasks are paused at a quiet second: no window fires then and none of theirs is open (a
    // paused task starts nothing that has not started, so a window open at the pause would stay
    // open: README, "What a pause covers"). The pool's rate (at most 4 starts in any 10 s) and its
    // throttles decide when that is.
    Instant t = START.plusSeconds(SECONDS);
    boolean quiet = false;
    for (int i = 0; i < 120 && !quiet; i++) {
      t = t.plusSeconds(1);
      stepTo(t);
      // a window whose rate wait ended by this second is admitted at the executor's next check
      // (every second of real time) at the latest: given that long before the clock moves on
      quiet = dueAt(t).isEmpty() && nothingOpenWithin(Duration.ofSeconds(3));
    }
    if (!quiet) {
      journal(DemoTasks.MODEL_CALL).forEach(e -> System.out.println("model-call: " + e));
    }
    assertTrue(quiet, "no quiet second within 120 s after the demo's " + SECONDS + " s");
    // No new windows from here: the clock stays at the quiet second (a fire would be recorded
    // SKIPPED, PAUSED), and nothing is open.
    for (String task : List.of(DemoTasks.MODEL_CALL, DemoTasks.TOKEN_SPENDER, DemoTasks.LATE_REPORT)) {
      await(almanac.pause(task));
    }
    assertNothingOpen();
    System.out.println(new LiveTable(almanac, START, Duration.ofHours(1), LiveTable.pools(testKit.system().settings().config()))
        .render(Duration.ofSeconds(10)));

    poolThrottledAndRetriedWithoutCountingARetry();
    poolNeverExceededItsLimit();
    budgetRanOut();
    deadlineMissed(lateDue);
    holidayExcluded();
    liveTableShowsIt();
  }

  private void poolThrottledAndRetriedWithoutCountingARetry() {
    List<TaskJournal.Event> events = journal(DemoTasks.MODEL_CALL);
    List<TaskJournal.AttemptFailed> throttled = events.stream().filter(e -> e instanceof TaskJournal.AttemptFailed f
        && f.throttled()).map(e -> (TaskJournal.AttemptFailed) e).toList();
    assertFalse(throttled.isEmpty(), "no throttled attempt in the journal: " + events);
    for (TaskJournal.AttemptFailed f : throttled) {
      assertEquals(DemoTasks.THROTTLE_WAIT, f.throttledFor(), f.toString());
      int at = events.indexOf(f);
      // the retries counted on the window before the throttle: 0 (model-call has no retry policy)
      TaskJournal.RetryScheduled retry = events.subList(at + 1, events.size()).stream()
          .filter(e -> e instanceof TaskJournal.RetryScheduled r && r.window().equals(f.window()))
          .map(e -> (TaskJournal.RetryScheduled) e).findFirst()
          .orElseThrow(() -> new AssertionError("no retry after the throttled attempt " + f));
      int before = events.subList(0, at).stream().filter(e -> e instanceof TaskJournal.RetryScheduled r
          && r.window().equals(f.window())).mapToInt(e -> ((TaskJournal.RetryScheduled) e).retryNumber()).max().orElse(0);
      assertEquals(before, retry.retryNumber(), "a throttled attempt counts no retry: " + retry);
      assertEquals(f.at().plus(DemoTasks.THROTTLE_WAIT), retry.dueAt(), retry.toString());
      // ... and the window was tried again: the next attempt of the window started
      assertTrue(events.subList(at + 1, events.size()).stream().anyMatch(e -> e instanceof TaskJournal.AttemptStarted a
          && a.window().equals(f.window()) && a.attempt() == f.attempt() + 1), "not tried again: " + f);
      WindowView w = window(DemoTasks.MODEL_CALL, Instant.parse(f.window()));
      assertEquals(InstanceStatus.SUCCEEDED, w.status(), "a throttled window succeeds when tried again: " + w);
      assertEquals(0, w.retries(), "no retry counted: " + w);
    }
    // the pool paused: windows that fired during the 8 s pause (model-call fires every 5 s) waited
    // for it, by the journal
    List<TaskJournal.PoolWaited> waits = new ArrayList<>();
    for (String task : POOLED) {
      journal(task).stream().filter(e -> e instanceof TaskJournal.PoolWaited).forEach(e -> waits.add((TaskJournal.PoolWaited) e));
    }
    assertTrue(waits.stream().allMatch(w -> w.pool().equals(DemoTasks.LLM_POOL)), waits.toString());
    assertTrue(waits.stream().anyMatch(w -> w.reason() == io.almanac.PoolWaitReason.PAUSED && w.until() != null
        && throttled.stream().anyMatch(f -> !w.at().isBefore(f.at()) && !w.until().isAfter(f.at().plus(DemoTasks.THROTTLE_WAIT)))),
        "no window waited for a throttle's pause: " + waits);
  }

  private void poolNeverExceededItsLimit() {
    int max = ConfigFactory.parseResources("application.conf").getInt("almanac.pools.llm.max-concurrent");
    assertEquals(2, max);
    assertTrue(poolRuns.get() >= 6, "the pool's tasks ran " + poolRuns.get() + " times");
    assertTrue(maxInPool.get() <= max, "the pool ran " + maxInPool.get() + " jobs at once, its max-concurrent is " + max);
  }

  private void budgetRanOut() {
    List<WindowView> ws = await(almanac.windows(DemoTasks.TOKEN_SPENDER)).stream()
        .sorted(Comparator.comparing(WindowView::dueAt)).toList();
    List<WindowView> succeeded = ws.stream().filter(w -> w.status() == InstanceStatus.SUCCEEDED).toList();
    assertTrue(succeeded.size() >= 3, "0.03 a day at 0.01 a run: " + ws);
    // The budget is checked when a window fires (docs/budgets.md): a window that fired before the third run's cost was
    // recorded, and waited for the pool (paused by a throttle) meanwhile, still runs; none that fired after it does.
    // (Windows may end out of their due order, so no window is singled out by its place in that order.)
    Instant thirdRecorded = journal(DemoTasks.TOKEN_SPENDER).stream().filter(e -> e instanceof TaskJournal.AttemptSucceeded)
        .map(e -> ((TaskJournal.AttemptSucceeded) e).at()).sorted().skip(2).findFirst().orElseThrow();
    assertTrue(succeeded.stream().noneMatch(w -> w.createdAt().isAfter(thirdRecorded)),
        "a run beyond the third fired after the budget was spent at " + thirdRecorded + ": " + ws);
    List<WindowView> exhausted = ws.stream().filter(w -> w.skipReason() == SkipReason.BUDGET_EXHAUSTED).toList();
    assertFalse(exhausted.isEmpty(), "no BUDGET_EXHAUSTED window: " + ws);
    Instant third = succeeded.get(2).dueAt();
    assertTrue(exhausted.stream().allMatch(w -> w.dueAt().isAfter(third) && w.status() == InstanceStatus.SKIPPED),
        "skipped only after the third run: " + exhausted);
    // every window due after the budget was spent (and after the third run had ended) was skipped for it
    Instant spent = journal(DemoTasks.TOKEN_SPENDER).stream().filter(e -> e instanceof TaskJournal.AttemptSucceeded)
        .map(e -> ((TaskJournal.AttemptSucceeded) e).at()).max(Comparator.naturalOrder()).orElseThrow();
    assertTrue(ws.stream().filter(w -> w.dueAt().isAfter(spent))
        .allMatch(w -> w.skipReason() == SkipReason.BUDGET_EXHAUSTED), "a window after " + spent + " was not skipped: " + ws);
    assertTrue(journal(DemoTasks.TOKEN_SPENDER).stream().anyMatch(e -> e instanceof TaskJournal.FireSkipped f
        && f.reason() == SkipReason.BUDGET_EXHAUSTED || e instanceof TaskJournal.SkipRangeOpened r && r.skipReason() == SkipReason.BUDGET_EXHAUSTED
        || e instanceof TaskJournal.WindowsSkipped r2 && r2.skipReason() == SkipReason.BUDGET_EXHAUSTED), "the journal records the budget skips");
    DailyUsage usage = await(almanac.usage(DemoTasks.TOKEN_SPENDER));
    assertEquals(LocalDate.of(2026, 11, 29), usage.day());
    assertEquals(0, new BigDecimal("0.01").multiply(BigDecimal.valueOf(succeeded.size())).compareTo(usage.cost()),
        usage.toString());
    assertTrue(usage.exhausted(), usage.toString());
    assertEquals(exhausted.size(), usage.windowsSkipped(), usage.toString());
    assertEquals(1, alerts.stream().filter(a -> a.kind() == Alert.Kind.BUDGET_EXHAUSTED
        && DemoTasks.TOKEN_SPENDER.equals(a.taskId())).count(), "one alert for the day: " + alerts);
  }

  private void deadlineMissed(Instant lateDue) {
    assertNotNull(lateDue);
    List<TaskJournal.DeadlineMissed> misses = journal(DemoTasks.LATE_REPORT).stream()
        .filter(e -> e instanceof TaskJournal.DeadlineMissed).map(e -> (TaskJournal.DeadlineMissed) e).toList();
    TaskJournal.DeadlineMissed first = misses.stream().filter(m -> m.window().equals(lateDue.toString())).findFirst()
        .orElseThrow(() -> new AssertionError("no DeadlineMissed for " + lateDue + ": " + misses));
    assertEquals(lateDue.plusSeconds(4), first.deadline());
    assertEquals(InstanceStatus.RUNNING, first.status(), "missed while it ran: " + first);
    assertEquals(misses.size(), misses.stream().map(TaskJournal.DeadlineMissed::window).distinct().count(), "once per window");
    WindowView w = window(DemoTasks.LATE_REPORT, lateDue);
    assertEquals(InstanceStatus.SUCCEEDED, w.status(), "it succeeded, late: " + w);
    assertNotNull(w.deadlineMissedAt());
    assertTrue(alerts.stream().anyMatch(a -> a.kind() == Alert.Kind.DEADLINE_MISSED && lateDue.toString().equals(a.window())),
        alerts.toString());
  }

  private void holidayExcluded() {
    // the day's windows are one skip range (docs/skip-ranges.md), listed as its first window; every one of them
    // was decided skipped (the node's decisions)
    List<WindowView> ws = await(almanac.windows(DemoTasks.HOLIDAY_CHECK));
    assertFalse(ws.isEmpty(), "no window of " + DemoTasks.HOLIDAY_CHECK);
    double skipped = registry.find("almanac.decisions").tag("task", DemoTasks.HOLIDAY_CHECK).tag("decision", "skipped")
        .counters().stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    assertTrue(skipped >= 4, "windows skipped: " + skipped + "; " + ws);
    for (WindowView w : ws) {
      assertEquals(InstanceStatus.SKIPPED, w.status(), w.toString());
      assertEquals(SkipReason.EXCLUDED, w.skipReason(), w.toString());
      assertTrue(w.reason().contains(DemoTasks.HOLIDAYS), w.reason());
    }
    assertTrue(journal(DemoTasks.HOLIDAY_CHECK).stream().anyMatch(e -> e instanceof TaskJournal.FireSkipped f
        && f.reason() == SkipReason.EXCLUDED || e instanceof TaskJournal.SkipRangeOpened r && r.skipReason() == SkipReason.EXCLUDED
        || e instanceof TaskJournal.WindowsSkipped r2 && r2.skipReason() == SkipReason.EXCLUDED), "the journal records the exclusions");
  }

  private void liveTableShowsIt() {
    String table = new LiveTable(almanac, START, Duration.ofHours(1), LiveTable.pools(testKit.system().settings().config()))
        .render(Duration.ofSeconds(10));
    assertTrue(table.lines().anyMatch(l -> l.startsWith("  pool llm: ") && l.contains(" of 2 in use")
        && !l.contains("admitted 0")), table);
    assertTrue(table.lines().anyMatch(l -> l.contains("throttled attempts") && !l.endsWith(": 0")), table);
    // a window that fired before the limit and waited for the llm pool still runs (docs/budgets.md), so the day's
    // cost can pass the limit: the table shows what the node summed, which is at least the limit
    DailyUsage usage = await(almanac.usage(DemoTasks.TOKEN_SPENDER));
    assertTrue(usage.cost().compareTo(new BigDecimal("0.03")) >= 0, usage.toString());
    assertTrue(table.lines().anyMatch(l -> l.startsWith("  budget token-spender: " + usage.cost().toPlainString()
        + " of 0.03 spent on 2026-11-29") && l.contains("EXHAUSTED")), table);
    assertTrue(table.lines().anyMatch(l -> l.contains("token-spender") && l.contains("BUDGET_EXHAUSTED (the task's budget")), table);
    assertTrue(table.lines().anyMatch(l -> l.contains("holiday-check") && l.contains("EXCLUDED (its date is in an exclusion")),
        table);
    assertTrue(table.lines().anyMatch(l -> l.contains("late-report") && l.contains("LATE (missed its deadline")), table);
  }

  // ---------------------------------------------------------------------------------------------

  /** @return the demo's tasks with a window due at t (the clock's second) */
  private static List<String> dueAt(Instant t) {
    int s = (int) (t.getEpochSecond() % 60);
    List<String> due = new ArrayList<>();
    if (s % 5 == 0) {
      due.add(DemoTasks.MODEL_CALL);
    }
    if (s % 10 == 0) {
      due.add(DemoTasks.TOKEN_SPENDER);
    }
    if (s % 30 == 20) {
      due.add(DemoTasks.LATE_REPORT);
    }
    if (s % 15 == 0) {
      due.add(DemoTasks.HOLIDAY_CHECK);
    }
    return due;
  }

  /**
   * Moves the clock to t, waits for the windows due then, and for the pool's running jobs: they take
   * real time (300 ms) and the clock moves when the test says, so a second of the clock is not
   * shorter than they are.
   */
  private void stepTo(Instant t) {
    java.util.Map<String, Double> before = new java.util.HashMap<>();
    for (String task : dueAt(t)) {
      before.put(task, decisions(task));
    }
    clock.set(t);
    for (String task : dueAt(t)) {
      // decided: a window of its own, or covered by a skip range (docs/skip-ranges.md), counted as a decision
      eventually(Duration.ofSeconds(10), () -> assertTrue(await(almanac.windows(task)).stream()
          .anyMatch(w -> w.dueAt().equals(t)) || decisions(task) > before.get(task), task + " has no window due " + t
          + " and no decision since"));
    }
    eventually(Duration.ofSeconds(10), this::assertNoPoolJobRunning);
  }

  /** The decisions on a task's windows so far (the node's {@code almanac.decisions}, every kind and reason). */
  private double decisions(String task) {
    return registry.find("almanac.decisions").tag("task", task).counters().stream()
        .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
  }

  private boolean nothingOpenWithin(Duration d) {
    try {
      Eventually.eventually(d, this::assertNothingOpen);
      return true;
    } catch (Exception | AssertionError open) {
      return false;
    }
  }

  private void assertNoPoolJobRunning() {
    assertEquals(0, inPool.get(), "jobs of the pool running");
    for (String task : POOLED) {
      assertTrue(await(almanac.windows(task)).stream().noneMatch(w -> w.status() == InstanceStatus.RUNNING), task + " running");
    }
  }

  private void assertNothingOpen() {
    for (String task : List.of(DemoTasks.MODEL_CALL, DemoTasks.TOKEN_SPENDER, DemoTasks.LATE_REPORT)) {
      List<WindowView> open = await(almanac.windows(task)).stream().filter(w -> !w.status().isTerminal()).toList();
      assertTrue(open.isEmpty(), task + " still open at " + clock.instant() + ": " + open);
    }
  }

  /** The task's events, as the journal holds them. */
  private List<TaskJournal.Event> journal(String task) {
    JdbcReadJournal read = PersistenceQuery.get(testKit.system().classicSystem())
        .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
    List<EventEnvelope> envelopes = read.currentEventsByPersistenceId(TaskJournal.persistenceId(task), 0, Long.MAX_VALUE)
        .runWith(Sink.seq(), testKit.system()).toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
    return envelopes.stream().map(e -> (TaskJournal.Event) e.event()).toList();
  }

  private WindowView window(String task, Instant due) {
    return await(almanac.windows(task)).stream().filter(w -> w.dueAt().equals(due)).findFirst()
        .orElseThrow(() -> new AssertionError("no window due " + due + " of " + task));
  }

  private static <T> T await(CompletionStage<T> stage) {
    return stage.toCompletableFuture().orTimeout(15, TimeUnit.SECONDS).join();
  }

  private static void eventually(Duration timeout, Eventually.Assertion assertion) {
    try {
      Eventually.eventually(timeout, assertion);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
