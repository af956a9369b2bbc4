package io.almanac.persistence.audit;

import io.almanac.journal.TaskJournal;

/**
 * Events written before the typed fields ({@link TaskJournal.InstanceFinalFailed#decision()},
 * {@link TaskJournal.InstanceFinalFailed#lastCause()}, {@link TaskJournal.InstanceCancelled#cause()})
 * carry their facts only as the text their writer rendered; this is the one reader of that text,
 * used only when the typed fields are null, so that those legacy journals are explained exactly as
 * they were before the fields existed. Events that carry the fields are never read here.
 *
 * <p>The texts read are the ones the entity wrote: a final failure's reason {@code <decision>; last:
 * <lastCause>}, a removal's cancel {@code task removed}, a CANCEL_PREVIOUS cancel {@code superseded
 * by window <key>}. NoMessageParsingRulesTest (samples) allows these methods by name, and no others.
 */
final class LegacyReasons {

  private LegacyReasons() {}

  /**
   * @param f a final failure
   * @return whether it was written before its decision and last cause were recorded (both null)
   */
  static boolean legacy(TaskJournal.InstanceFinalFailed f) {
    return f.decision() == null && f.lastCause() == null;
  }

  /**
   * The decision of a legacy final failure: its reason up to {@code "; last: "}, or the whole reason.
   *
   * @param reason the stored reason
   * @return the decision part, as the explanation showed it before the typed fields
   */
  static String decision(String reason) {
    int k = reason.indexOf("; last: ");
    return k < 0 ? reason : reason.substring(0, k);
  }

  /**
   * The last cause of a legacy final failure: what follows its last {@code "last: "}, or null.
   *
   * @param reason the stored reason, or null
   * @return the cause, trimmed, or null when the reason names none
   */
  static String lastCause(String reason) {
    if (reason == null) {
      return null;
    }
    int k = reason.lastIndexOf("last: ");
    return k < 0 ? null : reason.substring(k + "last: ".length()).trim();
  }

  /**
   * The cause of a legacy cancel, told from its reason as before the typed cause: {@code task removed}
   * is a removal, {@code superseded by window ...} the overlap policy CANCEL_PREVIOUS, anything else
   * an operator's.
   *
   * @param reason the stored reason, or null
   * @return the cause
   */
  static TaskJournal.CancelCause cancelCause(String reason) {
    if (reason == null) {
      return TaskJournal.CancelCause.OPERATOR;
    }
    if (reason.equals("task removed")) {
      return TaskJournal.CancelCause.TASK_REMOVED;
    }
    if (reason.startsWith("superseded by window ")) {
      return TaskJournal.CancelCause.SUPERSEDED;
    }
    return TaskJournal.CancelCause.OPERATOR;
  }
}
