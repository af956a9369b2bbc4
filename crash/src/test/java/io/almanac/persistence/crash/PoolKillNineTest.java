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
 * then a new node starts on the same journal and pool tables. The dead node's holds expire or are
 * purged: the new node runs 2 jobs at once again (the pool reaches its limit), never more (counted from
 * the jobs' own lines, the killed jobs counted until the kill), every window SUCCEEDED once (an attempt
 * orphaned by the kill is retried after its lease), and after the normal stop the pool holds nothing.
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

  @Test
  @DisplayName("pools: kill -9 of a node holding both slots of a pool of 2 on PostgreSQL; after the restart the pool "
      + "reaches 2 again and never more, nothing leaked")
  void slotsComeBack() throws Exception {
    Pg pg = Pg.shared().require();
    String schema = Pg.newSchema("almanac_poolkill");
    CrashRun run = CrashRun.create("poolkill-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-poolkill"),
        "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
    Map<String, String> extra = Map.of("tasks", "pool", "hocon", HOCON, "pool-job-ms", "2000-3000");
    List<String> lines = new CopyOnWriteArrayList<>();
    List<String> windows = new ArrayList<>();
    Instant killedAt;
    String killedNode;
    Instant restartReady;
    Instant firstReady;
    Map<String, Integer> heldAtKill;
    try (ChildJvm node = run.startNode(extra)) {
      AtomicInteger running = new AtomicInteger();
      CompletableFuture<Void> full = new CompletableFuture<>();
      node.onLine(l -> {
        if (l.startsWith("POOL-JOB ")) {
          lines.add(l);
          int now = l.startsWith("POOL-JOB START ") ? running.incrementAndGet() : running.decrementAndGet();
          if (now >= MAX_CONCURRENT && full.complete(null)) {
            node.destroyNow(); // both slots held: kill -9 at once, from the reader thread
          }
        }
      });
      firstReady = run.awaitReady(node);
      Instant firstDue = Instant.now().plusSeconds(8).truncatedTo(ChronoUnit.SECONDS);
      var registered = node.nextLine(l -> l.startsWith("REGISTERED pool ") || l.startsWith("REGISTER-FAILED pool "));
      node.send("REGISTER-POOL pool " + TASKS + " " + firstDue.toEpochMilli() + " 3000 " + PER_DUE + " shared");
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
      run.log("kill -9 of " + killedNode + " (pid " + node.pid() + ") while it ran " + MAX_CONCURRENT + " pool jobs: "
          + PoolTimeline.parse(lines).unended());
    }
    heldAtKill = PoolStoreProbe.inUse(run);
    run.log("the pool store right after the kill: " + heldAtKill);
    try (ChildJvm node = run.startNode(extra)) {
      node.onLine(l -> {
        if (l.startsWith("POOL-JOB ")) {
          lines.add(l);
        }
      });
      restartReady = run.awaitReady(node);
      List<CompletableFuture<String>> awaited = new ArrayList<>();
      for (String w : windows) {
        String expect = "AWAITED " + w;
        awaited.add(node.nextLine(expect::equals));
        node.send("AWAIT-SUCCEEDED " + w);
      }
      Instant deadline = Instant.now().plus(Duration.ofSeconds(240));
      for (CompletableFuture<String> a : awaited) {
        node.await(a, Duration.ofMillis(Math.max(1, Duration.between(Instant.now(), deadline).toMillis())));
      }
      run.log("every window SUCCEEDED " + CrashReport.secs(Duration.between(restartReady, Instant.now())) + " after the restart");
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
    assertEquals(List.of(), t.unmatched());
    assertEquals(MAX_CONCURRENT, heldAtKill.getOrDefault("shared", -1), "the dead node's holds in the store after the kill");
    assertTrue(all.count() <= MAX_CONCURRENT, "more than " + MAX_CONCURRENT + " jobs at once: " + all);
    assertEquals(MAX_CONCURRENT, afterRestart.count(), "after the restart the pool never reached its limit again (a leaked "
        + "slot?): " + afterRestart + "; see " + run.dir);
    assertTrue(t.unended().stream().allMatch(r -> r.node().equals(killedNode) && r.start().isBefore(killedAt)),
        "only the killed jobs have no END: " + t.unended());
    assertEquals(List.of(), notOnce, "windows that did not end exactly once");
    assertEquals(0, heldAfter.getOrDefault("shared", -1), "holds left in the pool after the final stop (leaked)");
    if (!check.ok()) {
      fail("the journal does not hold up (kept in " + run.dir + "):\n" + check.describe());
    }
    if (!CrashRun.keep()) {
      pg.dropSchema(schema);
    }
  }
}
