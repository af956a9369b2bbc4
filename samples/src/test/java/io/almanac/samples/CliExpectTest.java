package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import io.almanac.WindowView;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --expect} on the window actions (R31): retry, resolve and cancel act only on the window's
 * version or status they name; a stale one is refused (exit 1) and changes nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CliExpectTest {

  @TempDir static Path dir;
  private ApiTestNode node;

  @BeforeAll
  void start() throws Exception {
    node = ApiTestNode.start("cli-expect-test", dir);
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  private int run(StringBuilder log, String... args) {
    List<String> all = new ArrayList<>(List.of("--url", node.base, "--token", ApiTestNode.TOKEN));
    all.addAll(List.of(args));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = AlmanacCli.execute(all.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
    log.setLength(0);
    log.append("exit ").append(code).append("\n").append(out).append(err);
    return code;
  }

  @Test
  @DisplayName("R31: retry/resolve/cancel --expect: a stale version or another status is refused, exit 1, nothing "
      + "changed; the current version or status acts; a malformed value is exit 2 naming --expect")
  void expect() {
    StringBuilder log = new StringBuilder();
    WindowView w = node.window(ApiTestNode.BROKEN, ApiTestNode.DAY);
    assertEquals(InstanceStatus.FINAL_FAILED, w.status());
    String stale = Long.toString(w.version() - 1);
    assertEquals(AlmanacCli.EXIT_REFUSED, run(log, "retry", ApiTestNode.BROKEN, ApiTestNode.DAY, "--expect", stale),
        log.toString());
    assertTrue(log.toString().contains("412") && log.toString().contains("is at version " + w.version()), log.toString());
    assertEquals(AlmanacCli.EXIT_REFUSED, run(log, "cancel", ApiTestNode.BROKEN, ApiTestNode.DAY, "--reason", "r",
        "--expect", stale), log.toString());
    assertEquals(AlmanacCli.EXIT_REFUSED, run(log, "resolve", ApiTestNode.BROKEN, ApiTestNode.DAY, "--note", "n",
        "--expect", "cancelled"), log.toString());
    assertTrue(log.toString().contains("is FINAL_FAILED (version " + w.version() + "), not CANCELLED"), log.toString());
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, run(log, "retry", ApiTestNode.BROKEN, ApiTestNode.DAY, "--expect", "soon"),
        log.toString());
    assertTrue(log.toString().contains("--expect 'soon'"), log.toString());
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, run(log, "cancel", ApiTestNode.BROKEN, "--reason", "r", "--expect", "3"),
        log.toString());
    assertEquals(w, node.window(ApiTestNode.BROKEN, ApiTestNode.DAY), "nothing changed");

    assertEquals(0, run(log, "resolve", ApiTestNode.BROKEN, ApiTestNode.DAY, "--note", "fixed by hand", "--expect",
        "FINAL_FAILED"), log.toString());
    WindowView resolved = node.window(ApiTestNode.BROKEN, ApiTestNode.DAY);
    assertEquals(InstanceStatus.RESOLVED, resolved.status());
    assertEquals(w.version() + 1, resolved.version());
  }
}
