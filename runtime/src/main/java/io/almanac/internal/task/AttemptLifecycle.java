package io.almanac.internal.task;

import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.journal.UsageRecord;
import io.almanac.OverlapPolicy;
import io.almanac.RefusedException.Reason;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.internal.lease.ExecutorLiveness;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.protocol.TaskProtocol.AttemptGrant;
import io.almanac.internal.protocol.TaskProtocol.FinishAttempt;
import io.almanac.internal.protocol.TaskProtocol.LeaseGranted;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.LateResultRecorded;
import io.almanac.journal.TaskJournal.LeaseExtended;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.Transition;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.pekko.Done;

/**
 * The attempt lifecycle as pure decisions (R21-R24): start a PENDING window, extend a lease, record
 * a result (fenced by the attempt number), time out an attempt whose lease ended or whose executor
 * is gone, and plan what follows a failure (a retry by the task's policies, or FINAL_FAILED). No
 * actor, no clock: {@code now} is an argument. INTERNAL API.
 */
final class AttemptLifecycle {

  private final String taskId;
  private final TaskSettings settings;

  AttemptLifecycle(String taskId, TaskSettings settings) {
    this.taskId = taskId;
    this.settings = settings;
  }

  /** The lease a new or extended attempt gets now (R23). */
  static Duration currentLease(State state) {
    return state.spec().lease().toPolicy().leaseFor(state.samples().p99(), state.samples().count());
  }

  /**
   * The executor admitted a PENDING window: start its next attempt, unless it may no longer start.
   *
   * @param state the task's state
   * @param window the window
   * @param executorId the executor's identity, or null
   * @param now the time
   * @return the start and the grant, or a refusal
   */
  Decided<AttemptGrant> start(State state, WindowKey window, String executorId, Instant now) {
    return start(state, window, executorId, null, now);
  }

  /**
   * As {@link #start(State, WindowKey, String, Instant)}, recording the trace context of the
   * attempt's span with its start; when it is not null, the grant carries the previous attempt's,
   * and since when the window waited for its pools (an untraced start's grant carries neither).
   *
   * @param state the task's state
   * @param window the window
   * @param executorId the executor's identity, or null
   * @param traceparent the attempt's trace context, or null
   * @param now the time
   * @return the start and the grant, or a refusal
   */
  Decided<AttemptGrant> start(State state, WindowKey window, String executorId, String traceparent, Instant now) {
    WindowState w = state.windows().get(window.value());
    if (w == null) {
      return unknownWindow(window);
    }
    if (w.status() != InstanceStatus.PENDING) {
      return Decided.refuse(Reason.CONFLICT,
          "window '" + w.key() + "' is " + w.status() + ", not PENDING: attempt " + w.attempt() + " already started");
    }
    if (PauseScope.holdsStarts(state)) {
      return Decided.refuse(Reason.CONFLICT, PauseScope.held(state, w)); // offered before the pause
    }
    if (state.spec().overlap() != OverlapPolicy.ALLOW) {
      Optional<WindowState> other = state.running(w.key());
      if (other.isPresent()) {
        return Decided.refuse(Reason.CONFLICT, "window '" + other.get().key()
            + "' is still RUNNING and the overlap policy is " + state.spec().overlap());
      }
    }
    AttemptStarted started = startEvent(state, w, executorId, traceparent, now);
    // trace data only for an executor that traces (its admission carried a trace context): an
    // untraced node's grant is what it was, byte for byte
    String previous = traceparent == null ? null : w.traceparent();
    Instant poolWaitSince = traceparent == null || w.poolWait() == null ? null : w.poolWait().since();
    return Decided.persistThen(List.of(started), s -> grant(s, started, previous, poolWaitSince));
  }

  /**
   * The start of the next attempt of a PENDING window (PENDING to RUNNING, R21), for a caller that
   * has checked it may start.
   *
   * @param state the task's state, with the window PENDING
   * @param w the window
   * @param executorId the executor's identity, or null
   * @param now the time
   * @return the event
   */
  private AttemptStarted startEvent(State state, WindowState w, String executorId, String traceparent, Instant now) {
    return Transition.check(w.status(), new AttemptStarted(w.key(), w.attempt() + 1, w.runKind(),
        now.plus(currentLease(state)), executorId, now, traceparent));
  }

