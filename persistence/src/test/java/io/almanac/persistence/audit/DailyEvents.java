package io.almanac.persistence.audit;

import io.almanac.JobResult;
import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * Test only: the events a daily task at 08:00 Asia/Shanghai (00:00 UTC) writes, window by window,
 * to build correct and broken journals by hand.
 */
final class DailyEvents {

  static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

  private DailyEvents() {}

  static TaskSpec daily(String id, OverlapPolicy overlap) {
    return TaskSpec.builder(id).cron("0 0 8 * * ? Asia/Shanghai").job("j").overlap(overlap).build();
  }

  /** When the window of {@code day} is due: 08:00 in Shanghai. */
  static Instant due(String day) {
    return LocalDate.parse(day).atTime(8, 0).atZone(SHANGHAI).toInstant();
  }

  static Instant start(String day) {
    return LocalDate.parse(day).atStartOfDay(SHANGHAI).toInstant();
  }

  static Instant end(String day) {
    return LocalDate.parse(day).plusDays(1).atStartOfDay(SHANGHAI).toInstant();
  }

  static TaskJournal.SpecDefined spec(TaskSpec spec, Instant at) {
    return new TaskJournal.SpecDefined(SpecRecord.of(spec), at);
  }

  static TaskJournal.InstanceScheduled scheduled(String day, RunKind kind, Instant at) {
    return new TaskJournal.InstanceScheduled(day, start(day), end(day), due(day), kind, at);
  }

  static TaskJournal.FireSkipped skipped(String day, SkipReason reason, String detail) {
    return new TaskJournal.FireSkipped(day, start(day), end(day), due(day), reason, detail, due(day));
  }

  static TaskJournal.WindowMissed missed(String day, MissReason reason, String detail, Instant at) {
    return new TaskJournal.WindowMissed(day, start(day), end(day), due(day), reason, detail, at);
  }

  static TaskJournal.AttemptStarted started(String day, int attempt, Instant at, Duration lease) {
    return new TaskJournal.AttemptStarted(day, attempt, RunKind.FIRST, at.plus(lease), "node-1", at);
  }

  static TaskJournal.AttemptSucceeded succeeded(String day, int attempt, Instant at) {
    return new TaskJournal.AttemptSucceeded(day, attempt, Duration.ofSeconds(1), "ok", null, at);
  }

  static TaskJournal.AttemptFailed failed(String day, int attempt, Instant at) {
    return new TaskJournal.AttemptFailed(day, attempt, Duration.ofSeconds(1), "boom", at);
  }

  static TaskJournal.LateResultRecorded late(String day, int attempt, Instant at) {
    return new TaskJournal.LateResultRecorded(day, attempt, JobResult.Outcome.SUCCEEDED,
        "result arrived after the lease expired; summary: ok", at);
  }

  /** A window that is scheduled when due, runs one attempt of a second and succeeds. */
  static List<TaskJournal.Event> ran(String day) {
    Instant due = due(day);
    return List.of(scheduled(day, RunKind.FIRST, due), started(day, 1, due, Duration.ofHours(1)),
        succeeded(day, 1, due.plusSeconds(1)));
  }

  /** The first hour of the event-only task's windows. */
  static final Instant HOUR0 = Instant.parse("2026-11-29T00:00:00Z");

  /** An event-only task: hourly UTC windows, one per order.paid event's hour. */
  static TaskSpec orders(String id) {
    return TaskSpec.builder(id).onEvent(io.almanac.EventTrigger.of("order.paid")).zone("UTC").window("hourly").job("j").build();
  }

  /** The key of the event-only task's window of hour i after {@link #HOUR0}. */
  static String hour(int i) {
    return String.format(java.util.Locale.ROOT, "2026-11-29-%02d", i);
  }

  /** The event of hour i arrives 10 minutes into it: its window is scheduled (the event in the same write), run and succeeds. */
  static List<TaskJournal.Event> ordered(int i) {
    Instant start = HOUR0.plus(Duration.ofHours(i));
    Instant at = start.plusSeconds(600);
    String key = hour(i);
    return List.of(new TaskJournal.InstanceScheduled(key, start, start.plus(Duration.ofHours(1)), at, RunKind.FIRST, at),
        new TaskJournal.EventReceived(key, "order.paid", "o-" + i, at, null, at),
        started(key, 1, at.plusSeconds(1), Duration.ofHours(1)), succeeded(key, 1, at.plusSeconds(2)));
  }

  /** The event-only task defined a minute before {@link #HOUR0}, then one event (and run) per hour. */
  static List<TaskJournal.Event> orders(String id, int windows) {
    List<TaskJournal.Event> events = new ArrayList<>(List.of(spec(orders(id), HOUR0.minusSeconds(60))));
    for (int i = 0; i < windows; i++) {
      events.addAll(ordered(i));
    }
    return events;
  }

  /** Joins event lists in order. */
  @SafeVarargs
  static List<TaskJournal.Event> journal(List<? extends TaskJournal.Event>... parts) {
    List<TaskJournal.Event> all = new ArrayList<>();
    for (List<? extends TaskJournal.Event> p : parts) {
      all.addAll(p);
    }
    return all;
  }

  /** The audit's view of a journal of these events, sequence numbers from 1, the zone tracked as a reader does. */
  static TaskHistory history(String taskId, List<? extends TaskJournal.Event> events) {
    List<AuditEvent> out = new ArrayList<>();
    ZoneId zone = java.time.ZoneOffset.UTC;
    long seq = 1;
    for (TaskJournal.Event e : events) {
      AuditEvent ae = AuditEvent.of(taskId, seq++, e, zone);
      zone = ae.zone();
      out.add(ae);
    }
    return TaskHistory.of(taskId, out);
  }
}
