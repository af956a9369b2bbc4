package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.AuditEvent;
import io.almanac.persistence.audit.AuditReader;
import io.almanac.persistence.crash.CrashReport.Row;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
 * Long jobs across {@code kill -9} (R24, durable steps): a child JVM runs {@link StepNode}'s jobs of
 * three durable steps and is killed with SIGKILL the moment a window's first attempt starts its
 * second step (after the first was recorded; other windows' attempts are cut wherever they are), then started again on the same journal, {@code
 * almanac.crash.step-cycles} times (default 3, 20 in the {@code stress} profile) on H2 and on PostgreSQL. A final node runs a few
 * seconds and stops normally. Judged from the journal and from the steps file the steps' bodies
 * append to:
 *
 * <ul>
 *   <li>a recorded first step never runs again for its window (no {@code gather} line of an attempt
 *       after the one that recorded it);
 *   <li>no window is FINAL_FAILED and no retry is scheduled: the jobs never fail by themselves, so an
 *       interruption that failed a window or spent a retry would show;
 *   <li>every window whose attempt was interrupted runs again and succeeds (except in the journal's
 *       last seconds);
 *   <li>the audit's invariants hold.
 * </ul>
 *
 * The figures (windows, interrupted attempts, FINAL_FAILED, retries, steps run again) go to
 * {@code target/crash-report.txt}.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
@Execution(ExecutionMode.CONCURRENT)
@Tag("crash")
class StepKillTest {

  static final int CYCLES = Integer.getInteger("almanac.crash.step-cycles", 3);

  /** Windows due, and leases ending, in the last seconds of the journal are not judged. */
  static final Duration GRACE = Duration.ofSeconds(5);

  /** How long the final node runs before its normal stop (the last interrupted window resumes in it). */
  static final Duration FINAL_RUN = Duration.ofSeconds(6);

  /** How long a cycle waits for a second step to start. */
  static final Duration STEP_WAIT = Duration.ofSeconds(30);

  @Test
  @DisplayName("R24: kill -9 during step 2 of 3 on H2: step 1 never runs again, no window fails or spends a retry")
  void h2() throws Exception {
    CrashRun run = CrashRun.create("steps-kill9-h2", dir -> Map.of("db", "h2", "h2-path", dir.resolve("almanac").toString()));
    cycles(run, "H2 (file)");
    run.deleteDatabaseFiles();
  }

  @Test
  @DisplayName("R24: kill -9 during step 2 of 3 on PostgreSQL: step 1 never runs again, no window fails or spends a retry")
  void postgres() throws Exception {
    Pg pg = Pg.shared().require();
    String schema = Pg.newSchema("almanac_steps");
    CrashRun run = CrashRun.create("steps-kill9-pg", dir -> Map.of("db", "pg", "pg-url", pg.url(schema, "almanac-steps"),
        "pg-user", pg.user(), "pg-password", pg.password(), "pg-schema", schema));
    cycles(run, "PostgreSQL");
    if (!CrashRun.keep()) {
      pg.dropSchema(schema);
    }
  }

  private void cycles(CrashRun run, String database) throws Exception {
    run.log(database + ": " + CYCLES + " kill -9 cycles, each the moment a job starts its second step");
    // The kills are deliberate and land every few seconds: a window running at several of them is interrupted
    // again and again. The bound on resumes in a row (almanac.task.max-resumes, 5, its own test in
    // InterruptionRulesTest) is set above the cycles here, so that every interruption of the run is judged.
    Map<String, String> steps = Map.of("tasks", "steps", "hocon", "almanac.task.max-resumes = " + (CYCLES + 10));
    List<String> kills = new ArrayList<>();
    Instant firstReady = null;
    for (int i = 1; i <= CYCLES; i++) {
      try (ChildJvm node = run.startNode(steps)) {
        Instant ready = run.awaitReady(node);
        if (firstReady == null) {
          firstReady = ready;
        }
        // a window's first attempt reaching step 2 (a resumed one, whose gather is replayed, would be first
        // after every restart under load, and be the one killed each time)
        CompletableFuture<String> line = node.nextLine(l -> l.startsWith("STEP-START draft ") && l.endsWith(" 1"));
        line.thenRun(node::destroyNow);
        String hit = node.await(line, STEP_WAIT);
        node.kill9();
        kills.add(hit.substring("STEP-START draft ".length()));
        run.log("cycle " + i + ": kill -9 right after " + hit);
      }
    }
    try (ChildJvm node = run.startNode(steps)) {
      run.awaitReady(node);
      Thread.sleep(FINAL_RUN.toMillis());
      int exit = node.stop(Duration.ofSeconds(60));
      run.log("final node: normal stop, exit code " + exit);
      assertEquals(0, exit, "the final node did not stop normally; see " + node.output());
    }

    JournalCheck check = run.check(GRACE, firstReady);
    Judged j = judge(run, check);
    String verdict = check.ok() && j.problems.isEmpty() ? "OK" : "FAILED";
    var s = check.report().stats();
    String notes = String.format("%d windows: %s; %d attempts interrupted, %d windows FINAL_FAILED, %d retries scheduled; "
            + "steps run again: gather %d (after its record: %d), draft %d; kills right after draft of %s; run folder %s",
        s.windowsChecked(), s.windowsByStatus(), j.interrupted, j.finalFailed, j.retries, j.gatherAgain,
        j.gatherAfterRecord, j.draftAgain, kills, run.dir);
    CrashReport.publish(new Row(run.key, "kill -9 in step 2", database, String.valueOf(CYCLES), s.windowsChecked(),
        check.windowsLost(), check.registrationGap().size(), s.doubleSuccesses(), check.effectsRepeated(),
        s.longestRunningPastLease(), List.of(), verdict, notes));
    run.log(notes);
    if (!check.ok()) {
      fail(database + ": the journal does not hold up (kept in " + run.dir + "):\n" + check.describe());
    }
    assertTrue(j.problems.isEmpty(), database + ": " + String.join("\n", j.problems) + "\n(" + notes + ")");
    assertTrue(j.interrupted >= CYCLES, database + ": each kill landed in a running draft, so at least " + CYCLES
        + " interrupted attempts are recorded, not " + j.interrupted + " (" + notes + ")");
  }

