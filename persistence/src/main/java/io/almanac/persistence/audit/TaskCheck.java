package io.almanac.persistence.audit;

import io.almanac.InstanceStatus;
import io.almanac.OverlapPolicy;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.WindowState;
import io.almanac.persistence.audit.VerificationReport.EventRef;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Open;
import io.almanac.persistence.audit.VerificationReport.Violation;
import io.almanac.persistence.audit.Verifier.Registration;
import io.almanac.persistence.audit.Verifier.Written;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One task's check by a {@link Verifier} (R28): replays its journal once, folding each window's
 * status with the runtime's {@link Evolve} and having each event noted by the narrator of its
 * feature ({@link AuditKinds}) into the records below, then judges the invariants: I1 and I7 (and
 * the windows left open) here, I2 in {@link ScheduleInvariants}, I3 and I4 in {@link
 * AttemptInvariants}, I6 in {@link GateInvariants}, I5 by the verifier ({@link
 * Verifier#interleavings}). What it finds goes to the verifier's report. Not thread-safe.
 */
final class TaskCheck {

  /** The audit's fold keeps every window (it judges each), and no event ids (it counts events itself). */
  static final HotState KEEP_ALL = new HotState(Integer.MAX_VALUE, Duration.ofDays(365L * 1000), 1);

  /** A spec in effect from {@code at} (its SpecDefined, or the trigger's registration). */
  record Segment(SpecRecord spec, Instant at) {}

  /**
   * A skip range of the journal (docs/skip-ranges.md): its first window, and the windows due from its
   * first's due time through its last's ({@code lastDue}; null while open: every one due after it).
   */
  record Range(String first, Instant firstDue, Instant lastDue, EventRef ref) {
    boolean covers(Instant dueAt) {
      return !dueAt.isBefore(firstDue) && (lastDue == null || !dueAt.isAfter(lastDue));
    }
  }

  /** What the check knows of one window: its events, attempts and, for I6, its PENDING or WAITING spells. */
  static final class Win {
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
  record Bound(Instant deadline, String why) {}

  /** One attempt: from its start to its outcome event (null while it has none), under the overlap policy then. */
  static final class Attempt {
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

  final Verifier v;
  // the verifier's settings
  final Instant from;
  final Instant to;
  final String window;
  final Duration grace;
  final Map<String, List<Verifier.Registration>> registrations;
  final TaskHistory history;
  final String task;
  final Instant end;
  final Map<String, Win> windows = new LinkedHashMap<>();
  /** The journal's skip ranges, in journal order (I2: each accounts for the windows it covers). */
  final List<Range> ranges = new ArrayList<>();
  final List<Segment> specs = new ArrayList<>();
  final List<Instant> removals = new ArrayList<>();
  final List<Attempt> all = new ArrayList<>();
  boolean gaps;
  // I6, as the replay goes: attempts started without an outcome yet, the latest outcome, the latest
  // new writer of this journal; I2 of event windows: whether a window had ended (been archivable)
  int running;
  Instant lastAttemptEnd;
  Instant writerResumed;
  // whether the task is paused (a paused task starts none of its windows) and when it was last resumed
  boolean paused;
  Instant pauseEnded;
  String lastWriter;
  boolean windowEnded;
  // the task's state as Evolve folds it, and the status the latest event asked that the table refused
  TaskJournal.State state = TaskJournal.State.empty(1);
  InstanceStatus refused;
  final Evolve.Violations refusal = (key, from, to, event) -> refused = to;
  // the event being noted (AuditKinds.note): its window, its reference and, for a task-level event, its time
  Win win;
  EventRef ref;
  Instant at;
  /** Whether the event noted started an attempt. */
  boolean startedOne;
  /** The spec in effect, as the task's journal defined it. */
  SpecRecord specInEffect;

  TaskCheck(Verifier v, TaskHistory history) {
    this.v = v;
    this.from = v.from;
    this.to = v.to;
    this.window = v.window;
    this.grace = v.grace;
    this.registrations = v.registrations;
    this.history = Objects.requireNonNull(history, "history");
    this.task = history.taskId();
    this.end = history.observedUntil();
  }

  void run() {
    v.tasks++;
    if (end != null && (v.journalEnd == null || end.isAfter(v.journalEnd))) {
      v.journalEnd = end;
    }
    replay();
    withRegistrations();
    GateInvariants.judgeWaits(this);
    checkWindows();
    ScheduleInvariants.checkDue(this);
    AttemptInvariants.checkLeases(this);
    AttemptInvariants.checkOverlaps(this);
    GateInvariants.checkStuck(this);
    checkWriters();
  }

  /**
   * The specs in effect, from the task's own {@code SpecDefined}s and the trigger's registrations
   * merged by time: a {@code SpecDefined} that records the spec last registered (its entity records
   * it with its first message, after the registration) adds nothing; the registration is when that
   * spec took effect. A removal in between keeps both (the task was registered anew).
   */
  void withRegistrations() {
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
      v.notes.add("task '" + task + "': no SpecDefined in its journal: its schedule is taken from the trigger's registration");
    }
    specs.clear();
    specs.addAll(merged);
  }

  /** I5 over the task's events in the range (and of the window, when one is selected). */
  void checkWriters() {
    List<Written> written = new ArrayList<>();
    for (AuditEvent e : history.events()) {
      if ((window == null || window.equals(e.window())) && (from == null && to == null || inRange(e.at()))) {
        written.add(new Written(e.sequenceNr(), e.type(), e.at(), e.writer()));
      }
    }
    v.checkWriters(task, written);
  }

  void replay() {
    long expected = 1;
    for (AuditEvent ae : history.events()) {
      v.eventsRead++;
      if (ae.sequenceNr() > expected) {
        gaps = true;
        v.notes.add("task '" + task + "': events #" + expected + (ae.sequenceNr() - 1 > expected ? "-#" + (ae.sequenceNr() - 1) : "")
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
        at = ae.at();
        AuditKinds.note(this, ev);
        state = Evolve.apply(state, ev, KEEP_ALL, Evolve.Violations.IGNORE);
        continue;
      }
      Win w = windows.computeIfAbsent(we.window(), k -> new Win(k, ae.at()));
      EventRef ref = new EventRef(ae.sequenceNr(), ae.type(), ae.at());
      w.events.add(ref);
      win = w;
      this.ref = ref;
      startedOne = false;
      AuditKinds.note(this, we);
      status(w, we, ref);
      if (startedOne) {
        running++; // counted as running after its own window's PENDING spell is measured
      }
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
  void status(Win w, TaskJournal.WindowEvent ev, EventRef ref) {
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
  void setStatus(Win w, InstanceStatus to, TaskJournal.Event ev, EventRef ref) {
    InstanceStatus from = w.status;
    if (from == to) {
      return;
    }
    if (waits(from) && w.poolWait != null) {
      w.poolHeldSpells++; // held by a pool, a recorded reason: not measured against the lease ceiling
    } else if (waits(from)) {
      Bound b = GateInvariants.bound(this, w, ref.at());
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

  static boolean waits(InstanceStatus s) {
    return s == InstanceStatus.PENDING || s == InstanceStatus.WAITING;
  }

  void accounted(Win w, EventRef ref, Instant dueAt) {
    if (w.accountedBy == null) {
      w.accountedBy = ref;
    }
    if (w.dueAt == null) {
      w.dueAt = dueAt;
    }
  }

  Attempt attempt(Win w, int number) {
    for (int i = w.attempts.size() - 1; i >= 0; i--) {
      Attempt a = w.attempts.get(i);
      if (a.number == number && a.end == null) {
        return a;
      }
    }
    return null;
  }

  void ended(Win w, Attempt a, EventRef ref) {
    if (a != null && a.end == null) {
      a.end = ref;
      running--;
      if (lastAttemptEnd == null || ref.at().isAfter(lastAttemptEnd)) {
        lastAttemptEnd = ref.at();
      }
    }
  }

  boolean selected(String key) {
    return window == null || window.equals(key);
  }

  boolean inRange(Instant t) {
    return v.inRange(t);
  }

  boolean inRange(Win w) {
    return selected(w.key) && inRange(w.dueAt != null ? w.dueAt : w.firstAt);
  }

  /** I1, the status of every window, open windows, and windows that ran without an outcome (I2). */
  void checkWindows() {
    for (Win w : windows.values()) {
      if (!inRange(w)) {
        continue;
      }
      v.windowsSeen++;
      v.count(Invariant.I1, 1, 0, w.events.size());
      v.successes += w.successes.size();
      v.retries += w.retries;
      v.lateResults += w.late;
      String status = w.status == null ? "UNKNOWN" : w.status.name();
      v.byStatus.merge(status, 1L, Long::sum);
      if (w.successes.size() > 1) {
        v.doubleSuccesses++;
        v.violations.add(new Violation(task, w.key, Invariant.I1, "succeeded " + w.successes.size()
            + " times", w.successes));
      } else if (w.illegal != null) {
        v.violations.add(w.illegal);
      }
      Attempt a = w.openAttempt();
      if (w.status == InstanceStatus.RUNNING && a != null && AttemptInvariants.expired(this, a)) {
        continue; // not open: an I3 violation (checkLeases)
      }
      if (w.stuck != null) {
        continue; // not open: an I6 violation (checkStuck)
      }
      if (w.status == InstanceStatus.WAITING) {
        v.open.add(new Open(task, w.key, status, "waiting since " + (w.accountedBy == null ? last(w).at() : w.accountedBy.at())
            + " until " + w.waitUntil));
      } else if (w.status == InstanceStatus.PENDING || w.status == InstanceStatus.RUNNING
          || w.status == InstanceStatus.RETRY_WAIT) {
        String detail = a == null || w.status != InstanceStatus.RUNNING ? "since " + last(w).at()
            + (w.poolWaitDetail == null ? "" : ", " + w.poolWaitDetail)
            : "attempt " + a.number + " started " + a.started.at() + ", lease until " + a.leaseUntil;
        v.open.add(new Open(task, w.key, status, detail));
      } else if (w.status == InstanceStatus.FAILED || w.status == InstanceStatus.TIMED_OUT) {
        v.violations.add(new Violation(task, w.key, Invariant.I2, "ran and has no outcome: it is " + status
            + " at the end of the journal, with no retry and no final failure recorded", List.of(last(w))));
      } else if (w.status == InstanceStatus.INTERRUPTED) {
        v.violations.add(new Violation(task, w.key, Invariant.I7, "interrupted and left so: it is INTERRUPTED at the"
            + " end of the journal, with no resume, retry or final failure recorded", List.of(last(w))));
      }
      if (w.interruptions > 0) {
        v.count(Invariant.I7, 1, w.interruptions, w.events.size());
      }
    }
  }

  EventRef last(Win w) {
    return w.events.get(w.events.size() - 1);
  }


  /** The first removal at or after a spec's event and before the next spec's (null: none). */
  Instant removedAfter(Instant specAt, Instant nextSpecAt) {
    for (Instant r : removals) {
      if (!r.isBefore(specAt) && (nextSpecAt == null || r.isBefore(nextSpecAt))) {
        return r;
      }
    }
    return null;
  }


  static Instant latest(Instant a, Instant b) {
    return a == null ? b : b == null ? a : a.isAfter(b) ? a : b;
  }
}
