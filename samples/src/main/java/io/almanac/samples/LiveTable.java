package io.almanac.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import io.almanac.Almanac;
import io.almanac.DailyUsage;
import io.almanac.InstanceStatus;
import io.almanac.SkipReason;
import io.almanac.TaskView;
import io.almanac.WindowView;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Renders what the demo node shows every few seconds: one line per task (its latest window, status,
 * attempt, next fire in the task's zone and in UTC, counts, and the summary or reason), the
 * windows still running or waiting to retry, the intervention queue, and once after a restart what
 * happened to the windows that fell due while the node was down; for the agent-job features, a
 * line per resource pool (in use, waiting, the store's answers, throttled attempts), a line per task
 * with a budget (today's cost against the limit, windows skipped), late windows (their deadline
 * missed) and the typed reason of each skip. Everything comes from Almanac's public views and typed
 * fields ({@link Almanac#task}, {@link Almanac#windows}, {@link Almanac#interventionQueue()}, {@link
 * Almanac#usage}, {@link WindowView#skipReason()}, {@link WindowView#deadlineMissedAt()}, the
 * node's meters), never from a message's text.
 */
final class LiveTable {

  private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss z", Locale.ROOT);
  private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss'Z'", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final String ROW = "%-16s %-20s %-12s %3s  %-22s %-15s %-22s %s";

  private final Almanac almanac;
  private final Clock clock;
  private final Instant startedAt;
  private final Duration downReportAfter;
  private final Map<String, Integer> pools;
  private String downReport;

  /**
   * @param almanac the running Almanac
   * @param startedAt when this node started: windows due before it and created after it fell due
   *     while the node was down
   * @param downReportAfter how long after the start the report on those windows is made (catch-up
   *     takes a moment)
   */
  LiveTable(Almanac almanac, Instant startedAt, Duration downReportAfter) {
    this(almanac, startedAt, downReportAfter, Map.of());
  }

  /**
   * @param almanac the running Almanac
   * @param startedAt when this node started
   * @param downReportAfter how long after the start the report on the windows missed while down is made
   * @param pools the resource pools to show, by name, with their max-concurrent ({@link #pools(Config)})
   */
  LiveTable(Almanac almanac, Instant startedAt, Duration downReportAfter, Map<String, Integer> pools) {
    this.almanac = almanac;
    this.clock = almanac.clock();
    this.startedAt = startedAt;
    this.downReportAfter = downReportAfter;
    this.pools = new TreeMap<>(pools);
  }

  /**
   * @param config the node's configuration
   * @return the pools of {@code almanac.pools}, by name, with their max-concurrent
   */
  static Map<String, Integer> pools(Config config) {
    Map<String, Integer> out = new TreeMap<>();
    if (config.hasPath("almanac.pools")) {
      ConfigObject all = config.getObject("almanac.pools");
      for (String name : all.keySet()) {
        Config pool = all.toConfig().getConfig(com.typesafe.config.ConfigUtil.quoteString(name));
        if (pool.hasPath("max-concurrent")) {
          out.put(name, pool.getInt("max-concurrent"));
        }
      }
    }
    return out;
  }

  /**
   * A task's state as read for one rendering.
   *
   * @param id the task
   * @param view its view
   * @param windows its windows
   * @param usage today's usage and budget, for a task with a budget; null otherwise
   */
  record TaskState(String id, TaskView view, List<WindowView> windows, DailyUsage usage) {
    TaskState(String id, TaskView view, List<WindowView> windows) {
      this(id, view, windows, null);
    }
  }

  /**
   * Reads every task's state and renders the table.
   *
   * @param timeout how long to wait for the answers
   * @return the table, several lines
   */
  String render(Duration timeout) {
    List<String> ids = almanac.taskIds().toCompletableFuture().orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).join();
    List<CompletableFuture<TaskState>> reads = new ArrayList<>();
    for (String id : order(ids)) {
      reads.add(almanac.task(id).toCompletableFuture()
          .thenCombine(almanac.windows(id).toCompletableFuture(), (v, w) -> new TaskState(id, v, w))
          .thenCompose(t -> t.view().spec().budgetPerDay() == null ? CompletableFuture.completedFuture(t)
              : almanac.usage(id).toCompletableFuture().thenApply(u -> new TaskState(t.id(), t.view(), t.windows(), u))));
    }
    List<WindowView> queue = almanac.interventionQueue().toCompletableFuture()
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).join();
    List<TaskState> tasks = new ArrayList<>();
    for (CompletableFuture<TaskState> r : reads) {
      tasks.add(r.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).join());
    }
    return render(tasks, queue);
  }

  String render(List<TaskState> tasks, List<WindowView> queue) {
    Instant now = clock.instant();
    StringBuilder out = new StringBuilder();
    out.append("live table at ").append(CLOCK.format(now)).append(" (up ")
        .append(Duration.between(startedAt, now).toSeconds()).append(" s)\n");
    out.append("  ").append(String.format(ROW, "TASK", "LATEST WINDOW", "STATUS", "ATT", "NEXT FIRE (LOCAL)",
        "NEXT FIRE (UTC)", "OK/SKIP/RETR/FF/MISS/LT", "SUMMARY OR REASON")).append('\n');
    Map<InstanceStatus, Integer> totals = new EnumMap<>(InstanceStatus.class);
    int windows = 0;
    for (TaskState t : tasks) {
      ZoneId zone = t.view().spec().zoneId();
      Instant next = t.view().nextDue();
      List<WindowView> ws = t.windows();
      WindowView latest = ws.stream().max(Comparator.comparing(WindowView::dueAt)
          .thenComparing(WindowView::createdAt)).orElse(null);
      int ok = 0;
      int skipped = 0;
      int retried = 0;
      int finalFailed = 0;
      int missed = 0;
      int late = 0;
      for (WindowView w : ws) {
        totals.merge(w.status(), 1, Integer::sum);
        windows++;
        ok += w.status() == InstanceStatus.SUCCEEDED ? 1 : 0;
        skipped += w.status() == InstanceStatus.SKIPPED ? 1 : 0;
        retried += w.attempt() > 1 ? 1 : 0;
        finalFailed += w.status() == InstanceStatus.FINAL_FAILED ? 1 : 0;
        missed += w.status() == InstanceStatus.MISSED ? 1 : 0;
        late += w.deadlineMissedAt() != null ? 1 : 0;
      }
      String counts = ok + "/" + skipped + "/" + retried + "/" + finalFailed + "/" + missed + "/" + late;
      out.append("  ").append(String.format(ROW, t.id(),
          latest == null ? "-" : latest.window().value(),
          latest == null ? "(none yet)" : latest.status().name(),
          latest == null ? "-" : String.valueOf(latest.attempt()),
          next == null ? "never" : LOCAL.format(next.atZone(zone)),
          next == null ? "never" : UTC.format(next),
          counts,
          latest == null ? (t.view().paused() ? "paused" : "") : detail(latest))).append('\n');
      for (WindowView w : ws) {
        if (w != latest && (w.status().isActive() || w.status() == InstanceStatus.WAITING)) {
          String kind = switch (w.status()) {
            case RETRY_WAIT -> "retry";
            case WAITING -> "waiting";
            case PENDING -> "pending";
            default -> "active";
          };
          out.append("  ").append(String.format(ROW, "  \\_ " + kind,
              w.window().value(), w.status().name(), String.valueOf(w.attempt()), "", "", "", detail(w))).append('\n');
        }
      }
      // A window that waited in vain (its dependency or condition not met by its deadline) stays in
      // view after a newer window came due.
      ws.stream().filter(w -> w != latest && notMet(w)).max(Comparator.comparing(WindowView::dueAt)).ifPresent(w ->
          out.append("  ").append(String.format(ROW, "  \\_ not met", w.window().value(), w.status().name(),
              String.valueOf(w.attempt()), "", "", "", detail(w))).append('\n'));
      // The latest window that missed its deadline stays in view too.
      ws.stream().filter(w -> w != latest && w.deadlineMissedAt() != null).max(Comparator.comparing(WindowView::dueAt))
          .ifPresent(w -> out.append("  ").append(String.format(ROW, "  \\_ late", w.window().value(), w.status().name(),
              String.valueOf(w.attempt()), "", "", "", detail(w))).append('\n'));
    }
    pools(out, tasks);
    budgets(out, tasks);
    out.append("  intervention queue: ").append(queue.size()).append(queue.isEmpty() ? " (empty)" : " window(s) FINAL_FAILED,"
        + " waiting for an operator (Almanac.retry / resolve)").append('\n');
    queue.stream().sorted(Comparator.comparing(WindowView::updatedAt).reversed()).limit(5).forEach(w ->
        out.append("    ").append(String.format("%-16s %-22s %s", w.taskId(), w.window().value(), shorten(w.reason(), 110)))
            .append('\n'));
    if (queue.size() > 5) {
      out.append("    ... and ").append(queue.size() - 5).append(" more\n");
    }
    out.append("  windows held: ").append(windows);
    totals.forEach((s, n) -> out.append(", ").append(s.name()).append(' ').append(n));
    out.append('\n');
    if (downReport == null && !now.isBefore(startedAt.plus(downReportAfter))) {
      downReport = downReport(tasks);
      out.append(downReport);
    } else if (downReport != null) {
      out.append("  (what happened to windows due while the node was down: see the report at up ")
          .append(downReportAfter.toSeconds()).append(" s)\n");
    }
    return out.toString();
  }

  /**
   * What the restart did with the windows that fell due while the node was down (created after the
   * start for a due time before it), and with the windows that were in flight when it stopped.
   */
  private String downReport(List<TaskState> tasks) {
    Instant lastBefore = null;
    List<WindowView> dueWhileDown = new ArrayList<>();
    List<WindowView> inFlight = new ArrayList<>();
    for (TaskState t : tasks) {
      for (WindowView w : t.windows()) {
        if (w.createdAt().isBefore(startedAt)) {
          Instant u = w.updatedAt().isBefore(startedAt) ? w.updatedAt() : w.createdAt();
          lastBefore = lastBefore == null || u.isAfter(lastBefore) ? u : lastBefore;
          if (!w.updatedAt().isBefore(startedAt)) {
            inFlight.add(w);
          }
        } else if (w.dueAt().isBefore(startedAt)) {
          dueWhileDown.add(w);
        }
      }
    }
    StringBuilder out = new StringBuilder();
    if (lastBefore == null) {
      return out.append("  restart report: first start on this database, nothing was missed\n").toString();
    }
    out.append("  restart report: last activity before this start ").append(CLOCK.format(lastBefore))
        .append(", started ").append(CLOCK.format(startedAt)).append(" (down about ")
        .append(Duration.between(lastBefore, startedAt).toSeconds()).append(" s)\n");
    if (dueWhileDown.isEmpty()) {
      out.append("    no window fell due while the node was down\n");
    } else {
      out.append("    windows that fell due while the node was down (").append(dueWhileDown.size()).append("):\n");
      Map<String, List<WindowView>> groups = new TreeMap<>();
      for (WindowView w : dueWhileDown) {
        groups.computeIfAbsent(w.taskId() + " | " + w.status() + " | " + why(w), k -> new ArrayList<>()).add(w);
      }
      groups.forEach((key, ws) -> {
        ws.sort(Comparator.comparing(WindowView::dueAt));
        String[] parts = key.split(" \\| ", 3);
        out.append("    ").append(String.format("%-16s %3d x %-12s %-24s %s", parts[0], ws.size(), parts[1],
            ws.size() == 1 ? ws.get(0).window().value() : ws.get(0).window().value() + " .. " + ws.get(ws.size() - 1).window().value(),
            parts[2])).append('\n');
      });
    }
    if (!inFlight.isEmpty()) {
      out.append("    windows in flight when it stopped, settled after the start (").append(inFlight.size()).append("):\n");
      inFlight.stream().sorted(Comparator.comparing(WindowView::dueAt)).limit(10).forEach(w ->
          out.append("    ").append(String.format("%-16s %-22s now %-12s %s", w.taskId(), w.window().value(),
              w.status(), shorten(w.reason() == null ? w.summary() : w.reason(), 100))).append('\n'));
    }
    return out.toString();
  }

  /** Whether a window was SKIPPED because what it waited for was not met by its deadline. */
  static boolean notMet(WindowView w) {
    return w.skipReason() == SkipReason.DEPENDENCY_NOT_MET || w.skipReason() == SkipReason.CONDITION_NOT_MET;
  }

  /**
   * One line per pool: its limit, what holds and waits for it now (the node's meters; the PENDING
   * windows of the tasks naming it, from their views), the store's answers so far, throttled attempts.
   */
  private void pools(StringBuilder out, List<TaskState> tasks) {
    if (pools.isEmpty()) {
      return;
    }
    MeterRegistry meters = almanac.meterRegistry();
    // summed over every task's series: each exists at 0 from the task's registration (docs/metrics.md)
    double throttled = count(meters.find("almanac.attempts").tag("outcome", "throttled").counters());
    pools.forEach((pool, max) -> {
      Gauge inUse = meters.find("almanac.pool.in-use").tag("pool", pool).gauge();
      Gauge waiting = meters.find("almanac.pool.waiting").tag("pool", pool).gauge();
      out.append("  pool ").append(pool).append(": ").append(inUse == null ? "-" : String.valueOf((long) inUse.value()))
          .append(" of ").append(max).append(" in use, ")
          .append(waiting == null ? "-" : String.valueOf((long) waiting.value()))
          .append(" queued for it on this node, ").append(pending(tasks, pool))
          .append(" window(s) of its tasks PENDING; the store's answers so far:");
      for (String outcome : List.of("admitted", "full", "rate", "paused", "error")) {
        out.append(' ').append(outcome).append(' ').append((long) count(meters.find("almanac.pool.admissions")
            .tag("pool", pool).tag("outcome", outcome).counters()));
      }
      out.append('\n');
    });
    out.append("  throttled attempts (the job answered throttled: its pools paused, no retry counted): ")
        .append((long) throttled).append('\n');
  }

  private static long pending(List<TaskState> tasks, String pool) {
    return tasks.stream().filter(t -> t.view().spec().pools().contains(pool))
        .flatMap(t -> t.windows().stream()).filter(w -> w.status() == InstanceStatus.PENDING).count();
  }

  private static double count(java.util.Collection<Counter> counters) {
    return counters.stream().mapToDouble(Counter::count).sum();
  }

  /** One line per task with a budget: today's cost against the day's limit, and the windows skipped for it. */
  private static void budgets(StringBuilder out, List<TaskState> tasks) {
    for (TaskState t : tasks) {
      DailyUsage u = t.usage();
      if (u == null) {
        continue;
      }
      out.append("  budget ").append(t.id()).append(": ").append(u.cost().toPlainString()).append(" of ")
          .append(u.limit().toPlainString()).append(" spent on ").append(u.day()).append(" (").append(u.zone()).append("), ")
          .append(u.tokensIn() + u.tokensOut()).append(" tokens, ").append(u.attempts()).append(" attempts; ")
          .append(u.exhausted() ? "EXHAUSTED: " + u.windowsSkipped() + " window(s) SKIPPED (BUDGET_EXHAUSTED) today"
              : "not exhausted").append('\n');
    }
  }

  /** The reason of a window in short: its typed cause (SKIPPED / MISSED) or its run kind. */
  private static String why(WindowView w) {
    if (w.skipReason() != null) {
      return w.skipReason() + " " + skipped(w.skipReason());
    }
    if (w.missReason() != null) {
      return w.missReason() + switch (w.missReason()) {
        case BACKFILL_NOT_ALLOWED -> " (the task does not catch up missed windows)";
        case OUTSIDE_HORIZON -> " (older than the catch-up horizon)";
      };
    }
    if (w.status() == InstanceStatus.MISSED || w.status() == InstanceStatus.SKIPPED) {
      return w.status().name(); // a source that keeps no typed cause (rows projected before it was kept)
    }
    return "ran as " + w.runKind() + (w.attempt() > 1 ? ", " + w.attempt() + " attempts" : "");
  }

  private static String detail(WindowView w) {
    String late = w.deadlineMissedAt() == null ? ""
        : "LATE (missed its deadline, recorded " + UTC.format(w.deadlineMissedAt()) + ") ";
    String text = late + switch (w.status()) {
      case SUCCEEDED -> w.summary();
      case RUNNING -> w.runKind() + " run, lease until " + (w.leaseUntil() == null ? "?" : UTC.format(w.leaseUntil()));
      case PENDING -> w.runKind() + " run, not started" + (w.reason() == null ? ": waiting for an executor" : ": " + w.reason());
      case SKIPPED -> w.skipReason() == null ? w.reason() : w.skipReason() + " " + skipped(w.skipReason());
      case WAITING -> w.reason();
      case RETRY_WAIT -> "retry " + w.retries() + "/" + w.maxRetries() + " at "
          + (w.retryDueAt() == null ? "?" : UTC.format(w.retryDueAt())) + " after: " + w.reason();
      default -> w.reason();
    };
    return shorten(text, 100);
  }

  /** What a skip reason means, for a person. */
  static String skipped(SkipReason reason) {
    return switch (reason) {
      case WINDOW_EXISTS -> "(the window had run already)";
      case PREVIOUS_RUNNING -> "(an earlier window was still running)";
      case BUFFER_FULL -> "(a window was already buffered behind the running one)";
      case PAUSED -> "(the task was paused)";
      case DEPENDENCY_NOT_MET -> "(its upstream tasks had not succeeded by its deadline)";
      case CONDITION_NOT_MET -> "(its condition did not hold by its deadline)";
      case BUDGET_EXHAUSTED -> "(the task's budget for the day is spent)";
      case EXCLUDED -> "(its date is in an exclusion calendar)";
      case OUT_OF_BOUNDS -> "(outside the schedule's from/until)";
    };
  }

  static String shorten(String text, int max) {
    if (text == null) {
      return "";
    }
    String oneLine = text.replace('\n', ' ');
    return oneLine.length() <= max ? oneLine : oneLine.substring(0, max - 3) + "...";
  }

  /** The digest first, then the demo tasks in the order they are introduced, then any other. */
  private static List<String> order(List<String> ids) {
    Map<String, Integer> rank = new LinkedHashMap<>();
    List<String> known = List.of(DemoTasks.DAILY_DIGEST, DemoTasks.HEARTBEAT_OK, DemoTasks.SLOW_REPORT,
        DemoTasks.FLAKY_SYNC, DemoTasks.ALWAYS_BROKEN, DemoTasks.ORDER_EXPORT, DemoTasks.DAILY_REPORT,
        DemoTasks.ORDER_EXPORT_FAST, DemoTasks.DAILY_REPORT_FAST, DemoTasks.MODEL_CALL, DemoTasks.TOKEN_SPENDER,
        DemoTasks.LATE_REPORT, DemoTasks.HOLIDAY_CHECK);
    for (String id : ids) {
      int i = known.indexOf(id);
      rank.put(id, i < 0 ? known.size() : i);
    }
    List<String> out = new ArrayList<>(ids);
    out.sort(Comparator.comparing((String id) -> rank.get(id)).thenComparing(id -> id));
    return out;
  }
}
