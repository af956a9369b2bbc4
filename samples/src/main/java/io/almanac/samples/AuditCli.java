package io.almanac.samples;

import com.typesafe.config.Config;
import io.almanac.persistence.audit.Audit;
import io.almanac.persistence.audit.AuditRequest;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code audit}: the history of a task or a window rebuilt from the journal alone, and the
 * invariants checked (R28). Reads the journal the demo node writes (the same configuration), so run
 * it while the node is stopped (one JVM at a time opens the H2 file).
 *
 * <pre>
 * java -jar samples/target/almanac-demo.jar audit --task daily-digest --from 2026-11-01 --to 2026-11-29 --verify
 * </pre>
 *
 * Exit codes: 0 the invariants hold (or no --verify), 1 a violation (each printed with task, window
 * and events), 2 bad input (e.g. an unknown task), 3 the journal cannot be read.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description = {
      "Rebuilds the timeline of a task or a window from the journal and verifies the invariants:",
      "I1 no window succeeds twice; I2 every window due in the range is run, skipped or missed, with its reason;",
      "I3 no attempt stays RUNNING past its lease; I4 no two attempts overlap unless the overlap policy allows it.",
      "Exit codes: 0 ok, 1 violation, 2 bad input, 3 journal unreadable."
    })
public final class AuditCli implements Callable<Integer> {

  @Option(names = "--task", description = "the task id (default: every task)")
  String task;

  @Option(names = "--window", description = "one window's key, e.g. 2026-11-29 (needs --task)")
  String window;

  @Option(names = "--from", description = "start of the range: a date (UTC start of day) or an ISO instant")
  String from;

  @Option(names = "--to", description = "end of the range: a date (UTC start of day) or an ISO instant")
  String to;

  @Option(names = "--verify", description = "check the invariants I1-I4 and exit 1 on a violation")
  boolean verify;

  @Option(names = "--format", defaultValue = "table", description = "table, json (one object per line) or csv (default: ${DEFAULT-VALUE})")
  String format;

  @Option(names = "--no-timeline", description = "print only the verification report")
  boolean noTimeline;

  @Option(names = "--grace", defaultValue = "PT2M",
      description = "windows due this close to the journal's end are not yet expected (ISO-8601, default: ${DEFAULT-VALUE})")
  Duration grace;

  private AuditCli() {}

  @Override
  public Integer call() {
    Config config = DemoNode.loadConfig().config();
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
    return Audit.run(config, request, System.out, System.err);
  }

  /**
   * Runs the command line.
   *
   * @param args the arguments after {@code audit}
   * @return the exit code
   */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new AuditCli());
    cli.setParameterExceptionHandler((ex, a) -> {
      cli.getErr().println(ex.getMessage());
      cli.usage(cli.getErr());
      return Audit.BAD_INPUT;
    });
    return cli.execute(args);
  }
}
