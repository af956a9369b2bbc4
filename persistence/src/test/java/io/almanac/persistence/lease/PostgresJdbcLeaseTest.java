package io.almanac.persistence.lease;

import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.persistence.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;

/**
 * The lease's contract on a real PostgreSQL ({@link TestPostgres}: the server at 127.0.0.1:5432
 * when it answers, else an embedded one), through almanac-postgres.conf, in a fresh schema per
 * test that the bootstrap creates and the test drops.
 */
class PostgresJdbcLeaseTest extends LeaseScenarios {

  private String schema;

  @Override
  Config config() {
    TestPostgres.Server server;
    try {
      server = TestPostgres.server();
    } catch (IllegalStateException e) {
      return fail(e.getMessage(), e);
    }
    schema = "almanac_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String url = server.url() + (server.url().contains("?") ? "&" : "?") + "currentSchema=" + schema
        + "&ApplicationName=almanac-lease-test";
    return ConfigFactory.load(ConfigFactory.parseString(
        "include \"almanac-postgres.conf\"\n"
            + "almanac.persistence.postgres {\n"
            + "  url = " + ConfigUtil.quoteString(url) + "\n"
            + "  user = " + ConfigUtil.quoteString(server.user()) + "\n"
            + "  password = " + ConfigUtil.quoteString(server.password()) + "\n"
            + "  schema = " + schema + "\n"
            + "  pool-size = 2\n"
            + "}\n"));
  }

  @Override
  void cleanUp() throws Exception {
    if (schema != null) {
      try (Connection c = TestPostgres.server().connect("almanac-lease-test-admin"); Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
  }
}
