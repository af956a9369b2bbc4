package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.AuditEvent;
import io.almanac.persistence.audit.AuditReader;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A normal stop (SIGTERM, as Kubernetes or systemd sends it) of a single real node on H2 while two
 * jobs run: one of 3 s, within the node's {@code shutdown-grace} of 8 s, and one of 20 s, longer than
 * it ({@link CrashNode} {@code --tasks drain}: neither task is retried, so a failure would be
 * FINAL_FAILED). The short one must finish during the drain (seeing the stopping signal) and be
 * recorded SUCCEEDED; the long one must be recorded INTERRUPTED (NODE_STOPPED) by the stopping node
 * and resumed at the next start (RESUME), SUCCEEDED once. Judged from the journal: 0 FINAL_FAILED,
 * 0 retries spent, every interruption resumed, the audit's invariants hold.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@Execution(ExecutionMode.CONCURRENT)
@Tag("crash")
class SigtermDrainTest {

  static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(8);

  @Test
  @DisplayName("SIGTERM with a 3 s job and a 20 s job (grace 8 s): the short one SUCCEEDED in the drain, the long one "
      + "INTERRUPTED (NODE_STOPPED) and resumed once; 0 FINAL_FAILED, 0 retries")
  void h2() throws Exception {
    CrashRun run = CrashRun.create("sigterm-h2", dir -> Map.of("db", "h2", "h2-path", dir.resolve("almanac").toString(),
        "tasks", "drain", "hocon", "almanac.executor.shutdown-grace = " + SHUTDOWN_GRACE.toSeconds() + "s"));
    String window;
    Instant firstReady;
    try (ChildJvm node = run.startNode()) {
      firstReady = run.awaitReady(node);
      CompletableFuture<String> longStart = node.nextLine(l -> l.startsWith("JOB-START drain-long "));
      CompletableFuture<String> shortStart = node.nextLine(l -> l.startsWith("JOB-START drain-short "));
      String line = node.await(longStart, Duration.ofSeconds(45)); // the tasks are due every 20 s
      window = line.split(" ")[2];
      String shortLine = node.await(shortStart, Duration.ofSeconds(10));
      assertEquals(window, shortLine.split(" ")[2], "both due at the same second");
      long t0 = System.nanoTime();
      int exit = node.terminate(Duration.ofSeconds(90));
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      run.log("SIGTERM during window " + window + ": exit " + exit + " after " + CrashReport.secs(took));
      assertTrue(took.compareTo(SHUTDOWN_GRACE.minusSeconds(1)) >= 0, "the node waited the grace for the long job: " + took);
    }
    try (ChildJvm node = run.startNode()) {
      run.awaitReady(node);
      CompletableFuture<String> awaited = node.nextLine(l -> l.equals("AWAITED drain-long " + window));
      node.send("AWAIT-SUCCEEDED drain-long " + window);
      node.await(awaited, Duration.ofSeconds(60));
      int exit = node.stop(Duration.ofSeconds(90));
      run.log("second node: resumed window " + window + " SUCCEEDED; normal stop, exit code " + exit);
    }

    JournalCheck check = run.check(Duration.ofSeconds(5), firstReady);
    var s = check.report().stats();
    run.log("windows " + s.windowsByStatus() + ", " + s.retries() + " retries, interrupted " + check.interruptionsByCause()
        + ", not resumed " + check.interruptionsNotResumed());
    if (!check.ok()) {
      fail("the journal of a SIGTERM drain does not hold up (kept in " + run.dir + "):\n" + check.describe());
    }
    assertEquals(0L, s.windowsByStatus().getOrDefault("FINAL_FAILED", 0L), check.describe());
    assertEquals(0L, s.retries(), "no retry spent\n" + check.describe());
    assertTrue(check.interruptionsByCause().getOrDefault("NODE_STOPPED", 0L) >= 1, check.describe());
    assertEquals(0L, check.interruptionsByCause().getOrDefault("NODE_LOST", 0L),
        "the stopping node recorded its interruption itself\n" + check.describe());
    java.util.List<TaskJournal.AttemptSucceeded> shortDone = successes(run, "drain-short", window);
    assertEquals(1, shortDone.size(), "the short window succeeded once");
    assertEquals(1, shortDone.get(0).attempt(), "in its first attempt, during the drain");
    assertTrue(shortDone.get(0).summary().endsWith("stopping=true"), "it saw the stopping signal: " + shortDone.get(0));
    java.util.List<TaskJournal.AttemptSucceeded> longDone = successes(run, "drain-long", window);
    assertEquals(1, longDone.size(), "the long window succeeded once");
    assertEquals(2, longDone.get(0).attempt(), "resumed: its second attempt");
    assertTrue(longDone.get(0).summary().startsWith("RESUME"), longDone.get(0).toString());
    run.deleteDatabaseFiles();
  }

  /** The window's successes, read from the journal. */
  private static java.util.List<TaskJournal.AttemptSucceeded> successes(CrashRun run, String task, String window) {
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      return reader.read(task).events().stream().map(AuditEvent::event)
          .filter(e -> e instanceof TaskJournal.AttemptSucceeded s && s.window().equals(window))
          .map(e -> (TaskJournal.AttemptSucceeded) e).toList();
    }
  }
}
