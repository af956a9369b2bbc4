package io.almanac.persistence.audit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
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
 * <p><b>Configuration.</b> The audit needs only the journal's database: see
 * {@link #journalConfig(Config)}. A configuration that names just {@code almanac.persistence.h2.path}
 * or just the {@code almanac.persistence.postgres} settings is enough; a node's whole configuration
 * (with its tasks, cluster settings and so on) works too, and everything but the journal is ignored.
 *
 * <p><b>I5.</b> With {@code verify}, each task's journal is checked for one writer at a time (see
 * {@link Verifier}), and, when every task is audited (no {@code task}, no {@code window}), the
 * trigger's journal ({@code almanac-trigger}) too. A two-writer violation exits 1 like any other.
 *
 * <p><b>I6.</b> With {@code verify}, the trigger's events are read first, whatever is audited: they
 * are the journal's heartbeat, which tells I6 when no node was writing ({@link
 * Verifier#heartbeat(List)}). Windows are judged as of the journal's end less the grace, not as of
 * the wall clock.
 *
 * <p><b>Exit codes.</b> Distinct, so that a script can tell a broken promise from a broken audit:
 *
 * <table>
 *   <caption>Exit codes of the audit</caption>
 *   <tr><th>code</th><th>constant</th><th>meaning</th></tr>
 *   <tr><td>0</td><td>{@link #OK}</td><td>done; with {@code verify}, no invariant is violated and I2
 *       judged at least one due window (due by the schedule, or reached by an event)</td></tr>
 *   <tr><td>1</td><td>{@link #VIOLATION}</td><td>an invariant is violated (each violation printed
 *       with its task, window, invariant and events); only ever this meaning</td></tr>
 *   <tr><td>2</td><td>{@link #BAD_INPUT}</td><td>usage or configuration error, with a message naming
 *       the field and the value: an unknown task ({@code task 'x' is unknown: no events under
 *       persistence id task|x}) or window, a date that does not parse, {@code from} after
 *       {@code to}, an unknown format, a negative grace, an unknown option; a configuration file that
 *       is missing or does not parse, or that names no journal database</td></tr>
 *   <tr><td>3</td><td>{@link #UNREADABLE}</td><td>the journal could not be read: database
 *       unreachable or, for H2, the file is open in a running node; tables missing; an event that
 *       does not deserialize; a read that timed out</td></tr>
 *   <tr><td>4</td><td>{@link #NOTHING_CHECKED}</td><td>with {@code verify}: no violation, but
 *       nothing was shown to hold, because I2 judged no due window (the journal is younger than the
 *       grace, the range holds no due time and no window an event reached, or the schedule could not
 *       be computed); the report says which and what to do (e.g. a shorter {@code --grace})</td></tr>
 * </table>
 */
public final class Audit {

  /** Exit code 0: done, and with verify the invariants hold over at least one judged due window. */
  public static final int OK = 0;

  /** Exit code 1: an invariant is violated (and nothing else). */
  public static final int VIOLATION = 1;

  /**
   * Exit code 2: usage or configuration error (unknown task or window, bad date, from after to,
   * unknown format or option, negative grace; a configuration that is missing, does not parse or
   * names no journal database).
   */
  public static final int BAD_INPUT = 2;

  /** Exit code 3: the journal could not be read (database unreachable or locked, tables missing, bad event). */
  public static final int UNREADABLE = 3;

  /** Exit code 4: verify found no violation but judged no due window: nothing was shown to hold. */
  public static final int NOTHING_CHECKED = 4;

  private static final String SLICK_URL = "pekko-persistence-jdbc.shared-databases.slick.db.url";
  private static final String READ_JOURNAL_URL = "jdbc-read-journal.slick.db.url";

  private Audit() {}

  /**
   * Runs the audit on its own local ActorSystem (no cluster, no node) started on {@code config}.
   *
   * @param config the configuration naming the journal's database, as {@link #journalConfig(Config)}
   *     takes it: only the database (e.g. {@code almanac.persistence.h2.path = "/var/lib/almanac/db"}),
   *     or a node's configuration as it is (e.g. with {@code include "almanac-h2.conf"})
   * @param request what to audit
   * @param out where the timeline and the report go
   * @param err where progress, the summary and errors go
   * @return the exit code: {@value #OK}, {@value #VIOLATION}, {@value #BAD_INPUT}, {@value #UNREADABLE}
   *     or {@value #NOTHING_CHECKED}
   */
  public static int run(Config config, AuditRequest request, PrintStream out, PrintStream err) {
    Objects.requireNonNull(config, "config");
    Parsed p;
    Config journal;
    try {
      p = parse(request);
      journal = journalConfig(config);
    } catch (IllegalArgumentException e) {
      err.println("audit: " + e.getMessage());
      return BAD_INPUT;
    } catch (ConfigException e) {
      err.println("audit: configuration error: " + e.getMessage());
      return BAD_INPUT;
    }
    try (AuditReader reader = AuditReader.builder(journal)
        .progressEvery(p.progressEvery)
        .onProgress(progress -> err.println("audit: " + progress))
        .start()) {
      return audit(reader, p, out, err);
    } catch (JournalReadException e) {
      if (e.getCause() instanceof ConfigException c) {
        err.println("audit: configuration error: " + c.getMessage());
        return BAD_INPUT;
      }
      err.println("audit: " + e.getMessage());
      return UNREADABLE;
    }
  }

  /**
   * The configuration the audit reads the journal with, from one that names the database in any of
   * these ways, checked in this order:
   *
   * <ol>
   *   <li>the JDBC plugin's own settings ({@code pekko-persistence-jdbc.shared-databases.slick.db.url}
   *       or {@code jdbc-read-journal.slick.db.url}), e.g. through {@code include "almanac-h2.conf"}
   *       or {@code include "almanac-postgres.conf"} as a node's configuration has them: used as
   *       they are;
   *   <li>only {@code almanac.persistence.postgres { url, user, password, schema }}: read with
   *       {@code almanac-postgres.conf};
   *   <li>only {@code almanac.persistence.h2.path}: read with {@code almanac-h2.conf}.
   * </ol>
   *
   * Nothing else is needed (no tasks, no cluster settings, no demo settings) and anything else is
   * ignored. Pass the configuration as parsed (e.g. {@code ConfigFactory.parseFile}), not yet
   * merged with the libraries' reference.conf, which has defaults for both databases: a loaded
   * configuration is recognised by its plugin settings only.
   *
   * @param config the configuration, parsed or loaded
   * @return the configuration, resolved over every reference.conf
   * @throws IllegalArgumentException if it names no journal database, or both H2 and PostgreSQL
   *     without the plugin's settings
   * @throws ConfigException if it does not resolve
   */
  public static Config journalConfig(Config config) {
    Objects.requireNonNull(config, "config");
    ConfigObject root = config.root();
    if (has(root, SLICK_URL) || has(root, READ_JOURNAL_URL)) {
      return ConfigFactory.load(config);
    }
    boolean postgres = has(root, "almanac.persistence.postgres");
    boolean h2 = has(root, "almanac.persistence.h2");
    if (postgres && h2) {
      throw new IllegalArgumentException("the configuration names both almanac.persistence.h2 and almanac.persistence.postgres:"
          + " keep the one of the journal to audit, or include \"almanac-h2.conf\" or \"almanac-postgres.conf\"");
    }
    if (postgres || h2) {
      return ConfigFactory.load(config.withFallback(ConfigFactory.parseResources(postgres ? "almanac-postgres.conf" : "almanac-h2.conf")));
    }
    throw new IllegalArgumentException("the configuration names no journal database: set almanac.persistence.h2.path"
        + " (an H2 file) or almanac.persistence.postgres.url (with user and password), or include \"almanac-h2.conf\""
        + " or \"almanac-postgres.conf\" as the node does");
  }

  /** Whether a path is present, without resolving anything (the value may hold substitutions). */
  private static boolean has(ConfigObject root, String path) {
    ConfigValue v = root;
    for (String key : ConfigUtil.splitPath(path)) {
      if (!(v instanceof ConfigObject o) || !o.containsKey(key)) {
        return false;
      }
      v = o.get(key);
    }
    return v != null;
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
    Timeline timeline = p.timeline() ? Timeline.create(p.format(), out) : null;
    Verifier verifier = p.verify() ? Verifier.create().range(p.from(), p.to()).window(p.window()).grace(p.grace()) : null;
    // The trigger's events, read first: the journal's heartbeat (I6: when no node was writing), and I5 of its journal.
    List<Verifier.Written> trigger = verifier == null ? List.of() : reader.triggerWriters();
    // Its registrations: a task's spec from its registration on (its entity records it with its first
    // fire), and the tasks registered and never written (no journal of their own: their due windows are lost)
    java.util.Map<String, List<Verifier.Registration>> registered = verifier == null ? java.util.Map.of()
        : reader.registrations();
    if (verifier != null) {
      verifier.heartbeat(trigger);
      verifier.registrations(registered);
    }
    List<String> ids;
    if (p.task() != null) {
      ids = List.of(p.task());
    } else {
      java.util.TreeSet<String> all = new java.util.TreeSet<>(reader.taskIds());
      all.addAll(registered.keySet());
      ids = List.copyOf(all);
    }
    long windows = 0;
    int tasks = 0;
    boolean windowSeen = false;
    ReadProgress read = reader.progress();
    if (timeline != null) {
      timeline.begin();
    }
    if (verifier != null && p.task() == null && p.window() == null) {
      for (String pool : reader.poolNames()) { // I8: each pool's journal, one writer across the cluster
        verifier.checkPool(pool, reader.readPool(pool));
      }
    }
    for (String id : ids) {
      TaskHistory history = reader.read(id);
      read = reader.progress();
      if (history.isEmpty() && verifier != null && registered.containsKey(id)) {
        // registered, never written: judged by its registration up to the trigger's last event
        verifier.check(new TaskHistory(id, List.of(), reader.triggerLastEventAt().orElse(null)));
        tasks++;
        continue;
      }
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
    if (verifier != null && p.task() == null && p.window() == null) {
      verifier.checkTrigger(trigger); // I5 of the trigger's journal
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
    return switch (report.result()) {
      case OK -> OK;
      case FAILED -> VIOLATION;
      case NOTHING_CHECKED -> NOTHING_CHECKED;
    };
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
    n.put("ok", report.result() == VerificationReport.Result.OK);
    n.put("result", report.result().name());
    if (report.result() == VerificationReport.Result.NOTHING_CHECKED) {
      n.put("why", report.nothingChecked());
    }
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
    n.put("longestPastBound", s.longestPastBound().toString());
    n.put("longestPastBoundOf", s.longestPastBoundOf());
    ObjectNode checked = n.putObject("checked");
    for (VerificationReport.Invariant i : VerificationReport.Invariant.values()) {
      VerificationReport.Checked c = s.checked(i);
      ObjectNode o = checked.putObject(i.name());
      o.put("windows", c.windows());
      o.put("attempts", c.attempts());
      o.put("events", c.events());
      o.put("journals", c.journals());
    }
    n.put("journalEnd", s.journalEnd() == null ? null : s.journalEnd().toString());
    n.put("open", report.open().size());
    out.println(n);
  }
}
