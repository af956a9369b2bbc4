package io.almanac.persistence.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What {@link Verifier} found: the violations of the invariants I1-I8 (none when {@link #ok()}),
 * what each invariant checked, the windows still open at the end of the journal, notes about what
 * could not be checked, and statistics. Its {@link #result()} is {@link Result#OK} only when there
 * is no violation <i>and</i> I2 judged at least one due window (due by the task's schedule, or
 * reached by an event): a verification that checked
 * nothing is {@link Result#NOTHING_CHECKED}, never OK. I5 (one writer at a time) can only be judged
 * on events that carry their writer; when none does (a journal written before writer stamps), the
 * report says so instead of claiming that I5 holds.
 *
 * @param from the start of the checked range (inclusive), or null for the beginning
 * @param to the end of the checked range (inclusive), or null for the end of the journal
 * @param grace how long before the end of the journal due windows and leases are not yet judged
 * @param violations every violation found, task by task in journal order
 * @param open windows PENDING, RUNNING, RETRY_WAIT or WAITING at the end of the journal: not
 *     violations (a RUNNING one whose lease ended more than the grace before the journal's end is an
 *     I3 violation instead, a PENDING or WAITING one past its bound by more than the grace an I6
 *     violation)
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

  /** The outcome of a verification. */
  public enum Result {
    /** No violation, and I2 judged at least one due window (by the schedule, or reached by an event). */
    OK,
    /** At least one violation. */
    FAILED,
    /**
     * No violation, but I2 judged no due window (none was due in the range before the journal's
     * end minus the grace, no event reached a window in the range, or the schedule could not be
     * computed): nothing was shown to hold.
     */
    NOTHING_CHECKED
  }

  /**
   * The outcome: {@link Result#FAILED} with a violation, else {@link Result#NOTHING_CHECKED} when
   * I2 judged no due window, else {@link Result#OK}.
   *
   * @return the result
   */
  public Result result() {
    if (!violations.isEmpty()) {
      return Result.FAILED;
    }
    return stats.checked(Invariant.I2).windows() == 0 ? Result.NOTHING_CHECKED : Result.OK;
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
    I4("no overlapping attempts unless allowed"),
    /**
     * One writer per task (and for the trigger) at a time: once a writer (the cluster the writing
     * node was in, or the node incarnation outside a cluster; see {@link Verifier}) has been
     * succeeded by another in a journal, it never writes to that journal again.
     */
    I5("one writer per task at a time"),
    /**
     * No window stays PENDING past its lease ceiling, or WAITING past its wait deadline, without a
     * recorded reason, as of the journal's end less the grace (see {@link Verifier}).
     */
    I6("no window stays PENDING or WAITING past its bound"),
    /**
     * No interrupted window is left without a resume or a recorded decision: an {@code
     * AttemptInterrupted} (its node stopped past its grace, died or was fenced out) is followed in the
     * same write by a resume (PENDING, run kind RESUME), a retry, or a final failure with its reason.
     */
    I7("no interrupted window left without a resume or a decision"),
    /**
     * A resource pool's journal ({@code pool|<name>}, one writer across the cluster) never shows more
     * live holds than its max-concurrent at an admission, nor more starts than its rate's N in any
     * span of one period ({@link PoolAudit}). Judged over each pool's whole journal, when the audit
     * is not about one task or window.
     */
    I8("no pool over its max-concurrent or its rate");

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
   * @param taskId the task (for an I5 violation of the trigger's journal, its persistence id {@code
   *     almanac-trigger}; for I8, the pool's, {@code pool|<name>})
   * @param window the window's key (null for I5 and I8: they are about a whole journal)
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
      return invariant + (window == null && invariant == Invariant.I5 && taskId.equals(TRIGGER) ? " trigger journal '" + taskId + "'"
          : " task '" + taskId + "'" + (window == null ? "" : " window '" + window + "'")) + ": " + message
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
   * What one invariant checked.
   *
   * @param windows the windows it judged (I2: due windows looked for; I6: windows whose PENDING or
   *     WAITING spells were measured; 0 for I5)
   * @param attempts the attempts it judged (I3, I4; 0 for I1, I2 and I5)
   * @param events the events of those windows (I1, I2) or attempts (I3, I4: starts, lease
   *     extensions, outcomes) it looked at; I6: the events that began and ended the spells it
   *     measured; for I5 the events whose writer is known
   * @param journals the journals it judged (I5: the tasks' and the trigger's with at least one event
   *     whose writer is known; 0 for I1-I4 and I6)
   */
  public record Checked(long windows, long attempts, long events, long journals) {
    /** Nothing checked. */
    public static final Checked NONE = new Checked(0, 0, 0, 0);

    /**
     * What a window or attempt invariant (I1-I4, I6) checked.
     *
     * @param windows the windows it judged
     * @param attempts the attempts it judged
     * @param events the events it looked at
     */
    public Checked(long windows, long attempts, long events) {
      this(windows, attempts, events, 0);
    }

    Checked plus(Checked o) {
      return new Checked(windows + o.windows, attempts + o.attempts, events + o.events, journals + o.journals);
    }
  }

  /** The trigger's persistence id, the name of its journal in I5 violations. */
  static final String TRIGGER = io.almanac.journal.TriggerJournal.PERSISTENCE_ID;

  /**
   * The counts of a verification.
   *
   * @param tasks tasks checked
   * @param eventsRead events read
   * @param windowsSeen windows with events, in the range
   * @param windowsByStatus those windows by their status at the end of the journal
   * @param windowsChecked windows due in the range that I2 looked for (by the schedule, or reached by an event)
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
   *     {@code to}; for windows reached by events, which need no grace, the end of the journal), over
   *     all tasks; null when nothing was due
   * @param checked what each invariant checked; an invariant missing from the map checked nothing
   * @param journalEnd the latest end of a task's journal (see {@link TaskHistory#observedUntil()});
   *     null when no task had events
   * @param longestPastBound the longest time a window stayed PENDING or WAITING past its bound (I6),
   *     until it moved on, or until the journal's end for one still so; zero when none did
   * @param longestPastBoundOf which window that was ({@code task/window}), or null
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
      Instant checkedUntil,
      Map<Invariant, Checked> checked,
      Instant journalEnd,
      Duration longestPastBound,
      String longestPastBoundOf) {

    /** Copies the maps. */
    public Stats {
      windowsByStatus = Map.copyOf(windowsByStatus);
      checked = Map.copyOf(checked);
      Objects.requireNonNull(longestRunningPastLease, "longestRunningPastLease");
      Objects.requireNonNull(longestPastBound, "longestPastBound");
    }

    /**
     * @param invariant an invariant
     * @return what it checked ({@link Checked#NONE} if nothing)
     */
    public Checked checked(Invariant invariant) {
      return checked.getOrDefault(invariant, Checked.NONE);
    }
  }

  /**
   * The report as text: statistics, open windows, notes, what each invariant checked, then the
   * result ({@code OK: ...}, {@code FAILED: ...} with every violation, one a line, or
   * {@code NOTHING CHECKED: ...} with why and what to do).
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
    line(b, "attempts", String.format(Locale.ROOT, "%,d: %,d succeeded, %,d retries, %,d late results",
        s.attempts(), s.successes(), s.retries(), s.lateResults()));
    line(b, "open at the end", open.isEmpty() ? "none" : String.valueOf(open.size()));
    for (Open o : open) {
      b.append("  open ").append(o).append('\n');
    }
    for (String n : notes) {
      b.append("  note: ").append(n).append('\n');
    }
    Checked c1 = s.checked(Invariant.I1);
    Checked c2 = s.checked(Invariant.I2);
    Checked c3 = s.checked(Invariant.I3);
    Checked c4 = s.checked(Invariant.I4);
    Checked c5 = s.checked(Invariant.I5);
    Checked c6 = s.checked(Invariant.I6);
    Checked c7 = s.checked(Invariant.I7);
    line(b, "I1 no window succeeds twice", "checked " + n(c1.windows(), "window") + " (" + n(c1.events(), "event") + "): "
        + n(s.doubleSuccesses(), "double success"));
    line(b, "I2 every due window accounted for", "checked " + n(c2.windows(), "due window") + " until "
        + (s.checkedUntil() == null ? "-" : s.checkedUntil()) + " (" + n(c2.events(), "event") + "): "
        + String.format(Locale.ROOT, "%,d lost", s.windowsLost()));
    line(b, "I3 no attempt RUNNING past lease", "checked " + n(c3.attempts(), "attempt") + " of " + n(c3.windows(), "window")
        + " (" + n(c3.events(), "event") + "): longest RUNNING past a lease " + s.longestRunningPastLease()
        + (s.longestRunningPastLeaseOf() == null ? "" : " (" + s.longestRunningPastLeaseOf() + ")"));
    line(b, "I4 no overlap unless allowed", "checked " + n(c4.attempts(), "attempt") + " of " + n(c4.windows(), "window")
        + " (" + n(c4.events(), "event") + "): " + n(count(Invariant.I4), "overlap"));
    line(b, "I5 one writer at a time", "checked " + n(c5.journals(), "journal") + " (" + n(c5.events(), "event")
        + " with a known writer): " + n(count(Invariant.I5), "interleaving"));
    line(b, "I6 none stuck PENDING or WAITING", "checked " + n(c6.windows(), "window") + " (" + n(c6.events(), "event")
        + "): longest past its bound " + s.longestPastBound()
        + (s.longestPastBoundOf() == null ? "" : " (" + s.longestPastBoundOf() + ")"));
    line(b, "I7 interruptions decided", "checked " + n(c7.attempts(), "interruption") + " of "
        + n(c7.windows(), "window") + ": " + String.format(Locale.ROOT, "%,d", count(Invariant.I7)) + " left undecided");
    Checked c8 = s.checked(Invariant.I8);
    boolean pools = c8.journals() > 0;
    if (pools) {
      line(b, "I8 pools within their limits", "checked " + n(c8.journals(), "pool journal") + " (" + n(c8.attempts(),
          "admission") + ", " + n(c8.events(), "event") + "): " + String.format(Locale.ROOT, "%,d", count(Invariant.I8))
          + " over a limit");
    }
    switch (result()) {
      case OK -> b.append(c5.events() > 0 ? (pools ? "OK: I1-I8 hold (checked " : "OK: I1-I7 hold (checked ")
              : pools ? "OK: I1-I4 and I6-I8 hold (checked " : "OK: I1-I4, I6 and I7 hold (checked ")
          .append(n(c2.windows(), "due window")).append(", ")
          .append(n(c1.windows(), "window")).append(" with events, ").append(n(Math.max(c3.attempts(), c4.attempts()), "attempt"))
          .append(c5.events() > 0 ? ", " + n(c5.events(), "event") + " of " + n(c5.journals(), "journal") + " with a known writer)"
              : "); I5 not judged: no event names its writer (see the notes)")
          .append("\n");
      case NOTHING_CHECKED -> b.append("NOTHING CHECKED: ").append(nothingChecked()).append('\n');
      default -> {
        b.append("FAILED: ").append(violations.size()).append(violations.size() == 1 ? " violation" : " violations").append('\n');
        for (Violation v : violations) {
          b.append("  ").append(v).append('\n');
        }
      }
    }
    return b.toString();
  }

  /**
   * Why the verification checked nothing, and what to do; empty unless {@link #result()} is
   * {@link Result#NOTHING_CHECKED}.
   *
   * @return e.g. {@code I2 checked 0 due windows: none was due before ... (the journal's end ...
   *     minus the grace of PT2M); ...}
   */
  public String nothingChecked() {
    if (result() != Result.NOTHING_CHECKED) {
      return "";
    }
    Stats s = stats;
    if (s.journalEnd() == null) {
      return "no events in the journal" + (s.tasks() == 0 ? " (no task)" : "") + ", so no invariant was checked";
    }
    Instant bound = s.journalEnd().minus(grace);
    StringBuilder b = new StringBuilder("I2 checked 0 due windows: none was due");
    if (to != null && to.isBefore(bound)) {
      b.append(" in the range up to ").append(to);
    } else {
      b.append(" before ").append(bound).append(" (the journal's end ").append(s.journalEnd()).append(" minus the grace of ")
          .append(grace).append(')');
    }
    if (from != null) {
      b.append(", in the range from ").append(from);
    }
    b.append(", and no event reached a window");
    if (notes.stream().anyMatch(n -> n.contains("I2 not checked"))) {
      b.append(", or the schedule could not be computed (see the notes)");
    }
    b.append("; I1, I3 and I4 found no violation in ").append(n(s.checked(Invariant.I1).windows(), "window")).append(" and ")
        .append(n(Math.max(s.checked(Invariant.I3).attempts(), s.checked(Invariant.I4).attempts()), "attempt"))
        .append(", I5 none in ").append(n(s.checked(Invariant.I5).events(), "event")).append(" with a known writer")
        .append(", I6 none in ").append(n(s.checked(Invariant.I6).windows(), "window"))
        .append(". Use --grace with a shorter duration (e.g. --grace PT0S: windows due up to the journal's end) to judge"
            + " recent windows, widen the range, or audit again once the journal is longer than the grace");
    return b.toString();
  }

  /** E.g. {@code 1 window}, {@code 2 windows}, {@code 1,000 due windows}, {@code 2 double successes}. */
  private static String n(long count, String noun) {
    String plural = noun.endsWith("s") ? noun + "es" : noun + "s";
    return String.format(Locale.ROOT, "%,d ", count) + (count == 1 ? noun : plural);
  }

  private long count(Invariant invariant) {
    return violations.stream().filter(v -> v.invariant() == invariant).count();
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
