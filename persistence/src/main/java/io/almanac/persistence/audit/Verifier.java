package io.almanac.persistence.audit;

import io.almanac.journal.TaskJournal;
import io.almanac.journal.TriggerJournal;
import io.almanac.journal.WriterStamp;

import io.almanac.InstanceStatus;
import io.almanac.journal.Evolve;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.Transition;
import io.almanac.OverlapPolicy;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import io.almanac.persistence.audit.VerificationReport.EventRef;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Open;
import io.almanac.persistence.audit.VerificationReport.Violation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks Almanac's invariants over task journals (R28), one {@link TaskHistory} at a time, and
 * accumulates a {@link VerificationReport}:
 *
 * <ul>
 *   <li><b>I1</b> no window succeeds twice, and no status change is one the runtime's transition
 *       table refuses (statuses are folded by the runtime's own {@code Evolve} mapping; a success
 *       turned into a failure is reported here): at most one {@code AttemptSucceeded} per window (a
 *       {@code LateResultRecorded} is not a success).
 *   <li><b>I2</b> every window due in the range is accounted for by an {@code InstanceScheduled},
 *       a {@code WindowWaiting} (a window waiting for its dependency or condition; it is then
 *       released, or skipped by a {@code WaitEnded} with its reason, and one still WAITING at the
 *       end of the journal is <i>open</i>), a {@code FireSkipped} or a {@code WindowMissed} (the last two carry their reason; a paused
 *       task's windows are {@code FireSkipped PAUSED}). Due windows are computed from the task's
 *       spec (cron, zone, DST policy, window spec) as of each {@code SpecDefined}: spec i covers the
 *       due times strictly after its event and before the next spec's; windows due before the first
 *       {@code SpecDefined} are not expected. A removed task ({@code TaskRemoved}) is expected to
 *       have fired only the windows due before its removal, less the grace (a fire on its way when
 *       the task was removed is refused, not recorded), and again those after a later {@code
 *       SpecDefined} (registered anew). A due window without any of the three is <i>lost</i>.
 *       A window that ran must reach an outcome; one still PENDING, RUNNING or RETRY_WAIT at the end
 *       of the journal is reported as <i>open</i>, not as a violation; one left FAILED or TIMED_OUT
 *       (no retry and no final failure recorded) is a violation.
 *   <li><b>I3</b> every {@code AttemptStarted} (its lease extended by {@code LeaseExtended}) has a
 *       later {@code AttemptSucceeded}, {@code AttemptFailed}, {@code AttemptTimedOut} or
 *       {@code InstanceCancelled}, unless the journal ends before the lease (plus the grace) does.
 *       The longest time an attempt stayed RUNNING past its lease is a statistic. A window whose
 *       attempt is such a violation is not listed as open.
 *   <li><b>I4</b> no two attempts of a task overlap unless the overlap policy in effect when the
 *       later one started is ALLOW. An attempt runs from its {@code AttemptStarted} to its outcome
 *       event; the order is the journal's (sequence numbers: the order the entity decided in), so
 *       an attempt started after its predecessor was cancelled at the same instant
 *       (CANCEL_PREVIOUS) does not overlap it, and equal timestamps never fake an overlap.
 *   <li><b>I5</b> one writer per task at a time, and one trigger: in each task's journal, and in
 *       the trigger's ({@link #checkTrigger(List)}), the writers of the events ({@link WriterStamp},
 *       from each event's metadata) form a sequence that never interleaves: once a writer has been
 *       succeeded by another, it never writes again. {@code A A B B} is a restart or a move;
 *       {@code A B A} is two writers at the same time, e.g. two clusters formed on one journal (a
 *       restarted sole seed node). A writer is the <i>cluster</i> the node was in, named by its
 *       oldest member ({@link WriterStamp#cluster()}), and the node incarnation when the stamp names
 *       no cluster (no cluster provider, or not joined yet); the report names the nodes either way.
 *       Why not the node: within one cluster a shard may move from node A to B and back to A (shard
 *       rebalancing) while A runs on, a legitimate {@code A B A}; a cluster names a new oldest only
 *       when its oldest leaves, and never an earlier one again. Why not one incarnation of the
 *       entity (the journal's writer UUID): the journal's unique (persistence id, sequence number)
 *       refuses the second of two writes at one sequence number, the loser is restarted with a new
 *       UUID, so entity incarnations never interleave even with two clusters; what remains is this
 *       interleaving of clusters (and decisions taken on stale state, which I1-I4 may or may not
 *       show). Not seen by I5: two nodes of one cluster writing one task at once (Cluster Sharding
 *       runs one entity per cluster). Events without a writer (written before writer stamps, or
 *       through a journal plugin without them) are not judged; the notes say how many there were.
 * </ul>
 *
 * <p><b>The grace.</b> The journal's end for a task is the later of its last event and the
 * trigger's last event ({@link TaskHistory#observedUntil()}). Windows due in the last
 * {@link #grace(Duration) grace} (default {@value #DEFAULT_GRACE_MINUTES} minutes) before that end
 * are not checked, and leases that ended in it are not judged, because the trigger may not have
 * fired them (nor the entity timed them out) yet when the journal was read. So I2 checks due times
 * up to {@code min(to, end - grace)}. Why 2 minutes: the trigger fires a due window within its
 * {@code max-tick-interval} (1 s) plus one journal write, and the executor has an expired lease
 * timed out within its {@code check-interval} (1 s); seconds even under a burst of thousands of
 * windows. Two minutes covers that lag many times over while leaving all but the
 * last two minutes of a journal judged. A longer grace hides more; a shorter one (down to
 * {@code PT0S}) is right for a journal read after its node stopped cleanly.
 *
 * <p><b>What was checked.</b> The report counts, for each invariant, the windows (and attempts)
 * it judged and their events ({@link VerificationReport.Checked}): I1 every window with events in
 * the range; I2 every due window up to the bound above; I3 every attempt that ended or whose lease
 * (plus the grace) ended; I4 every attempt under an overlap policy other than ALLOW. A
 * verification whose I2 judged no due window is {@link VerificationReport.Result#NOTHING_CHECKED},
 * not OK: e.g. a journal younger than the grace. I5 counts the journals it judged and their events
 * with a known writer; when there were none, the report says I5 was not judged.
 *
 * <p><b>The range.</b> {@code [from, to]} (both inclusive, either open) selects windows by their
 * due time (a window's first event when the journal has no due time for it) and attempts by their
 * start. Not thread-safe.
 */
public final class Verifier {

  /** The default grace, in minutes. */
  public static final int DEFAULT_GRACE_MINUTES = 2;

  /** Default: windows due, and leases ending, in the last 2 minutes of the journal are not judged. */
  public static final Duration DEFAULT_GRACE = Duration.ofMinutes(DEFAULT_GRACE_MINUTES);

  private static final int CHUNK = 10_000;

  private Instant from;
  private Instant to;
  private String window;
  private Duration grace = DEFAULT_GRACE;

  private final List<Violation> violations = new ArrayList<>();
  private final List<Open> open = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final Map<String, Long> byStatus = new TreeMap<>();
  private int tasks;
  private long eventsRead;
  private long windowsSeen;
  private long windowsChecked;
  private long windowsLost;
  private long doubleSuccesses;
  private long attempts;
  private long successes;
  private long retries;
  private long lateResults;
  private Duration longestPastLease = Duration.ZERO;
  private String longestPastLeaseOf;
  private Instant checkedUntil;
  private Instant journalEnd;
  private final Map<Invariant, VerificationReport.Checked> checked = new EnumMap<>(Invariant.class);
  private long unknownWriters;
  private long unknownWriterJournals;

  private Verifier() {}

  /**
   * A verifier over the whole journal with the default grace.
   *
   * @return a new verifier
   */
  public static Verifier create() {
    return new Verifier();
  }

  /**
   * Checks one task's history with the default settings.
   *
   * @param history the task's history
   * @return the report
   */
  public static VerificationReport verify(TaskHistory history) {
    return create().check(history).report();
  }

  /**
   * @param from the start of the range, inclusive, or null for the beginning
   * @param to the end of the range, inclusive, or null for the end of the journal
   * @return this verifier
   * @throws IllegalArgumentException if {@code from} is after {@code to}
   */
  public Verifier range(Instant from, Instant to) {
    if (from != null && to != null && from.isAfter(to)) {
      throw new IllegalArgumentException("from '" + from + "' is invalid: it is after to '" + to + "'");
    }
    this.from = from;
    this.to = to;
    return this;
  }

  /**
   * @param key check only this window (null: every window)
   * @return this verifier
   */
  public Verifier window(String key) {
    this.window = key;
    return this;
  }

  /**
   * @param grace how long before the journal's end due windows and leases are not judged; >= 0
   * @return this verifier
   * @throws IllegalArgumentException if negative
   */
  public Verifier grace(Duration grace) {
    if (grace == null || grace.isNegative()) {
      throw new IllegalArgumentException("grace '" + grace + "' is invalid: must be zero or positive");
    }
    this.grace = grace;
    return this;
  }

  /**
   * Checks one task and adds what it found to the report.
   *
   * @param history the task's events and the journal's end
   * @return this verifier
   */
  public Verifier check(TaskHistory history) {
    new TaskCheck(history).run();
    return this;
  }

  /**
   * Checks the trigger's journal for I5 (one writer at a time) and adds what it found to the
   * report. Its events in the range count; with a window set ({@link #window(String)}) it is not
   * checked (it is not about windows).
   *
   * @param events the trigger's events in journal order, with their writers
   * @return this verifier
   */
  public Verifier checkTrigger(List<Written> events) {
    if (window != null) {
      return this;
    }
    List<Written> selected = new ArrayList<>();
    for (Written w : events) {
      if (from == null && to == null || inRange(w.at())) {
        selected.add(w);
      }
    }
    checkWriters(TriggerJournal.PERSISTENCE_ID, selected);
    return this;
  }

  /**
   * The report of everything checked so far.
   *
   * @return the report
   */
  public VerificationReport report() {
    List<String> notes = new ArrayList<>(this.notes);
    if (unknownWriters > 0) {
      notes.add(String.format(java.util.Locale.ROOT, "I5: %,d %s of %,d %s had no writer (written before writer stamps,"
          + " or through a journal plugin without them): not judged", unknownWriters, unknownWriters == 1 ? "event" : "events",
          unknownWriterJournals, unknownWriterJournals == 1 ? "journal" : "journals"));
    }
    return new VerificationReport(from, to, grace, violations, open, notes,
        new VerificationReport.Stats(tasks, eventsRead, windowsSeen, byStatus, windowsChecked, windowsLost,
            doubleSuccesses, attempts, successes, retries, lateResults, longestPastLease, longestPastLeaseOf,
            checkedUntil, checked, journalEnd));
  }

  private void count(Invariant invariant, long windows, long attempts, long events) {
    checked.merge(invariant, new VerificationReport.Checked(windows, attempts, events), VerificationReport.Checked::plus);
  }

  private boolean inRange(Instant t) {
    return t != null && (from == null || !t.isBefore(from)) && (to == null || !t.isAfter(to));
  }

  // ---------------------------------------------------------------------------------------------
  // I5

  /**
   * One event as I5 sees it.
   *
   * @param sequenceNr its sequence number in its journal
   * @param type its type, e.g. {@code AttemptSucceeded}
   * @param at when it happened
   * @param writer who wrote it, or null when unknown
   */
  public record Written(long sequenceNr, String type, Instant at, WriterStamp writer) {
    EventRef ref() {
      return new EventRef(sequenceNr, type, at);
    }
  }

  /**
   * A writer that wrote again after another had succeeded it: two writers at the same time.
   *
   * @param writer the writer that came back (the stamp of its event {@code again})
   * @param successor the writer that had succeeded it (the stamp of its event {@code succeeded})
   * @param before the writer's last event before the successor's first
   * @param succeeded the successor's first event after it
   * @param again the writer's first event after that
   * @param times how often, in all, this writer wrote again after this successor had succeeded it
   *     (each switch back to it counts once)
   */
  public record Interleaving(WriterStamp writer, WriterStamp successor, Written before, Written succeeded, Written again,
      long times) {}

  /**
   * Who a stamp's writer is for I5: its cluster when it names one, else its node incarnation.
   *
   * @param w a stamp
   * @return e.g. {@code cluster pekko://almanac@10.0.0.5:7355#88} or {@code node pekko://almanac@10.0.0.7:7355#42}
   */
  public static String writerOf(WriterStamp w) {
    return w.cluster() != null ? "cluster " + w.cluster() : "node " + w.nodeIncarnation();
  }

  /**
   * I5 on one journal, pure: every writer ({@link #writerOf(WriterStamp)}) that writes again after
   * it was succeeded by another, once per (writer, successor), first occurrence first. Events with
   * no writer are skipped (they neither end a writer's turn nor start one).
   *
   * @param events one journal's events in journal order
   * @return the interleavings; empty when the writers never interleave
   */
  public static List<Interleaving> interleavings(List<Written> events) {
    Map<String, Written[]> retired = new LinkedHashMap<>(); // writer -> {its last event, its successor's first}
    Map<List<String>, Interleaving> found = new LinkedHashMap<>();
    String current = null;
    Written last = null;
    for (Written e : events) {
      if (e.writer() == null) {
        continue;
      }
      String w = writerOf(e.writer());
      if (current != null && !w.equals(current)) {
        retired.putIfAbsent(current, new Written[] {last, e});
        Written[] end = retired.get(w);
        if (end != null) {
          found.merge(List.of(w, writerOf(end[1].writer())), new Interleaving(e.writer(), end[1].writer(), end[0], end[1], e, 1),
              (a, b) -> new Interleaving(a.writer(), a.successor(), a.before(), a.succeeded(), a.again(), a.times() + 1));
        }
      }
      current = w;
      last = e;
    }
    return List.copyOf(found.values());
  }

  /** I5 on one journal (a task's or the trigger's), adding its violations and counts. */
  private void checkWriters(String journal, List<Written> events) {
    long known = 0;
    long unknown = 0;
    for (Written w : events) {
      if (w.writer() == null) {
        unknown++;
      } else {
        known++;
      }
    }
    unknownWriters += unknown;
    if (unknown > 0) {
      unknownWriterJournals++;
    }
    if (known == 0) {
      return;
    }
    checked.merge(Invariant.I5, new VerificationReport.Checked(0, 0, known, 1), VerificationReport.Checked::plus);
    for (Interleaving i : interleavings(events)) {
      violations.add(new Violation(journal, null, Invariant.I5, "two writers at the same time: " + i.writer() + " wrote "
          + i.again().type() + " #" + i.again().sequenceNr() + " at " + i.again().at() + " after " + i.successor()
          + " had succeeded it (its last event " + i.before().type() + " #" + i.before().sequenceNr() + " at " + i.before().at()
          + ", the successor's first " + i.succeeded().type() + " #" + i.succeeded().sequenceNr() + " at " + i.succeeded().at()
          + ")" + (i.times() > 1 ? "; it wrote again after it " + i.times() + " times in all" : ""),
          List.of(i.before().ref(), i.succeeded().ref(), i.again().ref())));
    }
  }

  // ---------------------------------------------------------------------------------------------

  private record Segment(SpecRecord spec, Instant at) {}

  private static final class Win {
    final String key;
    final Instant firstAt;
    final List<EventRef> events = new ArrayList<>();
    final List<EventRef> successes = new ArrayList<>();
    final List<Attempt> attempts = new ArrayList<>();
    Instant dueAt;
    EventRef accountedBy;
    Instant waitUntil;
    InstanceStatus status;
    int retries;
    int late;
    Violation illegal;

    Win(String key, Instant firstAt) {
      this.key = key;
      this.firstAt = firstAt;
    }

    Attempt openAttempt() {
      for (int i = attempts.size() - 1; i >= 0; i--) {
        if (attempts.get(i).end == null) {
          return attempts.get(i);
        }
      }
      return null;
    }
  }

  private static final class Attempt {
    final String window;
    final int number;
    final EventRef started;
    final OverlapPolicy policy;
    final List<EventRef> extensions = new ArrayList<>();
    Instant leaseUntil;
    EventRef end;
    boolean overlapReported;

    Attempt(String window, int number, EventRef started, Instant leaseUntil, OverlapPolicy policy) {
      this.window = window;
      this.number = number;
      this.started = started;
      this.leaseUntil = leaseUntil;
      this.policy = policy;
    }

    String describe() {
      return "attempt " + number + " of window '" + window + "' (started " + started.at() + ")";
    }
  }

  private final class TaskCheck {
    private final TaskHistory history;
    private final String task;
    private final Instant end;
    private final Map<String, Win> windows = new LinkedHashMap<>();
    private final List<Segment> specs = new ArrayList<>();
    private final List<Instant> removals = new ArrayList<>();
    private final List<Attempt> all = new ArrayList<>();
    private boolean gaps;

    TaskCheck(TaskHistory history) {
      this.history = Objects.requireNonNull(history, "history");
      this.task = history.taskId();
      this.end = history.observedUntil();
    }

    void run() {
      tasks++;
      if (end != null && (journalEnd == null || end.isAfter(journalEnd))) {
        journalEnd = end;
      }
      replay();
      checkWindows();
      checkDue();
      checkLeases();
      checkOverlaps();
      checkWriters();
    }

    /** I5 over the task's events in the range (and of the window, when one is selected). */
    private void checkWriters() {
      List<Written> written = new ArrayList<>();
      for (AuditEvent e : history.events()) {
        if ((window == null || window.equals(e.window())) && (from == null && to == null || inRange(e.at()))) {
          written.add(new Written(e.sequenceNr(), e.type(), e.at(), e.writer()));
        }
      }
      Verifier.this.checkWriters(task, written);
    }

    private void replay() {
      SpecRecord current = null;
      long expected = 1;
      for (AuditEvent ae : history.events()) {
        eventsRead++;
        if (ae.sequenceNr() > expected) {
          gaps = true;
          notes.add("task '" + task + "': events #" + expected + (ae.sequenceNr() - 1 > expected ? "-#" + (ae.sequenceNr() - 1) : "")
              + " are not in the journal (deleted, e.g. by retention); what they recorded is not checked");
        }
        expected = ae.sequenceNr() + 1;
        Object ev = ae.event();
        if (ev instanceof TaskJournal.SpecDefined s) {
          specs.add(new Segment(s.spec(), ae.at()));
          current = s.spec();
          continue;
        }
        if (ev instanceof TaskJournal.TaskRemoved) {
          removals.add(ae.at());
          continue;
        }
        if (ae.window() == null) {
          continue;
        }
        Win w = windows.computeIfAbsent(ae.window(), k -> new Win(k, ae.at()));
        EventRef ref = new EventRef(ae.sequenceNr(), ae.type(), ae.at());
        w.events.add(ref);
        if (ev instanceof TaskJournal.InstanceScheduled e) {
          accounted(w, ref, e.dueAt());
        } else if (ev instanceof TaskJournal.FireSkipped e) {
          accounted(w, ref, e.dueAt());
        } else if (ev instanceof TaskJournal.WindowMissed e) {
          accounted(w, ref, e.dueAt());
        } else if (ev instanceof TaskJournal.WindowWaiting e) {
          accounted(w, ref, e.dueAt()); // due and waiting for its dependency or condition: accounted for
          w.waitUntil = e.waitUntil();
        } else if (ev instanceof TaskJournal.AttemptStarted e) {
          OverlapPolicy policy = current == null ? OverlapPolicy.DEFAULT : current.overlap();
          Attempt a = new Attempt(w.key, e.attempt(), ref, e.leaseUntil(), policy);
          w.attempts.add(a);
          all.add(a);
        } else if (ev instanceof TaskJournal.LeaseExtended e) {
          Attempt a = attempt(w, e.attempt());
          if (a != null) {
            a.extensions.add(ref);
            if (e.leaseUntil() != null && (a.leaseUntil == null || e.leaseUntil().isAfter(a.leaseUntil))) {
              a.leaseUntil = e.leaseUntil();
            }
          }
        } else if (ev instanceof TaskJournal.AttemptSucceeded e) {
          w.successes.add(ref);
          ended(w, attempt(w, e.attempt()), ref);
        } else if (ev instanceof TaskJournal.AttemptFailed e) {
          ended(w, attempt(w, e.attempt()), ref);
        } else if (ev instanceof TaskJournal.AttemptTimedOut e) {
          ended(w, attempt(w, e.attempt()), ref);
        } else if (ev instanceof TaskJournal.LateResultRecorded) {
          w.late++;
        } else if (ev instanceof TaskJournal.RetryScheduled) {
          w.retries++;
        } else if (ev instanceof TaskJournal.InstanceCancelled) {
          ended(w, w.openAttempt(), ref); // only one attempt of a window runs at a time
        }
        status(w, (TaskJournal.Event) ev, ref);
      }
    }

    /**
     * The window's status after the event, by the runtime's own evolve mapping (one event-to-status
     * mapping in the codebase). The first status change the transition table refuses is an I1
     * violation of its window (reported unless the window succeeded twice, which is reported as
     * such), except, after events deleted by retention, for a window whose first events are gone.
     */
    private void status(Win w, TaskJournal.Event ev, EventRef ref) {
      Optional<InstanceStatus> to = Evolve.targetStatus(w.status, ev);
      if (to.isEmpty()) {
        return;
      }
      if (Transition.isAllowed(w.status, to.get())) {
        w.status = to.get();
        return;
      }
      if (w.illegal == null && !(w.status == null && gaps)) {
        w.illegal = new Violation(task, w.key, Invariant.I1, "illegal transition " + (w.status == null ? "NEW" : w.status)
            + " -> " + to.get() + " by " + ref.type() + " #" + ref.sequenceNr() + " at " + ref.at()
            + " (the transition table refuses it: a second writer or a corrupted journal)", List.of(ref));
      }
      if (w.status == null) {
        w.status = to.get(); // its earlier events are gone: take the journal's word
      }
    }

    private void accounted(Win w, EventRef ref, Instant dueAt) {
      if (w.accountedBy == null) {
        w.accountedBy = ref;
      }
      if (w.dueAt == null) {
        w.dueAt = dueAt;
      }
    }

    private Attempt attempt(Win w, int number) {
      for (int i = w.attempts.size() - 1; i >= 0; i--) {
        Attempt a = w.attempts.get(i);
        if (a.number == number && a.end == null) {
          return a;
        }
      }
      return null;
    }

    private void ended(Win w, Attempt a, EventRef ref) {
      if (a != null && a.end == null) {
        a.end = ref;
      }
    }

    private boolean selected(String key) {
      return window == null || window.equals(key);
    }

    private boolean inRange(Instant t) {
      return Verifier.this.inRange(t);
    }

    private boolean inRange(Win w) {
      return selected(w.key) && inRange(w.dueAt != null ? w.dueAt : w.firstAt);
    }

    /** I1, the status of every window, open windows, and windows that ran without an outcome (I2). */
    private void checkWindows() {
      for (Win w : windows.values()) {
        if (!inRange(w)) {
          continue;
        }
        windowsSeen++;
        count(Invariant.I1, 1, 0, w.events.size());
        successes += w.successes.size();
        retries += w.retries;
        lateResults += w.late;
        String status = w.status == null ? "UNKNOWN" : w.status.name();
        byStatus.merge(status, 1L, Long::sum);
        if (w.successes.size() > 1) {
          doubleSuccesses++;
          violations.add(new Violation(task, w.key, Invariant.I1, "succeeded " + w.successes.size()
              + " times", w.successes));
        } else if (w.illegal != null) {
          violations.add(w.illegal);
        }
        Attempt a = w.openAttempt();
        if (w.status == InstanceStatus.RUNNING && a != null && expired(a)) {
          continue; // not open: an I3 violation (checkLeases)
        }
        if (w.status == InstanceStatus.WAITING) {
          open.add(new Open(task, w.key, status, "waiting since " + (w.accountedBy == null ? last(w).at() : w.accountedBy.at())
              + " until " + w.waitUntil));
        } else if (w.status == InstanceStatus.PENDING || w.status == InstanceStatus.RUNNING
            || w.status == InstanceStatus.RETRY_WAIT) {
          String detail = a == null || w.status != InstanceStatus.RUNNING ? "since " + last(w).at()
              : "attempt " + a.number + " started " + a.started.at() + ", lease until " + a.leaseUntil;
          open.add(new Open(task, w.key, status, detail));
        } else if (w.status == InstanceStatus.FAILED || w.status == InstanceStatus.TIMED_OUT) {
          violations.add(new Violation(task, w.key, Invariant.I2, "ran and has no outcome: it is " + status
              + " at the end of the journal, with no retry and no final failure recorded", List.of(last(w))));
        }
      }
    }

    private EventRef last(Win w) {
      return w.events.get(w.events.size() - 1);
    }

    /** I2: every window due in the range has a scheduling, skip or miss event. */
    private void checkDue() {
      if (end == null) {
        return;
      }
      if (specs.isEmpty()) {
        notes.add("task '" + task + "': I2 not checked: no SpecDefined in the journal, so its schedule is unknown");
        return;
      }
      Instant until = end.minus(grace);
      if (to != null && to.isBefore(until)) {
        until = to;
      }
      Set<String> found = new HashSet<>();
      Set<String> lost = new HashSet<>();
      Instant latestDue = null;
      for (int i = 0; i < specs.size(); i++) {
        Segment seg = specs.get(i);
        Instant lo = seg.at();
        if (from != null && from.minusNanos(1).isAfter(lo)) {
          lo = from.minusNanos(1);
        }
        Instant hi = until;
        if (i + 1 < specs.size() && specs.get(i + 1).at().minusNanos(1).isBefore(hi)) {
          hi = specs.get(i + 1).at().minusNanos(1);
        }
        Instant removed = removedAfter(seg.at(), i + 1 < specs.size() ? specs.get(i + 1).at() : null);
        if (removed != null && removed.minus(grace).minusNanos(1).isBefore(hi)) {
          hi = removed.minus(grace).minusNanos(1); // nothing is fired after a removal, nor judged in the grace before it
        }
        if (!lo.isBefore(hi)) {
          continue;
        }
        TaskSchedule schedule;
        try {
          schedule = Schedules.of(seg.spec().toSpec());
        } catch (RuntimeException e) {
          notes.add("task '" + task + "': I2 not checked for due times in (" + lo + ", " + hi + "]: " + e.getMessage());
          continue;
        }
        Instant cursor = lo;
        while (true) {
          List<DueWindow> due = schedule.dueBetween(cursor, hi, CHUNK);
          for (DueWindow d : due) {
            String key = d.key().value();
            latestDue = d.dueAt();
            if (!selected(key) || found.contains(key) || lost.contains(key)) {
              continue;
            }
            Win w = windows.get(key);
            if (w != null && w.accountedBy != null) {
              found.add(key);
              continue;
            }
            lost.add(key);
            String local = Timeline.local(d.dueAt(), schedule.zone());
            violations.add(new Violation(task, key, Invariant.I2, "lost window: due " + d.dueAt() + " (" + local + " "
                + schedule.zone() + "), no InstanceScheduled, WindowWaiting, FireSkipped or WindowMissed"
                + (w == null ? " and no event at all" : ", only other events"), w == null ? List.of() : w.events));
          }
          if (due.size() < CHUNK) {
            break;
          }
          cursor = due.get(due.size() - 1).dueAt();
        }
      }
      windowsChecked += found.size() + lost.size();
      long events = 0;
      for (String key : found) {
        events += windows.get(key).events.size();
      }
      for (String key : lost) {
        Win w = windows.get(key);
        events += w == null ? 0 : w.events.size();
      }
      count(Invariant.I2, found.size() + lost.size(), 0, events);
      windowsLost += lost.size();
      Instant lastRemoval = removedAfter(specs.get(specs.size() - 1).at(), null);
      if (lastRemoval != null && lastRemoval.minus(grace).minusNanos(1).isBefore(until)) {
        until = lastRemoval.minus(grace).minusNanos(1); // a task that stays removed was checked until its removal
      }
      if (latestDue != null && (checkedUntil == null || until.isAfter(checkedUntil))) {
        checkedUntil = until;
      }
    }

    /** The first removal at or after a spec's event and before the next spec's (null: none). */
    private Instant removedAfter(Instant specAt, Instant nextSpecAt) {
      for (Instant r : removals) {
        if (!r.isBefore(specAt) && (nextSpecAt == null || r.isBefore(nextSpecAt))) {
          return r;
        }
      }
      return null;
    }

    /** I3: every attempt ends, or the journal ends before its lease (plus the grace) does. */
    private void checkLeases() {
      Set<String> judged = new HashSet<>();
      long judgedAttempts = 0;
      long events = 0;
      for (Attempt a : all) {
        if (!selected(a.window) || !inRange(a.started.at())) {
          continue;
        }
        attempts++;
        if (a.leaseUntil == null) {
          continue;
        }
        if (a.end != null || expired(a)) { // an attempt whose lease has not ended (plus the grace) is not judged yet
          judged.add(a.window);
          judgedAttempts++;
          events += 1 + a.extensions.size() + (a.end == null ? 0 : 1);
        }
        if (a.end != null) {
          pastLease(a, Duration.between(a.leaseUntil, a.end.at()));
        } else if (expired(a)) {
          pastLease(a, Duration.between(a.leaseUntil, end));
          List<EventRef> refs = new ArrayList<>();
          refs.add(a.started);
          refs.addAll(a.extensions);
          violations.add(new Violation(task, a.window, Invariant.I3, "attempt " + a.number + " started "
              + a.started.at() + " is still RUNNING: its lease ended " + a.leaseUntil
              + ", no AttemptSucceeded, AttemptFailed, AttemptTimedOut or InstanceCancelled follows, and the journal goes on"
              + " until " + end, refs));
        }
      }
      count(Invariant.I3, judged.size(), judgedAttempts, events);
    }

    /** Whether an attempt without an outcome is past its lease while the journal goes on beyond the grace. */
    private boolean expired(Attempt a) {
      return a.end == null && a.leaseUntil != null && end != null && a.leaseUntil.isBefore(end.minus(grace));
    }

    private void pastLease(Attempt a, Duration past) {
      if (past.compareTo(longestPastLease) > 0) {
        longestPastLease = past;
        longestPastLeaseOf = task + "/" + a.window + "#" + a.number;
      }
    }

    /** I4: attempts overlap when one starts before the other's outcome is recorded. */
    private void checkOverlaps() {
      Set<String> compared = new HashSet<>();
      long comparedAttempts = 0;
      long events = 0;
      List<Attempt> active = new ArrayList<>();
      for (Attempt b : all) {
        long startSeq = b.started.sequenceNr();
        active.removeIf(a -> a.end != null && a.end.sequenceNr() < startSeq);
        boolean report = b.policy != OverlapPolicy.ALLOW && selected(b.window) && inRange(b.started.at());
        if (report) {
          compared.add(b.window);
          comparedAttempts++;
          events += 1 + (b.end == null ? 0 : 1);
        }
        for (Attempt a : active) {
          if (!report) {
            continue;
          }
          List<EventRef> refs = new ArrayList<>();
          refs.add(a.started);
          refs.add(b.started);
          if (a.end != null) {
            refs.add(a.end);
          }
          violations.add(new Violation(task, b.window, Invariant.I4, b.describe() + " overlaps " + a.describe()
              + ", which " + (a.end == null ? "has no outcome" : "ended " + a.end.at() + " (" + a.end.type() + ")")
              + "; the overlap policy is " + b.policy, refs));
          a.overlapReported = true;
        }
        // An attempt without an outcome is an I3 violation already: report its overlap once, not with every later attempt.
        active.removeIf(a -> a.end == null && a.overlapReported);
        active.add(b);
      }
      count(Invariant.I4, compared.size(), comparedAttempts, events);
    }
  }
}
