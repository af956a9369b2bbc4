package io.almanac.samples;

import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.TaskView;
import io.almanac.WindowView;
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
 * happened to the windows that fell due while the node was down. Everything comes from Almanac's
 * public views ({@link Almanac#task}, {@link Almanac#windows}, {@link Almanac#interventionQueue()}).
 */
final class LiveTable {

  private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss z", Locale.ROOT);
  private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("MM-dd HH:mm:ss'Z'", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final String ROW = "%-16s %-20s %-12s %3s  %-22s %-15s %-20s %s";

  private final Almanac almanac;
  private final Clock clock;
  private final Instant startedAt;
  private final Duration downReportAfter;
  private String downReport;

  /**
   * @param almanac the running Almanac
   * @param startedAt when this node started: windows due before it and created after it fell due
   *     while the node was down
   * @param downReportAfter how long after the start the report on those windows is made (catch-up
   *     takes a moment)
   */
  LiveTable(Almanac almanac, Instant startedAt, Duration downReportAfter) {
    this.almanac = almanac;
    this.clock = almanac.clock();
    this.startedAt = startedAt;
    this.downReportAfter = downReportAfter;
  }

  /** A task's state as read for one rendering. */
  record TaskState(String id, TaskView view, List<WindowView> windows) {}

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
          .thenCombine(almanac.windows(id).toCompletableFuture(), (v, w) -> new TaskState(id, v, w)));
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
        "NEXT FIRE (UTC)", "OK/SKIP/RETR/FF/MISS", "SUMMARY OR REASON")).append('\n');
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
      for (WindowView w : ws) {
        totals.merge(w.status(), 1, Integer::sum);
        windows++;
        ok += w.status() == InstanceStatus.SUCCEEDED ? 1 : 0;
        skipped += w.status() == InstanceStatus.SKIPPED ? 1 : 0;
        retried += w.attempt() > 1 ? 1 : 0;
        finalFailed += w.status() == InstanceStatus.FINAL_FAILED ? 1 : 0;
        missed += w.status() == InstanceStatus.MISSED ? 1 : 0;
      }
      String counts = ok + "/" + skipped + "/" + retried + "/" + finalFailed + "/" + missed;
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
    }
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
    return w.status() == InstanceStatus.SKIPPED && w.reason() != null
        && (w.reason().startsWith("DEPENDENCY_NOT_MET") || w.reason().startsWith("CONDITION_NOT_MET"));
  }

  /** The reason of a window in short: its leading word (MISSED / SKIPPED reasons) or its run kind. */
  private static String why(WindowView w) {
    if (w.status() == InstanceStatus.MISSED || w.status() == InstanceStatus.SKIPPED) {
      String r = w.reason() == null ? "" : w.reason();
      int colon = r.indexOf(':');
      String head = colon < 0 ? r : r.substring(0, colon);
      return head + switch (head) {
        case "BACKFILL_NOT_ALLOWED" -> " (the task does not catch up missed windows)";
        case "OUTSIDE_HORIZON" -> " (older than the catch-up horizon)";
        case "PREVIOUS_RUNNING" -> " (an earlier window was still running)";
        case "DEPENDENCY_NOT_MET" -> " (its upstream tasks had not succeeded by its deadline)";
        case "CONDITION_NOT_MET" -> " (its condition did not hold by its deadline)";
        default -> "";
      };
    }
    return "ran as " + w.runKind() + (w.attempt() > 1 ? ", " + w.attempt() + " attempts" : "");
  }

  private static String detail(WindowView w) {
    String text = switch (w.status()) {
      case SUCCEEDED -> w.summary();
      case RUNNING -> w.runKind() + " run, lease until " + (w.leaseUntil() == null ? "?" : UTC.format(w.leaseUntil()));
      case PENDING -> w.runKind() + " run, waiting for an executor";
      case WAITING -> w.reason();
      case RETRY_WAIT -> "retry " + w.retries() + "/" + w.maxRetries() + " at "
          + (w.retryDueAt() == null ? "?" : UTC.format(w.retryDueAt())) + " after: " + w.reason();
      default -> w.reason();
    };
    return shorten(text, 80);
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
        DemoTasks.ORDER_EXPORT_FAST, DemoTasks.DAILY_REPORT_FAST);
    for (String id : ids) {
      int i = known.indexOf(id);
      rank.put(id, i < 0 ? known.size() : i);
    }
    List<String> out = new ArrayList<>(ids);
    out.sort(Comparator.comparing((String id) -> rank.get(id)).thenComparing(id -> id));
    return out;
  }
}
