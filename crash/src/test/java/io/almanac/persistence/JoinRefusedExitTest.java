package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.Almanac;
import io.almanac.testkit.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node refused at join, in a JVM of its own with almanac-cluster.conf as shipped (exit-jvm on):
 * it does not hang, its JVM exits with status 2 (the reason override in almanac-cluster.conf), and
 * its log says why, with its own schema. Judged on exit codes and log lines with deadlines, not on
 * timing: it runs beside the single-node crash tests (crash/pom.xml).
 */
@Execution(ExecutionMode.CONCURRENT)
class JoinRefusedExitTest {

  private static final long DEADLINE_SECONDS = 90;

  @TempDir Path dir;

  /** The refused node: args port, seed port, schema. Starts Almanac and waits; only its exit ends it. */
  public static final class Node {
    public static void main(String[] args) throws Exception {
      int port = Integer.parseInt(args[0]);
      ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "almanac", ClusterBadInputTest.node(port,
          Integer.parseInt(args[1]), args[2], "pekko.coordinated-shutdown.exit-jvm = on"));
      Almanac.start(system);
      system.getWhenTerminated().toCompletableFuture().get();
      Thread.sleep(Long.MAX_VALUE); // exit-jvm exits the JVM once the system has terminated
    }
  }

  @Test
  void aRefusedNodeExitsWithStatus2SayingWhy() throws Exception {
    int pa = ClusterBadInputTest.freePort();
    ActorTestKit a = ActorTestKit.create("almanac", ClusterBadInputTest.node(pa, pa, "almanac_join_a", ""));
    try {
      Eventually.eventually(Duration.ofSeconds(30),
          () -> assertTrue(Cluster.get(a.system()).selfMember().status() == MemberStatus.up()));
      Path log = dir.resolve("node.log");
      List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
          "-Dlogback.configurationFile=" + Path.of("src/test/resources/crash-node-logback.xml").toAbsolutePath(),
          "-Dcrash.log=" + log, "-cp", System.getProperty("java.class.path"), Node.class.getName(),
          String.valueOf(ClusterBadInputTest.freePort()), String.valueOf(pa), "almanac_join_b");
      Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(dir.resolve("node.out").toFile()).start();
      try {
        if (!p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
          fail("the refused node did not exit within " + DEADLINE_SECONDS + " s; its log:\n" + read(log));
        }
        String text = read(log);
        assertEquals(2, p.exitValue(), "exit status; log:\n" + text + read(dir.resolve("node.out")));
        assertTrue(text.contains("Couldn't join seed nodes because of incompatible cluster configuration"), text);
        assertTrue(text.contains("was refused by the cluster it asked to join"), text);
        assertTrue(text.contains("almanac_join_b"), "names its own schema: " + text);
      } finally {
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
      }
    } finally {
      ActorTestKit.shutdown(a.system(), Duration.ofSeconds(30), false);
    }
  }

  private static String read(Path file) throws java.io.IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(no " + file.getFileName() + ")";
  }
}
