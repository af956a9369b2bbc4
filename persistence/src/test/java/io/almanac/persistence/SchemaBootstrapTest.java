package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.AlmanacException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The schema bootstrap on a real H2 file: idempotent, concurrent, and loud when tables are missing. */
@ExtendWith(LogCapturingExtension.class)
class SchemaBootstrapTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  @TempDir Path dir;

  /** Tables and indexes in the PUBLIC schema, read with plain JDBC. */
  private static List<String> objects(Config config) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = H2TestConfig.connect(config); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery(
          "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC' ORDER BY TABLE_NAME")) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
      try (ResultSet rs = s.executeQuery(
          "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE INDEX_NAME = 'event_journal_ordering_idx'")) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static final List<String> EXPECTED = List.of("almanac_instance", "almanac_instance_history",
      "almanac_instance_task", "almanac_lease", "almanac_projection_offset", "event_journal", "event_tag", "snapshot",
      "event_journal_ordering_idx");

  @Test
  void bootstrapTwiceOnTheSameFileCreatesOnceAndKeepsTheTables() throws Exception {
    Config config = H2TestConfig.at(dir.resolve("db"));
    ActorTestKit first = ActorTestKit.create("schema-1", config);
    try {
      LoggingTestKit.info("Almanac schema: created tables [PUBLIC.event_journal, PUBLIC.event_tag, PUBLIC.snapshot, PUBLIC.almanac_lease, "
          + "PUBLIC.almanac_instance, PUBLIC.almanac_instance_history, PUBLIC.almanac_instance_task, PUBLIC.almanac_projection_offset]")
          .expect(first.system(), () -> {
            SchemaBootstrap.ensureSchemaBlocking(first.system(), TIMEOUT);
            return null;
          });
      LoggingTestKit.info("nothing to create").expect(first.system(), () -> {
        SchemaBootstrap.ensureSchemaBlocking(first.system(), TIMEOUT);
        return null;
      });
    } finally {
      first.shutdownTestKit();
    }
    assertEquals(EXPECTED, objects(config));

    ActorTestKit second = ActorTestKit.create("schema-2", config);
    try {
      LoggingTestKit.info("nothing to create").expect(second.system(), () -> {
        SchemaBootstrap.ensureSchemaBlocking(second.system(), TIMEOUT);
        return null;
      });
    } finally {
      second.shutdownTestKit();
    }
    assertEquals(EXPECTED, objects(config));
  }

  /** A database bootstrapped before the lease table existed gets it at the next start, the rest untouched. */
  @Test
  void aJournalWithoutTheLeaseTableGetsIt() throws Exception {
    Config config = H2TestConfig.at(dir.resolve("db"));
    ActorTestKit first = ActorTestKit.create("schema-lease-1", config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(first.system(), TIMEOUT);
    } finally {
      first.shutdownTestKit();
    }
    try (Connection c = H2TestConfig.connect(config); Statement s = c.createStatement()) {
      s.execute("DROP TABLE \"almanac_lease\"");
    }
    ActorTestKit second = ActorTestKit.create("schema-lease-2", config);
    try {
      LoggingTestKit.info("Almanac schema: created tables [PUBLIC.almanac_lease]").expect(second.system(), () -> {
        SchemaBootstrap.ensureSchemaBlocking(second.system(), TIMEOUT);
        return null;
      });
    } finally {
      second.shutdownTestKit();
    }
    assertEquals(EXPECTED, objects(config));
  }

  /**
   * A database bootstrapped before the instance tables existed gets them at the next start (the
   * rows of the instance table it already has are kept), the rest untouched.
   */
  @Test
  void aJournalWithoutTheInstanceTablesGetsThem() throws Exception {
    Config config = H2TestConfig.at(dir.resolve("db"));
    ActorTestKit first = ActorTestKit.create("schema-instances-1", config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(first.system(), TIMEOUT);
    } finally {
      first.shutdownTestKit();
    }
    try (Connection c = H2TestConfig.connect(config); Statement s = c.createStatement()) {
      s.execute("DROP TABLE almanac_instance_history");
      s.execute("DROP TABLE almanac_projection_offset");
      s.execute("INSERT INTO almanac_instance_task (task_id, max_retry, last_seq) VALUES ('kept', 3, 7)");
    }
    ActorTestKit second = ActorTestKit.create("schema-instances-2", config);
    try {
      LoggingTestKit.info("Almanac schema: created tables [PUBLIC.almanac_instance_history, PUBLIC.almanac_projection_offset]")
          .expect(second.system(), () -> {
            SchemaBootstrap.ensureSchemaBlocking(second.system(), TIMEOUT);
            return null;
          });
    } finally {
      second.shutdownTestKit();
    }
    assertEquals(EXPECTED, objects(config));
    try (Connection c = H2TestConfig.connect(config); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT task_id FROM almanac_instance_task")) {
      assertTrue(rs.next());
      assertEquals("kept", rs.getString(1));
    }
  }

  @Test
  void twoSystemsBootstrapTheSameFileConcurrently() throws Exception {
    for (int round = 0; round < 3; round++) {
      Config config = H2TestConfig.at(dir.resolve("db-" + round));
      ActorTestKit a = ActorTestKit.create("concurrent-a", config);
      ActorTestKit b = ActorTestKit.create("concurrent-b", config);
      try {
        CompletableFuture<?> fa = SchemaBootstrap.ensureSchema(a.system()).toCompletableFuture();
        CompletableFuture<?> fb = SchemaBootstrap.ensureSchema(b.system()).toCompletableFuture();
        CompletableFuture.allOf(fa, fb).get(20, TimeUnit.SECONDS);
      } finally {
        a.shutdownTestKit();
        b.shutdownTestKit();
      }
      assertEquals(EXPECTED, objects(config), "round " + round);
    }
  }

  @Test
  void withAutoCreateOffMissingTablesAreNamed() throws Exception {
    Config config = H2TestConfig.at(dir.resolve("db"), "almanac.persistence.schema.auto-create = off");
    ActorTestKit kit = ActorTestKit.create("schema-off", config);
    try {
      AlmanacException e = assertThrows(AlmanacException.class, () -> SchemaBootstrap.ensureSchemaBlocking(kit.system(), TIMEOUT));
      assertTrue(e.getMessage().contains("PUBLIC.event_journal (jdbc-journal.tables.event_journal.tableName)"), e.getMessage());
      assertTrue(e.getMessage().contains("PUBLIC.snapshot (jdbc-snapshot-store.tables.snapshot.tableName)"), e.getMessage());
      assertTrue(e.getMessage().contains("almanac.persistence.schema.auto-create is off"), e.getMessage());
      assertTrue(e.getMessage().contains("PUBLIC.almanac_lease (Almanac's lease table)"), e.getMessage());
    } finally {
      kit.shutdownTestKit();
    }
    assertEquals(List.of(), objects(config), "nothing was created");
  }

  @Test
  void renamedTableIsReportedWithItsKey() {
    Config config = H2TestConfig.at(dir.resolve("db"), "jdbc-snapshot-store.tables.snapshot.tableName = snapshots_v2");
    ActorTestKit kit = ActorTestKit.create("schema-renamed", config);
    try {
      AlmanacException e = assertThrows(AlmanacException.class, () -> SchemaBootstrap.ensureSchemaBlocking(kit.system(), TIMEOUT));
      assertTrue(e.getMessage().contains("PUBLIC.snapshots_v2 (jdbc-snapshot-store.tables.snapshot.tableName)"), e.getMessage());
    } finally {
      kit.shutdownTestKit();
    }
  }

  /**
   * Our scripts add IF NOT EXISTS and leave out durable state, and the PostgreSQL one the plugin's
   * "public." (its tables go to the connection's current schema); otherwise they are the plugin's.
   */
  @Test
  void scriptsMatchThePluginsScripts() throws IOException {
    assertMatchesPlugin(SchemaBootstrap.Dialect.H2, "schema/h2/h2-create-schema.sql");
    assertMatchesPlugin(SchemaBootstrap.Dialect.POSTGRES, "schema/postgres/postgres-create-schema.sql");
    for (String statement : SchemaBootstrap.Dialect.POSTGRES.statements()) {
      assertFalse(statement.contains("public."), () -> "a fixed schema would ignore almanac.persistence.postgres.schema: " + statement);
    }
  }

  private static void assertMatchesPlugin(SchemaBootstrap.Dialect dialect, String pluginResource) throws IOException {
    List<String> plugin;
    try (InputStream in = SchemaBootstrap.class.getClassLoader().getResourceAsStream(pluginResource)) {
      plugin = SchemaBootstrap.split(new String(in.readAllBytes(), StandardCharsets.UTF_8)).stream()
          .map(SchemaBootstrapTest::normalise).toList();
    }
    List<String> ours = dialect.statements();
    assertEquals(4, ours.size(), dialect + ": journal, its index, tags, snapshots");
    for (String statement : ours) {
      assertTrue(statement.contains("IF NOT EXISTS"), () -> dialect + " statement is not idempotent: " + statement);
      assertTrue(plugin.contains(normalise(statement)), () -> dialect + " statement differs from " + pluginResource + ": " + statement);
    }
  }

  private static String normalise(String sql) {
    return sql.replace("IF NOT EXISTS", "").replace("CONCURRENTLY", "").replace("public.", "").replaceAll("\\s+", " ").trim();
  }
}
