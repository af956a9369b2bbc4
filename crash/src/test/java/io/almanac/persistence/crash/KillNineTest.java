package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.persistence.crash.CrashReport.Row;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Timeout;

/**
 * R24 with real process deaths: a child JVM runs {@link CrashNode} (tasks every second: quick,
 * long, failing first, ledgered effects) and is killed with SIGKILL, then started again on the
 * same journal, {@code almanac.crash.cycles} times (default 3; the {@code stress} profile of this
 * module's pom sets 20) on H2 and on PostgreSQL. After the last kill a final node runs a few
 * seconds and stops normally. Then, from the journal alone, the audit command must find I1-I7
 * holding over the whole run, the effects file must show no ledgered effect twice for a
 * window, and every attempt running at a kill must be recorded INTERRUPTED (NODE_LOST) at the next
 * start and resumed (run kind RESUME) in the same write: no retry spent, no window FINAL_FAILED by a
 * kill ({@link JournalCheck#interruptionsNotResumed()}).
 *
 * <p>The kills land at varied moments, cycle by cycle: {@code random} (2-6 s after READY),
 * {@code job-start} (right after a long or ledger job starts, i.e. after its AttemptStarted is
 * persisted), {@code effect} (right after a ledger effect's line is on disk, before the ledger
 * records it: the next attempt finds the outcome unknown), {@code persist-burst} (0-40 ms after a
 * second's boundary, while the second's fires are being persisted) and {@code early} (within 1 s
 * of READY, while tasks recover and catch up). The random seed is printed; set
 * {@code -Dalmanac.crash.seed} to repeat a run's timings.
 *
 * <p>Each run's folder {@code target/crash/kill9-<db>-<time>/} keeps the nodes' logs, their stdout
 * and {@code run.log}; the table of results goes to stdout and {@code target/crash-report.txt}.
 */
@Timeout(value = 60, unit = TimeUnit.MINUTES)
// beside the other non-isolated crash tests (one or two node JVMs each, their own H2 files, schemas or PostgreSQL);
// the cluster tests (@Isolated) run alone
@Execution(ExecutionMode.CONCURRENT)
@Tag("crash") // the crash module's: two classes at a time (crash/pom.xml)
class KillNineTest {

  static final int CYCLES = Integer.getInteger("almanac.crash.cycles", 3);

  /** Windows due, and leases ending, in the last seconds of the journal are not judged (the normal stop ends it). */
  static final Duration GRACE = Duration.ofSeconds(5);

  /**
   * How long the final node runs, in real time, before its normal stop: part of the scenario (the
   * windows due while it was down are caught up or recorded, and fresh ones run), not a wait for a
   * condition; the journal check afterwards decides.
   */
  static final Duration FINAL_RUN = Duration.ofSeconds(6);

  enum KillAt {
    RANDOM("random"),
    JOB_START("job-start"),
    EFFECT("effect"),
    PERSIST_BURST("persist-burst"),
    EARLY("early");

    final String label;

    KillAt(String label) {
      this.label = label;
    }
  }

  /** The default three cycles cover random, after a job start, after an effect; longer runs add the others. */
  private static final KillAt[] ORDER = {
    KillAt.RANDOM, KillAt.JOB_START, KillAt.EFFECT, KillAt.PERSIST_BURST, KillAt.EARLY, KillAt.RANDOM
  };

  @Test
  @DisplayName("R24: kill -9 on H2, restarted: no window lost or doubled, no ledgered effect repeated")
  void h2() throws Exception {
    CrashRun run = CrashRun.create("kill9-h2", dir -> Map.of("db", "h2", "h2-path", dir.resolve("almanac").toString()));
    Row row = cycles(run, "H2 (file)");
    run.deleteDatabaseFiles();
    assertEquals("OK", row.verdict());
  }

  @Test
  @DisplayName("R24: kill -9 on PostgreSQL, restarted: no window lost or doubled, no ledgered effect repeated")
  void postgres() throws Exception {
    Pg pg = Pg.shared().require();
    String schema = Pg.newSchema("almanac_kill9");
    CrashRun run = CrashRun.create("kill9-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-kill9"),
        "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
    Row row = cycles(run, "PostgreSQL");
    if (!CrashRun.keep()) {
      pg.dropSchema(schema); // only after a pass: a failed run keeps its journal for a look
    }
    assertEquals("OK", row.verdict());
  }

