package io.almanac.persistence;

import static io.almanac.testkit.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AlmanacException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The schema bootstrap on a real PostgreSQL, in fresh schemas of its own: creates the schema and
 * the tables once, is idempotent, and is safe when nodes run it at the same moment. Fails, never
 * skips, when PostgreSQL is not reachable.
 */
@ExtendWith(LogCapturingExtension.class)
class PostgresSchemaBootstrapTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final List<String> TABLES = List.of("almanac_instance", "almanac_instance_history",
      "almanac_instance_task", "almanac_lease", "almanac_projection_offset", "event_journal", "event_tag", "snapshot");
  private static final String APP = "almanac-bootstrap-test";

  private static PostgresTestDb db;

  @BeforeAll
  static void server() {
    db = PostgresTestDb.require();
  }

  @AfterAll
  static void dropSchemas() throws SQLException {
    if (db != null) {
      db.dropAll();
    }
  }

  private static Config config(String schema) {
    return PostgresTestDb.config(schema, APP, "");
  }

  private static boolean orderingIndexIn(String schema) throws SQLException {
    try (Connection c = PostgresTestDb.admin(); PreparedStatement p = c.prepareStatement(
        "SELECT 1 FROM pg_indexes WHERE schemaname = ? AND indexname = 'event_journal_ordering_idx'")) {
      p.setString(1, schema);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next();
      }
    }
  }

  @Test
  void twiceSequentiallyCreatesSchemaAndTablesOnceAndKeepsThem() throws Exception {
    String schema = db.newSchema();
    ActorTestKit first = ActorTestKit.create("pg-schema-1", config(schema));
    try {
      LoggingTestKit.info("Almanac schema: created tables [" + schema + ".event_journal, " + schema + ".event_tag, "
              + schema + ".snapshot, " + schema + ".almanac_lease, " + schema + ".almanac_instance, " + schema
              + ".almanac_instance_history, " + schema + ".almanac_instance_task, " + schema + ".almanac_projection_offset]")
          .withMessageRegex(".*\\(PostgreSQL\\); created schema " + schema + "$")
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
    assertEquals(TABLES, PostgresTestDb.tables(schema));
    assertTrue(orderingIndexIn(schema));

    ActorTestKit second = ActorTestKit.create("pg-schema-2", config(schema));
    try {
      LoggingTestKit.info("nothing to create").expect(second.system(), () -> {
        SchemaBootstrap.ensureSchemaBlocking(second.system(), TIMEOUT);
        return null;
      });
    } finally {
      second.shutdownTestKit();
    }
    assertEquals(TABLES, PostgresTestDb.tables(schema));
  }

  /**
   * Two ActorSystems (two nodes) and two threads in each bootstrap a missing schema at the same
   * moment, three times: none fails, the schema and tables exist once. Without the advisory lock
   * concurrent CREATE SCHEMA / CREATE TABLE IF NOT EXISTS can fail on a duplicate catalog key.
   */
  @Test
  void twoSystemsAndTwoThreadsEachBootstrapConcurrently() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      for (int round = 0; round < 3; round++) {
        String schema = db.newSchema();
        ActorTestKit a = ActorTestKit.create("pg-concurrent-a", config(schema));
        ActorTestKit b = ActorTestKit.create("pg-concurrent-b", config(schema));
        try {
          CyclicBarrier start = new CyclicBarrier(4);
          List<Future<?>> runs = new ArrayList<>();
          for (ActorTestKit kit : List.of(a, b, a, b)) {
            runs.add(threads.submit(() -> {
              start.await(10, TimeUnit.SECONDS);
              SchemaBootstrap.ensureSchemaBlocking(kit.system(), TIMEOUT);
              return null;
            }));
          }
          for (Future<?> run : runs) {
            run.get(30, TimeUnit.SECONDS);
          }
        } finally {
          a.shutdownTestKit();
          b.shutdownTestKit();
        }
        assertEquals(TABLES, PostgresTestDb.tables(schema), "round " + round);
        assertTrue(orderingIndexIn(schema), "round " + round);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /** The bootstrap waits for the advisory lock that serialises nodes, and creates once it has it. */
  @Test
  void waitsForTheAdvisoryLock() throws Exception {
    String schema = db.newSchema();
    ActorTestKit kit = ActorTestKit.create("pg-lock", config(schema));
    try (Connection holder = PostgresTestDb.admin(); Statement s = holder.createStatement()) {
      holder.setAutoCommit(false);
      s.execute("SELECT pg_advisory_xact_lock(" + SchemaBootstrap.POSTGRES_LOCK_KEY + ")");
      CompletableFuture<?> bootstrap = SchemaBootstrap.ensureSchema(kit.system()).toCompletableFuture();
      eventually(Duration.ofSeconds(10), () -> assertTrue(waitingForAdvisoryLock(), "the bootstrap waits for the advisory lock"));
      assertFalse(bootstrap.isDone(), "done while another session held the lock");
      assertEquals(List.of(), PostgresTestDb.tables(schema), "nothing created while waiting");
      holder.commit(); // releases the lock
      bootstrap.get(20, TimeUnit.SECONDS);
      assertEquals(TABLES, PostgresTestDb.tables(schema));
    } finally {
      kit.shutdownTestKit();
    }
  }

  /** Asked on a connection of its own: inside a transaction pg_stat_activity is a snapshot. */
  private static boolean waitingForAdvisoryLock() throws SQLException {
    try (Connection c = PostgresTestDb.admin(); PreparedStatement p = c.prepareStatement("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
        + "WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = ?")) {
      p.setString(1, APP);
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        return rs.getInt(1) > 0;
      }
    }
  }

  @Test
  void withAutoCreateOffAMissingSchemaIsNamedAndNothingIsCreated() throws Exception {
    String schema = db.newSchema();
    ActorTestKit kit = ActorTestKit.create("pg-off", PostgresTestDb.config(schema, APP, "almanac.persistence.schema.auto-create = off"));
    try {
      AlmanacException e = assertThrows(AlmanacException.class, () -> SchemaBootstrap.ensureSchemaBlocking(kit.system(), TIMEOUT));
      assertTrue(e.getMessage().contains("no current schema (search_path '" + schema + "'"), e.getMessage());
      assertTrue(e.getMessage().contains("auto-create on"), e.getMessage());
      assertFalse(e.getMessage().contains("password"), e.getMessage());
      try (Connection c = PostgresTestDb.admin(); Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA " + schema);
      }
      e = assertThrows(AlmanacException.class, () -> SchemaBootstrap.ensureSchemaBlocking(kit.system(), TIMEOUT));
      assertTrue(e.getMessage().contains(schema + ".event_journal (jdbc-journal.tables.event_journal.tableName)"), e.getMessage());
      assertTrue(e.getMessage().contains(schema + ".snapshot (jdbc-snapshot-store.tables.snapshot.tableName)"), e.getMessage());
      assertTrue(e.getMessage().contains("almanac.persistence.schema.auto-create is off"), e.getMessage());
    } finally {
      kit.shutdownTestKit();
    }
    assertEquals(List.of(), PostgresTestDb.tables(schema), "nothing was created");
  }

  /** A hand-written pool that does not use the schema key's schema is refused, not written into public. */
  @Test
  void refusesConnectionsThatDoNotUseTheConfiguredSchema() throws Exception {
    String schema = db.newSchema();
    String other = db.newSchema();
    Config config = ConfigFactory.load(ConfigFactory.parseString(
        "include \"almanac-postgres.conf\"\n"
            + "almanac.persistence.postgres {\n"
            + "  url = " + ConfigUtil.quoteString(PostgresTestDb.url() + "?ApplicationName=" + APP) + "\n"
            + "  user = " + ConfigUtil.quoteString(PostgresTestDb.user()) + "\n"
            + "  password = " + ConfigUtil.quoteString(PostgresTestDb.password()) + "\n"
            + "  schema = " + schema + "\n"
            + "}\n"
            + PostgresTestDb.SLICK_DB + ".properties.currentSchema = " + other + "\n"));
    try (Connection c = PostgresTestDb.admin(); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + other);
    }
    ActorTestKit kit = ActorTestKit.create("pg-mismatch", config);
    try {
      AlmanacException e = assertThrows(AlmanacException.class, () -> SchemaBootstrap.ensureSchemaBlocking(kit.system(), TIMEOUT));
      assertTrue(e.getMessage().contains("almanac.persistence.postgres.schema is '" + schema
          + "' but the connection's current schema is '" + other + "'"), e.getMessage());
    } finally {
      kit.shutdownTestKit();
    }
    assertEquals(List.of(), PostgresTestDb.tables(other), "nothing created in the connection's schema");
    assertEquals(List.of(), PostgresTestDb.tables(schema), "the transaction that created the schema was rolled back");
  }
}
