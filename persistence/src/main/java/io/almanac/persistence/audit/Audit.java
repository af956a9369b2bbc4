package io.almanac.persistence.audit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import io.almanac.persistence.audit.Timeline.Format;
import io.almanac.persistence.audit.VerificationReport.EventRef;
import io.almanac.persistence.audit.VerificationReport.Open;
import io.almanac.persistence.audit.VerificationReport.Violation;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The audit command (R28), whole: reads the journal without a running node, prints the timeline of
 * a task or a window, verifies the invariants, and returns the exit code. The samples CLI wraps it
 * ({@code audit --task daily-digest --from 2026-11-01 --to 2026-11-29 --verify --format table}).
 *
 * <p><b>Output.</b> {@code out} gets the data in the requested format: the timeline (see
 * {@link Timeline}), then with {@code verify} the report: as text for {@code table}; as JSON Lines
 * for {@code json} ({@code {"record":"violation",...}}, {@code {"record":"open",...}},
 * {@code {"record":"note",...}} and a last {@code {"record":"verification","ok":...,...}}); for
 * {@code csv} the report goes to {@code err} as text, so {@code out} stays one CSV table.
 * {@code err} gets the progress lines, the summary ({@code audit: read 22 events of 1 task (5
 * windows) in 0.3 s}) and error messages.
 *
 * <p><b>Exit codes.</b>
 *
 * <ul>
 *   <li>{@value #OK}: done; with {@code verify}, I1-I4 hold.
 *   <li>{@value #VIOLATION}: a violation (each printed with its task, window, invariant and events).
 *   <li>{@value #BAD_INPUT}: bad input, with a message naming the field and the value: an unknown
 *       task ({@code task 'x' is unknown: no events under persistence id task|x}), an unknown window,
 *       a date that does not parse, {@code from} after {@code to}, an unknown format, a negative
 *       grace.
 *   <li>{@value #UNREADABLE}: the journal could not be read (database unreachable or, for H2, the
 *       file is open in a running node; tables missing; an event that does not deserialize).
 * </ul>
 */
public final class Audit {

  /** Exit code: done, and with verify the invariants hold. */
  public static final int OK = 0;

  /** Exit code: an invariant is violated. */
  public static final int VIOLATION = 1;

  /** Exit code: bad input (unknown task or window, bad date, from after to, unknown format). */
  public static final int BAD_INPUT = 2;

  /** Exit code: the journal could not be read. */
  public static final int UNREADABLE = 3;

  private Audit() {}

  /**
   * Runs the audit on its own local ActorSystem (no cluster, no node) started on {@code config}.
   *
   * @param config the journal configuration as a node uses it (e.g. {@code include "almanac-h2.conf"})
   * @param request what to audit
   * @param out where the timeline and the report go
   * @param err where progress, the summary and errors go
   * @return the exit code: {@value #OK}, {@value #VIOLATION}, {@value #BAD_INPUT} or {@value #UNREADABLE}
   */
  public static int run(Config config, AuditRequest request, PrintStream out, PrintStream err) {
    Objects.requireNonNull(config, "config");
    Parsed p;
    try {
      p = parse(request);
    } catch (IllegalArgumentException e) {
      err.println("audit: " + e.getMessage());
      return BAD_INPUT;
    }
    try (AuditReader reader = AuditReader.builder(config)
        .progressEvery(p.progressEvery)
        .onProgress(progress -> err.println("audit: " + progress))
        .start()) {
      return audit(reader, p, out, err);
    } catch (JournalReadException e) {
      err.println("audit: " + e.getMessage());
      return UNREADABLE;
    }
  }

  /**
   * Runs the audit with a reader the caller set up (and closes); its progress settings apply,
   * {@link AuditRequest#progressEvery()} does not.
   *
   * @param reader the reader
   * @param request what to audit
   * @param out where the timeline and the report go
   * @param err where the summary and errors go
   * @return the exit code, as {@link #run(Config, AuditRequest, PrintStream, PrintStream)}
   */
  public static int run(AuditReader reader, AuditRequest request, PrintStream out, PrintStream err) {
    Objects.requireNonNull(reader, "reader");
    try {
      return audit(reader, parse(request), out, err);
    } catch (IllegalArgumentException e) {
      err.println("audit: " + e.getMessage());
      return BAD_INPUT;
    } catch (JournalReadException e) {
      err.println("audit: " + e.getMessage());
      return UNREADABLE;
    }
  }

  private record Parsed(
      String task, String window, Instant from, Instant to, boolean verify, Format format, boolean timeline,
      Duration grace, long progressEvery) {}

  static Parsed parse(AuditRequest r) {
    Objects.requireNonNull(r, "request");
    if (r.task() != null && r.task().isBlank()) {
      throw new IllegalArgumentException("task '" + r.task() + "' is invalid: must not be empty (leave it out for every task)");
    }
    if (r.window() != null && r.window().isBlank()) {
      throw new IllegalArgumentException("window '" + r.window() + "' is invalid: must not be empty (leave it out for every window)");
    }
    Format format = Format.parse(r.format() == null ? AuditRequest.DEFAULT_FORMAT : r.format());
    Instant from = time("from", r.from());
    Instant to = time("to", r.to());
    if (from != null && to != null && from.isAfter(to)) {
      throw new IllegalArgumentException("from '" + r.from() + "' is invalid: it is after to '" + r.to() + "'");
    }
    if (r.grace() == null || r.grace().isNegative()) {
      throw new IllegalArgumentException("grace '" + r.grace() + "' is invalid: must be zero or positive");
    }
    if (r.progressEvery() < 1) {
      throw new IllegalArgumentException("progressEvery '" + r.progressEvery() + "' is invalid: must be at least 1");
    }
    return new Parsed(r.task() == null ? null : r.task().trim(), r.window() == null ? null : r.window().trim(), from, to,
        r.verify(), format, r.timeline(), r.grace(), r.progressEvery());
  }

  /**
   * Parses a range bound: a date (the start of that day in UTC) or an ISO-8601 instant or offset
   * date-time.
   *
   * @param field the field's name, for the message
   * @param value the value, or null
   * @return the instant, or null for a null or empty value
   * @throws IllegalArgumentException naming the field and the value if it does not parse
   */
  static Instant time(String field, String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String v = value.trim();
    try {
      if (v.length() == 10) {
        return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant();
      }
      return OffsetDateTime.parse(v).toInstant(); // accepts Z and offsets alike
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(field + " '" + value + "' is invalid: expected a date like 2026-11-01 (the start"
          + " of that day in UTC) or an instant like 2026-11-01T08:00:00Z");
    }
  }

  private static int audit(AuditReader reader, Parsed p, PrintStream out, PrintStream err) {
    List<String> ids = p.task() != null ? List.of(p.task()) : reader.taskIds();
    Timeline timeline = p.timeline() ? Timeline.create(p.format(), out) : null;
    Verifier verifier = p.verify() ? Verifier.create().range(p.from(), p.to()).window(p.window()).grace(p.grace()) : null;
    long windows = 0;
    int tasks = 0;
    boolean windowSeen = false;
    ReadProgress read = reader.progress();
    if (timeline != null) {
      timeline.begin();
    }
    for (String id : ids) {
      TaskHistory history = reader.read(id);
      read = reader.progress();
      if (history.isEmpty()) {
        if (p.task() != null) {
          err.println("audit: task '" + id + "' is unknown: no events under persistence id " + AuditReader.TASK_PREFIX + id);
          return BAD_INPUT;
        }
        continue;
      }
      tasks++;
      windows += history.windowCount();
      List<AuditEvent> shown = new ArrayList<>();
      for (AuditEvent e : history.events()) {
        if (p.window() != null && e.isAbout(p.window())) {
          windowSeen = true;
        }
        if ((p.window() == null || e.isAbout(p.window())) && within(e.at(), p.from(), p.to())) {
          shown.add(e);
        }
      }
      if (timeline != null) {
        timeline.write(id, shown);
      }
      if (verifier != null) {
        verifier.check(history);
      }
    }
    err.println(String.format(Locale.ROOT, "audit: read %,d events of %,d %s (%,d windows) in %.1f s (%,.0f events/s)",
        read.eventsRead(), tasks, tasks == 1 ? "task" : "tasks", windows, read.elapsed().toMillis() / 1000.0,
        read.eventsPerSecond()));
    VerificationReport report = verifier == null ? null : verifier.report();
    if (p.window() != null && !windowSeen && (report == null || report.ok())) {
      // A lost window has no events: then the verifier's violation is the answer, not "unknown".
      err.println("audit: window '" + p.window() + "' is unknown: no events of "
          + (p.task() == null ? "any task" : "task '" + p.task() + "'") + " are about it"
          + (report == null ? "" : " and it was not due in the range checked"));
      return BAD_INPUT;
    }
    if (report == null) {
      return OK;
    }
    switch (p.format()) {
      case JSON -> printJson(report, out);
      case CSV -> err.print(report.toText());
      default -> out.print(report.toText());
    }
    out.flush();
    return report.ok() ? OK : VIOLATION;
  }

  private static boolean within(Instant t, Instant from, Instant to) {
    return t == null ? from == null && to == null : (from == null || !t.isBefore(from)) && (to == null || !t.isAfter(to));
  }

  private static void printJson(VerificationReport report, PrintStream out) {
    for (Violation v : report.violations()) {
      ObjectNode n = Timeline.JSON.createObjectNode();
      n.put("record", "violation");
      n.put("task", v.taskId());
      n.put("window", v.window());
      n.put("invariant", v.invariant().name());
      n.put("description", v.invariant().description());
      n.put("message", v.message());
      ArrayNode events = n.putArray("events");
      for (EventRef ref : v.events()) {
        ObjectNode e = events.addObject();
        e.put("seq", ref.sequenceNr());
        e.put("event", ref.type());
        e.put("at", ref.at() == null ? null : ref.at().toString());
      }
      out.println(n);
    }
    for (Open o : report.open()) {
      ObjectNode n = Timeline.JSON.createObjectNode();
      n.put("record", "open");
      n.put("task", o.taskId());
      n.put("window", o.window());
      n.put("status", o.status());
      n.put("detail", o.detail());
      out.println(n);
    }
    for (String note : report.notes()) {
      ObjectNode n = Timeline.JSON.createObjectNode();
      n.put("record", "note");
      n.put("text", note);
      out.println(n);
    }
    VerificationReport.Stats s = report.stats();
    ObjectNode n = Timeline.JSON.createObjectNode();
    n.put("record", "verification");
    n.put("ok", report.ok());
    n.put("violations", report.violations().size());
    n.put("from", report.from() == null ? null : report.from().toString());
    n.put("to", report.to() == null ? null : report.to().toString());
    n.put("grace", report.grace().toString());
    n.put("tasks", s.tasks());
    n.put("eventsRead", s.eventsRead());
    n.put("windowsSeen", s.windowsSeen());
    ObjectNode byStatus = n.putObject("windowsByStatus");
    new TreeMap<>(s.windowsByStatus()).forEach(byStatus::put);
    n.put("windowsChecked", s.windowsChecked());
    n.put("windowsLost", s.windowsLost());
    n.put("checkedUntil", s.checkedUntil() == null ? null : s.checkedUntil().toString());
    n.put("doubleSuccesses", s.doubleSuccesses());
    n.put("attempts", s.attempts());
    n.put("successes", s.successes());
    n.put("retries", s.retries());
    n.put("lateResults", s.lateResults());
    n.put("longestRunningPastLease", s.longestRunningPastLease().toString());
    n.put("longestRunningPastLeaseOf", s.longestRunningPastLeaseOf());
    n.put("open", report.open().size());
    out.println(n);
  }
}
