package io.almanac.internal.trigger;

import io.almanac.schedule.DueWindow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How the windows a task had due while nothing fired them (downtime, a failover, a forward clock
 * step, a long pause) are handed over (R12, R14): only the latest is fired as on time, and only if
 * it is recent (due within the on-time grace); every older one, and a latest one that is not
 * recent, goes to the task's catch-up policy (its mode and horizon). After a planned hand-over of
 * the trigger between nodes ({@link #afterHandOver}), taken over within the lease time ({@link
 * #handOverApplies}), every recent window fires on time. INTERNAL API.
 *
 * @param onTime the windows fired as on time, oldest first (at most one after downtime)
 * @param catchUp the windows handed to the catch-up policy, oldest first
 */
record CatchUpPlan(List<DueWindow> onTime, List<DueWindow> catchUp) {

  CatchUpPlan {
    onTime = List.copyOf(onTime);
    catchUp = List.copyOf(catchUp);
  }

  /**
   * After downtime: the latest window on time if recent, the others to the catch-up policy.
   *
   * @param due the windows due, oldest first
   * @param now the time
   * @param grace how old the latest window may be and still fire as on time
   * @return the plan
   */
  static CatchUpPlan of(List<DueWindow> due, Instant now, Duration grace) {
    return of(due, now, grace, DueWindow::dueAt);
  }

  /**
   * After downtime, for windows that fire later than they are due (jitter): whether the latest is
   * recent is judged by when it fires.
   *
   * @param due the windows due, oldest first
   * @param now the time
   * @param grace how old the latest window's fire time may be and still fire as on time
   * @param fireAt when a window fires
   * @return the plan
   */
  static CatchUpPlan of(List<DueWindow> due, Instant now, Duration grace, Function<DueWindow, Instant> fireAt) {
    if (due.isEmpty()) {
      return new CatchUpPlan(List.of(), List.of());
    }
    DueWindow latest = due.get(due.size() - 1);
    if (!io.almanac.journal.Rules.onTime(fireAt.apply(latest), now, grace)) {
      return new CatchUpPlan(List.of(), due);
    }
    return new CatchUpPlan(List.of(latest), due.subList(0, due.size() - 1));
  }

  /**
   * After a planned hand-over (the previous trigger stopped on a node leaving a cluster whose other
   * members stayed up): the service was not down, so every window due within the grace fires on
   * time, as it would have had the trigger not moved; only older ones (a hand-over that took longer
   * than the grace) go to the catch-up policy.
   *
   * @param due the windows due, oldest first
   * @param now the time
   * @param grace how old a window may be and still fire as on time
   * @return the plan
   */
  static CatchUpPlan afterHandOver(List<DueWindow> due, Instant now, Duration grace) {
    return afterHandOver(due, now, grace, DueWindow::dueAt);
  }

  /** {@link #afterHandOver(List, Instant, Duration)}, judging each window by when it fires (jitter). */
  static CatchUpPlan afterHandOver(List<DueWindow> due, Instant now, Duration grace, Function<DueWindow, Instant> fireAt) {
    List<DueWindow> onTime = new ArrayList<>();
    List<DueWindow> catchUp = new ArrayList<>();
    Instant oldest = now.minus(grace);
    for (DueWindow w : due) {
      (fireAt.apply(w).isBefore(oldest) ? catchUp : onTime).add(w);
    }
    return new CatchUpPlan(onTime, catchUp);
  }

  /**
   * Whether the hand-over recorded at {@code handedOverAt} counts for a trigger starting at {@code
   * now}: it was a hand-over, and its successor started within the lease time of it. A successor
   * takes over within seconds of a hand-over, and at the latest when the leaving trigger's lease has
   * expired; a trigger starting later took over from nobody (the whole cluster stopped, node after
   * node, then started again) and treats the gap as downtime, however recent. Not the on-time grace:
   * a cluster restarted within it would fire every window of its downtime as on time.
   *
   * @param handedOverAt when the hand-over was recorded, or null (none since the watermark last moved)
   * @param now the successor's start
   * @param leaseTime how long a successor may take ({@code almanac.trigger.hand-over-timeout})
   * @return whether the gap is a hand-over rather than downtime
   */
  static boolean handOverApplies(Instant handedOverAt, Instant now, Duration leaseTime) {
    return handedOverAt != null && !handedOverAt.isAfter(now) && !now.minus(leaseTime).isAfter(handedOverAt);
  }
}
