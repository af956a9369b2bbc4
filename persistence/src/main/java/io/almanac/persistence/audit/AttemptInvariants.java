package io.almanac.persistence.audit;

import io.almanac.OverlapPolicy;
import io.almanac.persistence.audit.TaskCheck.Attempt;
import io.almanac.persistence.audit.VerificationReport.EventRef;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Violation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The attempts' invariants (see {@link Verifier}): I3, every attempt ends or the journal ends before
 * its lease (plus the grace) does, and I4, no two attempts overlap unless the overlap policy is
 * ALLOW.
 * Stateless: judges a {@link TaskCheck}'s records into its verifier's report.
 */
final class AttemptInvariants {

  private AttemptInvariants() {}
  /** I3: every attempt ends, or the journal ends before its lease (plus the grace) does. */
  static void checkLeases(TaskCheck c) {
    Set<String> judged = new HashSet<>();
    long judgedAttempts = 0;
    long events = 0;
    for (Attempt a : c.all) {
      if (!c.selected(a.window) || !c.inRange(a.started.at())) {
        continue;
      }
      c.v.attempts++;
      if (a.leaseUntil == null) {
        continue;
      }
      if (a.end != null || expired(c, a)) { // an attempt whose lease has not ended (plus the grace) is not judged yet
        judged.add(a.window);
        judgedAttempts++;
        events += 1 + a.extensions.size() + (a.end == null ? 0 : 1);
      }
      if (a.end != null) {
        pastLease(c, a, Duration.between(a.leaseUntil, a.end.at()));
      } else if (expired(c, a)) {
        pastLease(c, a, Duration.between(a.leaseUntil, c.end));
        List<EventRef> refs = new ArrayList<>();
        refs.add(a.started);
        refs.addAll(a.extensions);
        c.v.violations.add(new Violation(c.task, a.window, Invariant.I3, "attempt " + a.number + " started "
            + a.started.at() + " is still RUNNING: its lease ended " + a.leaseUntil
            + ", no AttemptSucceeded, AttemptFailed, AttemptTimedOut or InstanceCancelled follows, and the journal goes on"
            + " until " + c.end, refs));
      }
    }
    c.v.count(Invariant.I3, judged.size(), judgedAttempts, events);
  }

  /** Whether an attempt without an outcome is past its lease while the journal goes on beyond the grace. */
  static boolean expired(TaskCheck c, Attempt a) {
    return a.end == null && a.leaseUntil != null && c.end != null && a.leaseUntil.isBefore(c.end.minus(c.grace));
  }

  static void pastLease(TaskCheck c, Attempt a, Duration past) {
    if (past.compareTo(c.v.longestPastLease) > 0) {
      c.v.longestPastLease = past;
      c.v.longestPastLeaseOf = c.task + "/" + a.window + "#" + a.number;
    }
  }

  /** I4: attempts overlap when one starts before the other's outcome is recorded. */
  static void checkOverlaps(TaskCheck c) {
    Set<String> compared = new HashSet<>();
    long comparedAttempts = 0;
    long events = 0;
    List<Attempt> active = new ArrayList<>();
    for (Attempt b : c.all) {
      long startSeq = b.started.sequenceNr();
      active.removeIf(a -> a.end != null && a.end.sequenceNr() < startSeq);
      boolean report = b.policy != OverlapPolicy.ALLOW && c.selected(b.window) && c.inRange(b.started.at());
      if (report) {
        compared.add(b.window);
        comparedAttempts++;
        events += 1 + (b.end == null ? 0 : 1);
      }
      for (Attempt a : active) {
        if (!report) {
          continue;
        }
        List<EventRef> refs = new ArrayList<>();
        refs.add(a.started);
        refs.add(b.started);
        if (a.end != null) {
          refs.add(a.end);
        }
        c.v.violations.add(new Violation(c.task, b.window, Invariant.I4, b.describe() + " overlaps " + a.describe()
            + ", which " + (a.end == null ? "has no outcome" : "ended " + a.end.at() + " (" + a.end.type() + ")")
            + "; the overlap policy is " + b.policy, refs));
        a.overlapReported = true;
      }
      // An attempt without an outcome is an I3 violation already: report its overlap once, not with every later attempt.
      active.removeIf(a -> a.end == null && a.overlapReported);
      active.add(b);
    }
    c.v.count(Invariant.I4, compared.size(), comparedAttempts, events);
  }
}
