package io.almanac.persistence.audit;

import io.almanac.journal.SpecRecord;

import io.almanac.journal.TaskJournal;

import io.almanac.JobResult;
import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.internal.TaskEntity;
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
