package io.almanac.persistence;

import io.almanac.persistence.instances.InstanceQueriesScenarios;
import java.sql.SQLException;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Queries and retention on PostgreSQL, in a fresh schema dropped after the class. */
@ExtendWith(LogCapturingExtension.class)
class InstanceQueriesPostgresTest {

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
  void pagesAgreeWithTheSelectionAndRetentionMovesDoneRows() throws Exception {
    ActorTestKit kit = ActorTestKit.create("queries-pg", PostgresTestDb.config(db.newSchema(), "almanac-queries-test", ""));
    try {
      InstanceQueriesScenarios.queriesAndRetention(kit.system());
    } finally {
      kit.shutdownTestKit();
    }
  }
}
