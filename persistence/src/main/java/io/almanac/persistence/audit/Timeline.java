package io.almanac.persistence.audit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Prints audit events as a timeline: every event with its sequence number, its time in UTC and in
 * the task's zone (as of that event), its type, window, attempt and reason. Three formats:
 *
 * <ul>
 *   <li>{@link Format#TABLE}: aligned text, one block per task with a title line
 *       ({@code task 'digest' (zone Asia/Shanghai): 22 events}) and a header row; columns
 *       {@code SEQ, UTC, LOCAL (zone), EVENT, WINDOW, ATTEMPT, DETAIL}; an attempt of 0 (the event is
 *       not about one attempt) is left blank.
 *   <li>{@link Format#JSON}: JSON Lines, one object per event and line (not an array, so a long
 *       journal streams and {@code grep}/{@code jq} work line by line):
 *       {@code {"record":"event","task":"digest","seq":3,"event":"AttemptStarted","window":"2026-11-29",
 *       "attempt":1,"at":"2026-11-29T00:00:00Z","local":"2026-11-29T08:00:00+08:00",
 *       "zone":"Asia/Shanghai","detail":"..."}}; {@code window} is null for task-level events and
 *       {@code attempt} 0 when the event is not about one attempt.
 *   <li>{@link Format#CSV}: RFC 4180 (comma separated, CRLF line ends, fields with a comma, quote,
 *       CR or LF quoted with {@code "} and inner quotes doubled), with the header
 *       {@code task,seq,event,window,attempt,at_utc,at_local,zone,detail}; empty window for
 *       task-level events, attempt 0 when not about one attempt.
 * </ul>
 *
 * Times in UTC are ISO-8601 instants ({@code 2026-11-29T00:00:00Z}); local times are ISO-8601 with
 * their offset ({@code 2026-11-29T08:00:00+08:00}); fractions of a second are shown only when there
 * are some. Not thread-safe.
 */
public final class Timeline {

  /** The output formats. */
  public enum Format {
    /** Aligned text columns. */
    TABLE,
    /** JSON Lines: one object per line. */
    JSON,
    /** RFC 4180 CSV with a header row. */
    CSV;

    /**
     * Parses a format name, ignoring case.
     *
     * @param name {@code table}, {@code json} or {@code csv}
     * @return the format
     * @throws IllegalArgumentException naming the value if it is none of them
     */
    public static Format parse(String name) {
      if (name != null) {
        for (Format f : values()) {
          if (f.name().equalsIgnoreCase(name.trim())) {
            return f;
          }
        }
      }
      throw new IllegalArgumentException("format '" + name + "' is invalid: expected table, json or csv");
    }
  }

  /** The CSV header row. */
  public static final String CSV_HEADER = "task,seq,event,window,attempt,at_utc,at_local,zone,detail";

  static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter LOCAL = DateTimeFormatter.ISO_OFFSET_DATE_TIME;
  private static final String CRLF = "\r\n";

  private final Format format;
  private final PrintStream out;
  private boolean begun;

  private Timeline(Format format, PrintStream out) {
    this.format = Objects.requireNonNull(format, "format");
    this.out = Objects.requireNonNull(out, "out");
  }

  /**
   * A timeline printer.
   *
   * @param format the format
   * @param out where to print
   * @return the printer
   */
  public static Timeline create(Format format, PrintStream out) {
    return new Timeline(format, out);
  }

  /**
   * Renders events to a string (for tests and small histories).
   *
   * @param format the format
   * @param events the events, of one or more tasks
   * @return the rendered timeline
   */
  public static String render(Format format, List<AuditEvent> events) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    Timeline t = create(format, ps);
    List<AuditEvent> task = new ArrayList<>();
    for (AuditEvent e : events) {
      if (!task.isEmpty() && !task.get(0).taskId().equals(e.taskId())) {
        t.write(task.get(0).taskId(), task);
        task.clear();
      }
      task.add(e);
    }
    if (!task.isEmpty()) {
      t.write(task.get(0).taskId(), task);
    } else {
      t.begin();
    }
    ps.flush();
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** Prints what comes before the first task: the CSV header; nothing for the other formats. Idempotent. */
  public void begin() {
    if (!begun) {
      begun = true;
      if (format == Format.CSV) {
        out.print(CSV_HEADER + CRLF);
      }
    }
  }

  /**
   * Prints one task's events.
   *
   * @param taskId the task
   * @param events its events to show, in journal order
   */
  public void write(String taskId, List<AuditEvent> events) {
    begin();
    switch (format) {
      case TABLE -> table(taskId, events);
      case JSON -> events.forEach(e -> out.println(json(e)));
      case CSV -> events.forEach(e -> out.print(csv(e) + CRLF));
      default -> throw new IllegalStateException(format.name());
    }
    out.flush();
  }

  /**
   * A time in a zone, ISO-8601 with its offset, e.g. {@code 2026-11-29T08:00:00+08:00}.
   *
   * @param at the instant
   * @param zone the zone
   * @return the local time, or an empty string for a null instant
   */
  public static String local(Instant at, ZoneId zone) {
    return at == null ? "" : LOCAL.format(at.atZone(zone));
  }

  private void table(String taskId, List<AuditEvent> events) {
    Set<ZoneId> zones = new LinkedHashSet<>();
    events.forEach(e -> zones.add(e.zone()));
    String zoneLabel = zones.size() == 1 ? zones.iterator().next().getId() : "task zone";
    out.println("task '" + taskId + "'" + (zones.size() == 1 ? " (zone " + zoneLabel + ")" : "") + ": "
        + events.size() + (events.size() == 1 ? " event" : " events"));
    if (events.isEmpty()) {
      out.println();
      return;
    }
    String[] header = {"SEQ", "UTC", "LOCAL (" + zoneLabel + ")", "EVENT", "WINDOW", "ATTEMPT", "DETAIL"};
    List<String[]> rows = new ArrayList<>();
    for (AuditEvent e : events) {
      rows.add(new String[] {
          Long.toString(e.sequenceNr()), String.valueOf(e.at()), local(e.at(), e.zone()), e.type(),
          e.window() == null ? "" : e.window(), e.attempt() == 0 ? "" : Integer.toString(e.attempt()),
          oneLine(e.detail())});
    }
    int[] width = new int[header.length];
    for (int i = 0; i < header.length; i++) {
      width[i] = header[i].length();
    }
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    out.println(row(header, width));
    for (String[] r : rows) {
      out.println(row(r, width));
    }
    out.println();
  }

  private static String row(String[] cells, int[] width) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      boolean last = i == cells.length - 1;
      boolean right = i == 0 || i == 5; // numbers right-aligned
      String cell = cells[i];
      if (last) {
        b.append(cell);
      } else if (right) {
        b.append(String.format(Locale.ROOT, "%" + width[i] + "s", cell)).append("  ");
      } else {
        b.append(String.format(Locale.ROOT, "%-" + width[i] + "s", cell)).append("  ");
      }
    }
    return b.toString().stripTrailing();
  }

  private static String oneLine(String s) {
    return s.replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ');
  }

  static String json(AuditEvent e) {
    ObjectNode n = JSON.createObjectNode();
    n.put("record", "event");
    n.put("task", e.taskId());
    n.put("seq", e.sequenceNr());
    n.put("event", e.type());
    n.put("window", e.window());
    n.put("attempt", e.attempt());
    n.put("at", e.at() == null ? null : e.at().toString());
    n.put("local", e.at() == null ? null : local(e.at(), e.zone()));
    n.put("zone", e.zone().getId());
    n.put("detail", e.detail());
    return n.toString();
  }

  static String csv(AuditEvent e) {
    return String.join(",", csvField(e.taskId()), Long.toString(e.sequenceNr()), csvField(e.type()),
        csvField(e.window() == null ? "" : e.window()), Integer.toString(e.attempt()),
        csvField(e.at() == null ? "" : e.at().toString()), csvField(local(e.at(), e.zone())), csvField(e.zone().getId()),
        csvField(e.detail()));
  }

  /**
   * Quotes a CSV field when RFC 4180 requires it.
   *
   * @param s the field
   * @return the field, quoted if it holds a comma, a quote, CR or LF
   */
  static String csvField(String s) {
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
      return s;
    }
    return '"' + s.replace("\"", "\"\"") + '"';
  }
}
