package io.almanac.internal.task;

import io.almanac.RefusedException;
import io.almanac.RefusedException.Reason;
import io.almanac.internal.protocol.TaskProtocol.EffectReply;
import io.almanac.internal.protocol.TaskProtocol.RecordEffect;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.EffectIntended;
import io.almanac.journal.TaskJournal.EffectRecorded;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The effect ledger's rules as pure decisions (R19): an effect is recorded once per window, by the
 * attempt that holds the window; an intent without an end means its outcome is unknown; keys,
 * values and the ledger's size are bounded. INTERNAL API.
 */
final class EffectRules {

  private final TaskSettings settings;

  EffectRules(TaskSettings settings) {
    this.settings = settings;
  }

  /**
   * Record an effect (or its intent) unless the ledger has it.
   *
   * @param state the task's state
   * @param cmd the effect
   * @param now the time
   * @return the event (if any) and what the ledger holds, or a refusal
   */
  Decided<EffectReply> record(State state, RecordEffect cmd, Instant now) {
    if (cmd.key() == null) {
      return Decided.refuse(new RefusedException(Reason.INVALID_ARGUMENT, "effect.key", null,
          "effect key is missing: an effect is recorded under a key"));
    }
    if (cmd.key().isBlank()) {
      return Decided.refuse(new RefusedException(Reason.INVALID_ARGUMENT, "effect.key", cmd.key(),
          "effect key '" + cmd.key() + "' is invalid: must not be empty"));
    }
    Optional<WindowState> found = AttemptLifecycle.runningAttempt(state, cmd.window(), cmd.attempt());
    if (found.isEmpty()) {
      return AttemptLifecycle.notRunning(state, cmd.window(), cmd.attempt());
    }
    WindowState w = found.get();
    String existing = w.effects().get(cmd.key());
    if (existing != null) {
      return Decided.reply(new EffectReply(false, existing, false));
    }
    boolean pending = w.pendingEffects().contains(cmd.key());
    if (cmd.intent() && pending) {
      return Decided.reply(new EffectReply(false, null, true));
    }
    String value = cmd.value() == null ? "" : cmd.value();
    if (cmd.key().length() > settings.maxEffectKeyLength()) {
      return Decided.refuse(new RefusedException(Reason.INVALID_ARGUMENT, "effect.key", Texts.abbreviate(cmd.key()),
          "effect key '" + Texts.abbreviate(cmd.key()) + "' is invalid: " + cmd.key().length() + " characters, at most "
          + settings.maxEffectKeyLength()));
    }
    if (value.length() > settings.maxEffectValueLength()) {
      return Decided.refuse(new RefusedException(Reason.INVALID_ARGUMENT, "effect.value", Texts.abbreviate(value),
          "effect value '" + Texts.abbreviate(value) + "' is invalid: " + value.length() + " characters, at most "
          + settings.maxEffectValueLength()));
    }
    if (!pending && w.effects().size() + w.pendingEffects().size() >= settings.maxEffectsPerWindow()) {
      return Decided.refuse(Reason.CONFLICT, "effect key '" + Texts.abbreviate(cmd.key()) + "' is refused: window '"
          + w.key() + "' already holds " + w.effects().size() + " effects (almanac.task.max-effects-per-window)");
    }
    if (cmd.intent()) {
      return Decided.persist(List.of(new EffectIntended(w.key(), w.attempt(), cmd.key(), now)), new EffectReply(true, null, true));
    }
    return Decided.persist(List.of(new EffectRecorded(w.key(), w.attempt(), cmd.key(), value, now)),
        new EffectReply(true, value, false));
  }
}