  /**
   * The first attempt of a window this fire has just scheduled (PENDING to RUNNING in the same
   * write as its schedule).
   *
   * @param state the task's state before the schedule
   * @param window the window's key
   * @param executorId the executor's identity
   * @param now the time
   * @return the event
   */
  AttemptStarted firstStart(State state, String window, String executorId, Instant now) {
    return firstStart(state, window, executorId, null, now);
  }

  /** As {@link #firstStart(State, String, String, Instant)}, with the trace context of the attempt's span (or null). */
  AttemptStarted firstStart(State state, String window, String executorId, String traceparent, Instant now) {
    return Transition.check(InstanceStatus.PENDING,
        new AttemptStarted(window, 1, RunKind.FIRST, now.plus(currentLease(state)), executorId, now, traceparent));
  }

  /**
   * @param s the state after the start
   * @param started the start
   * @return the grant the executor runs the attempt under
   */
  AttemptGrant grant(State s, AttemptStarted started) {
    return grant(s, started, null, null);
  }

  /**
   * @param s the state after the start
   * @param started the start
   * @param previousTraceparent the trace context of the window's previous attempt, or null
   * @param poolWaitSince since when the window waited for its pools before the start, or null
   * @return the grant the executor runs the attempt under
   */
  AttemptGrant grant(State s, AttemptStarted started, String previousTraceparent, Instant poolWaitSince) {
    WindowState w = s.windows().get(started.window());
    return new AttemptGrant(taskId, started.window(), started.attempt(), started.kind(), started.leaseUntil(), w.start(),
        w.end(), w.dueAt(), w.effects(), w.pendingEffects(), started.executor(), w.steps(), previousTraceparent,
        poolWaitSince);
  }

  /**
   * The running attempt is alive: extend its lease.
   *
   * @param state the task's state
   * @param window the window
   * @param attempt the attempt
   * @param now the time
   * @return the extension (if the lease grows) and the lease, or a refusal
   */
  Decided<LeaseGranted> heartbeat(State state, WindowKey window, int attempt, Instant now) {
    Optional<WindowState> found = runningAttempt(state, window, attempt);
    if (found.isEmpty()) {
      return notRunning(state, window, attempt);
    }
    WindowState w = found.get();
    if (LeaseExpiry.over(w, now)) {
      return Decided.refuse(Reason.STALE_ATTEMPT,
          "lease of window '" + w.key() + "' attempt " + w.attempt() + " expired at " + w.leaseUntil());
    }
    Instant leaseUntil = now.plus(currentLease(state));
    if (!leaseUntil.isAfter(w.leaseUntil())) {
      return Decided.reply(new LeaseGranted(w.leaseUntil()));
    }
    return Decided.persist(List.of(new LeaseExtended(w.key(), w.attempt(), leaseUntil, now)), new LeaseGranted(leaseUntil));
  }

  /**
   * The attempt ended with a result. The attempt number fences: a result from an attempt that no
   * longer holds the window is recorded as late and changes nothing; past its lease it cannot
   * succeed the window.
   *
   * @param state the task's state
   * @param cmd the result
   * @param now the time
   * @return the events and the acknowledgement, or a refusal
   */
  Decided<Done> finish(State state, FinishAttempt cmd, Instant now) {
    Optional<String> tooBig = oversized(cmd.result());
    if (tooBig.isPresent()) {
      return Decided.refuse(Reason.INVALID_ARGUMENT, tooBig.get());
    }
    if (cmd.duration() == null || cmd.duration().isNegative()) {
      return Decided.refuse(Reason.INVALID_ARGUMENT, "duration '" + cmd.duration() + "' is invalid: must be >= 0");
    }
    WindowState w = state.windows().get(cmd.window().value());
    if (w == null) {
      return unknownWindow(cmd.window());
    }
    if (cmd.attempt() < 1 || cmd.attempt() > w.attempt()) {
      return Decided.refuse(Reason.INVALID_ARGUMENT, "attempt '" + cmd.attempt() + "' is invalid: window '"
          + w.key() + "' has started " + w.attempt() + " attempts");
    }
    JobResult r = cmd.result();
    if (cmd.attempt() == w.resultAttempt()) {
      // The same result delivered again (the executor retries until acknowledged): already recorded.
      return Decided.reply(Done.getInstance());
    }
    if (w.status() != InstanceStatus.RUNNING || w.attempt() != cmd.attempt()) {
      List<Event> late = new ArrayList<>(replayed(cmd, now));
      late.add(late(cmd, "window is " + w.status() + " at attempt " + w.attempt(), now));
      return Decided.persist(logged(late, late.size(), cmd, now), Done.getInstance());
    }
    List<Event> events = new ArrayList<>(replayed(cmd, now));
    if (LeaseExpiry.over(w, now)) {
      events.add(LeaseExpiry.timedOut(w, cmd.duration(), now));
      events.addAll(afterFailure(state, w, LeaseExpiry.reason(w.leaseUntil()), now));
      events.add(late(cmd, "result arrived after the lease expired at " + w.leaseUntil(), now));
      return Decided.persist(logged(events, events.size(), cmd, now), Done.getInstance());
    } else if (r.succeeded()) {
      AttemptSucceeded succeeded = Transition.check(w.status(), new AttemptSucceeded(w.key(), w.attempt(), cmd.duration(),
          r.summary(), r.artifactUri(), now, UsageRecord.of(r.usage())));
      TaskJournal.DeadlineMissed late = Deadlines.missedAtEnd(state, w, now); // null without a deadline: one check
      if (late != null) {
        events.add(late);
      }
      events.add(succeeded);
      return Decided.persist(logged(events, events.size(), cmd, now), Done.getInstance());
    } else if (r.throttled()) {
      int end = events.size() + 1; // after the AttemptFailed, before its RetryScheduled
      events.addAll(throttled(w, cmd.duration(), r, now));
      return Decided.persist(logged(events, end, cmd, now), Done.getInstance());
    } else {
      events.add(Transition.check(w.status(), new AttemptFailed(w.key(), w.attempt(), cmd.duration(), r.reason(), now, null,
          null, UsageRecord.of(r.usage()))));
      int end = events.size();
      events.addAll(afterFailure(state, w, r.reason(), now));
      return Decided.persist(logged(events, end, cmd, now), Done.getInstance());
    }
  }

