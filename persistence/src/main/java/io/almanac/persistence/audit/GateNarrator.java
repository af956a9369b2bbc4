package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.WindowExplanation.human;
import static io.almanac.persistence.audit.WindowExplanation.node;

import io.almanac.InstanceStatus;
import io.almanac.SkipReason;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.AuditKinds.Placed;
import io.almanac.persistence.audit.AuditKinds.Told;
import java.time.Duration;
import java.util.Objects;

/**
 * What holds a window back or watches it, told and noted: waits for a dependency or condition (and
 * their release or end), resource pools, deadlines and upstream reruns. Owns their wording ({@link
 * AuditEvent#detail()}), their steps in a window's explanation ({@link WindowExplanation}) and what the
 * verifier notes of them ({@link TaskCheck}); their invariant is {@link GateInvariants}.
 * Stateless: what they learn goes to the {@link Explainer} and the {@link TaskCheck}.
 */
final class GateNarrator {

  private GateNarrator() {}

  /** Registers the kinds this feature tells. */
  static void kinds(AuditKinds.Table t) {
    t.kind(TaskJournal.WindowWaiting.class)
        .told(e -> new Told(e.kind() + ", due " + e.dueAt() + ", window [" + e.start() + ", " + e.end() + "), waiting for "
            + e.waitingFor() + " until " + e.waitUntil(), 0))
        .placed(e -> new Placed(e.start(), e.dueAt()))
        .narrated(GateNarrator::windowWaiting)
        .noted((c, e) -> {
          c.accounted(c.win, c.ref, e.dueAt()); // due and waiting for its dependency or condition: accounted for
          c.win.waitUntil = e.waitUntil();
        });
    t.kind(TaskJournal.WaitSatisfied.class)
        .told(e -> new Told("released: " + e.detail(), 0))
        .narrated(GateNarrator::waitSatisfied)
        .noted((c, e) -> { });
    t.kind(TaskJournal.WaitEnded.class)
        .told(e -> new Told(e.reason() + ": " + e.detail(), 0))
        .narrated(GateNarrator::waitEnded)
        .noted((c, e) -> { });
    t.kind(TaskJournal.ConditionCheckFailed.class)
        .told(e -> new Told("condition '" + e.condition() + "' check failed: " + e.error(), 0))
        .narrated(GateNarrator::conditionCheckFailed)
        .noted((c, e) -> { });
    t.kind(TaskJournal.PoolWaited.class)
        .told(e -> new Told("waits for pool " + e.pool() + ": " + e.reason()
            + (e.until() == null ? "" : " until " + e.until()), 0))
        .narrated(GateNarrator::poolWaited)
        .noted((c, e) -> {
          if (c.win.status == InstanceStatus.PENDING) {
            c.win.poolWait = c.ref; // a recorded reason for the rest of this PENDING spell
            c.win.poolWaitDetail = "waiting for pool '" + e.pool() + "': " + e.reason() + " since " + c.ref.at()
                + (e.until() == null ? "" : ", until " + e.until() + " at the latest");
          }
        });
    t.kind(TaskJournal.DeadlineMissed.class)
        .told(e -> new Told("deadline " + e.deadline() + " missed (due " + e.dueAt() + "): still " + e.status()
            + (e.attempt() > 0 ? " at attempt " + e.attempt() : ""), e.attempt()))
        .narrated(GateNarrator::deadlineMissed)
        .noted((c, e) -> { });
    t.kind(TaskJournal.UpstreamRerunRecorded.class)
        .told(e -> new Told("upstream " + e.upstream() + " window " + e.upstreamWindow() + " succeeded again: " + e.decision()
            + (e.detail() == null ? "" : " (" + e.detail() + ")"), 0))
        .narrated(GateNarrator::upstreamRerunRecorded)
        .noted((c, e) -> { });
  }

