package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.TaskSpec;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.AuditEvent;
import io.almanac.persistence.audit.AuditReader;
import io.almanac.persistence.audit.Verifier;
import io.almanac.persistence.crash.ClusterFailoverTest.Facts;
import io.almanac.persistence.crash.ClusterFailoverTest.Gap;
import io.almanac.persistence.crash.ClusterFailoverTest.Member;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The faults of a 3-node cluster on PostgreSQL, with real processes (child JVMs running {@link
 * CrashNode} as members of one cluster, as in {@link ClusterFailoverTest}, whose harness this class
 * reuses), one after another on one cluster ({@link #faultsInSequence}): kill -9 of the trigger's
 * host (a), its SIGSTOP for 30 s (b), a rolling restart (d), a 30 s PostgreSQL outage (f) and the
 * whole cluster stopped node after node and started again (g). The nodes' shutdown-grace is 5 s:
 * shorter than a slow job (8 s), which a SIGTERM interrupts (NODE_STOPPED, resumed elsewhere), and
 * longer than a long-* job (at most 3 s), which ends in the drain. The
 * journal is judged like the kill -9 failover's: the audit verifier (I1-I7), the effects file (no
 * effect twice), no window fired twice, no success turned into a failure, no duplicate-key error in
 * the logs of the nodes that were not frozen (the woken node's stale writes are refused by the
 * journal's key: that is the fencing, and it is counted, not failed). Each fault publishes a row of
 * {@code target/crash-report.txt}.
 *
 * <p>One cycle in the default build (about 4 minutes); the {@code stress} profile runs 20 ({@code
 * almanac.cluster.sequence-cycles}). For example: {@code mvn -B -o -pl testkit,runtime,persistence
 * -am test -Dtest=ClusterScenariosTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Timeout(value = 150, unit = TimeUnit.MINUTES)
@Isolated // three JVMs whose failover times are judged: nothing else runs beside them
@Tag("crash") // the crash module's: alone within it (crash/pom.xml)
class ClusterScenariosTest {

  /** How long the trigger's host stays frozen ({@code almanac.cluster.freeze-seconds}). */
  static final Duration FREEZE = Duration.ofSeconds(Long.getLong("almanac.cluster.freeze-seconds", 30));

  /** How long the database stays down ({@code almanac.cluster.pg-outage-seconds}). */
  static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("almanac.cluster.pg-outage-seconds", 30));

  /** Longest wait, after the database's return, for every task to run again ({@code almanac.cluster.pg-outage-resume-seconds}). */
  static final Duration OUTAGE_RESUME = Duration.ofSeconds(Long.getLong("almanac.cluster.pg-outage-resume-seconds", 300));

  /** After the database's return, every task must start a window due this much later (steady firing). */
  static final Duration STEADY = Duration.ofSeconds(20);

  static final Duration RESUME_TIMEOUT = ClusterFailoverTest.RESUME_TIMEOUT;

  /**
   * Windows due in the last seconds of the journal are not judged: the failover tests' grace, plus a
   * slow job's length, since the last node's drain waits for its running jobs (up to
   * almanac.executor.shutdown-grace) and records their results after its trigger stopped firing.
   */
  static final Duration GRACE = ClusterFailoverTest.GRACE.plusMillis(CrashNode.SLOW_MILLIS);

  /**
   * The cluster nodes' {@code almanac.executor.shutdown-grace}: shorter than a slow job ({@link CrashNode#SLOW_MILLIS}), so
   * a slow job running at a SIGTERM is interrupted (NODE_STOPPED) and resumed, and longer than a long-* job (at most 3 s),
   * so one running at a SIGTERM ends within it: the two sides of the grace, scaled down from 90 s and 12 s jobs under 25 s.
   */
  static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(5);

  /** (d): how long after a slow job's start a SIGTERM waits for a long-* job to start (the slow one keeps 6 s to run). */
  static final Duration SHORT_JOB_WAIT = Duration.ofMillis(1500);

  /** (g): the pause between two SIGTERMs of the full stop (the field report's 2 s). */
  static final Duration FULL_STOP_GAP = Duration.ofSeconds(2);

  /**
   * (g): how long after the last SIGTERM the cluster is started again: longer than the lease time
   * (almanac-cluster.conf's heartbeat-timeout, 8 s), so no hand-over of the stop can count.
   */
  static final Duration FULL_STOP_DOWN = Duration.ofSeconds(10);

  /** The shared helpers of the kill -9 test (its per-run state: the windows each task started). */
  private final ClusterFailoverTest harness = new ClusterFailoverTest();

  private final Map<ChildJvm, Instant> lastJobStart = new ConcurrentHashMap<>();

  private final List<ChildJvm> all = new ArrayList<>();

  // ---------------------------------------------------------------------------------------------
  // (a), (b), (d), (f) in sequence on one cluster: the default build's cluster test

  /**
   * The faults of a 3-node cluster one after another on one cluster, as an operator would meet them,
   * in the default build (one cluster's start-up and one journal check instead of four): the
   * cluster runs on a PostgreSQL of the test's own ({@link PrivatePostgres}: phase 4 stops it), every
   * node lists all three as seeds, and a node that was killed, frozen or stopped is started again on
   * its port, as a supervisor would, before the next phase.
   *
   * <ol>
   *   <li>(a) {@code kill -9} of the trigger's host right after one of its jobs started: a survivor
   *       fires within the failover limit (15 s from the last fire before the kill to the first after).
   *   <li>(b) {@code SIGSTOP} of the trigger's host for 30 s, then {@code SIGCONT}: the survivors take
   *       over within the limit; the woken node writes no event dated after the freeze, starts no job,
   *       runs no effect and does not start the trigger.
   *   <li>(d) a rolling restart: each node in turn stopped with SIGTERM (right after a slow job of 8 s
   *       started on it, and a long-* job of 1.5-3 s when one starts within 1.5 s) and started again.
   *       The trigger is handed over, not lost: no window due during the rolling restart is MISSED.
   *       The nodes' shutdown-grace is 5 s ({@link #SHUTDOWN_GRACE}), so both sides of it are judged
   *       from the journal: a job running at a SIGTERM SUCCEEDED within the grace (at least one), a
   *       slow one was interrupted NODE_STOPPED (at least one) and its window SUCCEEDED exactly once
   *       afterwards, no window FINAL_FAILED and no retry scheduled after an interruption.
   *   <li>(f) PostgreSQL stopped for 30 s, then started: every task fires on time again (a window
   *       due 20 s after the return started) within {@code almanac.cluster.pg-outage-resume-seconds}.
   *   <li>(g) the whole cluster stopped with SIGTERM, node after node 2 s apart (the trigger's host
   *       first, then the node that took the trigger over), and started again 10 s after the last
   *       SIGTERM: a full stop is downtime, not a hand-over. Every window of a catch-up-none task due
   *       while every node was down (up to 2 s before the trigger came back) is MISSED, none fired.
   * </ol>
   *
   * Then the nodes stop normally and the whole journal is judged once, as for each scenario
   * alone: the audit verifier (I1-I7), the effects file (no effect twice), no window fired twice, no
   * success turned into a failure, no duplicate-key error on a node that was not frozen. Each phase
   * publishes its row of {@code target/crash-report.txt} with its own figures (failover, resume
   * time) and the shared journal figures. About 5 minutes on a quiet 2-core machine. The scenarios
   * alone, with more cycles, run in the {@code stress} profile.
   */
  @Test
  @DisplayName("cluster: kill -9, SIGSTOP 30 s, rolling restart, a 30 s PostgreSQL outage and a full stop in sequence on "
      + "3 nodes; failover within 15 s, the woken node writes nothing, no window doubled, lost, or missed at a hand-over, "
      + "and the full stop's windows MISSED under catch-up none")
  void faultsInSequence() throws Exception {
    String key = "sequence3";
    try (PrivatePostgres server = PrivatePostgres.start()) {
      Pg pg = server.pg();
      String schema = "almanac_cluster_sequence";
      CrashRun run = CrashRun.create(key + "-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-" + key),
          "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema,
          "hocon", "almanac.executor.shutdown-grace = " + SHUTDOWN_GRACE.toSeconds() + "s"));
      int[] ports = ClusterFailoverTest.freePorts(3);
      String seeds = seeds(ports);
      run.log("3-node cluster on a PostgreSQL of its own (" + server.kind() + ", port " + server.port() + "), seeds " + seeds
          + "; kill -9, SIGSTOP, rolling restart, database outage in sequence, " + SEQUENCE_CYCLES + " cycle(s)");
      List<Member> live = new ArrayList<>();
      List<Cycle> cycles = new ArrayList<>();
      List<String> notes = new ArrayList<>();
      Instant firstReady;
      try {
        for (int port : ports) {
          live.add(start(run, port, seeds));
        }
        firstReady = awaitAllReady(run, live);
        harness.awaitSettled(run, ClusterFailoverTest.settledAfter(firstReady), Instant.now().plus(RESUME_TIMEOUT));
        ClusterFailoverTest.awaitJobs(live, lastJobStart, Instant.now(), Instant.now().plus(RESUME_TIMEOUT));
        for (int n = 1; n <= SEQUENCE_CYCLES; n++) {
          Cycle c = new Cycle(n);
          cycles.add(c);
          phaseKill(run, live, seeds, c, notes);
          phaseFreeze(run, live, seeds, c, notes);
          phaseRolling(run, live, seeds, ports, c, notes);
          // (f) PostgreSQL stopped for OUTAGE
          ClusterFailoverTest.awaitJobs(live, lastJobStart, Instant.now(), Instant.now().plus(RESUME_TIMEOUT));
          server.stopServer();
          c.downAt = Instant.now();
          run.log("cycle " + n + " (f): database stopped (pg_ctl stop -m fast)");
          Thread.sleep(OUTAGE.toMillis()); // the outage's length: the scenario, not a wait for a condition
          server.startServer();
          c.backAt = Instant.now();
          run.log("cycle " + n + " (f): database started again");
          c.resumed = awaitSteady(run, live, seeds, c.backAt, notes);
          notes.add("cycle " + n + " (f): every task fired on time again "
              + CrashReport.secs(Duration.between(c.backAt, c.resumed)) + " after the return");
          phaseFullStop(run, live, seeds, ports, c, notes);
        }
        // the three stop at once (a stop node after node is phase (g)); each must exit normally
        live.forEach(m -> m.jvm().requestStop());
        for (Member m : live) {
          int code = m.jvm().awaitStopped(Duration.ofSeconds(90));
          run.log(m.name() + ": normal stop, exit code " + code);
          assertEquals(0, code, m.name() + " did not stop normally; see " + m.jvm().output());
        }
      } finally {
        all.forEach(ChildJvm::close);
      }
      run.log(String.join("\n", notes));

      // ---- the journal, once
      JournalCheck check = run.check(GRACE, firstReady);
      Facts facts = ClusterFailoverTest.facts(run);
      long fenced = cycles.stream().mapToLong(c -> ClusterFailoverTest.countIn(c.frozen.log(), "duplicate key")).sum();
      long duplicateKeys = run.countInLogs("duplicate key") - fenced;
      boolean journalOk = check.ok() && facts.scheduledTwice().isEmpty() && facts.successThenFailure().isEmpty()
          && duplicateKeys == 0;
      String cyclesNote = SEQUENCE_CYCLES + " cycle(s)";

      List<Gap> killGaps = cycles.stream().map(c -> facts.gapWithin(c.killedAt, c.killDone)).toList();
      List<Duration> killTimes = killGaps.stream().map(Gap::length).toList();
      boolean killFast = killTimes.stream().allMatch(d -> d.compareTo(ClusterFailoverTest.FAILOVER_LIMIT) <= 0);
      publish(key + "-a", "in sequence: (a) kill -9 trigger host, 3 nodes", check, facts, killTimes, journalOk && killFast,
          cyclesNote + "; failovers " + killGaps, run);

      List<Gap> freezeGaps = cycles.stream().map(c -> facts.gapWithin(c.frozenAt, c.freezeDone)).toList();
      List<Duration> freezeTimes = freezeGaps.stream().map(Gap::length).toList();
      boolean freezeFast = freezeTimes.stream().allMatch(d -> d.compareTo(ClusterFailoverTest.FAILOVER_LIMIT) <= 0);
      List<String> lateWrites = new ArrayList<>();
      List<String> woke = new ArrayList<>();
      List<Integer> unknownIncarnation = new ArrayList<>();
      for (Cycle c : cycles) {
        Long incarnation = incarnationBefore(run, c.frozen.port(), c.frozenAt);
        if (incarnation == null) {
          unknownIncarnation.add(c.n);
          continue;
        }
        lateWrites.addAll(writesOf(run, c.frozen.port(), c.frozenAt, incarnation).late());
        lateWrites.addAll(resultsReportedAfter(run, c.frozen.port(), c.frozenAt, c.wokenAt));
        // A job that started just before the SIGSTOP can have its JOB-START line reach the pipe only
        // after SIGCONT: the node's own log names it as running when its lease was lost, or as cancelled
        // past an attempt lease that ended before the wake, which a job started after waking cannot be.
        String nodeLog = String.join("\n", linesAfter(c.frozen.log(), Instant.EPOCH));
        long jobs = c.linesAfterWake.stream().filter(l -> l.startsWith("JOB-START "))
            .filter(l -> !runningAtLeaseLoss(l, nodeLog, c.wokenAt)).count();
        long effects = c.linesAfterWake.stream().filter(l -> l.startsWith("EFFECT ")).count();
        // a job that was running when the node froze must not reach its effect after waking: the node
        // cancels it (interrupt) and it finds its lease gone (holdsLease)
        long finished = c.linesAfterWake.stream().filter(l -> l.startsWith("JOB-END ") && l.endsWith(" done")).count();
        long triggers = linesAfter(c.frozen.log(), c.wokenAt).stream().filter(l -> l.contains("trigger started:")).count();
        if (jobs + effects + finished + triggers > 0) {
          woke.add("cycle " + c.n + ": " + jobs + " jobs, " + effects + " effects, " + finished + " jobs run to their effect, "
              + triggers + " trigger starts: " + c.linesAfterWake);
        }
        if (c.slowAtFreeze != null) {
          String end = c.linesAfterWake.stream().filter(l -> l.startsWith("JOB-END " + c.slowAtFreeze + " ")).findFirst()
              .orElse("no JOB-END line");
          run.log("cycle " + c.n + " (b): the slow job running at the freeze (" + c.slowAtFreeze + ") after waking: " + end);
        }
      }
      boolean freezeOk = freezeFast && lateWrites.isEmpty() && woke.isEmpty() && unknownIncarnation.isEmpty();
      publish(key + "-b", "in sequence: (b) SIGSTOP trigger host 30 s, 3 nodes", check, facts, freezeTimes,
          journalOk && freezeOk, cyclesNote + "; failovers " + freezeGaps + "; the woken node: "
              + cycles.stream().map(c -> c.fate).toList() + "; " + lateWrites.size() + " late writes; jobs/effects/trigger "
              + "starts after waking: " + woke.size() + " cycles; its writes refused by the journal's key (fencing): " + fenced, run);

      List<String> missedInRolling = new ArrayList<>();
      List<Duration> handOverTimes = new ArrayList<>();
      for (Cycle c : cycles) {
        missedInRolling.addAll(missedBetween(run, c.rollingFrom, c.rollingTo));
        c.handOvers.forEach(h -> handOverTimes.add(Duration.between(h[0], h[1])));
      }
      RollingDrain drain = rollingDrain(run, cycles, GRACE);
      run.log("(d) the drain judged from the journal: " + drain);
      boolean drainOk = drain.nodeStopped() >= 1 && drain.finishedInDrain() >= 1 && drain.finalFailed().isEmpty()
          && drain.retriesAfterInterruption().isEmpty() && drain.slowNotSucceededOnce().isEmpty();
      publish(key + "-d", "in sequence: (d) rolling restart (SIGTERM), 3 nodes", check, facts, handOverTimes,
          journalOk && missedInRolling.isEmpty() && drainOk, cyclesNote + "; trigger hand-overs (SIGTERM of its host to its "
              + "start on the next node) " + handOverTimes + "; windows MISSED during the rolling restarts: "
              + missedInRolling.size() + "; shutdown-grace " + SHUTDOWN_GRACE.toSeconds() + " s: jobs running at a SIGTERM "
              + "that SUCCEEDED in the drain " + drain.finishedInDrain() + " " + drain.finishedByTask() + ", attempts "
              + "interrupted NODE_STOPPED " + drain.nodeStopped() + " (slow windows " + drain.slowStopped() + ", each "
              + "SUCCEEDED once after: " + drain.slowNotSucceededOnce().isEmpty() + ", not judged (journal's last grace) "
              + drain.slowUnjudged() + "), windows FINAL_FAILED " + drain.finalFailed().size() + ", retries scheduled after "
              + "an interruption " + drain.retriesAfterInterruption().size() + " (by a later attempt's own end "
              + drain.otherRetries() + "); SIGTERMs " + cycles.stream()
                  .flatMap(c -> c.sigterms.stream()).map(Sigterm::toString).toList(), run);

      List<Duration> outageTimes = cycles.stream().map(c -> Duration.between(c.backAt, c.resumed)).toList();
      publish(key + "-f", "in sequence: (f) PostgreSQL stopped 30 s, 3 nodes", check, facts, outageTimes, journalOk,
          cyclesNote + "; from the database's return to every task firing on time again: " + outageTimes, run);

      List<String> firedInDowntime = new ArrayList<>();
      long missedInDowntime = 0;
      List<Integer> nothingJudged = new ArrayList<>();
      for (Cycle c : cycles) {
        firedInDowntime.addAll(c.downtimeNotMissed);
        missedInDowntime += c.downtimeMissed;
        if (c.downtimeMissed + c.downtimeNotMissed.size() == 0) {
          nothingJudged.add(c.n);
        }
      }
      List<Duration> downTimes = cycles.stream().map(c -> Duration.between(c.fullStopAt, c.triggerBackAt)).toList();
      publish(key + "-g", "in sequence: (g) full stop (SIGTERM 2 s apart), started 10 s later, 3 nodes", check, facts,
          downTimes, journalOk && firedInDowntime.isEmpty() && nothingJudged.isEmpty(), cyclesNote + "; first SIGTERM to "
              + "the trigger's start " + downTimes + "; windows of catch-up-none tasks due while every node was down: "
              + missedInDowntime + " MISSED, " + firedInDowntime.size() + " not MISSED "
              + firedInDowntime.stream().limit(10).toList() + "; the trigger's last event before the restart "
              + cycles.stream().map(c -> c.lastTriggerEvent).toList() + " (a HandedOver is the case a successor must not "
              + "take for a hand-over)", run);

      judge(check, facts, duplicateKeys, run, null);
      assertTrue(killFast, "(a) failover above " + ClusterFailoverTest.FAILOVER_LIMIT + ": " + killGaps);
      assertTrue(freezeFast, "(b) failover above " + ClusterFailoverTest.FAILOVER_LIMIT + ": " + freezeGaps);
      assertTrue(unknownIncarnation.isEmpty(), "(b) no event of the frozen node before the freeze in cycles "
          + unknownIncarnation + ": its writes cannot be told apart");
      assertTrue(lateWrites.isEmpty(), "(b) the frozen node wrote after the SIGSTOP: " + lateWrites + "; see " + run.dir);
      assertTrue(woke.isEmpty(), "(b) the woken node started jobs, ran effects or started the trigger: " + woke);
      assertTrue(missedInRolling.isEmpty(), "(d) windows MISSED during the rolling restart (the trigger's hand-over must fire "
          + "them on time): " + missedInRolling + "; see " + run.dir);
      assertTrue(drain.nodeStopped() >= 1, "(d) no attempt was interrupted NODE_STOPPED: the rolling restart did not "
          + "exercise a job longer than the grace (" + drain + "); see " + run.dir);
      assertTrue(drain.finishedInDrain() >= 1, "(d) no job running at a SIGTERM SUCCEEDED within the grace (" + drain
          + "); see " + run.dir);
      assertEquals(List.of(), drain.finalFailed(), "(d) windows FINAL_FAILED in the rolling restart; see " + run.dir);
      assertEquals(List.of(), drain.retriesAfterInterruption(), "(d) retries scheduled after an interruption (an "
          + "interruption spends none); see " + run.dir);
      assertEquals(List.of(), drain.slowNotSucceededOnce(), "(d) slow windows interrupted NODE_STOPPED that did not "
          + "SUCCEED exactly once afterwards; see " + run.dir);
      assertTrue(nothingJudged.isEmpty(), "(g) no window of a catch-up-none task fell in the downtime of cycles "
          + nothingJudged + "; see " + run.dir);
      assertTrue(firedInDowntime.isEmpty(), "(g) windows of catch-up-none tasks due while the whole cluster was down were "
          + "not recorded MISSED (a full stop is downtime, not a hand-over): " + firedInDowntime.size() + ", e.g. "
          + firedInDowntime.stream().limit(10).toList() + "; see " + run.dir);
    }
  }

  /** How many times {@link #faultsInSequence} runs its four faults ({@code almanac.cluster.sequence-cycles}). */
  static final int SEQUENCE_CYCLES = Integer.getInteger("almanac.cluster.sequence-cycles", 1);

  /** What one cycle of {@link #faultsInSequence} did, and when. */
  private static final class Cycle {
    final int n;
    Instant killedAt;
    /** The survivors fired again (the end of the failover the kill's gap is looked for in). */
    Instant killDone;
    Member frozen;
    Instant frozenAt;
    Instant wokenAt;
    String fate;
    Instant freezeDone;
    /** The slow job running on the frozen node when it was frozen ("task window attempt"), or null. */
    String slowAtFreeze;
    final List<String> linesAfterWake = new CopyOnWriteArrayList<>();
    Instant rollingFrom;
    Instant rollingTo;
    /** (d): each SIGTERM of the rolling restart. */
    final List<Sigterm> sigterms = new ArrayList<>();
    final List<Instant[]> handOvers = new ArrayList<>();
    Instant downAt;
    Instant backAt;
    Instant resumed;
    Instant fullStopAt;
    Instant allDownAt;
    Instant restartAt;
    Instant triggerBackAt;
    long downtimeMissed;
    final List<String> downtimeNotMissed = new ArrayList<>();
    String lastTriggerEvent;

    Cycle(int n) {
      this.n = n;
    }
  }

  /** (a) kill -9 of the trigger's host right after one of its jobs started; waits for the survivors; starts it again. */
  private void phaseKill(CrashRun run, List<Member> live, String seeds, Cycle c, List<String> notes) throws Exception {
    Member host = ClusterFailoverTest.awaitTriggerHost(run, live, Instant.now().plus(RESUME_TIMEOUT));
    Map<Member, Integer> startsBefore = triggerStartCounts(live);
    var jobLine = host.jvm().nextLine(l -> l.startsWith("JOB-START "));
    jobLine.thenRun(host.jvm()::destroyNow);
    host.jvm().await(jobLine, Duration.ofSeconds(30));
    host.jvm().kill9();
    c.killedAt = Instant.now();
    live.remove(host);
    run.log("cycle " + c.n + " (a): kill -9 of " + host.name() + " (port " + host.port() + "), the trigger's host");
    Map.Entry<Member, Instant> back = awaitTriggerRestart(run, live, startsBefore, c.killedAt.plus(RESUME_TIMEOUT));
    notes.add("cycle " + c.n + " (a): trigger on " + back.getKey().name() + " "
        + CrashReport.secs(Duration.between(c.killedAt, back.getValue())) + " after the kill");
    ClusterFailoverTest.awaitJobs(live, lastJobStart, back.getValue(), c.killedAt.plus(RESUME_TIMEOUT));
    c.killDone = Instant.now();
    live.add(restart(run, host.port(), seeds, notes));
  }

  /** (b) SIGSTOP of the trigger's host for {@link #FREEZE}, then SIGCONT; the node is started again once it has gone. */
  private void phaseFreeze(CrashRun run, List<Member> live, String seeds, Cycle c, List<String> notes) throws Exception {
    c.frozen = ClusterFailoverTest.awaitTriggerHost(run, live, Instant.now().plus(RESUME_TIMEOUT));
    Member frozen = c.frozen;
    Map<Member, Integer> startsBefore = triggerStartCounts(live);
    AtomicBoolean woken = new AtomicBoolean();
    frozen.jvm().onLine(l -> {
      if (woken.get()) {
        c.linesAfterWake.add(l);
      }
    });
    // Frozen while one of its slow jobs runs (8 s of work, then the effect), when the trigger's host
    // hosts one (12 slow tasks on 3 nodes: almost always); else right after any job starts.
    var slowLine = frozen.jvm().nextLine(l -> l.startsWith("JOB-START slow-"));
    try {
      c.slowAtFreeze = frozen.jvm().await(slowLine, Duration.ofSeconds(25)).substring("JOB-START ".length());
    } catch (IllegalStateException none) {
      run.log("cycle " + c.n + " (b): no slow job started on the trigger's host within 25 s; frozen after any job start");
      var jobLine = frozen.jvm().nextLine(l -> l.startsWith("JOB-START "));
      frozen.jvm().await(jobLine, Duration.ofSeconds(30));
    }
    frozen.jvm().freeze();
    c.frozenAt = Instant.now();
    live.remove(frozen);
    run.log("cycle " + c.n + " (b): SIGSTOP of " + frozen.name() + " (port " + frozen.port() + "), the trigger's host");
    Map.Entry<Member, Instant> back = awaitTriggerRestart(run, live, startsBefore, c.frozenAt.plus(RESUME_TIMEOUT));
    notes.add("cycle " + c.n + " (b): trigger on " + back.getKey().name() + " "
        + CrashReport.secs(Duration.between(c.frozenAt, back.getValue())) + " after the SIGSTOP");
    ClusterFailoverTest.awaitJobs(live, lastJobStart, back.getValue(), c.frozenAt.plus(RESUME_TIMEOUT));
    c.freezeDone = Instant.now();
    long left = Duration.between(Instant.now(), c.frozenAt.plus(FREEZE)).toMillis();
    if (left > 0) {
      Thread.sleep(left); // the freeze's length: the scenario, not a wait for a condition
    }
    woken.set(true);
    frozen.jvm().resume();
    c.wokenAt = Instant.now();
    Optional<Integer> exit = frozen.jvm().awaitExit(Duration.ofSeconds(30));
    c.fate = exit.map(code -> "exited (code " + code + ") " + CrashReport.secs(Duration.between(c.wokenAt, Instant.now()))
        + " after SIGCONT").orElseGet(() -> "still running 30 s after SIGCONT; stopped, exit " + stopQuietly(run, frozen));
    notes.add("cycle " + c.n + " (b): the woken node " + c.fate);
    run.log("cycle " + c.n + " (b): SIGCONT after " + CrashReport.secs(Duration.between(c.frozenAt, c.wokenAt))
        + "; the woken node " + c.fate);
    live.add(restart(run, frozen.port(), seeds, notes));
  }

  /** (d) each node in turn stopped with SIGTERM, its removal (and the trigger's hand-over) awaited, and started again. */
  private void phaseRolling(CrashRun run, List<Member> live, String seeds, int[] ports, Cycle c, List<String> notes)
      throws Exception {
    c.rollingFrom = Instant.now();
    for (int port : ports) {
      Member m = live.stream().filter(x -> x.port() == port).findFirst().orElseThrow();
      Member h = ClusterFailoverTest.awaitTriggerHost(run, live, Instant.now().plus(RESUME_TIMEOUT));
      Map<Member, Integer> startsBefore = triggerStartCounts(live);
      // Both sides of the grace: SIGTERM right after a slow job (8 s) started on the node, so it still runs when the
      // grace (5 s) ends and is interrupted; and, when one starts within SHORT_JOB_WAIT, after a long-* job (1.5-3 s)
      // started too, which ends within the grace.
      String slow = awaitJobStart(m, "slow-", Duration.ofSeconds(25));
      String shortJob = slow == null ? null : awaitJobStart(m, "long-", SHORT_JOB_WAIT);
      Instant stopAt = Instant.now();
      int code = m.jvm().terminate(Duration.ofSeconds(90));
      c.sigterms.add(new Sigterm(port, stopAt, Instant.now(), slow, shortJob));
      live.remove(m);
      assertTrue(code == 143 || code == 0, m.name() + " did not stop normally on SIGTERM (exit " + code + "); see " + m.log());
      Instant deadline = Instant.now().plus(RESUME_TIMEOUT);
      awaitRemoved(run, live, port, deadline);
      if (m == h) {
        Map.Entry<Member, Instant> back = awaitTriggerRestart(run, live, startsBefore, deadline);
        c.handOvers.add(new Instant[] {stopAt, back.getValue()});
        notes.add("cycle " + c.n + " (d): trigger handed over to " + back.getKey().name() + " "
            + CrashReport.secs(Duration.between(stopAt, back.getValue())) + " after the SIGTERM of its host");
      }
      ClusterFailoverTest.awaitJobs(live, lastJobStart, stopAt, deadline);
      live.add(restart(run, port, seeds, notes));
    }
    c.rollingTo = Instant.now();
  }

  /** The first {@code JOB-START <prefix>...} line of the node within {@code within} ("task window attempt"), or null. */
  private static String awaitJobStart(Member m, String prefix, Duration within) {
    var line = m.jvm().nextLine(l -> l.startsWith("JOB-START " + prefix));
    try {
      return m.jvm().await(line, within).substring("JOB-START ".length());
    } catch (IllegalStateException none) {
      return null;
    }
  }

  /**
   * (d): one SIGTERM of the rolling restart.
   *
   * @param port the node's
   * @param at when it was sent
   * @param exited when the node had exited
   * @param slowStarted the slow job that started right before it ("task window attempt"), or null
   * @param longStarted the long-* job that started after that one, or null
   */
  record Sigterm(int port, Instant at, Instant exited, String slowStarted, String longStarted) {
    @Override
    public String toString() {
      return port + " at " + at + " (exited " + CrashReport.secs(Duration.between(at, exited)) + " later; started before it: "
          + slowStarted + ", " + longStarted + ")";
    }
  }

  /**
   * (d) judged from the journal, in the rolling restarts' spans.
   *
   * @param nodeStopped attempts recorded interrupted NODE_STOPPED
   * @param finishedInDrain attempts started by a node before its SIGTERM and recorded SUCCEEDED between the SIGTERM
   *     and its exit (within the grace)
   * @param finishedByTask those by task kind (the id without its number)
   * @param finalFailed windows recorded FINAL_FAILED in the span, or at any time after an interruption in it
   * @param retriesAfterInterruption retries an interruption in the span caused (the interruption itself, or the stop
   *     seen by the job as a cancel), each with its cause
   * @param otherRetries retries of windows interrupted in the span that a later attempt's own end caused (its job
   *     failed, its lease ran out), each with its cause: reported, not failed
   * @param slowStopped slow windows with an attempt interrupted NODE_STOPPED
   * @param slowNotSucceededOnce those of them (but the unjudged) without exactly one AttemptSucceeded
   * @param slowUnjudged those interrupted within the journal's last grace
   */
  record RollingDrain(long nodeStopped, long finishedInDrain, Map<String, Long> finishedByTask, List<String> finalFailed,
      List<String> retriesAfterInterruption, List<String> otherRetries, long slowStopped, List<String> slowNotSucceededOnce, long slowUnjudged) {}

  private static RollingDrain rollingDrain(CrashRun run, List<Cycle> cycles, Duration grace) {
    Map<String, List<AuditEvent>> byTask = new java.util.LinkedHashMap<>();
    Instant end = Instant.MIN;
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      for (String id : reader.taskIds()) {
        List<AuditEvent> events = reader.read(id).events();
        byTask.put(id, events);
        for (AuditEvent e : events) {
          if (e.at() != null && e.at().isAfter(end)) {
            end = e.at();
          }
        }
      }
    }
    Instant judgedUntil = end.minus(grace);
    long nodeStopped = 0;
    long finished = 0;
    Map<String, Long> finishedByTask = new java.util.TreeMap<>();
    List<String> finalFailed = new ArrayList<>();
    List<String> retries = new ArrayList<>();
    List<String> otherRetries = new ArrayList<>();
    long slowStopped = 0;
    List<String> notOnce = new ArrayList<>();
    long unjudged = 0;
    for (Map.Entry<String, List<AuditEvent>> t : byTask.entrySet()) {
      String id = t.getKey();
      Map<String, TaskJournal.AttemptStarted> started = new HashMap<>();
      java.util.Set<String> interrupted = new java.util.HashSet<>();
      Map<String, Instant> slowWindows = new java.util.LinkedHashMap<>();
      Map<String, Integer> successes = new HashMap<>();
      Map<String, End> lastEnd = new HashMap<>(); // per window: how its last attempt ended, for a retry's cause
      for (AuditEvent e : t.getValue()) {
        Instant at = e.at();
        boolean inSpan = at != null && cycles.stream().anyMatch(c -> c.rollingFrom != null && c.rollingTo != null
            && !at.isBefore(c.rollingFrom) && !at.isAfter(c.rollingTo));
        Object ev = e.event();
        End ended = End.of(ev, started);
        if (ended != null) {
          lastEnd.put(((TaskJournal.WindowEvent) ev).window(), ended);
        }
        if (ev instanceof TaskJournal.AttemptStarted a) {
          started.put(a.window() + "#" + a.attempt(), a);
        } else if (ev instanceof TaskJournal.AttemptInterrupted i && inSpan) {
          interrupted.add(i.window());
          if (i.cause() == io.almanac.InterruptCause.NODE_STOPPED) {
            nodeStopped++;
            if (id.startsWith("slow-")) {
              slowWindows.putIfAbsent(i.window(), at);
            }
          }
        } else if (ev instanceof TaskJournal.RetryScheduled r && interrupted.contains(r.window())) {
          // A retry after an interruption is a defect when the interruption (or the stop, seen as a
          // cancel) caused it; a later attempt's own failure (its job failed, its lease ran out while
          // it ran on a live node) spends a retry as it would without the restart, and is listed apart.
          End cause = lastEnd.get(r.window());
          String line = id + " " + r.window() + " retry " + r.retryNumber() + " at " + at + " after "
              + (cause == null ? "no attempt end" : cause.text());
          (cause == null || cause.byStop(cycles) ? retries : otherRetries).add(line);
        } else if (ev instanceof TaskJournal.InstanceFinalFailed f && (inSpan || interrupted.contains(f.window()))) {
          finalFailed.add(id + " " + f.window() + ": " + f.reason());
        } else if (ev instanceof TaskJournal.AttemptSucceeded s) {
          successes.merge(s.window(), 1, Integer::sum);
          TaskJournal.AttemptStarted a = started.get(s.window() + "#" + s.attempt());
          if (a != null && a.executor() != null && at != null) {
            for (Cycle c : cycles) {
              for (Sigterm st : c.sigterms) {
                if (a.executor().contains("@127.0.0.1:" + st.port() + ",") && a.at().isBefore(st.at())
                    && !at.isBefore(st.at()) && !at.isAfter(st.exited())) {
                  finished++;
                  finishedByTask.merge(id.replaceAll("-[0-9]+$", ""), 1L, Long::sum);
                }
              }
            }
          }
        }
      }
      for (Map.Entry<String, Instant> w : slowWindows.entrySet()) {
        slowStopped++;
        if (w.getValue().isAfter(judgedUntil)) {
          unjudged++;
        } else if (successes.getOrDefault(w.getKey(), 0) != 1) {
          notOnce.add(id + " " + w.getKey() + ": " + successes.getOrDefault(w.getKey(), 0) + " successes");
        }
      }
    }
    return new RollingDrain(nodeStopped, finished, finishedByTask, finalFailed, retries, otherRetries, slowStopped, notOnce,
        unjudged);
  }

  /**
   * How an attempt ended, as a retry's cause is named ({@code interrupted NODE_STOPPED attempt 1},
   * {@code failed attempt 2: <reason>}, {@code timed out attempt 2 on <executor>}).
   *
   * @param text the cause as named
   * @param kind the end's event
   * @param started the attempt's start, or null when not read
   */
  record End(String text, Object kind, TaskJournal.AttemptStarted started) {
    /** The end an event records, or null for an event that ends no attempt. */
    static End of(Object ev, Map<String, TaskJournal.AttemptStarted> started) {
      if (ev instanceof TaskJournal.AttemptInterrupted i) {
        return new End("interrupted " + i.cause() + " attempt " + i.attempt(), ev, started.get(i.window() + "#" + i.attempt()));
      } else if (ev instanceof TaskJournal.AttemptFailed f) {
        return new End("failed attempt " + f.attempt() + ": " + f.reason(), ev, started.get(f.window() + "#" + f.attempt()));
      } else if (ev instanceof TaskJournal.AttemptTimedOut o) {
        TaskJournal.AttemptStarted a = started.get(o.window() + "#" + o.attempt());
        return new End("timed out attempt " + o.attempt() + " on " + (a == null ? "?" : a.executor()), ev, a);
      }
      return null;
    }

    /**
     * Whether the stop spent the retry: the interruption itself, the stop seen by the job (its cancel,
     * its thread interrupted), or an attempt that started on a node before its SIGTERM and was timed out
     * (its drain must have recorded it interrupted, or its end found it NODE_LOST).
     */
    boolean byStop(List<Cycle> cycles) {
      if (kind instanceof TaskJournal.AttemptInterrupted) {
        return true;
      }
      if (kind instanceof TaskJournal.AttemptFailed f && (f.reason().equals("interrupted") || f.reason().equals("cancelled"))) {
        return true;
      }
      // timed out, or its job found its lease lost, after its node's SIGTERM: the stop took the lease
      boolean leaseEnd = kind instanceof TaskJournal.AttemptTimedOut
          || kind instanceof TaskJournal.AttemptFailed f && f.reason().contains("lease was lost");
      Instant endedAt = kind instanceof TaskJournal.AttemptTimedOut o ? o.at()
          : kind instanceof TaskJournal.AttemptFailed f ? f.at() : null;
      return leaseEnd && started != null && started.executor() != null && cycles.stream().flatMap(c -> c.sigterms.stream())
          .anyMatch(st -> started.executor().contains("@127.0.0.1:" + st.port() + ",") && started.at().isBefore(st.at())
              && !endedAt.isBefore(st.at()));
    }
  }

  /**
   * (g) The whole cluster stopped, node after node {@link #FULL_STOP_GAP} apart: SIGTERM to the
   * trigger's host, then to the node whose trigger started since (the oldest left if none has yet),
   * then to the last one. Each stop while others run records a hand-over; the last trigger to stop
   * hands over to nobody. Once every node has exited and {@link #FULL_STOP_DOWN} has passed since the
   * last SIGTERM, all three start again. Then, from the journal (deadline), every window of a
   * catch-up-none task due from the last exit to 2 s before the new trigger started (older than the
   * window it fires on time) must be decided, and is counted as MISSED or not.
   */
  private void phaseFullStop(CrashRun run, List<Member> live, String seeds, int[] ports, Cycle c, List<String> notes)
      throws Exception {
    Member host = ClusterFailoverTest.awaitTriggerHost(run, live, Instant.now().plus(RESUME_TIMEOUT));
    List<Member> rest = new ArrayList<>(live); // in the order they (re)joined: the oldest first
    rest.remove(host);
    Map<Member, Integer> startsBefore = triggerStartCounts(rest);
    List<Member> stopped = new ArrayList<>();
    c.fullStopAt = Instant.now();
    Instant lastSigterm = c.fullStopAt;
    host.jvm().sigterm();
    stopped.add(host);
    run.log("cycle " + c.n + " (g): SIGTERM to " + host.name() + " (port " + host.port() + "), the trigger's host");
    while (!rest.isEmpty()) {
      long gap = Duration.between(Instant.now(), lastSigterm.plus(FULL_STOP_GAP)).toMillis();
      if (gap > 0) {
        Thread.sleep(gap); // the stop's pacing: the scenario, not a wait for a condition
      }
      Member next = rest.stream().filter(m -> ClusterFailoverTest.triggerStarts(m.log()).size() > startsBefore.get(m))
          .findFirst().orElse(rest.get(0));
      rest.remove(next);
      lastSigterm = Instant.now();
      next.jvm().sigterm();
      stopped.add(next);
      run.log("cycle " + c.n + " (g): SIGTERM to " + next.name() + " (port " + next.port() + ")");
    }
    for (Member m : stopped) {
      Optional<Integer> code = m.jvm().awaitExit(Duration.ofSeconds(90));
      assertTrue(code.isPresent() && (code.get() == 143 || code.get() == 0), m.name() + " did not stop normally on "
          + "SIGTERM (exit " + code + "); see " + m.log());
    }
    live.clear();
    c.allDownAt = Instant.now();
    long down = Duration.between(Instant.now(), lastSigterm.plus(FULL_STOP_DOWN)).toMillis();
    if (down > 0) {
      Thread.sleep(down); // the downtime's length: the scenario, not a wait for a condition
    }
    c.restartAt = Instant.now();
    run.log("cycle " + c.n + " (g): every node exited " + CrashReport.secs(Duration.between(c.fullStopAt, c.allDownAt))
        + " after the first SIGTERM; starting all three again");
    for (int port : ports) {
      live.add(start(run, port, seeds));
    }
    awaitAllReady(run, live);
    c.triggerBackAt = awaitTriggerRestart(run, live, Map.of(), c.restartAt.plus(RESUME_TIMEOUT)).getValue();
    notes.add("cycle " + c.n + " (g): whole cluster stopped from " + c.fullStopAt + " (every node exited "
        + CrashReport.secs(Duration.between(c.fullStopAt, c.allDownAt)) + " later), started again at " + c.restartAt
        + ", trigger back " + CrashReport.secs(Duration.between(c.fullStopAt, c.triggerBackAt)) + " after the first SIGTERM");
    List<String> none = CrashNode.TASKS.stream().filter(t -> t.catchUp().mode() == io.almanac.CatchUpPolicy.Mode.NONE)
        .map(TaskSpec::id).toList();
    Map<String, String> decided = new java.util.TreeMap<>();
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      decided.putAll(decisionsDue(reader, run, none, c.allDownAt, c.triggerBackAt.minusSeconds(2),
          c.restartAt.plus(RESUME_TIMEOUT)));
      // What the restarted trigger judged: a hand-over left in the journal (the last trigger to run stopped while others
      // were up, and none ran after it), or none (a later trigger moved the watermark: one started on a node that was
      // leaving, or its node's quiesce did not reach it). Reported, not judged: which one a stop leaves is Pekko's timing.
      c.lastTriggerEvent = reader.triggerWriters().stream().filter(w -> w.at().isBefore(c.restartAt))
          .reduce((a, b) -> b).map(w -> w.type() + " at " + w.at()).orElse("none");
    }
    notes.add("cycle " + c.n + " (g): the trigger's last event before the restart: " + c.lastTriggerEvent);
    decided.forEach((window, type) -> {
      if (type.equals("WindowMissed")) {
        c.downtimeMissed++;
      } else {
        c.downtimeNotMissed.add(window + " " + type);
      }
    });
    run.log("cycle " + c.n + " (g): windows of catch-up-none tasks due while every node was down: " + c.downtimeMissed
        + " MISSED, " + c.downtimeNotMissed.size() + " not MISSED");
    ClusterFailoverTest.awaitJobs(live, lastJobStart, c.restartAt, c.restartAt.plus(RESUME_TIMEOUT));
  }

  /**
   * The first decision the journal holds for each window of these tasks (one per second) due in
   * (from, to]: "task window" to its event's type (WindowMissed, InstanceScheduled, FireSkipped,
   * WindowWaiting). Reads again (every second, with the same reader) until every such window has one, or the deadline.
   */
  private static Map<String, String> decisionsDue(AuditReader reader, CrashRun run, List<String> tasks, Instant from,
      Instant to, Instant deadline) throws InterruptedException {
    long due = 0;
    for (Instant t = from.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(1); !t.isAfter(to);
        t = t.plusSeconds(1)) {
      due++;
    }
    while (true) {
      Map<String, String> decided = new java.util.TreeMap<>();
      Map<String, TaskJournal.SkipRangeOpened> open = new java.util.HashMap<>();
      for (String id : tasks) {
        for (AuditEvent e : reader.read(id).events()) {
          Instant d = e.event() instanceof TaskJournal.WindowMissed w ? w.dueAt()
              : e.event() instanceof TaskJournal.InstanceScheduled i ? i.dueAt()
              : e.event() instanceof TaskJournal.FireSkipped f ? f.dueAt()
              : e.event() instanceof TaskJournal.WindowWaiting w ? w.dueAt() : null;
          if (d != null && d.isAfter(from) && !d.isAfter(to)) {
            decided.putIfAbsent(id + " " + e.window(), e.type()
                + (e.event() instanceof TaskJournal.InstanceScheduled i ? " " + i.kind() : ""));
          }
          if (e.event() instanceof TaskJournal.SkipRangeOpened o) {
            open.put(id, o); // an on-time skip range: its windows after the first are covered until its close
          }
          if (e.event() instanceof TaskJournal.SkipRangeClosed c && open.get(id) != null
              && open.get(id).window().equals(c.window())) {
            TaskJournal.SkipRangeOpened o = open.remove(id);
            String type = o.outcome() == io.almanac.InstanceStatus.MISSED ? "WindowMissed" : "FireSkipped";
            for (Instant t = o.dueAt().plusSeconds(1); !t.isAfter(c.lastDue()); t = t.plusSeconds(1)) {
              if (t.isAfter(from) && !t.isAfter(to)) {
                decided.putIfAbsent(id + " " + t, type);
              }
            }
          }
          if (e.event() instanceof TaskJournal.WindowsSkipped r) {
            // a skip range (docs/skip-ranges.md): each of its windows (one per second, keyed by its instant) as its first's
            String type = r.outcome() == io.almanac.InstanceStatus.MISSED ? "WindowMissed" : "FireSkipped";
            for (Instant t = r.dueAt(); !t.isAfter(r.lastDue()); t = t.plusSeconds(1)) {
              if (t.isAfter(from) && !t.isAfter(to)) {
                decided.putIfAbsent(id + " " + t, type);
              }
            }
          }
        }
      }
      if (decided.size() >= due * tasks.size()) {
        return decided;
      }
      if (Instant.now().isAfter(deadline)) {
        fail("(g) by " + deadline + ", " + decided.size() + " of the " + due * tasks.size() + " windows of " + tasks
            + " due in (" + from + ", " + to + "] were decided: " + decided + "; see " + run.dir);
      }
      Thread.sleep(1000);
    }
  }

  /** Starts a node again on its port, as a supervisor would, and waits (deadline) for READY. */
  private Member restart(CrashRun run, int port, String seeds, List<String> notes) {
    Instant at = Instant.now();
    Member again = start(run, port, seeds);
    Instant ready = run.awaitReady(again.jvm());
    notes.add(again.name() + " (port " + port + ") started again: READY after " + CrashReport.secs(Duration.between(at, ready)));
    return again;
  }

  /**
   * After the database's return: restarts a node that exited, and waits (deadline {@link
   * #OUTAGE_RESUME}) until every task started a job for a window due {@link #STEADY} or more after
   * the return. Returns when that happened.
   */
  private Instant awaitSteady(CrashRun run, List<Member> live, String seeds, Instant backAt, List<String> notes)
      throws InterruptedException {
    Instant deadline = backAt.plus(OUTAGE_RESUME);
    Instant steady = backAt.plus(STEADY);
    while (true) {
      for (Member m : new ArrayList<>(live)) {
        if (!m.jvm().isAlive()) {
          live.remove(m);
          notes.add(m.name() + " had exited (code " + m.jvm().awaitExit(Duration.ZERO).orElse(-1) + ") during the outage");
          live.add(start(run, m.port(), seeds));
        }
      }
      if (CrashNode.TASKS.stream().allMatch(t -> harness.latestWindowStarted.getOrDefault(t.id(), Instant.EPOCH).isAfter(steady))) {
        return Instant.now();
      }
      if (Instant.now().isAfter(deadline)) {
        fail("within " + OUTAGE_RESUME + " of the database's return, these tasks started no window due " + STEADY
            + " or more after it: " + CrashNode.TASKS.stream().map(TaskSpec::id).filter(t -> !harness.latestWindowStarted
                .getOrDefault(t, Instant.EPOCH).isAfter(steady)).toList() + "; see " + run.dir);
      }
      Thread.sleep(200);
    }
  }

  /** The incarnation of the node at that port that wrote its last task event before {@code before}, or null. */
  private static Long incarnationBefore(CrashRun run, int port, Instant before) {
    String node = "@127.0.0.1:" + port;
    Instant latest = Instant.MIN;
    Long incarnation = null;
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      for (String id : reader.taskIds()) {
        for (AuditEvent e : reader.read(id).events()) {
          if (e.writer() != null && e.writer().node().endsWith(node) && e.at().isBefore(before) && e.at().isAfter(latest)) {
            latest = e.at();
            incarnation = e.writer().incarnation();
          }
        }
      }
    }
    return incarnation;
  }

  /**
   * Results recorded at or after {@code woken} for attempts the frozen node's executor had started
   * (the last executor identity at that port before {@code frozen}, in any of its epochs): only that
   * node can report them, and a node that woke without its lease must report nothing.
   */
  private static List<String> resultsReportedAfter(CrashRun run, int port, Instant frozen, Instant woken) {
    String node = "@127.0.0.1:" + port + ",";
    Map<String, List<AuditEvent>> byTask = new HashMap<>();
    String executor = null;
    Instant latest = Instant.MIN;
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      for (String id : reader.taskIds()) {
        List<AuditEvent> events = reader.read(id).events();
        byTask.put(id, events);
        for (AuditEvent e : events) {
          if (e.event() instanceof TaskJournal.AttemptStarted a && a.executor() != null && a.executor().contains(node)
              && a.at().isBefore(frozen) && a.at().isAfter(latest)) {
            latest = a.at();
            executor = io.almanac.internal.lease.ExecutorFence.nodeOf(a.executor());
          }
        }
      }
    }
    List<String> reported = new ArrayList<>();
    if (executor == null) {
      return reported;
    }
    for (Map.Entry<String, List<AuditEvent>> t : byTask.entrySet()) {
      java.util.Set<String> ran = new java.util.HashSet<>();
      for (AuditEvent e : t.getValue()) {
        if (e.event() instanceof TaskJournal.AttemptStarted a && a.executor() != null
            && io.almanac.internal.lease.ExecutorFence.nodeOf(a.executor()).equals(executor)) {
          ran.add(a.window() + "#" + a.attempt());
        }
        String result = e.event() instanceof TaskJournal.AttemptSucceeded r ? r.window() + "#" + r.attempt()
            : e.event() instanceof TaskJournal.AttemptFailed r ? r.window() + "#" + r.attempt()
            : e.event() instanceof TaskJournal.LateResultRecorded r ? r.window() + "#" + r.attempt() : null;
        if (result != null && ran.contains(result) && !e.at().isBefore(woken)) {
          reported.add(t.getKey() + " " + result + ": " + e.event().getClass().getSimpleName() + " at " + e.at()
              + ", reported by the woken node");
        }
      }
    }
    return reported;
  }

  /** The windows recorded MISSED whose due time lies in [from, to]. */
  private static List<String> missedBetween(CrashRun run, Instant from, Instant to) {
    List<String> missed = new ArrayList<>();
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      for (String id : reader.taskIds()) {
        for (AuditEvent e : reader.read(id).events()) {
          if (e.event() instanceof TaskJournal.WindowMissed w && !w.dueAt().isBefore(from) && !w.dueAt().isAfter(to)) {
            missed.add(id + " " + w.window() + " " + w.reason() + ": " + w.detail());
          }
          if (e.event() instanceof TaskJournal.WindowsSkipped r && r.outcome() == io.almanac.InstanceStatus.MISSED
              && !r.dueAt().isAfter(to) && !r.lastDue().isBefore(from)) {
            missed.add(id + " " + r.window() + ".." + r.lastWindow() + " (" + r.count() + " windows) " + r.missReason() + ": "
                + r.detail());
          }
        }
      }
    }
    return missed;
  }

  private static String seeds(int[] ports) {
    return java.util.Arrays.stream(ports).mapToObj(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
  }

  private Member start(CrashRun run, int port, String seeds) {
    return harness.start(run, port, seeds, all, lastJobStart);
  }

  private static Instant awaitAllReady(CrashRun run, List<Member> members) {
    Instant ready = null;
    for (Member m : members) {
      ready = run.awaitReady(m.jvm());
    }
    return ready;
  }

  private static int stopQuietly(CrashRun run, Member m) {
    try {
      return m.jvm().stop(Duration.ofSeconds(60));
    } catch (IllegalStateException e) {
      run.log(m.name() + ": " + e.getMessage());
      return -1;
    }
  }

  private static Map<Member, Integer> triggerStartCounts(List<Member> members) {
    Map<Member, Integer> counts = new HashMap<>();
    for (Member m : members) {
      counts.put(m, ClusterFailoverTest.triggerStarts(m.log()).size());
    }
    return counts;
  }

  /** Waits (deadline) for a new "trigger started" line on one of the members. */
  private static Map.Entry<Member, Instant> awaitTriggerRestart(CrashRun run, List<Member> members, Map<Member, Integer> before,
      Instant deadline) throws InterruptedException {
    while (true) {
      for (Member m : members) {
        List<Instant> starts = ClusterFailoverTest.triggerStarts(m.log());
        if (starts.size() > before.getOrDefault(m, 0)) {
          return Map.entry(m, starts.get(starts.size() - 1));
        }
      }
      if (Instant.now().isAfter(deadline)) {
        fail("no member started the trigger again by " + deadline + "; see " + run.dir);
      }
      Thread.sleep(200);
    }
  }

  /** Waits (deadline) until a member's log shows the leader removing the node at that port. */
  private static void awaitRemoved(CrashRun run, List<Member> members, int port, Instant deadline) throws InterruptedException {
    String address = "@127.0.0.1:" + port + "]";
    while (members.stream().noneMatch(m -> linesAfter(m.log(), Instant.EPOCH).stream()
        .anyMatch(l -> l.contains("Leader is removing") && l.contains(address)))) {
      if (Instant.now().isAfter(deadline)) {
        fail("no member logged the removal of 127.0.0.1:" + port + " by " + deadline + "; see " + run.dir);
      }
      Thread.sleep(200);
    }
    run.log("127.0.0.1:" + port + " removed from the cluster (leader's log)");
  }

  private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");

  /** The lines of a node's log from the given time on (lines without a time belong to the line before). */
  /**
   * @param jobStart a {@code JOB-START <task> <window> <attempt>} line
   * @param nodeLog the node's whole log
   * @param wokenAt when the node was woken (SIGCONT)
   * @return whether the node's executor logged that attempt as ended after its node lost its lease, or
   *     as cancelled past an attempt lease that ended before {@code wokenAt} (admitted before the freeze)
   */
  static boolean runningAtLeaseLoss(String jobStart, String nodeLog, Instant wokenAt) {
    String[] f = jobStart.split(" ");
    if (f.length < 4) {
      return false;
    }
    String attempt = "task '" + java.util.regex.Pattern.quote(f[1]) + "' window '" + java.util.regex.Pattern.quote(f[2])
        + "' attempt " + java.util.regex.Pattern.quote(f[3]);
    if (java.util.regex.Pattern.compile(attempt + " ended \\d+ ms after its node lost its lease").matcher(nodeLog).find()) {
      return true;
    }
    // or the executor's check, on waking, found the attempt past its own lease, which ended before the wake: the
    // lease is set when the attempt is admitted, so it was admitted before the freeze (an attempt admitted after
    // waking has a lease that ends after it)
    java.util.regex.Matcher passed = java.util.regex.Pattern.compile(attempt + " passed its lease \\(([^)]+)\\): cancelled").matcher(nodeLog);
    while (passed.find()) {
      try {
        if (Instant.parse(passed.group(1)).isBefore(wokenAt)) {
          return true;
        }
      } catch (java.time.format.DateTimeParseException e) {
        // not an instant: not this case
      }
    }
    return false;
  }

  static List<String> linesAfter(Path log, Instant from) {
    if (!Files.exists(log)) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    boolean in = false;
    try (var lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
      for (String l : (Iterable<String>) lines::iterator) {
        if (l.length() >= 23 && Character.isDigit(l.charAt(0))) {
          try {
            in = !LocalDateTime.parse(l.substring(0, 23), LOG_TIME).atZone(ZoneId.systemDefault()).toInstant().isBefore(from);
          } catch (RuntimeException e) {
            // not a time: keep the state of the line before
          }
        }
        if (in) {
          out.add(l);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * @param total the events the node at that port wrote (every task's and the trigger's)
   * @param late those with a time at or after {@code from}
   * @param unstamped events without a writer stamp
   */
  private record Writes(long total, List<String> late, long unstamped) {}

  /**
   * The writes of the node at that port, counting as late only those of one incarnation of the node
   * (null: any) at or after {@code from}: a node started again on the same port writes legitimately.
   */
  private static Writes writesOf(CrashRun run, int port, Instant from, Long incarnation) {
    String node = "@127.0.0.1:" + port;
    long total = 0;
    long unstamped = 0;
    List<String> late = new ArrayList<>();
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      for (String id : reader.taskIds()) {
        for (AuditEvent e : reader.read(id).events()) {
          WriterStamp w = e.writer();
          if (w == null) {
            unstamped++;
          } else if (w.node().endsWith(node)) {
            total++;
            if (!e.at().isBefore(from) && (incarnation == null || w.incarnation() == incarnation)) {
              late.add(id + " #" + e.sequenceNr() + " " + e.type() + " " + e.window() + " at " + e.at());
            }
          }
        }
      }
      for (Verifier.Written e : reader.triggerWriters()) {
        if (e.writer() == null) {
          unstamped++;
        } else if (e.writer().node().endsWith(node)) {
          total++;
          if (!e.at().isBefore(from) && (incarnation == null || e.writer().incarnation() == incarnation)) {
            late.add("trigger #" + e.sequenceNr() + " " + e.type() + " at " + e.at());
          }
        }
      }
    }
    return new Writes(total, late, unstamped);
  }

  private static void publish(String key, String what, JournalCheck check, Facts facts, List<Duration> times, boolean ok,
      String notes, CrashRun run) {
    var s = check.report().stats();
    CrashReport.publish(new CrashReport.Row(key + "-pg", what, "PostgreSQL", "1", s.windowsChecked(), check.windowsLost(),
        check.registrationGap().size(), s.doubleSuccesses(), check.effectsRepeated(), s.longestRunningPastLease(), times,
        ok ? "OK" : "FAILED", String.format("%d events, %d attempts (%d succeeded), windows %s; %d effects; scheduled twice %s; "
            + "success then failure %s; %s; run folder %s", s.eventsRead(), s.attempts(), s.successes(), s.windowsByStatus(),
            check.effectLines(), facts.scheduledTwice(), facts.successThenFailure(), notes, run.dir)));
  }

  private static void judge(JournalCheck check, Facts facts, long duplicateKeys, CrashRun run, String schema) {
    if (!check.ok()) {
      fail("the journal of the run does not hold up (" + (schema == null ? "" : "kept in schema " + schema + ", ") + "logs in "
          + run.dir + "):\n" + check.describe());
    }
    assertTrue(facts.scheduledTwice().isEmpty(), "windows scheduled twice: " + facts.scheduledTwice());
    assertTrue(facts.successThenFailure().isEmpty(), "windows failed after their success: " + facts.successThenFailure());
    assertEquals(0, duplicateKeys, "duplicate-key errors in the nodes' logs (two writers); see " + run.dir);
  }
}