  /**
   * The events with the attempt's log ({@link TaskJournal.AttemptLogged}) inserted right after its
   * end, at {@code at}, in the same write; the events as they are when the attempt left no log (no
   * line, no stack trace: nothing more is written).
   */
  static List<Event> logged(List<Event> events, int at, FinishAttempt cmd, Instant now) {
    if (cmd.log().isEmpty()) {
      return events;
    }
    List<Event> out = new ArrayList<>(events);
    out.add(at, TaskJournal.AttemptLogged.of(cmd.window().value(), cmd.attempt(), cmd.log(), now));
    return out;
  }

  /**
   * The job answered throttled: the attempt ends (recorded as a failure that is throttled), and the
   * window waits {@code retryAfter} before it is tried again, whatever the retry policy says and
   * without counting a retry: the retry number stays what it was.
   */
  static List<Event> throttled(WindowState w, Duration took, JobResult r, Instant now) {
    return List.of(Transition.check(w.status(), new AttemptFailed(w.key(), w.attempt(), took, r.reason(), now, r.retryAfter(),
        r.pool(), UsageRecord.of(r.usage()))),
        new RetryScheduled(w.key(), w.retries(), io.almanac.spi.Saturating.plus(now, r.retryAfter()), now));
  }

  /**
   * The executor says a PENDING window waits for a resource pool: recorded when told (the
   * executor tells it at most once per pool and reason in the window's attempt); nothing when the window is no
   * longer PENDING.
   */
  static Optional<Event> poolWaited(State state, io.almanac.internal.protocol.TaskProtocol.PoolWait cmd, Instant now) {
    WindowState w = state.windows().get(cmd.window().value());
    if (w == null || w.status() != InstanceStatus.PENDING) {
      return Optional.empty();
    }
    return Optional.of(new TaskJournal.PoolWaited(w.key(), cmd.pool(), cmd.reason(), cmd.until(), now));
  }

  /**
   * The executor says a resource pool's budget for the day was spent when the window would start: a
   * PENDING window that never started is recorded SKIPPED ({@code WaitEnded BUDGET_EXHAUSTED}, the pool
   * named); nothing otherwise (it started meanwhile, or is gone).
   */
  static Optional<Event> poolBudgetSpent(State state, io.almanac.internal.protocol.TaskProtocol.PoolBudgetSpent cmd,
      Instant now) {
    WindowState w = state.windows().get(cmd.window().value());
    if (w == null || w.status() != InstanceStatus.PENDING || w.attempt() > 0) {
      return Optional.empty();
    }
    return Optional.of(new TaskJournal.WaitEnded(w.key(), io.almanac.SkipReason.BUDGET_EXHAUSTED, cmd.detail(), now,
        cmd.pool()));
  }

