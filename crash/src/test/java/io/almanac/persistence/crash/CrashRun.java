package io.almanac.persistence.crash;

import com.typesafe.config.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One crash or fault run: a folder under {@code target/crash/} holding the child nodes' logs
 * ({@code node-<n>.log}, their logback output) and stdout ({@code node-<n>.out}), the effects file,
 * the run's own log ({@code run.log}: what was killed when) and, for H2, the database; the
 * options CrashNode gets; and the journal configuration the audit reads it with.
 */
final class CrashRun {

  /** Time allowed for a child node to print READY (JVM start, cluster join, schema, recovery). */
  static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  final String key;
  final Path dir;
  final Path effects;
  final Map<String, String> options;
  private final Path runLog;
  private int nodes;

  private CrashRun(String key, Path dir, Map<String, String> dbOptions) {
    this.key = key;
    this.dir = dir;
    this.effects = dir.resolve("effects.txt");
    this.runLog = dir.resolve("run.log");
    Map<String, String> o = new LinkedHashMap<>(dbOptions);
    o.put("effects", effects.toString());
    String hocon = System.getProperty("almanac.crash.node-hocon");
    if (hocon != null && !hocon.isBlank()) {
      o.put("hocon", hocon); // an experiment's extra node configuration, e.g. circuit breaker settings
    }
    this.options = Map.copyOf(o);
  }

  /**
   * A new run folder {@code target/crash/<key>-<time>}.
   *
   * @param key e.g. {@code kill9-h2}
   * @param dbOptions CrashNode's database options, given the folder
   * @return the run
   */
  static CrashRun create(String key, java.util.function.Function<Path, Map<String, String>> dbOptions) {
    Path dir = Path.of("target", "crash", key + "-" + STAMP.format(Instant.now())).toAbsolutePath();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new CrashRun(key, dir, dbOptions.apply(dir));
  }

  /** The journal configuration, as the node has it (for the audit). */
  Config journal() {
    return CrashNode.journalConfig(options);
  }

  /** CrashNode's arguments. */
  List<String> args() {
    List<String> a = new ArrayList<>();
    options.forEach((k, v) -> {
      a.add("--" + k);
      a.add(v);
    });
    return a;
  }

  /**
   * Starts a node (a child JVM running {@link CrashNode}) and waits for READY.
   *
   * @return the running node
   */
  ChildJvm startNode() {
    return startNode(Map.of());
  }

  /**
   * Starts a node with further CrashNode options (e.g. {@code cluster-port} and {@code seeds}).
   *
   * @param extra options added to the run's
   * @return the running node
   */
  ChildJvm startNode(Map<String, String> extra) {
    int n = ++nodes;
    Path log = dir.resolve("node-" + n + ".log");
    List<String> args = args();
    extra.forEach((k, v) -> {
      args.add("--" + k);
      args.add(v);
    });
    ChildJvm node = ChildJvm.start("node-" + n, dir, CrashNode.class,
        List.of("-Dlogback.configurationFile=" + ChildJvm.resource("crash-node-logback.xml"), "-Dcrash.log=" + log), args);
    log("node " + n + " started, pid " + node.pid() + ", at " + node.startedAt() + (extra.isEmpty() ? "" : ", " + extra));
    return node;
  }

  /**
   * Waits for the node's READY line.
   *
   * @return when it came
   */
  Instant awaitReady(ChildJvm node) {
    try {
      node.awaitFirst(l -> l.startsWith("READY"), READY_TIMEOUT);
    } catch (IllegalStateException e) {
      Path log = dir.resolve(node.output().getFileName().toString().replace(".out", ".log"));
      // what a red CI run shows should say why: the node's cluster and registration lines come first
      throw new IllegalStateException(e.getMessage() + "\nthe node's log, cluster, singleton and registration lines (last 30 of "
          + log + "):\n" + matching(log, KEY_LINES, 30) + "\nits output (last 15 lines):\n" + tail(node.output(), 15), e);
    }
    Instant ready = Instant.now();
    log("node pid " + node.pid() + " READY after " + CrashReport.secs(Duration.between(node.startedAt(), ready)));
    return ready;
  }

  /**
   * Checks the journal; after a failure also writes the whole timeline to {@code timeline.txt}.
   *
   * @param grace see {@link JournalCheck#run}
   * @param registeredBy when the first node was READY
   * @return the check
   */
  JournalCheck check(Duration grace, Instant registeredBy) {
    JournalCheck check = JournalCheck.run(journal(), grace, effects, registeredBy);
    log("journal checked:\n" + check.describe());
    if (!check.ok() || keep()) {
      Path timeline = dir.resolve("timeline.txt");
      JournalCheck.writeTimeline(journal(), timeline);
      log("the whole journal as a timeline: " + timeline);
    }
    return check;
  }

  /** The log file of the node started n-th (1-based). */
  Path nodeLog(int n) {
    return dir.resolve("node-" + n + ".log");
  }

  /** Appends a line to run.log and prints it. */
  void log(String line) {
    String l = Instant.now() + " " + line;
    System.out.println("[" + key + "] " + l);
    try {
      Files.writeString(runLog, l + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Log lines that tell why a node is not ready: membership, downing, the singleton, unanswered asks, errors. */
  static final java.util.regex.Pattern KEY_LINES = java.util.regex.Pattern.compile(
      "no answer yet|Welcome from|InitJoin|Marking|unreachable|Leader is|SBR|[Dd]own|singleton '|trigger started|Shutting down"
          + "|ERROR|WARN|could not start|ready");

  /** The last {@code lines} lines of the file that match, one per line; the whole file is read. */
  static String matching(Path file, java.util.regex.Pattern pattern, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8).stream()
          .filter(l -> pattern.matcher(l).find()).map(l -> l.length() > 300 ? l.substring(0, 300) + "..." : l).toList();
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(" + file + " unreadable: " + e + ")";
    }
  }

  /** The last lines of a file. */
  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(" + file + " unreadable: " + e + ")";
    }
  }

  /**
   * Counts the lines of every node log of this run that contain the text.
   *
   * @param text e.g. {@code Failed to persist}
   * @return the count
   */
  long countInLogs(String text) {
    long n = 0;
    for (int i = 1; i <= nodes; i++) {
      Path log = dir.resolve("node-" + i + ".log");
      if (Files.exists(log)) {
        try (var lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
          n += lines.filter(l -> l.contains(text)).count();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return n;
  }

  /** Whether -Dalmanac.crash.keep=true asks to keep the journal of a passing run too. */
  static boolean keep() {
    return Boolean.getBoolean("almanac.crash.keep");
  }

  /** Deletes the H2 database files of a successful run (the logs stay), unless {@link #keep()}. */
  void deleteDatabaseFiles() {
    if (keep()) {
      return;
    }
    try (var files = Files.list(dir)) {
      for (Path p : files.filter(p -> p.getFileName().toString().endsWith(".mv.db")
          || p.getFileName().toString().endsWith(".trace.db")).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
