package io.almanac.internal.task;

import io.almanac.internal.protocol.StepBounds;
import io.almanac.RefusedException;
import io.almanac.RefusedException.Reason;
import io.almanac.internal.lease.LeaseExpiry;
import io.almanac.internal.protocol.TaskProtocol.RecordStep;
import io.almanac.internal.protocol.TaskProtocol.StepReply;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.TaskJournal.StepRecorded;
import io.almanac.journal.WindowState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable steps' rules as pure decisions: a step is recorded once per window, by the attempt that
 * holds the window while its lease lasts; its name, its result and the window's number of steps are
 * bounded ({@link StepBounds}). Distinct from the effect ledger ({@link EffectRules}): a step has no
 * intent, so an attempt that dies inside it leaves nothing and the next attempt runs it again.
 * INTERNAL API.
 */
final class StepRules {

  private final StepBounds bounds;

  StepRules(StepBounds bounds) {
    this.bounds = bounds;
  }

  /**
   * Record a step's result unless the window holds one for its name.
   *
   * @param state the task's state
   * @param cmd the step
   * @param now the time
   * @return the event (if any) and the result the window holds for the step, or a refusal
   */
  Decided<StepReply> record(State state, RecordStep cmd, Instant now) {
    String name = cmd.name();
    if (name == null || name.isBlank()) {
      return invalid("step.name", String.valueOf(name), "step name '" + name + "' is invalid: must not be blank");
    }
    if (name.length() > bounds.maxNameLength()) {
      return invalid("step.name", Texts.abbreviate(name), "step name '" + Texts.abbreviate(name) + "' is invalid: "
          + name.length() + " characters, at most " + bounds.maxNameLength() + " (almanac.task.max-step-name-length)");
    }
    if (cmd.result() == null) {
      return invalid("step.result", "null", "step '" + name + "': its result is missing");
    }
    if (cmd.duration() == null || cmd.duration().isNegative()) {
      return invalid("step.duration", String.valueOf(cmd.duration()), "step '" + name + "': duration '"
          + cmd.duration() + "' is invalid: must be >= 0");
    }
    Optional<WindowState> found = AttemptLifecycle.runningAttempt(state, cmd.window(), cmd.attempt());
    if (found.isEmpty()) {
      return AttemptLifecycle.notRunning(state, cmd.window(), cmd.attempt());
    }
    WindowState w = found.get();
    if (LeaseExpiry.over(w, now)) {
      return Decided.refuse(Reason.STALE_ATTEMPT, "attempt " + w.attempt() + " of window '" + w.key()
          + "' cannot record step '" + name + "': its lease expired at " + w.leaseUntil());
    }
    WindowState.RecordedStep existing = w.steps().get(name);
    if (existing != null) {
      return Decided.reply(new StepReply(false, existing.result()));
    }
    int bytes = StepBounds.utf8Length(cmd.result());
    if (bytes > bounds.maxResultBytes()) {
      return invalid("step.result", "(" + bytes + " bytes)", "step '" + name + "': its result is " + bytes
          + " bytes of JSON, at most " + bounds.maxResultBytes() + " (almanac.task.max-step-result-size); keep a large "
          + "output in an artifact store and record its URI");
    }
    if (w.steps().size() >= bounds.maxStepsPerWindow()) {
      return Decided.refuse(Reason.CONFLICT, "step '" + Texts.abbreviate(name) + "' is refused: window '" + w.key()
          + "' already holds " + w.steps().size() + " steps (almanac.task.max-steps-per-window)");
    }
    return Decided.persist(List.of(new StepRecorded(w.key(), w.attempt(), name, cmd.type(), cmd.result(), cmd.usage(),
        cmd.duration(), now)), new StepReply(true, cmd.result()));
  }

  private static <T> Decided<T> invalid(String field, String value, String message) {
    return Decided.refuse(new RefusedException(Reason.INVALID_ARGUMENT, field, value, message));
  }
}