  /** The steps the attempt replayed, told with its result: one event in the same write, none when it replayed none. */
  private static List<Event> replayed(FinishAttempt cmd, Instant now) {
    return cmd.replayedSteps().isEmpty() ? List.of()
        : List.of(new TaskJournal.StepsReplayed(cmd.window().value(), cmd.attempt(), cmd.replayedSteps(), now));
  }

  private static LateResultRecorded late(FinishAttempt cmd, String detail, Instant now) {
    JobResult r = cmd.result();
    String what = r.succeeded() ? "summary: " + r.summary() : "reason: " + r.reason();
    return new LateResultRecorded(cmd.window().value(), cmd.attempt(), r.outcome(), detail + "; " + what, now,
        UsageRecord.of(r.usage()));
  }

  /**
   * Attempts that no longer run, settled before any fire so that a dead attempt never counts as the
   * previous run (R6, R24); each by {@link #ending}: an attempt whose executor is gone is {@link
   * InstanceStatus#INTERRUPTED} (and resumed, {@link #afterInterruption}); one whose lease is over
   * while its executor runs is TIMED_OUT (the job hung: the retry policy decides).
   *
   * @param state the task's state
   * @param executors what is known of an executor identity
   * @param now the time
   * @return the events (possibly none)
   */
  List<Event> settle(State state, Function<String, ExecutorLiveness.State> executors, Instant now) {
    List<Event> events = new ArrayList<>();
    for (WindowState w : state.table().live()) {
      if (w.status() != InstanceStatus.RUNNING) {
        continue;
      }
      ExecutorLiveness.State executor = w.executor() == null ? null : executors.apply(w.executor());
      switch (ending(w, executor, now)) {
        case INTERRUPTED -> events.addAll(interrupt(state, w, executor.interruptCause(),
            "executor " + w.executor() + (executor == ExecutorLiveness.State.FENCED
                ? " was fenced out: its node is no member and its lease ended" : " is gone (its node restarted or left)"),
            now));
        case TIMED_OUT -> events.addAll(timeOut(state, w, LeaseExpiry.reason(w.leaseUntil()), now));
        default -> { }
      }
    }
    return events;
  }

  /**
   * How a running attempt ended, as settling finds it; pure.
   *
   * <ul>
   *   <li>Its executor is gone ({@link ExecutorLiveness.State#gone()}: a past life of this node, a node
   *       that left, an executor fenced out): {@link InstanceStatus#INTERRUPTED}, whether or not its
   *       lease is also over: its node's life stopped it, not its job.
   *   <li>Its lease is over while its executor runs (or is not recorded, in older journals): {@link
   *       InstanceStatus#TIMED_OUT}: the job hung or ran past its lease on a live node.
   *   <li>Its executor is {@link ExecutorLiveness.State#ENDING} (no member, its lease not yet seen
   *       ended): RUNNING still, lease over or not: a new attempt must not start beside a job that may
   *       still run; it is interrupted (FENCED) once that lease is seen ended.
   *   <li>Otherwise RUNNING.
   * </ul>
   *
   * @param w a RUNNING window
   * @param executor what is known of its executor, or null when none is recorded
   * @param now the time
   * @return INTERRUPTED, TIMED_OUT or RUNNING (nothing to settle)
   */
  static InstanceStatus ending(WindowState w, ExecutorLiveness.State executor, Instant now) {
    if (executor != null && executor.gone()) {
      return InstanceStatus.INTERRUPTED;
    }
    if (executor == ExecutorLiveness.State.ENDING) {
      return InstanceStatus.RUNNING;
    }
    return LeaseExpiry.over(w, now) ? InstanceStatus.TIMED_OUT : InstanceStatus.RUNNING;
  }

  /**
   * This node's executor reports that an attempt it ran was interrupted by its node's life (a
   * shutdown whose grace ended with the job still running): recorded if the attempt still holds the
   * window (the attempt number fences), nothing otherwise (it ended meanwhile, or was settled).
   *
   * @param state the task's state
   * @param cmd the report
   * @param now the time
   * @return the interruption and what follows it, or nothing; acknowledged either way
   */
  Decided<Done> interrupted(State state, io.almanac.internal.protocol.TaskProtocol.InterruptAttempt cmd, Instant now) {
    Optional<WindowState> found = runningAttempt(state, cmd.window(), cmd.attempt());
    if (found.isEmpty()) {
      return Decided.reply(Done.getInstance());
    }
    List<Event> events = interrupt(state, found.get(), cmd.cause(), cmd.detail(), now);
    if (!cmd.log().isEmpty()) {
      // what the job logged until its node stopped it, kept with the attempt as an ended attempt's is
      events = new ArrayList<>(events);
      events.add(1, TaskJournal.AttemptLogged.of(cmd.window().value(), cmd.attempt(), cmd.log(), now));
    }
    return Decided.persist(events, Done.getInstance());
  }

