package io.almanac.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.InstanceStatus;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.WindowView;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** The API's JSON shapes of a task and a window (docs/http-api.md). Pure. */
final class ApiJson {

  static final ObjectMapper JSON = new ObjectMapper();

  private ApiJson() {}

  /**
   * {@code {"id","zone","schedule","window","paused","removed","nextFireUtc","nextFireLocal",
   * "interventionQueue","hotWindows","p99Millis","leaseMillis"}}: the next fire as a UTC instant and
   * as an ISO offset date-time in the task's zone; a task with a richer schedule has its parts too
   * ({@link #richSchedule}).
   */
  static ObjectNode task(TaskView view) {
    TaskSpec spec = view.spec();
    ObjectNode n = JSON.createObjectNode();
    n.put("id", spec.id());
    n.put("zone", spec.zone());
    n.put("schedule", spec.oneShot() ? "once " + spec.once() : spec.cron());
    n.put("window", spec.window());
    n.put("paused", view.paused());
    n.put("removed", view.removed());
    n.put("nextFireUtc", text(view.nextDue()));
    n.put("nextFireLocal", local(view.nextDue(), spec.zone()));
    n.put("interventionQueue", view.interventionQueue());
    n.put("hotWindows", view.hotWindows());
    putMillis(n, "p99Millis", view.p99());
    putMillis(n, "leaseMillis", view.lease());
    richSchedule(n, spec);
    policies(n, spec);
    return n;
  }

  /**
   * The task's policies: {@code "overlap"} (the policy's name), {@code "retry"} ({@code
   * {"maxRetries","backoff","delays","initialDelay","multiplier","maxDelay","span"}}, durations as
   * ISO-8601, null where the backoff has none), {@code "catchUp"} ({@code {"mode","horizon","span"}}),
   * {@code "pools"} (names), {@code "deadlineMillis"} and {@code "budgetPerDay"} (a decimal string),
   * null without one.
   */
  private static void policies(ObjectNode n, TaskSpec spec) {
    n.put("overlap", spec.overlap() == null ? null : spec.overlap().name());
    io.almanac.RetryPolicy r = spec.retry();
    if (r == null) {
      n.putNull("retry");
    } else {
      ObjectNode o = n.putObject("retry");
      o.put("maxRetries", r.maxRetries());
      o.put("backoff", r.backoff() == null ? null : r.backoff().name());
      if (r.delays() == null || r.delays().isEmpty()) {
        o.putNull("delays");
      } else {
        r.delays().forEach(d -> o.withArray("delays").add(d.toString()));
      }
      o.put("initialDelay", r.initialDelay() == null ? null : r.initialDelay().toString());
      o.put("multiplier", r.multiplier());
      o.put("maxDelay", r.maxDelay() == null ? null : r.maxDelay().toString());
      o.put("span", r.span() == null || r.span().isZero() ? null : r.span().toString());
    }
    io.almanac.CatchUpPolicy c = spec.catchUp();
    if (c == null) {
      n.putNull("catchUp");
    } else {
      ObjectNode o = n.putObject("catchUp");
      o.put("mode", c.mode() == null ? null : c.mode().name());
      o.put("horizon", c.horizon() == null ? null : c.horizon().toString());
      o.put("span", c.span() == null || c.span().isZero() ? null : c.span().toString());
    }
    spec.pools().forEach(n.putArray("pools")::add);
    putMillis(n, "deadlineMillis", spec.deadline());
    n.put("budgetPerDay", spec.budgetPerDay() == null ? null : spec.budgetPerDay().toPlainString());
  }

  /**
   * A richer schedule's parts (docs/schedules.md), each only when the task has it: {@code "alsoCrons"}
   * (the crons besides {@code schedule}), {@code "from"}, {@code "until"} (as given), {@code
   * "calendars"} (names) and {@code "jitterMillis"}.
   */
  private static void richSchedule(ObjectNode n, TaskSpec spec) {
    if (!spec.alsoCrons().isEmpty()) {
      spec.alsoCrons().forEach(n.putArray("alsoCrons")::add);
    }
    if (spec.from() != null) {
      n.put("from", spec.from());
    }
    if (spec.until() != null) {
      n.put("until", spec.until());
    }
    if (!spec.calendars().isEmpty()) {
      spec.calendars().forEach(c -> n.withArray("calendars").add(c.name()));
    }
    if (!spec.jitter().isZero()) {
      n.put("jitterMillis", spec.jitter().toMillis());
    }
  }

