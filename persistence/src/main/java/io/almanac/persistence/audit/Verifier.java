package io.almanac.persistence.audit;

import io.almanac.journal.Evolve;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TriggerJournal;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.VerificationReport.EventRef;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Open;
import io.almanac.persistence.audit.VerificationReport.Violation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

  /** How many due windows I2 computes at once. */
  static final int CHUNK = 10_000;

  Instant from;
  Instant to;
  String window;
  Duration grace = DEFAULT_GRACE;

  final List<Violation> violations = new ArrayList<>();
  final List<Open> open = new ArrayList<>();
  final List<String> notes = new ArrayList<>();
  final Map<String, Long> byStatus = new TreeMap<>();
  int tasks;
  long eventsRead;
  long windowsSeen;
  long windowsChecked;
  long windowsLost;
  long doubleSuccesses;
  long attempts;
  long successes;
  long retries;
  long lateResults;
  Duration longestPastLease = Duration.ZERO;
  String longestPastLeaseOf;
  Duration longestPastBound = Duration.ZERO;
  String longestPastBoundOf;
  List<Instant> heartbeatResumes = List.of();
  Instant checkedUntil;
  Instant journalEnd;
  final Map<Invariant, VerificationReport.Checked> checked = new EnumMap<>(Invariant.class);
  long unknownWriters;
  long unknownWriterJournals;

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
  Map<String, List<Registration>> registrations = Map.of();

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
    new TaskCheck(this, history).run();
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
  Instant heartbeatResumedBy(Instant t) {
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

  void count(Invariant invariant, long windows, long attempts, long events) {
    checked.merge(invariant, new VerificationReport.Checked(windows, attempts, events), VerificationReport.Checked::plus);
  }

  boolean inRange(Instant t) {
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
  void checkWriters(String journal, List<Written> events) {
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
}
