package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A node holding a pool's slots killed with {@code kill -9}: its holds are not leaked. A child JVM
 * ({@link CrashNode} with {@code --tasks pool}, on PostgreSQL) runs one-shot tasks through the pool
 * {@code shared} ({@code max-concurrent = 2}), more than the pool has room for; the moment it runs two
 * jobs at once (both slots held, as its START lines show and the pool store confirms) it gets SIGKILL,
 * then a new node starts on the same journal (and the pool's, {@code pool|shared}). The dead node's holds
 * expire and nothing takes them over: the two killed windows are recorded interrupted (NODE_LOST) and
 * resumed, without a retry (the tasks have none), once the pool has room again; the new node (another address: its declare does not delete them) starts no job of the
 * pool until they expired ({@code hold-ttl} 10 s, renewed every 2 s), then runs 2 jobs at once again
 * (the pool reaches its limit), never more (counted from the jobs' own lines, the killed jobs counted
 * until the kill); every window, the killed ones by their resumed attempt, SUCCEEDED once, and after the normal stop the pool holds nothing.
 *
 * <p>Budgets, on the same node and kill: two tasks every second whose job reports usage ({@link
 * BudgetNode}): {@link #SMALL} spends its day's budget before the kill and must stay over it after
 * the restart (the same cost, its windows skipped {@code BUDGET_EXHAUSTED}, no job of it run);
 * {@link #BIG} spends before and after the kill until its budget is spent. At the end each task's day
 * usage, as its entity recovered it from the journal, equals the sum of the usage on its recorded
 * results (no acknowledged result lost, none counted twice).
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
@Execution(ExecutionMode.CONCURRENT)
@Tag("crash")
class PoolKillNineTest {

  static final int MAX_CONCURRENT = 2;

  /** One-shot tasks through the pool: 4 due at once, 3 s apart. */
  static final int TASKS = 12;

  static final int PER_DUE = 4;

  /** The pool, and holds that outlive a dead node by 10 s (renewed every 2 s), so the test need not wait 30 s. */
  static final String HOCON = PoolClusterTest.POOL_HOCON + "\nalmanac.pool-store.hold-ttl = 10s\nalmanac.pool-store.renew-interval = 2s";

  /** A task over budget before the kill: 0.10 an attempt, 0.50 a day (5 attempts). */
  static final String SMALL = "budget-10c-small";

  static final String SMALL_BUDGET = "0.5";

  /** A task that spends before and after the kill: 0.01 an attempt, 0.40 a day (40 attempts, one a second). */
  static final String BIG = "budget-1c-big";

  static final String BIG_BUDGET = "0.4";

  @Test
  @DisplayName("pools and budgets: kill -9 of a node holding both slots of a pool of 2 on PostgreSQL; after the restart "
      + "the pool reaches 2 again and never more, nothing leaked; the day's usage is the journal's, an exhausted budget stays so")
  void slotsAndBudgetsComeBack() throws Exception {
    Pg pg = Pg.shared().require();
    String schema = Pg.newSchema("almanac_poolkill");
    CrashRun run = CrashRun.create("poolkill-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-poolkill"),
        "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
    Map<String, String> extra = Map.of("tasks", "pool", "hocon", HOCON, "pool-job-ms", "2000-3000");
    List<String> lines = new CopyOnWriteArrayList<>();
    List<String> windows = new ArrayList<>();
    List<String> killedWindows;
    Instant killedAt;
    String killedNode;
    Instant restartReady;
    Instant firstReady;
    Map<String, Integer> heldAtKill;
    Usage smallBefore;
    Usage bigBefore;
    Usage smallAfterRestart;
    Usage smallEnd;
    Usage bigEnd;
    try (ChildJvm node = run.startNode(extra)) {
      AtomicInteger running = new AtomicInteger();
      CompletableFuture<Void> full = new CompletableFuture<>();
      node.onLine(l -> {
        if (l.startsWith("BUDGET-JOB ")) {
          lines.add(l);
        }
        if (l.startsWith("POOL-JOB ")) {
          lines.add(l);
          int now = l.startsWith("POOL-JOB START ") ? running.incrementAndGet() : running.decrementAndGet();
          if (now >= MAX_CONCURRENT && full.complete(null)) {
            node.destroyNow(); // both slots held: kill -9 at once, from the reader thread
          }
        }
      });
      firstReady = run.awaitReady(node);
      var budgets = node.nextLine(l -> l.startsWith("REGISTERED budget ") || l.startsWith("REGISTER-FAILED budget "));
      node.send("REGISTER-BUDGET " + SMALL + " " + SMALL_BUDGET + " " + BIG + " " + BIG_BUDGET);
      String b = node.await(budgets, Duration.ofSeconds(120));
      assertTrue(b.startsWith("REGISTERED"), b);
      smallBefore = awaitUsage(node, SMALL, u -> u.exhausted(), Instant.now().plusSeconds(120));
      bigBefore = usage(node, BIG);
      run.log("before the kill: " + smallBefore + "; " + bigBefore);
      Instant firstDue = Instant.now().plusSeconds(8).truncatedTo(ChronoUnit.SECONDS);
      var registered = node.nextLine(l -> l.startsWith("REGISTERED pool ") || l.startsWith("REGISTER-FAILED pool "));
      node.send("REGISTER-POOL pool " + TASKS + " " + firstDue.toEpochMilli() + " 3000 " + PER_DUE + " shared noretry");
      String answer = node.await(registered, Duration.ofSeconds(120));
      assertTrue(answer.startsWith("REGISTERED"), answer);
      for (int i = 0; i < TASKS; i++) {
        windows.add("pool-" + (i + 1) + " " + firstDue.plusMillis(3000L * (i / PER_DUE)));
      }
      try {
        full.get(120, TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        fail("the node never ran " + MAX_CONCURRENT + " pool jobs at once; see " + node.output());
      }
      node.kill9();
      killedAt = Instant.now();
      killedNode = PoolTimeline.parse(lines).runs().get(0).node();
      killedWindows = PoolTimeline.parse(lines).unended().stream().map(r -> r.task() + " " + r.window()).toList();
      run.log("kill -9 of " + killedNode + " (pid " + node.pid() + ") while it ran " + MAX_CONCURRENT + " pool jobs: "
          + PoolTimeline.parse(lines).unended());
    }
    heldAtKill = PoolStoreProbe.inUse(run);
    run.log("the pool store right after the kill: " + heldAtKill);
    try (ChildJvm node = run.startNode(extra)) {
      node.onLine(l -> {
        if (l.startsWith("POOL-JOB ") || l.startsWith("BUDGET-JOB ")) {
          lines.add(l);
        }
      });
      restartReady = run.awaitReady(node);
      smallAfterRestart = usage(node, SMALL);
      List<CompletableFuture<String>> awaited = new ArrayList<>();
      for (String w : windows) {
        // the killed ones too: interrupted (NODE_LOST) and resumed, no retry spent
        String expect = "AWAITED " + w;
        awaited.add(node.nextLine(expect::equals));
        node.send("AWAIT-SUCCEEDED " + w);
      }
      Instant deadline = Instant.now().plus(Duration.ofSeconds(240));
      for (CompletableFuture<String> a : awaited) {
        node.await(a, Duration.ofMillis(Math.max(1, Duration.between(Instant.now(), deadline).toMillis())));
      }
      run.log("every window, the killed ones resumed, SUCCEEDED " + CrashReport.secs(Duration.between(restartReady, Instant.now())) + " after the restart");
      bigEnd = awaitUsage(node, BIG, u -> u.exhausted(), Instant.now().plusSeconds(180));
      smallEnd = usage(node, SMALL);
      run.log("after the restart: " + smallAfterRestart + "; at the end " + smallEnd + "; " + bigEnd);
      assertEquals(0, node.stop(Duration.ofSeconds(60)), "the node did not stop normally; see " + node.output());
    }
    Map<String, Integer> heldAfter = PoolStoreProbe.inUse(run);

    PoolTimeline t = PoolTimeline.parse(lines);
    Map<String, Instant> deaths = Map.of(killedNode, killedAt);
    PoolTimeline.Peak all = t.peak(deaths);
    PoolTimeline.Peak afterRestart = t.peakBetween(restartReady, Instant.MAX, deaths);
    Instant firstAfter = t.runs().stream().map(PoolTimeline.Run::start).filter(s -> s.isAfter(killedAt)).findFirst().orElse(null);
    List<String> notOnce = new ArrayList<>();
    Map<String, List<PoolTimeline.Run>> byWindow = t.byWindow();
    for (String w : windows) {
      long ended = byWindow.getOrDefault(w, List.of()).stream().filter(r -> r.end() != null).count();
      if (ended != 1) {
        notOnce.add(w + ": " + byWindow.get(w));
      }
    }
    run.log("runs " + t.runs().size() + " (killed unended: " + t.unended() + "); most at once " + all.count() + " at " + all.at()
        + "; after the restart " + afterRestart.count() + "; first job after the kill "
        + (firstAfter == null ? "none" : CrashReport.secs(Duration.between(killedAt, firstAfter)) + " after it")
        + "; pool store after the kill " + heldAtKill + ", after the final stop " + heldAfter);
    JournalCheck check = run.check(KillNineTest.GRACE, firstReady);
    List<io.almanac.persistence.audit.PoolAudit.Report> pools = PoolStoreProbe.audit(run);
    run.log("the pools' journals: " + pools);
    Map<String, Spent> journal = spent(run, smallEnd.day());
    Map<String, List<String>> killedEvents = eventsOf(run, killedWindows);
    run.log("the killed windows' events: " + killedEvents);
    List<String> smallLines = lines.stream().filter(l -> l.startsWith("BUDGET-JOB END " + SMALL + " ")).toList();
    run.log("usage in the journal, of " + smallEnd.day() + ": " + journal + "; the small task's job lines " + smallLines.size());
    assertEquals(List.of(), t.unmatched());
    assertEquals(MAX_CONCURRENT, heldAtKill.getOrDefault("shared", -1), "the dead node's holds in the store after the kill");
    assertTrue(all.count() <= MAX_CONCURRENT, "more than " + MAX_CONCURRENT + " jobs at once: " + all);
    assertEquals(MAX_CONCURRENT, afterRestart.count(), "after the restart the pool never reached its limit again (a leaked "
        + "slot?): " + afterRestart + "; see " + run.dir);
    assertTrue(t.unended().stream().allMatch(r -> r.node().equals(killedNode) && r.start().isBefore(killedAt)),
        "only the killed jobs have no END: " + t.unended());
    assertEquals(List.of(), notOnce, "windows that did not end exactly once (the killed ones by their resumed attempt)");
    assertEquals(MAX_CONCURRENT, killedWindows.size(), "the killed windows: " + killedWindows);
    killedEvents.forEach((w, evs) -> assertTrue(evs.contains("AttemptInterrupted") && evs.contains("AttemptSucceeded")
        && !evs.contains("InstanceFinalFailed") && !evs.contains("RetryScheduled"),
        "a killed window is interrupted and resumed, no retry spent, not failed: " + w + " " + evs));
    // the dead node's holds counted until they expired: renewed every 2 s, they live 10 s, so none of the new
    // node's jobs starts before 7 s after the kill (1 s slack for the clocks' reading), and the pool fills again
    assertTrue(firstAfter != null && !firstAfter.isBefore(killedAt.plusSeconds(7)), "a job started " + (firstAfter == null
        ? "never" : Duration.between(killedAt, firstAfter)) + " after the kill, while the dead node's holds were live");
    assertEquals(Map.of(), heldAfter, "holds live in the pool after the final stop (leaked)");
    assertTrue(pools.stream().allMatch(io.almanac.persistence.audit.PoolAudit.Report::ok),
        "the pools' journals break their invariants (the dead node's holds counted until they expired): " + pools);
    // budgets: the usage of the acknowledged results (the journal's) is what the task's state says after the
    // crash, neither lost nor counted twice; the task over budget before the kill stays over it. A run across
    // midnight UTC reads a new, empty budget day after the restart (it failed so at 00:02 UTC): the budget part is
    // then not judged, said as an aborted assumption, not passed (everything above is judged all the same)
    org.junit.jupiter.api.Assumptions.assumeTrue(smallBefore.day().equals(smallEnd.day()),
        "the run crossed midnight UTC (" + smallBefore.day() + " -> " + smallEnd.day() + "): the budget day changed, "
            + "the budget checks are not judged in this run");
    assertEquals(journal.get(SMALL).cost(), smallEnd.cost(), "the small task's day cost against the journal's results");
    assertEquals(journal.get(SMALL).results(), smallEnd.attempts(), "the small task's results with usage");
    assertEquals(journal.get(BIG).cost(), bigEnd.cost(), "the big task's day cost against the journal's results (some "
        + "before the kill, some after)");
    assertEquals(journal.get(BIG).results(), bigEnd.attempts(), "the big task's results with usage");
    assertTrue(smallBefore.exhausted() && smallAfterRestart.exhausted() && smallEnd.exhausted(),
        "the small task was over budget before the kill and must stay so: " + smallBefore + ", " + smallAfterRestart + ", " + smallEnd);
    assertEquals(smallBefore.cost(), smallAfterRestart.cost(), "the small task's cost after the restart");
    assertEquals(smallBefore.cost(), smallEnd.cost(), "the small task spent after it was over budget");
    assertTrue(smallEnd.cost().compareTo(new java.math.BigDecimal(SMALL_BUDGET)) >= 0, "over budget: " + smallEnd);
    assertEquals(smallBefore.attempts(), smallLines.size(), "the small task's job ran after it was over budget: " + smallLines);
    // skipped after the restart: a skip written since, or the range opened before the kill still open at the end
    // (with no job of the small task since, checked above by its job lines)
    assertTrue(journal.get(SMALL).budgetSkippedAfter(restartReady), "no window of the small task was skipped "
        + "BUDGET_EXHAUSTED after the restart: " + journal.get(SMALL));
    assertTrue(bigEnd.exhausted() && bigEnd.cost().compareTo(new java.math.BigDecimal(BIG_BUDGET)) >= 0, "the big task "
        + "spent its budget: " + bigEnd);
    assertTrue(bigBefore.cost().signum() > 0 && bigBefore.cost().compareTo(bigEnd.cost()) < 0,
        "the big task spent both before the kill and after it: " + bigBefore + " then " + bigEnd);
    if (!check.ok()) {
      fail("the journal does not hold up (kept in " + run.dir + "):\n" + check.describe());
    }
    if (!CrashRun.keep()) {
      pg.dropSchema(schema);
    }
  }

  /** A {@code USAGE-OF} answer (see {@link BudgetNode}). */
  record Usage(String task, java.time.LocalDate day, java.math.BigDecimal cost, long attempts, boolean exhausted,
      long windowsSkipped) {
    static Usage parse(String line) {
      String[] f = line.split(" ");
      return new Usage(f[1], java.time.LocalDate.parse(f[2]), new java.math.BigDecimal(f[3]).stripTrailingZeros(),
          Long.parseLong(f[4]), Boolean.parseBoolean(f[5]), Long.parseLong(f[6]));
    }
  }

  static Usage usage(ChildJvm node, String task) {
    var answer = node.nextLine(l -> l.startsWith("USAGE-OF " + task + " ") || l.startsWith("USAGE-FAILED " + task + " "));
    node.send("USAGE " + task);
    String l = node.await(answer, Duration.ofSeconds(30));
    assertTrue(l.startsWith("USAGE-OF"), l);
    return Usage.parse(l);
  }

  /** Asks every 500 ms until the usage matches (the task's entity says so), or fails at the deadline. */
  static Usage awaitUsage(ChildJvm node, String task, java.util.function.Predicate<Usage> done, Instant deadline)
      throws InterruptedException {
    while (true) {
      Usage u = usage(node, task);
      if (done.test(u)) {
        return u;
      }
      if (Instant.now().isAfter(deadline)) {
        fail("the usage of " + task + " did not come to the expected state by " + deadline + ": " + u);
      }
      Thread.sleep(500);
    }
  }

  /**
   * What the journal says a task spent on a day (UTC): the usage of its recorded results (successes,
   * failures, late results), and when its windows were skipped because the budget was spent.
   */
  record Spent(java.math.BigDecimal cost, long results, List<Instant> budgetSkips, String openBudgetRange) {
    long budgetSkipsAfter(Instant t) {
      return budgetSkips.stream().filter(x -> x.isAfter(t)).count();
    }

    /**
     * Whether the task's windows due after {@code t} were skipped BUDGET_EXHAUSTED: a skip written after
     * it, or a BUDGET_EXHAUSTED skip range still open at the end, which covers every window due since its
     * first one (docs/skip-ranges.md: its windows after the first have no event until it closes).
     */
    boolean budgetSkippedAfter(Instant t) {
      return budgetSkipsAfter(t) > 0 || openBudgetRange != null;
    }
  }

  static Map<String, Spent> spent(CrashRun run, java.time.LocalDate day) throws Exception {
    Map<String, Spent> m = new java.util.TreeMap<>();
    try (io.almanac.persistence.audit.AuditReader reader = io.almanac.persistence.audit.AuditReader.builder(run.journal())
        .start()) {
      for (String id : List.of(SMALL, BIG)) {
        long micros = 0;
        long results = 0;
        List<Instant> skips = new ArrayList<>();
        String budgetRange = null;
        for (io.almanac.persistence.audit.AuditEvent e : reader.read(id).events()) {
          Object ev = e.event();
          io.almanac.journal.UsageRecord u = null;
          Instant at = null;
          if (ev instanceof io.almanac.journal.TaskJournal.AttemptSucceeded x) {
            u = x.usage();
            at = x.at();
          } else if (ev instanceof io.almanac.journal.TaskJournal.AttemptFailed x) {
            u = x.usage();
            at = x.at();
          } else if (ev instanceof io.almanac.journal.TaskJournal.LateResultRecorded x) {
            u = x.usage();
            at = x.at();
          } else if (ev instanceof io.almanac.journal.TaskJournal.FireSkipped x
              && x.reason() == io.almanac.SkipReason.BUDGET_EXHAUSTED) {
            skips.add(x.at());
          } else if (ev instanceof io.almanac.journal.TaskJournal.SkipRangeOpened x
              && x.skipReason() == io.almanac.SkipReason.BUDGET_EXHAUSTED) {
            skips.add(x.at()); // a skip range (docs/skip-ranges.md): its first window, its others covered until its close
            budgetRange = x.window();
          } else if (ev instanceof io.almanac.journal.TaskJournal.WindowsSkipped x
              && x.skipReason() == io.almanac.SkipReason.BUDGET_EXHAUSTED) {
            skips.add(x.at());
          } else if (ev instanceof io.almanac.journal.TaskJournal.SkipRangeClosed x && x.window().equals(budgetRange)) {
            if (x.count() > 1) {
              skips.add(x.at()); // its covered windows were skipped until then
            }
            budgetRange = null;
          }
          if (u != null && at.atZone(java.time.ZoneOffset.UTC).toLocalDate().equals(day)) {
            micros += u.costMicros();
            results++;
          }
        }
        m.put(id, new Spent(java.math.BigDecimal.valueOf(micros, 6).stripTrailingZeros(), results, skips, budgetRange));
      }
    }
    return m;
  }

  /** Per window ({@code task window}), the types of its events in the journal, in order. */
  static Map<String, List<String>> eventsOf(CrashRun run, List<String> windows) throws Exception {
    Map<String, List<String>> m = new java.util.TreeMap<>();
    try (io.almanac.persistence.audit.AuditReader reader = io.almanac.persistence.audit.AuditReader.builder(run.journal())
        .start()) {
      for (String w : windows) {
        String[] f = w.split(" ");
        List<String> types = new ArrayList<>();
        for (io.almanac.persistence.audit.AuditEvent e : reader.read(f[0]).events()) {
          if (e.event() instanceof io.almanac.journal.TaskJournal.WindowEvent we && we.window().equals(f[1])) {
            types.add(e.type());
          }
        }
        m.put(w, types);
      }
    }
    return m;
  }
}
