package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.WindowExplanation.human;
import static io.almanac.persistence.audit.WindowExplanation.late;
import static io.almanac.persistence.audit.WindowExplanation.node;

import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.journal.Rules;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.AuditKinds.Told;
import io.almanac.persistence.audit.TaskCheck.Attempt;
import io.almanac.persistence.audit.WindowExplanation.Step;
import java.time.Duration;
import java.time.Instant;

/**
 * An attempt's events, told and noted: its start, heartbeats (lease), results, time-out,
 * interruption, late results, retries, the final failure, and what it ran (effects, steps, logs).
 * Owns their wording ({@link AuditEvent#detail()}) and their steps in a window's explanation
 * ({@link WindowExplanation}), and what the verifier notes of them ({@link TaskCheck}); their invariants
 * are {@link AttemptInvariants}.
 * Stateless: what they learn goes to the {@link Explainer} and the {@link TaskCheck}.
 */
final class AttemptNarrator {

  private AttemptNarrator() {}

  /** Registers the kinds this feature tells. */
  static void kinds(AuditKinds.Table t) {
    t.kind(TaskJournal.AttemptStarted.class)
        .told(e -> new Told(e.kind() + ", lease until " + e.leaseUntil() + (e.executor() == null ? "" : ", executor " + e.executor()), e.attempt()))
        .narrated(AttemptNarrator::attemptStarted)
        .noted((c, e) -> {
          OverlapPolicy policy = c.specInEffect == null ? OverlapPolicy.DEFAULT : c.specInEffect.overlap();
          Attempt a = new Attempt(c.win.key, e.attempt(), c.ref, e.leaseUntil(), policy);
          c.win.attempts.add(a);
          c.all.add(a);
          c.startedOne = true;
        });
    t.kind(TaskJournal.WindowStarted.class)
        .told(e -> new Told(String.valueOf(e), 0)) // the audit reads it as its schedule and its start (TaskJournal.expand)
        .narrated(AttemptNarrator::windowStarted)
        .noted((c, e) -> {
          AuditKinds.note(c, e.scheduled()); // the audit reads a WindowStarted as its two events; kept for a caller that does not
          AuditKinds.note(c, e.started());
        });
    t.kind(TaskJournal.LeaseExtended.class)
        .told(e -> new Told("lease until " + e.leaseUntil(), e.attempt()))
        .narrated(AttemptNarrator::leaseExtended)
        .noted((c, e) -> {
          Attempt a = c.attempt(c.win, e.attempt());
          if (a != null) {
            a.extensions.add(c.ref);
            if (e.leaseUntil() != null && (a.leaseUntil == null || e.leaseUntil().isAfter(a.leaseUntil))) {
              a.leaseUntil = e.leaseUntil();
            }
          }
        });
    t.kind(TaskJournal.AttemptSucceeded.class)
        .told(e -> new Told("took " + e.duration() + ": " + e.summary() + (e.artifactUri() == null ? "" : " (" + e.artifactUri() + ")")
            + AuditEvent.used(e.usage()), e.attempt()))
        .narrated(AttemptNarrator::attemptSucceeded)
        .noted((c, e) -> {
          c.win.successes.add(c.ref);
          c.ended(c.win, c.attempt(c.win, e.attempt()), c.ref);
        });
    t.kind(TaskJournal.AttemptFailed.class)
        .told(e -> new Told("took " + e.duration() + ": " + e.reason() + AuditEvent.used(e.usage()), e.attempt()))
        .narrated(AttemptNarrator::attemptFailed)
        .noted((c, e) -> c.ended(c.win, c.attempt(c.win, e.attempt()), c.ref));
    t.kind(TaskJournal.AttemptTimedOut.class)
        .told(e -> new Told(AuditEvent.timedOut(e, null), e.attempt()))
        .narrated(AttemptNarrator::attemptTimedOut)
        .noted((c, e) -> c.ended(c.win, c.attempt(c.win, e.attempt()), c.ref));
    t.kind(TaskJournal.AttemptInterrupted.class)
        .told(e -> new Told(e.reason() + " (not a failure: no retry spent)", e.attempt()))
        .narrated(AttemptNarrator::attemptInterrupted)
        .noted((c, e) -> {
          c.win.interruptions++;
          c.ended(c.win, c.attempt(c.win, e.attempt()), c.ref);
        });
    t.kind(TaskJournal.LateResultRecorded.class)
        .told(e -> new Told(e.outcome() + " arrived late (not counted): " + e.detail() + AuditEvent.used(e.usage()), e.attempt()))
        .narrated(AttemptNarrator::lateResultRecorded)
        .noted((c, e) -> c.win.late++);
    t.kind(TaskJournal.RetryScheduled.class)
        .told(e -> new Told("retry " + e.retryNumber() + " due " + e.dueAt(), 0))
        .narrated(AttemptNarrator::retryScheduled)
        .noted((c, e) -> c.win.retries++);
    t.kind(TaskJournal.InstanceFinalFailed.class)
        .told(e -> new Told(e.reason(), 0))
        .narrated(AttemptNarrator::instanceFinalFailed)
        .noted((c, e) -> { });
    t.kind(TaskJournal.EffectIntended.class)
        .told(e -> new Told("effect '" + e.key() + "' about to run", e.attempt()))
        .narrated(AttemptNarrator::effectIntended)
        .noted((c, e) -> { });
    t.kind(TaskJournal.EffectRecorded.class)
        .told(e -> new Told("effect '" + e.key() + "' = " + e.value(), e.attempt()))
        .narrated(AttemptNarrator::effectRecorded)
        .noted((c, e) -> { });
    t.kind(TaskJournal.StepRecorded.class)
        .told(e -> new Told("step '" + e.name() + "' recorded (" + (e.result() == null ? 0 : e.result().length())
            + " characters of result, took " + WindowExplanation.human(e.duration()) + WindowSteps.cost(e.usage()) + ")",
            e.attempt()))
        .narrated(AttemptNarrator::stepRecorded)
        .noted((c, e) -> { });
    t.kind(TaskJournal.StepsReplayed.class)
        .told(e -> new Told("steps replayed without running: " + String.join(", ", e.names()), e.attempt()))
        .narrated(AttemptNarrator::stepsReplayed)
        .noted((c, e) -> { });
    t.kind(TaskJournal.AttemptLogged.class)
        .told(e -> {
          String first = e.log().firstStackLine();
          return new Told(e.lines().size() + (e.lines().size() == 1 ? " log line" : " log lines")
              + (e.droppedLines() > 0 ? " (" + e.droppedLines() + " dropped)" : "")
              + (first == null ? "" : ", stack trace: " + first), e.attempt());
        })
        .narrated(AttemptNarrator::attemptLogged)
        .noted((c, e) -> { });
  }

