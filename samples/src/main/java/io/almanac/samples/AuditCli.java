package io.almanac.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import io.almanac.persistence.audit.Audit;
import io.almanac.persistence.audit.AuditRequest;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code audit}: the history of a task or a window rebuilt from the journal alone, and the
 * invariants checked (R28). Needs only the journal's database: by default it reads the journal the
 * demo node writes (the same configuration), and {@code --config FILE} names any configuration that
 * names the database, e.g. a file holding just {@code almanac.persistence.h2.path = "/srv/almanac/db"},
 * or just the {@code almanac.persistence.postgres { url, user, password }} settings, or a node's
 * whole configuration (see {@link Audit#journalConfig}). Run it while the node is stopped on H2 (one
 * JVM at a time opens the H2 file); PostgreSQL can be audited while nodes run.
 *
 * <pre>
 * java -jar samples/target/almanac-demo.jar audit --task daily-digest --from 2026-11-01 --to 2026-11-29 --verify
 * java -jar samples/target/almanac-demo.jar audit --config audit.conf --verify --grace PT0S
 * </pre>
 *
 * <p>Exit codes (also in {@code --help}; the table is {@link Audit}'s):
 *
 * <ul>
 *   <li>0 ok: done; with {@code --verify}, no violation and at least one due window judged (due by
 *       the schedule, or reached by an event);
 *   <li>1 an invariant is violated (each violation printed with task, window and events);
 *   <li>2 usage or configuration error: bad option or value, unknown task or window, a configuration
 *       file that is missing, does not parse, or names no journal database;
 *   <li>3 the journal could not be read: database unreachable or locked, tables missing, an event
 *       that does not deserialize; or the audit failed unexpectedly (message on stderr);
 *   <li>4 {@code --verify} judged nothing: no violation, but no due window was old enough to judge
 *       (the journal is shorter than the grace) or in the range, and no event reached a window in
 *       it; the report says what to do.
 * </ul>
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = {
      "Rebuilds the timeline of a task or a window from the journal and verifies the invariants:",
      "I1 no window succeeds twice; I2 every window due in the range is run, skipped or missed, with its reason;",
      "I3 no attempt stays RUNNING past its lease; I4 no two attempts overlap unless the overlap policy allows it;",
      "I5 one writer per task at a time; I6 no window stays PENDING past its lease ceiling, or WAITING past its wait",
      "deadline, without a recorded reason (judged as of the journal's end less the grace).",
      "The report says how many windows and events each invariant checked."
    },
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
      "0:ok; with --verify: no violation, and at least one due window judged (or a window an event reached)",
      "1:an invariant is violated",
      "2:usage or configuration error (bad option or value, unknown task or window, configuration missing,"
          + " unparsable or naming no journal database)",
      "3:the journal could not be read (database unreachable or locked, tables missing, bad event),"
          + " or the audit failed unexpectedly",
      "4:--verify judged nothing: no violation, but no due window older than the grace (or in the range),"
          + " and no window an event reached"
    })
public final class AuditCli implements Callable<Integer> {

  @Option(names = "--config", paramLabel = "FILE",
      description = {"a configuration naming the journal's database: only almanac.persistence.h2.path, only the"
          + " almanac.persistence.postgres settings, or a node's whole configuration (default: -Dconfig.file, else"
          + " ./application.conf, else the demo's application.conf packed in the jar)"})
  Path config;

  @Option(names = "--task", description = "the task id (default: every task)")
  String task;

  @Option(names = "--window", description = "one window's key, e.g. 2026-11-29 (needs --task)")
  String window;

  @Option(names = "--from", description = "start of the range: a date (UTC start of day) or an ISO instant")
  String from;

  @Option(names = "--to", description = "end of the range: a date (UTC start of day) or an ISO instant")
  String to;

  @Option(names = "--verify", description = "check the invariants I1-I8: exit 1 on a violation, 4 if no due window was judged")
  boolean verify;

  @Option(names = "--format", defaultValue = "table", description = "table, json (one object per line) or csv (default: ${DEFAULT-VALUE})")
  String format;

