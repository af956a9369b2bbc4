package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.WindowExplanation.ON_TIME;
import static io.almanac.persistence.audit.WindowExplanation.human;
import static io.almanac.persistence.audit.WindowExplanation.late;
import static io.almanac.persistence.audit.WindowExplanation.node;

import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.journal.Rules;
import io.almanac.journal.WindowState;
import java.time.Duration;
import java.time.Instant;

/**
 * The one sentence that sums up a window the journal has a record of ({@link
 * WindowExplanation.Explanation#verdict()}), from its folded state and what its narrators learnt
 * ({@link Explainer}). Pure.
 */
final class WindowVerdict {

  private WindowVerdict() {}

  /** The verdict on a window the journal has a record of: its status, and how it got there. */
  static String verdict(Explainer x, WindowState w) {
    long all = x.eventsReceived + x.eventsDuplicated;
    String base = x.rangeText == null ? statusVerdict(x, w) : statusVerdict(x, w) + "; " + x.rangeText;
    return all > 1 ? base + "; it coalesced " + x.eventsText() : base;
  }

  static String statusVerdict(Explainer x, WindowState w) {
    String verdict = openVerdict(x, w);
    // a pause holds every attempt not started (the runtime's PauseScope): say so of a window that waits
    return x.pausedAt != null && (w.status() == InstanceStatus.PENDING || w.status() == InstanceStatus.RETRY_WAIT)
        ? verdict + "; held by the task's pause since " + x.time(x.pausedAt) + ": it starts after the resume" : verdict;
  }

  static String openVerdict(Explainer x, WindowState w) {
    String due = x.dueAt == null ? "" : "due " + x.time(x.dueAt) + " " + x.zone.getId();
    return switch (w.status()) {
      case WAITING -> "waiting for " + (x.waiting == null ? "its dependency or condition" : x.waiting.waitingFor())
          + " until " + x.time(w.waitUntil() != null ? w.waitUntil() : x.waiting == null ? null : x.waiting.waitUntil())
          + (due.isEmpty() ? "" : " (" + due + ")") + (x.conditionError == null ? "" : "; last poll: " + x.conditionError);
      case SUCCEEDED -> succeeded(x, w, due);
      case SKIPPED -> "skipped: " + (x.skipText != null ? x.skipText : w.reason());
      case MISSED -> "missed: " + (x.downtime == null ? "" : x.downtime + "; ") + (x.missText != null ? x.missText : w.reason());
      case FINAL_FAILED -> "failed finally after " + x.attempts + (x.attempts == 1 ? " attempt" : " attempts")
          + (x.lastError == null ? "" : ", last error: " + x.lastError) + (x.finalReason == null ? ""
          : " (" + x.finalReason + ")") + "; waiting in the intervention queue for an operator";
      case RESOLVED -> "resolved by " + (x.resolvedBy == null ? "an operator" : x.resolvedBy) + " after failing finally" + (x.lastError == null ? "" : " (last error: "
          + x.lastError + ")") + (x.resolveNote == null ? "" : ", with the note \"" + x.resolveNote + "\"");
      case CANCELLED -> "cancelled: " + (x.cancelText != null ? x.cancelText : w.reason());
      case PENDING -> "waiting to start: scheduled " + (x.scheduledKind == null ? "" : "as " + x.scheduledKind + " ")
          + (x.scheduledAt == null ? "" : "at " + x.time(x.scheduledAt) + " ") + "and not yet taken by an executor"
          + (x.poolWait == null ? "" : "; it waits for resource pool " + x.poolWait.pool() + " (" + x.poolWait.reason()
          + (x.poolWait.until() == null ? "" : " until " + x.time(x.poolWait.until())) + ")");
      case RUNNING -> "running: attempt " + w.attempt() + " on node " + node(w.executor(), null) + " since "
          + x.time(w.startedAt()) + ", lease until " + x.time(w.leaseUntil());
      case RETRY_WAIT -> x.throttledLast ? "throttled: attempt " + w.attempt() + " was throttled by its job; tried again at "
          + x.time(w.retryDueAt()) + " (no retry counted)" : "waiting to retry: retry " + w.retries() + " due at " + x.time(w.retryDueAt()) + " after attempt "
          + w.attempt() + (x.lastError == null ? " failed" : " failed: " + x.lastError);
      case FAILED, TIMED_OUT -> "attempt " + w.attempt() + " " + (w.status() == InstanceStatus.FAILED ? "failed" : "timed out")
          + (x.lastError == null ? "" : ": " + x.lastError) + "; the retry policy has not decided yet";
      case INTERRUPTED -> "attempt " + w.attempt() + " " + (x.lastError == null ? "was interrupted" : x.lastError)
          + "; what follows has not been decided yet";
    };
  }