  static void attemptStarted(Explainer x, TaskJournal.AttemptStarted e) {
    x.lastStart = e;
    x.attempts = Math.max(x.attempts, e.attempt());
    x.leaseExtensions = 0;
    // How late against what it waited for: a first run its due time, a retry its back-off; an operator's
    // run or a backfill only the executor (the waiting below).
    Instant ref = e.kind() == RunKind.FIRST ? (x.dueAt == null ? null : x.dueAt.plus(x.jitterOffset()))
        : e.kind() == RunKind.RETRY && x.lastRetry != null ? x.lastRetry.dueAt() : null;
    Duration behind = ref == null ? null : Duration.between(ref, e.at());
    String lateness = ref == null ? "" : e.kind() == RunKind.FIRST ? " (" + late(behind, "due") + ")"
        : behind.isNegative() || behind.isZero() ? " (as soon as its retry was due)"
        : " (" + human(behind) + " after its retry was due)";
    String waited = x.scheduledAt != null && Duration.between(x.scheduledAt, e.at()).compareTo(Duration.ofSeconds(5)) > 0
        ? ", after waiting " + human(Duration.between(x.scheduledAt, e.at())) + " for a free executor slot" : "";
    x.step(x.at, "Attempt " + e.attempt() + " (" + e.kind() + ") started at " + x.time(e.at()) + lateness + waited
        + " on node " + node(e.executor(), x.event.writer()) + ", lease until " + x.time(e.leaseUntil()) + ".");
  }

