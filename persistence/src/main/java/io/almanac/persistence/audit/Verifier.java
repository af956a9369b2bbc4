package io.almanac.persistence.audit;

import io.almanac.journal.TaskJournal;
import io.almanac.journal.TriggerJournal;
import io.almanac.journal.WriterStamp;

import io.almanac.InstanceStatus;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.WindowState;
import io.almanac.journal.SpecRecord;
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
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 *       {@code SpecDefined} are not expected. A window is expected once it has fired, i.e. its fire
 *       time (its due time plus its jitter offset, {@code io.almanac.schedule.Jitter}) is before
 *       the journal's end less the grace. A removed task ({@code TaskRemoved}) is expected to
 *       have fired only the windows due before its removal, less the grace (a fire on its way when
 *       the task was removed is refused, not recorded), and again those after a later {@code
 *       SpecDefined} (registered anew). A window an event reached ({@code EventReceived}) is due
 *       too, whatever the schedule (an event-only task has none; its decision is written with the
 *       event, so no grace applies); one with no decision is lost, unless a window of the task had
 *       ended before it (it may be an event for a window before the task's archived ones, which the
 *       runtime records and does not run: counted as accounted for, with a note). A due window
 *       without any of the three is <i>lost</i>.
 *       A window that ran must reach an outcome; one still PENDING, RUNNING or RETRY_WAIT at the end
 *       of the journal is reported as <i>open</i>, not as a violation; one left FAILED or TIMED_OUT
 *       (no retry and no final failure recorded) is a violation.
 *   <li><b>I3</b> every {@code AttemptStarted} (its lease extended by {@code LeaseExtended}) has a
 *       later {@code AttemptSucceeded}, {@code AttemptFailed}, {@code AttemptTimedOut}, {@code AttemptInterrupted} or
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
 *   <li><b>I6</b> no window stays PENDING or WAITING past its bound without a recorded reason: a
 *       window still PENDING or WAITING at the as-of time (below) whose bound ended before it is
 *       <i>stuck</i>, a violation (not open). The bound of a PENDING window is the lease ceiling
 *       ({@code LeasePolicy.ceiling} of the spec in effect; the longest if the spec changed
 *       meanwhile) after the latest of:
 *       <ul>
 *         <li>when it became PENDING ({@code InstanceScheduled}: for a fresh window its due time, for
 *             a retry, catch-up or backfill when that was decided), or its due time if that was
 *             later (a fire up to the clock skew early);
 *         <li>the end of the task's latest attempt; while an attempt of the task is RUNNING the
 *             window is not stuck at all (the overlap policy holds it back, or the executor's
 *             per-task limit: both are recorded, as the running attempt). An attempt that never
 *             ends is I3's to report;
 *         <li>the task's pause: while it is paused the window is not stuck at all (a paused task
 *             starts none of its windows; they start after the resume), and after a resume
 *             ({@code TaskResumed}) the bound runs from it;
 *         <li>when the journal resumed: the first event of a new writer of the task's journal (a
 *             restart, a failover, a shard moving: the entity recovers and offers its PENDING
 *             windows again), or the first trigger event after a pause in the trigger's heartbeat
 *             ({@link #heartbeat(List)}: no node was writing, or its database was down).
 *       </ul>
 *       The bound of a WAITING window is its wait deadline ({@code WindowWaiting.waitUntil}) plus,
 *       for a condition, its poll timeout (the check that ends the wait may be a poll in flight),
 *       or, when the journal resumed after the deadline, that moment (a paused task's wait still
 *       ends at its deadline, as {@code WaitEnded PAUSED}). Not reasons: the executor's
 *       global limit and backlog rate (R17), which no task's journal records: a window that waits
 *       for a slot held by other tasks longer than its own lease ceiling plus the grace is
 *       reported (raise {@code almanac.executor.max-concurrent} or the lease ceiling). A spell that
 *       ended (the window started, its wait ended, it was cancelled) is not a violation, however
 *       late: the longest time past its bound is a statistic, as for I3. Not judged (a note says
 *       how many): windows with no spec in effect during their spell (the ceiling is unknown) and
 *       waits without a deadline. A recorded reason: a resource pool without room ({@code PoolWaited}
 *       in the PENDING spell, no start since): the window is waiting, not stuck, however long; it is
 *       open (its detail names the pool) and a note counts such windows. RETRY_WAIT is not I6's: a
 *       retry has its own due time.
 *   <li><b>I7</b> no interrupted window is left without a resume or a recorded decision: an {@code
 *       AttemptInterrupted} (the attempt's node stopped past its grace, died, or was fenced out; not
 *       a failure, no retry spent) is followed in the same write by an {@code InstanceScheduled} of
 *       run kind RESUME, a {@code RetryScheduled} (interrupted more than {@code max-resumes} times in
 *       a row) or an {@code InstanceFinalFailed} (the task's {@code on-interruption} is FAIL). A
 *       window still INTERRUPTED at the end of the journal is a violation.
 * </ul>
 *
 * <p><b>The as-of time.</b> The audit's "now" is the journal's end for each task ({@link
 * TaskHistory#observedUntil()}: the later of its last event and the trigger's last event, which the
 * trigger writes about every second while a node runs), never the wall clock: the journal cannot
 * tell what happened after it ends, so a node stopped a week ago is judged as of its stop, and an
 * audit of an unchanged journal gives the same answer whenever it runs. I3 and I6 judge as of that
 * end less the grace: a lease or a bound that ends within the grace before it is not judged yet.
 *
 * <p><b>The grace.</b> The journal's end for a task is the later of its last event and the
 * trigger's last event ({@link TaskHistory#observedUntil()}). Windows due in the last
 * {@link #grace(Duration) grace} (default {@value #DEFAULT_GRACE_MINUTES} minutes) before that end
 * are not checked, and leases and bounds (I6) that ended in it are not judged, because the trigger
 * may not have fired them (nor the entity timed them out, the executor admitted the window or the
 * gate check ended its wait) yet when the journal was read. So I2 checks due times up to {@code
 * min(to, end - grace)}. Why 2 minutes: the trigger fires a due window within its
 * {@code max-tick-interval} (1 s) plus one journal write, and the executor has an expired lease
 * timed out within its {@code check-interval} (1 s); seconds even under a burst of thousands of
 * windows. Two minutes covers that lag many times over while leaving all but the
 * last two minutes of a journal judged. A longer grace hides more; a shorter one (down to
 * {@code PT0S}) is right for a journal read after its node stopped cleanly.
 *
 * <p><b>What was checked.</b> The report counts, for each invariant, the windows (and attempts)
 * it judged and their events ({@link VerificationReport.Checked}): I1 every window with events in
 * the range; I2 every due window up to the bound above, and every window an event reached; I3
 * every attempt that ended or whose lease (plus the grace) ended; I4 every attempt under an
 * overlap policy other than ALLOW; I6 every window with a PENDING or WAITING spell that ended, or
 * whose bound (plus the grace) ended. A verification whose I2 judged no due window is {@link
 * VerificationReport.Result#NOTHING_CHECKED}, not OK: e.g. a journal younger than the grace. I5
 * counts the journals it judged and their events with a known writer; when there were none, the
 * report says I5 was not judged.
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

  /**
   * The longest the trigger's heartbeat may pause without I6 taking it as a pause of the journal:
   * the trigger writes its watermark about once a second while a node runs ({@code
   * almanac.trigger.persist-interval}, 1 s), so no trigger event for longer than 5 s means no node
   * was writing (it was down, or its database was). See {@link #heartbeat(List)}.
   */
  public static final Duration HEARTBEAT_GAP = Duration.ofSeconds(5);

  private static final int CHUNK = 10_000;

  /**
   * The audit's fold keeps every window (it judges each), and no event ids (it counts events itself).
   */
  private static final HotState KEEP_ALL = new HotState(Integer.MAX_VALUE, Duration.ofDays(365L * 1000), 1);

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
  private Duration longestPastBound = Duration.ZERO;
  private String longestPastBoundOf;
  private List<Instant> heartbeatResumes = List.of();
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
   * A task's registration as the trigger's journal records it ({@code TasksRegistered}): registering
   * writes no task entity, which records the spec ({@code SpecDefined}) with its first fire, wake-up,
   * event or operator command. Where a task's own journal has no {@code SpecDefined} yet (or records
   * the spec later than it was registered), I2 takes the schedule from here.
   *
   * @param spec the spec registered
   * @param at from when its windows are the trigger's (the registration's {@code since})
   */
  public record Registration(SpecRecord spec, Instant at) {
    /** Never null. */
    public Registration {
      Objects.requireNonNull(spec, "spec");
      Objects.requireNonNull(at, "at");
    }
  }

  /** The registrations per task, from the trigger's journal (empty: the tasks' own journals alone). */
  private Map<String, List<Registration>> registrations = Map.of();

  /**
   * The tasks' registrations as the trigger's journal holds them (e.g. {@link
   * AuditReader#registrations()}): call it before {@link #check}. I2 of a task then expects its
   * windows from its registration on, also when its own journal records the spec later (with its first
   * fire) or not at all (a task registered and never fired: every window due since its registration is
   * lost). Only the trigger's events still in its journal count (retention deletes older ones).
   *
   * @param byTask the registrations of each task, in journal order
   * @return this verifier
   */
  public Verifier registrations(Map<String, List<Registration>> byTask) {
    this.registrations = Map.copyOf(Objects.requireNonNull(byTask, "byTask"));
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
   * The trigger's events, as the journal's heartbeat for I6: call it before {@link #check}. The
   * trigger writes its watermark about once a second while a node runs, so where its events pause
   * for longer than {@link #HEARTBEAT_GAP}, or the next one was written by another node incarnation
   * (a restart, a failover), no node was writing (down, or its database was): a PENDING window
   * could not start and a waiting one could not end its wait. I6 measures a window's bound again
   * from the event after such a pause. Without it (a verifier used on tasks alone) I6 sees restarts
   * only as a new writer of the task's own journal. Only the trigger's events still in its journal
   * count (retention deletes its older ones, see {@code almanac.trigger.snapshot-every}).
   *
   * @param events the trigger's events in journal order, with their writers (e.g. {@link
   *     AuditReader#triggerWriters()})
   * @return this verifier
   */
  public Verifier heartbeat(List<Written> events) {
    List<Instant> resumes = new ArrayList<>();
    Instant lastAt = null;
    String lastWriter = null;
    for (Written e : events) {
      String writer = e.writer() == null ? null : e.writer().nodeIncarnation();
      boolean paused = lastAt != null && e.at() != null && Duration.between(lastAt, e.at()).compareTo(HEARTBEAT_GAP) > 0;
      boolean moved = lastWriter != null && writer != null && !writer.equals(lastWriter);
      if ((paused || moved) && e.at() != null) {
        resumes.add(e.at());
      }
      if (e.at() != null) {
        lastAt = e.at();
      }
      if (writer != null) {
        lastWriter = writer;
      }
    }
    resumes.sort(null);
    heartbeatResumes = List.copyOf(resumes);
    return this;
  }

  /** The latest instant at or before {@code t} at which the trigger's heartbeat resumed, or null. */
  private Instant heartbeatResumedBy(Instant t) {
    int i = Collections.binarySearch(heartbeatResumes, t);
    int at = i >= 0 ? i : -i - 2;
    return at >= 0 ? heartbeatResumes.get(at) : null;
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
            checkedUntil, checked, journalEnd, longestPastBound, longestPastBoundOf));
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

  /**
   * A skip range of the journal (docs/skip-ranges.md): its first window, and the windows due from its
   * first's due time through its last's ({@code lastDue}; null while open: every one due after it).
   */
  private record Range(String first, Instant firstDue, Instant lastDue, EventRef ref) {
    boolean covers(Instant dueAt) {
      return !dueAt.isBefore(firstDue) && (lastDue == null || !dueAt.isAfter(lastDue));
    }
  }

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
    /** I7: this window's interruptions ({@code AttemptInterrupted}). */
    int interruptions;
    Violation illegal;
    // I6: the current PENDING or WAITING spell, and what was judged of this window's spells
    Instant waitSince;
    Instant waitFrom;
    EventRef waitRef;
    int waitsJudged;
    int waitEvents;
    int waitsNotJudged;
    Duration pastBound = Duration.ZERO;
    Bound stuck;
    // I6: the pool wait recorded in the current PENDING spell (a reason: waiting, not stuck), and how many spells had one
    EventRef poolWait;
    String poolWaitDetail;
    int poolHeldSpells;
    // I2 of event-triggered windows: the first event that reached it, and whether a window had ended before
    EventRef reachedBy;
    boolean reachedAfterAnEnd;

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

  /**
   * How long a PENDING or WAITING window may stay so: until {@code deadline}, for the reason {@code
   * why} (for people).
   */
  private record Bound(Instant deadline, String why) {}

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
    /** The journal's skip ranges, in journal order (I2: each accounts for the windows it covers). */
    private final List<Range> ranges = new ArrayList<>();
    private final List<Segment> specs = new ArrayList<>();
    private final List<Instant> removals = new ArrayList<>();
    private final List<Attempt> all = new ArrayList<>();
    private boolean gaps;
    // I6, as the replay goes: attempts started without an outcome yet, the latest outcome, the latest
    // new writer of this journal; I2 of event windows: whether a window had ended (been archivable)
    private int running;
    private Instant lastAttemptEnd;
    private Instant writerResumed;
    // whether the task is paused (a paused task starts none of its windows) and when it was last resumed
    private boolean paused;
    private Instant pauseEnded;
    private String lastWriter;
    private boolean windowEnded;
    // the task's state as Evolve folds it, and the status the latest event asked that the table refused
    private TaskJournal.State state = TaskJournal.State.empty(1);
    private InstanceStatus refused;
    private final Evolve.Violations refusal = (key, from, to, event) -> refused = to;
    private final Noted noted = new Noted();

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
      withRegistrations();
      judgeWaits();
      checkWindows();
      checkDue();
      checkLeases();
      checkOverlaps();
      checkStuck();
      checkWriters();
    }

    /**
     * The specs in effect, from the task's own {@code SpecDefined}s and the trigger's registrations
     * merged by time: a {@code SpecDefined} that records the spec last registered (its entity records
     * it with its first message, after the registration) adds nothing; the registration is when that
     * spec took effect. A removal in between keeps both (the task was registered anew).
     */
    private void withRegistrations() {
      List<Registration> regs = registrations.get(task);
      if (regs == null || regs.isEmpty()) {
        return;
      }
      List<Segment> all = new ArrayList<>();
      regs.forEach(r -> all.add(new Segment(r.spec(), r.at())));
      boolean own = !specs.isEmpty();
      all.addAll(specs);
      all.sort(java.util.Comparator.comparing(Segment::at)); // stable: a registration before a SpecDefined at the same instant
      List<Segment> merged = new ArrayList<>();
      for (Segment seg : all) {
        Segment last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
        if (last != null && last.spec().equals(seg.spec()) && removedAfter(last.at(), seg.at()) == null) {
          continue;
        }
        merged.add(seg);
      }
      if (!own) {
        notes.add("task '" + task + "': no SpecDefined in its journal: its schedule is taken from the trigger's registration");
      }
      specs.clear();
      specs.addAll(merged);
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
      long expected = 1;
      for (AuditEvent ae : history.events()) {
        eventsRead++;
        if (ae.sequenceNr() > expected) {
          gaps = true;
          notes.add("task '" + task + "': events #" + expected + (ae.sequenceNr() - 1 > expected ? "-#" + (ae.sequenceNr() - 1) : "")
              + " are not in the journal (deleted, e.g. by retention); what they recorded is not checked");
        }
        expected = ae.sequenceNr() + 1;
        if (ae.writer() != null) {
          String writer = ae.writer().nodeIncarnation();
          if (lastWriter != null && !writer.equals(lastWriter)) {
            writerResumed = ae.at(); // a restart, a failover or a move: the entity recovered and offers its windows again
          }
          lastWriter = writer;
        }
        if (!(ae.event() instanceof TaskJournal.Event ev)) {
          continue; // a type this version does not know: kept in the report's events, not judged
        }
        if (!(ev instanceof TaskJournal.WindowEvent we)) {
          noted.at = ae.at();
          ev.accept(noted);
          state = Evolve.apply(state, ev, KEEP_ALL, Evolve.Violations.IGNORE);
          continue;
        }
        Win w = windows.computeIfAbsent(we.window(), k -> new Win(k, ae.at()));
        EventRef ref = new EventRef(ae.sequenceNr(), ae.type(), ae.at());
        w.events.add(ref);
        noted.w = w;
        noted.ref = ref;
        noted.startedOne = false;
        we.accept(noted);
        status(w, we, ref);
        if (noted.startedOne) {
          running++; // counted as running after its own window's PENDING spell is measured
        }
      }
    }

    /**
     * What each kind of event adds to the audit's records of its window and attempts (its status is
     * {@link Evolve}'s). Reused for every event: {@link #w}, {@link #ref} and {@link #at} are the
     * event's.
     */
    private final class Noted implements TaskJournal.Visitor<Void> {
      private SpecRecord current;
      private Win w;
      private EventRef ref;
      private Instant at;
      private boolean startedOne;

      @Override
      public Void specDefined(TaskJournal.SpecDefined e) {
        specs.add(new Segment(e.spec(), at));
        current = e.spec();
        return null;
      }

      @Override
      public Void taskPaused(TaskJournal.TaskPaused e) {
        paused = true;
        return null;
      }

      @Override
      public Void budgetRaised(TaskJournal.BudgetRaised e) {
        return null; // an operator's raise of a day's budget: about no window
      }

      @Override
      public Void taskResumed(TaskJournal.TaskResumed e) {
        if (paused) { // a resume of a task that was not paused changes nothing
          paused = false;
          pauseEnded = e.at();
        }
        return null;
      }

      @Override
      public Void taskRemoved(TaskJournal.TaskRemoved e) {
        removals.add(at);
        return null;
      }

      @Override
      public Void instanceScheduled(TaskJournal.InstanceScheduled e) {
        accounted(w, ref, e.dueAt());
        return null;
      }

      @Override
      public Void fireSkipped(TaskJournal.FireSkipped e) {
        accounted(w, ref, e.dueAt());
        return null;
      }

      @Override
      public Void windowMissed(TaskJournal.WindowMissed e) {
        accounted(w, ref, e.dueAt());
        return null;
      }

      @Override
      public Void skipRangeOpened(TaskJournal.SkipRangeOpened e) {
        accounted(w, ref, e.dueAt());
        ranges.add(new Range(e.window(), e.dueAt(), null, ref)); // open: it covers every window due from its first on
        return null;
      }

      @Override
      public Void skipRangeClosed(TaskJournal.SkipRangeClosed e) {
        for (int i = ranges.size() - 1; i >= 0; i--) {
          Range r = ranges.get(i);
          if (r.first().equals(e.window()) && r.lastDue() == null) {
            ranges.set(i, new Range(r.first(), r.firstDue(), e.lastDue(), r.ref()));
            break;
          }
        }
        return null;
      }

      @Override
      public Void windowsSkipped(TaskJournal.WindowsSkipped e) {
        accounted(w, ref, e.dueAt());
        ranges.add(new Range(e.window(), e.dueAt(), e.lastDue(), ref));
        return null;
      }

      @Override
      public Void windowWaiting(TaskJournal.WindowWaiting e) {
        accounted(w, ref, e.dueAt()); // due and waiting for its dependency or condition: accounted for
        w.waitUntil = e.waitUntil();
        return null;
      }

      @Override
      public Void attemptStarted(TaskJournal.AttemptStarted e) {
        OverlapPolicy policy = current == null ? OverlapPolicy.DEFAULT : current.overlap();
        Attempt a = new Attempt(w.key, e.attempt(), ref, e.leaseUntil(), policy);
        w.attempts.add(a);
        all.add(a);
        startedOne = true;
        return null;
      }

      @Override
      public Void windowStarted(TaskJournal.WindowStarted e) {
        instanceScheduled(e.scheduled()); // the audit reads a WindowStarted as its two events; kept for a caller that does not
        return attemptStarted(e.started());
      }

      @Override
      public Void leaseExtended(TaskJournal.LeaseExtended e) {
        Attempt a = attempt(w, e.attempt());
        if (a != null) {
          a.extensions.add(ref);
          if (e.leaseUntil() != null && (a.leaseUntil == null || e.leaseUntil().isAfter(a.leaseUntil))) {
            a.leaseUntil = e.leaseUntil();
          }
        }
        return null;
      }

      @Override
      public Void attemptSucceeded(TaskJournal.AttemptSucceeded e) {
        w.successes.add(ref);
        ended(w, attempt(w, e.attempt()), ref);
        return null;
      }

      @Override
      public Void attemptFailed(TaskJournal.AttemptFailed e) {
        ended(w, attempt(w, e.attempt()), ref);
        return null;
      }

      @Override
      public Void attemptTimedOut(TaskJournal.AttemptTimedOut e) {
        ended(w, attempt(w, e.attempt()), ref);
        return null;
      }

      @Override
      public Void attemptInterrupted(TaskJournal.AttemptInterrupted e) {
        w.interruptions++;
        ended(w, attempt(w, e.attempt()), ref);
        return null;
      }

      @Override
      public Void lateResultRecorded(TaskJournal.LateResultRecorded e) {
        w.late++;
        return null;
      }

      @Override
      public Void retryScheduled(TaskJournal.RetryScheduled e) {
        w.retries++;
        return null;
      }

      @Override
      public Void instanceFinalFailed(TaskJournal.InstanceFinalFailed e) {
        return null;
      }

      @Override
      public Void instanceResolved(TaskJournal.InstanceResolved e) {
        return null;
      }

      @Override
      public Void instanceCancelled(TaskJournal.InstanceCancelled e) {
        ended(w, w.openAttempt(), ref); // only one attempt of a window runs at a time
        return null;
      }

      @Override
      public Void effectIntended(TaskJournal.EffectIntended e) {
        return null;
      }

      @Override
      public Void effectRecorded(TaskJournal.EffectRecorded e) {
        return null;
      }

      @Override
      public Void stepRecorded(TaskJournal.StepRecorded e) {
        return null;
      }

      @Override
      public Void stepsReplayed(TaskJournal.StepsReplayed e) {
        return null;
      }

      @Override
      public Void eventReceived(TaskJournal.EventReceived e) {
        if (w.reachedBy == null) {
          w.reachedBy = ref; // its decision, if it made one, came first in the same write
          w.reachedAfterAnEnd = windowEnded || gaps;
        }
        return null;
      }

      @Override
      public Void eventDuplicated(TaskJournal.EventDuplicated e) {
        return null;
      }

      @Override
      public Void waitSatisfied(TaskJournal.WaitSatisfied e) {
        return null;
      }

      @Override
      public Void waitEnded(TaskJournal.WaitEnded e) {
        return null;
      }

      @Override
      public Void conditionCheckFailed(TaskJournal.ConditionCheckFailed e) {
        return null;
      }

      @Override
      public Void upstreamRerunRecorded(TaskJournal.UpstreamRerunRecorded e) {
        return null;
      }

      @Override
      public Void poolWaited(TaskJournal.PoolWaited e) {
        if (w.status == InstanceStatus.PENDING) {
          w.poolWait = ref; // a recorded reason for the rest of this PENDING spell
          w.poolWaitDetail = "waiting for pool '" + e.pool() + "': " + e.reason() + " since " + ref.at()
              + (e.until() == null ? "" : ", until " + e.until() + " at the latest");
        }
        return null;
      }

      @Override
      public Void attemptLogged(TaskJournal.AttemptLogged e) {
        return null;
      }

      @Override
      public Void deadlineMissed(TaskJournal.DeadlineMissed e) {
        return null;
      }
    }

    /**
     * The window's status after the event: the task's state folded by the runtime's own {@link
     * Evolve} (the one event-to-status mapping in the codebase). The first status change the
     * transition table refuses is an I1 violation of its window (reported unless the window succeeded
     * twice, which is reported as such), except, after events deleted by retention, for a window
     * whose first events are gone; a window with no instance yet is then taken at the event's word
     * ({@link Evolve#adopt}), so what follows is judged.
     */
    private void status(Win w, TaskJournal.WindowEvent ev, EventRef ref) {
      InstanceStatus from = w.status;
      refused = null;
      state = Evolve.apply(state, ev, KEEP_ALL, refusal);
      if (refused != null) {
        if (w.illegal == null && !(from == null && gaps)) {
          w.illegal = new Violation(task, w.key, Invariant.I1, "illegal transition " + (from == null ? "NEW" : from)
              + " -> " + refused + " by " + ref.type() + " #" + ref.sequenceNr() + " at " + ref.at()
              + " (the transition table refuses it: a second writer or a corrupted journal)", List.of(ref));
        }
        if (from == null) {
          state = Evolve.adopt(state, ev, KEEP_ALL); // its earlier events are gone: take the journal's word
        }
      }
      WindowState after = state.windows().get(w.key);
      if (after != null) {
        setStatus(w, after.status(), ev, ref);
      }
    }

    /** Sets the window's status; a PENDING or WAITING spell that ends is measured against its bound (I6). */
    private void setStatus(Win w, InstanceStatus to, TaskJournal.Event ev, EventRef ref) {
      InstanceStatus from = w.status;
      if (from == to) {
        return;
      }
      if (waits(from) && w.poolWait != null) {
        w.poolHeldSpells++; // held by a pool, a recorded reason: not measured against the lease ceiling
      } else if (waits(from)) {
        Bound b = bound(w, ref.at());
        if (b == null) {
          w.waitsNotJudged++;
        } else {
          w.waitsJudged++;
          w.waitEvents += 2;
          Duration past = Duration.between(b.deadline(), ref.at());
          if (past.compareTo(w.pastBound) > 0) {
            w.pastBound = past;
          }
        }
      }
      w.status = to;
      w.poolWait = null;
      w.poolWaitDetail = null;
      if (waits(to)) {
        w.waitSince = ref.at();
        w.waitRef = ref;
        Instant due = ev instanceof TaskJournal.InstanceScheduled s ? s.dueAt() : null;
        w.waitFrom = due != null && due.isAfter(ref.at()) ? due : ref.at(); // a fire up to the clock skew early waits for its due time
      }
      if (to.isTerminal()) {
        windowEnded = true;
      }
    }

    private static boolean waits(InstanceStatus s) {
      return s == InstanceStatus.PENDING || s == InstanceStatus.WAITING;
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
        running--;
        if (lastAttemptEnd == null || ref.at().isAfter(lastAttemptEnd)) {
          lastAttemptEnd = ref.at();
        }
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
        if (w.stuck != null) {
          continue; // not open: an I6 violation (checkStuck)
        }
        if (w.status == InstanceStatus.WAITING) {
          open.add(new Open(task, w.key, status, "waiting since " + (w.accountedBy == null ? last(w).at() : w.accountedBy.at())
              + " until " + w.waitUntil));
        } else if (w.status == InstanceStatus.PENDING || w.status == InstanceStatus.RUNNING
            || w.status == InstanceStatus.RETRY_WAIT) {
          String detail = a == null || w.status != InstanceStatus.RUNNING ? "since " + last(w).at()
              + (w.poolWaitDetail == null ? "" : ", " + w.poolWaitDetail)
              : "attempt " + a.number + " started " + a.started.at() + ", lease until " + a.leaseUntil;
          open.add(new Open(task, w.key, status, detail));
        } else if (w.status == InstanceStatus.FAILED || w.status == InstanceStatus.TIMED_OUT) {
          violations.add(new Violation(task, w.key, Invariant.I2, "ran and has no outcome: it is " + status
              + " at the end of the journal, with no retry and no final failure recorded", List.of(last(w))));
        } else if (w.status == InstanceStatus.INTERRUPTED) {
          violations.add(new Violation(task, w.key, Invariant.I7, "interrupted and left so: it is INTERRUPTED at the"
              + " end of the journal, with no resume, retry or final failure recorded", List.of(last(w))));
        }
        if (w.interruptions > 0) {
          count(Invariant.I7, 1, w.interruptions, w.events.size());
        }
      }
    }

    private EventRef last(Win w) {
      return w.events.get(w.events.size() - 1);
    }

    /**
     * I2: every window due in the range by the task's schedule, and every window an event reached,
     * has a scheduling, wait, skip or miss event.
     */
    private void checkDue() {
      if (end == null) {
        return;
      }
      Set<String> found = new HashSet<>();
      Set<String> lost = new HashSet<>();
      Instant until = dueBySchedule(found, lost);
      Instant byEvents = reachedByEvents(found, lost);
      windowsChecked += found.size() + lost.size();
      long events = 0;
      for (String key : found) {
        Win w = windows.get(key);
        events += w == null ? 0 : w.events.size(); // a window a skip range accounts for has no events of its own
      }
      for (String key : lost) {
        Win w = windows.get(key);
        events += w == null ? 0 : w.events.size();
      }
      count(Invariant.I2, found.size() + lost.size(), 0, events);
      windowsLost += lost.size();
      Instant checked = latest(until, byEvents);
      if (checked != null && (checkedUntil == null || checked.isAfter(checkedUntil))) {
        checkedUntil = checked;
      }
    }

    /**
     * I2 by the schedule: the windows due by the cron (or the one-shot instant) of each spec in
     * effect, up to the journal's end less the grace (or {@code to}), are looked for; a jittered
     * window is looked for once its fire time (its due time plus its {@code Jitter} offset) is
     * before the journal's end less the grace.
     *
     * @return the latest due time checked (null when none was due)
     */
    private Instant dueBySchedule(Set<String> found, Set<String> lost) {
      if (specs.isEmpty()) {
        notes.add("task '" + task + "': I2 not checked: no SpecDefined in the journal, so its schedule is unknown");
        return null;
      }
      Instant until = end.minus(grace);
      if (to != null && to.isBefore(until)) {
        until = to;
      }
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
        // A jittered window fires at its due time plus its offset: one due by hi may fire after the journal's end
        // less the grace (or the removal's), not yet due to have fired
        Instant firedBy = end.minus(grace);
        if (removed != null && removed.minus(grace).minusNanos(1).isBefore(firedBy)) {
          firedBy = removed.minus(grace).minusNanos(1);
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
            if (schedule.fireAt(d).isAfter(firedBy)) {
              continue; // due in the range, fires after the end (jitter): not judged yet
            }
            latestDue = d.dueAt();
            if (!selected(key) || found.contains(key) || lost.contains(key)) {
              continue;
            }
            Win w = windows.get(key);
            if (w != null && w.accountedBy != null || inSkipRange(d.dueAt())) {
              found.add(key); // a window a skip range accounts for is its range's
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
      Instant lastRemoval = removedAfter(specs.get(specs.size() - 1).at(), null);
      if (lastRemoval != null && lastRemoval.minus(grace).minusNanos(1).isBefore(until)) {
        until = lastRemoval.minus(grace).minusNanos(1); // a task that stays removed was checked until its removal
      }
      return latestDue == null ? null : until;
    }

    /** Whether a skip range of the journal accounts for a window due then (I2). */
    private boolean inSkipRange(Instant dueAt) {
      for (Range r : ranges) {
        if (r.covers(dueAt)) {
          return true;
        }
      }
      return false;
    }

    /**
     * I2 by the events: a window an event reached ({@code EventReceived}) is due, whatever the
     * task's schedule (an event-only task has none). Its decision is written in the same write as
     * the event, so no grace applies. A window an event reached with no decision is lost, unless a
     * window of the task had ended before (or events are missing): then it may be one before the
     * task's archived windows, for which the runtime records the event and runs nothing.
     *
     * @return up to when windows were judged ({@code to} or the journal's end), or null when none was
     */
    private Instant reachedByEvents(Set<String> found, Set<String> lost) {
      boolean any = false;
      int archived = 0;
      for (Win w : windows.values()) {
        if (w.reachedBy == null || !inRange(w) || found.contains(w.key) || lost.contains(w.key)) {
          continue;
        }
        any = true;
        if (w.accountedBy != null) {
          found.add(w.key);
        } else if (w.reachedAfterAnEnd) {
          found.add(w.key);
          archived++;
        } else {
          lost.add(w.key);
          violations.add(new Violation(task, w.key, Invariant.I2, "lost window: an event reached it (" + w.reachedBy.type() + " #"
              + w.reachedBy.sequenceNr() + " at " + w.reachedBy.at() + "), no InstanceScheduled, WindowWaiting, FireSkipped or"
              + " WindowMissed, and no window of the task had ended before (so it is not one before the task's archived"
              + " windows)", w.events));
        }
      }
      if (archived > 0) {
        notes.add("task '" + task + "': " + archived + (archived == 1 ? " window" : " windows") + " reached only by an"
            + " EventReceived, after windows of the task had ended: taken as events for windows before the task's archived"
            + " ones (the event is recorded, nothing runs, and no decision is written)");
      }
      return !any ? null : to != null && to.isBefore(end) ? to : end;
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

    private static Instant latest(Instant a, Instant b) {
      return a == null ? b : b == null ? a : a.isAfter(b) ? a : b;
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

    /**
     * How long a PENDING or WAITING window may stay so, judged at {@code x} (when its spell ended, or
     * the journal's end): null when it cannot be judged (no spec in effect: the lease ceiling is
     * unknown; a wait without a deadline).
     *
     * <p>PENDING: the lease ceiling of the spec in effect (the longest, if it changed meanwhile)
     * after the latest of: when it became PENDING (or its due time, if that was later); the end of
     * the task's latest attempt (while one runs, at {@code x} itself: the overlap policy or the
     * executor's per-task limit holds the window back); while the task is paused, {@code x} itself
     * (a pause holds its windows), and otherwise when it was last resumed; when the journal resumed (a new writer of
     * the task's journal, or the trigger's heartbeat after a pause: the entity recovers and offers
     * its PENDING windows again). WAITING: its wait deadline, plus the condition's poll timeout (the
     * check that ends the wait may be a poll in flight), or when the journal resumed after it.
     */
    private Bound bound(Win w, Instant x) {
      Instant resumed = latest(writerResumed, heartbeatResumedBy(x));
      if (w.status == InstanceStatus.PENDING) {
        Duration ceiling = longest(w.waitSince, x, spec -> spec.lease() == null || spec.lease().ceiling() == null
            ? io.almanac.LeasePolicy.MAX_CEILING : spec.lease().ceiling());
        if (ceiling == null) {
          return null;
        }
        Instant from = w.waitFrom;
        String why = w.waitFrom.equals(w.waitSince) ? "when it became PENDING" : "its due time";
        Instant activity = running > 0 || paused ? x : lastAttemptEnd;
        if (activity != null && activity.isAfter(from)) {
          from = activity;
          why = running > 0 ? "while another attempt of the task runs" : paused ? "while the task is paused"
              : "when the task's last attempt ended";
        }
        if (pauseEnded != null && pauseEnded.isAfter(from)) {
          from = pauseEnded;
          why = "when the task was resumed (a paused task starts none of its windows)";
        }
        if (resumed != null && resumed.isAfter(from)) {
          from = resumed;
          why = "when the journal resumed (a new writer, or the trigger's heartbeat after a pause)";
        }
        return new Bound(from.plus(ceiling), "the lease ceiling " + ceiling + " after " + from + ", " + why);
      }
      if (w.waitUntil == null) {
        return null;
      }
      Duration poll = longest(w.waitSince, x, spec -> spec.condition() == null ? Duration.ZERO
          : spec.condition().timeout() != null ? spec.condition().timeout()
          : spec.condition().every() != null ? spec.condition().every() : io.almanac.ConditionTrigger.DEFAULT_TIMEOUT);
      Instant deadline = w.waitUntil.plus(poll == null ? Duration.ZERO : poll);
      String why = "its wait deadline " + w.waitUntil + (poll == null || poll.isZero() ? "" : " plus the condition's poll timeout " + poll);
      if (resumed != null && resumed.isAfter(deadline)) {
        return new Bound(resumed, why + ", and the journal resumed at " + resumed + " (a new writer, or the trigger's heartbeat"
            + " after a pause)");
      }
      return new Bound(deadline, why);
    }

    /**
     * The longest of a spec's durations over the specs in effect from {@code from} to {@code to}: the
     * one in effect at {@code from} and every one defined after it until {@code to}; null if none.
     */
    private Duration longest(Instant from, Instant to, java.util.function.Function<SpecRecord, Duration> of) {
      Duration max = null;
      for (int i = 0; i < specs.size(); i++) {
        Segment seg = specs.get(i);
        boolean inEffectAtFrom = !seg.at().isAfter(from) && (i + 1 == specs.size() || specs.get(i + 1).at().isAfter(from));
        boolean definedDuring = seg.at().isAfter(from) && !seg.at().isAfter(to);
        if (inEffectAtFrom || definedDuring) {
          Duration d = of.apply(seg.spec());
          if (d != null && (max == null || d.compareTo(max) > 0)) {
            max = d;
          }
        }
      }
      return max;
    }

    /**
     * I6 as of the journal's end: a window still PENDING or WAITING whose bound ended more than the
     * grace before the end is stuck. Runs before {@link #checkWindows} (a stuck window is not open).
     */
    private void judgeWaits() {
      if (end == null) {
        return;
      }
      Instant asOf = end.minus(grace);
      for (Win w : windows.values()) {
        if (!waits(w.status) || w.waitSince == null) {
          continue;
        }
        if (w.poolWait != null) {
          w.poolHeldSpells++; // waiting for a pool, as recorded: not stuck, however long
          continue;
        }
        Bound b = bound(w, end);
        if (b == null) {
          w.waitsNotJudged++;
        } else if (b.deadline().isBefore(asOf)) {
          w.stuck = b;
          w.waitsJudged++;
          w.waitEvents++;
          Duration past = Duration.between(b.deadline(), end);
          if (past.compareTo(w.pastBound) > 0) {
            w.pastBound = past;
          }
        }
      }
    }

    /** I6: the stuck windows' violations, what was judged, and the longest spell past its bound. */
    private void checkStuck() {
      long judged = 0;
      long events = 0;
      long notJudged = 0;
      long poolHeld = 0;
      for (Win w : windows.values()) {
        if (!inRange(w)) {
          continue;
        }
        notJudged += w.waitsNotJudged > 0 ? 1 : 0;
        poolHeld += w.poolHeldSpells > 0 ? 1 : 0;
        if (w.waitsJudged == 0) {
          continue;
        }
        judged++;
        events += w.waitEvents;
        if (w.pastBound.compareTo(longestPastBound) > 0) {
          longestPastBound = w.pastBound;
          longestPastBoundOf = task + "/" + w.key;
        }
        if (w.stuck == null) {
          continue;
        }
        String what = w.status == InstanceStatus.PENDING
            ? "stuck PENDING since " + w.waitSince + ": not started by its bound " + w.stuck.deadline() + " (" + w.stuck.why()
                + "); nothing recorded holds it since (no attempt of the task running, no new writer, no pause in the trigger's"
                + " heartbeat)"
            : "stuck WAITING since " + w.waitSince + ": its wait deadline " + w.waitUntil + " passed and no WaitSatisfied,"
                + " WaitEnded or InstanceCancelled followed by " + w.stuck.deadline() + " (" + w.stuck.why() + ")";
        violations.add(new Violation(task, w.key, Invariant.I6, what + ", and the journal goes on until " + end,
            List.of(w.waitRef)));
      }
      count(Invariant.I6, judged, 0, events);
      if (poolHeld > 0) {
        notes.add("task '" + task + "': " + poolHeld + (poolHeld == 1 ? " window" : " windows") + " PENDING held by a resource"
            + " pool (a PoolWaited recorded in the spell, no start since): waiting, not stuck, and not measured against the"
            + " lease ceiling");
      }
      if (notJudged > 0) {
        notes.add("task '" + task + "': I6 not judged for " + notJudged + (notJudged == 1 ? " window" : " windows")
            + ": no SpecDefined before or during its PENDING spell (its lease ceiling is unknown), or a wait without a deadline");
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
