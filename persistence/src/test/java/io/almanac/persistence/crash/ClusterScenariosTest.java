package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.CatchUpPolicy;
import io.almanac.MissReason;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Further faults of a 3-node cluster on PostgreSQL, with real processes (child JVMs running
 * {@link CrashNode} as members of one cluster, as in {@link ClusterFailoverTest}, whose harness this
 * class reuses), each judged from the journal like the kill -9 failover: the audit verifier (I1-I5),
 * the effects file (no effect twice), no window fired twice, no success turned into a failure, no
 * duplicate-key error in the logs of the nodes that kept running (the woken node's stale writes are
 * refused by the journal's key: that is the fencing, and it is counted, not failed); each publishes
 * a row of {@code target/crash-report.txt}.
 *
 * <ul>
 *   <li>{@link #freezeTriggerHost}: SIGSTOP of the trigger's host for 30 s, then SIGCONT. Opt-in:
 *       {@code -Dalmanac.cluster.freeze=true} (the {@code stress} profile sets it), about 110 s: it
 *       passed twice, then failed once in a CI run with 18 duplicate-key errors on the survivors (the
 *       frozen node had frozen between a journal insert and its commit; see almanac-postgres.conf's
 *       idle-in-transaction timeout, added since) and a failover of 16.8 s.
 *   <li>{@link #rollingRestart}: each node in turn stopped with SIGTERM and started again on its port.
 *       Opt-in: {@code -Dalmanac.cluster.rolling=true} (the {@code stress} profile sets it).
 *   <li>{@link #databaseOutage}: the cluster's PostgreSQL (a private server of the test's own) stopped
 *       for 30 s. Opt-in only: {@code -Dalmanac.cluster.pg-outage=true}, not in the {@code stress}
 *       profile: it does not pass reliably (the trigger can stall after the return; see there).
 * </ul>
 *
 * For example: {@code mvn -B -o -pl testkit,runtime,persistence -am test -Dtest=ClusterScenariosTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dalmanac.cluster.rolling=true -Dalmanac.cluster.pg-outage=true}.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
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

  static final Duration GRACE = ClusterFailoverTest.GRACE;

  /** Scenario time after the last fault, in real time (not a wait for a condition: the journal decides). */
  static final Duration AFTER = Duration.ofSeconds(10);

  /** The shared helpers of the kill -9 test (its per-run state: the windows each task started). */
  private final ClusterFailoverTest harness = new ClusterFailoverTest();

  private final Map<ChildJvm, Instant> lastJobStart = new ConcurrentHashMap<>();

  private final List<ChildJvm> all = new ArrayList<>();

  // ---------------------------------------------------------------------------------------------
  // (b) SIGSTOP / SIGCONT

  /**
   * The trigger's host is frozen (SIGSTOP) right after one of its jobs started, for 30 s: to the
   * others it is unreachable, the split brain resolver (lease-majority) downs it, the trigger
   * singleton and its shards start on the survivors once its leases expired. Then SIGCONT: the node
   * wakes up with its actors as they were, still believing it hosts the trigger. Its JDBC leases'
   * local deadlines ({@code System.nanoTime}, which went on during the freeze) have passed, so the
   * lease guard stops every entity before it handles a command. Asserted: from the journal's writer
   * stamps, no event written by the frozen node carries a time at or after the freeze (an event it
   * writes after waking would carry its clock's time, after the SIGCONT); from its stdout, no job
   * started after SIGCONT; a survivor fired within the failover limit. Whether the woken node exits
   * (it learns it was downed and terminates) or stays is recorded, not asserted.
   */
  @Test
  @EnabledIfSystemProperty(named = "almanac.cluster.freeze", matches = "true")
  @DisplayName("cluster: SIGSTOP of the trigger's host for 30 s, then SIGCONT; the survivors take over, the woken node writes nothing")
  void freezeTriggerHost() throws Exception {
    String key = "freeze3";
    Pg pg = Pg.shared().require();
    String schema = Pg.newSchema("almanac_" + key);
    CrashRun run = CrashRun.create(key + "-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-" + key),
        "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
    int[] ports = ClusterFailoverTest.freePorts(3);
    String seeds = seeds(ports);
    run.log("3-node cluster on PostgreSQL schema " + schema + ", seeds " + seeds + "; SIGSTOP of the trigger's host for " + FREEZE);
    List<Member> live = new ArrayList<>();
    Instant firstReady;
    Instant frozenAt;
    Instant wokenAt;
    Instant triggerBack;
    Member frozen;
    Member newHost;
    String fate;
    List<String> linesAfterWake = new CopyOnWriteArrayList<>();
    try {
      for (int port : ports) {
        live.add(start(run, port, seeds));
      }
      firstReady = awaitAllReady(run, live);
      harness.awaitSettled(run, ClusterFailoverTest.settledAfter(firstReady), Instant.now().plus(RESUME_TIMEOUT));
      ClusterFailoverTest.awaitJobs(live, lastJobStart, Instant.now(), Instant.now().plus(RESUME_TIMEOUT));
      frozen = ClusterFailoverTest.awaitTriggerHost(run, live, Instant.now().plus(RESUME_TIMEOUT));
      Map<Member, Integer> startsBefore = triggerStartCounts(live);
      AtomicBoolean woken = new AtomicBoolean();
      frozen.jvm().onLine(l -> {
        if (woken.get()) {
          linesAfterWake.add(l);
        }
      });
      var jobLine = frozen.jvm().nextLine(l -> l.startsWith("JOB-START "));
      frozen.jvm().await(jobLine, Duration.ofSeconds(30));
      frozen.jvm().freeze();
      frozenAt = Instant.now();
      live.remove(frozen);
      run.log("SIGSTOP of " + frozen.name() + " (pid " + frozen.jvm().pid() + ", port " + frozen.port() + "), the trigger's host");

      Instant deadline = frozenAt.plus(RESUME_TIMEOUT);
      Map.Entry<Member, Instant> back = awaitTriggerRestart(run, live, startsBefore, deadline);
      newHost = back.getKey();
      triggerBack = back.getValue();
      run.log("trigger started again on " + newHost.name() + " at " + triggerBack + ", "
          + CrashReport.secs(Duration.between(frozenAt, triggerBack)) + " after the SIGSTOP (log time)");
      ClusterFailoverTest.awaitJobs(live, lastJobStart, triggerBack, deadline);
      run.log("every survivor runs jobs again");
      // the freeze lasts FREEZE: part of the scenario, not a wait for a condition
      long left = Duration.between(Instant.now(), frozenAt.plus(FREEZE)).toMillis();
      if (left > 0) {
        Thread.sleep(left);
      }
      woken.set(true);
      frozen.jvm().resume();
      wokenAt = Instant.now();
      run.log("SIGCONT of " + frozen.name() + " after " + CrashReport.secs(Duration.between(frozenAt, wokenAt)));
      Optional<Integer> exit = frozen.jvm().awaitExit(Duration.ofSeconds(60));
      if (exit.isPresent()) {
        fate = "exited (code " + exit.get() + ") " + CrashReport.secs(Duration.between(wokenAt, Instant.now()))
            + " after SIGCONT";
      } else {
        fate = "still running 60 s after SIGCONT (rejoined: 'Welcome from' " + ClusterFailoverTest.countIn(frozen.log(),
            "Welcome from") + " times); stopped normally, exit " + stopQuietly(run, frozen);
      }
      run.log("the woken node " + fate);
      Thread.sleep(AFTER.toMillis());
      for (Member m : live) {
        int code = m.jvm().stop(Duration.ofSeconds(90));
        run.log(m.name() + ": normal stop, exit code " + code);
        assertEquals(0, code, m.name() + " did not stop normally; see " + m.jvm().output());
      }
    } finally {
      all.forEach(ChildJvm::close);
    }

    // ---- what the woken node did, from its log and stdout
    List<String> wokeLog = linesAfter(frozen.log(), wokenAt);
    // Pekko's own lease checks (shards, singletons) usually stop the entities before the lease guard sees a command
    long leaseLost = wokeLog.stream().filter(l -> l.contains("lost: stopping") || l.contains("lease lost, stopping shard")
        || l.contains("Lease has been lost")).count();
    long triggerStarts = wokeLog.stream().filter(l -> l.contains("trigger started:")).count();
    long jobStarts = linesAfterWake.stream().filter(l -> l.startsWith("JOB-START ")).count();
    long effects = linesAfterWake.stream().filter(l -> l.startsWith("EFFECT ")).count();
    run.log("the woken node's log after SIGCONT: " + wokeLog.size() + " lines, " + leaseLost
        + " lease-lost stops (lease guard, shard, singleton), "
        + triggerStarts + " 'trigger started'; its stdout: " + jobStarts + " JOB-START, " + effects + " EFFECT");
    run.log("the woken node's log after SIGCONT, the first 40 lines of note:\n" + wokeLog.stream()
        .filter(l -> l.contains("WARN") || l.contains("ERROR") || l.contains("lost") || l.contains("own") || l.contains("SBR")
            || l.contains("Shutting") || l.contains("trigger") || l.contains("stopp"))
        .limit(40).collect(Collectors.joining("\n")));

    // ---- the journal
    JournalCheck check = run.check(GRACE, firstReady);
    Facts facts = ClusterFailoverTest.facts(run);
    Writes writes = writesOf(run, frozen.port(), frozenAt);
    run.log("events written by the frozen node: " + writes.total + " in all, " + writes.late.size() + " with a time at or after "
        + "the SIGSTOP " + writes.late + "; events without a writer stamp: " + writes.unstamped);
    Gap gap = facts.gapAround(frozenAt);
    String failover = String.format("SIGSTOP of %s at %s; last fire before %s, first fire after %s: failover %s; trigger "
            + "restarted on %s %s after the SIGSTOP; SIGCONT after %s: the woken node %s", frozen.name(), frozenAt, gap.from(),
        gap.to(), CrashReport.secs(gap.length()), newHost.name(), CrashReport.secs(Duration.between(frozenAt, triggerBack)),
        CrashReport.secs(Duration.between(frozenAt, wokenAt)), fate);
    run.log(failover);
    // The woken node's own writes, queued before the freeze and sent after it, are refused by the
    // journal's key (the survivors wrote those sequence numbers): that is the fencing at work, and
    // nothing of it lands. A duplicate key on a survivor would be a live writer refused: counted.
    long fenced = ClusterFailoverTest.countIn(frozen.log(), "duplicate key");
    long duplicateKeys = run.countInLogs("duplicate key") - fenced;
    run.log("the woken node's writes refused by the journal's key (fencing): " + fenced
        + "; duplicate keys on the survivors: " + duplicateKeys);
    boolean fast = gap.length().compareTo(ClusterFailoverTest.FAILOVER_LIMIT) <= 0;
    boolean ok = check.ok() && facts.scheduledTwice().isEmpty() && facts.successThenFailure().isEmpty() && duplicateKeys == 0
        && writes.late.isEmpty() && jobStarts == 0 && effects == 0 && fast;
    publish(key, "SIGSTOP trigger host 30 s, 3 nodes", check, facts, List.of(gap.length()), ok,
        failover + "; woken node: " + leaseLost + " lease-lost stops, " + jobStarts + " jobs, " + writes.late.size()
            + " late writes", run);

    judge(check, facts, duplicateKeys, run, schema);
    assertTrue(writes.late.isEmpty(), "the frozen node wrote after the SIGSTOP: " + writes.late + "; see " + run.dir);
    assertEquals(0, jobStarts, "the woken node started jobs: " + linesAfterWake);
    assertEquals(0, effects, "the woken node ran effects: " + linesAfterWake);
    assertEquals(0, triggerStarts, "the woken node started the trigger again; see " + frozen.log());
    assertTrue(fast, "failover above " + ClusterFailoverTest.FAILOVER_LIMIT + ": " + failover);
    if (!CrashRun.keep()) {
      pg.dropSchema(schema);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // (d) rolling restart

  /**
   * A rolling restart: each of the 3 nodes in turn is stopped with SIGTERM (its shutdown hook runs
   * Pekko's coordinated shutdown: the member leaves, its singleton and shards are handed over), the
   * test waits until a survivor's leader removed it and every survivor runs jobs (and, when it hosted
   * the trigger, until the trigger started on a survivor), then starts it again on its port and waits
   * for READY. Asserted as for a kill (nothing doubled, every window accounted for), plus: the only
   * MISSED windows are those of tasks that do not catch up (catch-up NONE, R12's default) due while
   * the trigger was being handed over (the SIGTERM of its host to its start on the next oldest,
   * 1 s either side) or during the final stop of the whole cluster, with reason BACKFILL_NOT_ALLOWED.
   * A normal hand-over is not seamless: the old oldest stops the trigger when it starts leaving, the
   * next one starts it only after the hand-over and its lease (a 2-5 s gap on a loaded 2-core
   * machine), and the windows due in that gap are handed to the tasks as late, so the tasks without
   * catch-up record them MISSED (the first run: 70 MISSED, 21 in the first hand-over, the rest in
   * the second and the final stop). Opt-in ({@code -Dalmanac.cluster.rolling=true}, the {@code
   * stress} profile; about 2.5 min).
   */
  @Test
  @EnabledIfSystemProperty(named = "almanac.cluster.rolling", matches = "true")
  @DisplayName("cluster: rolling restart of 3 nodes (SIGTERM, start again); nothing doubled, MISSED only at the trigger's hand-over")
  void rollingRestart() throws Exception {
    String key = "rolling3";
    Pg pg = Pg.shared().require();
    String schema = Pg.newSchema("almanac_" + key);
    CrashRun run = CrashRun.create(key + "-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-" + key),
        "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
    int[] ports = ClusterFailoverTest.freePorts(3);
    String seeds = seeds(ports);
    run.log("3-node cluster on PostgreSQL schema " + schema + ", seeds " + seeds + "; rolling restart");
    List<Member> live = new ArrayList<>();
    List<Instant> stops = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    List<Instant[]> handOvers = new ArrayList<>();
    Instant firstReady;
    Instant finalStop;
    try {
      for (int port : ports) {
        live.add(start(run, port, seeds));
      }
      firstReady = awaitAllReady(run, live);
      harness.awaitSettled(run, ClusterFailoverTest.settledAfter(firstReady), Instant.now().plus(RESUME_TIMEOUT));
      ClusterFailoverTest.awaitJobs(live, lastJobStart, Instant.now(), Instant.now().plus(RESUME_TIMEOUT));
      for (int i = 0; i < ports.length; i++) {
        int port = ports[i];
        Member m = live.stream().filter(x -> x.port() == port).findFirst().orElseThrow();
        Member host = ClusterFailoverTest.awaitTriggerHost(run, live, Instant.now().plus(RESUME_TIMEOUT));
        Map<Member, Integer> startsBefore = triggerStartCounts(live);
        Instant stopAt = Instant.now();
        int code = m.jvm().terminate(Duration.ofSeconds(90));
        Instant exited = Instant.now();
        live.remove(m);
        stops.add(stopAt);
        run.log("SIGTERM of " + m.name() + " (port " + port + (m == host ? ", the trigger's host" : "") + "): exit code " + code
            + " after " + CrashReport.secs(Duration.between(stopAt, exited)));
        assertTrue(code == 143 || code == 0, m.name() + " did not stop normally on SIGTERM (exit " + code + "); see " + m.log());
        Instant deadline = Instant.now().plus(RESUME_TIMEOUT);
        awaitRemoved(run, live, port, deadline);
        String note = m.name() + " stopped (" + CrashReport.secs(Duration.between(stopAt, exited)) + ")";
        if (m == host) {
          Map.Entry<Member, Instant> back = awaitTriggerRestart(run, live, startsBefore, deadline);
          handOvers.add(new Instant[] {stopAt, back.getValue()});
          note += ", trigger on " + back.getKey().name() + " " + CrashReport.secs(Duration.between(stopAt, back.getValue()))
              + " after the SIGTERM";
        }
        ClusterFailoverTest.awaitJobs(live, lastJobStart, exited, deadline);
        Member again = start(run, port, seeds);
        Instant ready = run.awaitReady(again.jvm());
        live.add(again);
        note += ", back READY " + CrashReport.secs(Duration.between(exited, ready)) + " after its exit";
        notes.add(note);
        run.log(note);
      }
      Thread.sleep(AFTER.toMillis());
      finalStop = Instant.now();
      for (Member m : live) {
        int code = m.jvm().stop(Duration.ofSeconds(90));
        run.log(m.name() + ": normal stop, exit code " + code);
        assertEquals(0, code, m.name() + " did not stop normally; see " + m.jvm().output());
      }
    } finally {
      all.forEach(ChildJvm::close);
    }
    JournalCheck check = run.check(GRACE, firstReady);
    Facts facts = ClusterFailoverTest.facts(run);
    // Every MISSED window: a task that does not catch up (R12's default), reason BACKFILL_NOT_ALLOWED, due
    // while the trigger was being handed over (from the SIGTERM of its host to its start on the next
    // oldest, 1 s either side) or in the final stop of the whole cluster; anything else is unexplained.
    Map<String, Integer> missedBy = new java.util.TreeMap<>();
    List<String> unexplained = new ArrayList<>();
    Set<String> catchingUp = CrashNode.TASKS.stream().filter(t -> t.catchUp().mode() != CatchUpPolicy.Mode.NONE)
        .map(TaskSpec::id).collect(Collectors.toSet());
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      for (String id : reader.taskIds()) {
        for (AuditEvent e : reader.read(id).events()) {
          if (e.event() instanceof TaskJournal.WindowMissed w) {
            String where = null;
            for (int i = 0; i < handOvers.size() && where == null; i++) {
              Instant[] h = handOvers.get(i);
              if (!w.dueAt().isBefore(h[0].minusSeconds(1)) && !w.dueAt().isAfter(h[1].plusSeconds(1))) {
                where = "trigger hand-over " + (i + 1);
              }
            }
            if (where == null && !w.dueAt().isBefore(finalStop.minusSeconds(1))) {
              where = "final stop";
            }
            if (where == null || catchingUp.contains(id) || w.reason() != MissReason.BACKFILL_NOT_ALLOWED) {
              unexplained.add(id + " " + w.window() + " " + w.reason() + ": " + w.detail());
            } else {
              missedBy.merge(where, 1, Integer::sum);
            }
          }
        }
      }
    }
    notes.add("MISSED windows by cause: " + missedBy + ", unexplained " + unexplained.size());
    List<Duration> gaps = new ArrayList<>();
    for (Instant s : stops) {
      Gap gap = gapWithin(facts.fires(), s.minusSeconds(5), s.plusSeconds(30));
      gaps.add(gap.length());
      notes.add("around the stop at " + s + ": longest gap between fires " + CrashReport.secs(gap.length()) + " (" + gap.from()
          + " to " + gap.to() + ")");
    }
    long missed = check.report().stats().windowsByStatus().getOrDefault("MISSED", 0L);
    long duplicateKeys = run.countInLogs("duplicate key");
    run.log(String.join("\n", notes) + "\nwindows MISSED: " + missed);
    boolean ok = check.ok() && facts.scheduledTwice().isEmpty() && facts.successThenFailure().isEmpty() && duplicateKeys == 0
        && unexplained.isEmpty();
    publish(key, "rolling restart (SIGTERM), 3 nodes", check, facts, gaps, ok, notes + "; MISSED " + missed, run);
    judge(check, facts, duplicateKeys, run, schema);
    assertTrue(unexplained.isEmpty(), "windows MISSED outside a trigger hand-over, or of a task that catches up: "
        + unexplained + "; see " + run.dir);
    if (!CrashRun.keep()) {
      pg.dropSchema(schema);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // (f) database outage

  /**
   * The cluster's PostgreSQL (a server of the test's own, {@link PrivatePostgres}: the shared one
   * must not stop) is stopped ({@code pg_ctl stop -m fast}) for 30 s under a running 3-node cluster,
   * then started again. A node that exits meanwhile (downed) is started again on its port, as a
   * supervisor would. Asserted: within {@code almanac.cluster.pg-outage-resume-seconds} (300 s) of
   * the database's return every task starts a job for a window due 20 s or more after the return
   * (steady firing again, not only the first catch-up), and the journal holds up as for a kill.
   * What happened to the nodes (lease losses, downing, exits) is logged and reported.
   *
   * <p>What happens (runs of 2026-11-30): no node is downed or exits (the failure detector does not
   * involve the database, so the resolver has nothing to decide); the JDBC leases' heartbeats fail,
   * so the trigger singleton and the shards lose their leases and stop ("lease [..] lost:
   * stopping", "Failed to get lease"; the shard coordinator takes no lease, see
   * TaskShardingSettings); persists fail and the entities restart with back-off. After the return
   * the trigger and the shards take their leases again and the trigger restarts (3-4 s after the
   * return) and catches up.
   *
   * <p><b>Opt-in only</b> ({@code -Dalmanac.cluster.pg-outage=true}; not in the {@code stress}
   * profile). It used to fail in two runs of three: the trigger, started again after the return,
   * fired into its node's shard region, which had stopped for good (the shard coordinator, then
   * lease-guarded, was terminated on its lost lease and told its node's region to shut down; fires
   * never acknowledged, 2,000 in flight), and Pekko's singleton proxies never found the restarted
   * trigger again (TRIGGER_STALLED on every node). Runs of 2026-11-30 since TaskShardingSettings
   * (no coordinator lease): five of five passed, first fire 2.3-3.6 s after the return, every task
   * firing on time again 20.8-22.5 s after it (windows due 20 s after the return), the audit clean;
   * the three runs also with SingletonLocator raised no TRIGGER_STALLED after the return.
   */
  @Test
  @EnabledIfSystemProperty(named = "almanac.cluster.pg-outage", matches = "true")
  @DisplayName("cluster: PostgreSQL stopped for 30 s under 3 nodes; the cluster resumes, nothing doubled, every window accounted for")
  void databaseOutage() throws Exception {
    String key = "pgoutage3";
    try (PrivatePostgres server = PrivatePostgres.start()) {
      Pg pg = server.pg();
      String schema = "almanac_cluster_outage";
      CrashRun run = CrashRun.create(key + "-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-" + key),
          "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
      int[] ports = ClusterFailoverTest.freePorts(3);
      String seeds = seeds(ports);
      run.log("3-node cluster on a PostgreSQL of its own (" + server.kind() + ", port " + server.port() + ", log " + server.log()
          + "), seeds " + seeds + "; the database stopped for " + OUTAGE);
      List<Member> live = new ArrayList<>();
      List<String> notes = new ArrayList<>();
      Instant firstReady;
      Instant downAt;
      Instant backAt;
      Instant triggerBack;
      try {
        for (int port : ports) {
          live.add(start(run, port, seeds));
        }
        firstReady = awaitAllReady(run, live);
        harness.awaitSettled(run, ClusterFailoverTest.settledAfter(firstReady), Instant.now().plus(RESUME_TIMEOUT));
        ClusterFailoverTest.awaitJobs(live, lastJobStart, Instant.now(), Instant.now().plus(RESUME_TIMEOUT));
        ClusterFailoverTest.awaitTriggerHost(run, live, Instant.now().plus(RESUME_TIMEOUT));
        Map<Member, Integer> startsBefore = triggerStartCounts(live);
        server.stopServer();
        downAt = Instant.now();
        run.log("database stopped (pg_ctl stop -m fast)");
        Thread.sleep(OUTAGE.toMillis()); // the outage's length: the scenario, not a wait for a condition
        for (Member m : live) {
          run.log(m.name() + (m.jvm().isAlive() ? " runs" : " has exited (" + m.jvm().awaitExit(Duration.ZERO).orElse(-1) + ")")
              + " at the end of the outage");
        }
        server.startServer();
        backAt = Instant.now();
        run.log("database started again");
        Instant deadline = backAt.plus(OUTAGE_RESUME);
        // supervise: a node that exited is started again on its port
        Instant resumed = null;
        triggerBack = null;
        while (resumed == null) {
          for (Member m : new ArrayList<>(live)) {
            if (!m.jvm().isAlive()) {
              live.remove(m);
              Member again = start(run, m.port(), seeds);
              live.add(again);
              startsBefore.put(again, 0);
              String note = m.name() + " had exited (code " + m.jvm().awaitExit(Duration.ZERO).orElse(-1) + "): restarted as "
                  + again.name();
              notes.add(note);
              run.log(note);
            }
          }
          if (triggerBack == null) {
            for (Member m : live) {
              List<Instant> starts = ClusterFailoverTest.triggerStarts(m.log());
              if (starts.size() > startsBefore.getOrDefault(m, 0) && starts.get(starts.size() - 1).isAfter(downAt)) {
                triggerBack = starts.get(starts.size() - 1);
                run.log("trigger started again on " + m.name() + " at " + triggerBack);
              }
            }
          }
          // every task started a job for a window due STEADY after the return: firing on time again, not
          // only the first catch-up (the shards may have moved, so a node may run no job for a while:
          // counted, not waited for)
          Instant steady = backAt.plus(STEADY);
          if (CrashNode.TASKS.stream().allMatch(t -> harness.latestWindowStarted.getOrDefault(t.id(), Instant.EPOCH)
              .isAfter(steady))) {
            resumed = Instant.now();
          } else if (Instant.now().isAfter(deadline)) {
            fail("within " + OUTAGE_RESUME + " of the database's return, these tasks started no window due " + STEADY
                + " or more after it: " + CrashNode.TASKS.stream().map(TaskSpec::id).filter(t -> !harness.latestWindowStarted
                    .getOrDefault(t, Instant.EPOCH).isAfter(steady)).toList() + "; see " + run.dir);
          } else {
            Thread.sleep(200);
          }
        }
        for (Member m : live) {
          Instant last = lastJobStart.get(m.jvm());
          notes.add(m.name() + (last != null && last.isAfter(backAt) ? " ran jobs after the return" : " ran no job after the return"));
        }
        run.log("every task started a window due " + STEADY + " or more after the return, "
            + CrashReport.secs(Duration.between(backAt, resumed)) + " after it");
        notes.add("every task started a window due " + STEADY + " after the return by "
            + CrashReport.secs(Duration.between(backAt, resumed)) + " after it; trigger "
            + (triggerBack == null ? "kept running (no new start)" : "started again at " + triggerBack));
        Thread.sleep(AFTER.toMillis());
        for (Member m : live) {
          int code = m.jvm().stop(Duration.ofSeconds(90));
          run.log(m.name() + ": normal stop, exit code " + code);
          assertEquals(0, code, m.name() + " did not stop normally; see " + m.jvm().output());
        }
      } finally {
        all.forEach(ChildJvm::close);
      }
      for (String what : List.of("lost: stopping", "Failed to get lease", "Acquire lease result false", "SBR took decision",
          "Failed to persist", "RestartSupervisor saw failure", "Leader is removing", "Shutting down")) {
        notes.add("'" + what + "' " + run.countInLogs(what));
      }
      run.log("in the nodes' logs: " + notes);
      JournalCheck check = run.check(GRACE, firstReady);
      Facts facts = ClusterFailoverTest.facts(run);
      Gap gap = facts.gapAround(downAt);
      Duration recovery = Duration.between(backAt, gap.to());
      notes.add(String.format("database down at %s, back at %s; last fire before %s, first fire after %s (gap %s; %s after the "
          + "return)", downAt, backAt, gap.from(), gap.to(), CrashReport.secs(gap.length()), CrashReport.secs(recovery)));
      run.log(notes.get(notes.size() - 1));
      long duplicateKeys = run.countInLogs("duplicate key");
      boolean ok = check.ok() && facts.scheduledTwice().isEmpty() && facts.successThenFailure().isEmpty() && duplicateKeys == 0;
      publish(key, "PostgreSQL stopped 30 s, 3 nodes", check, facts, List.of(recovery), ok, notes.toString(), run);
      try {
        judge(check, facts, duplicateKeys, run, null);
      } catch (AssertionError e) {
        run.log("PostgreSQL server log:\n" + server.logText());
        throw e;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** The longest gap between consecutive fires that overlaps [from, to]. */
  private static Gap gapWithin(List<Instant> fires, Instant from, Instant to) {
    Gap best = null;
    for (int i = 1; i < fires.size(); i++) {
      Instant a = fires.get(i - 1);
      Instant b = fires.get(i);
      if (b.isBefore(from) || a.isAfter(to)) {
        continue;
      }
      if (best == null || Duration.between(a, b).compareTo(best.length()) > 0) {
        best = new Gap(a, b);
      }
    }
    if (best == null) {
      throw new AssertionError("no fires between " + from + " and " + to);
    }
    return best;
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

  private static Writes writesOf(CrashRun run, int port, Instant from) {
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
            if (!e.at().isBefore(from)) {
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
          if (!e.at().isBefore(from)) {
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