  /**
   * {@code {"task","window","start","end","status","runKind","attempt","retries","maxRetries",
   * "summary","reason","dueAt","startedAt","finishedAt","createdAt","updatedAt","waitUntil","events",
   * "deadlineMissedAt","poolWait","usage","skipReason","reasonCode","runMillis","lagMillis"}}
   * ({@link #runMillis}, {@link #lagMillis}):
   * {@code startedAt} is when the current or last attempt started; {@code finishedAt} is the last
   * change of a window that is done or waits for an operator, else null; {@code waitUntil} is the
   * deadline of a WAITING window (for its dependency or condition), else null; {@code events} is
   * {@code {"received","duplicates","firstId","lastId"}}, the events of an event-triggered task
   * coalesced into the window, or null when none; {@code deadlineMissedAt} is when the window was
   * recorded as having missed its task's deadline (docs/deadlines.md), else null; {@code skipReason}
   * is a SKIPPED window's typed reason ({@code SkipReason}'s name); {@code reasonCode} the typed cause
   * of a window that did not run or did not succeed ({@code ReasonCode}'s name: the SkipReason of a
   * SKIPPED one, the MissReason of a MISSED one, the EndCause of one that failed, timed out, was
   * interrupted or cancelled, or waits for a retry), else null, and null where the source keeps none (instance-table rows
   * projected before it had the column); {@code poolWait} is
   * {@code {"pool","reason","until","since"}}, the resource pool a PENDING window waits for (reason
   * FULL, RATE or PAUSED; until and since may be null), else null; {@code usage} is {@code
   * {"tokensIn","tokensOut","cost","model"}}, what the window's attempts reported using, summed (cost
   * a decimal string, model may be null), or null when none reported usage; {@code progress} is {@code
   * {"attempt","fraction","text","at","latest":[{"at","level","text"}]}}, the running attempt's live
   * progress and latest log lines (fraction 0..1 or null, text may be null), held in the task's memory
   * while it runs, else null (and always null from the instance table).
   */
  /** The statuses an attempt's outcome records, in the same write: their last change is when the attempt ended. */
  private static final java.util.Set<InstanceStatus> ENDED_BY_ATTEMPT = java.util.Set.copyOf(java.util.EnumSet.of(
      InstanceStatus.SUCCEEDED, InstanceStatus.FAILED, InstanceStatus.TIMED_OUT, InstanceStatus.INTERRUPTED,
      InstanceStatus.RETRY_WAIT, InstanceStatus.FINAL_FAILED));

  /**
   * How long the window's last attempt ran, from its recorded start (after its pool waits and the
   * executor's admission; only a prefetched attempt of short jobs may wait about one job's time for a
   * slot after it) to its outcome; null when the window's last change was not its
   * attempt's outcome (running, pending, resolved or cancelled later: the view does not keep when the
   * attempt itself ended) or it never ran.
   */
  static Long runMillis(WindowView w) {
    if (w.status() == null || !ENDED_BY_ATTEMPT.contains(w.status()) || w.startedAt() == null || w.updatedAt() == null
        || w.attempt() < 1 || w.updatedAt().isBefore(w.startedAt())) {
      return null;
    }
    return java.time.Duration.between(w.startedAt(), w.updatedAt()).toMillis();
  }

  /**
   * How late a fresh fire's first attempt started after the window fell due (pool waits included);
   * null for a backfill, catch-up, retry or manual run (their start is late by design, not by load),
   * and before it started.
   */
  static Long lagMillis(WindowView w) {
    if (w.runKind() != io.almanac.RunKind.FIRST || w.attempt() != 1 || w.dueAt() == null || w.startedAt() == null) {
      return null;
    }
    return Math.max(0, java.time.Duration.between(w.dueAt(), w.startedAt()).toMillis());
  }

