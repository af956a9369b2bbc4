package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.persistence.audit.Audit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** R28/R33: the audit command's exit codes and messages for bad input and an unreadable journal. */
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

  @Test
  @DisplayName("R28: a database without Almanac's tables is reported as unreadable (exit 3), not as a clean audit")
  void noJournal() {
    int code = AuditCli.run("--verify");
    assertEquals(Audit.UNREADABLE, code, err.toString(StandardCharsets.UTF_8));
  }
}
