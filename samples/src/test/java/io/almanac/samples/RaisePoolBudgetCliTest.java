package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** {@code almanac pools} and {@code almanac raise-pool-budget POOL --amount A --note N} against a node over HTTP. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RaisePoolBudgetCliTest {

  @TempDir static Path dir;
  private ApiTestNode node;

  @BeforeAll
  void start() throws Exception {
    node = ApiTestNode.start("raise-pool-budget-cli-test", dir);
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  private String[] run(String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--url";
    all[1] = node.base;
    System.arraycopy(args, 0, all, 2, args.length);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = AlmanacCli.execute(all, new PrintWriter(out, true), new PrintWriter(err, true));
    return new String[] {String.valueOf(code), out.toString(), err.toString()};
  }

  @Test
  @DisplayName("raise-pool-budget with the token prints the day's new limit (exit 0) and pools shows it; a bad amount, an "
      + "unknown pool or no token is refused (non-zero exit, naming the field)")
  void raisePoolBudget() throws Exception {
    String[] ok = run("--token", ApiTestNode.TOKEN, "raise-pool-budget", ApiTestNode.POOL, "--amount", "2.50", "--note",
        "quarter end");
    assertEquals("0", ok[0], String.join("\n", ok));
    assertTrue(ok[1].startsWith("pool llm-pool budget for ") && ok[1].contains("(UTC): limit 7.50, cost so far 0.00"), ok[1]);
    assertEquals(new BigDecimal("7.50"), ApiTestNode.await(node.almanac.pools()).get(0).limit());

    String[] list = run("pools");
    assertEquals("0", list[0], String.join("\n", list));
    assertTrue(list[1].contains("POOL") && list[1].contains("llm-pool") && list[1].contains("7.50"), list[1]);

    String[] bad = run("--token", ApiTestNode.TOKEN, "raise-pool-budget", ApiTestNode.POOL, "--amount", "abc");
    assertNotEquals("0", bad[0]);
    assertTrue((bad[1] + bad[2]).contains("amount") && (bad[1] + bad[2]).contains("abc"), String.join("\n", bad));
    String[] unknown = run("--token", ApiTestNode.TOKEN, "raise-pool-budget", "nope", "--amount", "1");
    assertEquals("1", unknown[0], String.join("\n", unknown));
    assertTrue((unknown[1] + unknown[2]).contains("nope"), String.join("\n", unknown));
    assertNotEquals("0", run("raise-pool-budget", ApiTestNode.POOL, "--amount", "1")[0], "no token");
    assertEquals(new BigDecimal("7.50"), ApiTestNode.await(node.almanac.pools()).get(0).limit(), "nothing else stored");
  }
}
