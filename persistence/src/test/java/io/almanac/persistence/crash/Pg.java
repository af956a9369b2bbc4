package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;

/**
 * A PostgreSQL server the crash tests write to: the shared test server (127.0.0.1:5432, database
 * {@code test}, user {@code postgres}, or ALMANAC_TEST_PG_URL / _USER / _PASSWORD, as the other
 * PostgreSQL tests of this module), or a {@link PrivatePostgres} of the outage test.
 *
 * @param url the JDBC URL of the database, without parameters
 * @param user the user
 * @param password the password
 */
record Pg(String url, String user, String password) {

  /** The shared test server. */
  static Pg shared() {
    return new Pg(env("ALMANAC_TEST_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test"), env("ALMANAC_TEST_PG_USER", "postgres"),
        env("ALMANAC_TEST_PG_PASSWORD", ""));
  }

  private static String env(String name, String otherwise) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? otherwise : v;
  }

  /** Fails the test (never skips) when the server cannot be reached, saying how to start it. */
  Pg require() {
    try (Connection c = admin(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
      rs.next();
    } catch (SQLException e) {
      fail("PostgreSQL is not reachable at " + url + " as " + user + " (" + e.getMessage() + "). Start it with "
          + "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` (.ci/run does), or point "
          + "ALMANAC_TEST_PG_URL/_USER/_PASSWORD at one.", e);
    }
    return this;
  }

  /** A plain connection outside any pool. */
  Connection admin() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    p.setProperty("ApplicationName", "almanac-crash-test-admin");
    p.setProperty("connectTimeout", "5");
    return DriverManager.getConnection(url, p);
  }

  /** A fresh schema name (the node's bootstrap creates it). */
  static String newSchema(String prefix) {
    return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }

  /** The URL with the schema as currentSchema and an application name. */
  String url(String schema, String applicationName) {
    return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema + "&ApplicationName=" + applicationName;
  }

  void dropSchema(String schema) throws SQLException {
    try (Connection c = admin(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }
}
