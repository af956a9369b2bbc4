package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigUtil;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code almanac rebuild-instances}: the instance table rebuilt offline from a real H2 journal. */
class RebuildInstancesCliTest {

  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  private static Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = AlmanacCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  private Path config(String extra) throws Exception {
    Path file = dir.resolve("node.conf");
    Files.writeString(file, String.join("\n",
        "include \"almanac-h2.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("node").resolve("almanac").toString()),
        extra));
    return file;
  }

  @Test
  @DisplayName("after the node stopped, rebuild-instances replays its journal into almanac_instance: one row per window (exit 0)")
  void rebuildsFromTheJournal() throws Exception {
    try (ApiTestNode node = ApiTestNode.start("rebuild-cli", Files.createDirectories(dir.resolve("node")))) {
      // digest and broken: one window each; minutely: 00:00 succeeded, 00:01 skipped (and 00:01 is the latest due)
      node.eventuallyStatus(ApiTestNode.BROKEN, ApiTestNode.DAY, io.almanac.InstanceStatus.FINAL_FAILED);
    }
    Run run = cli("rebuild-instances", "--config", config("").toString());
    assertEquals(0, run.code(), run.err() + run.out());
    Matcher rows = Pattern.compile("(\\d+) row\\(s\\)").matcher(run.out());
    assertTrue(rows.find(), run.out());
    assertEquals(4, Integer.parseInt(rows.group(1)), "digest, broken and two minutely windows: " + run.out());
  }

  @Test
  @DisplayName("a wrong almanac.instances setting is a configuration error naming the key and the value (exit 2)")
  void wrongSetting() throws Exception {
    Run run = cli("rebuild-instances", "--config", config("almanac.instances.batch-size = 0").toString());
    assertEquals(2, run.code(), run.err() + run.out());
    assertTrue(run.err().contains("almanac.instances.batch-size") && run.err().contains("0"), run.err());
  }
}
