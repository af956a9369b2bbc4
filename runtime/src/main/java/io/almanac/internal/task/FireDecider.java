package io.almanac.internal.task;

import io.almanac.CatchUpPolicy;
import io.almanac.Decision;
import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.RefusedException;
import io.almanac.RefusedException.Reason;
import io.almanac.RunKind;
import io.almanac.internal.protocol.TaskProtocol.CatchUpOutcome;
import io.almanac.internal.protocol.TaskProtocol.DueFire;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.journal.SkipRange;
import io.almanac.SkipReason;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import io.almanac.journal.Transition;
import io.almanac.journal.WindowState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Fire decisions as pure functions (R5-R7, R12, R14): a fire from the trigger is a duplicate, not
 * yet due, skipped while paused, missed outside the catch-up horizon, a catch-up decided by the
 * task's {@link CatchUpPolicy} (missed, or run as a backfill), or decided by the overlap policy.
 * Catch-ups decide each window alike, in one write. What follows a failed attempt is not decided
 * here: that is {@link AttemptLifecycle} and the task's retry policy (R11). INTERNAL API.
 *
 * <p>Skip ranges (docs/skip-ranges.md): windows of a task not run for the same reason in a row are
 * one record. An on-time streak's first window opens a range ({@link TaskJournal.SkipRangeOpened});
 * each further fire decided alike is covered (no event, acked at once); the first fire decided
 * otherwise closes it ({@link TaskJournal.SkipRangeClosed}) in its own write. A catch-up's windows
 * decided alike are one closed range ({@link TaskJournal.WindowsSkipped}). The count of a closed
 * range: the windows covered as this decider saw them since it opened the range (a repeated or
 * out-of-order fire is not counted twice); after a recovery (this decider's memory lost), the
 * schedule's windows due from the first window up to the one before the closing fire.
 */
final class FireDecider {

  /** How many fresh windows overlap SKIP lets wait for their start before it skips new ones. */
  static final int SKIP_QUEUE = 2;

  private final TaskSettings settings;

  FireDecider(TaskSettings settings) {
    this.settings = settings;
  }

  /** The last richer schedule decided by, compiled once per spec (docs/schedules.md); null until one is needed. */
  private ScheduleRules rules;

  /**
   * The rules of a spec's richer schedule.
   *
   * @param spec a spec with a schedule
   * @return its rules, compiled once per spec (again when its schedule or its zone changed)
   */
  ScheduleRules rules(io.almanac.journal.SpecRecord spec) {
    if (rules == null || !rules.from(spec)) {
      rules = ScheduleRules.of(spec);
    }
    return rules;
  }

  /**
   * An on-time or catch-up fire of one window.
   *
   * @param state the task's state, with its dead attempts already settled
   * @param cmd the fire
   * @param now the time
   * @return the events and the outcome, or a refusal
   */
  Decided<FireOutcome> fire(State state, Fire cmd, Instant now) {
    Decided<FireOutcome> d = decide(state, cmd, now);
    if (d.refused() || d.events().isEmpty()) {
      return d;
    }
    Skip skip = Skip.of(d);
    SkipRange open = state.openRange();
    boolean inOpen = open != null && !cmd.dueAt().isBefore(open.firstDue());
    if (skip != null && inOpen && skip.sameAs(open)) {
      covered(state, cmd.window().value(), cmd.start(), cmd.dueAt(), cmd.kind(), now);
      return Decided.reply(new FireOutcome(cmd.window().value(), skip.decision(), skip.text() + " (covered by the skip range from "
          + open.firstWindow() + ")"));
    }
    List<Event> events = new ArrayList<>();
    if (inOpen) {
      events.add(close(state, cmd.window().value(), cmd.dueAt(), now));
    }
    if (skip != null && (open == null || inOpen)) {
      events.add(skip.opened(now));
      streak = new Streak(cmd.window().value(), cmd.window().value(), cmd.start(), cmd.dueAt(), 1, true);
    } else {
      events.addAll(d.events());
    }
    return new Decided<>(events, d.reply(), null);
  }

  /**
   * A window an event made (R9): decided alone, never opening, covered by or closing a skip range.
   * Event windows are not a schedule's sequence: they come in any order of their event time, and a
   * window between two skipped ones may never have had an event, so a range "from A to B" would
   * claim windows that were never due and swallow a later event for one of them. Each skipped event
   * window is its own instance, with its events counted on it.
   *
   * @param state the task's state, with its dead attempts already settled
   * @param cmd the event window's fire (ON_TIME)
   * @param now the time
   * @return the events and the outcome, or a refusal
   */
  Decided<FireOutcome> fireAlone(State state, Fire cmd, Instant now) {
    return decide(state, cmd, now, false);
  }

  /** A fire decided window by window, before skip ranges (docs/skip-ranges.md) are applied by {@link #fire}. */
  private Decided<FireOutcome> decide(State state, Fire cmd, Instant now) {
    return decide(state, cmd, now, true);
  }

  /** A fire decided window by window; {@code ranged}: a schedule's window, which a skip range may account for. */
  private Decided<FireOutcome> decide(State state, Fire cmd, Instant now, boolean ranged) {
    Decided<FireOutcome> early = beforeOverlap(state, cmd, now, ranged);
    if (early != null) {
      return early;
    }
    Causes.BudgetExhausted spent = budgetSpent(state, now);
    if (spent != null) {
      return skip(cmd, spent, now); // a window of a spent day does not wait for its dependency or condition either
    }
    if (state.spec().gated()) {
      return waiting(state, cmd, RunKind.FIRST, now);
    }
    return overlap(state, cmd, now, false);
  }

  /**
   * The overlap policy's decision for a window that may run now (R6): a fresh fire, or a waiting
   * window whose dependency or condition was just met ({@code released}: then a skip ends its wait
   * with {@link TaskJournal.WaitEnded} instead of recording a new window).
   */
  Decided<FireOutcome> overlap(State state, Fire cmd, Instant now, boolean released) {
    Causes.BudgetExhausted spent = budgetSpent(state, now);
    if (spent != null) {
      return skipOrEnd(released, cmd, spent, now);
    }
    String key = cmd.window().value();
    List<WindowState> active = state.activeForOverlap();
    if (released) {
      // A window released late overlaps only windows that started before it: it never supersedes a newer one.
      active = active.stream().filter(w -> !w.key().equals(key) && w.start() != null && w.start().isBefore(cmd.start()))
          .toList();
    }
    switch (state.spec().overlap()) {
      case SKIP: {
        // Only an attempt that runs is "the previous run": a window queued but not started yet is not
        // (it starts before this one, one at a time), so a slow start costs no window (R6). The queue
        // is bounded: with SKIP_QUEUE fresh windows already waiting to start, the task is overloaded
        // and the new window is skipped rather than piled up.
        Optional<WindowState> running = active.stream().filter(w -> w.status() == InstanceStatus.RUNNING).findFirst();
        if (running.isPresent()) {
          WindowState r = running.get();
          return skipOrEnd(released, cmd, new Causes.PreviousRunning(r.key(), r.attempt(), r.leaseUntil()), now);
        }
        List<String> waiting = active.stream()
            .filter(w -> w.status() == InstanceStatus.PENDING && w.runKind() == RunKind.FIRST).map(WindowState::key).toList();
        return waiting.size() >= SKIP_QUEUE
            ? skipOrEnd(released, cmd, new Causes.StartQueueFull(waiting, SKIP_QUEUE), now)
            : scheduled(cmd, List.of(), now, released);
      }
      case BUFFER_ONE:
        for (WindowState w : active) {
          if (w.status() == InstanceStatus.PENDING && w.runKind() == RunKind.FIRST) {
            return skipOrEnd(released, cmd, new Causes.AlreadyWaiting(w.key()), now);
          }
        }
        return scheduled(cmd, List.of(), now, released);
      case ALLOW:
        return scheduled(cmd, List.of(), now, released);
      case CANCEL_PREVIOUS:
      default:
        List<Event> cancels = new ArrayList<>();
        for (WindowState w : active) {
          cancels.add(Transition.check(w.status(), new InstanceCancelled(w.key(), w.attempt(), "superseded by window " + key, now,
              TaskJournal.CancelCause.SUPERSEDED)));
        }
        return scheduled(cmd, cancels, now, released);
    }
  }

  /**
   * Windows due while the trigger was down: each decided as a catch-up fire (a duplicate, skipped
   * while paused, missed, or scheduled as a backfill), all in one write. An invalid window refuses
   * the whole command.
   *
   * @param state the task's state, with its dead attempts already settled
   * @param windows the windows
   * @param now the time
   * @return the events and one outcome per window, or a refusal
   */
  Decided<CatchUpOutcome> catchUp(State state, List<DueFire> windows, Instant now) {
    if (windows == null || windows.isEmpty()) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "windows", windows, "a catch-up names at least one window"));
    }
    List<Event> events = new ArrayList<>();
    List<FireOutcome> outcomes = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    SkipRange open = state.openRange();
    Run run = null; // the batch's windows decided alike so far, written as one range
    for (DueFire due : windows) {
      if (due == null) {
        return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "window", null, "a catch-up names windows"));
      }
      if (due.window() != null && !seen.add(due.window().value())) {
        outcomes.add(new FireOutcome(due.window().value(), Decision.DUPLICATE, "twice in one catch-up"));
        continue;
      }
      Decided<FireOutcome> d = beforeOverlap(state,
          new Fire(due.window(), due.start(), due.end(), due.dueAt(), FireKind.CATCH_UP, null), now, true);
      if (d.refused()) {
        return Decided.refuse(d.refusal());
      }
      FireOutcome outcome = d.reply().apply(state);
      Skip skip = Skip.of(d);
      boolean inOpen = open != null && !due.dueAt().isBefore(open.firstDue());
      if (skip != null && inOpen && skip.sameAs(open)) {
        covered(state, due.window().value(), due.start(), due.dueAt(), FireKind.CATCH_UP, now); // the open range goes on
        outcomes.add(outcome);
        continue;
      }
      if (skip != null && run != null && run.skip.sameAs(skip)) {
        run = run.plus(due); // one more window of the batch's range
        outcomes.add(outcome);
        continue;
      }
      if (!d.events().isEmpty()) {
        run = flush(run, events, now);
        if (inOpen) {
          events.add(close(state, due.window().value(), due.dueAt(), now));
          open = null;
        }
      }
      if (skip != null) {
        run = new Run(skip, due.window().value(), due.start(), due.dueAt(), 1);
      } else {
        events.addAll(d.events());
      }
      outcomes.add(outcome);
    }
    flush(run, events, now);
    return Decided.persist(events, new CatchUpOutcome(List.copyOf(outcomes)));
  }

  // Skip ranges (docs/skip-ranges.md)

  /**
   * The open skip range as this decider has seen it since it opened it (in memory only, never
   * persisted): the latest window it covered and how many windows it covers. Valid only while the
   * state's open range starts at {@link #first}; after a recovery (or a write that failed) it is
   * unknown and {@link #close} counts from the schedule.
   */
  private record Streak(String first, String lastWindow, Instant lastStart, Instant lastDue, long count, boolean whole) {}

  /** The batch's windows decided alike so far (a catch-up): its first window's event and its last. */
  private record Run(Skip skip, String lastWindow, Instant lastStart, Instant lastDue, long count) {
    Run plus(DueFire due) {
      return new Run(skip, due.window().value(), due.start(), due.dueAt(), count + 1);
    }
  }

  /** A decision not to run one window, as {@link #skip} or {@link #miss} wrote it. */
  private record Skip(Event event, InstanceStatus outcome, SkipReason skipReason, MissReason missReason, String window,
      Instant start, Instant end, Instant dueAt, String detail, String text) {

    /** @return the single skip or miss of a decision, or null when it decided otherwise */
    static Skip of(Decided<FireOutcome> d) {
      if (d.refused() || d.events().size() != 1) {
        return null;
      }
      if (d.events().get(0) instanceof FireSkipped f) {
        return new Skip(f, InstanceStatus.SKIPPED, f.reason(), null, f.window(), f.start(), f.end(), f.dueAt(), f.detail(),
            d.reply().apply(null).reason());
      }
      if (d.events().get(0) instanceof WindowMissed m) {
        return new Skip(m, InstanceStatus.MISSED, null, m.reason(), m.window(), m.start(), m.end(), m.dueAt(), m.detail(),
            d.reply().apply(null).reason());
      }
      return null;
    }

    boolean sameAs(SkipRange r) {
      return r.sameAs(outcome, skipReason, missReason);
    }

    boolean sameAs(Skip o) {
      return outcome == o.outcome && skipReason == o.skipReason && missReason == o.missReason;
    }

    Decision decision() {
      return outcome == InstanceStatus.MISSED ? Decision.MISSED : Decision.SKIPPED;
    }

    TaskJournal.SkipRangeOpened opened(Instant now) {
      return new TaskJournal.SkipRangeOpened(window, start, end, dueAt, outcome, skipReason, missReason, detail, now);
    }
  }

  /** What a window an open skip range covers tells (the meters: no event is written for it). */
  @FunctionalInterface
  interface CoverListener {
    /**
     * @param range the open range that covers it
     * @param kind on time or a catch-up
     * @param windows the range's windows so far, this one included, or 0 when not known (a recovery since it opened)
     * @param window the window covered
     * @param at when
     */
    void covered(SkipRange range, FireKind kind, long windows, String window, Instant at);
  }

  private Streak streak;
  private CoverListener onCovered = (r, k, n, w, t) -> { };

  /** @param listener told of each window an open skip range covers (no event is written for it) */
  void onCovered(CoverListener listener) {
    this.onCovered = listener;
  }

  /** The streak of the state's open range as this decider saw it, or null when it does not know it. */
  private Streak streakOf(State state) {
    SkipRange open = state.openRange();
    return open != null && streak != null && streak.first().equals(open.firstWindow()) ? streak : null;
  }

  /** Whether a window due then is one the open range already covered (an out-of-order or repeated fire). */
  private boolean coveredBefore(State state, Instant dueAt) {
    Streak k = streakOf(state);
    return k != null && !dueAt.isAfter(k.lastDue());
  }

  /** A window the open range covers: no event; the streak remembers it when it is the latest. */
  private void covered(State state, String window, Instant start, Instant dueAt, FireKind kind, Instant now) {
    SkipRange open = state.openRange();
    Streak k = streakOf(state);
    if (k == null) {
      k = new Streak(open.firstWindow(), null, null, null, 0, false); // not seen whole (a recovery since): the schedule counts at close
    }
    if (k.lastDue() == null || dueAt.isAfter(k.lastDue())) {
      streak = new Streak(k.first(), window, start, dueAt, k.count() + 1, k.whole());
    }
    onCovered.covered(open, kind, streak.whole() ? streak.count() : 0, window, now);
  }

  /**
   * The event that closes the state's open range just before a window decided otherwise. Its last
   * window and count are the streak's when this decider saw the range open and every window it
   * covered; otherwise (a recovery since) the schedule's windows due after the first and before
   * {@code beforeDue}, the first included.
   */
  private TaskJournal.SkipRangeClosed close(State state, String window, Instant beforeDue, Instant now) {
    SkipRange open = state.openRange();
    Streak k = streakOf(state);
    streak = null;
    if (k != null && k.whole()) {
      return new TaskJournal.SkipRangeClosed(open.firstWindow(), k.lastWindow(), k.lastStart(), k.lastDue(), k.count(), now,
          words(open));
    }
    // not seen whole: the schedule says which windows were due between the first and this one
    String last = open.firstWindow();
    Instant lastStart = open.firstStart();
    Instant lastDue = open.firstDue();
    long count = 1;
    try {
      TaskSchedule schedule = Schedules.of(state.spec().toSpec());
      Instant cursor = open.firstDue();
      Instant to = beforeDue.minusNanos(1);
      while (cursor.isBefore(to)) {
        List<DueWindow> due = schedule.dueBetween(cursor, to, 1000);
        for (DueWindow w : due) {
          last = w.key().value();
          lastStart = w.window().start();
          lastDue = w.dueAt();
          count++;
        }
        if (due.size() < 1000) {
          break;
        }
        cursor = due.get(due.size() - 1).dueAt();
      }
    } catch (RuntimeException e) {
      // a schedule that cannot be computed (an event-only task): the range is its first window and what was seen
      if (k != null && k.lastDue() != null) {
        return new TaskJournal.SkipRangeClosed(open.firstWindow(), k.lastWindow(), k.lastStart(), k.lastDue(), k.count() + 1,
            now, words(open));
      }
    }
    return new TaskJournal.SkipRangeClosed(open.firstWindow(), last, lastStart, lastDue, count, now, words(open));
  }

  /** The words of a range's first window's reason, as {@link io.almanac.journal.Evolve} gave it: {@code REASON: detail}. */
  private static String words(SkipRange r) {
    return r.reason() + ": " + r.detail();
  }

  /** Writes the batch's range: its one window's own event, or one closed range. */
  private static Run flush(Run run, List<Event> events, Instant now) {
    if (run == null) {
      return null;
    }
    Skip s = run.skip();
    if (run.count() == 1) {
      events.add(s.event());
    } else {
      events.add(new TaskJournal.WindowsSkipped(s.window(), s.start(), s.end(), s.dueAt(), run.lastWindow(), run.lastStart(),
          run.lastDue(), run.count(), s.outcome(), s.skipReason(), s.missReason(), s.detail(), now));
    }
    return null;
  }

  /**
   * Decides a fire up to its overlap policy: refused when invalid or not yet due, a duplicate when
   * the window exists (R5), skipped while paused, missed outside the horizon (R14), and a catch-up
   * fire entirely by the catch-up policy: missed, or scheduled as a backfill (R12). Null: an on-time fire, for the overlap
   * policy to decide.
   */
  private Decided<FireOutcome> beforeOverlap(State state, Fire cmd, Instant now, boolean ranged) {
    if (cmd.window() == null || cmd.start() == null || cmd.end() == null || cmd.dueAt() == null || cmd.kind() == null
        || cmd.end().isBefore(cmd.start())) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "fire", cmd.window(), "window, start <= end,"
          + " dueAt and kind are required (start " + cmd.start() + ", end " + cmd.end() + ", dueAt " + cmd.dueAt() + ")"));
    }
    String key = cmd.window().value();
    Optional<WindowState> existing = state.window(key);
    if (existing.isPresent() || state.archived(cmd.start())) {
      // A repeated fire is a hint the entity has already acted on (R5): no event, just the ack.
      String status = existing.map(w -> w.status().name()).orElse("ARCHIVED");
      return Decided.reply(new FireOutcome(key, Decision.DUPLICATE, "window exists: " + status));
    }
    Optional<SkipRange> range = ranged ? state.rangeOf(cmd.dueAt()) : Optional.empty();
    if (range.isPresent() && (!range.get().open() || coveredBefore(state, cmd.dueAt()))) {
      // a window a skip range already accounts for (a repeated or out-of-order fire): no event, just the ack (R5)
      return Decided.reply(new FireOutcome(key, Decision.DUPLICATE, "window in skip range: " + range.get().describe()));
    }
    if (cmd.dueAt().isAfter(now.plus(settings.maxClockSkew()))) {
      // A fire from the future would run a window early (R1): refuse it; the trigger fires it when due.
      return Decided.refuse(RefusedException.invalid(Reason.NOT_DUE, "dueAt", cmd.dueAt(), "window '" + key
          + "' is not due yet (now " + now + ")"));
    }
    if (state.spec().schedule() != null) {
      // a richer schedule: an excluded date, or a fire computed before the bounds changed (docs/schedules.md)
      Causes.SkipCause outside = rules(state.spec()).skipCause(cmd.dueAt());
      if (outside != null) {
        return skip(cmd, outside, now);
      }
    }
    if (state.paused()) {
      return skip(cmd, Causes.Paused.of(state), now);
    }
    CatchUpPolicy catchUp = state.spec().catchUp().toPolicy();
    if (!catchUp.withinHorizon(cmd.dueAt(), now)) {
      return miss(cmd, new Causes.OutsideHorizon(cmd.dueAt(), catchUp.horizon()), now);
    }
    if (cmd.kind() != FireKind.CATCH_UP) {
      return null;
    }
    if (!catchUp.allowsCatchUpAt(now, cmd.start())) {
      return miss(cmd, catchUp.mode() == CatchUpPolicy.Mode.NONE ? new Causes.NoCatchUp(cmd.dueAt())
          : new Causes.OutsideSpan(cmd.dueAt(), catchUp.span()), now);
    }
    Causes.BudgetExhausted spent = budgetSpent(state, now);
    if (spent != null) {
      return skip(cmd, spent, now);
    }
    if (state.spec().gated()) {
      return waiting(state, cmd, RunKind.BACKFILL, now);
    }
    return Decided.persist(List.of(new InstanceScheduled(key, cmd.start(), cmd.end(), cmd.dueAt(), RunKind.BACKFILL, now)),
        new FireOutcome(key, Decision.SCHEDULED, RunKind.BACKFILL.name()));
  }

  /**
   * Whether the task's budget for today (in its zone, as of {@code now}) is spent: null for a task
   * without a budget (nothing else is looked at) or with budget left. Pure: today's sums are the
   * state's ({@link io.almanac.journal.BudgetDay}); a new day starts afresh.
   */
  static Causes.BudgetExhausted budgetSpent(State state, Instant now) {
    Long budget = state.spec().budgetPerDayMicros();
    if (budget == null) {
      return null;
    }
    java.time.LocalDate today = io.almanac.journal.BudgetDay.dayOf(state.spec(), now);
    io.almanac.journal.BudgetDay day = state.budgetOn(today);
    return day.exhausted(budget) ? new Causes.BudgetExhausted(today, io.almanac.journal.BudgetDay.zoneOf(state.spec()),
        day.costMicros(), budget, day.raisedMicros()) : null;
  }

  /** A due window of a task with a dependency or condition: it waits until its deadline (R9). */
  private Decided<FireOutcome> waiting(State state, Fire cmd, RunKind kind, Instant now) {
    String key = cmd.window().value();
    // A wait is measured from when it begins: a catch-up window or a late event gets its whole wait too.
    Instant base = io.almanac.journal.Rules.onTime(cmd.dueAt(), now, settings.recentFireGrace()) ? cmd.dueAt() : now;
    Instant until = Gates.deadline(state.spec(), cmd.start(), cmd.end(), base);
    String what = Gates.waitingFor(state.spec());
    return Decided.persist(List.of(new TaskJournal.WindowWaiting(key, cmd.start(), cmd.end(), cmd.dueAt(), kind, what, until, now)),
        new FireOutcome(key, Decision.SCHEDULED, "WAITING for " + what + " until " + until));
  }

  private static Decided<FireOutcome> scheduled(Fire cmd, List<Event> before, Instant now, boolean released) {
    String key = cmd.window().value();
    List<Event> events = new ArrayList<>(before);
    events.add(new InstanceScheduled(key, cmd.start(), cmd.end(), cmd.dueAt(), RunKind.FIRST, now));
    return Decided.persist(events, new FireOutcome(key, Decision.SCHEDULED, RunKind.FIRST.name()));
  }

  private static Decided<FireOutcome> skipOrEnd(boolean released, Fire cmd, Causes.SkipCause cause, Instant now) {
    if (!released) {
      return skip(cmd, cause, now);
    }
    String key = cmd.window().value();
    return Decided.persist(List.of(new TaskJournal.WaitEnded(key, cause.reason(), cause.detail(), now)),
        new FireOutcome(key, Decision.SKIPPED, cause.text()));
  }

  private static Decided<FireOutcome> skip(Fire cmd, Causes.SkipCause cause, Instant now) {
    String key = cmd.window().value();
    return Decided.persist(List.of(new FireSkipped(key, cmd.start(), cmd.end(), cmd.dueAt(), cause.reason(), cause.detail(),
        now)), new FireOutcome(key, Decision.SKIPPED, cause.text()));
  }

  private static Decided<FireOutcome> miss(Fire cmd, Causes.MissCause cause, Instant now) {
    String key = cmd.window().value();
    return Decided.persist(List.of(new WindowMissed(key, cmd.start(), cmd.end(), cmd.dueAt(), cause.reason(), cause.detail(),
        now)), new FireOutcome(key, Decision.MISSED, cause.text()));
  }
}
