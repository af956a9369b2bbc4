package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.WindowExplanation.failures;

import io.almanac.InstanceStatus;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.InstanceCancelled;
import io.almanac.persistence.audit.AuditKinds.Told;

/**
 * What operators (and the task's own pause on failures) did, told and noted: pause, resume,
 * removal, a raise of the day's budget, resolving and cancelling a window, and who did it. Owns
 * their wording ({@link AuditEvent#detail()}) and their steps in a window's explanation ({@link
 * WindowExplanation}), and what the verifier notes of them ({@link TaskCheck}: a pause holds a
 * window back, judged by {@link GateInvariants}).
 * Stateless: what they learn goes to the {@link Explainer} and the {@link TaskCheck}.
 */
final class OperatorNarrator {

  private OperatorNarrator() {}

  /** Registers the kinds this feature tells. */
  static void kinds(AuditKinds.Table t) {
    t.kind(TaskJournal.TaskPaused.class)
        .told(e -> {
          if (e.onFailures() && e.failures() != null) {
            return new Told("task paused itself: " + e.failures().count() + " windows in a row ended FINAL_FAILED, from "
                + e.failures().first() + " to " + e.failures().last(), 0);
          }
          return new Told("task paused" + AuditEvent.by(e.actor(), e.note()), 0);
        })
        .narrated(OperatorNarrator::taskPaused)
        .noted((c, e) -> c.paused = true);
    t.kind(TaskJournal.TaskResumed.class)
        .told(e -> new Told("task resumed" + AuditEvent.by(e.actor(), e.note()), 0))
        .narrated(OperatorNarrator::taskResumed)
        .noted((c, e) -> {
          if (c.paused) { // a resume of a task that was not paused changes nothing
            c.paused = false;
            c.pauseEnded = e.at();
          }
        });
    t.kind(TaskJournal.TaskRemoved.class)
        .told(e -> new Told("task removed: not fired from here on; its history stays", 0))
        .narrated(OperatorNarrator::taskRemoved)
        .noted((c, e) -> c.removals.add(c.at));
    t.kind(TaskJournal.BudgetRaised.class)
        .told(e -> new Told(AuditEvent.budgetRaisedText(e), 0))
        .narrated(OperatorNarrator::budgetRaised)
        .noted((c, e) -> { }); // an operator's raise of a day's budget: about no window
    t.kind(TaskJournal.InstanceResolved.class)
        .told(e -> new Told(e.note() + AuditEvent.by(e.actor(), null), 0))
        .narrated(OperatorNarrator::instanceResolved)
        .noted((c, e) -> { });
    t.kind(TaskJournal.InstanceCancelled.class)
        .told(e -> new Told(e.reason() + AuditEvent.by(e.actor(), null), e.attempt()))
        .narrated(OperatorNarrator::instanceCancelled)
        .noted((c, e) -> c.ended(c.win, c.win.openAttempt(), c.ref)); // only one attempt of a window runs at a time
  }

  static void taskPaused(Explainer x, TaskJournal.TaskPaused p) {
    x.pausedAt = p.at();
    x.pausedOnFailures = p.onFailures() && p.failures() != null ? p : null;
    if (x.seen && x.open(x.own) && x.pausedOnFailures != null) {
      x.step(x.event.at(), "The task paused itself: " + failures(p) + ". Windows due from here on are skipped until an operator"
          + " resumes it; a TASK_PAUSED_ON_FAILURES alert was raised.");
    } else if (x.seen && x.open(x.own)) {
      x.step(x.event.at(), p.actor() == null
          ? "The task was paused (an operator's pause): windows due from here on are skipped until it is resumed."
          : p.actor() + " paused the task" + withNote(p.note()) + ": windows due from here on are skipped until it is "
              + "resumed.");
    }
  }

  static void taskResumed(Explainer x, TaskJournal.TaskResumed r) {
    if (x.seen && x.open(x.own)) {
      x.step(x.event.at(), (r.actor() == null ? "The task was resumed" : r.actor() + " resumed the task" + withNote(r.note()))
          + (x.pausedAt == null ? "." : " after a pause since " + x.time(x.pausedAt) + "."));
    }
    x.pausedAt = null;
    x.pausedOnFailures = null;
  }

  static void taskRemoved(Explainer x, TaskJournal.TaskRemoved r) {
    if (x.seen) {
      x.step(r.at(), "The task was removed: it is fired no more; its history stays in the journal.");
    }
    x.removedAt = r.at();
  }

  static void budgetRaised(Explainer x, TaskJournal.BudgetRaised r) {
    // told when it is about the explained window's day, after the window's first event (a raise before it
    // shows in that event's own detail: a skip names the raised limit)
    if (x.seen && x.dueDate != null && x.dueDate.equals(r.day())) {
      x.step(r.at(), who(r.actor()) + " raised the task's budget for " + r.day() + " by "
          + io.almanac.Usage.fromMicros(r.amountMicros()).toPlainString() + " to "
          + io.almanac.Usage.fromMicros(r.limitMicros()).toPlainString()
          + (r.note() == null || r.note().isBlank() ? "" : " (" + r.note() + ")")
          + ": windows due later that day run while its cost stays below that.");
    }
  }

  static void instanceResolved(Explainer x, TaskJournal.InstanceResolved e) {
    x.resolveNote = e.note();
    x.resolvedBy = e.actor();
    x.step(x.at, who(e.actor()) + " resolved the failed window at " + x.time(e.at()) + " with the note \"" + e.note() + "\".");
  }

  static void instanceCancelled(Explainer x, TaskJournal.InstanceCancelled e) {
    x.cancelText = cancelled(e);
    x.step(x.at, "It was cancelled at " + x.time(e.at()) + (x.from == InstanceStatus.RUNNING ? " while attempt " + e.attempt()
        + " ran" : x.from == null ? "" : " while " + x.from) + ": " + x.cancelText + ".");
  }

  /** @return the operator who acted ({@code alice}), or {@code An operator} when not recorded */
  static String who(String actor) {
    return actor == null ? "An operator" : actor;
  }

  /** @return {@code  (note: "...")}, or empty without a note */
  static String withNote(String note) {
    return note == null || note.isBlank() ? "" : " (note: \"" + note + "\")";
  }

  static String cancelled(InstanceCancelled e) {
    String reason = e.reason() == null ? "" : e.reason();
    TaskJournal.CancelCause cause = e.cause() != null ? e.cause() : LegacyReasons.cancelCause(e.reason());
    return switch (cause) {
      case TASK_REMOVED -> "the task was removed";
      case SUPERSEDED -> "the overlap policy CANCEL_PREVIOUS cancels a running or waiting window when the next one fires ("
          + reason + ")";
      case OPERATOR -> (e.actor() == null ? "an operator" : e.actor()) + " cancelled it with the reason \"" + reason + "\"";
    };
  }
}