  /** The interruption of a running attempt, then what follows it, in one write. */
  List<Event> interrupt(State state, WindowState w, io.almanac.InterruptCause cause, String detail, Instant now) {
    TaskJournal.AttemptInterrupted interrupted = Transition.check(w.status(), new TaskJournal.AttemptInterrupted(w.key(),
        w.attempt(), cause, bounded(detail, settings.maxReasonLength() / 2), now));
    List<Event> events = new ArrayList<>();
    events.add(interrupted);
    events.addAll(afterInterruption(state.spec().interruption(), settings.maxResumes(), w.interruptions() + 1,
        interrupted, why -> afterFailure(state, w, why, now), w, now));
    return events;
  }

  /**
   * What follows an interrupted attempt; pure. By the task's {@link io.almanac.OnInterruption}: FAIL
   * puts the window FINAL_FAILED with the cause in its reason (never run again by itself); RESUME (the
   * default) makes it PENDING again at once with {@link RunKind#RESUME}, no retry spent, unless this
   * is more than {@code maxResumes} interruptions in a row: then the retry policy decides, with a
   * reason that says so (a job that kills its own JVM must not loop forever).
   *
   * @param policy the task's on-interruption
   * @param maxResumes {@code almanac.task.max-resumes}
   * @param inARow the window's interruptions in a row, this one included
   * @param interrupted the interruption
   * @param retryPolicy what the retry policy decides, given the last cause
   * @param w the window (INTERRUPTED)
   * @param now the time
   * @return the events
   */
  static List<Event> afterInterruption(io.almanac.OnInterruption policy, int maxResumes, int inARow,
      TaskJournal.AttemptInterrupted interrupted, Function<String, List<Event>> retryPolicy, WindowState w, Instant now) {
    if (policy == io.almanac.OnInterruption.FAIL) {
      return List.of(Transition.check(InstanceStatus.INTERRUPTED, InstanceFinalFailed.after(w.key(),
          "not resumed: the task's on-interruption is FAIL (its job must not run twice)", interrupted.reason(), now)));
    }
    if (inARow > maxResumes) {
      return retryPolicy.apply("interrupted " + inARow + " times in a row, more than almanac.task.max-resumes ("
          + maxResumes + "): handed to the retry policy; last " + interrupted.reason());
    }
    return List.of(Transition.check(InstanceStatus.INTERRUPTED,
        new InstanceScheduled(w.key(), w.start(), w.end(), w.dueAt(), RunKind.RESUME, now)));
  }

  /**
   * Dead attempts settled (see {@link #settle}) and the state after them: what every decision that
   * must not count a dead attempt as running is made on.
   *
   * @param events the settlement (possibly none), persisted ahead of what is decided on it
   * @param state the state after it
   */
  record Settled(List<Event> events, State state) {
    /** @return the decision with the settlement ahead of its events, in the same write */
    <R> Decided<R> then(Decided<R> decided) {
      return decided.after(events);
    }
  }

  /**
   * @param state the task's state
   * @param executors what is known of an executor identity
   * @param now the time
   * @param hot the entity's hot-state bounds
   * @return the settlement and the state after it
   */
  Settled settled(State state, Function<String, ExecutorLiveness.State> executors, Instant now,
      io.almanac.journal.HotState hot) {
    List<Event> events = settle(state, executors, now);
    return new Settled(events, io.almanac.journal.Evolve.fold(state, events, hot));
  }

  /**
   * Waiting retries whose time has come become PENDING; none while the task is paused ({@link
   * PauseScope}): they wait for the resume.
   *
   * @param state the task's state
   * @param now the time
   * @return the events (possibly none)
   */
  List<Event> dueRetries(State state, Instant now) {
    return PauseScope.holdsStarts(state) ? List.of() : retriesDue(state, now);
  }

