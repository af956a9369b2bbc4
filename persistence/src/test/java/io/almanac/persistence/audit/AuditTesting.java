package io.almanac.persistence.audit;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.SchemaBootstrap;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;

/** Test support: journal configuration on an H2 file, a journal writer, and running the audit. */
final class AuditTesting {

  private AuditTesting() {}

  /**
   * Configuration as a user writes it: {@code include "almanac-h2.conf"} plus the file's path, with
   * the journal stamping writers (off by default on H2) so that I5 is judged.
   */
  static Config config(Path db, String extra) {
    return ConfigFactory.load(ConfigFactory.parseString(
        "include \"almanac-h2.conf\"\n"
            + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(db.toString()) + "\n"
            + io.almanac.persistence.H2TestConfig.STAMP_WRITERS
            + extra));
  }

  /**
   * Creates a fresh schema on the test PostgreSQL server ({@link io.almanac.persistence.TestPostgres})
   * with the journal's tables, as the plugin's script creates them.
   *
   * @param schema the schema's name
   * @param applicationName the admin connection's application name
   * @return the JDBC URL that makes the schema current; fails the test when no server can be had
   */
  static String createPostgresSchema(String schema, String applicationName) {
    io.almanac.persistence.TestPostgres.Server server;
    try {
      server = io.almanac.persistence.TestPostgres.server();
    } catch (IllegalStateException e) {
      return org.junit.jupiter.api.Assertions.fail(e.getMessage(), e);
    }
    String script;
    try (java.io.InputStream in = AuditTesting.class.getResourceAsStream("/io/almanac/persistence/schema/postgres-create-schema.sql")) {
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("public.", schema + ".");
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    try (java.sql.Connection c = server.connect(applicationName); java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
      s.execute("SET search_path TO " + schema);
      for (String statement : script.replaceAll("(?m)^--.*$", "").split(";")) {
        if (!statement.isBlank()) {
          s.execute(statement);
        }
      }
    } catch (java.sql.SQLException e) {
      org.junit.jupiter.api.Assertions.fail("PostgreSQL is not reachable at " + server.url() + " as " + server.user() + " ("
          + e.getMessage() + "); it was chosen thus: " + server.why(), e);
    }
    return server.url() + (server.url().contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  static Config config(Path db) {
    return config(db, "");
  }

  /**
   * Writes each task's events through {@link JournalWriter} on a local ActorSystem (no cluster),
   * {@code batch} events per atomic write, and stops the system so the H2 file is free again.
   */
  static void write(Path db, Map<String, List<TaskJournal.Event>> journals, int batch) {
    write(config(db, "pekko.actor.provider = local"), true, journals, batch);
  }

  /** As {@link #write(Path, Map, int)} on any journal configuration; bootstrap creates the tables first. */
  static void write(Config config, boolean bootstrap, Map<String, List<TaskJournal.Event>> journals, int batch) {
    ActorTestKit kit = ActorTestKit.create("journal-writer",
        ConfigFactory.parseString("pekko.actor.provider = local").withFallback(config));
    try {
      if (bootstrap) {
        SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
      }
      TestProbe<Done> probe = kit.createTestProbe();
      journals.forEach((taskId, events) -> {
        ActorRef<JournalWriter.Write> writer = kit.spawn(JournalWriter.create(taskId));
        for (int i = 0; i < events.size(); i += batch) {
          writer.tell(new JournalWriter.Write(List.copyOf(events.subList(i, Math.min(events.size(), i + batch))), probe.getRef()));
          probe.expectMessage(Duration.ofSeconds(30), Done.getInstance());
        }
      });
    } finally {
      kit.shutdownTestKit();
    }
  }

  /** What one run of the audit printed and returned. */
  record Result(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  static Result audit(Config config, AuditRequest request) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      exit = Audit.run(config, request, o, e);
    }
    return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
