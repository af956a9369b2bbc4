package io.almanac.persistence.crash;

import com.typesafe.config.Config;
import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.Audit;
import io.almanac.persistence.audit.AuditEvent;
import io.almanac.persistence.audit.AuditReader;
import io.almanac.persistence.audit.AuditRequest;
import io.almanac.persistence.audit.TaskHistory;
import io.almanac.persistence.audit.VerificationReport;
import io.almanac.persistence.audit.Verifier;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a crash or fault run left behind, read from the journal (not from log lines) after the
 * node has stopped: the audit command's verdict (I1-I7) and its statistics, the effects file of
 * the ledger jobs, and when the first attempt started after each restart.
 *
 * @param auditExit the exit code of {@link Audit#run} with {@code --verify} over the whole journal
 * @param auditOutput what the audit command printed (report and summary)
 * @param report the verifier's report (the same checks, as an object, for the statistics)
 * @param effectLines lines in the effects file
 * @param effectsRepeated (task, window) pairs whose effect ran more than once
 * @param repeatedExamples some of them, with their lines
 * @param succeededWithoutEffect ledger windows that succeeded but have no line in the effects file
 * @param downstreamResolutions ledger records made after an outcome-unknown (value {@code downstream:*})
 * @param attemptStarts every AttemptStarted time, sorted
 * @param startsByTask per task, its AttemptStarted times in journal order
 * @param successDue per task, the due times of its windows that succeeded
 * @param eventsByType events read, by type
 * @param registrationGap I2 "lost window" violations of windows due before the first node was
 *     READY: the registration race (the trigger learns a task after its entity stored the spec and
 *     never fires a window due in between), reported apart because no crash can cause them
 * @param interruptionsByCause attempts recorded INTERRUPTED, by cause (a node's death is NODE_LOST, its
 *     stop past its grace NODE_STOPPED, a fenced-out executor FENCED)
 * @param interruptionsNotResumed interruptions not followed, in the same write, by a resume (run kind
 *     RESUME): a retry spent or a FINAL_FAILED; none when every task resumes (the default)
 */
record JournalCheck(
    int auditExit,
    String auditOutput,
    VerificationReport report,
    long effectLines,
    long effectsRepeated,
    List<String> repeatedExamples,
    long succeededWithoutEffect,
    long downstreamResolutions,
    List<Instant> attemptStarts,
    Map<String, List<Instant>> startsByTask,
    Map<String, List<Instant>> successDue,
    Map<String, Long> eventsByType,
    List<VerificationReport.Violation> registrationGap,
    Map<String, Long> interruptionsByCause,
    List<String> interruptionsNotResumed) {

  /**
   * Writes the whole timeline (every event of every task, UTC) to a file, for a failed run.
   *
   * @param journal the journal configuration
   * @param file where
   */
  static void writeTimeline(Config journal, Path file) {
    try (PrintStream out = new PrintStream(Files.newOutputStream(file), true, StandardCharsets.UTF_8)) {
      Audit.run(journal, AuditRequest.builder().format("table").build(), out, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads and checks.
   *
   * @param journal the journal configuration (as the node had it)
   * @param grace windows due, and leases ending, this close to the journal's end are not judged
   * @param effects the effects file
   * @param registeredBy when the first node was READY (its registerAll had completed)
   * @return what was found
   */
  static JournalCheck run(Config journal, Duration grace, Path effects, Instant registeredBy) {
    AuditRequest request = AuditRequest.builder().verify(true).timeline(false).grace(grace).format("table").build();
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int exit;
    Verifier verifier = Verifier.create().grace(grace);
    List<Instant> starts = new ArrayList<>();
    Map<String, List<Instant>> successDue = new LinkedHashMap<>();
    Map<String, List<Instant>> startsByTask = new LinkedHashMap<>();
    Map<String, Long> byType = new HashMap<>();
    Set<String> ledgerSuccesses = new HashSet<>();
    Map<String, Long> interruptions = new java.util.TreeMap<>();
    List<String> notResumed = new ArrayList<>();
    long downstream = 0;
    try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        AuditReader reader = AuditReader.builder(journal).progressEvery(1_000_000).start()) {
      // 1. The audit command itself, as an operator runs it.
      exit = Audit.run(reader, request, out, out);
      // 2. The same journal again, for the statistics and the timings (with the trigger's heartbeat first, as the
      // audit command reads it, so I6 sees the same restarts and outages).
      verifier.heartbeat(reader.triggerWriters());
      for (String id : reader.taskIds()) {
        TaskHistory history = reader.read(id);
        verifier.check(history);
        Map<String, Instant> due = new HashMap<>();
        List<Instant> succeeded = new ArrayList<>();
        TaskJournal.AttemptInterrupted lastInterruption = null;
        for (AuditEvent e : history.events()) {
          byType.merge(e.type(), 1L, Long::sum);
          Object ev = e.event();
          if (lastInterruption != null && ev instanceof TaskJournal.WindowEvent w
              && w.window().equals(lastInterruption.window())) {
            // what the same write decided for the interrupted window: a resume, or else a cost
            if (!(ev instanceof TaskJournal.InstanceScheduled s && s.kind() == io.almanac.RunKind.RESUME)) {
              notResumed.add(id + " " + w.window() + " attempt " + lastInterruption.attempt() + " ("
                  + lastInterruption.cause() + "): then " + e.type());
            }
            lastInterruption = null;
          }
          if (ev instanceof TaskJournal.AttemptInterrupted i) {
            interruptions.merge(i.cause().name(), 1L, Long::sum);
            lastInterruption = i;
          }
          if (ev instanceof TaskJournal.InstanceScheduled s) {
            due.putIfAbsent(s.window(), s.dueAt());
          } else if (ev instanceof TaskJournal.AttemptStarted s) {
            starts.add(s.at());
            startsByTask.computeIfAbsent(id, k -> new ArrayList<>()).add(s.at());
          } else if (ev instanceof TaskJournal.AttemptSucceeded s) {
            Instant d = due.get(s.window());
            if (d != null) {
              succeeded.add(d);
            }
            if (id.startsWith("ledger-")) {
              ledgerSuccesses.add(id + " " + s.window());
            }
          } else if (ev instanceof TaskJournal.EffectRecorded r && r.value() != null && r.value().startsWith("downstream:")) {
            downstream++;
          }
        }
        succeeded.sort(null);
        successDue.put(id, succeeded);
      }
    }
    starts.sort(null);

    Map<String, List<String>> effectsByWindow = new LinkedHashMap<>();
    long lines = 0;
    if (Files.exists(effects)) {
      try {
        for (String line : Files.readAllLines(effects, StandardCharsets.UTF_8)) {
          if (line.isBlank()) {
            continue;
          }
          lines++;
          String[] f = line.trim().split(" ");
          effectsByWindow.computeIfAbsent(f[0] + " " + f[1], k -> new ArrayList<>()).add(line);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    List<String> repeated = new ArrayList<>();
    long repeatedCount = 0;
    for (Map.Entry<String, List<String>> e : effectsByWindow.entrySet()) {
      if (e.getValue().size() > 1) {
        repeatedCount++;
        if (repeated.size() < 20) {
          repeated.add(e.getKey() + ": " + e.getValue());
        }
      }
    }
    long missing = ledgerSuccesses.stream().filter(k -> !effectsByWindow.containsKey(k)).count();
    VerificationReport report = verifier.report();
    List<VerificationReport.Violation> gap = report.violations().stream()
        .filter(v -> v.invariant() == VerificationReport.Invariant.I2 && v.events().isEmpty() && dueAt(v.window())
            .map(d -> !d.isAfter(registeredBy)).orElse(false))
        .toList();
    return new JournalCheck(exit, buf.toString(StandardCharsets.UTF_8), report, lines, repeatedCount,
        repeated, missing, downstream, List.copyOf(starts), startsByTask, successDue, byType, gap, interruptions,
        notResumed);
  }

  /** A per-firing window's key is its due instant. */
  private static Optional<Instant> dueAt(String window) {
    try {
      return Optional.of(Instant.parse(window));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Violations other than the registration gap's. */
  List<VerificationReport.Violation> violations() {
    return report.violations().stream().filter(v -> !registrationGap.contains(v)).toList();
  }

  /** Lost windows (I2) other than the registration gap's. */
  long windowsLost() {
    return report.stats().windowsLost() - registrationGap.size();
  }

  /**
   * The first attempt started at or after an instant.
   *
   * @param t the instant (a process start, the database's return)
   * @return its start, if any
   */
  Optional<Instant> firstStartAfter(Instant t) {
    for (Instant s : attemptStarts) {
      if (!s.isBefore(t)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * Time from each instant to the first attempt started at or after it.
   *
   * @param restarts process starts (or the database's returns)
   * @return one duration per instant that was followed by an attempt
   */
  List<Duration> toFirstFire(List<Instant> restarts) {
    List<Duration> out = new ArrayList<>();
    for (Instant r : restarts) {
      firstStartAfter(r).ifPresent(s -> out.add(Duration.between(r, s)));
    }
    return out;
  }

  /**
   * Tasks that started no attempt at or after {@code t}: evidence that they were never woken again.
   *
   * @param t the instant
   * @param tasks every task id
   * @return the task ids, sorted
   */
  Set<String> tasksWithoutAttemptAfter(Instant t, List<String> tasks) {
    Set<String> out = new TreeSet<>();
    for (String task : tasks) {
      if (startsByTask.getOrDefault(task, List.of()).stream().noneMatch(s -> !s.isBefore(t))) {
        out.add(task);
      }
    }
    return out;
  }

  /**
   * Tasks none of whose windows due after {@code t} succeeded: evidence that their fires stopped.
   *
   * @param t the instant
   * @return the task ids, sorted
   */
  Set<String> tasksWithoutSuccessDueAfter(Instant t) {
    Set<String> out = new TreeSet<>();
    successDue.forEach((task, dues) -> {
      if (dues.stream().noneMatch(d -> d.isAfter(t))) {
        out.add(task);
      }
    });
    return out;
  }

  /** Whether everything the run must show holds. */
  boolean ok() {
    // Since the trigger fires every window due after the registration began, the registration race
    // is fixed: a window lost before the first READY fails the run like any other.
    boolean audit = auditExit == Audit.OK;
    return audit && violations().isEmpty() && effectsRepeated == 0 && succeededWithoutEffect == 0
        && interruptionsNotResumed.isEmpty();
  }

  /** A description for a failure message or the log: the audit's output and the effect checks. */
  String describe() {
    StringBuilder b = new StringBuilder();
    b.append("audit exit code ").append(auditExit).append(" (0 = I1-I7 hold)\n").append(auditOutput);
    if (!registrationGap.isEmpty()) {
      b.append("of these, ").append(registrationGap.size()).append(" lost windows were due before the first node was READY:"
          + " the registration race (the trigger registers the task after its entity stored the spec and never fires the"
          + " windows due in between), counted apart from the crash's\n");
    }
    b.append("effects file: ").append(effectLines).append(" lines, ").append(effectsRepeated)
        .append(" (task, window) pairs with more than one effect\n");
    for (String r : repeatedExamples) {
      b.append("  repeated: ").append(r).append('\n');
    }
    b.append("ledger windows succeeded without an effect line: ").append(succeededWithoutEffect).append('\n');
    b.append("outcome-unknown effects resolved downstream: ").append(downstreamResolutions).append('\n');
    b.append("interruptions by cause: ").append(interruptionsByCause).append("; not resumed (a retry spent or the window"
        + " failed by an interruption): ").append(interruptionsNotResumed.size()).append('\n');
    interruptionsNotResumed.stream().limit(20).forEach(x -> b.append("  not resumed: ").append(x).append('\n'));
    b.append("events by type: ").append(new java.util.TreeMap<>(eventsByType)).append('\n');
    return b.toString();
  }
}