  private Row cycles(CrashRun run, String database) throws Exception {
    long seed = Long.getLong("almanac.crash.seed", System.nanoTime());
    Random rnd = new Random(seed);
    run.log(database + ": " + CYCLES + " kill -9 cycles, seed " + seed + " (-Dalmanac.crash.seed=" + seed + " repeats the timings)");
    List<Instant> restarts = new ArrayList<>();
    List<String> kills = new ArrayList<>();
    Instant firstReady = null;
    for (int i = 1; i <= CYCLES; i++) {
      KillAt at = ORDER[(i - 1) % ORDER.length];
      try (ChildJvm node = run.startNode()) {
        if (i > 1) {
          restarts.add(node.startedAt());
        }
        Instant ready = run.awaitReady(node);
        if (firstReady == null) {
          firstReady = ready;
        }
        String what = waitForMoment(node, at, rnd);
        node.kill9();
        String line = "cycle " + i + ": kill -9 (" + at.label + ") of pid " + node.pid() + " "
            + CrashReport.secs(Duration.between(ready, Instant.now())) + " after READY" + what;
        kills.add(line);
        run.log(line);
      }
    }
    try (ChildJvm node = run.startNode()) {
      restarts.add(node.startedAt());
      run.awaitReady(node);
      Thread.sleep(FINAL_RUN.toMillis());
      int exit = node.stop(Duration.ofSeconds(60));
      run.log("final node: normal stop, exit code " + exit);
      if (exit != 0) {
        fail("the final node did not stop normally (exit " + exit + "); see " + node.output());
      }
    }

    JournalCheck check = run.check(GRACE, firstReady);
    var s = check.report().stats();
    List<Duration> toFirstFire = check.toFirstFire(restarts);
    String verdict = check.ok() ? "OK" : "FAILED";
    String notes = String.format("%d events, %d attempts (%d succeeded, %d retries, %d late results), windows %s; "
            + "interrupted %s, %d not resumed; "
            + "%d effects, %d outcome-unknown resolved downstream; kills: %s; restarts measured %d of %d; run folder %s",
        s.eventsRead(), s.attempts(), s.successes(), s.retries(), s.lateResults(), s.windowsByStatus(),
        check.interruptionsByCause(), check.interruptionsNotResumed().size(),
        check.effectLines(), check.downstreamResolutions(), kills.stream().map(k -> k.replaceAll(" of pid \\d+", "")).toList(),
        toFirstFire.size(), restarts.size(), run.dir);
    Row row = new Row(run.key, "kill -9", database, String.valueOf(CYCLES), s.windowsChecked(), check.windowsLost(),
        check.registrationGap().size(), s.doubleSuccesses(), check.effectsRepeated(), s.longestRunningPastLease(), toFirstFire, verdict, notes);
    CrashReport.publish(row);
    if (!check.ok()) {
      fail(database + ": the journal of " + CYCLES + " kill -9 cycles does not hold up (logs and journal kept in "
          + run.dir + "):\n" + check.describe());
    }
    if (CYCLES >= 2 && check.interruptionsByCause().getOrDefault("NODE_LOST", 0L) == 0) {
      // cycle 2 kills right after a long job started: its attempt must be found interrupted at the next start
      fail(database + ": no attempt was recorded INTERRUPTED (NODE_LOST) after " + CYCLES + " kill -9 cycles; see " + run.dir
          + "\n" + check.describe());
    }
    if (toFirstFire.size() != restarts.size()) {
      fail(database + ": after " + (restarts.size() - toFirstFire.size()) + " of " + restarts.size()
          + " restarts no attempt started at all; see " + run.dir);
    }
    return row;
  }

  /**
   * Waits for the moment to kill, per the cycle's kind; a line-triggered kill is sent from the
   * reader thread the moment the line arrives.
   *
   * @return what the kill hit, for the log
   */
  private static String waitForMoment(ChildJvm node, KillAt at, Random rnd) throws InterruptedException {
    switch (at) {
      case RANDOM -> {
        Thread.sleep(2000 + rnd.nextInt(4001));
        return "";
      }
      case EARLY -> {
        Thread.sleep(rnd.nextInt(1001));
        return "";
      }
      case PERSIST_BURST -> {
        Thread.sleep(2000 + rnd.nextInt(2001));
        long now = System.currentTimeMillis();
        Thread.sleep(1000 - now % 1000 + rnd.nextInt(41));
        return " (" + (System.currentTimeMillis() % 1000) + " ms into the second)";
      }
      default -> {
        Thread.sleep(2000 + rnd.nextInt(2001));
        String prefix = at == KillAt.EFFECT ? "EFFECT " : "JOB-START ";
        CompletableFuture<String> line = node.nextLine(l -> l.startsWith(prefix)
            && (at == KillAt.EFFECT || l.startsWith(prefix + "ledger-") || l.startsWith(prefix + "long-")));
        line.thenRun(node::destroyNow);
        try {
          return ", right after: " + node.await(line, Duration.ofSeconds(20));
        } catch (IllegalStateException e) {
          return ", no matching line within 20 s (" + e.getMessage() + ")";
        }
      }
    }
  }
}
