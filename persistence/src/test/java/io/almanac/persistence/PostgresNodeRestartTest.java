package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The node restart scenarios on PostgreSQL through almanac-postgres.conf, each test in a fresh
 * schema (created by the schema bootstrap, dropped after the class). Fails, never skips, when
 * PostgreSQL is not reachable.
 */
class PostgresNodeRestartTest extends NodeRestartScenarios {

  private static PostgresTestDb db;
  private String schema;

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

  @BeforeEach
  void freshSchema() {
    schema = db.newSchema();
  }

  /** Runs before the base class stops the node: the journal really is in this test's schema. */
  @AfterEach
  void journalIsInTheTestsSchema() throws SQLException {
    try (Connection c = PostgresTestDb.admin(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + ".event_journal")) {
      rs.next();
      assertTrue(rs.getLong(1) > 0, "events in " + schema + ".event_journal");
    }
  }

  @Override
  protected Config nodeConfig(String extra) {
    return PostgresTestDb.config(schema, "almanac-restart-test", extra);
  }
}