  static String succeeded(Explainer x, WindowState w, String due) {
    Instant started = x.lastStart == null ? w.startedAt() : x.lastStart.at();
    String node = x.lastStart == null ? node(w.executor(), null) : node(x.lastStart.executor(), null);
    String done = "succeeded " + x.time(x.succeededAt == null ? w.updatedAt() : x.succeededAt);
    int attempt = w.attempt();
    if (x.manualRetry) {
      return "ran after " + (x.scheduledBy == null ? "an operator" : x.scheduledBy) + "'s retry: " + due + ", attempt " + attempt + " started " + x.time(started) + " on node "
          + node + ", " + done;
    }
    if (x.scheduledKind == RunKind.MANUAL) {
      return "ran by " + (x.scheduledBy == null ? "an operator" : x.scheduledBy) + ": " + (x.reopenedFrom == null ? "run now" : "run of a " + x.reopenedFrom + " window")
          + ", attempt " + attempt + " started " + x.time(started) + " on node " + node + ", " + done;
    }
    if (x.released != null && (x.scheduledKind == RunKind.FIRST || x.scheduledKind == RunKind.BACKFILL)) {
      return "ran after its wait: " + due + ", released " + x.time(x.released.at()) + " (" + x.released.detail() + "), attempt "
          + attempt + " started " + x.time(started) + " on node " + node + ", " + done;
    }
    if (x.scheduledKind == RunKind.BACKFILL) {
      return "ran late: fired as a BACKFILL at " + x.time(x.scheduledAt) + ", " + human(Duration.between(x.dueAt, x.scheduledAt))
          + " after due" + (x.reopenedFrom == null ? (x.downtime == null ? ", because it was not fired on time"
          : ", because " + x.downtime) : ", reopened from " + x.reopenedFrom + " by "
          + (x.scheduledBy == null ? "an operator" : x.scheduledBy) + "'s backfill")
          + "; attempt " + attempt + " started " + x.time(started) + " on node " + node + ", " + done;
    }
    Duration late = x.dueAt == null || started == null ? Duration.ZERO
        : Duration.between(x.dueAt.plus(x.jitterOffset()), started);
    if (attempt > 1) {
      return "ran after " + (attempt - 1) + (attempt == 2 ? " retry" : " retries") + ": " + due
          + (x.lastError == null ? "" : ", last error before: " + x.lastError) + "; attempt " + attempt + " started "
          + x.time(started) + " on node " + node + ", " + done;
    }
    if (x.dueAt == null || started == null || Rules.onTime(x.dueAt.plus(x.jitterOffset()), started, ON_TIME)) {
      return "ran on time: " + due + ", attempt 1 started " + x.time(started) + " (" + late(late, "due")
          + (x.downtime == null ? "" : ": " + x.downtime) + ") on node " + node + ", " + done;
    }
    String because = x.downtime != null ? x.downtime
        : x.scheduledAt != null && !Rules.onTime(x.scheduledAt, started, ON_TIME)
            ? "it waited " + human(Duration.between(x.scheduledAt, started)) + " for a free executor slot"
            : "the trigger fired it late";
    return "ran late: " + due + ", attempt 1 started " + x.time(started) + ", " + human(late) + " after due, because "
        + because + "; " + done;
  }
}