  static void windowStarted(Explainer x, TaskJournal.WindowStarted e) {
    // the audit reads a WindowStarted as its schedule and its start (AuditReader, auditEvents)
    x.step(x.at, "The journal holds a " + x.event.type() + " event for the window: " + x.event.detail() + ".");
  }

  static void leaseExtended(Explainer x, TaskJournal.LeaseExtended e) {
    x.leaseExtensions++;
    Step last = x.steps.isEmpty() ? null : x.steps.get(x.steps.size() - 1);
    String text = "Attempt " + e.attempt() + "'s heartbeat" + (x.leaseExtensions == 1 ? "" : "s (" + x.leaseExtensions + ")")
        + " extended its lease until " + x.time(e.leaseUntil()) + ".";
    if (x.leaseExtensions > 1 && last != null && last.text().startsWith("Attempt " + e.attempt() + "'s heartbeat")) {
      x.steps.set(x.steps.size() - 1, new Step(x.at, x.localIso(x.at), text));
    } else {
      x.step(x.at, text);
    }
  }

  static void attemptSucceeded(Explainer x, TaskJournal.AttemptSucceeded e) {
    x.succeededAt = e.at();
    x.throttledLast = false;
    x.step(x.at, "Attempt " + e.attempt() + " succeeded at " + x.time(e.at()) + " after " + human(e.duration())
        + (e.summary() == null || e.summary().isBlank() ? "" : ": " + e.summary())
        + (e.artifactUri() == null ? "" : " (" + e.artifactUri() + ")") + AuditEvent.used(e.usage()) + ".");
  }

  static void attemptFailed(Explainer x, TaskJournal.AttemptFailed e) {
    x.throttledLast = e.throttled();
    if (e.throttled()) {
      x.step(x.at, "Attempt " + e.attempt() + " was THROTTLED at " + x.time(e.at()) + " after " + human(e.duration())
          + ": its job asked to retry after " + human(e.throttledFor()) + (e.throttledPool() == null
          ? "; the task's pools paused for as long" : "; pool " + e.throttledPool() + " paused for as long")
          + " (not counted against the retry cap).");
      return;
    }
    x.lastError = e.reason();
    x.step(x.at, "Attempt " + e.attempt() + " failed at " + x.time(e.at()) + " after " + human(e.duration()) + ": "
        + e.reason() + AuditEvent.used(e.usage()) + ".");
  }

  static void attemptTimedOut(Explainer x, TaskJournal.AttemptTimedOut e) {
    x.throttledLast = false; // the latest attempt's outcome is a timeout, not a throttle
    if (e.leaseUntil() == null || Rules.leaseOver(e.leaseUntil(), e.at())) {
      x.lastError = "its lease expired" + (e.leaseUntil() == null ? "" : " at " + x.time(e.leaseUntil()));
      x.step(x.at, "Attempt " + e.attempt() + " timed out at " + x.time(e.at()) + ": " + x.lastError
          + (e.duration() == null ? "" : " after running " + human(e.duration())) + ".");
    } else {
      String cause = AuditEvent.causeBeforeLease(AuditEvent.recordedCause(x.events, x.current));
      x.lastError = "timed out before its lease ended: " + cause;
      x.step(x.at, "Attempt " + e.attempt() + " was timed out at " + x.time(e.at()) + ", before its lease ended at "
          + x.time(e.leaseUntil()) + ": " + cause + ".");
    }
  }

