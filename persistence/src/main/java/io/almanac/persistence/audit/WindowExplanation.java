package io.almanac.persistence.audit;

import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptFailed;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.AttemptSucceeded;
import io.almanac.journal.TaskJournal.AttemptTimedOut;
import io.almanac.journal.TaskJournal.EffectIntended;
import io.almanac.journal.TaskJournal.EffectRecorded;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.journal.TaskJournal.InstanceFinalFailed;
import io.almanac.journal.TaskJournal.InstanceResolved;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.LateResultRecorded;
import io.almanac.journal.TaskJournal.LeaseExtended;
import io.almanac.journal.TaskJournal.RetryScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.TaskPaused;
import io.almanac.journal.TaskJournal.TaskRemoved;
import io.almanac.journal.TaskJournal.TaskResumed;
import io.almanac.journal.TaskJournal.WindowMissed;
import io.almanac.journal.TaskJournal.ConditionCheckFailed;
import io.almanac.journal.TaskJournal.EventDuplicated;
import io.almanac.journal.TaskJournal.EventReceived;
import io.almanac.journal.TaskJournal.UpstreamRerunRecorded;
import io.almanac.journal.TaskJournal.WaitEnded;
import io.almanac.journal.TaskJournal.WaitSatisfied;
import io.almanac.journal.TaskJournal.WindowWaiting;
import io.almanac.journal.Transition;
import io.almanac.journal.WindowState;
import io.almanac.journal.WriterStamp;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.Schedules;
import io.almanac.schedule.TaskSchedule;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why one window of a task ran, did not run, or ran late, in words, from the task's journal alone:
 * a pure function of its events (no actors, no database). Every step is one human sentence with its
 * time in UTC and in the task's zone; the verdict sums the window up in one sentence.
 *
 * <pre>{@code
 * Explanation why = WindowExplanation.explain("digest", history.events(), "2026-11-29");
 * why.verdict(); // "ran on time: due 08:00:00 Asia/Shanghai, attempt 1 started 08:00:02 (2 s late) on node n1, succeeded 08:03:10"
 * }</pre>
 *
 * <p>It uses the events' own fields (the writer stamp, the executor, the lease's end, the reasons)
 * and, for the state of other windows at a given moment (the window that was RUNNING when this one
 * was skipped), the journal folded through {@link Evolve} up to that moment. A window the journal
 * has no record of is explained from the task's spec: before its registration, not due yet, a
 * schedule that does not fire then, or a key its window spec does not make.
 */
public final class WindowExplanation {

  /** How late a first run may start and still be called on time: the runtime's default on-time grace. */
  public static final Duration ON_TIME = Duration.ofSeconds(60);

  /** How late a first event must be for a change of writer (a restart, a failover) to be told as its cause. */
  static final Duration RESTART_SHOWN = Duration.ofSeconds(5);

  /** The status of a window the journal has no record of. */
  public static final String NO_SUCH_WINDOW = "NONE";

  /**
   * One step of the chain of decisions.
   *
   * @param atUtc when (UTC)
   * @param atLocal when, in the task's zone, ISO-8601 with its offset
   * @param text what happened and why, one sentence
   */
  public record Step(Instant atUtc, String atLocal, String text) {}

  /**
   * Why a window is as it is.
   *
   * @param task the task's id
   * @param window the window's key
   * @param status the window's status after its last event, or {@value #NO_SUCH_WINDOW}
   * @param verdict one sentence: what happened to the window and why
   * @param steps the decisions in journal order
   */
  public record Explanation(String task, String window, String status, String verdict, List<Step> steps) {
    /** Copies the steps. */
    public Explanation {
      Objects.requireNonNull(task, "task");
      Objects.requireNonNull(window, "window");
      steps = List.copyOf(steps);
    }

    /** @return whether the journal has a record of the window */
    public boolean known() {
      return !NO_SUCH_WINDOW.equals(status);
    }
  }

  /**
   * The window explained keeps its whole state: its own fold holds only it. Event ids are not
   * needed (the explanation counts a window's events itself): remembering one keeps a storm of
   * events linear.
   */
  private static final HotState KEEP_ALL = new HotState(Integer.MAX_VALUE, Duration.ofDays(365L * 1000), 1);
  /**
   * The task's fold, for the windows that ran while the explained one was skipped: a window leaves
   * it only when done (R30), so every window that runs is in it however long the journal; done ones
   * are not needed and leave early, which keeps a long journal's fold small.
   */
  private static final HotState TASK_HOT = new HotState(64, Duration.ofHours(1), 1);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
  private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
  private static final Pattern HOURLY_KEY = Pattern.compile("^(\\d{4}-\\d{2}-\\d{2})-(\\d{2})$");

  private WindowExplanation() {}

  /** Whether an event records a skip range (docs/skip-ranges.md), which accounts for windows besides its own. */
  static boolean isRangeEvent(Object e) {
    return e instanceof TaskJournal.SkipRangeOpened || e instanceof TaskJournal.SkipRangeClosed
        || e instanceof TaskJournal.WindowsSkipped;
  }

  /**
   * The audit's view of raw journal events, numbered 1, 2, ... with each event's zone (from the
   * latest {@link SpecDefined} at or before it), as {@link AuditReader} would read them.
   *
   * @param taskId the task's id
   * @param events its journal's events in order
   * @return the audit events, timeouts completed with their recorded cause
   */
  public static List<AuditEvent> auditEvents(String taskId, List<? extends TaskJournal.Event> events) {
    List<AuditEvent> out = new ArrayList<>();
    ZoneId zone = ZoneOffset.UTC;
    long seq = 1;
    for (TaskJournal.Event row : events) {
      for (TaskJournal.Event e : TaskJournal.expand(row)) { // one row may stand for two events: both, with its number
        AuditEvent a = AuditEvent.of(taskId, seq, e, zone);
        zone = a.zone();
        out.add(a);
      }
      seq++;
    }
    return AuditEvent.withCauses(out);
  }

  /**
   * Explains one window.
   *
   * @param taskId the task's id
   * @param events the task's events in journal order (as {@link AuditReader#read(String)} gives them)
   * @param window the window's key
   * @return the explanation; for a window without events, why there is none
   */
  public static Explanation explain(String taskId, List<AuditEvent> events, String window) {
    return new Explainer(taskId, events, window, null).run();
  }

  /**
   * What the explanation of one window needs of a task's journal, gathered event by event so that a
   * long journal is never held in memory: the window's own events and the task-level ones (spec,
   * pause, resume, removal) are kept, at most {@code maxKept} of them; of the rest only a bounded
   * summary (the journal's first sequence number, its last zone and instant, the event before the
   * window's first one, the attempt of another window that was running at each of this window's
   * PREVIOUS_RUNNING skips, and the few windows nearest to it by start). {@link #explain(String)}
   * gives the same explanation as {@link WindowExplanation#explain(String, List, String)} on the whole
   * journal (the nearest windows of an unknown window may differ when the task's zone changed).
   * Not thread-safe: feed it from one stream.
   */
  public static final class Digest {
    /** Windows kept on each side of the asked one, for the nearest windows of an unknown window. */
    static final int NEAREST_KEPT = 8;

    private final String window;
    private final long maxKept;
    private final List<AuditEvent> kept = new ArrayList<>();
    private State task = State.empty(1);
    private final Map<Long, WindowState> runningAtSkip = new HashMap<>();
    private final LinkedHashMap<String, Instant> starts = new LinkedHashMap<>();
    private long read;
    private long firstSeq = 1;
    private ZoneId zone = ZoneOffset.UTC;
    private Instant lastAt;
    private AuditEvent last;
    private AuditEvent previous;
    private AuditEvent previousAtFirst;
    /** The event before each skip range's first event (the windows its first window stands for, for why). */
    private final Map<String, AuditEvent> previousAtRange = new HashMap<>();
    private boolean windowSeen;
    private ZoneId guessZone;
    private Optional<Instant> guess = Optional.empty();

    /**
     * @param window the window's key
     * @param maxKept the most events kept (the window's and the task-level ones); at least 1
     */
    public Digest(String window, long maxKept) {
      this.window = Objects.requireNonNull(window, "window");
      if (maxKept < 1) {
        throw new IllegalArgumentException("maxKept '" + maxKept + "' is invalid: must be at least 1");
      }
      this.maxKept = maxKept;
    }

