package io.almanac.http;

import io.almanac.Decision;
import io.almanac.RunKind;
import io.almanac.TaskView;
import io.almanac.WindowView;
import io.almanac.internal.OperatorRun;
import io.almanac.schedule.DueWindow;
import io.almanac.schedule.TaskSchedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a backfill of (from, to] would do, computed without actors from the task's schedule and its
 * current windows: each window's decision is the task's own ({@link OperatorRun#decide}, which
 * {@code Almanac.backfill} writes), asked without writing: a window with no instance is scheduled
 * ({@code BACKFILL}), a reopenable one is reopened ({@code BACKFILL (was STATUS)}), any other is
 * skipped ({@code WINDOW_EXISTS: window is STATUS}); a window older than the task's hot state is
 * {@code ARCHIVED}. Also the range checks that both the dry run and the real run go through: from
 * before to, to not in the future, at most {@code almanac.http.max-backfill-windows} windows.
 */
public final class BackfillPlan {

  /**
   * How far the windows of a refused range are counted (bounded: counting runs on the request's
   * thread); beyond, the refusal says "more than".
   */
  public static final int COUNT_CEILING = 10_000;

  /**
   * One window a backfill would touch.
   *
   * @param window its key
   * @param start its start
   * @param decision what the task would decide
   * @param reason the reason, worded as the task words it
   */
  public record Planned(String window, Instant start, Decision decision, String reason) {}

  private BackfillPlan() {}

  /**
   * Checks the range, before anything runs (a dry run or a real one).
   *
   * @param schedule the task's schedule
   * @param from the range's start (exclusive)
   * @param to its end (inclusive)
   * @param now the node's time
   * @param max the most windows a request may cover
   * @return the due windows in (from, to], one per window key, in order
   * @throws Problem.Raised a 400 naming {@code from} (not before to) or {@code to} (in the future,
   *     or the range covers more than {@code max} windows: with their count)
   */
  public static List<DueWindow> windows(TaskSchedule schedule, Instant from, Instant to, Instant now, int max) {
    if (!from.isBefore(to)) {
      throw new Problem.Raised(Problem.invalid("from", from, "must be before to (" + to + "): the range is (from, to]"));
    }
    if (to.isAfter(now)) {
      throw new Problem.Raised(Problem.invalid("to", to, "is in the future (now " + now
          + "): a backfill covers past windows only"));
    }
    Map<String, DueWindow> windows = new LinkedHashMap<>();
    Instant cursor = from;
    int batch = Math.max(max, 1000);
    int ceiling = Math.max(COUNT_CEILING, max);
    while (windows.size() <= ceiling) {
      List<DueWindow> due = schedule.dueBetween(cursor, to, batch);
      for (DueWindow d : due) {
        windows.putIfAbsent(d.key().value(), d);
      }
      if (due.size() < batch) {
        break;
      }
      cursor = due.get(due.size() - 1).dueAt();
    }
    if (windows.size() > max) {
      String count = windows.size() > ceiling ? "more than " + ceiling : String.valueOf(windows.size());
      throw new Problem.Raised(Problem.invalid("to", to, "makes the range (" + from + ", " + to + "] cover " + count
          + " windows, more than almanac.http.max-backfill-windows = " + max + ": ask in parts"));
    }
    return List.copyOf(windows.values());
  }

  /**
   * The dry run: what a backfill would decide for each window in (from, to].
   *
   * @param task the task's view (its removal, its archived windows)
   * @param current the task's hot windows
   * @param due the due windows of the range ({@link #windows})
   * @return one decision per window, in order
   */
  public static List<Planned> plan(TaskView task, List<WindowView> current, List<DueWindow> due) {
    Map<String, WindowView> byKey = new LinkedHashMap<>();
    for (WindowView w : current) {
      byKey.put(w.window().value(), w);
    }
    List<Planned> out = new ArrayList<>();
    for (DueWindow d : due) {
      String key = d.key().value();
      WindowView w = byKey.get(key);
      boolean archived = task.archivedThrough() != null && !d.window().start().isAfter(task.archivedThrough());
      OperatorRun.Decided decided = OperatorRun.decide(w == null ? null : w.status(), archived, RunKind.BACKFILL);
      out.add(new Planned(key, w == null ? d.window().start() : w.start(), decided.decision(), decided.reason()));
    }
    return out;
  }
}
