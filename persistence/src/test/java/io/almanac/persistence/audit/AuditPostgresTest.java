package io.almanac.persistence.audit;

import io.almanac.journal.TaskJournal;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.OverlapPolicy;
import io.almanac.persistence.TestPostgres;
import io.almanac.persistence.audit.AuditTesting.Result;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The same audit on PostgreSQL ({@link TestPostgres#server()}: the configured server when it
 * answers, else an embedded one), in a fresh schema dropped afterwards: only the journal
 * configuration differs from H2, the reader goes through the same JDBC read journal. Fails, does
 * not skip, when no server can be had.
 */
@ExtendWith(LogCapturingExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuditPostgresTest {

  private final String schema = "almanac_audit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  private Config config;

  private static Connection admin() throws SQLException {
    return TestPostgres.server().connect("almanac-audit-test-admin");
  }

  @BeforeAll
  void createSchemaAndJournals() throws Exception {
    String url = AuditTesting.createPostgresSchema(schema, "almanac-audit-test-admin");
    config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "pekko.persistence.journal.plugin = \"jdbc-journal\"",
        "pekko.persistence.snapshot-store.plugin = \"jdbc-snapshot-store\"",
        "pekko-persistence-jdbc.shared-databases.slick {",
        "  profile = \"slick.jdbc.PostgresProfile$\"",
        "  db {",
        "    driver = \"org.postgresql.Driver\"",
        "    url = " + ConfigUtil.quoteString(url),
        "    user = " + ConfigUtil.quoteString(TestPostgres.server().user()),
        "    password = " + ConfigUtil.quoteString(TestPostgres.server().password()),
        "    numThreads = 2, maxConnections = 2, minConnections = 2, connectionTimeout = 5s",
        "  }",
        "}",
        "jdbc-journal.use-shared-db = \"slick\"",
        "jdbc-snapshot-store.use-shared-db = \"slick\"",
        "jdbc-read-journal.use-shared-db = \"slick\"")));
    Instant defined = Instant.parse("2026-11-28T12:00:00Z");
    Map<String, List<TaskJournal.Event>> journals = new LinkedHashMap<>();
    journals.put("fine", journal(List.of(spec(daily("fine", OverlapPolicy.SKIP), defined)), ran("2026-11-29"),
        ran("2026-11-30"), ran("2026-12-01")));
    journals.put("lost", journal(List.of(spec(daily("lost", OverlapPolicy.SKIP), defined)), ran("2026-11-29"),
        ran("2026-12-01")));
    AuditTesting.write(config, false, journals, 100);
  }

  @AfterAll
  void dropSchema() throws SQLException {
    if (config == null) {
      return; // no server: the set-up failed and said why
    }
    try (Connection c = admin(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void verifiesACorrectJournal() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().task("fine").verify(true).build());
    assertEquals(Audit.OK, r.exit(), r.toString());
    assertTrue(r.out().contains("task 'fine' (zone Asia/Shanghai): 10 events"), r.toString());
    assertTrue(r.err().contains("audit: read 10 events of 1 task (3 windows)"), r.toString());
  }

  @Test
  void findsALostWindowAmongAllTasks() {
    Result r = AuditTesting.audit(config, AuditRequest.builder().verify(true).timeline(false).build());
    assertEquals(Audit.VIOLATION, r.exit(), r.toString());
    assertTrue(r.out().contains("I2 task 'lost' window '2026-11-30': lost window"), r.toString());
    assertTrue(r.err().contains("audit: read 17 events of 2 tasks (5 windows)"), r.toString());
  }
}