    /**
     * Takes the next event of the task's journal.
     *
     * @param a the event, in journal order
     * @throws HistoryTooLargeException if more than {@code maxKept} events would be kept
     */
    public void add(AuditEvent a) {
      if (read++ == 0) {
        firstSeq = a.sequenceNr();
      }
      zone = a.zone();
      if (a.at() != null && (lastAt == null || a.at().isAfter(lastAt))) {
        lastAt = a.at();
      }
      if (last != null && last.at() != null && a.at() != null && last.at().isBefore(a.at())) {
        previous = last;
      }
      Object raw = a.event();
      boolean about = a.isAbout(window);
      if (about && raw instanceof TaskJournal.WindowEvent && !windowSeen) {
        windowSeen = true;
        previousAtFirst = previous;
      }
      if (!about && (raw instanceof TaskJournal.SkipRangeOpened || raw instanceof TaskJournal.WindowsSkipped)) {
        // a range's first window: a window inside the range is told as it is (docs/skip-ranges.md)
        previousAtRange.putIfAbsent(((TaskJournal.WindowEvent) raw).window(), previous);
      }
      if (raw instanceof TaskJournal.Event e) {
        if ((about || isRangeEvent(e)) && e instanceof TaskJournal.WindowEvent we) {
          WindowState o = previousRunning(task, we);
          if (o != null) {
            runningAtSkip.put(a.sequenceNr(), o);
          }
        }
        task = Evolve.apply(task, e, TASK_HOT, Evolve.Violations.IGNORE);
      }
      if (!about && raw instanceof TaskJournal.Event e) {
        Placed p = e.accept(PLACED);
        if (p != null && a.window() != null && !starts.containsKey(a.window())) {
          near(a.window(), p.start(), a.zone());
        }
      }
      if (about || !(raw instanceof TaskJournal.WindowEvent) || isRangeEvent(raw)) { // ranges: the windows they account for
        if (kept.size() >= maxKept) {
          throw new HistoryTooLargeException("the history of window " + window + " holds more than " + maxKept
              + " events (its own and the task's), more than is read at once");
        }
        kept.add(a);
      }
      last = a;
    }

    /** Keeps a window's start if it is among the nearest ones to the asked window, on its side. */
    private void near(String key, Instant start, ZoneId zoneNow) {
      starts.put(key, start);
      if (!zoneNow.equals(guessZone)) {
        guessZone = zoneNow;
        guess = guessStart(window, zoneNow); // once per zone: parsing the key is not free
      }
      boolean before = guess.isPresent() ? start.isBefore(guess.get()) : key.compareTo(window) < 0;
      List<Map.Entry<String, Instant>> side = new ArrayList<>();
      for (Map.Entry<String, Instant> x : starts.entrySet()) {
        boolean b = guess.isPresent() ? x.getValue().isBefore(guess.get()) : x.getKey().compareTo(window) < 0;
        if (b == before) {
          side.add(x);
        }
      }
      if (side.size() > NEAREST_KEPT) {
        // before: drop the earliest start (the first inserted of equals); after: the latest (the last inserted)
        Map.Entry<String, Instant> drop = side.get(0);
        for (Map.Entry<String, Instant> x : side) {
          int c = x.getValue().compareTo(drop.getValue());
          if (before ? c < 0 : c >= 0) {
            drop = x;
          }
        }
        starts.remove(drop.getKey());
      }
    }

    /** @return events read from the journal */
    public long read() {
      return read;
    }

    /** @return events kept in memory (the window's own and the task-level ones) */
    public int kept() {
      return kept.size();
    }

    /** @return whether the journal had any event of the task */
    public boolean isEmpty() {
      return read == 0 && registered == null;
    }

    /** The task's registration in the trigger's journal, or null: see {@link #registered}. */
    private Verifier.Registration registered;
    private SpecRecord registeredSpec;

    /**
     * The task's registrations as the trigger's journal holds them ({@code TasksRegistered}):
     * registering writes no task entity, which records its spec with its first fire, and a task
     * never fired has no journal. The explanation then takes the spec (the latest registered) and the
     * registration's time (the first) from here where the task's journal has none, or has it later.
     *
     * @param registrations the task's registrations in journal order (none: nothing changes)
     */
    public void registered(List<Verifier.Registration> registrations) {
      if (registrations == null || registrations.isEmpty()) {
        return;
      }
      registered = registrations.get(0);
      registeredSpec = registrations.get(registrations.size() - 1).spec();
      if (read == 0) {
        try {
          zone = ZoneId.of(registeredSpec.zone());
        } catch (RuntimeException e) {
          // an unknown zone: the explanation says what the schedule cannot compute
        }
        lastAt = lastAt == null ? registered.at() : lastAt;
      }
    }

    /** @return the window's own events in journal order, timeouts with their recorded cause */
    public List<AuditEvent> windowEvents() {
      return AuditEvent.withCauses(kept).stream().filter(e -> e.isAbout(window)).toList();
    }

    /**
     * @return what each attempt of the window logged ({@link TaskJournal.AttemptLogged}), in journal order:
     *     attempts that logged nothing and did not throw have none
     */
    public List<TaskJournal.AttemptLogged> attemptLogs() {
      List<TaskJournal.AttemptLogged> out = new ArrayList<>();
      for (AuditEvent a : kept) {
        if (a.event() instanceof TaskJournal.AttemptLogged l && l.window().equals(window)) {
          out.add(l);
        }
      }
      return out;
    }

    /**
     * @param taskId the task's id
     * @return the window's explanation, as {@link WindowExplanation#explain(String, List, String)} on the whole journal
     */
    public Explanation explain(String taskId) {
      return new Explainer(taskId, AuditEvent.withCauses(kept), window, this).run();
    }
  }

  /** One explanation being built: walks the journal once, folding it as it goes. */
  private static final class Explainer {
    private final String taskId;
    private final List<AuditEvent> events;
    private final String window;
    private final ZoneId zone;
    private final List<Step> steps = new ArrayList<>();
    private LocalDate dueDate;

