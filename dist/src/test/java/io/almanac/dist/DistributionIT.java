package io.almanac.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball as a user gets it: unpacked into a temporary folder, its layout checked, then a node
 * started with {@code bin/almanac-node} from the unpacked tree (its H2 file in a temporary folder,
 * a free HTTP port) and asked for its tasks by {@code bin/almanac} run through a chain of symlinks
 * from another working directory. Runs at integration-test (failsafe), after package built the
 * tarball; one node for the class, stopped at the end.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DistributionIT {

  /** How long the node may take to become ready (it takes 10-15 s on 2 busy cores). */
  private static final Duration READY_DEADLINE = Duration.ofSeconds(60);

  private static final String VERSION = System.getProperty("almanac.dist.version");
  private static final Path TARBALL = Path.of(System.getProperty("almanac.dist.tarball"));

  @TempDir static Path tmp;

  private Path home;
  private final List<String> entries = new ArrayList<>();

  @BeforeAll
  void unpack() throws Exception {
    assertTrue(Files.isRegularFile(TARBALL), "mvn package built " + TARBALL);
    Path install = Files.createDirectories(tmp.resolve("install"));
    // the system's tar, as a user would: it keeps the scripts' modes
    run(List.of("tar", "-xzf", TARBALL.toString(), "-C", install.toString()), tmp, Map.of(), Duration.ofSeconds(60))
        .assertExit(0);
    entries.addAll(run(List.of("tar", "-tzf", TARBALL.toString()), tmp, Map.of(), Duration.ofSeconds(60)).assertExit(0)
        .stdout().lines().toList());
    home = install.resolve("almanac-" + VERSION);
  }

  @Test
  void theTarballHoldsOneFolderWithTheScriptsConfigurationJarsAndDocs() throws Exception {
    String top = "almanac-" + VERSION + "/";
    for (String entry : entries) {
      assertTrue(entry.startsWith(top), "every entry is under " + top + ": " + entry);
    }
    try (Stream<Path> s = Files.list(home)) {
      assertEquals(Set.of("bin", "conf", "docs", "lib", "README.md"),
          s.map(p -> p.getFileName().toString()).collect(Collectors.toSet()));
    }
    for (String script : List.of("almanac", "almanac-node")) {
      Path file = home.resolve("bin").resolve(script);
      Set<PosixFilePermission> modes = Files.getPosixFilePermissions(file);
      assertTrue(modes.containsAll(Set.of(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_EXECUTE)), script + " is executable by everyone: " + modes);
      String text = Files.readString(file);
      assertTrue(text.startsWith("#!/bin/sh\n"), script + " is a POSIX sh script");
      assertFalse(text.contains("\r"), script + " has Unix line ends");
      run(List.of("sh", "-n", file.toString()), tmp, Map.of(), Duration.ofSeconds(10)).assertExit(0);
    }
    // bin/almanac tells the node (demo, or the demo's own options first) from a quick HTTP command by
    // the CLI's list of the demo's options
    String cli = Files.readString(Path.of("..", "samples", "src", "main", "java", "io", "almanac", "samples", "AlmanacCli.java"));
    Matcher demoOptions = Pattern.compile("DEMO_OPTIONS = Set\\.of\\(([^)]*)\\)").matcher(cli);
    assertTrue(demoOptions.find(), "AlmanacCli.DEMO_OPTIONS");
    String script = Files.readString(home.resolve("bin/almanac"));
    for (String option : demoOptions.group(1).replaceAll("[\"\\s]", "").split(",")) {
      assertTrue(Pattern.compile("(\\| |^\\s+)" + Pattern.quote(option) + " ?[|)]", Pattern.MULTILINE).matcher(script).find(),
          "bin/almanac runs " + option + " (the demo node) with the JVM's defaults");
    }
    for (String file : List.of("conf/application.conf", "conf/logback.xml", "docs/configuration.md",
        "docs/deployment.md", "docs/cli.md")) {
      assertTrue(Files.isRegularFile(home.resolve(file)), file);
    }
    assertTrue(Files.readString(home.resolve("conf/application.conf")).contains("docs/configuration.md"),
        "the configuration points to the reference of every key");

    Set<String> jars;
    try (Stream<Path> s = Files.list(home.resolve("lib"))) {
      jars = s.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }
    assertTrue(jars.stream().allMatch(j -> j.endsWith(".jar")), "lib holds jars only: " + jars);
    for (String module : List.of("runtime", "persistence", "http", "samples")) {
      assertTrue(jars.contains("almanac-" + module + "-" + VERSION + ".jar"), "lib has almanac-" + module + ": " + jars);
    }
    for (String dependency : List.of("pekko-actor_2.13-", "h2-", "postgresql-", "logback-classic-", "picocli-")) {
      assertTrue(jars.stream().anyMatch(j -> j.startsWith(dependency)), "lib has " + dependency + "*: " + jars);
    }
    // one jar per artifact, none of the shaded demo jar nor of the tests' dependencies
    Set<String> artifacts = new TreeSet<>();
    for (String jar : jars) {
      Matcher m = Pattern.compile("(.+?)-\\d.*\\.jar").matcher(jar);
      assertTrue(m.matches(), "lib's jars are named <artifact>-<version>.jar: " + jar);
      String artifact = m.group(1) + (jar.endsWith("-native.jar") ? " (native)" : "");
      assertTrue(artifacts.add(artifact), "one version of " + artifact + ": " + jars);
    }
    for (String absent : List.of("almanac-demo", "almanac-testkit", "junit", "selenium", "archunit", "snakeyaml")) {
      assertTrue(jars.stream().noneMatch(j -> j.startsWith(absent)), "lib has no " + absent + " jar: " + jars);
    }
  }

  @Test
  void theContainerImageIsBuiltFromThisTarball() throws IOException {
    String dockerfile = Files.readString(Path.of("..", "Dockerfile"));
    Matcher version = Pattern.compile("ARG ALMANAC_VERSION=(\\S+)").matcher(dockerfile);
    assertTrue(version.find(), "the Dockerfile names the distribution's version");
    assertEquals(VERSION, version.group(1), "the Dockerfile's ALMANAC_VERSION is the build's");
    assertTrue(dockerfile.contains("dist/target/almanac-${ALMANAC_VERSION}.tar.gz"), "the image unpacks the tarball");
    Matcher entrypoint = Pattern.compile("ENTRYPOINT \\[\"/opt/almanac/(bin/[^\"]+)\"\\]").matcher(dockerfile);
    assertTrue(entrypoint.find(), "the image's entrypoint is a script of the distribution");
    assertTrue(Files.isExecutable(home.resolve(entrypoint.group(1))), entrypoint.group(1));
    assertTrue(dockerfile.contains("PATH=\"/opt/almanac/bin:"), "bin is on the image's PATH");
    assertTrue(Files.readString(Path.of("..", ".dockerignore")).contains("!dist/target/almanac-*.tar.gz"),
        ".dockerignore lets the tarball into the build context");
  }

  @Test
  void aNodeStartedFromTheTreeListsItsTasksToTheCommandLineRunFromElsewhere() throws Exception {
    int port = freePort();
    Path data = Files.createDirectories(tmp.resolve("state"));
    Path nodeDir = Files.createDirectories(tmp.resolve("node-cwd"));
    Path log = tmp.resolve("node.log");
    ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/almanac-node").toString())
        .directory(nodeDir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
    environment(pb.environment(), Map.of("ALMANAC_DATA", data.toString(),
        // a short drain, so that the SIGTERM at the end does not wait 25 s for the demo's slow jobs; the
        // JIT's first tier and the serial GC: the node starts in 10 s rather than 27 s on 2 busy cores
        "JAVA_OPTS", "-Dalmanac.http.port=" + port + " -Dalmanac.executor.shutdown-grace=1s -Xmx512m"
            + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"));
    Process node = pb.start();
    try {
      String base = "http://127.0.0.1:" + port;
      awaitReady(node, base + "/health/ready", log);
      assertTrue(Files.isRegularFile(data.resolve("almanac.mv.db")), "the journal is the H2 file under ALMANAC_DATA");
      assertFalse(Files.exists(nodeDir.resolve("data")), "nothing is written to the node's working directory");

      // what the node has registered by now (registration only adds): the CLI must list all of it
      Set<String> registered = new TreeSet<>();
      Matcher id = Pattern.compile("\"id\"\\s*:\\s*\"([^\"]+)\"").matcher(get(base + "/api/tasks").body());
      while (id.find()) {
        registered.add(id.group(1));
      }
      assertTrue(registered.contains("daily-digest"), "the node runs the configured tasks: " + registered);

      // bin/almanac through a relative symlink to an absolute one, from a folder of its own
      Path links = Files.createDirectories(tmp.resolve("links"));
      Path absolute = Files.createSymbolicLink(links.resolve("almanac-abs"), home.resolve("bin/almanac"));
      Path relative = Files.createSymbolicLink(links.resolve("almanac"), Path.of("almanac-abs"));
      Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
      Result tasks = run(List.of(relative.toString(), "--url", base, "tasks"), elsewhere, Map.of(), Duration.ofSeconds(60));
      tasks.assertExit(0);
      Set<String> listed = tasks.stdout().lines().skip(1).map(l -> l.split("\\s+")[0]).collect(Collectors.toSet());
      assertTrue(tasks.stdout().lines().findFirst().orElse("").startsWith("TASK"), tasks.stdout());
      assertTrue(listed.containsAll(registered), "the CLI lists " + registered + ":\n" + tasks.stdout());
      assertTrue(absolute.toFile().exists());
    } finally {
      stop(node);
    }
  }

  // --- helpers ---------------------------------------------------------------------------------------

  /** The test's environment for a script: no ALMANAC_* of the machine's, JAVA_HOME the test's own Java. */
  private static void environment(Map<String, String> env, Map<String, String> extra) {
    env.keySet().removeIf(k -> k.startsWith("ALMANAC_") || k.equals("JAVA_OPTS"));
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.putAll(extra);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Polls the readiness probe until it answers 200, the node exits, or the deadline passes. */
  private static void awaitReady(Process node, String url, Path log) throws Exception {
    Instant deadline = Instant.now().plus(READY_DEADLINE);
    String last = "no answer";
    while (Instant.now().isBefore(deadline)) {
      if (!node.isAlive()) {
        fail("the node exited with " + node.exitValue() + " before it was ready:\n" + tail(log));
      }
      try {
        HttpResponse<String> r = get(url);
        if (r.statusCode() == 200) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (IOException notListeningYet) {
        last = notListeningYet.toString();
      }
      // polling interval of the probe, not a wait for an outcome
      node.waitFor(200, TimeUnit.MILLISECONDS);
    }
    fail("the node was not ready within " + READY_DEADLINE + " (" + last + "):\n" + tail(log));
  }

  /** SIGTERM (a coordinated shutdown), then SIGKILL if it lingers; its children too. */
  private static void stop(Process node) throws InterruptedException {
    List<ProcessHandle> children = node.descendants().toList();
    node.destroy();
    if (!node.waitFor(30, TimeUnit.SECONDS)) {
      node.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    children.forEach(ProcessHandle::destroyForcibly);
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  record Result(List<String> command, int exit, String stdout, String stderr) {
    Result assertExit(int expected) {
      assertEquals(expected, exit, String.join(" ", command) + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr);
      return this;
    }
  }

  private static Result run(List<String> command, Path dir, Map<String, String> extra, Duration timeout) throws Exception {
    Path out = Files.createTempFile("almanac-dist-", ".out");
    Path err = Files.createTempFile("almanac-dist-", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
          .redirectOutput(out.toFile()).redirectError(err.toFile());
      environment(pb.environment(), extra);
      Process p = pb.start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        fail(String.join(" ", command) + " did not end within " + timeout);
      }
      return new Result(command, p.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
