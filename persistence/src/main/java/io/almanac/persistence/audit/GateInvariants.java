package io.almanac.persistence.audit;

import io.almanac.InstanceStatus;
import io.almanac.journal.SpecRecord;
import io.almanac.persistence.audit.TaskCheck.Bound;
import io.almanac.persistence.audit.TaskCheck.Segment;
import io.almanac.persistence.audit.TaskCheck.Win;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Violation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The gates' invariant, I6 (see {@link Verifier}): no window stays PENDING or WAITING past its bound
 * (the lease ceiling, its wait deadline) without a recorded reason (a running attempt, a pause, a
 * resource pool).
 * Stateless: judges a {@link TaskCheck}'s records into its verifier's report.
 */
final class GateInvariants {

  private GateInvariants() {}
  /**
   * How long a PENDING or WAITING window may stay so, judged at {@code x} (when its spell ended, or
   * the journal's end): null when it cannot be judged (no spec in effect: the lease ceiling is
   * unknown; a wait without a deadline).
   *
   * <p>PENDING: the lease ceiling of the spec in effect (the longest, if it changed meanwhile)
   * after the latest of: when it became PENDING (or its due time, if that was later); the end of
   * the task's latest attempt (while one runs, at {@code x} itself: the overlap policy or the
   * executor's per-task limit holds the window back); while the task is paused, {@code x} itself
   * (a pause holds its windows), and otherwise when it was last resumed; when the journal resumed (a new writer of
   * the task's journal, or the trigger's heartbeat after a pause: the entity recovers and offers
   * its PENDING windows again). WAITING: its wait deadline, plus the condition's poll timeout (the
   * check that ends the wait may be a poll in flight), or when the journal resumed after it.
   */
  static Bound bound(TaskCheck c, Win w, Instant x) {
    Instant resumed = TaskCheck.latest(c.writerResumed, c.v.heartbeatResumedBy(x));
    if (w.status == InstanceStatus.PENDING) {
      Duration ceiling = longest(c, w.waitSince, x, spec -> spec.lease() == null || spec.lease().ceiling() == null
          ? io.almanac.LeasePolicy.MAX_CEILING : spec.lease().ceiling());
      if (ceiling == null) {
        return null;
      }
      Instant from = w.waitFrom;
      String why = w.waitFrom.equals(w.waitSince) ? "when it became PENDING" : "its due time";
      Instant activity = c.running > 0 || c.paused ? x : c.lastAttemptEnd;
      if (activity != null && activity.isAfter(from)) {
        from = activity;
        why = c.running > 0 ? "while another attempt of the task runs" : c.paused ? "while the task is paused"
            : "when the task's last attempt ended";
      }
      if (c.pauseEnded != null && c.pauseEnded.isAfter(from)) {
        from = c.pauseEnded;
        why = "when the task was resumed (a paused task starts none of its windows)";
      }
      if (resumed != null && resumed.isAfter(from)) {
        from = resumed;
        why = "when the journal resumed (a new writer, or the trigger's heartbeat after a pause)";
      }
      return new Bound(from.plus(ceiling), "the lease ceiling " + ceiling + " after " + from + ", " + why);
    }
    if (w.waitUntil == null) {
      return null;
    }
    Duration poll = longest(c, w.waitSince, x, spec -> spec.condition() == null ? Duration.ZERO
        : spec.condition().timeout() != null ? spec.condition().timeout()
        : spec.condition().every() != null ? spec.condition().every() : io.almanac.ConditionTrigger.DEFAULT_TIMEOUT);
    Instant deadline = w.waitUntil.plus(poll == null ? Duration.ZERO : poll);
    String why = "its wait deadline " + w.waitUntil + (poll == null || poll.isZero() ? "" : " plus the condition's poll timeout " + poll);
    if (resumed != null && resumed.isAfter(deadline)) {
      return new Bound(resumed, why + ", and the journal resumed at " + resumed + " (a new writer, or the trigger's heartbeat"
          + " after a pause)");
    }
    return new Bound(deadline, why);
  }

