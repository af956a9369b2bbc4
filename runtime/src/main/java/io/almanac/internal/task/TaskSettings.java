package io.almanac.internal.task;

import io.almanac.internal.protocol.StepBounds;
import com.typesafe.config.Config;
import io.almanac.InvalidSpecException;
import io.almanac.config.Settings;
import java.time.Duration;

/**
 * Settings of the task entities, from {@code almanac.task} (see reference.conf for each key's
 * meaning and default). Validated on construction: a wrong value is refused naming the key (R33).
 * INTERNAL API.
 *
 * @param hotWindows done windows kept in the entity's hot state before the oldest leave (at least twice
 *     {@code maxBackfillWindows}, so that one backfill and its bulk cancel never push a window out)
 * @param durationSamples attempt durations kept for the P99
 * @param maxSummaryLength longest accepted success summary, in characters
 * @param maxReasonLength longest accepted failure, cancel or resolve reason, in characters
 * @param maxArtifactUriLength longest accepted artifact URI, in characters
 * @param maxEffectsPerWindow most effects the ledger of one window holds
 * @param maxEffectKeyLength longest effect key
 * @param maxEffectValueLength longest effect value
 * @param maxBackfillWindows most windows one backfill request may schedule
 * @param snapshotEvery events between snapshots
 * @param recentFireGrace how late a window may be fired by the trigger and still count as on time
 * @param maxClockSkew how far in the future a fire's due time may be before it is refused
 * @param redispatchAfter how long a PENDING window waits before it is offered to an executor again
 * @param offerTimeout how long a fired window waits for the executor's answer to its offer before
 *     its schedule is written without a start
 * @param repeatedSkipAlert consecutive skipped windows that raise an alert (0 = never)
 * @param retention how long a window that is done stays in the hot state (R30)
 * @param deleteEventsBelowSnapshot whether events below a snapshot are deleted from the journal
 * @param eventIdsKept how many event ids an event-triggered task remembers to recognise duplicates (R9)
 * @param maxEventFuture how far ahead of the node's clock an event's own time may lie (R9, R33)
 * @param dependencyPoll how often a window waiting for its dependency asks its upstream tasks, besides
 *     being told at once when one succeeds (R9)
 * @param maxPendingPublishes publishes to one task this node has sent and not had answered, at most;
 *     a publish past it is refused at once ({@link io.almanac.OverloadedException})
 * @param publishRetryAfter how long a publish refused as overloaded is told to wait before it tries again
 * @param stashCapacity commands a task entity holds while one of its writes is in flight (Pekko drops
 *     those beyond it); above {@code maxPendingPublishes}, which alone must never fill it
 * @param upstreamAskTimeout how long a waiting window's check waits for each upstream task's report (R9)
 * @param steps the bounds of durable steps (a step's result, the steps per window, a step's name)
 * @param maxResumes how many times in a row a window's attempt may be interrupted and resumed (no retry
 *     spent) before the next interruption is handed to the retry policy instead
 */