  /**
   * Waiting retries whose time has come become PENDING, paused or not (for the resume's write).
   *
   * @param state the task's state
   * @param now the time
   * @return the events (possibly none)
   */
  List<Event> retriesDue(State state, Instant now) {
    List<Event> events = new ArrayList<>();
    for (WindowState w : state.table().live()) {
      if (w.status() == InstanceStatus.RETRY_WAIT && !now.isBefore(w.retryDueAt())) {
        events.add(Transition.check(w.status(), new InstanceScheduled(w.key(), w.start(), w.end(), w.dueAt(), RunKind.RETRY,
            now)));
      }
    }
    return events;
  }

  private List<Event> timeOut(State state, WindowState w, String reason, Instant now) {
    List<Event> events = new ArrayList<>();
    events.add(LeaseExpiry.timedOut(w, now));
    events.addAll(afterFailure(state, w, reason, now));
    return events;
  }

  /** A text cut to at most {@code max} characters (a detail from the executor is bounded like any reason). */
  private static String bounded(String text, int max) {
    String t = text == null ? "" : text;
    return t.length() <= max ? t : t.substring(0, Math.max(0, max - 3)) + "...";
  }

  /** What follows a failed, timed-out or too often interrupted attempt: a retry by the task's retry policy, or FINAL_FAILED. */
  List<Event> afterFailure(State state, WindowState w, String lastReason, Instant now) {
    RetryPolicy retry = state.spec().retry().toPolicy();
    int cap = retry.maxRetries();
    if (!retry.allowsRetry()) {
      return List.of(InstanceFinalFailed.after(w.key(),
          "not retried: the task is not marked for retry (max retries 0, R12)", lastReason, now));
    }
    if (w.retries() >= cap) {
      return List.of(InstanceFinalFailed.after(w.key(), "retry cap " + cap + " reached", lastReason, now));
    }
    int retryNumber = w.retries() + 1;
    long seed = (taskId + "|" + w.key()).hashCode();
    Optional<Instant> due = retry.retryDueAt(retryNumber, now, w.start(), seed);
    if (due.isEmpty()) {
      return List.of(InstanceFinalFailed.after(w.key(), "retry " + retryNumber + " would be outside the retry span "
          + retry.span() + " after the window's start " + w.start(), lastReason, now));
    }
    if (due.get().isAfter(now)) {
      return List.of(new RetryScheduled(w.key(), retryNumber, due.get(), now));
    }
    return List.of(new RetryScheduled(w.key(), retryNumber, due.get(), now),
        new InstanceScheduled(w.key(), w.start(), w.end(), w.dueAt(), RunKind.RETRY, now));
  }

  private Optional<String> oversized(JobResult r) {
    if (r == null) {
      return Optional.of("result 'null' is invalid: an attempt must report a result");
    }
    if (r.summary().length() > settings.maxSummaryLength()) {
      return Optional.of("summary '" + Texts.abbreviate(r.summary()) + "' is invalid: " + r.summary().length()
          + " characters, at most " + settings.maxSummaryLength() + " (almanac.task.max-summary-length); keep the full output"
          + " elsewhere and pass its artifactUri");
    }
    if (r.reason() != null && r.reason().length() > settings.maxReasonLength()) {
      return Optional.of("reason '" + Texts.abbreviate(r.reason()) + "' is invalid: " + r.reason().length()
          + " characters, at most " + settings.maxReasonLength() + " (almanac.task.max-reason-length)");
    }
    if (r.artifactUri() != null && r.artifactUri().length() > settings.maxArtifactUriLength()) {
      return Optional.of("artifactUri '" + Texts.abbreviate(r.artifactUri()) + "' is invalid: " + r.artifactUri().length()
          + " characters, at most " + settings.maxArtifactUriLength() + " (almanac.task.max-artifact-uri-length)");
    }
    return Optional.empty();
  }

  static Optional<WindowState> runningAttempt(State state, WindowKey window, int attempt) {
    return state.window(window.value()).filter(w -> w.status() == InstanceStatus.RUNNING && w.attempt() == attempt);
  }

  static <T> Decided<T> notRunning(State state, WindowKey window, int attempt) {
    String now = state.window(window.value()).map(w -> w.status() + " at attempt " + w.attempt()).orElse("unknown");
    return Decided.refuse(Reason.STALE_ATTEMPT,
        "attempt " + attempt + " of window '" + window.value() + "' does not hold the window (window is " + now + ")");
  }

  <T> Decided<T> unknownWindow(WindowKey window) {
    return Decided.refuse(Reason.UNKNOWN_WINDOW, "window '" + window.value() + "' is unknown for task '" + taskId + "'");
  }
}