  /** What the journal and the steps file say. */
  private static final class Judged {
    final List<String> problems = new ArrayList<>();
    long interrupted;
    long finalFailed;
    long retries;
    long gatherAgain;
    long gatherAfterRecord;
    long draftAgain;
  }

  private static Judged judge(CrashRun run, JournalCheck check) throws Exception {
    Judged j = new Judged();
    // the steps file: step -> "task window" -> attempts whose body ran
    Map<String, Map<String, List<Integer>>> ran = new HashMap<>();
    Path file = StepNode.stepsFile(run.effects);
    for (String line : Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.<String>of()) {
      String[] f = line.trim().split(" ");
      if (f.length == 4) {
        ran.computeIfAbsent(f[0], k -> new HashMap<>()).computeIfAbsent(f[1] + " " + f[2], k -> new ArrayList<>())
            .add(Integer.parseInt(f[3]));
      }
    }
    j.gatherAgain = again(ran.get("gather"));
    j.draftAgain = again(ran.get("draft"));
    Instant end = Instant.EPOCH;
    Map<String, Instant> interruptedAt = new HashMap<>();
    Map<String, Instant> succeededAt = new HashMap<>();
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      for (String task : reader.taskIds()) {
        for (AuditEvent e : reader.read(task).events()) {
          Object ev = e.event();
          String type = e.type();
          end = e.at() != null && e.at().isAfter(end) ? e.at() : end;
          if (type.equals("AttemptInterrupted")) {
            j.interrupted++;
            interruptedAt.put(task + " " + e.window(), e.at());
          } else if (ev instanceof TaskJournal.InstanceFinalFailed f) {
            j.finalFailed++;
            j.problems.add(task + " " + f.window() + " is FINAL_FAILED: " + f.reason());
          } else if (ev instanceof TaskJournal.RetryScheduled r) {
            j.retries++;
            j.problems.add(task + " " + r.window() + " spent retry " + r.retryNumber());
          } else if (ev instanceof TaskJournal.AttemptSucceeded s) {
            succeededAt.put(task + " " + s.window(), s.at());
          } else if (ev instanceof TaskJournal.StepRecorded r && r.name().equals("gather")) {
            for (int attempt : ran.getOrDefault("gather", Map.of()).getOrDefault(task + " " + r.window(), List.of())) {
              if (attempt > r.attempt()) {
                j.gatherAfterRecord++;
                j.problems.add(task + " " + r.window() + ": gather recorded by attempt " + r.attempt()
                    + " ran again in attempt " + attempt);
              }
            }
          }
        }
      }
    }
    Instant judgedUntil = end.minus(GRACE);
    interruptedAt.forEach((window, at) -> {
      Instant ok = succeededAt.get(window);
      if (at.isBefore(judgedUntil) && (ok == null || ok.isBefore(at))) {
        j.problems.add(window + " was interrupted at " + at + " and did not succeed afterwards");
      }
    });
    return j;
  }

  /** Runs beyond the first, over all windows. */
  private static long again(Map<String, List<Integer>> byWindow) {
    return byWindow == null ? 0 : byWindow.values().stream().mapToLong(a -> a.size() - 1).sum();
  }
}
