package io.almanac;

import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The per-window effect ledger (R19): effects recorded for a window are visible to every later
 * attempt of that window, so a retry does not send the message a failed attempt already sent.
 *
 * <p>{@link #once} records an intent before running the effect and the effect's value after it. If
 * an attempt dies between the two, the outcome is unknown: a later {@code once} with the same key
 * fails with {@link EffectOutcomeUnknownException} rather than repeating the effect, so the job can
 * check downstream (with {@link JobContext#idempotencyKey()}) and record what it finds with {@link
 * #record}.
 */
public interface EffectLedger {

  /**
   * @param key the effect's key, e.g. {@code push:wechat}
   * @return the value recorded for the key in this window, if the effect completed
   */
  Optional<String> recorded(String key);

  /**
   * Runs the effect only if this window has not recorded it.
   *
   * @param key the effect's key, unique within the window
   * @param effect the effect; its value (e.g. a message id) is recorded
   * @return the recorded value: the earlier one if the effect already ran, else the effect's
   * @throws EffectOutcomeUnknownException (as the stage's failure) when an earlier attempt started
   *     the effect but did not record its end, or when this attempt's intent or value got no answer
   *     from the task's journal while it held its lease (a write waits that long; the message says
   *     whether the effect ran)
   */
  CompletionStage<String> once(String key, Supplier<CompletionStage<String>> effect);

  /**
   * Records an effect's value without running anything, e.g. after checking downstream that an
   * effect of unknown outcome did happen.
   *
   * @param key the effect's key
   * @param value its value
   * @return the value the ledger holds for the key
   * @throws EffectOutcomeUnknownException (as the stage's failure) when the write got no answer from
   *     the task's journal while this attempt held its lease
   */
  CompletionStage<String> record(String key, String value);
}
