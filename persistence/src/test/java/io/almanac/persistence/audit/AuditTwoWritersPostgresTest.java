package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.persistence.TestPostgres;
import io.almanac.persistence.audit.AuditTesting.Result;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * I5 on PostgreSQL ({@link TestPostgres#server()}), the database of the user's 3-JVM cluster: two
 * one-node clusters (as a restarted sole seed node forms one) write one task on one journal, in a
 * fresh schema dropped afterwards ({@link TwoWriters}). The audit fails with I5, exit code 1.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditTwoWritersPostgresTest {

  private final String schema = "almanac_i5_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  private Config config;
  private TwoWriters.Outcome outcome;

  @BeforeAll
  void twoClustersWriteOneTask() throws Exception {
    String url = AuditTesting.createPostgresSchema(schema, "almanac-i5-test-admin");
    // As a node configures its journal: almanac-postgres.conf (which sets the stamping journal).
    config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-postgres.conf\"",
        "almanac.persistence.postgres {",
        "  url = " + ConfigUtil.quoteString(url),
        "  user = " + ConfigUtil.quoteString(TestPostgres.server().user()),
        "  password = " + ConfigUtil.quoteString(TestPostgres.server().password()),
        "  pool-size = 2",
        "}")));
    outcome = TwoWriters.write(config, false, true);
  }

  @AfterAll
  void dropSchema() throws SQLException {
    if (config == null) {
      return;
    }
    try (Connection c = TestPostgres.server().connect("almanac-i5-test-admin"); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  @DisplayName("I5 on PostgreSQL: two clusters on one journal fail the audit with exit code 1, naming both writers")
  void auditFailsWithI5() {
    assertTrue(outcome.staleWriteRefused(), "PostgreSQL's primary key refused node-a's stale write");
    Result r = AuditTesting.audit(config, AuditRequest.builder().verify(true).timeline(false).grace(Duration.ZERO).build());
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("I5 task 'split': two writers at the same time: " + outcome.a() + " wrote InstanceScheduled #8"
        + " at 2026-12-01T00:00:00Z after " + outcome.b() + " had succeeded it"), r.toString());
    assertTrue(r.out().contains("I5 one writer at a time           checked 1 journal (10 events with a known writer): 1 interleaving"),
        r.toString());
  }
}
