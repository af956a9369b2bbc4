package io.almanac.persistence.pools;

import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.persistence.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The JDBC pool store on a real PostgreSQL ({@link TestPostgres}: the server at 127.0.0.1:5432 when it
 * answers, else an embedded one), in a fresh schema per test.
 */
class PostgresPoolStoreTest extends PoolStoreScenarios {

  private TestPostgres.Server server;
  private String schema;

  @BeforeEach
  void freshSchema() throws Exception {
    try {
      server = TestPostgres.server();
    } catch (IllegalStateException e) {
      fail(e.getMessage(), e);
    }
    schema = "almanac_pools_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = server.connect("almanac-pools-test-admin"); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    }
  }

  @AfterEach
  void dropSchema() throws Exception {
    closeStores();
    try (Connection c = server.connect("almanac-pools-test-admin"); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Override
  String url() {
    return server.url() + (server.url().contains("?") ? "&" : "?") + "currentSchema=" + schema;
  }

  @Override
  Properties properties() {
    Properties p = new Properties();
    p.setProperty("user", server.user());
    if (server.password() != null) {
      p.setProperty("password", server.password());
    }
    return p;
  }

  @Override
  String label() {
    return "PostgreSQL";
  }
}
