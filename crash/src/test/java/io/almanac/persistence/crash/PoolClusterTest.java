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
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A named pool's limit holds across a 3-node cluster on PostgreSQL, judged from the jobs' own lines:
 * three child JVMs ({@link CrashNode} with {@code --tasks pool}, members of one cluster) share the
 * pool {@code shared} ({@code max-concurrent = 2}); {@link #TASKS} one-shot tasks name it, due in
 * bursts a few seconds apart, their entities spread over the three nodes by sharding. Each job prints
 * its START and END lines with its node and the wall clock (see {@link PoolNode}); from those lines
 * alone ({@link PoolTimeline}) the test finds the most attempts running at once across the cluster
 * and asserts that it never exceeds 2, that it reached 2 (the pool was saturated: the test can
 * fail), that jobs ran on more than one node (the limit was shared, not per node) and that every
 * window ran exactly once, its one attempt succeeded as the journal says (the entities are asked, with a
 * deadline, not after a fixed sleep). The audit verifier then reads the whole journal (I1-I7).
 *
 * <p>About a minute and a half on a quiet 2-core machine. {@code almanac.pool.cluster-tasks} sets
 * the number of tasks ({@code stress} profile: 120).
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
@Isolated // three JVMs: nothing else of this module runs beside them
@Tag("crash")
class PoolClusterTest {

  /** The pool's limit. */
  static final int MAX_CONCURRENT = 2;

  /** How many one-shot tasks name the pool ({@code almanac.pool.cluster-tasks}). */
  static final int TASKS = Integer.getInteger("almanac.pool.cluster-tasks", 30);

  /** Tasks due at each due time, 3 s apart: 6 due at once is 3 times the pool's room. */
  static final int PER_DUE = 6;

  /** The pool, as a user declares it in application.conf. */
  static final String POOL_HOCON = "almanac.pools.shared { max-concurrent = " + MAX_CONCURRENT + " }\n"
      + "almanac.pool-store.poll-interval = 500ms";

  /** Longest wait for every window to be SUCCEEDED, after the last due time. */
  static final Duration DONE_TIMEOUT = Duration.ofSeconds(Long.getLong("almanac.pool.done-timeout-seconds", 300));

  @Test
  @DisplayName("pools: a pool of 2 shared by 3 nodes on PostgreSQL; never more than 2 jobs at once across the cluster, "
      + "2 reached, every window run once")
  void limitHeldAcrossThreeNodes() throws Exception {
    Pg pg = Pg.shared().require();
    String schema = Pg.newSchema("almanac_pool3");
    CrashRun run = CrashRun.create("pool3-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-pool3"),
        "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
    int[] ports = ClusterFailoverTest.freePorts(3);
    String seeds = java.util.Arrays.stream(ports).mapToObj(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    run.log("3-node cluster on PostgreSQL schema " + schema + ", seeds " + seeds + "; pool shared, max-concurrent "
        + MAX_CONCURRENT + ", " + TASKS + " one-shot tasks, " + PER_DUE + " due every 3 s");
    List<String> lines = new CopyOnWriteArrayList<>();
    List<ChildJvm> nodes = new ArrayList<>();
    Instant firstReady = null;
    List<String> windows = new ArrayList<>();
    try {
      for (int port : ports) {
        nodes.add(start(run, port, seeds, lines));
      }
      for (ChildJvm n : nodes) {
        Instant r = run.awaitReady(n);
        firstReady = firstReady == null ? r : firstReady;
      }
      ChildJvm first = nodes.get(0);
      // due from a whole second 10 s ahead: the registration (36 specs, one ask) ends before it on a loaded
      // machine; a window due before the registration ended fires anyway (caught up, catch-up all)
      Instant firstDue = Instant.now().plusSeconds(10).truncatedTo(ChronoUnit.SECONDS);
      var registered = first.nextLine(l -> l.startsWith("REGISTERED pool ") || l.startsWith("REGISTER-FAILED pool "));
      first.send("REGISTER-POOL pool " + TASKS + " " + firstDue.toEpochMilli() + " 3000 " + PER_DUE + " shared");
      String answer = first.await(registered, Duration.ofSeconds(120));
      assertTrue(answer.startsWith("REGISTERED"), answer);
      run.log("registered: " + answer + ", first due " + firstDue);
      Instant lastDue = firstDue;
      List<CompletableFuture<String>> awaited = new ArrayList<>();
      for (int i = 0; i < TASKS; i++) {
        String task = "pool-" + (i + 1);
        Instant due = firstDue.plusMillis(3000L * (i / PER_DUE));
        lastDue = due;
        windows.add(task + " " + due);
        String expect = "AWAITED " + task + " " + due;
        awaited.add(first.nextLine(expect::equals));
        first.send("AWAIT-SUCCEEDED " + task + " " + due);
      }
      Instant deadline = lastDue.plus(DONE_TIMEOUT);
      for (CompletableFuture<String> a : awaited) {
        first.await(a, Duration.ofMillis(Math.max(1, Duration.between(Instant.now(), deadline).toMillis())));
      }
      run.log("every window SUCCEEDED, " + Duration.between(firstDue, Instant.now()).toSeconds() + " s after the first due time");
      // one after another, not at once: the journal's end must be more than the audit's grace after the
      // windows' due time for I2 to judge them (stopped at once, it ended within 5 s of them: exit 4, nothing checked)
      for (ChildJvm n : nodes) {
        int code = n.stop(Duration.ofSeconds(90));
        run.log(n.output().getFileName() + ": normal stop, exit code " + code);
        assertEquals(0, code, "a node did not stop normally; see " + n.output());
      }
    } finally {
      nodes.forEach(ChildJvm::close);
    }

    PoolTimeline t = PoolTimeline.parse(lines);
    PoolTimeline.Peak peak = t.peak(Map.of());
    Map<String, List<PoolTimeline.Run>> byWindow = t.byWindow();
    List<String> notOnce = new ArrayList<>();
    for (String w : windows) {
      List<PoolTimeline.Run> rs = byWindow.getOrDefault(w, List.of());
      if (rs.size() != 1) {
        notOnce.add(w + " ran " + rs.size() + " times " + rs);
      }
    }
    List<String> unexpected = byWindow.keySet().stream().filter(w -> !windows.contains(w)).toList();
    run.log("pool jobs: " + t.runs().size() + " runs of " + windows.size() + " windows; by node " + t.startsByNode()
        + "; most at once across the cluster " + peak.count() + " (first at " + peak.at() + ": " + peak.runs() + ")");
    JournalCheck check = run.check(ClusterFailoverTest.GRACE, firstReady);
    // the pool's own journal, written by its one entity across the three nodes: the same limit, by the audit's fold
    List<io.almanac.persistence.audit.PoolAudit.Report> pools = PoolStoreProbe.audit(run);
    run.log("the pools' journals: " + pools);
    CrashReport.publish(new CrashReport.Row(run.key, "pool of " + MAX_CONCURRENT + ", 3 nodes", "PostgreSQL", "-",
        check.report().stats().windowsChecked(), check.windowsLost(), check.registrationGap().size(),
        check.report().stats().doubleSuccesses(), check.effectsRepeated(), check.report().stats().longestRunningPastLease(),
        List.of(), peak.count() <= MAX_CONCURRENT && peak.count() == MAX_CONCURRENT && notOnce.isEmpty() && check.ok()
            ? "OK" : "FAILED",
        "most jobs at once " + peak.count() + " (limit " + MAX_CONCURRENT + "), runs by node " + t.startsByNode()
            + ", windows not run exactly once " + notOnce.size() + "; run folder " + run.dir));

    assertEquals(List.of(), t.unmatched(), "malformed or doubled POOL-JOB lines");
    assertEquals(List.of(), t.unended(), "jobs without an END line (no node was killed)");
    assertTrue(peak.count() <= MAX_CONCURRENT, "the pool's limit " + MAX_CONCURRENT + " was exceeded across the cluster: "
        + peak.count() + " jobs at once at " + peak.at() + ": " + peak.runs() + "; see " + run.dir);
    assertEquals(MAX_CONCURRENT, peak.count(), "the pool was never saturated (the test proves nothing): most at once "
        + peak.count() + "; see " + run.dir);
    assertTrue(t.startsByNode().size() >= 2, "every job ran on one node, so the limit was not shared: " + t.startsByNode());
    assertEquals(List.of(), notOnce, "windows not run exactly once");
    assertEquals(List.of(), unexpected, "runs of windows that were never due");
    assertEquals(List.of("shared"), pools.stream().map(io.almanac.persistence.audit.PoolAudit.Report::pool).toList());
    io.almanac.persistence.audit.PoolAudit.Report shared = pools.get(0);
    assertEquals(List.of(), shared.violations(), "the pool's journal breaks its invariants");
    assertEquals(MAX_CONCURRENT, shared.peakHolders(), "most live holds in the pool's journal: " + shared);
    assertTrue(shared.admissions() >= windows.size(), "every run took a hold in the pool's journal: " + shared);
    if (!check.ok()) {
      fail("the journal does not hold up (kept in " + run.dir + "):\n" + check.describe());
    }
    if (!CrashRun.keep()) {
      pg.dropSchema(schema);
    }
  }

  /** A member on its port, its POOL-JOB lines collected. */
  static ChildJvm start(CrashRun run, int port, String seeds, List<String> lines) {
    ChildJvm jvm = run.startNode(Map.of("cluster-port", String.valueOf(port), "seeds", seeds, "tasks", "pool",
        "hocon", POOL_HOCON, "pool-job-ms", "600-1200"));
    jvm.onLine(l -> {
      if (l.startsWith("POOL-JOB ")) {
        lines.add(l);
      }
    });
    return jvm;
  }
}
