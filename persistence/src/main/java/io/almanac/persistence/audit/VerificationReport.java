package io.almanac.persistence.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What {@link Verifier} found: the violations of the invariants I1-I4 (none when {@link #ok()}),
 * the windows still open at the end of the journal, notes about what could not be checked, and
 * statistics.
 *
 * @param from the start of the checked range (inclusive), or null for the beginning
 * @param to the end of the checked range (inclusive), or null for the end of the journal
 * @param grace how long before the end of the journal due windows and leases are not yet judged
 * @param violations every violation found, task by task in journal order
 * @param open windows PENDING, RUNNING or RETRY_WAIT at the end of the journal: not violations (a
 *     RUNNING one whose lease ended more than the grace before the journal's end is an I3 violation
 *     instead)
 * @param notes what could not be checked and why (e.g. a window spec not registered in this JVM)
 * @param stats the counts
 */
public record VerificationReport(
    Instant from, Instant to, Duration grace, List<Violation> violations, List<Open> open, List<String> notes,
    Stats stats) {

  /** Copies the lists. */
  public VerificationReport {
    violations = List.copyOf(violations);
    open = List.copyOf(open);
    notes = List.copyOf(notes);
    Objects.requireNonNull(stats, "stats");
  }

  /**
   * Whether every invariant holds.
   *
   * @return true when there is no violation
   */
  public boolean ok() {
    return violations.isEmpty();
  }

  /** The invariants the verifier checks; the id is the enum constant's name. */
  public enum Invariant {
    /** No window succeeds twice (a late result recorded after a lease expired is not a success). */
    I1("no window succeeds twice"),
    /** Every window due in the range is accounted for: run, skipped or missed, each with its reason. */
    I2("every due window is accounted for"),
    /** No attempt stays RUNNING past its lease without a TIMED_OUT or a later outcome. */
    I3("no attempt stays RUNNING past its lease"),
    /** No two attempts of a task overlap unless its overlap policy is ALLOW. */
    I4("no overlapping attempts unless allowed");

    private final String description;

    Invariant(String description) {
      this.description = description;
    }

    /**
     * What the invariant says.
     *
     * @return e.g. {@code no window succeeds twice}
     */
    public String description() {
      return description;
    }
  }

  /**
   * An event named by a violation.
   *
   * @param sequenceNr its sequence number in the task's journal
   * @param type its type, e.g. {@code AttemptSucceeded}
   * @param at when it happened
   */
  public record EventRef(long sequenceNr, String type, Instant at) {
    /**
     * @return e.g. {@code #12 AttemptSucceeded at 2026-11-29T00:00:05Z}
     */
    @Override
    public String toString() {
      return "#" + sequenceNr + " " + type + " at " + at;
    }
  }

  /**
   * A violated invariant.
   *
   * @param taskId the task
   * @param window the window's key
   * @param invariant which invariant
   * @param message what is wrong, with the times involved
   * @param events the events involved (empty for a lost window: it has none)
   */
  public record Violation(String taskId, String window, Invariant invariant, String message, List<EventRef> events) {
    /** Copies the list. */
    public Violation {
      events = List.copyOf(events);
    }

    /**
     * @return e.g. {@code I1 task 'digest' window '2026-11-29': succeeded 2 times; events: #5 ..., #9 ...}
     */
    @Override
    public String toString() {
      return invariant + " task '" + taskId + "' window '" + window + "': " + message
          + (events.isEmpty() ? "" : "; events: " + events.stream().map(EventRef::toString).collect(Collectors.joining(", ")));
    }
  }

  /**
   * A window still active at the end of the journal: not a violation, the journal just ends while
   * it is under way.
   *
   * @param taskId the task
   * @param window the window's key
   * @param status PENDING, RUNNING or RETRY_WAIT
   * @param detail e.g. the running attempt and its lease
   */
  public record Open(String taskId, String window, String status, String detail) {
    /**
     * @return e.g. {@code task 'digest' window '2026-11-29': RUNNING (attempt 1, lease until ...)}
     */
    @Override
    public String toString() {
      return "task '" + taskId + "' window '" + window + "': " + status + (detail.isEmpty() ? "" : " (" + detail + ")");
    }
  }

  /**
   * The counts of a verification.
   *
   * @param tasks tasks checked
   * @param eventsRead events read
   * @param windowsSeen windows with events, in the range
   * @param windowsByStatus those windows by their status at the end of the journal
   * @param windowsChecked windows due in the range that I2 looked for
   * @param windowsLost due windows without any event (I2 violations)
   * @param doubleSuccesses windows that succeeded more than once (I1 violations)
   * @param attempts attempts started in the range
   * @param successes AttemptSucceeded events of windows in the range
   * @param retries RetryScheduled events of windows in the range
   * @param lateResults LateResultRecorded events of windows in the range (results of attempts that no
   *     longer held their window; not successes)
   * @param longestRunningPastLease the longest time an attempt was RUNNING after its lease ended,
   *     until its timeout or outcome was recorded (or, with no outcome, at least until the journal's
   *     end); zero when none outlived its lease
   * @param longestRunningPastLeaseOf which attempt that was ({@code task/window#attempt}), or null
   * @param checkedUntil the latest due time I2 checked (the end of the journal minus the grace, or
   *     {@code to}), over all tasks; null when nothing was due
   */
  public record Stats(
      int tasks,
      long eventsRead,
      long windowsSeen,
      Map<String, Long> windowsByStatus,
      long windowsChecked,
      long windowsLost,
      long doubleSuccesses,
      long attempts,
      long successes,
      long retries,
      long lateResults,
      Duration longestRunningPastLease,
      String longestRunningPastLeaseOf,
      Instant checkedUntil) {

    /** Copies the map. */
    public Stats {
      windowsByStatus = Map.copyOf(windowsByStatus);
      Objects.requireNonNull(longestRunningPastLease, "longestRunningPastLease");
    }
  }

  /**
   * The report as text: statistics, open windows, notes, then the result and every violation, one
   * a line.
   *
   * @return the text, lines ending with a newline
   */
  public String toText() {
    StringBuilder b = new StringBuilder();
    Stats s = stats;
    b.append("verification of ").append(s.tasks()).append(s.tasks() == 1 ? " task" : " tasks")
        .append(", range ").append(from == null ? "(start)" : from).append(" .. ").append(to == null ? "(end)" : to)
        .append(", grace ").append(grace).append('\n');
    line(b, "events read", String.format(Locale.ROOT, "%,d", s.eventsRead()));
    line(b, "windows seen", String.format(Locale.ROOT, "%,d", s.windowsSeen()) + byStatus(s.windowsByStatus()));
    line(b, "I1 double successes", String.format(Locale.ROOT, "%,d", s.doubleSuccesses()));
    line(b, "I2 windows checked", String.format(Locale.ROOT, "%,d due until %s, %,d lost", s.windowsChecked(),
        s.checkedUntil() == null ? "-" : s.checkedUntil(), s.windowsLost()));
    line(b, "I3 longest RUNNING past a lease", s.longestRunningPastLease()
        + (s.longestRunningPastLeaseOf() == null ? "" : " (" + s.longestRunningPastLeaseOf() + ")"));
    line(b, "attempts", String.format(Locale.ROOT, "%,d: %,d succeeded, %,d retries, %,d late results",
        s.attempts(), s.successes(), s.retries(), s.lateResults()));
    line(b, "open at the end", open.isEmpty() ? "none" : String.valueOf(open.size()));
    for (Open o : open) {
      b.append("  open ").append(o).append('\n');
    }
    for (String n : notes) {
      b.append("  note: ").append(n).append('\n');
    }
    if (ok()) {
      b.append("OK: I1-I4 hold\n");
    } else {
      b.append("FAILED: ").append(violations.size()).append(violations.size() == 1 ? " violation" : " violations").append('\n');
      for (Violation v : violations) {
        b.append("  ").append(v).append('\n');
      }
    }
    return b.toString();
  }

  private static void line(StringBuilder b, String label, String value) {
    b.append("  ").append(String.format(Locale.ROOT, "%-34s", label)).append(value).append('\n');
  }

  private static String byStatus(Map<String, Long> byStatus) {
    if (byStatus.isEmpty()) {
      return "";
    }
    return byStatus.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey() + " " + String.format(Locale.ROOT, "%,d", e.getValue()))
        .collect(Collectors.joining(", ", " (", ")"));
  }
}
