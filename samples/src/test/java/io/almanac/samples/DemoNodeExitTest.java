package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * R33: the demo node (the main job) started with a bad configuration value prints a clear error on
 * stderr and exits with {@link DemoNode#EXIT_CONFIG} instead of hanging. Each case runs DemoNode's
 * main in a child JVM on this test's class path, with a deadline.
 */
class DemoNodeExitTest {
  private static final long DEADLINE_SECONDS = 90;

  @TempDir Path dir;

  private record Exit(int code, String stderr, String stdout) {}

  /** The repository's application.conf (packed on the class path) with state under the temp dir. */
  private Path config(String extra) throws IOException {
    String at = dir.toString().replace("\\", "/");
    Path conf = dir.resolve("demo.conf");
    Files.writeString(conf, "include classpath(\"application.conf\")\n"
        + "almanac.persistence.h2.path = \"" + at + "/data/almanac\"\n"
        + "almanac-demo.data-dir = \"" + at + "/data\"\n"
        + extra + "\n");
    return conf;
  }

  private Exit runDemo(List<String> jvmArgs) throws Exception {
    return runDemo(jvmArgs, List.of());
  }

  private Exit runDemo(List<String> jvmArgs, List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.add("-Dlogback.configurationFile=logback.xml"); // the demo's own console log, not the test's capture
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(DemoNode.class.getName());
    cmd.addAll(args);
    Path out = dir.resolve("demo.out");
    Path err = dir.resolve("demo.err");
    Process p = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      if (!p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
        fail("the demo node did not exit within " + DEADLINE_SECONDS + " s; stderr:\n"
            + Files.readString(err, StandardCharsets.UTF_8) + "\nstdout:\n" + Files.readString(out, StandardCharsets.UTF_8));
      }
      Exit exit = new Exit(p.exitValue(), Files.readString(err, StandardCharsets.UTF_8),
          Files.readString(out, StandardCharsets.UTF_8));
      System.out.println("demo node exited " + exit.code() + "\n--- stdout:\n" + exit.stdout() + "--- stderr:\n" + exit.stderr());
      return exit;
    } finally {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest(name = "R33: almanac.tasks.daily-digest.{0} = {1} makes the demo print the full key and the value on stderr and exit 2")
  @CsvSource({"lease.factor, abc", "retry.max-retries, 2.5"})
  void badTaskValueExits(String key, String value) throws Exception {
    Path conf = config("almanac.tasks.daily-digest." + key + " = " + value);
    Exit exit = runDemo(List.of("-Dconfig.file=" + conf));
    assertEquals(DemoNode.EXIT_CONFIG, exit.code(), exit.stderr() + exit.stdout());
    assertTrue(exit.stderr().contains("almanac.tasks.daily-digest." + key + " '" + value + "' is invalid"), exit.stderr());
  }

  @Test
  @DisplayName("R33: a configuration file that does not exist makes the demo exit 2 naming it")
  void missingFileExits() throws Exception {
    Path missing = dir.resolve("nowhere.conf");
    Exit exit = runDemo(List.of("-Dconfig.file=" + missing));
    assertEquals(DemoNode.EXIT_CONFIG, exit.code(), exit.stderr() + exit.stdout());
    assertTrue(exit.stderr().contains(missing.toString()), exit.stderr());
  }

  @Test
  @DisplayName("R33: a cluster node whose lease timing cannot work exits 2 before it starts, naming the keys and values")
  void leaseTimingThatCannotWorkExits() throws Exception {
    Exit exit = runDemo(List.of("-Dalmanac.lease.jdbc.heartbeat-interval=3s", "-Dalmanac.lease.jdbc.safety-margin=5s"),
        List.of("--cluster", "--port", "25520", "--seed", "127.0.0.1:25520", "--pg-url", "jdbc:postgresql://127.0.0.1:1/almanac",
            "--data-dir", dir.resolve("node").toString()));
    assertEquals(DemoNode.EXIT_CONFIG, exit.code(), exit.stderr() + exit.stdout());
    assertTrue(exit.stderr().contains("almanac.lease.jdbc (the lease of pekko.cluster.singleton.use-lease): "), exit.stderr());
    assertTrue(exit.stderr().contains("heartbeat-interval (PT3S) + safety-margin (PT5S) must be less than heartbeat-timeout (PT8S)"),
        exit.stderr());
    assertTrue(exit.stderr().contains("almanac.lease.jdbc.heartbeat-interval = 3s"), exit.stderr());
  }

  @Test
  @DisplayName("R33: with --cluster a failover setting in the configuration file is applied, not laid over by "
      + "almanac-cluster.conf: an invalid one there makes the demo exit 2, naming the key and the value")
  void invalidFailoverSettingInTheFileExits() throws Exception {
    Path conf = config("almanac.lease.jdbc.safety-margin = 7s");
    Exit exit = runDemo(List.of("-Dconfig.file=" + conf),
        List.of("--cluster", "--port", "25521", "--seed", "127.0.0.1:25521", "--pg-url", "jdbc:postgresql://127.0.0.1:1/almanac",
            "--data-dir", dir.resolve("node").toString()));
    assertEquals(DemoNode.EXIT_CONFIG, exit.code(), exit.stderr() + exit.stdout());
    assertTrue(exit.stderr().contains("heartbeat-interval (PT2S) + safety-margin (PT7S) must be less than heartbeat-timeout (PT8S)"),
        exit.stderr());
    assertTrue(exit.stderr().contains("almanac.lease.jdbc.safety-margin = 7s"), exit.stderr());
  }
}
