package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.TaskSpec;
import io.almanac.persistence.crash.CrashReport.Row;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Timeout;

/**
 * The database goes away while a node runs ({@link CrashNode}: tasks every second), then comes
 * back: persists fail, the task entities and the trigger restart with back-off, their timers and
 * wake-ups are re-armed on recovery, and once the database is back no window is lost or doubled
 * (the audit command over the whole journal: I1-I7) and no ledgered effect ran twice. Also
 * checked from the journal: every task started an attempt after the database's return (it was
 * woken again: its fires, retries and catch-up did not stop), and the node's log shows that
 * persists did fail (else the test proved nothing).
 *
 * <ul>
 *   <li><b>PostgreSQL</b>, stopped for 30 s ({@code almanac.crash.pg-outage-seconds}) with
 *       {@code pg_ctl stop -m fast} and started again. The test runs a PostgreSQL server of its own
 *       ({@link PrivatePostgres}, embedded or from the installed binaries): stopping the shared test
 *       server would break whatever else runs against it meanwhile.
 *   <li><b>H2 over TCP</b>: the node writes to an H2 TCP server in a child JVM
 *       ({@code jdbc:h2:tcp://127.0.0.1:<port>/async:<file>;WRITE_DELAY=0}); the server is killed
 *       with SIGKILL and started again on the same port and file after
 *       {@code almanac.crash.h2-outage-seconds} (default 10 s, to keep the default suite short).
 * </ul>
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
// beside the other non-isolated crash tests (one or two node JVMs each, their own H2 files, schemas or PostgreSQL);
// the cluster tests (@Isolated) run alone
@Execution(ExecutionMode.CONCURRENT)
@Tag("crash") // the crash module's: two classes at a time (crash/pom.xml)
class DatabaseOutageTest {

  /**
   * Which outages run: {@code pg}, {@code h2} or both ({@code pg,h2}, the default). Both run at the
   * same time, each with its own node and database: they mostly wait for a database to come back,
   * and together they fit the default suite's time.
   */
  static final List<String> OUTAGES = List.of(System.getProperty("almanac.crash.outages", "pg,h2").split(","));

  static final Duration PG_OUTAGE = Duration.ofSeconds(Long.getLong("almanac.crash.pg-outage-seconds", 30));
  static final Duration H2_OUTAGE = Duration.ofSeconds(Long.getLong("almanac.crash.h2-outage-seconds", 10));

  /**
   * The database goes away once every task has started an attempt (the node is in full swing: long
   * jobs run, first attempts have failed and wait for their retries); this is how long after READY
   * that may take.
   */
  static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(60);

  /** How long every task may take to fire again once the database is back. */
  static final Duration RESUME_TIMEOUT = Duration.ofSeconds(120);

  /**
   * After every task fired again: the node runs on this long (real time: its leases, retry delays
   * and back-off run on the system clock) for the long jobs and the retries to finish before the
   * normal stop.
   */
  static final Duration SETTLE = Duration.ofSeconds(4);

  /** Stops and starts the database. */
  interface Database {
    void stop() throws Exception;

    void start() throws Exception;
  }

  @Test
  @DisplayName("R24/principle 5: PostgreSQL stopped for 30 s, the H2 TCP server killed, both started again: no window lost or "
      + "doubled, no ledgered effect repeated, every task woken again")
  void outages() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Map<String, Future<?>> runs = new LinkedHashMap<>();
      for (String outage : OUTAGES) {
        switch (outage.trim()) {
          case "pg" -> runs.put("PostgreSQL", pool.submit(() -> {
            postgres();
            return null;
          }));
          case "h2" -> runs.put("H2 (TCP server)", pool.submit(() -> {
            h2Tcp();
            return null;
          }));
          default -> fail("almanac.crash.outages: unknown outage '" + outage + "' (pg, h2)");
        }
      }
      List<String> failures = new ArrayList<>();
      for (Map.Entry<String, Future<?>> r : runs.entrySet()) {
        try {
          r.getValue().get();
        } catch (ExecutionException e) {
          failures.add(r.getKey() + ": " + e.getCause().getMessage());
          e.getCause().printStackTrace(System.out);
        }
      }
      if (!failures.isEmpty()) {
        fail(String.join("\n\n", failures));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private void postgres() throws Exception {
    try (PrivatePostgres server = PrivatePostgres.start()) {
      Pg pg = server.pg();
      String schema = "almanac_outage";
      CrashRun run = CrashRun.create("outage-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-outage"),
          "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
      run.log("PostgreSQL of its own (" + server.kind() + ") on port " + server.port() + ", server log " + server.log());
      try {
        outage(run, "PostgreSQL", PG_OUTAGE, "pg_ctl stop -m fast", new Database() {
          @Override
          public void stop() throws Exception {
            server.stopServer();
          }

          @Override
          public void start() throws Exception {
            server.startServer();
          }
        });
      } catch (AssertionError | RuntimeException e) {
        run.log("PostgreSQL server log:\n" + server.logText());
        throw e;
      }
    }
  }

  private void h2Tcp() throws Exception {
    int port = freePort();
    AtomicReference<ChildJvm> server = new AtomicReference<>();
    CrashRun run = CrashRun.create("outage-h2tcp", dir -> Map.of("db", "h2url", "jdbc-url", "jdbc:h2:tcp://127.0.0.1:" + port
        + "/async:" + dir.resolve("almanac") + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE;DATABASE_TO_UPPER=false"));
    Database h2 = new Database() {
      private int n;

      @Override
      public void stop() {
        server.get().kill9();
      }

      @Override
      public void start() {
        ChildJvm s = ChildJvm.start("h2-server-" + (++n), run.dir, org.h2.tools.Server.class, List.of(),
            List.of("-tcp", "-tcpPort", String.valueOf(port), "-ifNotExists"));
        server.set(s);
        s.awaitFirst(l -> l.contains("TCP server running"), Duration.ofSeconds(60));
      }
    };
    try {
      h2.start();
      run.log("H2 TCP server on port " + port + ", pid " + server.get().pid());
      outage(run, "H2 (TCP server)", H2_OUTAGE, "H2 server kill -9", h2);
      run.deleteDatabaseFiles();
    } finally {
      if (server.get() != null) {
        server.get().close();
      }
    }
  }

  private void outage(CrashRun run, String database, Duration length, String how, Database db) throws Exception {
    List<String> tasks = CrashNode.TASKS.stream().map(TaskSpec::id).toList();
    AtomicReference<Instant> back = new AtomicReference<>();
    Set<String> started = ConcurrentHashMap.newKeySet(); // tasks that started an attempt before the return
    CompletableFuture<Void> everyTaskStarted = new CompletableFuture<>();
    CompletableFuture<Void> everyTaskResumed = new CompletableFuture<>();
    Map<String, Instant> resumed = new ConcurrentHashMap<>(); // first attempt (any window) after the return
    Map<String, Instant> fresh = new ConcurrentHashMap<>(); // first attempt of a window due after the return
    Instant down;
    Instant backAt;
    Instant allResumed = null;
    Instant processStart;
    Instant firstReady;
    try (ChildJvm node = run.startNode()) {
      processStart = node.startedAt();
      node.onLine(l -> { // on the reader thread, one line at a time
        if (!l.startsWith("JOB-START ")) {
          return;
        }
        String[] f = l.split(" ");
        Instant b = back.get();
        if (b == null) {
          started.add(f[1]);
          if (started.size() == tasks.size()) {
            everyTaskStarted.complete(null);
          }
          return;
        }
        Instant now = Instant.now();
        resumed.putIfAbsent(f[1], now);
        if (resumed.size() == tasks.size()) {
          everyTaskResumed.complete(null);
        }
        if (!Instant.parse(f[2]).isBefore(b)) {
          fresh.putIfAbsent(f[1], now);
        }
      });
      firstReady = run.awaitReady(node);
      try {
        everyTaskStarted.get(WARM_UP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        fail("before the outage: within " + WARM_UP_TIMEOUT + " of READY these tasks started no attempt: "
            + missing(tasks, started) + "; see " + node.output());
      }
      run.log("every task started an attempt, the last " + CrashReport.secs(Duration.between(firstReady, Instant.now()))
          + " after READY");
      down = Instant.now();
      db.stop();
      run.log("database stopped (" + how + ")");
      // The outage itself: real time, as the node's connection timeouts and back-off run on the system clock.
      long left = length.toMillis() - Duration.between(down, Instant.now()).toMillis();
      if (left > 0) {
        Thread.sleep(left);
      }
      db.start();
      backAt = Instant.now();
      back.set(backAt);
      run.log("database back after " + CrashReport.secs(Duration.between(down, backAt)));
      try {
        everyTaskResumed.get(RESUME_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // not failed here: the journal's verdict below names the tasks never woken again
      }
      if (resumed.size() == tasks.size()) {
        allResumed = resumed.values().stream().max(Instant::compareTo).orElseThrow();
        run.log("every task started an attempt after the database's return, the last "
            + CrashReport.secs(Duration.between(backAt, allResumed)) + " after it");
      } else {
        run.log("after " + RESUME_TIMEOUT + " these tasks have not started an attempt since the database's return: "
            + missing(tasks, resumed.keySet()));
      }
      Thread.sleep(SETTLE.toMillis());
      run.log("tasks that started a window due after the return: " + fresh.size() + " of " + tasks.size()
          + (fresh.size() < tasks.size() ? ", not " + missing(tasks, fresh.keySet()) : ""));
      int exit = node.stop(Duration.ofSeconds(90));
      run.log("node: normal stop, exit code " + exit);
      if (exit != 0) {
        fail("the node did not stop normally (exit " + exit + "); see " + node.output());
      }
    }

    JournalCheck check = run.check(KillNineTest.GRACE, firstReady);
    long persistFailures = run.countInLogs("Failed to persist");
    long recoveryFailures = run.countInLogs("Exception during recovery");
    long restarts = run.countInLogs("RestartSupervisor saw failure");
    long breakerOpen = run.countInLogs("Circuit Breaker is open");
    Set<String> neverWoken = check.tasksWithoutAttemptAfter(backAt, tasks);
    var s = check.report().stats();
    List<Duration> toFirstFire = check.toFirstFire(List.of(backAt));
    boolean ok = check.ok() && neverWoken.isEmpty() && persistFailures > 0;
    String notes = String.format("%s at %s for %s; node log: %d 'Failed to persist', %d 'Exception during recovery', "
            + "%d supervisor restarts, %d 'Circuit Breaker is open'; every task started an attempt again %s after the "
            + "return; %d of %d tasks started a window due after the return (%s); %d events, %d attempts (%d succeeded, "
            + "%d retries, %d late results), windows %s; %d effects, %d outcome-unknown resolved downstream; first fire "
            + "after the node's start %s; run folder %s",
        how, down, CrashReport.secs(Duration.between(down, backAt)), persistFailures, recoveryFailures, restarts, breakerOpen,
        allResumed == null ? "NOT (" + missing(tasks, resumed.keySet()) + ")" : CrashReport.secs(Duration.between(backAt, allResumed)),
        fresh.size(), tasks.size(), fresh.isEmpty() ? "-" : "the first " + CrashReport.secs(Duration.between(backAt,
            fresh.values().stream().min(Instant::compareTo).orElseThrow())) + " after it" + (fresh.size() < tasks.size()
            ? "; not " + missing(tasks, fresh.keySet()) : ""),
        s.eventsRead(), s.attempts(), s.successes(), s.retries(), s.lateResults(), s.windowsByStatus(), check.effectLines(),
        check.downstreamResolutions(), check.firstStartAfter(processStart).map(t -> CrashReport.secs(Duration.between(processStart, t)))
            .orElse("-"), run.dir);
    Row row = new Row(run.key, "DB outage " + length.toSeconds() + " s", database, "-", s.windowsChecked(),
        check.windowsLost(), check.registrationGap().size(), s.doubleSuccesses(), check.effectsRepeated(),
        s.longestRunningPastLease(), toFirstFire, ok ? "OK" : "FAILED", notes);
    CrashReport.publish(row);
    List<String> problems = new ArrayList<>();
    if (!check.ok()) {
      problems.add("the journal does not hold up:\n" + check.describe());
    }
    if (!neverWoken.isEmpty()) {
      problems.add("tasks with no AttemptStarted in the journal after the database came back (never woken again): " + neverWoken);
    }
    if (persistFailures == 0) {
      problems.add("no 'Failed to persist' in the node's log: the outage was not felt, the test proves nothing");
    }
    if (!problems.isEmpty()) {
      fail(database + " outage (" + how + ", " + length.toSeconds() + " s): logs kept in " + run.dir + "\n"
          + String.join("\n", problems));
    }
  }

  private static String missing(List<String> tasks, Set<String> seen) {
    return tasks.stream().filter(id -> !seen.contains(id)).collect(Collectors.toCollection(TreeSet::new)).toString();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
