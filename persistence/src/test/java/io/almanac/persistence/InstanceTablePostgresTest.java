package io.almanac.persistence;

import io.almanac.persistence.instances.InstanceTableScenarios;
import java.sql.SQLException;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The instance table's scenario on PostgreSQL through almanac-postgres.conf, in a fresh schema
 * (created by the schema bootstrap, dropped after the class). Fails, never skips, when PostgreSQL
 * is not reachable.
 */
@ExtendWith(LogCapturingExtension.class)
class InstanceTablePostgresTest {

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
  void liveProjectionThenRebuildGiveTheSameTable() throws Exception {
    String schema = db.newSchema();
    InstanceTableScenarios.liveThenRebuild("instances-pg",
        PostgresTestDb.config(schema, "almanac-instances-test", InstanceTableScenarios.FAST));
  }
}