  static void windowWaiting(Explainer x, TaskJournal.WindowWaiting e) {
    if (x.dueAt == null) {
      x.dueAt = e.dueAt();
      x.dueDate = x.local(e.dueAt()).toLocalDate();
    }
    x.waiting = e;
    x.step(x.at, "Due " + x.time(e.dueAt()) + " " + x.zone.getId() + (x.downtime == null ? "" : " (" + x.downtime + ")")
        + ", it was recorded WAITING for " + e.waitingFor() + " until " + x.time(e.waitUntil()) + " ("
        + e.kind() + (Objects.equals(e.start(), e.end()) ? "" : ", window " + x.dateTime(e.start()) + " to "
        + x.dateTime(e.end())) + ").");
  }

  static void waitSatisfied(Explainer x, TaskJournal.WaitSatisfied e) {
    x.released = e;
    x.releasePending = true;
    x.step(x.at, "Released at " + x.time(e.at()) + (x.waiting == null ? "" : ", after waiting "
        + human(Duration.between(x.waiting.at(), e.at()))) + ": " + e.detail() + ".");
  }

  static void waitEnded(Explainer x, TaskJournal.WaitEnded e) {
    x.releasePending = false;
    x.skipText = e.pool() != null && e.reason() == SkipReason.BUDGET_EXHAUSTED
        ? "resource pool " + e.pool() + "'s budget for the day was spent (BUDGET_EXHAUSTED: " + e.detail() + "); the "
            + "pool's BUDGET_EXHAUSTED alert fires once a day per node, the next day starts afresh, and an operator may "
            + "raise the pool's budget for the day"
        : ScheduleNarrator.skipped(x, e.reason(), e.detail(), x.other);
    if (e.reason() == SkipReason.DEPENDENCY_NOT_MET || e.reason() == SkipReason.CONDITION_NOT_MET) {
      x.step(x.at, "Its wait ended at " + x.time(e.at()) + (x.waiting == null || x.waiting.waitUntil() == null ? ""
          : " (deadline " + x.time(x.waiting.waitUntil()) + ")") + " without what it waited for: it was recorded SKIPPED, "
          + x.skipText + ", and a WAIT_EXPIRED alert was raised.");
    } else {
      x.step(x.at, "Released, it did not run: " + x.skipText + ".");
    }
  }

  static void conditionCheckFailed(Explainer x, TaskJournal.ConditionCheckFailed e) {
    x.conditionError = "condition '" + e.condition() + "' failed: " + e.error();
    x.step(x.at, "A poll of condition '" + e.condition() + "' failed at " + x.time(e.at()) + ": " + e.error()
        + "; it is polled again at the next poll.");
  }

  static void poolWaited(Explainer x, TaskJournal.PoolWaited e) {
    x.poolWait = e;
    x.step(x.at, "The window waited for resource pool " + e.pool() + ": " + switch (e.reason()) {
      case FULL -> "its max-concurrent attempts were running across the cluster";
      case RATE -> "its rate allowed no start" + (e.until() == null ? "" : " before " + x.time(e.until()));
      case PAUSED -> "a throttled job paused it" + (e.until() == null ? "" : " until " + x.time(e.until()));
      case BUDGET -> "its budget for the day was spent";
    } + " (recorded once per pool and reason in an attempt; it starts when every pool it names has room).");
  }

  static void deadlineMissed(Explainer x, TaskJournal.DeadlineMissed e) {
    x.step(x.at, "Its deadline " + x.time(e.deadline()) + " (" + human(Duration.between(e.dueAt(), e.deadline()))
        + " after due) passed while it was still " + e.status() + (e.attempt() > 0 ? " (attempt " + e.attempt() + ")" : "")
        + ": DEADLINE_MISSED was recorded at " + x.time(e.at()) + " and a DEADLINE_MISSED alert was raised; the window"
        + " went on.");
  }

  static void upstreamRerunRecorded(Explainer x, TaskJournal.UpstreamRerunRecorded e) {
    x.step(x.at, "Upstream task " + e.upstream() + " succeeded for its window " + e.upstreamWindow() + " at "
        + x.time(e.at()) + ", after this window had " + (x.from == null ? "ended" : "been " + x.from) + ": "
        + e.decision() + (e.detail() == null || e.detail().isBlank() ? "" : " (" + e.detail() + ")") + ".");
  }
}
