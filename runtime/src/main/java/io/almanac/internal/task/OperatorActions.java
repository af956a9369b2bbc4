package io.almanac.internal.task;

import io.almanac.Expecting;
import io.almanac.IllegalTransitionException;
import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.RefusedException;
import io.almanac.RefusedException.Reason;
import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.Window;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol.BackfillReport;
import io.almanac.internal.protocol.TaskProtocol.CancelReport;
import io.almanac.internal.protocol.TaskProtocol.FireOutcome;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceResolved;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.TaskPaused;
import io.almanac.journal.TaskJournal.TaskRemoved;
import io.almanac.journal.TaskJournal.TaskResumed;
import io.almanac.journal.Transition;
import io.almanac.journal.WindowState;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.TaskSchedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.pekko.Done;

/**
 * Operator actions as pure decisions (R15, R31): define, pause, resume, run now, backfill a range,
 * retry, resolve and cancel a window, and remove the task. Each is checked against the transition
 * table before it is decided; a refusal stores nothing. INTERNAL API.
 */
final class OperatorActions {

  private final String taskId;
  private final TaskSettings settings;

  OperatorActions(String taskId, TaskSettings settings) {
    this.taskId = taskId;
    this.settings = settings;
  }

  /**
   * Define or change the task's spec.
   *
   * @param state the task's state
   * @param sent the spec as the command carries it
   * @param now the time
   * @return the definition (none when unchanged), or a refusal naming the field
   */
  Decided<Done> define(State state, SpecRecord sent, Instant now) {
    if (sent == null) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "spec", null, "a task needs a spec"));
    }
    TaskSpec spec;
    try {
      spec = sent.toSpec().validate();
    } catch (InvalidSpecException e) {
      return Decided.refuse(e);
    }
    if (!taskId.equals(spec.id())) {
      return Decided.refuse(new InvalidSpecException("id", spec.id(), "this entity is task '" + taskId + "'"));
    }
    SpecRecord record = SpecRecord.of(spec);
    if (record.equals(state.spec()) && !state.removed()) {
      return Decided.reply(Done.getInstance());
    }
    return Decided.persist(List.of(new SpecDefined(record, now)), Done.getInstance());
  }

  /** The reason recorded on the windows a removal cancels. */
  static final String REMOVED_REASON = "task removed";

  /**
   * Remove the task (R31): its PENDING, RUNNING and RETRY_WAIT windows are cancelled, each with
   * the reason {@value #REMOVED_REASON} (a running job is then cancelled as for an operator's
   * cancel), and {@link TaskRemoved} is recorded after them in the same write. Its history stays:
   * done windows and the intervention queue keep their status. A task already removed is
   * acknowledged with nothing written, so a removal can be repeated safely.
   *
   * @param state the task's state
   * @param now the time
   * @return the cancellations and the removal, or nothing when already removed
   */
  Decided<Done> remove(State state, Instant now) {
    if (state.removed()) {
      return Decided.reply(Done.getInstance());
    }
    List<Event> events = new ArrayList<>();
    for (WindowState w : state.table().live()) {
      InstanceCancelled cancel = new InstanceCancelled(w.key(), w.attempt(), REMOVED_REASON, now, TaskJournal.CancelCause.TASK_REMOVED);
      if ((w.status().isActive() || w.status() == InstanceStatus.WAITING) && Transition.allows(w.status(), cancel)) {
        events.add(cancel);
      }
    }
    events.add(new TaskRemoved(now));
    return Decided.persist(events, Done.getInstance());
  }

  /**
   * @param state the removed task's state
   * @param <R> the reply's type
   * @return the refusal of any command but a query, a new definition or a repeated removal
   */
  <R> Decided<R> refuseRemoved(State state) {
    return Decided.refuse(Reason.REMOVED, "task '" + taskId + "' was removed at " + state.removedAt()
        + ": its history answers queries; register it again to define it anew");
  }

  Decided<Done> pause(State state, Instant now) {
    return pause(state, null, null, now);
  }

  /** Pause, recording who asked ({@code actor}) and why ({@code note}); either may be null. */
  Decided<Done> pause(State state, String actor, String note, Instant now) {
    Decided<Done> tooLong = noteTooLong(note);
    if (tooLong != null) {
      return tooLong;
    }
    return state.paused() ? Decided.reply(Done.getInstance())
        : Decided.persist(List.of(new TaskPaused(now, null, null, actor, note)), Done.getInstance());
  }

  Decided<Done> resume(State state, Instant now) {
    return resume(state, null, null, List.of(), now);
  }

  /** Resume without an actor, with the retries that fell due while paused ({@link #resume(State, String, String, List, Instant)}). */
  Decided<Done> resume(State state, List<Event> dueRetries, Instant now) {
    return resume(state, null, null, dueRetries, now);
  }

  /**
   * Resume a paused task ({@link PauseScope}): its PENDING windows are offered again after the write.
   *
   * @param state the task's state
   * @param actor who asked, or null
   * @param note why, or null
   * @param dueRetries the retries that fell due while it was paused, moved to PENDING in the same write
   * @param now the time
   * @return the resume (nothing for a task that is not paused), or a refusal of a note too long
   */
  Decided<Done> resume(State state, String actor, String note, List<Event> dueRetries, Instant now) {
    Decided<Done> tooLong = noteTooLong(note);
    if (tooLong != null) {
      return tooLong;
    }
    if (!state.paused()) {
      return Decided.reply(Done.getInstance());
    }
    List<Event> events = new ArrayList<>();
    events.add(new TaskResumed(now, actor, note));
    events.addAll(dueRetries);
    return Decided.persist(events, Done.getInstance());
  }

  /** The refusal of an operator's note over the reason bound (naming {@code note}), or null. */
  private <R> Decided<R> noteTooLong(String note) {
    return tooLong("note", note);
  }

  /**
   * The one check of an operator's text (a note, a reason) against {@code almanac.task.max-reason-length}.
   *
   * @param field the call's parameter the text is, named in the refusal
   * @param text the text, or null (nothing to check)
   * @return the refusal, or null when it fits
   */
  private <R> Decided<R> tooLong(String field, String text) {
    if (text != null && text.length() > settings.maxReasonLength()) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, field, Texts.abbreviate(text),
          text.length() + " characters, at most " + settings.maxReasonLength() + " (almanac.task.max-reason-length)"));
    }
    return null;
  }

  /**
   * Run the window that contains now, as a manual run (a one-shot task's one window, whenever).
   *
   * @param state the task's state
   * @param schedule the task's schedule
   * @param now the time
   * @return the run (or a skip recorded for a done window) and its outcome
   */
  Decided<FireOutcome> runNow(State state, TaskSchedule schedule, Instant now) {
    return runNow(state, schedule, null, null, now);
  }

  /** Run now, recording who asked ({@code actor}) and why ({@code note}) on the window's schedule; either may be null. */
  Decided<FireOutcome> runNow(State state, TaskSchedule schedule, String actor, String note, Instant now) {
    Decided<FireOutcome> tooLong = noteTooLong(note);
    if (tooLong != null) {
      return tooLong;
    }
    if (state.spec().schedule() != null) {
      Causes.OutOfBounds outside = ScheduleRules.of(state.spec()).outOfBounds(now);
      if (outside != null) {
        // an operator's run is not a way past the schedule's bounds: widen them to run it (docs/schedules.md)
        return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, outside.bound(), outside.value(),
            "task '" + taskId + "' runs only within its bounds: now " + now + " is " + outside.detail()));
      }
    }
    Window window = schedule.windowAt(now);
    List<Event> events = new ArrayList<>();
    FireOutcome outcome = run(state, window, now, RunKind.MANUAL, actor, note, now, events);
    return Decided.persist(events, outcome);
  }

  /**
   * Schedule every window due in (from, to] as a backfill.
   *
   * @param state the task's state
   * @param schedule the task's schedule
   * @param from the range's start, exclusive
   * @param to the range's end, inclusive
   * @param now the time
   * @return the runs and one outcome per window, or a refusal
   */
  Decided<BackfillReport> backfill(State state, TaskSchedule schedule, Instant from, Instant to, Instant now) {
    return backfill(state, schedule, from, to, null, null, now);
  }

  /** Backfill, recording who asked ({@code actor}) and why ({@code note}) on each window it schedules; either may be null. */
  Decided<BackfillReport> backfill(State state, TaskSchedule schedule, Instant from, Instant to, String actor, String note,
      Instant now) {
    Decided<BackfillReport> tooLong = noteTooLong(note);
    if (tooLong != null) {
      return tooLong;
    }
    if (from == null || to == null || !from.isBefore(to)) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "from", from, "must be before to '" + to + "'"));
    }
    if (to.isAfter(now)) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "to", to, "a backfill covers past windows only (now " + now + ")"));
    }
    int max = settings.maxBackfillWindows();
    // One entry per window: several firings may share a window (an hourly cron with daily windows).
    Map<String, DueWindow> windows = new LinkedHashMap<>();
    Instant cursor = from;
    while (windows.size() <= max) {
      List<DueWindow> due = schedule.dueBetween(cursor, to, max + 1);
      for (DueWindow d : due) {
        windows.putIfAbsent(d.key().value(), d);
      }
      if (due.size() <= max) {
        break;
      }
      cursor = due.get(due.size() - 1).dueAt();
    }
    if (windows.size() > max) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "to", to, "the range from " + from
          + " covers more than " + max + " windows (almanac.task.max-backfill-windows); ask in parts"));
    }
    List<Event> events = new ArrayList<>();
    List<FireOutcome> outcomes = new ArrayList<>();
    ScheduleRules rules = state.spec().schedule() == null ? null : ScheduleRules.of(state.spec());
    for (DueWindow d : windows.values()) {
      Causes.Excluded excluded = rules == null ? null : rules.excluded(d.dueAt());
      if (excluded != null && state.window(d.key().value()).isEmpty() && !state.archived(d.window().start())) {
        // a backfill runs the schedule's windows: an excluded date is recorded SKIPPED as the trigger would
        String key = d.key().value();
        events.add(new FireSkipped(key, d.window().start(), d.window().end(), d.dueAt(), excluded.reason(), excluded.detail(),
            now));
        outcomes.add(new FireOutcome(key, io.almanac.Decision.SKIPPED, excluded.text()));
        continue;
      }
      outcomes.add(run(state, d.window(), d.dueAt(), RunKind.BACKFILL, actor, note, now, events));
    }
    return Decided.persist(events, new BackfillReport(List.copyOf(outcomes)));
  }

  /** An operator's run of one window: new, reopened, or recorded as existing (R7, R31), as {@link OperatorRun} decides. */
  private static FireOutcome run(State state, Window window, Instant dueAt, RunKind kind, String actor, String note,
      Instant now, List<Event> events) {
    String key = window.key().value();
    WindowState w = state.window(key).orElse(null);
    OperatorRun.Decided d = OperatorRun.decide(w == null ? null : w.status(), state.archived(window.start()), kind);
    switch (d.action()) {
      case SCHEDULE:
        events.add(new InstanceScheduled(key, window.start(), window.end(), dueAt, kind, now, actor, note));
        break;
      case REOPEN:
        events.add(Transition.check(w.status(), new InstanceScheduled(key, w.start(), w.end(), w.dueAt(), kind, now, actor,
            note)));
        break;
      case RECORD_EXISTING:
        events.add(new FireSkipped(key, w.start(), w.end(), w.dueAt(), io.almanac.SkipReason.WINDOW_EXISTS, d.skipDetail(), now));
        break;
      case ARCHIVED:
      default:
        break;
    }
    return new FireOutcome(key, d.decision(), d.reason());
  }

  Decided<Done> retry(State state, WindowKey window, Instant now) {
    return retry(state, window, null, null, now);
  }

  /** Retry, recording who asked ({@code actor}) and why ({@code note}); either may be null. */
  Decided<Done> retry(State state, WindowKey window, String actor, String note, Instant now) {
    return retry(state, window, actor, note, null, now);
  }

  /**
   * Retry, as the operator decided it on the window's state {@code expecting} (null: any). The
   * expectation is checked first, so a stale retry is refused as stale whatever the window is now.
   */
  Decided<Done> retry(State state, WindowKey window, String actor, String note, Expecting expecting, Instant now) {
    Decided<Done> tooLong = noteTooLong(note);
    if (tooLong != null) {
      return tooLong;
    }
    WindowState w = state.windows().get(window.value());
    Decided<Done> stale = stale(w, window, expecting);
    if (stale != null) {
      return stale;
    }
    if (w != null && !OperatorRun.REOPENABLE.contains(w.status())) {
      return Decided.refuse(Reason.CONFLICT, "window '" + w.key() + "' is " + w.status()
          + ": only FINAL_FAILED, CANCELLED, SKIPPED or MISSED windows can be retried by an operator");
    }
    return transition(state, window, x -> new InstanceScheduled(x.key(), x.start(), x.end(), x.dueAt(), RunKind.MANUAL, now,
        actor, note), null, null, null);
  }

  /**
   * The rule of concurrent operator actions on one window: an action carries the window's state it
   * was decided on ({@link Expecting}: its version, its status, or both) and takes effect only if the
   * window is still in that state when the task, its single writer, decides it; else it is refused
   * ({@link Reason#STALE_WINDOW}) and nothing is stored. Each taking effect changes the window's
   * status and so its version: of actions that observed one version, at most one takes effect.
   *
   * @param w the window now, or null when it has no instance in the hot state (refused as unknown by
   *     the caller, not here)
   * @param window its key
   * @param expecting what the action expects, or null (anything: no check)
   * @return the refusal of a stale action, or null when it may go on
   */
  static <R> Decided<R> stale(WindowState w, WindowKey window, Expecting expecting) {
    if (expecting == null || w == null || expecting.holds(w.status(), w.version())) {
      return null;
    }
    return Decided.refuse(new RefusedException(Reason.STALE_WINDOW, "expecting", expecting.toString(), "window '"
        + window.value() + "' is at version " + w.version() + " (" + w.status() + "), not the " + expecting
        + " this action was decided on: nothing was changed; read the window again and decide anew"));
  }

  Decided<Done> resolve(State state, WindowKey window, String note, Instant now) {
    return resolve(state, window, note, null, now);
  }

  /** Resolve, recording who did ({@code actor}, or null). */
  Decided<Done> resolve(State state, WindowKey window, String note, String actor, Instant now) {
    return resolve(state, window, note, actor, null, now);
  }

  /** Resolve, as decided on the window's state {@code expecting} (null: any; see {@link #stale}). */
  Decided<Done> resolve(State state, WindowKey window, String note, String actor, Expecting expecting, Instant now) {
    String text = note == null ? "resolved by an operator" : note;
    return transition(state, window, w -> new InstanceResolved(w.key(), text, now, actor), "note", text, expecting);
  }

  Decided<Done> cancel(State state, WindowKey window, String reason, Instant now) {
    return cancel(state, window, reason, null, now);
  }

  /** Cancel, recording who did ({@code actor}, or null). */
  Decided<Done> cancel(State state, WindowKey window, String reason, String actor, Instant now) {
    return cancel(state, window, reason, actor, null, now);
  }

  /** Cancel, as decided on the window's state {@code expecting} (null: any; see {@link #stale}). */
  Decided<Done> cancel(State state, WindowKey window, String reason, String actor, Expecting expecting, Instant now) {
    String text = reason == null ? "cancelled by an operator" : reason;
    return transition(state, window, w -> new InstanceCancelled(w.key(), w.attempt(), text, now,
        TaskJournal.CancelCause.OPERATOR, actor), "reason", text, expecting);
  }

  /** The transition an operator asked for; {@code field} names {@code text} in a refusal (the call's own parameter). */

  /** The statuses of a window none of whose attempts started yet, which a bulk cancel covers. */
  static final java.util.Set<InstanceStatus> NOT_STARTED =
      java.util.EnumSet.of(InstanceStatus.PENDING, InstanceStatus.RETRY_WAIT, InstanceStatus.WAITING);

  /**
   * Cancel every window that has not started (PENDING, RETRY_WAIT or WAITING) in a range and of a
   * run kind, all in one write (one InstanceCancelled per window, as {@link #cancel} writes for one).
   * A running attempt is left alone: {@link #cancel} stops one.
   *
   * @param state the task's state
   * @param from the range's start, exclusive, by the windows' due time; null: no start
   * @param to the range's end, inclusive; null: no end
   * @param kind the run kind of the window's next attempt (a RETRY_WAIT window's is RETRY); null: any
   * @param reason why, or null
   * @param now the time
   * @return the cancels and the windows cancelled, oldest first (none is not a refusal), or a
   *     refusal naming the field
   */
  Decided<CancelReport> cancelAll(State state, Instant from, Instant to, RunKind kind, String reason, Instant now) {
    return cancelAll(state, from, to, kind, reason, null, now);
  }

  /** {@link #cancelAll(State, Instant, Instant, RunKind, String, Instant)}, recording who did ({@code actor}, or null). */
  Decided<CancelReport> cancelAll(State state, Instant from, Instant to, RunKind kind, String reason, String actor,
      Instant now) {
    if (from != null && to != null && !from.isBefore(to)) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "from", from,
          "must be before to '" + to + "': the range is (from, to]"));
    }
    String text = reason == null ? "cancelled by an operator" : reason;
    Decided<CancelReport> tooLong = tooLong("reason", text);
    if (tooLong != null) {
      return tooLong;
    }
    List<WindowState> chosen = new ArrayList<>();
    for (WindowState w : state.table().live()) {
      if (NOT_STARTED.contains(w.status()) && inRange(w.dueAt(), from, to) && (kind == null || nextKind(w) == kind)) {
        chosen.add(w);
      }
    }
    chosen.sort(java.util.Comparator.comparing(WindowState::dueAt, java.util.Comparator.nullsFirst(
        java.util.Comparator.naturalOrder())).thenComparing(WindowState::key));
    List<Event> events = new ArrayList<>(chosen.size());
    List<WindowKey> keys = new ArrayList<>(chosen.size());
    for (WindowState w : chosen) {
      events.add(new InstanceCancelled(w.key(), w.attempt(), text, now, TaskJournal.CancelCause.OPERATOR, actor));
      keys.add(WindowKey.of(w.key()));
    }
    return Decided.persist(events, new CancelReport(List.copyOf(keys)));
  }

  private static boolean inRange(Instant due, Instant from, Instant to) {
    return (from == null || due != null && due.isAfter(from)) && (to == null || due != null && !due.isAfter(to));
  }

  /** The run kind of a not-started window's next attempt: a RETRY_WAIT window's is a retry. */
  static RunKind nextKind(WindowState w) {
    return w.status() == InstanceStatus.RETRY_WAIT ? RunKind.RETRY : w.runKind();
  }

  private Decided<Done> transition(State state, WindowKey window, Function<WindowState, TaskJournal.WindowEvent> event,
      String field, String text, Expecting expecting) {
    WindowState w = state.windows().get(window.value());
    Decided<Done> stale = stale(w, window, expecting);
    if (stale != null) {
      return stale;
    }
    if (w == null) {
      return Decided.refuse(Reason.UNKNOWN_WINDOW, "window '" + window.value() + "' is unknown for task '" + taskId + "'");
    }
    Decided<Done> tooLong = tooLong(field, text);
    if (tooLong != null) {
      return tooLong;
    }
    TaskJournal.WindowEvent e = event.apply(w);
    if (!Transition.allows(w.status(), e)) {
      return Decided.refuse(new IllegalTransitionException(w.status(), e.statusAfter(w.status()), w.key()));
    }
    return Decided.persist(List.of(e), Done.getInstance());
  }

  /**
   * Runs a decision that needs the task's schedule; a schedule that fails (a cron or window spec
   * that throws) refuses this command alone and never fails the entity (principle 8).
   *
   * @param schedule computes the task's schedule (it may throw)
   * @param decide the decision on it
   * @param <R> the reply's type
   * @return the decision, or a {@link Reason#SCHEDULE_FAILED} refusal
   */
  <R> Decided<R> withSchedule(java.util.function.Supplier<TaskSchedule> schedule, java.util.function.Function<TaskSchedule, Decided<R>> decide) {
    try {
      return decide.apply(schedule.get());
    } catch (io.almanac.InvalidSpecException | io.almanac.ScheduleComputationException e) {
      return Decided.refuse(Reason.SCHEDULE_FAILED, "task '" + taskId + "': its schedule failed: " + e.getMessage());
    }
  }

  // Budgets

  /**
   * Raise the task's budget for today (in its zone) by an amount: its further windows of the day run
   * again while the day's cost stays below the raised limit. Refused, nothing stored: an amount that
   * is missing, not above 0, finer than a millionth or too large; a note over the reason bound; a
   * task without a budget per day.
   *
   * @param state the task's state
   * @param amount how much to raise today's limit by
   * @param note the operator's note, or null
   * @param now the time
   * @return the raise and the day's usage after it, or a refusal naming the field and the value
   */
  Decided<io.almanac.internal.protocol.TaskProtocol.UsageInfo> raiseBudget(State state, java.math.BigDecimal amount,
      String note, Instant now) {
    return raiseBudget(state, amount, note, null, now);
  }

  /** Raise the budget, recording who did ({@code actor}, or null). */
  Decided<io.almanac.internal.protocol.TaskProtocol.UsageInfo> raiseBudget(State state, java.math.BigDecimal amount,
      String note, String actor, Instant now) {
    long micros;
    try {
      micros = io.almanac.journal.BudgetRules.checkRaise(amount, note, settings.maxReasonLength());
    } catch (RefusedException e) {
      return Decided.refuse(e);
    }
    Long budget = state.spec().budgetPerDayMicros();
    if (budget == null) {
      return Decided.refuse(RefusedException.invalid(Reason.INVALID_ARGUMENT, "budgetPerDay", null, "task '" + taskId
          + "' has no budget per day to raise (set budget-per-day in its spec)"));
    }
    java.time.LocalDate today = io.almanac.journal.BudgetDay.dayOf(state.spec(), now);
    long limit = io.almanac.journal.BudgetRules.plus(state.budgetOn(today).limitMicros(budget), micros);
    return Decided.persistThen(List.of(new TaskJournal.BudgetRaised(today, micros, limit, note, now, actor)),
        s -> new io.almanac.internal.protocol.TaskProtocol.UsageInfo(usage(taskId, s, now)));
  }

  /**
   * @param taskId the task
   * @param state its state
   * @param now the time: its day in the task's zone is the day shown
   * @return what the task used that day, with its budget
   */
  static io.almanac.DailyUsage usage(String taskId, State state, Instant now) {
    java.time.ZoneId zone = io.almanac.journal.BudgetDay.zoneOf(state.spec());
    java.time.LocalDate today = java.time.LocalDate.ofInstant(now, zone);
    io.almanac.journal.BudgetDay d = state.budgetOn(today);
    Long budget = state.spec() == null ? null : state.spec().budgetPerDayMicros();
    return new io.almanac.DailyUsage(taskId, today, zone.getId(), d.tokensIn(), d.tokensOut(),
        io.almanac.Usage.fromMicros(d.costMicros()), d.attempts(),
        budget == null ? null : io.almanac.Usage.fromMicros(budget), io.almanac.Usage.fromMicros(d.raisedMicros()),
        budget == null ? null : io.almanac.Usage.fromMicros(d.limitMicros(budget)), budget != null && d.exhausted(budget),
        d.exhaustedSkips());
  }
}