  static ObjectNode window(WindowView w) {
    ObjectNode n = JSON.createObjectNode();
    n.put("task", w.taskId());
    n.put("window", w.window().value());
    n.put("start", text(w.start()));
    n.put("end", text(w.end()));
    n.put("status", w.status() == null ? null : w.status().name());
    n.put("runKind", w.runKind() == null ? null : w.runKind().name());
    n.put("attempt", w.attempt());
    n.put("retries", w.retries());
    n.put("maxRetries", w.maxRetries());
    n.put("summary", w.summary());
    n.put("reason", w.reason());
    n.put("skipReason", w.skipReason() == null ? null : w.skipReason().name());
    n.put("reasonCode", w.reasonCode() == null ? null : w.reasonCode().name());
    n.put("dueAt", text(w.dueAt()));
    n.put("startedAt", text(w.startedAt()));
    boolean finished = w.status() != null && (w.status().isTerminal() || w.status() == InstanceStatus.FINAL_FAILED);
    n.put("finishedAt", finished ? text(w.updatedAt()) : null);
    n.put("runMillis", runMillis(w));
    n.put("lagMillis", lagMillis(w));
    n.put("createdAt", text(w.createdAt()));
    n.put("updatedAt", text(w.updatedAt()));
    n.put("waitUntil", text(w.waitUntil()));
    if (w.events() == null) {
      n.putNull("events");
    } else {
      ObjectNode e = n.putObject("events");
      e.put("received", w.events().received());
      e.put("duplicates", w.events().duplicates());
      e.put("firstId", w.events().firstId());
      e.put("lastId", w.events().lastId());
    }
    n.put("deadlineMissedAt", text(w.deadlineMissedAt()));
    if (w.poolWait() == null) {
      n.putNull("poolWait");
    } else {
      ObjectNode p = n.putObject("poolWait");
      p.put("pool", w.poolWait().pool());
      p.put("reason", w.poolWait().reason() == null ? null : w.poolWait().reason().name());
      p.put("until", text(w.poolWait().until()));
      p.put("since", text(w.poolWait().since()));
    }
    if (w.usage() == null) {
      n.putNull("usage");
    } else {
      ObjectNode u = n.putObject("usage");
      u.put("tokensIn", w.usage().tokensIn());
      u.put("tokensOut", w.usage().tokensOut());
      u.put("cost", w.usage().cost() == null ? null : w.usage().cost().toPlainString());
      u.put("model", w.usage().model());
    }
    if (w.progress() == null) {
      n.putNull("progress");
    } else {
      ObjectNode p = n.putObject("progress");
      p.put("attempt", w.progress().attempt());
      if (w.progress().fraction() == null) {
        p.putNull("fraction");
      } else {
        p.put("fraction", w.progress().fraction());
      }
      p.put("text", w.progress().text());
      p.put("at", text(w.progress().at()));
      lines(p.putArray("latest"), w.progress().latest());
    }
    return n;
  }

  /** Log lines as {@code [{"at","level","text"}]}. */
  static void lines(com.fasterxml.jackson.databind.node.ArrayNode out, java.util.List<io.almanac.journal.LogLine> lines) {
    for (io.almanac.journal.LogLine l : lines) {
      out.addObject().put("at", text(l.at())).put("level", l.level() == null ? null : l.level().name())
          .put("text", l.text());
    }
  }

  static String text(Instant t) {
    return t == null ? null : t.toString();
  }

  /** An instant as an ISO offset date-time in a zone, e.g. {@code 2026-11-30T08:30:00+08:00}. */
  static String local(Instant t, String zone) {
    if (t == null || zone == null) {
      return null;
    }
    return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(t.atZone(ZoneId.of(zone)).toOffsetDateTime());
  }

  private static void putMillis(ObjectNode n, String field, Duration d) {
    if (d == null) {
      n.putNull(field);
    } else {
      n.put(field, io.almanac.spi.Saturating.millis(d)); // a stored value past today's bounds never overflows
    }
  }
}