    // what the walk learnt
    private SpecRecord spec;
    private Instant registeredAt;
    private Instant pausedAt;
    /** The pause in force when the task paused itself on failures, else null. */
    private TaskPaused pausedOnFailures;
    private Instant removedAt;
    private Instant dueAt;
    private Instant scheduledAt;
    private RunKind scheduledKind;
    /** Who scheduled the window last (an operator's run, backfill or retry), or null when not recorded. */
    private String scheduledBy;
    /** Who resolved it, or null when not recorded. */
    private String resolvedBy;
    private InstanceStatus reopenedFrom;
    private AttemptStarted lastStart;
    private int attempts;
    private String lastError;
    private String skipText;
    private String missText;
    /** What the window is in its skip range (docs/skip-ranges.md), or null for a window of its own. */
    private String rangeText;
    /** The task's skip range events, for a window with no event of its own that a range accounts for. */
    private final List<AuditEvent> rangeEvents = new ArrayList<>();
    private String cancelText;
    private String resolveNote;
    private String finalReason;
    private RetryScheduled lastRetry;
    /** The window's latest wait for a resource pool, and whether its latest attempt was throttled. */
    private TaskJournal.PoolWaited poolWait;
    private boolean throttledLast;
    private int leaseExtensions;
    private Instant succeededAt;
    private String downtime;
    private boolean manualRetry;
    private WindowWaiting waiting;
    private WaitSatisfied released;
    private boolean releasePending;
    private String conditionError;
    private long eventsReceived;
    private long eventsDuplicated;
    private String firstEventId;
    private String lastEventId;
    private final long firstSeq;
    private final boolean truncated;
    /** Whether the window's first events were deleted by retention: it is told from its first event that is left. */
    private boolean adopted;
    private boolean seen;
    /** The window explained, folded by {@link Evolve}: this window only, all of it. */
    private State own = State.empty(1);
    /** The task, folded by {@link Evolve} (its running windows; done ones leave early), for the whole journal. */
    private State task = State.empty(1);
    private final Narration narration = new Narration();
    /** The index in {@link #events} of the event being told. */
    private int current;
    /** Whether the task is folded: only the whole journal of a window skipped for PREVIOUS_RUNNING needs it. */
    private final boolean foldTask;
    /** The journal's summary when {@link #events} are only what a {@link Digest} kept; null for the whole journal. */
    private final Digest digest;

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
            narration.at(a, null, null);
            e.accept(narration);
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
      return new Explanation(taskId, window, w.status().name(), shorten(verdict(w)), steps);
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
        narration.at(a, null, other);
      } else if (!Transition.allows(from, we)) {
        step(a.at(), "The journal holds a " + a.type() + " event the transition table refuses ("
            + (from == null ? "NEW" : from) + " -> " + to + "): the window kept its status.");
        return false;
      } else {
        narration.at(a, before, other);
      }
      we.accept(narration);
      return adopting;
    }

    private boolean open(State state) {
      WindowState w = state.windows().get(window);
      return w != null && w.status().isActive();
    }

    /**
     * What each kind of event adds to the story: a task-level event to what the walk knows of the
     * task, a window event of the explained window its step. Reused: {@link #at} sets the event.
     */
    private final class Narration implements TaskJournal.Visitor<Void> {
      private AuditEvent a;
      private Instant at;
      private WindowState before;
      private InstanceStatus from;
      /** The window that was running at this event, as the fold holds it: what a PREVIOUS_RUNNING skip names. */
      private WindowState other;

      void at(AuditEvent event, WindowState before, WindowState other) {
        this.a = event;
        this.at = event.at();
        this.before = before;
        this.from = before == null ? null : before.status();
        this.other = other;
      }

      @Override
      public Void specDefined(SpecDefined d) {
        spec = d.spec();
        if (registeredAt == null) {
          registeredAt = d.at();
        }
        return null;
      }

      @Override
      public Void taskPaused(TaskPaused p) {
        pausedAt = p.at();
        pausedOnFailures = p.onFailures() && p.failures() != null ? p : null;
        if (seen && open(own) && pausedOnFailures != null) {
          step(a.at(), "The task paused itself: " + failures(p) + ". Windows due from here on are skipped until an operator"
              + " resumes it; a TASK_PAUSED_ON_FAILURES alert was raised.");
        } else if (seen && open(own)) {
          step(a.at(), p.actor() == null
              ? "The task was paused (an operator's pause): windows due from here on are skipped until it is resumed."
              : p.actor() + " paused the task" + noted(p.note()) + ": windows due from here on are skipped until it is "
                  + "resumed.");
        }
        return null;
      }

      @Override
      public Void taskResumed(TaskResumed r) {
        if (seen && open(own)) {
          step(a.at(), (r.actor() == null ? "The task was resumed" : r.actor() + " resumed the task" + noted(r.note()))
              + (pausedAt == null ? "." : " after a pause since " + time(pausedAt) + "."));
        }
        pausedAt = null;
        pausedOnFailures = null;
        return null;
      }

      @Override
      public Void budgetRaised(TaskJournal.BudgetRaised r) {
        // told when it is about the explained window's day, after the window's first event (a raise before it
        // shows in that event's own detail: a skip names the raised limit)
        if (seen && dueDate != null && dueDate.equals(r.day())) {
          step(r.at(), who(r.actor()) + " raised the task's budget for " + r.day() + " by "
              + io.almanac.Usage.fromMicros(r.amountMicros()).toPlainString() + " to "
              + io.almanac.Usage.fromMicros(r.limitMicros()).toPlainString()
              + (r.note() == null || r.note().isBlank() ? "" : " (" + r.note() + ")")
              + ": windows due later that day run while its cost stays below that.");
        }
        return null;
      }

      @Override
      public Void taskRemoved(TaskRemoved r) {
        if (seen) {
          step(r.at(), "The task was removed: it is fired no more; its history stays in the journal.");
        }
        removedAt = r.at();
        return null;
      }

      @Override
      public Void windowStarted(TaskJournal.WindowStarted e) {
        // the audit reads a WindowStarted as its schedule and its start (AuditReader, auditEvents)
        step(at, "The journal holds a " + a.type() + " event for the window: " + a.detail() + ".");
        return null;
      }

      @Override
      public Void instanceScheduled(InstanceScheduled e) {
        if (dueAt == null) {
          dueAt = e.dueAt();
          dueDate = local(e.dueAt()).toLocalDate();
        }
        scheduledAt = e.at();
        scheduledKind = e.kind();
        scheduledBy = e.actor();
        reopenedFrom = from;
        Duration late = Duration.between(e.dueAt(), e.at());
        Duration offset = jitterOffset();
        if (e.kind() == RunKind.FIRST && !offset.isZero() && !releasePending) {
          // a jittered window fires at its offset after due: that part is not lateness (docs/schedules.md)
          step(at, "Due " + time(e.dueAt()) + " " + zone.getId() + ", the task's jitter " + human(spec.schedule().jitter())
              + " gives this window the offset " + human(offset) + ": it fires at " + time(e.dueAt().plus(offset))
              + " (its key and due time are unchanged).");
          late = late.minus(offset);
        }
        if (releasePending) {
          releasePending = false;
          reopenedFrom = null;
          step(at, "Released, it was scheduled to run as " + e.kind() + " at " + time(e.at()) + ", " + human(late)
              + " after due.");
          return null;
        }
        switch (e.kind()) {
          case FIRST -> {
            if (late.compareTo(ON_TIME) <= 0) {
              step(at, "Due " + time(e.dueAt()) + " " + zone.getId() + ", the trigger fired it on time"
                  + (late.compareTo(Duration.ofSeconds(1)) < 0 ? "" : " (" + human(late) + " after due"
                  + (downtime == null ? "" : ": " + downtime) + ")")
                  + " and it was scheduled to run" + (Objects.equals(e.start(), e.end()) ? "" : " (window "
                  + dateTime(e.start()) + " to " + dateTime(e.end()) + ")") + ".");
            } else {
              step(at, "Due " + time(e.dueAt()) + " " + zone.getId() + ", the trigger fired it only at " + time(e.at())
                  + ", " + human(late) + " after due" + (downtime == null ? "" : ", because " + downtime)
                  + "; as the latest window due while nothing fired it, it runs as a first run, not as a catch-up.");
            }
          }
          case RETRY -> step(at, throttledLast ? "The throttled attempt's wait passed: the window was scheduled again."
              : "The back-off passed: the window was scheduled again for "
              + (lastRetry == null ? "a retry" : "retry " + lastRetry.retryNumber()) + ".");
          case BACKFILL -> {
            if (from == null) {
              step(at, "Due " + time(e.dueAt()) + " " + zone.getId() + " but not fired on time"
                  + (downtime == null ? "" : " (" + downtime + ")") + ", it was scheduled at " + time(e.at()) + ", "
                  + human(late) + " after due, as a BACKFILL " + (e.actor() == null ? "(the catch-up policy runs missed "
                  + "windows, or an operator's backfill)." : "by " + e.actor() + "'s backfill" + noted(e.note()) + "."));
            } else {
              step(at, (e.actor() == null ? "An operator's backfill" : e.actor() + "'s backfill" + noted(e.note()))
                  + " reopened the window (it was " + from + ") and scheduled it to run as a BACKFILL.");
            }
          }
          case MANUAL -> {
            if (from == InstanceStatus.FINAL_FAILED) {
              manualRetry = true;
              step(at, who(e.actor()) + " retried the window" + noted(e.note()) + " (it was FINAL_FAILED): it was "
                  + "scheduled to run again as MANUAL.");
            } else if (from == null) {
              step(at, who(e.actor()) + " ran the task now" + noted(e.note()) + ": window " + window + " was scheduled "
                  + "to run as MANUAL.");
            } else {
              step(at, who(e.actor()) + " ran the window" + noted(e.note()) + " (it was " + from + "): it was scheduled "
                  + "to run again as MANUAL.");
            }
          }
          case RESUME -> step(at, "The interrupted attempt's window was scheduled to run again at once as RESUME"
              + " (no retry spent).");
          default -> step(at, "The window was scheduled to run as " + e.kind() + ".");
        }
        return null;
      }

      @Override
      public Void fireSkipped(FireSkipped e) {
        if (dueAt == null) {
          dueAt = e.dueAt();
          dueDate = local(e.dueAt()).toLocalDate();
        }
        if (from != null) {
          step(at, "An operator's run or backfill found the window already " + from + " (" + e.reason()
              + "): nothing changed.");
          return null;
        }
        skipText = skipped(e.reason(), e.detail(), other);
        step(at, "Due " + time(e.dueAt()) + " " + zone.getId() + ", it was skipped: " + skipText + ".");
        return null;
      }

      @Override
      public Void windowMissed(WindowMissed e) {
        if (dueAt == null) {
          dueAt = e.dueAt();
          dueDate = local(e.dueAt()).toLocalDate();
        }
        if (from != null) {
          step(at, "A miss (" + e.reason() + ") was recorded for the window, which was already " + from
              + ": its status did not change.");
          return null;
        }
        if (downtime != null) {
          step(at, "Nothing fired the window when it was due at " + time(e.dueAt()) + ": " + downtime + ".");
        }
        missText = missed(e);
        step(at, "At " + time(e.at()) + ", " + human(Duration.between(e.dueAt(), e.at())) + " after due, it was "
            + "recorded MISSED: " + missText + ".");
        return null;
      }

      @Override
      public Void attemptStarted(AttemptStarted e) {
        lastStart = e;
        attempts = Math.max(attempts, e.attempt());
        leaseExtensions = 0;
        // How late against what it waited for: a first run its due time, a retry its back-off; an operator's
        // run or a backfill only the executor (the waiting below).
        Instant ref = e.kind() == RunKind.FIRST ? (dueAt == null ? null : dueAt.plus(jitterOffset()))
            : e.kind() == RunKind.RETRY && lastRetry != null ? lastRetry.dueAt() : null;
        Duration behind = ref == null ? null : Duration.between(ref, e.at());
        String lateness = ref == null ? "" : e.kind() == RunKind.FIRST ? " (" + late(behind, "due") + ")"
            : behind.isNegative() || behind.isZero() ? " (as soon as its retry was due)"
            : " (" + human(behind) + " after its retry was due)";
        String waited = scheduledAt != null && Duration.between(scheduledAt, e.at()).compareTo(Duration.ofSeconds(5)) > 0
            ? ", after waiting " + human(Duration.between(scheduledAt, e.at())) + " for a free executor slot" : "";
        step(at, "Attempt " + e.attempt() + " (" + e.kind() + ") started at " + time(e.at()) + lateness + waited
            + " on node " + node(e.executor(), a.writer()) + ", lease until " + time(e.leaseUntil()) + ".");
        return null;
      }

      @Override
      public Void leaseExtended(LeaseExtended e) {
        leaseExtensions++;
        Step last = steps.isEmpty() ? null : steps.get(steps.size() - 1);
        String text = "Attempt " + e.attempt() + "'s heartbeat" + (leaseExtensions == 1 ? "" : "s (" + leaseExtensions + ")")
            + " extended its lease until " + time(e.leaseUntil()) + ".";
        if (leaseExtensions > 1 && last != null && last.text().startsWith("Attempt " + e.attempt() + "'s heartbeat")) {
          steps.set(steps.size() - 1, new Step(at, localIso(at), text));
        } else {
          step(at, text);
        }
        return null;
      }

      @Override
      public Void attemptSucceeded(AttemptSucceeded e) {
        succeededAt = e.at();
        throttledLast = false;
        step(at, "Attempt " + e.attempt() + " succeeded at " + time(e.at()) + " after " + human(e.duration())
            + (e.summary() == null || e.summary().isBlank() ? "" : ": " + e.summary())
            + (e.artifactUri() == null ? "" : " (" + e.artifactUri() + ")") + AuditEvent.used(e.usage()) + ".");
        return null;
      }

      @Override
      public Void attemptFailed(AttemptFailed e) {
        throttledLast = e.throttled();
        if (e.throttled()) {
          step(at, "Attempt " + e.attempt() + " was THROTTLED at " + time(e.at()) + " after " + human(e.duration())
              + ": its job asked to retry after " + human(e.throttledFor()) + (e.throttledPool() == null
              ? "; the task's pools paused for as long" : "; pool " + e.throttledPool() + " paused for as long")
              + " (not counted against the retry cap).");
          return null;
        }
        lastError = e.reason();
        step(at, "Attempt " + e.attempt() + " failed at " + time(e.at()) + " after " + human(e.duration()) + ": "
            + e.reason() + AuditEvent.used(e.usage()) + ".");
        return null;
      }

      @Override
      public Void attemptTimedOut(AttemptTimedOut e) {
        throttledLast = false; // the latest attempt's outcome is a timeout, not a throttle
        if (e.leaseUntil() == null || !e.leaseUntil().isAfter(e.at())) {
          lastError = "its lease expired" + (e.leaseUntil() == null ? "" : " at " + time(e.leaseUntil()));
          step(at, "Attempt " + e.attempt() + " timed out at " + time(e.at()) + ": " + lastError
              + (e.duration() == null ? "" : " after running " + human(e.duration())) + ".");
        } else {
          String cause = AuditEvent.causeBeforeLease(AuditEvent.recordedCause(events, current));
          lastError = "timed out before its lease ended: " + cause;
          step(at, "Attempt " + e.attempt() + " was timed out at " + time(e.at()) + ", before its lease ended at "
              + time(e.leaseUntil()) + ": " + cause + ".");
        }
        return null;
      }

      @Override
      public Void attemptInterrupted(TaskJournal.AttemptInterrupted e) {
        throttledLast = false;
        String what = switch (e.cause()) {
          case NODE_STOPPED -> "its node stopped and the job was still running when the shutdown grace ended";
          case NODE_LOST -> "its node died or left while the job ran";
          case FENCED -> "its node lost its lease (frozen, paused or cut off) and was fenced out";
        };
        lastError = "interrupted (" + e.cause() + "): " + what;
        String node = lastStart != null && lastStart.attempt() == e.attempt() && lastStart.executor() != null
            ? " on node " + node(lastStart.executor(), null) : "";
        step(at, "Attempt " + e.attempt() + node + " was interrupted at " + time(e.at()) + " (" + e.cause() + "): " + what
            + ". Its node's life stopped it, not its job: this is not a failure and spends no retry.");
        return null;
      }

      @Override
      public Void lateResultRecorded(LateResultRecorded e) {
        step(at, "A late " + e.outcome() + " result of attempt " + e.attempt() + " arrived at " + time(e.at())
            + " and was recorded for audit only: that attempt no longer held the window (" + e.detail() + ").");
        return null;
      }

      @Override
      public Void retryScheduled(RetryScheduled e) {
        lastRetry = e;
        if (throttledLast) {
          step(at, "The throttled window is tried again at " + time(e.dueAt()) + ", after the wait its job asked for; no "
              + "retry is counted (retry number stays " + e.retryNumber() + ").");
          return null;
        }
        int cap = spec == null ? 0 : spec.retry().maxRetries();
        step(at, "The retry policy scheduled retry " + e.retryNumber() + (cap > 0 ? " of " + cap : "") + ", due at "
            + time(e.dueAt()) + (e.dueAt().isAfter(e.at()) ? " (back-off " + human(Duration.between(e.at(), e.dueAt())) + ")"
            : " (at once)") + ".");
        return null;
      }

      @Override
      public Void instanceFinalFailed(InstanceFinalFailed e) {
        // the policy's decision as recorded; a final failure written before it was recorded: read from its reason
        finalReason = !LegacyReasons.legacy(e) ? e.decision() : e.reason() == null ? null : LegacyReasons.decision(e.reason());
        step(at, "It failed finally at " + time(e.at()) + ": " + e.reason() + "; it waits in the intervention queue "
            + "for an operator to retry or resolve it.");
        return null;
      }

      @Override
      public Void instanceResolved(InstanceResolved e) {
        resolveNote = e.note();
        resolvedBy = e.actor();
        step(at, who(e.actor()) + " resolved the failed window at " + time(e.at()) + " with the note \"" + e.note() + "\".");
        return null;
      }

      @Override
      public Void instanceCancelled(InstanceCancelled e) {
        cancelText = cancelled(e);
        step(at, "It was cancelled at " + time(e.at()) + (from == InstanceStatus.RUNNING ? " while attempt " + e.attempt()
            + " ran" : from == null ? "" : " while " + from) + ": " + cancelText + ".");
        return null;
      }

      @Override
      public Void effectIntended(EffectIntended e) {
        step(at, "Attempt " + e.attempt() + " was about to run effect '" + e.key() + "' (its outcome is unknown until "
            + "it is recorded).");
        return null;
      }

      @Override
      public Void effectRecorded(EffectRecorded e) {
        step(at, "Attempt " + e.attempt() + " recorded effect '" + e.key() + "' = " + e.value() + ".");
        return null;
      }

      @Override
      public Void stepRecorded(TaskJournal.StepRecorded e) {
        step(at, "Attempt " + e.attempt() + " ran step '" + e.name() + "' in " + WindowSteps.duration(e.duration())
            + WindowSteps.cost(e.usage()) + " and recorded its result: later attempts of this window get it without running it.");
        return null;
      }

      @Override
      public Void stepsReplayed(TaskJournal.StepsReplayed e) {
        step(at, "Attempt " + e.attempt() + " got the recorded result" + (e.names().size() == 1 ? " of step " : "s of steps ")
            + WindowSteps.quoted(e.names()) + " without running " + (e.names().size() == 1 ? "it." : "them."));
        return null;
      }

      @Override
      public Void skipRangeOpened(TaskJournal.SkipRangeOpened e) {
        if (e.skipReason() != null) {
          fireSkipped(new FireSkipped(e.window(), e.start(), e.end(), e.dueAt(), e.skipReason(), e.detail(), e.at()));
        } else {
          windowMissed(new WindowMissed(e.window(), e.start(), e.end(), e.dueAt(), e.missReason(), e.detail(), e.at()));
        }
        rangeText = "the first window of a skip range: the windows due after it and decided alike are recorded with it, "
            + "as one record";
        step(at, "It opened a skip range: each window due after it and decided the same way (" + e.range().reason()
            + ") is one of its windows, with no event of its own, until a window is decided otherwise.");
        return null;
      }

      @Override
      public Void skipRangeClosed(TaskJournal.SkipRangeClosed e) {
        if (e.count() <= 1) {
          rangeText = null; // a range of its one window: a window skipped as any other
          step(at, "The skip range it opened was closed: it holds this window only.");
          return null;
        }
        rangeText = "the first of " + e.count() + (e.count() == 1 ? " window" : " windows from " + e.window() + " to "
            + e.lastWindow()) + ", recorded as one skip range";
        step(at, "The skip range it opened was closed: " + e.count() + (e.count() == 1 ? " window" : " windows, from "
            + e.window() + " to " + e.lastWindow() + " (last due " + time(e.lastDue()) + ")") + ".");
        return null;
      }

      @Override
      public Void windowsSkipped(TaskJournal.WindowsSkipped e) {
        if (e.skipReason() != null) {
          fireSkipped(new FireSkipped(e.window(), e.start(), e.end(), e.dueAt(), e.skipReason(), e.detail(), e.at()));
        } else {
          windowMissed(new WindowMissed(e.window(), e.start(), e.end(), e.dueAt(), e.missReason(), e.detail(), e.at()));
        }
        rangeText = "the first of " + e.count() + " windows from " + e.window() + " to " + e.lastWindow()
            + ", recorded as one skip range";
        step(at, "It was recorded with the " + (e.count() - 1) + " windows after it, to " + e.lastWindow() + " (due "
            + time(e.lastDue()) + "), decided alike, as one skip range.");
        return null;
      }

      @Override
      public Void windowWaiting(WindowWaiting e) {
        if (dueAt == null) {
          dueAt = e.dueAt();
          dueDate = local(e.dueAt()).toLocalDate();
        }
        waiting = e;
        step(at, "Due " + time(e.dueAt()) + " " + zone.getId() + (downtime == null ? "" : " (" + downtime + ")")
            + ", it was recorded WAITING for " + e.waitingFor() + " until " + time(e.waitUntil()) + " ("
            + e.kind() + (Objects.equals(e.start(), e.end()) ? "" : ", window " + dateTime(e.start()) + " to "
            + dateTime(e.end())) + ").");
        return null;
      }

      @Override
      public Void waitSatisfied(WaitSatisfied e) {
        released = e;
        releasePending = true;
        step(at, "Released at " + time(e.at()) + (waiting == null ? "" : ", after waiting "
            + human(Duration.between(waiting.at(), e.at()))) + ": " + e.detail() + ".");
        return null;
      }

      @Override
      public Void waitEnded(WaitEnded e) {
        releasePending = false;
        skipText = e.pool() != null && e.reason() == SkipReason.BUDGET_EXHAUSTED
            ? "resource pool " + e.pool() + "'s budget for the day was spent (BUDGET_EXHAUSTED: " + e.detail() + "); the "
                + "pool's BUDGET_EXHAUSTED alert fires once a day per node, the next day starts afresh, and an operator may "
                + "raise the pool's budget for the day"
            : skipped(e.reason(), e.detail(), other);
        if (e.reason() == SkipReason.DEPENDENCY_NOT_MET || e.reason() == SkipReason.CONDITION_NOT_MET) {
          step(at, "Its wait ended at " + time(e.at()) + (waiting == null || waiting.waitUntil() == null ? ""
              : " (deadline " + time(waiting.waitUntil()) + ")") + " without what it waited for: it was recorded SKIPPED, "
              + skipText + ", and a WAIT_EXPIRED alert was raised.");
        } else {
          step(at, "Released, it did not run: " + skipText + ".");
        }
        return null;
      }

      @Override
      public Void conditionCheckFailed(ConditionCheckFailed e) {
        conditionError = "condition '" + e.condition() + "' failed: " + e.error();
        step(at, "A poll of condition '" + e.condition() + "' failed at " + time(e.at()) + ": " + e.error()
            + "; it is polled again at the next poll.");
        return null;
      }

      @Override
      public Void eventReceived(EventReceived e) {
        eventsReceived++;
        firstEventId = firstEventId == null ? e.eventId() : firstEventId;
        lastEventId = e.eventId();
        if (eventsReceived == 1 && eventsDuplicated == 0) {
          step(at, "Event " + e.type() + " id " + e.eventId() + " arrived at " + time(e.at())
              + (e.eventTime() == null ? "" : " (event time " + time(e.eventTime()) + ")")
              + (e.summary() == null || e.summary().isBlank() ? "" : ": " + e.summary())
              + (before == null ? "" : "; it decided the window") + ".");
        } else {
          coalesced(at);
        }
        return null;
      }

      @Override
      public Void eventDuplicated(EventDuplicated e) {
        eventsDuplicated++;
        coalesced(at);
        return null;
      }

      @Override
      public Void attemptLogged(TaskJournal.AttemptLogged e) {
        String first = e.log().firstStackLine();
        String lines = e.lines().size() + (e.lines().size() == 1 ? " line" : " lines")
            + (e.droppedLines() > 0 ? " (and " + e.droppedLines() + " dropped)" : "");
        step(at, first == null ? "Attempt " + e.attempt() + " logged " + lines + " (almanac logs)."
            : "Attempt " + e.attempt() + "'s job threw " + first + "; it logged " + lines + " (almanac logs shows them "
            + "and the stack trace).");
        return null;
      }

      @Override
      public Void deadlineMissed(TaskJournal.DeadlineMissed e) {
        step(at, "Its deadline " + time(e.deadline()) + " (" + human(Duration.between(e.dueAt(), e.deadline()))
            + " after due) passed while it was still " + e.status() + (e.attempt() > 0 ? " (attempt " + e.attempt() + ")" : "")
            + ": DEADLINE_MISSED was recorded at " + time(e.at()) + " and a DEADLINE_MISSED alert was raised; the window"
            + " went on.");
        return null;
      }

      @Override
      public Void upstreamRerunRecorded(UpstreamRerunRecorded e) {
        step(at, "Upstream task " + e.upstream() + " succeeded for its window " + e.upstreamWindow() + " at "
            + time(e.at()) + ", after this window had " + (from == null ? "ended" : "been " + from) + ": "
            + e.decision() + (e.detail() == null || e.detail().isBlank() ? "" : " (" + e.detail() + ")") + ".");
        return null;
      }

      @Override
      public Void poolWaited(TaskJournal.PoolWaited e) {
        poolWait = e;
        step(at, "The window waited for resource pool " + e.pool() + ": " + switch (e.reason()) {
          case FULL -> "its max-concurrent attempts were running across the cluster";
          case RATE -> "its rate allowed no start" + (e.until() == null ? "" : " before " + time(e.until()));
          case PAUSED -> "a throttled job paused it" + (e.until() == null ? "" : " until " + time(e.until()));
          case BUDGET -> "its budget for the day was spent";
        } + " (recorded once per pool and reason in an attempt; it starts when every pool it names has room).");
        return null;
      }
    }

    /** The events coalesced into the window, one step updated in place while nothing else happens between them. */
    private void coalesced(Instant at) {
      String text = "Coalesced " + eventsText() + ".";
      Step last = steps.isEmpty() ? null : steps.get(steps.size() - 1);
      if (last != null && last.text().startsWith("Coalesced ")) {
        steps.set(steps.size() - 1, new Step(at, localIso(at), text));
      } else {
        step(at, text);
      }
    }

    /** e.g. {@code 10000 events (2000 distinct ids, 8000 duplicates), first id X, last id Y}. */
    private String eventsText() {
      long all = eventsReceived + eventsDuplicated;
      return all + (all == 1 ? " event" : " events") + " (" + eventsReceived + (eventsReceived == 1 ? " distinct id, "
          : " distinct ids, ") + eventsDuplicated + (eventsDuplicated == 1 ? " duplicate)" : " duplicates)")
          + (firstEventId == null ? "" : ", first id " + firstEventId + ", last id " + lastEventId);
    }

    private String skipped(SkipReason r, String why, WindowState o) {
      String detail = why == null ? "" : why;
      return switch (r) {
        case PREVIOUS_RUNNING -> {
          String policy = spec == null ? "the overlap policy" : "the overlap policy " + spec.overlap();
          if (o != null) {
            yield "window " + o.key() + " was RUNNING (attempt " + o.attempt() + " on node " + node(o.executor(), null)
                + ", lease until " + time(o.leaseUntil()) + ") and " + policy + " runs one window at a time"
                + " (PREVIOUS_RUNNING)";
          }
          yield detail + " and " + policy + " runs one window at a time (PREVIOUS_RUNNING)";
        }
        case BUFFER_FULL -> detail + " and " + (spec == null ? "the overlap policy" : "the overlap policy " + spec.overlap())
            + " queues no more (BUFFER_FULL)";
        case PAUSED -> pausedOnFailures != null ? "the task had paused itself since " + time(pausedAt) + ", after "
            + failures(pausedOnFailures) + ", so the window was recorded SKIPPED (PAUSED)"
            : "the task was paused" + (pausedAt == null ? "" : " since " + time(pausedAt) + " by an operator")
            + ", so the window was recorded SKIPPED (PAUSED)";
        case WINDOW_EXISTS -> "the window already had an instance (WINDOW_EXISTS: " + detail + ")";
        case DEPENDENCY_NOT_MET -> "a dependency had not succeeded for this window (DEPENDENCY_NOT_MET: " + detail + ")";
        case CONDITION_NOT_MET -> "the task's condition did not hold (CONDITION_NOT_MET: " + detail + ")"
            + (conditionError == null ? "" : "; the last poll failed: " + conditionError);
        case BUDGET_EXHAUSTED -> "the task's budget for the day was spent (BUDGET_EXHAUSTED: " + detail + "); the day's "
            + "first such skip raises a BUDGET_EXHAUSTED alert, the next day starts afresh, and an operator may raise the "
            + "budget for the day";
        case EXCLUDED -> excludedText(detail);
        case OUT_OF_BOUNDS -> outOfBoundsText(detail);
      };
    }

    // --- richer schedules (docs/schedules.md), told from the spec the journal holds ---

    /** The window's jitter offset by the task's spec; zero without jitter. */
    private Duration jitterOffset() {
      if (spec == null || spec.schedule() == null || spec.schedule().jitter() == null) {
        return Duration.ZERO;
      }
      return io.almanac.schedule.Jitter.offset(taskId, window, spec.schedule().jitter());
    }

    /** Which calendar of the spec holds the window's due date. */
    private String excludedText(String detail) {
      if (spec != null && spec.schedule() != null && spec.schedule().calendars() != null && dueDate != null) {
        for (SpecRecord.Calendar c : spec.schedule().calendars()) {
          try {
            String entry = io.almanac.ExclusionCalendar.of(c.name(), c.dates()).entryFor(dueDate);
            if (entry != null) {
              return "its due date " + dueDate + " (" + zone.getId() + ") is in the task's exclusion calendar " + c.name()
                  + " (" + entry + "), so it was recorded SKIPPED (EXCLUDED) and did not run";
            }
          } catch (RuntimeException e) {
            // a stored calendar today's rules refuse: told from the record below
          }
        }
      }
      return "its due date is in an exclusion calendar of the task (EXCLUDED: " + detail + ")";
    }

    /** Which bound of the spec the window is outside of. */
    private String outOfBoundsText(String detail) {
      if (spec != null && spec.schedule() != null && dueAt != null) {
        SpecRecord.Schedule b = spec.schedule();
        try {
          Instant start = io.almanac.schedule.Bounds.start(b.from(), zone);
          Instant end = io.almanac.schedule.Bounds.end(b.until(), zone);
          if (start != null && dueAt.isBefore(start)) {
            return "it was due " + dateTime(dueAt) + " " + zone.getId() + ", before the task's start bound (from "
                + b.from() + "), so it was recorded SKIPPED (OUT_OF_BOUNDS): the trigger fired it before the bounds changed";
          }
          if (end != null && !dueAt.isBefore(end)) {
            return "it was due " + dateTime(dueAt) + " " + zone.getId() + ", after the task's end bound (until "
                + b.until() + "), so it was recorded SKIPPED (OUT_OF_BOUNDS): the trigger fired it before the bounds changed";
          }
        } catch (RuntimeException e) {
          // told from the record below
        }
      }
      return "it was due outside the task's bounds (OUT_OF_BOUNDS: " + detail + ")";
    }

    private String missed(WindowMissed e) {
      MissReason r = e.reason();
      String horizon = spec == null ? "" : " of " + human(spec.catchUp().horizon());
      return switch (r) {
        case OUTSIDE_HORIZON -> "it was older than the catch-up horizon" + horizon
            + ", and windows beyond it are not run whatever the catch-up mode (OUTSIDE_HORIZON)";
        case BACKFILL_NOT_ALLOWED -> {
          if (spec != null && spec.catchUp().mode() == io.almanac.CatchUpPolicy.Mode.NONE) {
            yield "the catch-up policy NONE records windows that were not fired within the on-time grace as MISSED "
                + "instead of running them (BACKFILL_NOT_ALLOWED)";
          }
          yield "the catch-up policy " + (spec == null ? "" : spec.catchUp().mode() + " ") + "does not run it: "
              + e.detail() + " (BACKFILL_NOT_ALLOWED)";
        }
      };
    }

    /**
     * Who or what cancelled the window, from its typed cause (R6, R31); a cancel written before the
     * cause was recorded is told by {@link LegacyReasons}. The reason is shown as recorded.
     */
    /** @return the operator who acted ({@code alice}), or {@code An operator} when not recorded */
    private static String who(String actor) {
      return actor == null ? "An operator" : actor;
    }

    /** @return {@code  (note: "...")}, or empty without a note */
    private static String noted(String note) {
      return note == null || note.isBlank() ? "" : " (note: \"" + note + "\")";
    }

    private static String cancelled(InstanceCancelled e) {
      String reason = e.reason() == null ? "" : e.reason();
      TaskJournal.CancelCause cause = e.cause() != null ? e.cause() : LegacyReasons.cancelCause(e.reason());
      return switch (cause) {
        case TASK_REMOVED -> "the task was removed";
        case SUPERSEDED -> "the overlap policy CANCEL_PREVIOUS cancels a running or waiting window when the next one fires ("
            + reason + ")";
        case OPERATOR -> (e.actor() == null ? "an operator" : e.actor()) + " cancelled it with the reason \"" + reason + "\"";
      };
    }

    /** Why nothing happened between the task's previous event and the window's first one, if the journal shows it. */
    private String gap(AuditEvent previous, AuditEvent first, TaskJournal.WindowEvent e) {
      Placed placed = e.accept(PLACED);
      Instant due = placed == null ? null : placed.dueAt();
      if (due != null && dueDate == null) {
        dueDate = local(due).toLocalDate();
      }
      if (due == null || first.at() == null || Duration.between(due, first.at()).compareTo(RESTART_SHOWN) <= 0) {
        return null; // on time: no gap to explain
      }
      boolean late = Duration.between(due, first.at()).compareTo(ON_TIME) > 0;
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

    private String verdict(WindowState w) {
      long all = eventsReceived + eventsDuplicated;
      String base = rangeText == null ? statusVerdict(w) : statusVerdict(w) + "; " + rangeText;
      return all > 1 ? base + "; it coalesced " + eventsText() : base;
    }

    private String statusVerdict(WindowState w) {
      String verdict = openVerdict(w);
      // a pause holds every attempt not started (the runtime's PauseScope): say so of a window that waits
      return pausedAt != null && (w.status() == InstanceStatus.PENDING || w.status() == InstanceStatus.RETRY_WAIT)
          ? verdict + "; held by the task's pause since " + time(pausedAt) + ": it starts after the resume" : verdict;
    }

    private String openVerdict(WindowState w) {
      String due = dueAt == null ? "" : "due " + time(dueAt) + " " + zone.getId();
      return switch (w.status()) {
        case WAITING -> "waiting for " + (waiting == null ? "its dependency or condition" : waiting.waitingFor())
            + " until " + time(w.waitUntil() != null ? w.waitUntil() : waiting == null ? null : waiting.waitUntil())
            + (due.isEmpty() ? "" : " (" + due + ")") + (conditionError == null ? "" : "; last poll: " + conditionError);
        case SUCCEEDED -> succeeded(w, due);
        case SKIPPED -> "skipped: " + (skipText != null ? skipText : w.reason());
        case MISSED -> "missed: " + (downtime == null ? "" : downtime + "; ") + (missText != null ? missText : w.reason());
        case FINAL_FAILED -> "failed finally after " + attempts + (attempts == 1 ? " attempt" : " attempts")
            + (lastError == null ? "" : ", last error: " + lastError) + (finalReason == null ? ""
            : " (" + finalReason + ")") + "; waiting in the intervention queue for an operator";
        case RESOLVED -> "resolved by " + (resolvedBy == null ? "an operator" : resolvedBy) + " after failing finally" + (lastError == null ? "" : " (last error: "
            + lastError + ")") + (resolveNote == null ? "" : ", with the note \"" + resolveNote + "\"");
        case CANCELLED -> "cancelled: " + (cancelText != null ? cancelText : w.reason());
        case PENDING -> "waiting to start: scheduled " + (scheduledKind == null ? "" : "as " + scheduledKind + " ")
            + (scheduledAt == null ? "" : "at " + time(scheduledAt) + " ") + "and not yet taken by an executor"
            + (poolWait == null ? "" : "; it waits for resource pool " + poolWait.pool() + " (" + poolWait.reason()
            + (poolWait.until() == null ? "" : " until " + time(poolWait.until())) + ")");
        case RUNNING -> "running: attempt " + w.attempt() + " on node " + node(w.executor(), null) + " since "
            + time(w.startedAt()) + ", lease until " + time(w.leaseUntil());
        case RETRY_WAIT -> throttledLast ? "throttled: attempt " + w.attempt() + " was throttled by its job; tried again at "
            + time(w.retryDueAt()) + " (no retry counted)" : "waiting to retry: retry " + w.retries() + " due at " + time(w.retryDueAt()) + " after attempt "
            + w.attempt() + (lastError == null ? " failed" : " failed: " + lastError);
        case FAILED, TIMED_OUT -> "attempt " + w.attempt() + " " + (w.status() == InstanceStatus.FAILED ? "failed" : "timed out")
            + (lastError == null ? "" : ": " + lastError) + "; the retry policy has not decided yet";
        case INTERRUPTED -> "attempt " + w.attempt() + " " + (lastError == null ? "was interrupted" : lastError)
            + "; what follows has not been decided yet";
      };
    }

    private String succeeded(WindowState w, String due) {
      Instant started = lastStart == null ? w.startedAt() : lastStart.at();
      String node = lastStart == null ? node(w.executor(), null) : node(lastStart.executor(), null);
      String done = "succeeded " + time(succeededAt == null ? w.updatedAt() : succeededAt);
      int attempt = w.attempt();
      if (manualRetry) {
        return "ran after " + (scheduledBy == null ? "an operator" : scheduledBy) + "'s retry: " + due + ", attempt " + attempt + " started " + time(started) + " on node "
            + node + ", " + done;
      }
      if (scheduledKind == RunKind.MANUAL) {
        return "ran by " + (scheduledBy == null ? "an operator" : scheduledBy) + ": " + (reopenedFrom == null ? "run now" : "run of a " + reopenedFrom + " window")
            + ", attempt " + attempt + " started " + time(started) + " on node " + node + ", " + done;
      }
      if (released != null && (scheduledKind == RunKind.FIRST || scheduledKind == RunKind.BACKFILL)) {
        return "ran after its wait: " + due + ", released " + time(released.at()) + " (" + released.detail() + "), attempt "
            + attempt + " started " + time(started) + " on node " + node + ", " + done;
      }
      if (scheduledKind == RunKind.BACKFILL) {
        return "ran late: fired as a BACKFILL at " + time(scheduledAt) + ", " + human(Duration.between(dueAt, scheduledAt))
            + " after due" + (reopenedFrom == null ? (downtime == null ? ", because it was not fired on time"
            : ", because " + downtime) : ", reopened from " + reopenedFrom + " by "
            + (scheduledBy == null ? "an operator" : scheduledBy) + "'s backfill")
            + "; attempt " + attempt + " started " + time(started) + " on node " + node + ", " + done;
      }
      Duration late = dueAt == null || started == null ? Duration.ZERO
          : Duration.between(dueAt.plus(jitterOffset()), started);
      if (attempt > 1) {
        return "ran after " + (attempt - 1) + (attempt == 2 ? " retry" : " retries") + ": " + due
            + (lastError == null ? "" : ", last error before: " + lastError) + "; attempt " + attempt + " started "
            + time(started) + " on node " + node + ", " + done;
      }
      if (late.compareTo(ON_TIME) <= 0) {
        return "ran on time: " + due + ", attempt 1 started " + time(started) + " (" + late(late, "due")
            + (downtime == null ? "" : ": " + downtime) + ") on node " + node + ", " + done;
      }
      String because = downtime != null ? downtime
          : scheduledAt != null && Duration.between(scheduledAt, started).compareTo(ON_TIME) > 0
              ? "it waited " + human(Duration.between(scheduledAt, started)) + " for a free executor slot"
              : "the trigger fired it late";
      return "ran late: " + due + ", attempt 1 started " + time(started) + ", " + human(late) + " after due, because "
          + because + "; " + done;
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
          String why = missed ? missed(new WindowMissed(window, null, null, d, r.missReason(), r.detail(), r.openedAt()))
              : skipped(r.skipReason(), r.detail(), null);
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
        Placed p = a.event() instanceof TaskJournal.Event e ? e.accept(PLACED) : null;
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

    private void step(Instant at, String text) {
      String t = shorten(text);
      while (t.endsWith("..")) {
        t = t.substring(0, t.length() - 1); // a reason that ends its own sentence
      }
      steps.add(new Step(at, localIso(at), t));
    }

    private String localIso(Instant at) {
      return Timeline.local(at, zone);
    }

    private ZonedDateTime local(Instant at) {
      return at.atZone(zone);
    }

    /** A time in the task's zone: the time of day on the window's due date, else with its date. */
    private String time(Instant at) {
      if (at == null) {
        return "(unknown)";
      }
      ZonedDateTime z = local(at);
      return dueDate != null && z.toLocalDate().equals(dueDate) ? TIME.format(z) : DATE_TIME.format(z);
    }

    private String dateTime(Instant at) {
      return at == null ? "(unknown)" : DATE_TIME.format(local(at));
    }
  }

  /**
   * The window that made a PREVIOUS_RUNNING skip ({@link FireSkipped}, or a {@link WaitEnded} of a
   * released window) skip, in the task's state as it stood when the skip was recorded: the first
   * fresh window that was RUNNING, as the fire decision picks it (a released window only minds
   * windows that started before it). Null for other events, or when the state shows none.
   */
  static WindowState previousRunning(State task, TaskJournal.WindowEvent skip) {
    Boolean released = previousRunningSkip(skip);
    if (released == null) {
      return null;
    }
    WindowState self = task.windows().get(skip.window());
    for (WindowState w : task.activeForOverlap()) {
      if (w.status() != InstanceStatus.RUNNING) {
        continue;
      }
      if (released && (w.key().equals(skip.window()) || w.start() == null || self == null || self.start() == null
          || !w.start().isBefore(self.start()))) {
        continue;
      }
      return w;
    }
    return null;
  }

  /** @return null when the event is no PREVIOUS_RUNNING skip, else whether it ends a released window's wait */
  private static Boolean previousRunningSkip(TaskJournal.WindowEvent e) {
    if (e instanceof FireSkipped f && f.reason() == SkipReason.PREVIOUS_RUNNING
        || e instanceof TaskJournal.SkipRangeOpened r && r.skipReason() == SkipReason.PREVIOUS_RUNNING
        || e instanceof TaskJournal.WindowsSkipped r2 && r2.skipReason() == SkipReason.PREVIOUS_RUNNING) {
      return false;
    }
    return e instanceof WaitEnded w && w.reason() == SkipReason.PREVIOUS_RUNNING ? true : null;
  }

  /** Where an event that places its window puts it: its start and due time. */
  private record Placed(Instant start, Instant dueAt) {}

  /** The events that place a window (a schedule, a skip, a miss, a wait) with its start and due time; null for others. */
  private static final TaskJournal.Visitor<Placed> PLACED = new TaskJournal.Visitor<>() {
    @Override
    public Placed specDefined(SpecDefined e) {
      return null;
    }

    @Override
    public Placed taskPaused(TaskPaused e) {
      return null;
    }

    @Override
    public Placed taskResumed(TaskResumed e) {
      return null;
    }

    @Override
    public Placed taskRemoved(TaskRemoved e) {
      return null;
    }

    @Override
    public Placed budgetRaised(TaskJournal.BudgetRaised e) {
      return null;
    }

    @Override
    public Placed instanceScheduled(InstanceScheduled e) {
      return new Placed(e.start(), e.dueAt());
    }

    @Override
    public Placed fireSkipped(FireSkipped e) {
      return new Placed(e.start(), e.dueAt());
    }

    @Override
    public Placed windowMissed(WindowMissed e) {
      return new Placed(e.start(), e.dueAt());
    }

    @Override
    public Placed skipRangeOpened(TaskJournal.SkipRangeOpened e) {
      return new Placed(e.start(), e.dueAt());
    }

    @Override
    public Placed skipRangeClosed(TaskJournal.SkipRangeClosed e) {
      return null;
    }

    @Override
    public Placed windowsSkipped(TaskJournal.WindowsSkipped e) {
      return new Placed(e.start(), e.dueAt());
    }

    @Override
    public Placed attemptStarted(AttemptStarted e) {
      return null;
    }

    @Override
    public Placed windowStarted(TaskJournal.WindowStarted e) {
      return null; // read as its schedule and its start
    }

    @Override
    public Placed leaseExtended(LeaseExtended e) {
      return null;
    }

    @Override
    public Placed attemptSucceeded(AttemptSucceeded e) {
      return null;
    }

    @Override
    public Placed attemptFailed(AttemptFailed e) {
      return null;
    }

    @Override
    public Placed attemptTimedOut(AttemptTimedOut e) {
      return null;
    }

    @Override
    public Placed attemptInterrupted(TaskJournal.AttemptInterrupted e) {
      return null;
    }

    @Override
    public Placed lateResultRecorded(LateResultRecorded e) {
      return null;
    }

    @Override
    public Placed retryScheduled(RetryScheduled e) {
      return null;
    }

    @Override
    public Placed instanceFinalFailed(InstanceFinalFailed e) {
      return null;
    }

    @Override
    public Placed instanceResolved(InstanceResolved e) {
      return null;
    }

    @Override
    public Placed instanceCancelled(InstanceCancelled e) {
      return null;
    }

    @Override
    public Placed effectIntended(EffectIntended e) {
      return null;
    }

    @Override
    public Placed effectRecorded(EffectRecorded e) {
      return null;
    }

    @Override
    public Placed stepRecorded(TaskJournal.StepRecorded e) {
      return null;
    }

    @Override
    public Placed stepsReplayed(TaskJournal.StepsReplayed e) {
      return null;
    }

    @Override
    public Placed eventReceived(EventReceived e) {
      return null;
    }

    @Override
    public Placed eventDuplicated(EventDuplicated e) {
      return null;
    }

    @Override
    public Placed windowWaiting(WindowWaiting e) {
      return new Placed(e.start(), e.dueAt());
    }

    @Override
    public Placed waitSatisfied(WaitSatisfied e) {
      return null;
    }

    @Override
    public Placed waitEnded(WaitEnded e) {
      return null;
    }

    @Override
    public Placed conditionCheckFailed(ConditionCheckFailed e) {
      return null;
    }

    @Override
    public Placed upstreamRerunRecorded(UpstreamRerunRecorded e) {
      return null;
    }

    @Override
    public Placed poolWaited(TaskJournal.PoolWaited e) {
      return null;
    }

    @Override
    public Placed attemptLogged(TaskJournal.AttemptLogged e) {
      return null;
    }

    @Override
    public Placed deadlineMissed(TaskJournal.DeadlineMissed e) {
      return null;
    }
  };

  /** e.g. {@code 3 windows in a row ended FINAL_FAILED (from 2026-11-27 to 2026-11-29)}. */
  private static String failures(TaskPaused p) {
    return p.failures().count() + " windows in a row ended FINAL_FAILED (from " + p.failures().first() + " to "
        + p.failures().last() + ")";
  }

  /**
   * A node as people read it: an executor's id ({@code UniqueAddress(pekko://sys@host:port,uid)}) or a
   * writer stamp ({@code pekko://sys@host:port#incarnation}) shortened to {@code sys@host:port}.
   */
  static String node(String executor, WriterStamp writer) {
    String id = executor != null ? executor : writer == null ? null : writer.node();
    if (id == null) {
      return "(unknown)";
    }
    Matcher m = ADDRESS.matcher(id);
    return m.find() ? m.group(1) : id;
  }

  private static final Pattern UNIQUE_ADDRESS = Pattern.compile("UniqueAddress\\(pekko://([^,)\\s]+),-?\\d+\\)");

  /** Executor ids inside texts (a timeout's cause names one) shown as nodes. */
  static String shorten(String text) {
    return text == null ? null : UNIQUE_ADDRESS.matcher(text).replaceAll("$1");
  }

  private static final Pattern ADDRESS = Pattern.compile("pekko://([^,#)\\s]+)");

  private static String late(Duration d, String what) {
    if (d.isNegative()) {
      return human(d.negated()) + " before " + what;
    }
    return d.isZero() ? "on the dot" : human(d) + " late";
  }

  private static String specText(SpecRecord s) {
    return (s.once() != null ? "once at " + s.once() : "cron '" + s.cron() + "'") + " in " + s.zone() + ", window "
        + s.window() + scheduleText(s.schedule());
  }

  /** The richer schedule's parts, e.g. {@code , also cron '0 0 9 1 * ?', from 2027-01-01, jitter 5m}. */
  private static String scheduleText(SpecRecord.Schedule s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    if (s.alsoCrons() != null) {
      s.alsoCrons().forEach(c -> b.append(", also cron '").append(c).append('\''));
    }
    if (s.from() != null) {
      b.append(", from ").append(s.from());
    }
    if (s.until() != null) {
      b.append(", until ").append(s.until());
    }
    if (s.calendars() != null) {
      b.append(", excluding calendar").append(s.calendars().size() == 1 ? " " : "s ")
          .append(String.join(", ", s.calendars().stream().map(SpecRecord.Calendar::name).toList()));
    }
    if (s.jitter() != null) {
      b.append(", jitter ").append(human(s.jitter()));
    }
    return b.toString();
  }

  /**
   * Where a window of a built-in window spec starts, from its key: a per-firing key is its instant,
   * a daily key its local date's start, an hourly key its local hour; empty for other keys.
   */
  static Optional<Instant> guessStart(String key, ZoneId zone) {
    try {
      return Optional.of(Instant.parse(key));
    } catch (RuntimeException ignored) {
      // not per-firing
    }
    try {
      return Optional.of(LocalDate.parse(key).atStartOfDay(zone).toInstant());
    } catch (RuntimeException ignored) {
      // not daily
    }
    Matcher m = HOURLY_KEY.matcher(key);
    if (m.matches()) {
      try {
        return Optional.of(LocalDateTime.of(LocalDate.parse(m.group(1)), java.time.LocalTime.of(Integer.parseInt(m.group(2)), 0))
            .atZone(zone).toInstant());
      } catch (RuntimeException ignored) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /**
   * A duration in words: {@code 120 ms}, {@code 2 s}, {@code 20 min}, {@code 1 h 5 min}, {@code 24 h}, {@code 3 d 2 h} (hours up to two days).
   *
   * @param d a duration, or null
   * @return it in words
   */
  public static String human(Duration d) {
    if (d == null) {
      return "(unknown)";
    }
    if (d.isNegative()) {
      return d.getSeconds() == Long.MIN_VALUE ? "-" + human(Duration.ofSeconds(Long.MAX_VALUE)) : "-" + human(d.negated());
    }
    long ms = io.almanac.spi.Saturating.millis(d); // a job's wait past its bound (made from JSON) never overflows
    if (ms < 1000) {
      return ms + " ms";
    }
    long s = d.getSeconds();
    if (s < 60) {
      long tenths = (ms % 1000) / 100;
      return s + (tenths == 0 || s >= 10 ? "" : "." + tenths) + " s";
    }
    if (s < 3600) {
      return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
    }
    if (s < 2 * 86_400) {
      return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
    }
    return s / 86_400 + " d" + (s % 86_400 / 3600 == 0 ? "" : " " + s % 86_400 / 3600 + " h");
  }
}
