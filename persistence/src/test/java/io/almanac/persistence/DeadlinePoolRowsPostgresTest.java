package io.almanac.persistence;

import io.almanac.persistence.instances.DeadlinePoolRowsScenarios;
import java.sql.SQLException;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The instance table's missed deadlines and pool waits on PostgreSQL, in a fresh schema ({@link
 * DeadlinePoolRowsScenarios}). Fails, never skips, when PostgreSQL is not reachable.
 */
@ExtendWith(LogCapturingExtension.class)
class DeadlinePoolRowsPostgresTest {

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
  void deadlinesAndPoolWaitsLiveThenRebuildAndAddedColumns() throws Exception {
    DeadlinePoolRowsScenarios.run("deadline-pool-rows-pg", PostgresTestDb.config(db.newSchema(),
        "almanac-deadline-pool-rows-test", ""));
  }
}
