package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.h2.tools.Shell;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's SQL on the instance table, run as the README writes it: its H2 shell command (the
 * JDBC URL and user, taken from README.md, so the text cannot drift from what works) and its query,
 * against the H2 file a real node wrote ({@link ApiTestNode}), after the node stopped.
 */
class ReadmeSqlTest {

  static final Path README = Path.of("..", "README.md");

  /** The demo's H2 path as the README's URL names it; the test's file stands in for it. */
  static final String DEMO_PATH = "./data/almanac";

  @TempDir Path dir;

  /** The README's section on the instance table. */
  static String section() throws Exception {
    String readme = Files.readString(README);
    int start = readme.indexOf("### The instance table (SQL)");
    assertTrue(start >= 0, "README.md has a section '### The instance table (SQL)'");
    int end = readme.indexOf("\n## ", start);
    return readme.substring(start, end < 0 ? readme.length() : end);
  }

  /** The fenced code blocks of a text whose opening line starts with the fence and the given info. */
  static List<String> blocks(String text, String info) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^```" + Pattern.quote(info) + "\\s*\\n(.*?)^```", Pattern.DOTALL).matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String run(String... args) throws SQLException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Shell shell = new Shell();
    shell.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    shell.runTool(args);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName("the README's H2 shell command and query, on the file a node wrote: the FINAL_FAILED window is listed")
  void readmeQueryRuns() throws Exception {
    String section = section();
    String command = blocks(section, "").stream().filter(b -> b.contains("org.h2.tools.Shell")).findFirst()
        .orElseThrow(() -> new AssertionError("the README's instance-table section gives the H2 shell command"));
    command = command.replace("\\\n", " ");
    Matcher url = Pattern.compile("-url \"([^\"]+)\"").matcher(command);
    Matcher user = Pattern.compile("-user (\\S+)").matcher(command);
    assertTrue(url.find() && user.find(), command);
    assertTrue(url.group(1).startsWith("jdbc:h2:" + DEMO_PATH + ";"), "the demo's file: " + url.group(1));
    List<String> sql = blocks(section, "sql");
    assertEquals(1, sql.size(), section);
    String query = sql.get(0).trim();

    try (ApiTestNode node = ApiTestNode.start("readme-sql", Files.createDirectories(dir.resolve("node")))) {
      node.tableCaughtUp();
    }
    String file = dir.resolve("node").resolve("almanac").toAbsolutePath().toString();
    String jdbc = url.group(1).replace(DEMO_PATH, file);
    String out = run("-url", jdbc, "-user", user.group(1), "-sql", query);
    String row = out.lines().filter(l -> l.contains(ApiTestNode.BROKEN)).findFirst()
        .orElseThrow(() -> new AssertionError("the broken task's window is listed:\n" + out));
    assertTrue(row.contains(ApiTestNode.DAY) && row.contains("FINAL_FAILED") && row.contains("upstream schema changed"),
        out);
    assertTrue(out.contains("(1 row"), out);

    // why the README gives the URL's options: H2's default upper-cases unquoted names
    String plain = url.group(1).replace(DEMO_PATH, file).replace(";DATABASE_TO_UPPER=false", "");
    String refused;
    try {
      refused = run("-url", plain, "-user", user.group(1), "-sql", query);
    } catch (SQLException e) {
      refused = e.getMessage();
    }
    assertTrue(refused.contains("Table \"ALMANAC_INSTANCE\" not found"), refused);
  }
}
