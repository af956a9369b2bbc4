package io.almanac.persistence.audit;

import io.almanac.journal.TaskJournal;

import io.almanac.journal.Rules;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.WriterStamp;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One event of a task's journal as the audit sees it: what happened (the event's type), to which
 * window and attempt, when, and why.
 *
 * @param taskId the task's id (the persistence id is {@code task|<taskId>})
 * @param sequenceNr the event's sequence number in the task's journal (1, 2, ...)
 * @param type the event's type: the simple name of its class, e.g. {@code AttemptSucceeded}
 * @param window the key of the window it is about, or null for task-level events (spec, pause)
 * @param attempt the attempt it is about, or 0 when it is not about one attempt
 * @param at when it happened (UTC; the entity's clock); for an event type this version does not
 *     know, the time the journal wrote it
 * @param zone the task's zone as of this event (from the latest {@code SpecDefined} at or before
 *     it; UTC before the first), for display in local time
 * @param detail the reason or detail, human-readable; never null (may be empty)
 * @param event the raw event object as the journal returned it
 * @param writer who wrote it (the node and its incarnation, from the event's metadata: see {@link
 *     WriterStamp}), or null when unknown (written before writer stamps existed, or through a journal
 *     plugin without them)
 */
public record AuditEvent(
    String taskId, long sequenceNr, String type, String window, int attempt, Instant at, ZoneId zone, String detail,
    Object event, WriterStamp writer) {

  /** Refuses a missing task id, type, zone or detail. */
  public AuditEvent {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(detail, "detail");
  }

  /**
   * An event whose writer is unknown.
   *
   * @param taskId the task's id
   * @param sequenceNr the event's sequence number
   * @param type the event's type
   * @param window the window's key, or null
   * @param attempt the attempt, or 0
   * @param at when it happened
   * @param zone the task's zone as of this event
   * @param detail the reason or detail
   * @param event the raw event
   */
  public AuditEvent(
      String taskId, long sequenceNr, String type, String window, int attempt, Instant at, ZoneId zone, String detail,
      Object event) {
    this(taskId, sequenceNr, type, window, attempt, at, zone, detail, event, null);
  }

  /**
   * @param stamp who wrote the event, or null when unknown
   * @return this event with that writer
   */
  public AuditEvent withWriter(WriterStamp stamp) {
    return new AuditEvent(taskId, sequenceNr, type, window, attempt, at, zone, detail, event, stamp);
  }

  /**
   * Describes a raw journal event. Events of types this version does not know are kept with their
   * class name and {@code toString()} as detail, so a newer journal never breaks the audit.
   *
   * @param taskId the task's id
   * @param sequenceNr the event's sequence number
   * @param event the raw event
   * @param zone the task's zone in effect before this event (a {@code SpecDefined} brings its own)
   * @return the audit's view of the event
   */
  public static AuditEvent of(String taskId, long sequenceNr, Object event, ZoneId zone) {
    Objects.requireNonNull(event, "event");
    ZoneId z = zone == null ? ZoneOffset.UTC : zone;
    String type = event.getClass().getSimpleName();
    Instant at = event instanceof TaskJournal.Event e ? e.at() : null;
    String window = event instanceof TaskJournal.WindowEvent w ? w.window() : null;
    if (event instanceof TaskJournal.SpecDefined e) {
      z = zoneOf(e.spec(), z);
    }
    AuditKinds.Told told = event instanceof TaskJournal.Event e ? AuditKinds.told(e) : new AuditKinds.Told(String.valueOf(event), 0);
    int attempt = told.attempt();
    String detail = told.detail();
    return new AuditEvent(taskId, sequenceNr, type, window, attempt, at, z, detail, event);
  }

  /**
   * @param u an attempt's usage, or null
   * @return {@code ; used N tokens in, M out, cost C (model)}, or empty without usage
   */
  static String used(io.almanac.journal.UsageRecord u) {
    if (u == null) {
      return "";
    }
    return "; used " + u.tokensIn() + " tokens in, " + u.tokensOut() + " out, cost "
        + io.almanac.Usage.fromMicros(u.costMicros()).toPlainString() + (u.model() == null ? "" : " (" + u.model() + ")");
  }

  /**
   * @param e an operator's raise of a day's budget
   * @return it for people: the day, the amount, the new limit and the note
   */
  static String budgetRaisedText(TaskJournal.BudgetRaised e) {
    return (e.actor() == null ? "operator" : e.actor()) + " raised the budget for " + e.day() + " by " + io.almanac.Usage.fromMicros(e.amountMicros()).toPlainString()
        + " to " + io.almanac.Usage.fromMicros(e.limitMicros()).toPlainString()
        + (e.note() == null || e.note().isBlank() ? "" : ": " + e.note());
  }

  /** @return {@code  by alice (note: "...")}, or empty when no actor was recorded */
  static String by(String actor, String note) {
    if (actor == null) {
      return "";
    }
    return " by " + actor + (note == null || note.isBlank() ? "" : " (note: \"" + note + "\")");
  }

  /**
   * @return who did this operator action (an HTTP token's name, or the name a Java API caller
   *     gave), or null when not an operator's action or written before actors were recorded
   */
  public String actor() {
    return event instanceof TaskJournal.Acted a ? a.actor() : null;
  }

  /**
   * What a timeout can honestly be said to be from its event alone, or with the cause the entity
   * recorded in the event written with it (see {@link #withCauses(List)}).
   *
   * <p>{@code AttemptTimedOut} carries the lease's end but no cause. When the lease ended at or
   * before the timeout was recorded, the lease expired, at that time. When it was recorded before
   * the lease ended, the lease did not expire: the attempt was timed out for another reason (the
   * entity does this when the attempt's executor is gone: its node was restarted or left, e.g. the
   * attempt was found orphaned at recovery), and its lease's end is a time that never came for it.
   */
  static String timedOut(TaskJournal.AttemptTimedOut e, String recordedCause) {
    String held = e.duration() == null ? "" : ", held " + e.duration();
    if (e.leaseUntil() == null || e.at() == null) {
      return "timed out" + (e.leaseUntil() == null ? "" : ", lease was until " + e.leaseUntil())
          + (recordedCause == null ? "" : ": " + recordedCause) + held;
    }
    if (Rules.leaseOver(e.leaseUntil(), e.at())) {
      Duration late = Duration.between(e.leaseUntil(), e.at());
      return "lease expired at " + e.leaseUntil() + (late.isZero() ? "" : ", timed out " + late + " later") + held;
    }
    return "timed out before its lease ended (lease was until " + e.leaseUntil() + "): " + causeBeforeLease(recordedCause)
        + held;
  }

  /**
   * @param recordedCause the cause the entity recorded with a timeout before its lease ended, or null
   * @return the cause as people read it: the recorded one, or why there is none
   */
  static String causeBeforeLease(String recordedCause) {
    return recordedCause != null ? recordedCause
        : "cause not recorded (AttemptTimedOut has no cause; the entity times an attempt out before its lease"
            + " ends when the attempt's executor is gone: node restarted or left)";
  }

  /**
   * The events with each timeout's detail completed by the cause the entity recorded with it:
   * when a timeout is followed, at the same instant and in the same window, by an
   * {@code InstanceFinalFailed} that carries its {@code lastCause} (the entity records the timeout's
   * reason there), that cause is shown with the timeout; one written before that field existed gives
   * the cause its reason names after {@code last:} (read by {@link LegacyReasons}). Other events are
   * unchanged.
   *
   * @param events one task's events in journal order
   * @return the same events, timeouts described with their recorded cause where there is one
   */
  public static List<AuditEvent> withCauses(List<AuditEvent> events) {
    List<AuditEvent> out = new ArrayList<>(events);
    for (int i = 0; i < out.size(); i++) {
      AuditEvent a = out.get(i);
      String cause = recordedCause(events, i);
      if (cause != null && a.event() instanceof TaskJournal.AttemptTimedOut t) {
        out.set(i, new AuditEvent(a.taskId, a.sequenceNr, a.type, a.window, a.attempt, a.at, a.zone, timedOut(t, cause),
            a.event, a.writer));
      }
    }
    return out;
  }

  /**
   * The cause the entity recorded with the timeout at {@code i}: the {@code lastCause} of an
   * {@code InstanceFinalFailed} written with it (same window, same instant). A final failure written
   * before that field existed has it only in its reason's text, read by {@link LegacyReasons} alone.
   *
   * @param events one task's events in journal order
   * @param i the index of an event
   * @return the cause, or null when the event is no timeout or none was recorded with it
   */
  static String recordedCause(List<AuditEvent> events, int i) {
    AuditEvent a = events.get(i);
    if (!(a.event() instanceof TaskJournal.AttemptTimedOut t)) {
      return null;
    }
    for (int j = i + 1; j < events.size(); j++) {
      AuditEvent b = events.get(j);
      if (!Objects.equals(b.window(), a.window()) || !(b.event() instanceof TaskJournal.Event be)
          || !Objects.equals(be.at(), t.at())) {
        return null; // only the events written with the timeout (same window, same instant)
      }
      if (be instanceof TaskJournal.InstanceFinalFailed f) {
        return LegacyReasons.legacy(f) ? LegacyReasons.lastCause(f.reason()) : f.lastCause();
      }
    }
    return null;
  }

  AuditEvent withAt(Instant time) {
    return new AuditEvent(taskId, sequenceNr, type, window, attempt, time, zone, detail, event, writer);
  }

  /**
   * Whether the event is about the given window.
   *
   * @param key a window key
   * @return true if {@link #window()} equals it
   */
  public boolean isAbout(String key) {
    return key != null && key.equals(window);
  }

  private static ZoneId zoneOf(SpecRecord spec, ZoneId fallback) {
    try {
      return ZoneId.of(spec.zone());
    } catch (RuntimeException e) {
      return fallback; // a spec in the journal was valid when written; a zone this JVM lacks is shown in UTC
    }
  }

  private static String describe(SpecRecord.Retry r) {
    if (r.maxRetries() <= 0) {
      return "no retries";
    }
    String when = r.backoff() == null ? "without a back-off" : switch (r.backoff()) {
      case IMMEDIATE -> "immediate";
      case DELAYS -> "after " + r.delays();
      case EXPONENTIAL -> "exponential " + r.initialDelay() + " x" + r.multiplier() + " up to " + r.maxDelay()
          + (r.jitter() == 0.0 ? "" : " jitter " + r.jitter());
    };
    return "max retries " + r.maxRetries() + " " + when + (isSet(r.span()) ? " within " + r.span() + " of the window's start" : "");
  }

  private static String describe(SpecRecord.CatchUp c) {
    return "catch-up " + c.mode() + " horizon " + c.horizon() + (isSet(c.span()) ? " span " + c.span() : "");
  }

  /** A policy's span is set when it is not zero (the persisted record reads a missing one as zero). */
  private static boolean isSet(Duration span) {
    return !span.isZero();
  }

  /** The spec as persisted: described as written, also when today's rules would refuse it. */
  static String describe(SpecRecord s) {
    String trigger = s.once() != null ? "once at " + s.once() : "cron '" + s.cron() + "'";
    return trigger + " in " + s.zone() + ", window " + s.window() + ", overlap " + s.overlap()
        + ", " + describe(s.retry()) + ", " + describe(s.catchUp())
        + ", dst gap " + s.dst().gap() + " overlap " + s.dst().overlap()
        + (s.job() == null ? "" : ", job " + s.job());
  }
}
