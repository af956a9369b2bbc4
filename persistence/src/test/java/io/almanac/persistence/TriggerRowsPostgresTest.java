package io.almanac.persistence;

import io.almanac.persistence.instances.TriggerRowsScenarios;
import java.sql.SQLException;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The instance table with WAITING windows and coalesced events on PostgreSQL, in a fresh schema
 * ({@link TriggerRowsScenarios}). Fails, never skips, when PostgreSQL is not reachable.
 */
@ExtendWith(LogCapturingExtension.class)
class TriggerRowsPostgresTest {

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

  @Test
  void waitingWindowsAndEventTalliesLiveThenRebuildAndAddedColumns() throws Exception {
    TriggerRowsScenarios.run("trigger-rows-pg", PostgresTestDb.config(db.newSchema(), "almanac-trigger-rows-test", ""));
  }
}