  @Option(names = "--no-timeline", description = "print only the verification report")
  boolean noTimeline;

  @Option(names = "--grace", defaultValue = "PT2M",
      description = {"windows due, and leases and I6 bounds ending, this close to the journal's end are not judged yet: the trigger"
          + " fires within about a second, so the default ${DEFAULT-VALUE} covers its lag many times over."
          + " A journal shorter than the grace has nothing to judge (exit 4); PT0S judges everything, right for a"
          + " journal whose node was stopped cleanly (ISO-8601 duration)"})
  Duration grace;

  private AuditCli() {}

  @Override
  public Integer call() {
    Config parsed;
    try {
      parsed = loadConfig(config);
    } catch (ConfigException | IllegalArgumentException e) {
      System.err.println("audit: configuration error: " + e.getMessage());
      return Audit.BAD_INPUT;
    }
    AuditRequest request = AuditRequest.builder()
        .task(task)
        .window(window)
        .from(from)
        .to(to)
        .verify(verify)
        .format(format)
        .timeline(!noTimeline)
        .grace(grace)
        .build();
    return Audit.run(parsed, request, System.out, System.err);
  }

  /**
   * The configuration as parsed, not yet merged with reference.conf (so {@link Audit#journalConfig}
   * can tell which database it names), with {@code -D} system properties over it: {@code file} if
   * given; else {@code -Dconfig.file}, {@code -Dconfig.resource} or {@code -Dconfig.url}; else
   * {@code ./application.conf}; else the application.conf packed in the jar. Only the journal's
   * settings are used: no demo settings are required.
   *
   * @param file the {@code --config} file, or null
   * @return the configuration
   * @throws IllegalArgumentException if a named file does not exist
   * @throws ConfigException if it does not parse
   */
  static Config loadConfig(Path file) {
    Config parsed;
    String named = System.getProperty("config.file");
    if (file != null) {
      parsed = parseFile(file.toFile());
    } else if (named != null) {
      parsed = parseFile(new File(named));
    } else if (System.getProperty("config.resource") != null) {
      parsed = ConfigFactory.parseResourcesAnySyntax(System.getProperty("config.resource"),
          ConfigParseOptions.defaults().setAllowMissing(false));
    } else if (System.getProperty("config.url") != null) {
      try {
        parsed = ConfigFactory.parseURL(new URL(System.getProperty("config.url")), ConfigParseOptions.defaults().setAllowMissing(false));
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException("config.url '" + System.getProperty("config.url") + "' is invalid: " + e.getMessage(), e);
      }
    } else if (new File("application.conf").isFile()) {
      parsed = parseFile(new File("application.conf"));
    } else {
      parsed = ConfigFactory.parseResourcesAnySyntax("application");
    }
    return ConfigFactory.defaultOverrides().withFallback(parsed);
  }

  /** By its absolute path, so that its includes resolve against its folder (see DemoNode). */
  private static Config parseFile(File file) {
    File absolute = file.getAbsoluteFile();
    if (!absolute.isFile()) {
      throw new IllegalArgumentException("configuration file " + absolute + " does not exist");
    }
    return ConfigFactory.parseFile(absolute, ConfigParseOptions.defaults().setAllowMissing(false));
  }

  /**
   * Runs the command line.
   *
   * @param args the arguments after {@code audit}
   * @return the exit code, see the class doc
   */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new AuditCli());
    cli.setParameterExceptionHandler((ex, a) -> {
      cli.getErr().println(ex.getMessage());
      cli.usage(cli.getErr());
      return Audit.BAD_INPUT;
    });
    // picocli's default for an exception in call() is 1, the code of a violation: never that.
    cli.setExecutionExceptionHandler((ex, c, parsed) -> {
      if (ex instanceof ConfigException) {
        c.getErr().println("audit: configuration error: " + ex.getMessage());
        return Audit.BAD_INPUT;
      }
      c.getErr().println("audit: failed: " + ex);
      ex.printStackTrace(c.getErr());
      return Audit.UNREADABLE;
    });
    return cli.execute(args);
  }
}
