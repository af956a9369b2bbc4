package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.TaskSpec;
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

/** {@code almanac raise-budget TASK --amount A --note N} against a node over HTTP. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RaiseBudgetCliTest {

  @TempDir static Path dir;
  private ApiTestNode node;

  @BeforeAll
  void start() throws Exception {
    node = ApiTestNode.start("raise-budget-cli-test", dir);
    ApiTestNode.await(node.almanac.register(TaskSpec.builder("llm").cron("0 0 8 * * ? Europe/Berlin").job("ok")
        .budgetPerDay(new BigDecimal("5.00")).build()));
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
  @DisplayName("raise-budget with the token prints the day's new limit (exit 0); a bad amount, a task without a budget or "
      + "no token is refused (non-zero exit, naming the field)")
  void raiseBudget() throws Exception {
    String[] ok = run("--token", ApiTestNode.TOKEN, "raise-budget", "llm", "--amount", "2.50", "--note", "quarter end");
    assertEquals("0", ok[0], String.join("\n", ok));
    assertTrue(ok[1].startsWith("llm budget for ") && ok[1].contains("(Europe/Berlin): limit 7.50"), ok[1]);
    assertEquals(new BigDecimal("7.50"), ApiTestNode.await(node.almanac.usage("llm")).limit());

    String[] bad = run("--token", ApiTestNode.TOKEN, "raise-budget", "llm", "--amount", "abc");
    assertNotEquals("0", bad[0]);
    assertTrue((bad[1] + bad[2]).contains("amount") && (bad[1] + bad[2]).contains("abc"), String.join("\n", bad));
    String[] none = run("--token", ApiTestNode.TOKEN, "raise-budget", ApiTestNode.DIGEST, "--amount", "1");
    assertNotEquals("0", none[0]);
    assertTrue((none[1] + none[2]).contains("budgetPerDay"), String.join("\n", none));
    assertNotEquals("0", run("raise-budget", "llm", "--amount", "1")[0], "no token");
    assertEquals(new BigDecimal("7.50"), ApiTestNode.await(node.almanac.usage("llm")).limit(), "nothing else stored");
  }
}
