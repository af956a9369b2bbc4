package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.RunKind;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.AuditEvent;
import io.almanac.persistence.audit.AuditReader;
import io.almanac.persistence.audit.TaskHistory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Timeout;

/**
 * Event and dependency triggers across real process deaths (docs/triggers.md): a child JVM runs
 * {@link CrashNode} on an H2 file with {@code --tasks events} or {@code --tasks chain} and is killed
 * with SIGKILL {@code almanac.crash.cycles} times (default 2, to keep the test command short; the {@code stress} profile sets 20),
 * then a final node finishes the work and stops normally, and the journal (read with the audit
 * reader after the stop) and the effects file decide.
 *
 * <ul>
 *   <li>{@link #duplicateEventsAcrossKill9()}: events published through the node's stdin
 *       ({@code PUBLISH}); the node is killed right after some of a cycle's new events were
 *       acknowledged, and every cycle (and the final node) delivers every id sent before again, as a
 *       broker redelivers unacknowledged (and acknowledged-but-unsure) messages. Each id must be
 *       {@code EventReceived} exactly once, later deliveries {@code EventDuplicated}; each window one
 *       instance, one success, one effect line.
 *   <li>{@link #killInDependencyChain()}: {@code chain-a -> chain-b -> chain-c} every 10 s; the node
 *       is killed the moment chain-b's first attempt of a window starts (a succeeded, b RUNNING). Each
 *       such window of b must succeed once with one effect line, and c must be released once for it,
 *       scheduled once, succeed once, with one effect line.
 * </ul>
 *
 * <p>Every wait is on what the node reports (acknowledged publishes, the entity's window status)
 * with a deadline; the run folder {@code target/crash/<key>-<time>/} keeps logs, stdout and run.log.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
// beside the other non-isolated crash tests (one or two node JVMs each, their own H2 files, schemas or PostgreSQL);
// the cluster tests (@Isolated) run alone
@Execution(ExecutionMode.CONCURRENT)
@Tag("crash") // the crash module's: two classes at a time (crash/pom.xml)
class TriggerCrashTest {

  static final int CYCLES = Integer.getInteger("almanac.crash.cycles", 2);

  /** Deadline for what a node must report (acks of a batch, a kill moment, windows succeeded), on a loaded machine. */
  static final Duration DEADLINE = Duration.ofSeconds(90);

  /** New event ids per cycle. */
  static final int NEW_PER_CYCLE = 8;

  // -----------------------------------------------------------------------------------------------
  // 1. Duplicate event delivery across kill -9

  @Test
  @DisplayName("events: redelivered ids across kill -9 are recorded once, one instance and one effect per window")
  void duplicateEventsAcrossKill9() throws Exception {
    CrashRun run = CrashRun.create("events-kill9-h2", dir -> Map.of("db", "h2", "h2-path",
        dir.resolve("almanac").toString(), "tasks", "events"));
    long seed = Long.getLong("almanac.crash.seed", System.nanoTime());
    Random rnd = new Random(seed);
    run.log("events: " + CYCLES + " kill -9 cycles, seed " + seed);
    Instant base = Instant.now().minusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
    Map<String, Instant> eventTimes = new LinkedHashMap<>(); // every id sent, with its (fixed) event time
    Map<String, Integer> deliveries = new LinkedHashMap<>();
    Set<String> ackedBeforeKill = new LinkedHashSet<>();
    Map<String, String> windowOfId = new ConcurrentHashMap<>();

    for (int cycle = 1; cycle <= CYCLES; cycle++) {
      List<String> fresh = new ArrayList<>();
      for (int n = 1; n <= NEW_PER_CYCLE; n++) {
        String id = "evt-" + cycle + "-" + n;
        fresh.add(id);
        // three hourly windows: this hour and the two before (inside the 24 h horizon, never in the future)
        eventTimes.put(id, base.minus(Duration.ofHours(n % 3)).minusSeconds(n));
      }
      int killAfter = 2 + rnd.nextInt(NEW_PER_CYCLE - 3); // 2..NEW-2 acknowledged new ids
      try (ChildJvm node = run.startNode()) {
        run.awaitReady(node);
        Map<String, String> acks = new ConcurrentHashMap<>();
        AtomicInteger freshAcks = new AtomicInteger();
        CompletableFuture<String> killed = new CompletableFuture<>();
        Set<String> freshSet = Set.copyOf(fresh);
        node.onLine(l -> {
          if (l.startsWith("PUBLISHED ")) {
            String[] f = l.split(" ");
            acks.put(f[1], l);
            windowOfId.put(f[1], f[4]);
            if (freshSet.contains(f[1]) && freshAcks.incrementAndGet() == killAfter) {
              node.destroyNow();
              killed.complete(l);
            }
          } else if (l.startsWith("PUBLISH-FAILED ")) {
            killed.completeExceptionally(new IllegalStateException("a publish failed before the kill: " + l));
          }
        });
        // redeliver everything sent in earlier cycles, then the new ids
        List<String> send = new ArrayList<>(deliveries.keySet());
        send.addAll(fresh);
        for (String id : send) {
          deliveries.merge(id, 1, Integer::sum);
          node.send("PUBLISH " + CrashNode.ORDER_PAID + " " + id + " " + eventTimes.get(id));
        }
        String at = node.await(killed, DEADLINE);
        node.kill9();
        ackedBeforeKill.addAll(acks.keySet());
        run.log("cycle " + cycle + ": kill -9 of pid " + node.pid() + " right after " + killAfter + " new ids acknowledged ("
            + at + "); acknowledged this cycle: " + acks.size() + " of " + send.size() + " sent");
      }
    }

    // The final node: everything once more, every window to success, a normal stop.
    Map<String, String> finalOutcome = new ConcurrentHashMap<>();
    Set<String> windows = new java.util.TreeSet<>();
    try (ChildJvm node = run.startNode()) {
      run.awaitReady(node);
      CompletableFuture<Void> allAcked = new CompletableFuture<>();
      int expected = deliveries.size();
      node.onLine(l -> {
        if (l.startsWith("PUBLISHED ")) {
          String[] f = l.split(" ");
          finalOutcome.put(f[1], f[3]);
          windowOfId.put(f[1], f[4]);
          if (finalOutcome.size() == expected) {
            allAcked.complete(null);
          }
        } else if (l.startsWith("PUBLISH-FAILED ")) {
          allAcked.completeExceptionally(new IllegalStateException(l));
        }
      });
      for (String id : deliveries.keySet()) {
        deliveries.merge(id, 1, Integer::sum);
        node.send("PUBLISH " + CrashNode.ORDER_PAID + " " + id + " " + eventTimes.get(id));
      }
      node.await(allAcked.thenApply(v -> "all acknowledged"), DEADLINE);
      windows.addAll(windowOfId.values());
      run.log("final node: all " + expected + " ids acknowledged; outcomes " + countValues(finalOutcome)
          + "; windows " + windows);
      awaitSucceeded(run, node, windows.stream().map(w -> CrashNode.ORDERS + " " + w).toList());
      int exit = node.stop(Duration.ofSeconds(60));
      run.log("final node: normal stop, exit code " + exit);
      if (exit != 0) {
        fail("the final node did not stop normally (exit " + exit + "); see " + node.output());
      }
    }

    // The journal decides.
    List<String> problems = new ArrayList<>();
    for (String id : ackedBeforeKill) {
      if (!"DUPLICATE".equals(finalOutcome.get(id))) {
        problems.add("id " + id + " was acknowledged before a kill but the final delivery answered " + finalOutcome.get(id)
            + " instead of DUPLICATE");
      }
    }
    Map<String, Integer> received = new TreeMap<>();
    Map<String, Integer> duplicated = new TreeMap<>();
    Map<String, Integer> scheduled = new TreeMap<>();
    Map<String, Integer> succeeded = new TreeMap<>();
    TaskHistory history = read(run, CrashNode.ORDERS);
    for (AuditEvent e : history.events()) {
      Object ev = e.event();
      if (ev instanceof TaskJournal.EventReceived r) {
        received.merge(r.eventId(), 1, Integer::sum);
      } else if (ev instanceof TaskJournal.EventDuplicated d) {
        duplicated.merge(d.eventId(), 1, Integer::sum);
      } else if (ev instanceof TaskJournal.InstanceScheduled s && s.kind() != RunKind.RETRY && s.kind() != RunKind.RESUME) {
        // a retry journals InstanceScheduled again (kind RETRY), a resume too (RESUME): the instance is created once
        scheduled.merge(s.window(), 1, Integer::sum);
      } else if (ev instanceof TaskJournal.AttemptSucceeded s) {
        succeeded.merge(s.window(), 1, Integer::sum);
      }
    }
    for (String id : deliveries.keySet()) {
      int r = received.getOrDefault(id, 0);
      int d = duplicated.getOrDefault(id, 0);
      if (r != 1) {
        problems.add("id " + id + ": EventReceived " + r + " times (expected once)");
      }
      if (r + d > deliveries.get(id)) {
        problems.add("id " + id + ": recorded " + (r + d) + " times but delivered only " + deliveries.get(id) + " times");
      }
      if (ackedBeforeKill.contains(id) && d < 1) {
        problems.add("id " + id + ": acknowledged before a kill and delivered again, but no EventDuplicated");
      }
    }
    Map<String, Integer> effects = effectsByWindow(run);
    for (String w : windows) {
      check(problems, "orders " + w + ": InstanceScheduled (not RETRY)", scheduled.getOrDefault(w, 0));
      check(problems, "orders " + w + ": AttemptSucceeded", succeeded.getOrDefault(w, 0));
      check(problems, "orders " + w + ": effect lines", effects.getOrDefault(CrashNode.ORDERS + " " + w, 0));
    }
    scheduled.forEach((w, n) -> {
      if (!windows.contains(w)) {
        problems.add("orders " + w + ": a window no event mapped to was scheduled " + n + " times");
      }
    });
    run.log("journal of orders: " + history.events().size() + " events; EventReceived " + sum(received)
        + ", EventDuplicated " + sum(duplicated) + ", InstanceScheduled " + scheduled + ", AttemptSucceeded " + succeeded
        + "; effects " + effects + "; ids acknowledged before a kill: " + ackedBeforeKill.size() + " of " + deliveries.size());
    finish(run, problems);
  }

  // -----------------------------------------------------------------------------------------------
  // 2. kill -9 in the middle of a dependency chain

  @Test
  @DisplayName("chain: kill -9 while b RUNS after a succeeded; b succeeds once, c is released and succeeds once")
  void killInDependencyChain() throws Exception {
    CrashRun run = CrashRun.create("chain-kill9-h2", dir -> Map.of("db", "h2", "h2-path",
        dir.resolve("almanac").toString(), "tasks", "chain"));
    run.log("chain: " + CYCLES + " kill -9 cycles, each the moment chain-b's first attempt of a window starts");
    Set<String> killedWindows = new LinkedHashSet<>();
    for (int cycle = 1; cycle <= CYCLES; cycle++) {
      try (ChildJvm node = run.startNode()) {
        Instant ready = run.awaitReady(node);
        CompletableFuture<String> line = node.nextLine(l -> l.startsWith("JOB-START chain-b ") && l.endsWith(" 1"));
        line.thenRun(node::destroyNow);
        String at = node.await(line, DEADLINE);
        node.kill9();
        killedWindows.add(at.split(" ")[2]);
        run.log("cycle " + cycle + ": kill -9 of pid " + node.pid() + " " + CrashReport.secs(Duration.between(ready,
            Instant.now())) + " after READY, right after: " + at);
      }
    }
    try (ChildJvm node = run.startNode()) {
      run.awaitReady(node);
      List<String> await = new ArrayList<>();
      for (String w : killedWindows) {
        await.add("chain-b " + w);
        await.add("chain-c " + w);
      }
      awaitSucceeded(run, node, await);
      int exit = node.stop(Duration.ofSeconds(60));
      run.log("final node: normal stop, exit code " + exit);
      if (exit != 0) {
        fail("the final node did not stop normally (exit " + exit + "); see " + node.output());
      }
    }

    List<String> problems = new ArrayList<>();
    Map<String, Integer> effects = effectsByWindow(run);
    Map<String, Map<String, Map<String, Integer>>> counts = new TreeMap<>(); // task -> event type -> window -> n
    for (String task : List.of("chain-a", "chain-b", "chain-c")) {
      Map<String, Map<String, Integer>> byType = new TreeMap<>();
      for (AuditEvent e : read(run, task).events()) {
        if (e.window() != null) {
          String type = e.event().getClass().getSimpleName();
          if (e.event() instanceof TaskJournal.InstanceScheduled s && s.kind() == RunKind.RETRY) {
            type = "InstanceScheduled(RETRY)"; // a retry journals InstanceScheduled again
          } else if (e.event() instanceof TaskJournal.InstanceScheduled s && s.kind() == RunKind.RESUME) {
            type = "InstanceScheduled(RESUME)"; // so does the resume of an interrupted attempt
          }
          byType.computeIfAbsent(type, k -> new TreeMap<>()).merge(e.window(), 1, Integer::sum);
        }
      }
      counts.put(task, byType);
      byType.getOrDefault("AttemptSucceeded", Map.of()).forEach((w, n) -> {
        if (n > 1) {
          problems.add(task + " " + w + ": succeeded " + n + " times");
        }
      });
    }
    effects.forEach((k, n) -> {
      if (n > 1) {
        problems.add(k + ": " + n + " effect lines");
      }
    });
    for (String w : killedWindows) {
      check(problems, "chain-a " + w + ": AttemptSucceeded", n(counts, "chain-a", "AttemptSucceeded", w));
      check(problems, "chain-b " + w + ": AttemptSucceeded", n(counts, "chain-b", "AttemptSucceeded", w));
      check(problems, "chain-b " + w + ": effect lines", effects.getOrDefault("chain-b " + w, 0));
      check(problems, "chain-c " + w + ": WindowWaiting", n(counts, "chain-c", "WindowWaiting", w));
      check(problems, "chain-c " + w + ": WaitSatisfied (released)", n(counts, "chain-c", "WaitSatisfied", w));
      check(problems, "chain-c " + w + ": InstanceScheduled (not RETRY)", n(counts, "chain-c", "InstanceScheduled", w));
      check(problems, "chain-c " + w + ": AttemptSucceeded", n(counts, "chain-c", "AttemptSucceeded", w));
      check(problems, "chain-c " + w + ": effect lines", effects.getOrDefault("chain-c " + w, 0));
      run.log("window " + w + ": chain-b " + perWindow(counts, "chain-b", w) + "; chain-c " + perWindow(counts, "chain-c", w));
    }
    finish(run, problems);
  }

  // -----------------------------------------------------------------------------------------------

  /** Asks the node for each "task window" to be SUCCEEDED and waits for all answers within {@link #DEADLINE}. */
  private static void awaitSucceeded(CrashRun run, ChildJvm node, List<String> taskWindows) {
    Instant start = Instant.now();
    List<CompletableFuture<String>> each = new ArrayList<>();
    for (String tw : taskWindows) {
      each.add(node.nextLine(l -> l.equals("AWAITED " + tw)));
      node.send("AWAIT-SUCCEEDED " + tw);
    }
    Instant deadline = start.plus(DEADLINE);
    for (int i = 0; i < each.size(); i++) {
      try {
        node.await(each.get(i), Duration.between(Instant.now(), deadline).isNegative() ? Duration.ZERO
            : Duration.between(Instant.now(), deadline));
      } catch (IllegalStateException e) {
        throw new IllegalStateException(taskWindows.get(i) + " did not succeed within " + DEADLINE + " (run folder "
            + run.dir + ")", e);
      }
    }
    run.log("succeeded, as the entities report: " + taskWindows + " within "
        + CrashReport.secs(Duration.between(start, Instant.now())));
  }

  private static TaskHistory read(CrashRun run, String task) {
    try (AuditReader reader = AuditReader.builder(run.journal()).progressEvery(1_000_000).start()) {
      return reader.read(task);
    }
  }

  /** Effect lines ("task window attempt") by "task window". */
  private static Map<String, Integer> effectsByWindow(CrashRun run) throws IOException {
    Map<String, Integer> out = new TreeMap<>();
    if (Files.exists(run.effects)) {
      for (String l : Files.readAllLines(run.effects, StandardCharsets.UTF_8)) {
        String[] f = l.trim().split(" ");
        if (f.length >= 2) {
          out.merge(f[0] + " " + f[1], 1, Integer::sum);
        }
      }
    }
    return out;
  }

  private static int n(Map<String, Map<String, Map<String, Integer>>> counts, String task, String type, String w) {
    return counts.getOrDefault(task, Map.of()).getOrDefault(type, Map.of()).getOrDefault(w, 0);
  }

  private static Map<String, Integer> perWindow(Map<String, Map<String, Map<String, Integer>>> counts, String task, String w) {
    Map<String, Integer> out = new TreeMap<>();
    counts.getOrDefault(task, Map.of()).forEach((type, byWindow) -> {
      Integer n = byWindow.get(w);
      if (n != null) {
        out.put(type, n);
      }
    });
    return out;
  }

  private static void check(List<String> problems, String what, int n) {
    if (n != 1) {
      problems.add(what + " " + n + " times (expected exactly once)");
    }
  }

  private static int sum(Map<String, Integer> m) {
    return m.values().stream().mapToInt(Integer::intValue).sum();
  }

  private static Map<String, Integer> countValues(Map<String, String> m) {
    Map<String, Integer> out = new TreeMap<>();
    m.values().forEach(v -> out.merge(v, 1, Integer::sum));
    return out;
  }

  private static void finish(CrashRun run, List<String> problems) {
    if (problems.isEmpty()) {
      run.log("OK");
      run.deleteDatabaseFiles();
      return;
    }
    Path timeline = run.dir.resolve("timeline.txt");
    JournalCheck.writeTimeline(run.journal(), timeline);
    run.log("FAILED:\n  " + String.join("\n  ", problems) + "\nthe whole journal as a timeline: " + timeline);
    fail(problems.size() + " problems (journal kept in " + run.dir + ", timeline " + timeline + "):\n  "
        + String.join("\n  ", problems));
  }
}