  /**
   * The longest of a spec's durations over the specs in effect from {@code from} to {@code to}: the
   * one in effect at {@code from} and every one defined after it until {@code to}; null if none.
   */
  static Duration longest(TaskCheck c, Instant from, Instant to, java.util.function.Function<SpecRecord, Duration> of) {
    Duration max = null;
    for (int i = 0; i < c.specs.size(); i++) {
      Segment seg = c.specs.get(i);
      boolean inEffectAtFrom = !seg.at().isAfter(from) && (i + 1 == c.specs.size() || c.specs.get(i + 1).at().isAfter(from));
      boolean definedDuring = seg.at().isAfter(from) && !seg.at().isAfter(to);
      if (inEffectAtFrom || definedDuring) {
        Duration d = of.apply(seg.spec());
        if (d != null && (max == null || d.compareTo(max) > 0)) {
          max = d;
        }
      }
    }
    return max;
  }

  /**
   * I6 as of the journal's end: a window still PENDING or WAITING whose bound ended more than the
   * grace before the end is stuck. Runs before {@link TaskCheck#checkWindows} (a stuck window is not open).
   */
  static void judgeWaits(TaskCheck c) {
    if (c.end == null) {
      return;
    }
    Instant asOf = c.end.minus(c.grace);
    for (Win w : c.windows.values()) {
      if (!TaskCheck.waits(w.status) || w.waitSince == null) {
        continue;
      }
      if (w.poolWait != null) {
        w.poolHeldSpells++; // waiting for a pool, as recorded: not stuck, however long
        continue;
      }
      Bound b = bound(c, w, c.end);
      if (b == null) {
        w.waitsNotJudged++;
      } else if (b.deadline().isBefore(asOf)) {
        w.stuck = b;
        w.waitsJudged++;
        w.waitEvents++;
        Duration past = Duration.between(b.deadline(), c.end);
        if (past.compareTo(w.pastBound) > 0) {
          w.pastBound = past;
        }
      }
    }
  }

  /** I6: the stuck windows' violations, what was judged, and the longest spell past its bound. */
  static void checkStuck(TaskCheck c) {
    long judged = 0;
    long events = 0;
    long notJudged = 0;
    long poolHeld = 0;
    for (Win w : c.windows.values()) {
      if (!c.inRange(w)) {
        continue;
      }
      notJudged += w.waitsNotJudged > 0 ? 1 : 0;
      poolHeld += w.poolHeldSpells > 0 ? 1 : 0;
      if (w.waitsJudged == 0) {
        continue;
      }
      judged++;
      events += w.waitEvents;
      if (w.pastBound.compareTo(c.v.longestPastBound) > 0) {
        c.v.longestPastBound = w.pastBound;
        c.v.longestPastBoundOf = c.task + "/" + w.key;
      }
      if (w.stuck == null) {
        continue;
      }
      String what = w.status == InstanceStatus.PENDING
          ? "stuck PENDING since " + w.waitSince + ": not started by its bound " + w.stuck.deadline() + " (" + w.stuck.why()
              + "); nothing recorded holds it since (no attempt of the task running, no new writer, no pause in the trigger's"
              + " heartbeat)"
          : "stuck WAITING since " + w.waitSince + ": its wait deadline " + w.waitUntil + " passed and no WaitSatisfied,"
              + " WaitEnded or InstanceCancelled followed by " + w.stuck.deadline() + " (" + w.stuck.why() + ")";
      c.v.violations.add(new Violation(c.task, w.key, Invariant.I6, what + ", and the journal goes on until " + c.end,
          List.of(w.waitRef)));
    }
    c.v.count(Invariant.I6, judged, 0, events);
    if (poolHeld > 0) {
      c.v.notes.add("task '" + c.task + "': " + poolHeld + (poolHeld == 1 ? " window" : " windows") + " PENDING held by a resource"
          + " pool (a PoolWaited recorded in the spell, no start since): waiting, not stuck, and not measured against the"
          + " lease ceiling");
    }
    if (notJudged > 0) {
      c.v.notes.add("task '" + c.task + "': I6 not judged for " + notJudged + (notJudged == 1 ? " window" : " windows")
          + ": no SpecDefined before or during its PENDING spell (its lease ceiling is unknown), or a wait without a deadline");
    }
  }
}
