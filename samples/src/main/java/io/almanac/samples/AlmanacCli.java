package io.almanac.samples;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.format.DateTimeParseException;
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
      LocalCommands.Demo.class, ReadCommands.Status.class, ReadCommands.Tasks.class, ReadCommands.Windows.class,
      ReadCommands.Queue.class, JournalCommands.Why.class, JournalCommands.Timeline.class, JournalCommands.Steps.class,
      JournalCommands.Logs.class, TaskActionCommands.Pause.class,
      TaskActionCommands.Resume.class, TaskActionCommands.Run.class, TaskActionCommands.Backfill.class,
      WindowActionCommands.Retry.class, WindowActionCommands.Resolve.class, WindowActionCommands.Cancel.class,
      EventCommands.Publish.class, LocalCommands.Audit.class, LocalCommands.RebuildInstances.class,
      BudgetCommands.RaiseBudget.class, BudgetCommands.Pools.class, BudgetCommands.RaisePoolBudget.class,
      OperatorPageCommands.Nodes.class, OperatorPageCommands.Alerts.class,
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

  /** @return {@code {"note": ...}}, or null (no body) without a note */
  static String noteBody(String note) {
    return note == null ? null : ApiClient.JSON.createObjectNode().put("note", note).toString();
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

  /** A command on one window. */
  abstract static class WindowCommand extends ApiCommand {
    @Parameters(index = "0", paramLabel = "TASK", description = "the task id") String task;
    @Parameters(index = "1", paramLabel = "WINDOW", description = "the window's key, e.g. 2026-11-29 or 2026-11-29T00:00:00Z")
    String window;
  }

  /** A command on one task. */
  abstract static class TaskCommand extends ApiCommand {
    @Parameters(index = "0", paramLabel = "TASK", description = "the task id") String task;
  }
}
