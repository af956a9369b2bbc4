package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.WindowExplanation.DATE_TIME;
import static io.almanac.persistence.audit.WindowExplanation.KEEP_ALL;
import static io.almanac.persistence.audit.WindowExplanation.NO_SUCH_WINDOW;
import static io.almanac.persistence.audit.WindowExplanation.ON_TIME;
import static io.almanac.persistence.audit.WindowExplanation.RESTART_SHOWN;
import static io.almanac.persistence.audit.WindowExplanation.TASK_HOT;
import static io.almanac.persistence.audit.WindowExplanation.TIME;
import static io.almanac.persistence.audit.WindowExplanation.guessStart;
import static io.almanac.persistence.audit.WindowExplanation.isRangeEvent;
import static io.almanac.persistence.audit.WindowExplanation.late;
import static io.almanac.persistence.audit.WindowExplanation.node;
import static io.almanac.persistence.audit.WindowExplanation.previousRunning;
import static io.almanac.persistence.audit.WindowExplanation.previousRunningSkip;
import static io.almanac.persistence.audit.WindowExplanation.shorten;
import static io.almanac.persistence.audit.WindowExplanation.specText;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.journal.Evolve;
import io.almanac.journal.Rules;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.TaskPaused;
import io.almanac.journal.TaskJournal.WaitSatisfied;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.journal.TaskJournal.WindowWaiting;
import io.almanac.journal.Transition;
import io.almanac.journal.WindowState;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.AuditKinds.Placed;
import io.almanac.persistence.audit.WindowExplanation.Digest;
import io.almanac.persistence.audit.WindowExplanation.Explanation;
import io.almanac.persistence.audit.WindowExplanation.Step;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One explanation of a window being built ({@link WindowExplanation#explain}): walks the journal once,
 * folding it as it goes, and has each event told by the narrator of its feature ({@link AuditKinds}),
 * which reads and writes what the walk learnt here. Not thread-safe.
 */
final class Explainer {
  final String taskId;
  final List<AuditEvent> events;
  final String window;
  final ZoneId zone;
  final List<Step> steps = new ArrayList<>();
  LocalDate dueDate;

  // what the walk learnt
  SpecRecord spec;
  Instant registeredAt;
  Instant pausedAt;
  /** The pause in force when the task paused itself on failures, else null. */
  TaskPaused pausedOnFailures;
  Instant removedAt;
  Instant dueAt;
  Instant scheduledAt;
  RunKind scheduledKind;
  /** Who scheduled the window last (an operator's run, backfill or retry), or null when not recorded. */
  String scheduledBy;
  /** Who resolved it, or null when not recorded. */
  String resolvedBy;
  InstanceStatus reopenedFrom;
  AttemptStarted lastStart;
  int attempts;
  String lastError;
  String skipText;
  String missText;
  /** What the window is in its skip range (docs/skip-ranges.md), or null for a window of its own. */
  String rangeText;
  /** The task's skip range events, for a window with no event of its own that a range accounts for. */
  final List<AuditEvent> rangeEvents = new ArrayList<>();
  String cancelText;
  String resolveNote;
  String finalReason;
  RetryScheduled lastRetry;
  /** The window's latest wait for a resource pool, and whether its latest attempt was throttled. */
  TaskJournal.PoolWaited poolWait;
  boolean throttledLast;
  int leaseExtensions;
  Instant succeededAt;
  String downtime;
  boolean manualRetry;
  WindowWaiting waiting;
  WaitSatisfied released;
  boolean releasePending;
  String conditionError;
  long eventsReceived;
  long eventsDuplicated;
  String firstEventId;
  String lastEventId;
  final long firstSeq;
  final boolean truncated;
  /** Whether the window's first events were deleted by retention: it is told from its first event that is left. */
  boolean adopted;
  boolean seen;
  /** The window explained, folded by {@link Evolve}: this window only, all of it. */
  State own = State.empty(1);
  /** The task, folded by {@link Evolve} (its running windows; done ones leave early), for the whole journal. */
  State task = State.empty(1);
  /** The index in {@link #events} of the event being told. */
  int current;
  /** Whether the task is folded: only the whole journal of a window skipped for PREVIOUS_RUNNING needs it. */
  final boolean foldTask;
  /** The journal's summary when {@link #events} are only what a {@link Digest} kept; null for the whole journal. */
  final Digest digest;

  // the event being told, as its narrator reads it (set by at)
  /** The event being told. */
  AuditEvent event;
  /** When it happened. */
  Instant at;
  /** The explained window's state before it; null for a task-level event or the window's first. */
  WindowState before;
  /** The window's status before it, or null. */
  InstanceStatus from;
  /** The window that was running at this event, as the fold holds it: what a PREVIOUS_RUNNING skip names. */
  WindowState other;

  Explainer(String taskId, List<AuditEvent> events, String window, Digest digest) {
    this.taskId = Objects.requireNonNull(taskId, "taskId");
    this.events = List.copyOf(events);
    this.window = Objects.requireNonNull(window, "window");
    this.digest = digest;
    if (digest != null) {
      this.zone = digest.read == 0 && digest.registered == null ? ZoneOffset.UTC : digest.zone;
      this.firstSeq = digest.read == 0 ? 1 : digest.firstSeq;
    } else {
      this.zone = this.events.isEmpty() ? ZoneOffset.UTC : this.events.get(this.events.size() - 1).zone();
      this.firstSeq = this.events.isEmpty() ? 1 : this.events.get(0).sequenceNr();
    }
    this.truncated = firstSeq > 1;
    if (digest != null && digest.registered != null) { // the trigger's registration: ahead of any SpecDefined of the task's own
      this.spec = digest.registeredSpec;
      this.registeredAt = digest.registered.at();
    }
    this.foldTask = digest == null && this.events.stream().anyMatch(a -> a.isAbout(window)
        && a.event() instanceof TaskJournal.WindowEvent we && previousRunningSkip(we) != null);
  }

  Explanation run() {
    AuditEvent previous = null; // the latest event of an earlier write (an earlier instant) than the current one
    AuditEvent last = null;
    for (current = 0; current < events.size(); current++) {
      AuditEvent a = events.get(current);
      if (last != null && last.at() != null && a.at() != null && last.at().isBefore(a.at())) {
        previous = last;
      }
      if (a.event() instanceof TaskJournal.Event e) {
        boolean about = a.isAbout(window) && e instanceof TaskJournal.WindowEvent;
        boolean adopting = false;
        if (!about && isRangeEvent(e)) {
          rangeEvents.add(a);
        }
        if (about) {
          adopting = about(a, (TaskJournal.WindowEvent) e, previous);
        } else if (!(e instanceof TaskJournal.WindowEvent)) {
          at(a, null, null);
          AuditKinds.narrate(this, e);
        }
        if (foldTask) {
          task = Evolve.apply(task, e, TASK_HOT, Evolve.Violations.IGNORE);
        }
        if (about) {
          own = Evolve.apply(own, e, KEEP_ALL, Evolve.Violations.IGNORE);
          if (adopting) {
            own = Evolve.adopt(own, (TaskJournal.WindowEvent) e, KEEP_ALL);
          }
        }
      }
      last = a;
    }
    if (!seen) {
      Explanation ranged = inSkipRange();
      return ranged != null ? ranged : unknown();
    }
    WindowState w = own.windows().get(window);
    if (w != null && adopted) {
      String status = w.status().name();
      return new Explanation(taskId, window, status, shorten(status.toLowerCase(java.util.Locale.ROOT)
          .replace('_', ' ') + " as far as the journal goes: the window's earlier events were deleted by retention (the "
          + "task's journal now starts at seq " + firstSeq + ")" + (lastError == null ? "" : "; last error: " + lastError)),
          steps);
    }
    if (w == null) {
      return new Explanation(taskId, window, NO_SUCH_WINDOW, "no record: the journal's events about window " + window
          + " create no instance (they follow its archiving)", steps);
    }
    return new Explanation(taskId, window, w.status().name(), shorten(WindowVerdict.verdict(this, w)), steps);
  }

  /**
   * One event of the explained window, told with the window's state before it ({@link Evolve}'s
   * fold). Returns whether the window is to be taken at the event's word ({@link Evolve#adopt}):
   * its first events were deleted by retention, and the journal's story goes on from this one.
   */
  private boolean about(AuditEvent a, TaskJournal.WindowEvent we, AuditEvent previous) {
    WindowState before = own.windows().get(window);
    if (!seen) {
      seen = true;
      downtime = gap(digest == null ? previous
          : window.equals(digest.window) ? digest.previousAtFirst : digest.previousAtRange.get(window), a, we);
    }
    WindowState other = digest == null ? previousRunning(task, we) : digest.runningAtSkip.get(a.sequenceNr());
    InstanceStatus from = before == null ? null : before.status();
    InstanceStatus to = we.statusAfter(from);
    boolean adopting = before == null && truncated && to != null && !Transition.isAllowed(null, to);
    if (adopted || adopting) {
      // The window's first events were deleted by retention: told as far as the journal goes.
      if (!adopted) {
        step(a.at(), "The window's earlier events were deleted by retention (the task's journal now starts at seq "
            + firstSeq + "); its history goes on from here.");
        adopted = true;
      }
      at(a, null, other);
    } else if (!Transition.allows(from, we)) {
      step(a.at(), "The journal holds a " + a.type() + " event the transition table refuses ("
          + (from == null ? "NEW" : from) + " -> " + to + "): the window kept its status.");
      return false;
    } else {
      at(a, before, other);
    }
    AuditKinds.narrate(this, we);
    return adopting;
  }


  /** Sets the event being told, for its narrator. */
  void at(AuditEvent event, WindowState before, WindowState other) {
    this.event = event;
    this.at = event.at();
    this.before = before;
    this.from = before == null ? null : before.status();
    this.other = other;
  }

  boolean open(State state) {
    WindowState w = state.windows().get(window);
    return w != null && w.status().isActive();
  }

  /** The events coalesced into the window, one step updated in place while nothing else happens between them. */
  void coalesced(Instant at) {
    String text = "Coalesced " + eventsText() + ".";
    Step last = steps.isEmpty() ? null : steps.get(steps.size() - 1);
    if (last != null && last.text().startsWith("Coalesced ")) {
      steps.set(steps.size() - 1, new Step(at, localIso(at), text));
    } else {
      step(at, text);
    }
  }

  /** e.g. {@code 10000 events (2000 distinct ids, 8000 duplicates), first id X, last id Y}. */
  String eventsText() {
    long all = eventsReceived + eventsDuplicated;
    return all + (all == 1 ? " event" : " events") + " (" + eventsReceived + (eventsReceived == 1 ? " distinct id, "
        : " distinct ids, ") + eventsDuplicated + (eventsDuplicated == 1 ? " duplicate)" : " duplicates)")
        + (firstEventId == null ? "" : ", first id " + firstEventId + ", last id " + lastEventId);
  }

  /** The window's jitter offset by the task's spec; zero without jitter. */
  Duration jitterOffset() {
    if (spec == null || spec.schedule() == null || spec.schedule().jitter() == null) {
      return Duration.ZERO;
    }
    return io.almanac.schedule.Jitter.offset(taskId, window, spec.schedule().jitter());
  }

  /** Why nothing happened between the task's previous event and the window's first one, if the journal shows it. */
  private String gap(AuditEvent previous, AuditEvent first, TaskJournal.WindowEvent e) {
    Placed placed = AuditKinds.placed(e);
    Instant due = placed == null ? null : placed.dueAt();
    if (due != null && dueDate == null) {
      dueDate = local(due).toLocalDate();
    }
    if (due == null || first.at() == null || Duration.between(due, first.at()).compareTo(RESTART_SHOWN) <= 0) {
      return null; // on time: no gap to explain
    }
    boolean late = !Rules.onTime(due, first.at(), ON_TIME);
    if (previous == null || previous.at() == null) {
      return late ? "the task's journal has no earlier event" : null;
    }
    WriterStamp was = previous.writer();
    WriterStamp now = first.writer();
    if (was != null && now != null && !was.nodeIncarnation().equals(now.nodeIncarnation())) {
      if (node(null, was).equals(node(null, now))) {
        return "its node restarted between " + time(previous.at()) + " and " + time(first.at()) + " (the task's journal "
            + "was written by " + node(null, was) + " until then and by a new incarnation of it after)";
      }
      return "its node was down or replaced between " + time(previous.at()) + " and " + time(first.at()) + " (the task's "
          + "journal was written by " + node(null, was) + " until then and by " + node(null, now)
          + " after: a restart or a failover)";
    }
    if (late && previous.at().isBefore(due)) {
      return "the task's journal has no event from " + time(previous.at()) + " to " + time(first.at())
          + " (the node was down, the trigger behind, or the clock stepped)";
    }
    return null;
  }


  /**
   * The explanation of a window with no event of its own that a skip range accounts for
   * (docs/skip-ranges.md): one of its windows, skipped or missed for the range's reason; null when
   * no range does (or its due time cannot be computed).
   */
  private Explanation inSkipRange() {
    if (rangeEvents.isEmpty() || spec == null) {
      return null;
    }
    Optional<Instant> due;
    try {
      TaskSchedule schedule = Schedules.of(spec.toSpec());
      Optional<Instant> guess = guessStart(window, zone);
      due = guess.isEmpty() ? Optional.empty() : dueOf(schedule, guess.get()).map(DueWindow::dueAt);
    } catch (RuntimeException e) {
      return null;
    }
    if (due.isEmpty()) {
      return null;
    }
    Instant d = due.get();
    for (int i = 0; i < rangeEvents.size(); i++) {
      AuditEvent a = rangeEvents.get(i);
      io.almanac.journal.SkipRange r = null;
      if (a.event() instanceof TaskJournal.WindowsSkipped x) {
        r = x.range();
      } else if (a.event() instanceof TaskJournal.SkipRangeOpened x) {
        r = x.range();
        for (int j = i + 1; j < rangeEvents.size(); j++) {
          if (rangeEvents.get(j).event() instanceof TaskJournal.SkipRangeClosed c && c.window().equals(x.window())) {
            r = r.closed(c.lastWindow(), c.lastStart(), c.lastDue(), c.count(), c.at());
            break;
          }
        }
      }
      if (r == null || !r.covers(d)) {
        continue;
      }
      boolean missed = r.outcome() == InstanceStatus.MISSED;
      String of = r.open() ? "one of the windows from " + r.firstWindow() + " on, recorded as one skip range that is still"
          + " open (no event of its own)"
          : "one of " + r.count() + " windows from " + r.firstWindow() + " to " + r.lastWindow()
              + ", recorded as one skip range (no event of its own)";
      // told as its range's first window is: the same decision, for the same reason
      Explanation first = new Explainer(taskId, events, r.firstWindow(), digest).run();
      String base = first.verdict();
      int cut = base == null ? -1 : base.indexOf("; the first ");
      if (cut > 0) {
        base = base.substring(0, cut);
      }
      if (base == null || !first.known()) {
        String why = missed ? ScheduleNarrator.missed(this, new WindowMissed(window, null, null, d, r.missReason(), r.detail(), r.openedAt()))
            : ScheduleNarrator.skipped(this, r.skipReason(), r.detail(), null);
        base = (missed ? "missed" : "skipped") + ": " + why;
      }
      steps.addAll(first.steps());
      step(d, "Due " + time(d) + " " + zone.getId() + ", this window was " + (missed ? "missed" : "skipped") + " for the same"
          + " reason (" + r.reason() + "): " + of + ".");
      return new Explanation(taskId, window, r.outcome().name(), shorten(base + "; " + of), steps);
    }
    return null;
  }

  /** The explanation of a window the journal has no record of. */
  private Explanation unknown() {
    String verdict;
    List<String> nearest = nearest();
    String near = nearest.isEmpty() ? "the task has no windows yet" : "its nearest windows are " + String.join(", ", nearest);
    String why = neverDue();
    verdict = "no such window: the task has no record of window " + window + "; " + why + "; " + near;
    if (registeredAt != null) {
      step(registeredAt, "The task was registered at " + dateTime(registeredAt) + " " + zone.getId()
          + (spec == null ? "" : " (" + specText(spec) + ")") + ".");
    }
    if (removedAt != null) {
      step(removedAt, "The task was removed at " + dateTime(removedAt) + ".");
    }
    return new Explanation(taskId, window, NO_SUCH_WINDOW, verdict, steps);
  }

  private String neverDue() {
    if (spec == null) {
      return "the task has no spec in its journal";
    }
    TaskSchedule schedule;
    try {
      schedule = Schedules.of(spec.toSpec());
    } catch (RuntimeException e) {
      return "its schedule cannot be computed (" + e.getMessage() + ")";
    }
    Optional<Instant> guess = guessStart(window, zone);
    if (guess.isEmpty()) {
      return "'" + window + "' is not a key its window spec '" + spec.window() + "' makes (keys look like "
          + example(schedule) + ")";
    }
    Optional<DueWindow> due = dueOf(schedule, guess.get());
    if (due.isEmpty() && spec.schedule() != null && (spec.schedule().from() != null || spec.schedule().until() != null)) {
      Optional<DueWindow> unbounded;
      try {
        unbounded = dueOf(Schedules.unbounded(spec.toSpec()), guess.get());
      } catch (RuntimeException e) {
        unbounded = Optional.empty();
      }
      if (unbounded.isPresent()) {
        return "its crons fire then (" + dateTime(unbounded.get().dueAt()) + " " + zone.getId() + ") but that is outside"
            + " the task's bounds" + (spec.schedule().from() == null ? "" : " from " + spec.schedule().from())
            + (spec.schedule().until() == null ? "" : " until " + spec.schedule().until())
            + ": no window fires outside them";
      }
    }
    if (due.isEmpty()) {
      return "its schedule (" + specText(spec) + ") does not fire in that window";
    }
    Instant at = due.get().dueAt();
    if (registeredAt != null && at.isBefore(registeredAt)) {
      return "it was due " + dateTime(at) + " " + zone.getId() + ", before the task was registered at "
          + dateTime(registeredAt) + ", and windows due before a task's registration are not fired";
    }
    if (removedAt != null && !at.isBefore(removedAt)) {
      return "it is due " + dateTime(at) + " " + zone.getId() + ", after the task was removed at " + dateTime(removedAt);
    }
    Instant last = digest != null ? digest.lastAt : TaskHistory.lastAt(events);
    if (last != null && at.isAfter(last)) {
      return "it is due " + dateTime(at) + " " + zone.getId() + ", after the journal's last event ("
          + dateTime(last) + "): not due yet";
    }
    return "it was due " + dateTime(at) + " " + zone.getId() + " but the journal has no event of it (its events were "
        + "deleted by retention, or the trigger has not fired it yet)";
  }

  /** The first window of the schedule whose key is this window's, near its guessed start. */
  private Optional<DueWindow> dueOf(TaskSchedule schedule, Instant start) {
    try {
      // inside the try: a key near Instant's limits (e.g. -1000000000-01-01T00:00:00Z) cannot be moved by hours
      Instant cursor = start.minus(Duration.ofHours(2)).minusNanos(1);
      Instant until = start.plus(Duration.ofDays(2));
      for (int i = 0; i < 10_000; i++) {
        Optional<DueWindow> next = schedule.nextAfter(cursor);
        if (next.isEmpty() || next.get().dueAt().isAfter(until)) {
          return Optional.empty();
        }
        if (next.get().key().value().equals(window)) {
          return next;
        }
        cursor = next.get().dueAt();
      }
    } catch (RuntimeException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private String example(TaskSchedule schedule) {
    try {
      Instant from = registeredAt == null ? Instant.EPOCH : registeredAt;
      return schedule.nextAfter(from).map(d -> d.key().value()).orElse("(none)");
    } catch (RuntimeException e) {
      return "(none)";
    }
  }

  /** Up to two recorded windows before the asked one and one after, by start (by key when it cannot be placed). */
  private List<String> nearest() {
    Map<String, Instant> starts = new LinkedHashMap<>();
    if (digest != null) {
      starts.putAll(digest.starts);
    }
    for (AuditEvent a : digest != null ? List.<AuditEvent>of() : events) {
      Placed p = a.event() instanceof TaskJournal.Event e ? AuditKinds.placed(e) : null;
      if (p != null && a.window() != null) {
        starts.putIfAbsent(a.window(), p.start());
      }
    }
    Optional<Instant> guess = guessStart(window, zone);
    List<Map.Entry<String, Instant>> sorted = new ArrayList<>(starts.entrySet());
    sorted.sort(Map.Entry.comparingByValue(Comparator.naturalOrder()));
    List<String> before = new ArrayList<>();
    List<String> after = new ArrayList<>();
    for (Map.Entry<String, Instant> x : sorted) {
      boolean isBefore = guess.isPresent() ? x.getValue().isBefore(guess.get()) : x.getKey().compareTo(window) < 0;
      (isBefore ? before : after).add(x.getKey());
    }
    List<String> out = new ArrayList<>(before.subList(Math.max(0, before.size() - 2), before.size()));
    if (!after.isEmpty()) {
      out.add(after.get(0));
    }
    return out;
  }

  void step(Instant at, String text) {
    String t = shorten(text);
    while (t.endsWith("..")) {
      t = t.substring(0, t.length() - 1); // a reason that ends its own sentence
    }
    steps.add(new Step(at, localIso(at), t));
  }

  String localIso(Instant at) {
    return Timeline.local(at, zone);
  }

  ZonedDateTime local(Instant at) {
    return at.atZone(zone);
  }

  /** A time in the task's zone: the time of day on the window's due date, else with its date. */
  String time(Instant at) {
    if (at == null) {
      return "(unknown)";
    }
    ZonedDateTime z = local(at);
    return dueDate != null && z.toLocalDate().equals(dueDate) ? TIME.format(z) : DATE_TIME.format(z);
  }

  String dateTime(Instant at) {
    return at == null ? "(unknown)" : DATE_TIME.format(local(at));
  }
}
