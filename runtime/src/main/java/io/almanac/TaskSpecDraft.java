package io.almanac;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link TaskSpec.Builder} has been given so far, as given: the spec's parts before their
 * defaults are filled in and before they are checked ({@link TaskSpec.Builder#buildUnvalidated()}).
 * A spec read from JSON ({@link TaskSpecJson}) sets some parts here directly, past the builder's
 * refusals. Package-private: no part of the API.
 *
 * <p>INTERNAL API.
 */
final class TaskSpecDraft {
  final String id;
  String cron;
  String zone;
  String window = WindowSpec.DAILY.name();
  boolean windowChosen;
  DstPolicy dst = DstPolicy.DEFAULT;
  OverlapPolicy overlap = OverlapPolicy.DEFAULT;
  RetryPolicy retry = RetryPolicy.DEFAULT;
  Integer maxRetries;
  CatchUpPolicy catchUp = CatchUpPolicy.DEFAULT;
  LeasePolicy lease = LeasePolicy.DEFAULT;
  String job;
  boolean jobSet;
  String description;
  Instant once;
  EventTrigger event;
  DependencyTrigger dependency;
  ConditionTrigger condition;
  List<String> pools;
  Duration deadline;
  Integer pauseAfterFailures;
  BigDecimal budgetPerDay;
  // Richer schedules (docs/schedules.md)
  final List<String> alsoCrons = new ArrayList<>();
  String from;
  String until;
  final List<ExclusionCalendar> calendars = new ArrayList<>();
  Duration jitter;
  OnInterruption onInterruption;

  TaskSpecDraft(String id) {
    this.id = id;
  }
}
