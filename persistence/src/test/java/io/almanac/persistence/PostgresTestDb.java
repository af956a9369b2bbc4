package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.fail;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The PostgreSQL the tests run against: {@link TestPostgres#server()} (the configured server,
 * 127.0.0.1:5432, database {@code test}, user {@code postgres}, when it answers, else an embedded
 * PostgreSQL of this JVM; ALMANAC_TEST_PG and ALMANAC_TEST_PG_URL / _USER / _PASSWORD choose). Each
 * test class gets fresh schemas named {@code almanac_test_<random>}, dropped by {@link #dropAll()},
 * so runs never see each other's data. When no server can be had, {@link #require()} fails the test
 * class with a message that says why: these tests never skip.
 */
final class PostgresTestDb {

  static final String SLICK_DB = "pekko-persistence-jdbc.shared-databases.slick.db";

  private final List<String> schemas = new ArrayList<>();

  private PostgresTestDb() {}

  /** @return a handle on the test server; fails (does not skip) when it cannot be had */
  static PostgresTestDb require() {
    TestPostgres.Server server;
    try {
      server = TestPostgres.server();
    } catch (IllegalStateException e) {
      fail(e.getMessage(), e);
      return null;
    }
    try (Connection c = admin(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
      rs.next();
    } catch (SQLException e) {
      fail("PostgreSQL is not reachable at " + server.url() + " as " + server.user() + " (" + e.getMessage() + "); it was "
          + "chosen thus: " + server.why(), e);
    }
    return new PostgresTestDb();
  }

  /** The test server's JDBC URL, without parameters. */
  static String url() {
    return TestPostgres.server().url();
  }

  static String user() {
    return TestPostgres.server().user();
  }

  static String password() {
    return TestPostgres.server().password();
  }

  /** A plain connection to the test database, outside any pool, as the test's administrator. */
  static Connection admin() throws SQLException {
    return TestPostgres.server().connect("almanac-test-admin");
  }

  /** @return a new schema name, not created: the bootstrap creates it; dropped by dropAll */
  synchronized String newSchema() {
    String name = "almanac_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    schemas.add(name);
    return name;
  }

  /** The test URL with the schema as currentSchema and the given application name. */
  static String url(String schema, String applicationName) {
    String url = url();
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema + "&ApplicationName=" + applicationName;
  }

  /**
   * Configuration as a user writes it: {@code include "almanac-postgres.conf"} plus the test
   * server, the schema (as the key, so the bootstrap creates it, and as currentSchema on the URL)
   * and further HOCON lines.
   */
  static Config config(String schema, String applicationName, String extra) {
    return ConfigFactory.load(ConfigFactory.parseString(
        "include \"almanac-postgres.conf\"\n"
            + "almanac.persistence.postgres {\n"
            + "  url = " + ConfigUtil.quoteString(url(schema, applicationName)) + "\n"
            + "  user = " + ConfigUtil.quoteString(user()) + "\n"
            + "  password = " + ConfigUtil.quoteString(password()) + "\n"
            + "  schema = " + schema + "\n"
            + "}\n"
            + extra));
  }

  /** @return the tables of a schema, by name */
  static List<String> tables(String schema) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = admin(); PreparedStatement p = c.prepareStatement(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name")) {
      p.setString(1, schema);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  /** @return the server's connections with this application name */
  static int connections(String applicationName) throws SQLException {
    try (Connection c = admin(); PreparedStatement p = c.prepareStatement(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
      p.setString(1, applicationName);
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** Drops every schema handed out. */
  synchronized void dropAll() throws SQLException {
    try (Connection c = admin(); Statement s = c.createStatement()) {
      for (String schema : schemas) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
    schemas.clear();
  }
}
