package io.almanac.persistence.crash;

import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.persistence.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;

/**
 * A PostgreSQL server the crash tests write to: the shared test server ({@link TestPostgres#server()},
 * as the other PostgreSQL tests of this module: the configured server when it answers, else an
 * embedded one; the node JVMs get its URL), or a {@link PrivatePostgres} of the outage test.
 *
 * @param url the JDBC URL of the database, without parameters
 * @param user the user
 * @param password the password
 */
record Pg(String url, String user, String password) {

  /** The shared test server; fails the test (never skips) when it cannot be had, saying why. */
  static Pg shared() {
    try {
      TestPostgres.Server s = TestPostgres.server();
      return new Pg(s.url(), s.user(), s.password());
    } catch (IllegalStateException e) {
      fail(e.getMessage(), e);
      return null;
    }
  }

  /** Fails the test (never skips) when the server cannot be reached. */
  Pg require() {
    try (Connection c = admin(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
      rs.next();
    } catch (SQLException e) {
      fail("PostgreSQL is not reachable at " + url + " as " + user + " (" + e.getMessage() + ")", e);
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
