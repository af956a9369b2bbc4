package io.almanac.persistence.audit;

import io.almanac.InstanceStatus;
import io.almanac.SkipReason;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.Rules;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.FireSkipped;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.TaskPaused;
import io.almanac.journal.TaskJournal.WaitEnded;
import io.almanac.journal.WindowState;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.audit.AuditKinds.Placed;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
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

  /**
   * How late a first run may start and still be called on time: the runtime's default on-time grace
   * ({@link Rules#DEFAULT_ON_TIME_GRACE}, {@code almanac.task.recent-fire-grace}), compared by {@link Rules#onTime}.
   */
  public static final Duration ON_TIME = Rules.DEFAULT_ON_TIME_GRACE;

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
  static final HotState KEEP_ALL = new HotState(Integer.MAX_VALUE, Duration.ofDays(365L * 1000), 1);
  /**
   * The task's fold, for the windows that ran while the explained one was skipped: a window leaves
   * it only when done (R30), so every window that runs is in it however long the journal; done ones
   * are not needed and leave early, which keeps a long journal's fold small.
   */
  static final HotState TASK_HOT = new HotState(64, Duration.ofHours(1), 1);
  static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
  static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
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

    final String window;
    private final long maxKept;
    private final List<AuditEvent> kept = new ArrayList<>();
    private State task = State.empty(1);
    final Map<Long, WindowState> runningAtSkip = new HashMap<>();
    final LinkedHashMap<String, Instant> starts = new LinkedHashMap<>();
    long read;
    long firstSeq = 1;
    ZoneId zone = ZoneOffset.UTC;
    Instant lastAt;
    private AuditEvent last;
    private AuditEvent previous;
    AuditEvent previousAtFirst;
    /** The event before each skip range's first event (the windows its first window stands for, for why). */
    final Map<String, AuditEvent> previousAtRange = new HashMap<>();
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
        Placed p = AuditKinds.placed(e);
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
    Verifier.Registration registered;
    SpecRecord registeredSpec;

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
  static Boolean previousRunningSkip(TaskJournal.WindowEvent e) {
    if (e instanceof FireSkipped f && f.reason() == SkipReason.PREVIOUS_RUNNING
        || e instanceof TaskJournal.SkipRangeOpened r && r.skipReason() == SkipReason.PREVIOUS_RUNNING
        || e instanceof TaskJournal.WindowsSkipped r2 && r2.skipReason() == SkipReason.PREVIOUS_RUNNING) {
      return false;
    }
    return e instanceof WaitEnded w && w.reason() == SkipReason.PREVIOUS_RUNNING ? true : null;
  }


  /** e.g. {@code 3 windows in a row ended FINAL_FAILED (from 2026-11-27 to 2026-11-29)}. */
  static String failures(TaskPaused p) {
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

  static String late(Duration d, String what) {
    if (d.isNegative()) {
      return human(d.negated()) + " before " + what;
    }
    return d.isZero() ? "on the dot" : human(d) + " late";
  }

  static String specText(SpecRecord s) {
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
