package io.almanac.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import io.almanac.InvalidSpecException;
import io.almanac.persistence.instances.InstanceRebuild;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code almanac}: the operator's command line. {@code demo} (the default, so that {@code java -jar
 * almanac-demo.jar} runs the demo node) and {@code audit} (the offline journal reader, {@link
 * AuditCli}) run in this JVM; every other command talks to a running node over its HTTP API only
 * (docs/http-api.md), with {@code --url} (default {@value #DEFAULT_URL}, or {@code ALMANAC_URL}) and,
 * for actions, {@code --token} (or {@code ALMANAC_TOKEN}). {@code --json} prints the API's JSON as
 * is; the default is a table.
 *
 * <p>Exit codes (also in {@code --help} and docs/cli.md):
 *
 * <ul>
 *   <li>{@value #EXIT_OK} ok;
 *   <li>{@value #EXIT_REFUSED} refused by the node: the API answered 404 or 409 (the problem's detail
 *       is printed); {@code status}: the node is not ready;
 *   <li>{@value #EXIT_BAD_INPUT} bad input: a usage error (unknown option, missing or malformed value)
 *       or the API answered 400 (the field and the value are named);
 *   <li>{@value #EXIT_UNREACHABLE} unreachable: connection refused or timed out (the URL is printed), or
 *       the node answered 5xx;
 *   <li>{@value #EXIT_UNAUTHORIZED} unauthorized: the API answered 401, or 403 for a read token on an
 *       action (pass {@code --token} or set {@code ALMANAC_TOKEN});
 *   <li>{@value #EXIT_OVERLOADED} overloaded: the API answered 429 (a task's queue of publishes is
 *       full): nothing was stored; try again after the {@code Retry-After} it printed.
 * </ul>
 *
 * {@code audit} keeps its own codes (see {@link AuditCli}).
 */
@Command(
    name = "almanac",
    mixinStandardHelpOptions = true,
    version = "almanac 0.1.0-SNAPSHOT",
    description = {
      "Operates an Almanac node over its HTTP API; with no command, runs the demo node.",
      "Times: local (the task's zone) and UTC where the API gives both."
    },
    subcommands = {
      AlmanacCli.Demo.class, AlmanacCli.Status.class, AlmanacCli.Tasks.class, AlmanacCli.Windows.class,
      AlmanacCli.Queue.class, AlmanacCli.Why.class, AlmanacCli.Timeline.class, AlmanacCli.Steps.class,
      AlmanacCli.Logs.class, AlmanacCli.Pause.class,
      AlmanacCli.Resume.class, AlmanacCli.Run.class, AlmanacCli.Backfill.class, AlmanacCli.Retry.class,
      AlmanacCli.Resolve.class, AlmanacCli.Cancel.class, AlmanacCli.Publish.class, AlmanacCli.Audit.class, AlmanacCli.RebuildInstances.class,
      AlmanacCli.RaiseBudget.class, AlmanacCli.Pools.class, AlmanacCli.RaisePoolBudget.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:ok",
      "1:refused by the node (404 not found, 409 refused: its detail is printed); status: the node is not ready",
      "2:bad input: a usage error, or the API answered 400 (the field and the value are named)",
      "3:unreachable: connection refused or timed out (the URL is printed), or the node answered 5xx",
      "4:unauthorized (401), or forbidden (403: a read token on an action): pass --token or set ALMANAC_TOKEN",
      "5:overloaded (429): nothing was stored; try again after the Retry-After printed"
    },
    footer = {"%naudit keeps its own exit codes (almanac audit --help). More: docs/cli.md"})
public final class AlmanacCli implements Callable<Integer> {

  /** The default node URL. */
  static final String DEFAULT_URL = "http://127.0.0.1:8558";

  /** Done. */
  public static final int EXIT_OK = 0;
  /** The node refused (404, 409), or is not ready ({@code status}). */
  public static final int EXIT_REFUSED = 1;
  /** A usage error or a 400 from the API. */
  public static final int EXIT_BAD_INPUT = 2;
  /** The node could not be reached, did not answer in time, or answered 5xx. */
  public static final int EXIT_UNREACHABLE = 3;
  /** The API answered 401 (no token or a wrong one), or 403 (a read token on an action). */
  public static final int EXIT_UNAUTHORIZED = 4;
  /** The API answered 429: the node refused at once, nothing was stored; try again after the Retry-After. */
  public static final int EXIT_OVERLOADED = 5;

  @Option(names = "--url", scope = ScopeType.INHERIT, paramLabel = "URL",
      defaultValue = "${env:ALMANAC_URL:-" + DEFAULT_URL + "}",
      description = "the node's HTTP API (default: env ALMANAC_URL, else " + DEFAULT_URL + ")")
  String url;

  @Option(names = "--token", scope = ScopeType.INHERIT, paramLabel = "TOKEN", defaultValue = "${env:ALMANAC_TOKEN}",
      description = "a token of the node (almanac.http.token or one of almanac.http.tokens), sent as a bearer token "
          + "(default: env ALMANAC_TOKEN)")
  String token;

  @Option(names = "--json", scope = ScopeType.INHERIT, description = "print the API's JSON as is (for scripts)")
  boolean json;

  @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "DURATION", defaultValue = "PT30S",
      converter = DurationConverter.class,
      description = "how long to wait to connect and for each answer, ISO-8601 (default: ${DEFAULT-VALUE})")
  Duration timeout;

  @Spec CommandSpec spec;

  /** Runs the demo node: what {@code java -jar almanac-demo.jar} did before there were commands. */
  @Override
  public Integer call() {
    return DemoNode.run(new String[0]);
  }

  /**
   * The command line: {@code java -jar samples/target/almanac-demo.jar [command] ...}.
   *
   * @param args the arguments; none, or the demo's own options first ({@code --digest-now},
   *     {@code --cluster ...}), run the demo node
   */
  public static void main(String[] args) {
    int code = execute(withDefault(args), new PrintWriter(System.out, true), new PrintWriter(System.err, true));
    System.exit(code);
  }

  /** The demo's own options, which select {@code demo} when they come first. */
  private static final Set<String> DEMO_OPTIONS = Set.of("--digest-now", "--cluster", "--host", "--port", "--seed",
      "--pg-url", "--pg-user", "--pg-schema", "--data-dir");

  static String[] withDefault(String[] args) {
    if (args.length == 0 || DEMO_OPTIONS.contains(args[0])) {
      String[] demo = new String[args.length + 1];
      demo[0] = "demo";
      System.arraycopy(args, 0, demo, 1, args.length);
      return demo;
    }
    return args;
  }

  /**
   * Runs one command line in this JVM.
   *
   * @param args the arguments
   * @param out standard output
   * @param err standard error
   * @return the exit code
   */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = commandLine();
    cli.setOut(out);
    cli.setErr(err);
    return cli.execute(args);
  }

  /** @return the command line with the exit-code handlers */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new AlmanacCli());
    cli.setParameterExceptionHandler((ex, a) -> {
      CommandLine c = ex.getCommandLine();
      c.getErr().println("almanac: " + ex.getMessage());
      if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, c.getErr())) {
        c.usage(c.getErr());
      }
      c.getErr().flush();
      return EXIT_BAD_INPUT;
    });
    cli.setExecutionExceptionHandler((ex, c, parsed) -> {
      if (ex instanceof CliException e) {
        c.getErr().println(e.getMessage());
        c.getErr().flush();
        return e.exitCode();
      }
      c.getErr().println("almanac: failed: " + ex);
      c.getErr().flush();
      return EXIT_REFUSED;
    });
    return cli;
  }

  /** ISO-8601 durations, named in the error. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        Duration d = Duration.parse(value);
        if (d.isNegative() || d.isZero()) {
          throw new CommandLine.TypeConversionException("'" + value + "' must be a positive duration, e.g. PT10S");
        }
        return d;
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException("'" + value + "' is not an ISO-8601 duration, e.g. PT10S");
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The commands over HTTP share: the client, the output, and the printing of JSON as is.

  /** A command that talks to the node over HTTP. */
  abstract static class ApiCommand implements Callable<Integer> {
    @ParentCommand AlmanacCli root;
    @Spec CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this command's help and exit")
    boolean help;

    ApiClient api() {
      return new ApiClient(root.url, root.token, root.timeout);
    }

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    boolean json() {
      return root.json;
    }

    /** Prints the body as the API gave it (--json), and says whether it did. */
    boolean printedJson(ApiClient.Answer a) {
      if (json()) {
        out().println(a.body());
        out().flush();
        return true;
      }
      return false;
    }

    static String task(String task) {
      return "/api/tasks/" + ApiClient.enc(task);
    }

    static String window(String task, String window) {
      return task(task) + "/windows/" + ApiClient.enc(window);
    }

    static String required(String option, String value) {
      if (value == null || value.isBlank()) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: " + option + " must not be empty");
      }
      return value;
    }
  }

  /** A text field, or null. */
  static String text(JsonNode n, String field) {
    return n == null || !n.hasNonNull(field) ? null : n.get(field).asText();
  }

  /** An ISO time as a table shows it: the T and seconds' fraction gone. */
  static String time(String iso) {
    if (iso == null) {
      return null;
    }
    String t = iso.replace('T', ' ');
    return t.replaceFirst("\\.\\d+", "");
  }

  static void printWindows(PrintWriter out, JsonNode windows) {
    TextTable t = new TextTable(90, "TASK", "WINDOW", "STATUS", "RUN", "ATT", "DUE (UTC)", "UPDATED (UTC)",
        "SUMMARY OR REASON");
    for (JsonNode w : windows) {
      String status = text(w, "status");
      String detail = "SUCCEEDED".equals(status) ? text(w, "summary")
          : text(w, "reason") != null ? text(w, "reason") : text(w, "summary");
      if ("WAITING".equals(status) && text(w, "waitUntil") != null) {
        detail = (detail == null ? "waiting" : detail) + " until " + time(text(w, "waitUntil"));
      }
      t.row(text(w, "task"), text(w, "window"), status, text(w, "runKind"), text(w, "attempt"), time(text(w, "dueAt")),
          time(text(w, "updatedAt")), detail);
    }
    t.print(out);
  }

  // ---------------------------------------------------------------------------------------------

  /** {@code demo}: the demo node (the default command). */
  @Command(name = "demo", description = {"Runs the demo node (the default when no command is given) until Ctrl-C.",
      "Embedded (one node on an H2 file under ./data): [--digest-now]",
      "A cluster member (PostgreSQL journal, almanac-cluster.conf): --cluster --port P --seed host:port[,host:port...]",
      "  --pg-url jdbc:postgresql://... [--pg-user U] [--pg-schema S] [--host H] [--data-dir D] [--digest-now]",
      "Configuration: -Dconfig.file, else ./application.conf, else the jar's; see the README."},
      exitCodeListHeading = "Exit codes:%n",
      exitCodeList = {"0:stopped (coordinated shutdown)", "1:the journal could not be opened, or the node failed to start",
          "2:a configuration error (the key and the value are named)"})
  static final class Demo implements Callable<Integer> {
    // --help is an option of its own, so that it prints this help and starts nothing: every other
    // argument goes to the demo node as it is.
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this command's help and exit")
    boolean help;

    @Unmatched List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
      return DemoNode.run(args.toArray(String[]::new));
    }
  }

  /** {@code audit}: the offline journal reader, its own options and exit codes. */
  @Command(name = "audit", description = {"Reads and verifies the journal offline (needs only its database, not the node).",
      "Options and exit codes: almanac audit --help"})
  static final class Audit implements Callable<Integer> {
    @Unmatched List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
      return AuditCli.run(args.toArray(String[]::new));
    }
  }

  /** {@code rebuild-instances}: the instance table rebuilt from the journal, offline. */
  @Command(name = "rebuild-instances", description = {
      "Rebuilds the SQL instance table (almanac_instance) from the whole journal: empties it and its offset, replays",
      "every task's events, applies retention. Needs only the journal's database: stop the node first on H2 (its file",
      "is open in one JVM only); on PostgreSQL the nodes may run. Exit 0 done, 2 configuration error, 3 database failure."})
  static final class RebuildInstances implements Callable<Integer> {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this command's help and exit")
    boolean help;

    @Option(names = "--config", paramLabel = "FILE",
        description = "the node's configuration (default: -Dconfig.file, else ./application.conf, else the jar's)")
    Path config;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Config loaded;
      try {
        loaded = AuditCli.loadConfig(config);
      } catch (RuntimeException e) {
        err.println("almanac: configuration error: " + e.getMessage());
        return EXIT_BAD_INPUT;
      }
      try {
        out.println("instance table rebuilt: " + InstanceRebuild.run(loaded));
        return EXIT_OK;
      } catch (InvalidSpecException | com.typesafe.config.ConfigException e) {
        err.println("almanac: configuration error: " + e.getMessage());
        return EXIT_BAD_INPUT;
      } catch (RuntimeException e) {
        err.println("almanac: the instance table could not be rebuilt: " + e.getMessage());
        return EXIT_UNREACHABLE;
      }
    }
  }

  /** {@code status}: the node's health. */
  @Command(name = "status", description = "The node's health (GET /health/ready): exit 0 when ready, 1 when not.")
  static final class Status extends ApiCommand {
    @Override
    public Integer call() {
      ApiClient api = api();
      ApiClient.Answer a = api.getAny("/health/ready");
      if (a.status() != 200 && a.status() != 503) {
        throw new CliException(a.status() >= 500 ? EXIT_UNREACHABLE : EXIT_REFUSED,
            "almanac: " + api.base() + "/health/ready answered " + a.status() + ": " + LiveTable.shorten(a.body(), 200));
      }
      JsonNode h = a.json();
      boolean ready = h.path("ready").asBoolean(false);
      if (!printedJson(a)) {
        out().println("node " + api.base() + ": " + (h.path("live").asBoolean(false) ? "live" : "NOT LIVE") + ", "
            + (ready ? "ready" : "NOT READY"));
        TextTable t = new TextTable(120, "CHECK", "OK", "DETAIL");
        for (JsonNode c : h.path("checks")) {
          t.row(text(c, "name"), c.path("ok").asBoolean() ? "ok" : "FAIL", text(c, "detail"));
        }
        t.print(out());
      }
      return ready ? EXIT_OK : EXIT_REFUSED;
    }
  }

  /** {@code tasks}: every registered task. */
  @Command(name = "tasks", description = "The registered tasks, with their next fire in local time and UTC.")
  static final class Tasks extends ApiCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get("/api/tasks");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      TextTable t = new TextTable(60, "TASK", "SCHEDULE", "WINDOW", "STATE", "NEXT FIRE (LOCAL)", "NEXT FIRE (UTC)",
          "QUEUE");
      for (JsonNode k : a.json().path("tasks")) {
        String state = k.path("removed").asBoolean(false) ? "removed" : k.path("paused").asBoolean(false) ? "paused" : "active";
        String local = text(k, "nextFireLocal");
        t.row(text(k, "id"), scheduleText(k), text(k, "window"), state,
            local == null ? "never" : time(local) + " " + text(k, "zone"),
            text(k, "nextFireUtc") == null ? "never" : time(text(k, "nextFireUtc")), text(k, "interventionQueue"));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /**
   * A task's schedule for the {@code tasks} listing: its cron, and for a richer schedule
   * (docs/schedules.md) its other crons ({@code + ...}), bounds ({@code from .. until ..}), calendars
   * ({@code excl ...}) and jitter ({@code jitter 300s}).
   */
  static String scheduleText(JsonNode k) {
    StringBuilder b = new StringBuilder(String.valueOf(text(k, "schedule")));
    for (JsonNode c : k.path("alsoCrons")) {
      b.append(" + ").append(c.asText());
    }
    if (text(k, "from") != null || text(k, "until") != null) {
      b.append(" | ").append(text(k, "from") == null ? "" : "from " + text(k, "from"))
          .append(text(k, "from") != null && text(k, "until") != null ? " " : "")
          .append(text(k, "until") == null ? "" : "until " + text(k, "until"));
    }
    List<String> calendars = new java.util.ArrayList<>();
    k.path("calendars").forEach(c -> calendars.add(c.asText()));
    if (!calendars.isEmpty()) {
      b.append(" | excl ").append(String.join(",", calendars));
    }
    if (k.hasNonNull("jitterMillis")) {
      b.append(" | jitter ").append(java.time.Duration.ofMillis(k.path("jitterMillis").asLong()).toString().substring(2)
          .toLowerCase(java.util.Locale.ROOT));
    }
    return b.toString();
  }

  /** {@code windows}: the instance table, filtered and paged. */
  @Command(name = "windows", description = {"Windows from the instance table (GET /api/windows), oldest first (by start,",
      "task, window), or newest first with --newest-first; the next page with --after (and the same order)."})
  static final class Windows extends ApiCommand {
    @Option(names = "--task", description = "only this task") String task;
    @Option(names = "--status", split = ",", description = "only these statuses (repeat or comma-separate), e.g. FINAL_FAILED,MISSED")
    List<String> status;
    @Option(names = "--from", description = "window start at or after (ISO instant)") String from;
    @Option(names = "--to", description = "window start before (ISO instant)") String to;
    @Option(names = "--limit", description = "1..500 (the node's default: 100)") Integer limit;
    @Option(names = "--after", description = "the cursor printed as 'next' by the previous page") String after;
    @Option(names = "--newest-first", description = "the newest windows first (order=desc); pass it with --after too")
    boolean newestFirst;

    @Override
    public Integer call() {
      StringBuilder q = new StringBuilder();
      param(q, "task", task);
      if (status != null) {
        param(q, "status", String.join(",", status));
      }
      param(q, "from", from);
      param(q, "to", to);
      param(q, "limit", limit == null ? null : limit.toString());
      param(q, "after", after);
      param(q, "order", newestFirst ? "desc" : null);
      ApiClient.Answer a = api().get("/api/windows" + q);
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode body = a.json();
      printWindows(out(), body.path("windows"));
      String next = text(body, "next");
      if (next != null) {
        out().println("more: almanac windows ... " + (newestFirst ? "--newest-first " : "") + "--after " + next);
      }
      out().flush();
      return EXIT_OK;
    }

    private static void param(StringBuilder q, String name, String value) {
      if (value != null) {
        q.append(q.length() == 0 ? '?' : '&').append(name).append('=').append(ApiClient.enc(value));
      }
    }
  }

  /** {@code queue}: the intervention queue. */
  @Command(name = "queue", description = "The intervention queue: FINAL_FAILED windows of every task, waiting for retry or resolve.")
  static final class Queue extends ApiCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get("/api/queue");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode ws = a.json().path("windows");
      if (ws.isEmpty()) {
        out().println("intervention queue: empty");
        out().flush();
      } else {
        printWindows(out(), ws);
      }
      return EXIT_OK;
    }
  }

  /** A command on one window. */
  abstract static class WindowCommand extends ApiCommand {
    @Parameters(index = "0", paramLabel = "TASK", description = "the task id") String task;
    @Parameters(index = "1", paramLabel = "WINDOW", description = "the window's key, e.g. 2026-11-29 or 2026-11-29T00:00:00Z")
    String window;
  }

  /** {@code why}: why a window ran, did not run or ran late. */
  @Command(name = "why", description = "Why a window ran, did not run, or ran late, in words, from the journal.")
  static final class Why extends WindowCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get(window(task, window) + "/why");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode w = a.json();
      out().println(text(w, "task") + " " + text(w, "window") + ": " + text(w, "status"));
      out().println(text(w, "verdict"));
      TextTable t = new TextTable(200, "AT (LOCAL)", "AT (UTC)", "WHAT HAPPENED");
      for (JsonNode s : w.path("steps")) {
        t.row(time(text(s, "atLocal")), time(text(s, "atUtc")), text(s, "text"));
      }
      if (t.size() > 0) {
        t.print(out());
      }
      out().flush();
      return EXIT_OK;
    }
  }

  /** {@code timeline}: a window's events from the journal. */
  @Command(name = "timeline", description = "A window's events from the journal, in order.")
  static final class Timeline extends WindowCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get(window(task, window) + "/timeline");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      TextTable t = new TextTable(120, "SEQ", "EVENT", "ATT", "AT (LOCAL)", "AT (UTC)", "DETAIL");
      for (JsonNode e : a.json().path("events")) {
        t.row(text(e, "seq"), text(e, "event"), text(e, "attempt"), time(text(e, "atLocal")), time(text(e, "atUtc")),
            text(e, "detail"));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /** {@code steps}: a window's durable steps, attempt by attempt. */
  @Command(name = "steps", description = {"A window's durable steps (ctx.step) from the journal, attempt by attempt:",
      "RECORDED (the attempt ran it) or REPLAYED (it got the result an earlier attempt recorded)."})
  static final class Steps extends WindowCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get(window(task, window) + "/steps");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode steps = a.json().path("steps");
      if (steps.isEmpty()) {
        out().println(task + " " + window + ": no steps recorded");
        out().flush();
        return EXIT_OK;
      }
      TextTable t = new TextTable(120, "ATT", "STEP", "KIND", "BY", "TOOK", "TOKENS IN/OUT", "COST", "AT (UTC)");
      for (JsonNode s : steps) {
        JsonNode u = s.path("usage");
        boolean used = u.isObject();
        t.row(text(s, "attempt"), text(s, "name"), text(s, "kind"), text(s, "recordedBy"),
            s.path("durationMs").isNumber() ? s.path("durationMs").asLong() + " ms" : "-",
            used ? u.path("tokensIn").asLong() + "/" + u.path("tokensOut").asLong() : "-",
            used ? text(u, "cost") : "-", time(text(s, "atUtc")));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /** {@code logs}: what a window's attempts logged, their failures' stack traces, and a running attempt's progress. */
  @Command(name = "logs", description = {"What a window's attempts logged (ctx.log()) and their failures' stack traces, "
      + "from the journal;", "while an attempt runs, its progress and latest lines."})
  static final class Logs extends WindowCommand {
    @Option(names = "--attempt", paramLabel = "N", description = "only this attempt's log (an integer >= 1)")
    Integer attempt;

    @Override
    public Integer call() {
      if (attempt != null && attempt < 1) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --attempt '" + attempt + "' is invalid: must be an attempt's "
            + "number, an integer >= 1");
      }
      ApiClient.Answer a = api().get(window(task, window) + "/logs" + (attempt == null ? "" : "?attempt=" + attempt));
      if (printedJson(a)) {
        return EXIT_OK;
      }
      PrintWriter out = out();
      JsonNode progress = null;
      try {
        JsonNode w = api().get(window(task, window)).json();
        progress = w == null ? null : w.get("progress");
      } catch (CliException e) {
        // the journal's logs are what was asked; a window the task no longer holds has no live progress
      }
      if (progress != null && progress.isObject() && (attempt == null || attempt == progress.path("attempt").asInt())) {
        String fraction = progress.hasNonNull("fraction")
            ? Math.round(progress.get("fraction").asDouble() * 100) + "%" : "no progress said";
        out.println("attempt " + text(progress, "attempt") + " running: " + fraction
            + (text(progress, "text") == null ? "" : ", " + text(progress, "text")) + " (at " + utc(text(progress, "at"))
            + " UTC)");
        for (JsonNode l : progress.path("latest")) {
          out.println("  " + line(l));
        }
      }
      JsonNode attempts = a.json().path("attempts");
      if (attempts.isEmpty() && (progress == null || !progress.isObject())) {
        out.println("no log lines or stack traces recorded for " + task + " " + window
            + (attempt == null ? "" : " attempt " + attempt) + " (an attempt that logged nothing and did not throw "
            + "leaves none)");
      }
      for (JsonNode at : attempts) {
        out.println("attempt " + text(at, "attempt") + " (ended " + utc(text(at, "at")) + " UTC):");
        for (JsonNode l : at.path("lines")) {
          out.println("  " + line(l));
        }
        if (text(at, "dropped") != null) {
          out.println("  ... " + text(at, "dropped"));
        }
        if (text(at, "stackTrace") != null) {
          out.println("  stack trace:");
          for (String s : text(at, "stackTrace").split("\n")) {
            out.println("    " + s);
          }
        }
      }
      out.flush();
      return EXIT_OK;
    }

    private static String line(JsonNode l) {
      return utc(text(l, "at")) + " " + text(l, "level") + " " + text(l, "text");
    }

    /** An instant as the table's time, without its Z (the header says UTC). */
    private static String utc(String iso) {
      String t = time(iso);
      return t != null && t.endsWith("Z") ? t.substring(0, t.length() - 1) : t;
    }
  }

  /** A command on one task. */
  abstract static class TaskCommand extends ApiCommand {
    @Parameters(index = "0", paramLabel = "TASK", description = "the task id") String task;
  }

  /** An action on one task that takes an optional note, recorded in the journal with who acted. */
  abstract static class NotedTaskCommand extends TaskCommand {
    @Option(names = "--note", description = "why, kept in the journal with the token's name") String note;
  }

  /** @return {@code {"note": ...}}, or null (no body) without a note */
  static String noteBody(String note) {
    return note == null ? null : ApiClient.JSON.createObjectNode().put("note", note).toString();
  }

  /** {@code pause}. */
  @Command(name = "pause", description = "Pauses a task: it fires no new window until resumed (needs the token).")
  static final class Pause extends NotedTaskCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().post(task(task) + "/pause", noteBody(note));
      if (!printedJson(a)) {
        out().println(task + ": paused");
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code resume}. */
  @Command(name = "resume", description = "Resumes a paused task (needs the token).")
  static final class Resume extends NotedTaskCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().post(task(task) + "/resume", noteBody(note));
      if (!printedJson(a)) {
        out().println(task + ": resumed");
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code run}. */
  @Command(name = "run", description = "Runs the task's current window now, as a MANUAL run (needs the token).")
  static final class Run extends NotedTaskCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().post(task(task) + "/run", noteBody(note));
      if (!printedJson(a)) {
        JsonNode r = a.json();
        out().println(task + " " + text(r, "window") + ": " + text(r, "decision")
            + (text(r, "reason") == null ? "" : " (" + text(r, "reason") + ")"));
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code backfill}. */
  @Command(name = "backfill", description = "Runs the task's past windows in (FROM, TO] again where due (needs the token).")
  static final class Backfill extends NotedTaskCommand {
    @Option(names = "--from", required = true, description = "range start, excluded (ISO instant)") String from;
    @Option(names = "--to", required = true, description = "range end, included (ISO instant)") String to;
    @Option(names = "--dry-run", description = "only say what would run") boolean dryRun;

    @Override
    public Integer call() {
      ObjectNode body = ApiClient.JSON.createObjectNode().put("from", from).put("to", to).put("dryRun", dryRun);
      if (note != null) {
        body.put("note", note);
      }
      ApiClient.Answer a = api().post(task(task) + "/backfill", body.toString());
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode r = a.json();
      out().println(task + " backfill " + (text(r, "range") == null ? "(" + from + ", " + to + "]" : text(r, "range"))
          + (r.path("dryRun").asBoolean(false) ? " (dry run: nothing started)" : ""));
      TextTable t = new TextTable(100, "WINDOW", "DECISION", "REASON");
      for (JsonNode w : r.path("windows")) {
        t.row(text(w, "window"), text(w, "decision"), text(w, "reason"));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /** The --expect option's description, shared by retry, resolve and cancel. */
  static final String EXPECT = "act only if the window is still at this version (its ETag, e.g. 7) or status (e.g. "
      + "FINAL_FAILED); else refused (exit 1), nothing changed";

  /**
   * The If-Match of an action on one window that expects {@code expect}: a version as is; a status
   * checked against the window read now, then its version (so the node refuses the action if the
   * window moves on before it arrives).
   *
   * @return the If-Match value, or null when nothing is expected
   */
  static String ifMatch(ApiCommand c, String task, String window, String expect) {
    if (expect == null) {
      return null;
    }
    String v = expect.trim();
    if (!v.isEmpty() && v.length() <= 18 && v.chars().allMatch(Character::isDigit)) {
      return "\"" + Long.parseLong(v) + "\"";
    }
    io.almanac.InstanceStatus status;
    try {
      status = io.almanac.InstanceStatus.valueOf(v.toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CliException(EXIT_BAD_INPUT, "almanac: --expect '" + expect + "' is invalid: a window's version (e.g. 7) "
          + "or status (e.g. FINAL_FAILED)");
    }
    JsonNode w = c.api().get(ApiCommand.window(task, window)).json();
    if (!status.name().equals(text(w, "status"))) {
      throw new CliException(EXIT_REFUSED, "almanac: refused: window " + window + " of " + task + " is " + text(w, "status")
          + " (version " + w.path("version").asLong() + "), not " + status + " (--expect): nothing was changed");
    }
    return "\"" + w.path("version").asLong() + "\"";
  }

  /** An action on one window that answers its new status. */
  abstract static class WindowAction extends WindowCommand {
    @Option(names = "--expect", paramLabel = "VERSION|STATUS", description = EXPECT) String expect;

    int post(String action, String body) {
      ApiClient.Answer a = api().post(window(task, window) + "/" + action, body, ifMatch(this, task, window, expect));
      if (!printedJson(a)) {
        JsonNode r = a.json();
        out().println(task + " " + window + ": " + action + " accepted, now " + text(r, "status"));
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code retry}. */
  @Command(name = "retry", description = "Starts a new attempt of a FINAL_FAILED window (needs the token).")
  static final class Retry extends WindowAction {
    @Option(names = "--note", description = "why, kept in the journal with the token's name") String note;

    @Override
    public Integer call() {
      return post("retry", noteBody(note));
    }
  }

  /** {@code resolve}. */
  @Command(name = "resolve", description = "Marks a FINAL_FAILED window resolved by hand, with a note (needs the token).")
  static final class Resolve extends WindowAction {
    @Option(names = "--note", required = true, description = "what was done, kept in the journal") String note;

    @Override
    public Integer call() {
      return post("resolve", ApiClient.JSON.createObjectNode().put("note", required("--note", note)).toString());
    }
  }

  /** {@code cancel}: one window, or (no WINDOW) every window of the task not started yet in a range and of a kind. */
  @Command(name = "cancel", description = {
      "Cancels a pending, running or retry-waiting window, with a reason (needs the token).",
      "Without WINDOW: cancels, in one journal write, every window of TASK that has not started (PENDING,",
      "RETRY_WAIT, WAITING) due in (FROM, TO] whose next attempt is of the --kind; running ones go on."})
  static final class Cancel extends TaskCommand {
    @Parameters(index = "1", arity = "0..1", paramLabel = "WINDOW",
        description = "the window's key; leave it out for a bulk cancel") String window;
    @Option(names = "--reason", description = "why, kept in the journal (needed unless --dry-run)") String reason;
    @Option(names = "--from", description = "bulk: range start by due time, excluded (ISO instant)") String from;
    @Option(names = "--to", description = "bulk: range end by due time, included (ISO instant)") String to;
    @Option(names = "--kind", description = "bulk: the run kind of the next attempt: backfill, retry, manual or first")
    String kind;
    @Option(names = "--dry-run", description = "bulk: only list what would be cancelled") boolean dryRun;
    @Option(names = "--expect", paramLabel = "VERSION|STATUS", description = "one window: " + EXPECT) String expect;

    @Override
    public Integer call() {
      if (window == null && expect != null) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --expect is for one window's cancel: name WINDOW");
      }
      if (window != null) {
        if (from != null || to != null || kind != null || dryRun) {
          throw new CliException(EXIT_BAD_INPUT, "almanac: --from, --to, --kind and --dry-run are for a bulk cancel: "
              + "leave out WINDOW (" + window + ")");
        }
        String body = ApiClient.JSON.createObjectNode().put("reason", required("--reason", reason)).toString();
        ApiClient.Answer a = api().post(window(task, window) + "/cancel", body, ifMatch(this, task, window, expect));
        if (!printedJson(a)) {
          out().println(task + " " + window + ": cancel accepted, now " + text(a.json(), "status"));
          out().flush();
        }
        return EXIT_OK;
      }
      ObjectNode body = ApiClient.JSON.createObjectNode();
      if (from != null) {
        body.put("from", from);
      }
      if (to != null) {
        body.put("to", to);
      }
      if (kind != null) {
        body.put("kind", kind);
      }
      String why = dryRun ? reason : required("--reason", reason);
      if (why != null) {
        body.put("reason", why); // a dry run may have none: left out, never null (the API refuses a JSON null)
      }
      body.put("dryRun", dryRun);
      ApiClient.Answer a = api().post(task(task) + "/cancel", body.toString());
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode r = a.json();
      out().println(task + " cancel " + text(r, "range") + (text(r, "kind") == null ? "" : " " + text(r, "kind"))
          + ": " + r.path("cancelled").asInt() + (r.path("dryRun").asBoolean(false)
              ? " windows would be cancelled (dry run: nothing changed)" : " windows cancelled"));
      TextTable t = new TextTable(100, "WINDOW");
      for (JsonNode w : r.path("windows")) {
        t.row(w.asText());
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /** {@code raise-budget}: raises a task's budget for today (docs/budgets.md). */
  @Command(name = "raise-budget", description = "Raises a task's budget for today, in its zone, by an amount, with a note "
      + "(needs the token); prints the day's cost and its new limit.")
  static final class RaiseBudget extends TaskCommand {
    @Option(names = "--amount", required = true, paramLabel = "AMOUNT", description = "how much to raise today's limit by, "
        + "e.g. 2.50") String amount;
    @Option(names = "--note", description = "why, kept in the journal") String note;

    @Override
    public Integer call() {
      ObjectNode body = ApiClient.JSON.createObjectNode().put("amount", required("--amount", amount));
      if (note != null) {
        body.put("note", note);
      }
      ApiClient.Answer a = api().post(task(task) + "/raise-budget", body.toString());
      if (!printedJson(a)) {
        JsonNode r = a.json();
        out().println(task + " budget for " + text(r, "day") + " (" + text(r, "zone") + "): limit " + text(r, "limit")
            + ", cost so far " + text(r, "cost"));
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code pools}: the resource pools, with their holds and today's cost and budget (docs/pools.md). */
  @Command(name = "pools", description = "The resource pools: limits, holds across the cluster, and today's cost against "
      + "the budget (each pool's day in its zone).")
  static final class Pools extends ApiCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get("/api/pools");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      TextTable t = new TextTable(60, "POOL", "IN USE", "MAX", "RATE", "DAY", "COST", "LIMIT", "EXHAUSTED");
      for (JsonNode p : a.json().path("pools")) {
        t.row(text(p, "pool"), text(p, "inUse") == null ? "?" : text(p, "inUse"), text(p, "maxConcurrent"),
            text(p, "rate") == null ? "-" : text(p, "rate"), text(p, "day") + " " + text(p, "zone"), text(p, "cost"),
            text(p, "limit") == null ? "-" : text(p, "limit"), String.valueOf(p.path("exhausted").asBoolean(false)));
      }
      t.print(out());
      return EXIT_OK;
    }
  }

  /** {@code raise-pool-budget}: raises a resource pool's budget for today (docs/budgets.md). */
  @Command(name = "raise-pool-budget", description = "Raises a resource pool's budget for today, in its zone, by an "
      + "amount, with a note (needs the token); prints the day's cost and its new limit.")
  static final class RaisePoolBudget extends ApiCommand {
    @Parameters(index = "0", paramLabel = "POOL", description = "the pool") String pool;
    @Option(names = "--amount", required = true, paramLabel = "AMOUNT", description = "how much to raise today's limit by, "
        + "e.g. 2.50") String amount;
    @Option(names = "--note", description = "why, logged by the node") String note;

    @Override
    public Integer call() {
      ObjectNode body = ApiClient.JSON.createObjectNode().put("amount", required("--amount", amount));
      if (note != null) {
        body.put("note", note);
      }
      ApiClient.Answer a = api().post("/api/pools/" + ApiClient.enc(pool) + "/raise-budget", body.toString());
      if (!printedJson(a)) {
        JsonNode r = a.json();
        out().println("pool " + pool + " budget for " + text(r, "day") + " (" + text(r, "zone") + "): limit "
            + text(r, "limit") + ", cost so far " + text(r, "cost"));
        out().flush();
      }
      return EXIT_OK;
    }
  }

  /** {@code publish}: an event for the tasks that listen to its type. */
  @Command(name = "publish", description = {
      "Publishes an event to the tasks whose event trigger listens to its type (POST /api/events, needs the token)",
      "and prints what each task did: SCHEDULED, COALESCED, DUPLICATE, SKIPPED, MISSED or ARCHIVED. A second delivery of an id",
      "is a DUPLICATE and makes no second instance. A type no task listens to exits 1; bad input exits 2; a task whose",
      "queue of publishes is full exits 5 (nothing stored: try again after the Retry-After printed); a task that did not",
      "answer exits 3 (the outcome is unknown: publishing the same id again is safe)."})
  static final class Publish extends ApiCommand {
    @Option(names = "--type", required = true, paramLabel = "TYPE", description = "the event type, e.g. order.paid")
    String type;
    @Option(names = "--id", required = true, paramLabel = "ID", description = "the event's id (duplicates are recognised by it)")
    String id;
    @Option(names = "--time", paramLabel = "ISO", description = "when the event happened, an ISO instant, e.g. "
        + "2026-11-29T02:15:00Z (needed by tasks that map events by event time)")
    String time;
    @Option(names = "--summary", paramLabel = "TEXT", description = "a short description kept in the journal")
    String summary;

    @Override
    public Integer call() {
      ObjectNode body = ApiClient.JSON.createObjectNode().put("type", required("--type", type)).put("id", required("--id", id));
      if (time != null) {
        body.put("eventTime", time);
      }
      if (summary != null) {
        body.put("summary", summary);
      }
      ApiClient.Answer a = api().post("/api/events", body.toString());
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode r = a.json();
      out().println("event " + text(r, "type") + " " + text(r, "id") + ": " + r.path("tasks").size()
          + (r.path("tasks").size() == 1 ? " task" : " tasks"));
      TextTable t = new TextTable(100, "TASK", "WINDOW", "OUTCOME", "DETAIL");
      for (JsonNode o : r.path("tasks")) {
        t.row(text(o, "task"), text(o, "window"), text(o, "outcome"), text(o, "detail"));
      }
      t.print(out());
      return EXIT_OK;
    }
  }
}