public record TaskSettings(
    int hotWindows,
    int durationSamples,
    int maxSummaryLength,
    int maxReasonLength,
    int maxArtifactUriLength,
    int maxEffectsPerWindow,
    int maxEffectKeyLength,
    int maxEffectValueLength,
    int maxBackfillWindows,
    int snapshotEvery,
    Duration recentFireGrace,
    Duration maxClockSkew,
    Duration redispatchAfter,
    Duration offerTimeout,
    int repeatedSkipAlert,
    Duration retention,
    boolean deleteEventsBelowSnapshot,
    int eventIdsKept,
    Duration maxEventFuture,
    Duration dependencyPoll,
    int maxPendingPublishes,
    Duration publishRetryAfter,
    int stashCapacity,
    Duration upstreamAskTimeout,
    StepBounds steps,
    int maxResumes) {

  private static final String PREFIX = "almanac.task.";

  /**
   * The longest duration any {@code almanac.task} setting accepts: 3660 days (about ten years).
   * Bounded so that adding one to an instant can never overflow.
   */
  public static final Duration MAX_DURATION = io.almanac.config.Settings.MAX_DURATION;

  /** Canonical constructor: validates every setting. */
  public TaskSettings {
    atLeast("hot-windows", hotWindows, 10);
    atLeast("duration-samples", durationSamples, 1);
    atLeast("max-summary-length", maxSummaryLength, 1);
    atLeast("max-reason-length", maxReasonLength, 1);
    atLeast("max-artifact-uri-length", maxArtifactUriLength, 1);
    atLeast("max-effects-per-window", maxEffectsPerWindow, 1);
    atLeast("max-effect-key-length", maxEffectKeyLength, 1);
    atLeast("max-effect-value-length", maxEffectValueLength, 1);
    atLeast("max-backfill-windows", maxBackfillWindows, 1);
    if ((long) hotWindows < 2L * maxBackfillWindows) {
      // R30: the count bound is memory's only; one backfill and its bulk cancel never reach it
      throw new InvalidSpecException(PREFIX + "hot-windows", hotWindows, "must be >= " + 2L * maxBackfillWindows
          + ", twice " + PREFIX + "max-backfill-windows (" + maxBackfillWindows + "), so that a backfill and its bulk"
          + " cancel never push a recent window out of the hot state");
    }
    atLeast("snapshot-every", snapshotEvery, 1);
    if (recentFireGrace == null || recentFireGrace.isNegative()) {
      throw new InvalidSpecException(PREFIX + "recent-fire-grace", recentFireGrace, "must be >= 0");
    }
    atMost("recent-fire-grace", recentFireGrace);
    if (maxClockSkew == null || maxClockSkew.isNegative()) {
      throw new InvalidSpecException(PREFIX + "max-clock-skew", maxClockSkew, "must be >= 0");
    }
    atMost("max-clock-skew", maxClockSkew);
    Settings.positive(PREFIX + "redispatch-after", redispatchAfter);
    atMost("redispatch-after", redispatchAfter);
    Settings.positive(PREFIX + "offer-timeout", offerTimeout);
    atMost("offer-timeout", offerTimeout);
    atLeast("repeated-skip-alert", repeatedSkipAlert, 0);
    Settings.positive(PREFIX + "retention", retention);
    atMost("retention", retention);
    atLeast("event-ids-kept", eventIdsKept, 1);
    if (eventIdsKept > 1_000_000) {
      throw new InvalidSpecException(PREFIX + "event-ids-kept", eventIdsKept, "must be at most 1000000");
    }
    Settings.positive(PREFIX + "max-event-future", maxEventFuture);
    atMost("max-event-future", maxEventFuture);
    if (dependencyPoll == null || dependencyPoll.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new InvalidSpecException(PREFIX + "dependency-poll", dependencyPoll, "must be >= 1s");
    }
    atMost("dependency-poll", dependencyPoll);
    atLeast("max-pending-publishes", maxPendingPublishes, 1);
    Settings.positive(PREFIX + "publish-retry-after", publishRetryAfter);
    atMost("publish-retry-after", publishRetryAfter);
    atLeast("stash-capacity", stashCapacity, 2);
    if (maxPendingPublishes >= stashCapacity) {
      throw new InvalidSpecException(PREFIX + "max-pending-publishes", maxPendingPublishes, "must be below "
          + PREFIX + "stash-capacity (" + stashCapacity + "): the publishes one node sends to a task must never fill the "
          + "task's stash, which also holds its other commands and the publishes of the other nodes");
    }
    Settings.positive(PREFIX + "upstream-ask-timeout", upstreamAskTimeout);
    atMost("upstream-ask-timeout", upstreamAskTimeout);
    if (steps == null) {
      throw InvalidSpecException.missing(PREFIX + "max-step-result-size");
    }
    atLeast("max-resumes", maxResumes, 0);
  }

  /**
   * @param config the whole configuration (reads {@code almanac.task})
   * @return the validated settings
   * @throws InvalidSpecException naming the key of a wrong value
   */
  public static TaskSettings from(Config config) {
    Config c = config;
    return new TaskSettings(
        intOf(c, PREFIX + "hot-windows"),
        intOf(c, PREFIX + "duration-samples"),
        intOf(c, PREFIX + "max-summary-length"),
        intOf(c, PREFIX + "max-reason-length"),
        intOf(c, PREFIX + "max-artifact-uri-length"),
        intOf(c, PREFIX + "max-effects-per-window"),
        intOf(c, PREFIX + "max-effect-key-length"),
        intOf(c, PREFIX + "max-effect-value-length"),
        intOf(c, PREFIX + "max-backfill-windows"),
        intOf(c, PREFIX + "snapshot-every"),
        durationOf(c, PREFIX + "recent-fire-grace"),
        durationOf(c, PREFIX + "max-clock-skew"),
        durationOf(c, PREFIX + "redispatch-after"),
        durationOf(c, PREFIX + "offer-timeout"),
        intOf(c, PREFIX + "repeated-skip-alert"),
        durationOf(c, PREFIX + "retention"),
        Settings.booleanOf(c, PREFIX + "delete-events-below-snapshot"),
        intOf(c, PREFIX + "event-ids-kept"),
        durationOf(c, PREFIX + "max-event-future"),
        durationOf(c, PREFIX + "dependency-poll"),
        intOf(c, PREFIX + "max-pending-publishes"),
        durationOf(c, PREFIX + "publish-retry-after"),
        intOf(c, PREFIX + "stash-capacity"),
        durationOf(c, PREFIX + "upstream-ask-timeout"),
        StepBounds.from(c),
        intOf(c, PREFIX + "max-resumes"));
  }

  /** An integer, refusing a fraction such as 2.5 (which {@link Config#getInt} truncates). */
  private static int intOf(Config c, String key) {
    int value = Settings.intOf(c, key);
    Object raw = c.getValue(key).unwrapped();
    if (raw instanceof Double || raw instanceof String) {
      double d;
      try {
        d = Double.parseDouble(String.valueOf(raw).trim());
      } catch (NumberFormatException e) {
        d = Double.NaN;
      }
      if (d != value) {
        throw new InvalidSpecException(key, raw, "must be a whole number (an integer)");
      }
    }
    return value;
  }

  /** A duration, naming the value as written when it is refused. */
  private static Duration durationOf(Config c, String key) {
    return Settings.durationOf(c, key); // bounded there: zero to MAX_DURATION
  }

  private static void atMost(String key, Duration value) {
    if (value.compareTo(MAX_DURATION) > 0) {
      throw new InvalidSpecException(PREFIX + key, value, "must be at most " + MAX_DURATION);
    }
  }

  private static void atLeast(String key, int value, int min) {
    Settings.atLeast(PREFIX + key, value, min);
  }
}
