package io.almanac.internal;

import io.almanac.schedule.DueWindow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * How the windows a task had due while nothing fired them (downtime, a failover, a forward clock
 * step, a long pause) are handed over (R12, R14): only the latest is fired as on time, and only if
 * it is recent (due within the on-time grace); every older one, and a latest one that is not
 * recent, goes to the task's catch-up policy (its mode and horizon). INTERNAL API.
 *
 * @param onTime the window fired as on time, or null
 * @param catchUp the windows handed to the catch-up policy, oldest first
 */
record CatchUpPlan(DueWindow onTime, List<DueWindow> catchUp) {

  CatchUpPlan {
    catchUp = List.copyOf(catchUp);
  }

  /**
   * @param due the windows due, oldest first
   * @param now the time
   * @param grace how old the latest window may be and still fire as on time
   * @return the plan
   */
  static CatchUpPlan of(List<DueWindow> due, Instant now, Duration grace) {
    if (due.isEmpty()) {
      return new CatchUpPlan(null, List.of());
    }
    DueWindow latest = due.get(due.size() - 1);
    if (latest.dueAt().isBefore(now.minus(grace))) {
      return new CatchUpPlan(null, due);
    }
    return new CatchUpPlan(latest, due.subList(0, due.size() - 1));
  }
}