  static void attemptInterrupted(Explainer x, TaskJournal.AttemptInterrupted e) {
    x.throttledLast = false;
    String what = switch (e.cause()) {
      case NODE_STOPPED -> "its node stopped and the job was still running when the shutdown grace ended";
      case NODE_LOST -> "its node died or left while the job ran";
      case FENCED -> "its node lost its lease (frozen, paused or cut off) and was fenced out";
    };
    x.lastError = "interrupted (" + e.cause() + "): " + what;
    String node = x.lastStart != null && x.lastStart.attempt() == e.attempt() && x.lastStart.executor() != null
        ? " on node " + node(x.lastStart.executor(), null) : "";
    x.step(x.at, "Attempt " + e.attempt() + node + " was interrupted at " + x.time(e.at()) + " (" + e.cause() + "): " + what
        + ". Its node's life stopped it, not its job: this is not a failure and spends no retry.");
  }

  static void lateResultRecorded(Explainer x, TaskJournal.LateResultRecorded e) {
    x.step(x.at, "A late " + e.outcome() + " result of attempt " + e.attempt() + " arrived at " + x.time(e.at())
        + " and was recorded for audit only: that attempt no longer held the window (" + e.detail() + ").");
  }

  static void retryScheduled(Explainer x, TaskJournal.RetryScheduled e) {
    x.lastRetry = e;
    if (x.throttledLast) {
      x.step(x.at, "The throttled window is tried again at " + x.time(e.dueAt()) + ", after the wait its job asked for; no "
          + "retry is counted (retry number stays " + e.retryNumber() + ").");
      return;
    }
    int cap = x.spec == null ? 0 : x.spec.retry().maxRetries();
    x.step(x.at, "The retry policy scheduled retry " + e.retryNumber() + (cap > 0 ? " of " + cap : "") + ", due at "
        + x.time(e.dueAt()) + (e.dueAt().isAfter(e.at()) ? " (back-off " + human(Duration.between(e.at(), e.dueAt())) + ")"
        : " (at once)") + ".");
  }

  static void instanceFinalFailed(Explainer x, TaskJournal.InstanceFinalFailed e) {
    // the policy's decision as recorded; a final failure written before it was recorded: read from its reason
    x.finalReason = !LegacyReasons.legacy(e) ? e.decision() : e.reason() == null ? null : LegacyReasons.decision(e.reason());
    x.step(x.at, "It failed finally at " + x.time(e.at()) + ": " + e.reason() + "; it waits in the intervention queue "
        + "for an operator to retry or resolve it.");
  }

  static void effectIntended(Explainer x, TaskJournal.EffectIntended e) {
    x.step(x.at, "Attempt " + e.attempt() + " was about to run effect '" + e.key() + "' (its outcome is unknown until "
        + "it is recorded).");
  }

  static void effectRecorded(Explainer x, TaskJournal.EffectRecorded e) {
    x.step(x.at, "Attempt " + e.attempt() + " recorded effect '" + e.key() + "' = " + e.value() + ".");
  }

  static void stepRecorded(Explainer x, TaskJournal.StepRecorded e) {
    x.step(x.at, "Attempt " + e.attempt() + " ran step '" + e.name() + "' in " + WindowSteps.duration(e.duration())
        + WindowSteps.cost(e.usage()) + " and recorded its result: later attempts of this window get it without running it.");
  }

  static void stepsReplayed(Explainer x, TaskJournal.StepsReplayed e) {
    x.step(x.at, "Attempt " + e.attempt() + " got the recorded result" + (e.names().size() == 1 ? " of step " : "s of steps ")
        + WindowSteps.quoted(e.names()) + " without running " + (e.names().size() == 1 ? "it." : "them."));
  }

  static void attemptLogged(Explainer x, TaskJournal.AttemptLogged e) {
    String first = e.log().firstStackLine();
    String lines = e.lines().size() + (e.lines().size() == 1 ? " line" : " lines")
        + (e.droppedLines() > 0 ? " (and " + e.droppedLines() + " dropped)" : "");
    x.step(x.at, first == null ? "Attempt " + e.attempt() + " logged " + lines + " (almanac logs)."
        : "Attempt " + e.attempt() + "'s job threw " + first + "; it logged " + lines + " (almanac logs shows them "
        + "and the stack trace).");
  }
}
