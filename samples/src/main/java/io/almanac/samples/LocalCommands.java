package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_BAD_INPUT;
import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.EXIT_UNREACHABLE;

import com.typesafe.config.Config;
import io.almanac.InvalidSpecException;
import io.almanac.persistence.instances.InstanceRebuild;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * The commands that run in this JVM, with no node to talk to: {@code demo} (the default), {@code
 * audit} and {@code rebuild-instances}.
 * Part of {@link AlmanacCli}; package-private.
 */
final class LocalCommands {

  private LocalCommands() {}

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
}
