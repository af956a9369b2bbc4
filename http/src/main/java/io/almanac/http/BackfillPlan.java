package io.almanac.http;

import io.almanac.schedule.DueWindow;
import io.almanac.schedule.TaskSchedule;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A backfill request's range checks, before anything runs (a dry run or a real one): from before
 * to, to not in the future, at most {@code almanac.http.max-backfill-windows} windows. What the
 * backfill decides for each window, dry run included, is the task's own decision
 * ({@code Almanac.planBackfill}, {@code Almanac.backfill}).
 */
public final class BackfillPlan {

  /**
   * How far the windows of a refused range are counted (bounded: counting runs on the request's
   * thread); beyond, the refusal says "more than".
   */
  public static final int COUNT_CEILING = 10_000;


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
}
