package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.persistence.audit.Audit;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * R28/R33: the audit command's exit codes (0 ok, 1 violation, 2 usage or configuration error, 3
 * unreadable journal, 4 nothing checked) and its configuration: only the database is needed.
 */
class AuditCliTest {
  @TempDir Path dir;
  private final PrintStream stdout = System.out;
  private final PrintStream stderr = System.err;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void redirect() throws Exception {
    Path conf = dir.resolve("audit.conf");
    Files.writeString(conf, "include classpath(\"application.conf\")\n"
        + "almanac.persistence.h2.path = \"" + dir.resolve("almanac").toString().replace("\\", "/") + "\"\n");
    System.setProperty("config.file", conf.toString());
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @AfterEach
  void restore() {
    System.setOut(stdout);
    System.setErr(stderr);
    System.clearProperty("config.file");
  }

  @Test
  @DisplayName("R33: an unknown format is bad input (exit 2) and the message names the field and the value")
  void unknownFormat() {
    assertEquals(Audit.BAD_INPUT, AuditCli.run("--format", "xml"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("format 'xml' is invalid"), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("R33: an unknown option is bad input (exit 2) with the usage")
  void unknownOption() {
    assertEquals(Audit.BAD_INPUT, AuditCli.run("--colour", "blue"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--colour"), err.toString(StandardCharsets.UTF_8));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("Usage: audit"), err.toString(StandardCharsets.UTF_8));
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  /** An H2 file with Almanac's tables and no events, as a node leaves it before its first task. */
  private Path emptyJournal() throws Exception {
    Path db = dir.resolve("journal");
    String script;
    try (InputStream in = getClass().getResourceAsStream("/io/almanac/persistence/schema/h2-create-schema.sql")) {
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection c = DriverManager.getConnection("jdbc:h2:" + db + ";DATABASE_TO_UPPER=false", "sa", "");
        Statement st = c.createStatement()) {
      for (String statement : script.replaceAll("(?m)^--.*$", "").split(";")) {
        if (!statement.isBlank()) {
          st.execute(statement);
        }
      }
    }
    return db;
  }

  private Path conf(String name, String text) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    return file;
  }

  private static String h2Path(Path db) {
    return "almanac.persistence.h2.path = \"" + db.toString().replace("\\", "/") + "\"\n";
  }

  @Test
  @DisplayName("R28: the audit runs on a configuration that names only the H2 file, without the demo's settings")
  void r28RunsOnAConfigNamingOnlyTheH2File() throws Exception {
    Path minimal = conf("only-h2.conf", h2Path(emptyJournal()));
    System.setProperty("config.file", minimal.toString());
    assertEquals(Audit.OK, AuditCli.run(), err());
    assertTrue(err().contains("audit: read 0 events of 0 tasks"), err());
  }

  @Test
  @DisplayName("R28: --config names the configuration; verifying a journal with nothing to judge exits 4, not OK")
  void r28ConfigOptionAndNothingChecked() throws Exception {
    Path minimal = conf("only-h2.conf", h2Path(emptyJournal()));
    assertEquals(Audit.NOTHING_CHECKED, AuditCli.run("--config", minimal.toString(), "--verify"), err());
    assertTrue(out().contains("NOTHING CHECKED: no events in the journal"), out());
    assertTrue(!out().contains("OK:"), out());
  }

  @Test
  @DisplayName("R28: a configuration error exits 2 (usage or configuration), never 1 (an invariant violated)")
  void r28ConfigurationErrorsExitTwo() throws Exception {
    System.setProperty("config.file", dir.resolve("missing.conf").toString());
    assertEquals(Audit.BAD_INPUT, AuditCli.run("--verify"), err());
    assertTrue(err().contains("audit: configuration error: configuration file "), err());
    assertTrue(err().contains("missing.conf does not exist"), err());

    System.setProperty("config.file", conf("broken.conf", "almanac { persistence {\n").toString());
    assertEquals(Audit.BAD_INPUT, AuditCli.run("--verify"), err());

    System.setProperty("config.file", conf("no-db.conf", "almanac-demo.data-dir = \"./data\"\n").toString());
    assertEquals(Audit.BAD_INPUT, AuditCli.run("--verify"), err());
    assertTrue(err().contains("names no journal database"), err());

    assertEquals(Audit.BAD_INPUT, AuditCli.run("--config", dir.resolve("absent.conf").toString()), err());
  }

  @Test
  @DisplayName("R28: --help documents every exit code")
  void r28HelpListsTheExitCodes() {
    assertEquals(0, AuditCli.run("--help"));
    String help = out();
    assertTrue(help.contains("Exit codes:"), help);
    for (String code : new String[] {"0   ok", "1   an invariant is violated", "2   usage or configuration error",
        "3   the journal could not be read", "4   --verify judged nothing"}) {
      assertTrue(help.contains(code), code + " in " + help);
    }
  }

  @Test
  @DisplayName("R28: a database without Almanac's tables is reported as unreadable (exit 3), not as a clean audit")
  void noJournal() {
    int code = AuditCli.run("--verify");
    assertEquals(Audit.UNREADABLE, code, err.toString(StandardCharsets.UTF_8));
  }
}
