package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every command's {@code --help} prints its help, exits 0 and starts nothing: the commands are taken
 * from the picocli command tree, so a command added later is covered without touching this test.
 */
class CliHelpTest {

  /** Help is printed at once; a command that runs instead (the demo node blocks until stopped) misses this. */
  private static final long DEADLINE_SECONDS = 60;

  @TempDir Path dir;

  /** Every command of the tree, by its full name ("almanac", "almanac demo", ...), depth first. */
  static Map<String, CommandLine> commands() {
    Map<String, CommandLine> all = new LinkedHashMap<>();
    collect(AlmanacCli.commandLine(), all);
    return all;
  }

  private static void collect(CommandLine c, Map<String, CommandLine> all) {
    all.putIfAbsent(c.getCommandSpec().qualifiedName(" "), c);
    // aliases map to the same CommandLine: each command once
    for (CommandLine sub : new java.util.LinkedHashSet<>(c.getSubcommands().values())) {
      collect(sub, all);
    }
  }

  private record Run(int code, String out, String err) {}

  /** Runs {@code almanac <path...> --help} in this JVM, with its stdout (some commands print there) captured. */
  private static Run help(List<String> path) throws Exception {
    List<String> args = new ArrayList<>(path);
    args.add("--help");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    ByteArrayOutputStream systemOut = new ByteArrayOutputStream();
    PrintStream original = System.out;
    ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "help-runner");
      t.setDaemon(true);
      return t;
    });
    System.setOut(new PrintStream(systemOut, true, StandardCharsets.UTF_8));
    try {
      Future<Integer> code = runner.submit(() -> AlmanacCli.execute(args.toArray(String[]::new),
          new PrintWriter(out, true), new PrintWriter(err, true)));
      try {
        return new Run(code.get(DEADLINE_SECONDS, TimeUnit.SECONDS), out + systemOut.toString(StandardCharsets.UTF_8),
            err.toString());
      } catch (TimeoutException e) {
        fail("almanac " + String.join(" ", args) + " did not return within " + DEADLINE_SECONDS
            + " s: it ran the command instead of printing its help; out:\n" + out + systemOut + "\nerr:\n" + err);
        throw e;
      }
    } finally {
      System.setOut(original);
      runner.shutdownNow();
    }
  }

  /** Threads of the demo's ActorSystem (named after it), which a demo node started here would create. */
  private static Set<String> demoSystemThreads() {
    return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
        .filter(n -> n.startsWith(ClusterArgs.SYSTEM_NAME + "-pekko")).collect(Collectors.toSet());
  }

  @Test
  @DisplayName("every command of the tree (and the root) prints its usage on --help, exits 0, and starts no node")
  void everyCommandsHelp() throws Exception {
    Map<String, CommandLine> all = commands();
    // the tree is the source of the list; this only guards against an empty or a flattened tree
    assertTrue(all.keySet().containsAll(List.of("almanac", "almanac demo", "almanac audit", "almanac status",
        "almanac rebuild-instances", "almanac help")), all.keySet().toString());
    assertTrue(all.size() >= 21, all.keySet().toString());
    Set<String> before = demoSystemThreads();
    for (Map.Entry<String, CommandLine> e : all.entrySet()) {
      List<String> path = new ArrayList<>(List.of(e.getKey().split(" ")));
      path.remove(0); // "almanac" itself
      Run r = help(path);
      String name = e.getKey();
      assertEquals(0, r.code(), name + " --help: exit " + r.code() + "\nout:\n" + r.out() + "\nerr:\n" + r.err());
      // audit is its own command line (AuditCli), named audit in its usage
      String usage = "Usage: " + (name.equals("almanac audit") ? "audit" : name);
      // (help's own usage comes after its one-line description)
      assertTrue(("\n" + r.out()).contains("\n" + usage + " "), name + " --help prints its usage:\n" + r.out() + "\nerr:\n" + r.err());
      assertTrue(r.err().isEmpty(), name + " --help prints nothing on stderr:\n" + r.err());
      Set<String> started = demoSystemThreads();
      started.removeAll(before);
      assertTrue(started.isEmpty(), name + " --help started an ActorSystem: " + started);
    }
  }

  @Test
  @DisplayName("java -jar almanac-demo.jar demo --help, and --help after the demo's own options, print the demo's help "
      + "and exit 0 at once, creating no ./data")
  void demoHelpInItsOwnJvm() throws Exception {
    for (List<String> args : List.of(List.of("demo", "--help"),
        List.of("--cluster", "--port", "25529", "--seed", "127.0.0.1:25529", "--pg-url", "jdbc:postgresql://127.0.0.1:1/x",
            "--help"))) {
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx128m", "-cp", System.getProperty("java.class.path"), AlmanacCli.class.getName()));
      cmd.addAll(args);
      Path out = dir.resolve("help.out");
      Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile())
          .start();
      try {
        if (!p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
          fail(args + " did not exit within " + DEADLINE_SECONDS + " s (a node started?):\n" + Files.readString(out));
        }
        String printed = Files.readString(out);
        assertEquals(0, p.exitValue(), args + ":\n" + printed);
        assertTrue(printed.startsWith("Usage: almanac demo"), args + ":\n" + printed);
        assertTrue(printed.contains("--cluster") && printed.contains("Exit codes:"), args + ":\n" + printed);
        assertFalse(Files.exists(dir.resolve("data")), args + " created ./data:\n" + printed);
      } finally {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
