package io.almanac.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/**
 * The database of one run, the same for every system:
 *
 * <ul>
 *   <li>{@code h2}: an H2 file with WRITE_DELAY=0 (H2's interrupt-safe async: file system, as
 *       Almanac's almanac-h2.conf uses), a new file per run, deleted afterwards;
 *   <li>{@code postgres}: a new, empty schema per run in one PostgreSQL database (every system's
 *       connections name it as pgJDBC's currentSchema), dropped afterwards (DROP SCHEMA ... CASCADE).
 * </ul>
 *
 * The kind and the PostgreSQL server are per JVM: the parent sets them from --db / --pg-url /
 * --pg-user and hands them to every child JVM as system properties ({@link #jvmOptions()}); the
 * password only travels in the environment (ALMANAC_BENCH_PG_PASSWORD), never on a command line.
 */
final class Db {
  /**
   * Threads that run jobs, in the peers (Quartz, db-scheduler) and the cluster workloads' nodes. The
   * single Almanac node runs on its documented defaults instead (max-concurrent 16), as a user does.
   */
  static final int WORKERS = 8;
  /**
   * JDBC connections of the peers and the cluster workloads' nodes: workers + 2, Quartz's documented
   * minimum for its pool. The single Almanac node keeps its defaults (H2 4, PostgreSQL 10).
   */
  static final int POOL = 10;

  static final String H2 = "h2";
  static final String POSTGRES = "postgres";

  /** h2 or postgres, for this JVM. */
  static String kind = System.getProperty("almanac.bench.db", H2);
  /** The PostgreSQL database (without parameters): a pgJDBC URL. */
  static String pgUrl = System.getProperty("almanac.bench.pg.url", env("ALMANAC_BENCH_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test"));
  static String pgUser = System.getProperty("almanac.bench.pg.user", env("ALMANAC_BENCH_PG_USER", "postgres"));
  static final String PG_PASSWORD = env("ALMANAC_BENCH_PG_PASSWORD", "");
  /**
   * Prefix of the schemas this JVM creates: almanac_bench_&lt;token&gt;_&lt;run&gt; from the parent, so it
   * can drop whatever a child left behind (e.g. one killed at its timeout).
   */
  static String pgPrefix = System.getProperty("almanac.bench.pg.prefix",
      "almanac_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8));

  /** The H2 file (without .mv.db); null on PostgreSQL. */
  final Path path;
  /** The PostgreSQL schema; null on H2. */
  final String schema;

  private Db(Path path, String schema) {
    this.path = path == null ? null : path.toAbsolutePath();
    this.schema = schema;
  }

  private static String env(String name, String otherwise) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? otherwise : v;
  }

  /** @return whether the PostgreSQL server at pgUrl answers within a few seconds */
  static boolean answers() {
    java.util.Properties p = new java.util.Properties();
    p.setProperty("user", pgUser);
    p.setProperty("password", PG_PASSWORD);
    p.setProperty("connectTimeout", "3");
    try (Connection c = DriverManager.getConnection(pgUrl, p)) {
      return c.isValid(3);
    } catch (SQLException e) {
      return false;
    }
  }

  static boolean postgres() {
    return POSTGRES.equals(kind);
  }

  /**
   * @param dir the run's directory (H2 files go there)
   * @param name what this database is for, e.g. burst-1 (the H2 file's name, the schema's suffix)
   */
  static Db at(Path dir, String name) {
    if (postgres()) {
      return new Db(null, pgPrefix + "_" + name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_"));
    }
    return new Db(dir.resolve(name), null);
  }

  /** @param location {@link #location()} of a Db of this JVM's kind (a restart node gets it from its parent) */
  static Db of(String location) {
    return postgres() ? new Db(null, location) : new Db(Path.of(location), null);
  }

  /** @return the H2 file's path or the PostgreSQL schema */
  String location() {
    return postgres() ? schema : path.toString();
  }

  /** @return the file path without .mv.db (H2 only) */
  String h2Path() {
    return path.toString();
  }

  /**
   * @return the JDBC URL every system uses: the H2 file (Almanac adds DATABASE_TO_UPPER=false, which
   *     its plugin needs), or the PostgreSQL database with the run's schema as currentSchema
   */
  String url() {
    if (postgres()) {
      return pgUrl + (pgUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema + "&ApplicationName=almanac-bench";
    }
    return "jdbc:h2:async:" + h2Path() + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
  }

  String driver() {
    return postgres() ? "org.postgresql.Driver" : "org.h2.Driver";
  }

  String user() {
    return postgres() ? pgUser : "sa";
  }

  String password() {
    return postgres() ? PG_PASSWORD : "";
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), user(), password());
  }

  Connection connect(Properties extra) throws SQLException {
    Properties p = new Properties();
    p.putAll(extra);
    p.setProperty("user", user());
    p.setProperty("password", password());
    return DriverManager.getConnection(url(), p);
  }

  /** @return how the tables' database reads in a system's settings */
  static String describe() {
    return postgres() ? "PostgreSQL (a new schema per run)" : "the H2 file (WRITE_DELAY=0, async:)";
  }

  /**
   * Makes the run's store empty before a fresh start: on PostgreSQL drops the schema if a previous
   * attempt left it and creates it again; on H2 nothing (a new file path is a new database).
   */
  void createEmpty() throws SQLException {
    if (!postgres()) {
      return;
    }
    try (Connection c = admin(); Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      s.execute("CREATE SCHEMA " + schema);
    }
  }

  /** Drops the run's schema (PostgreSQL); the H2 files are deleted with the run's directory. */
  void drop() {
    if (!postgres()) {
      return;
    }
    try (Connection c = admin(); Statement s = c.createStatement()) {
      s.execute("SET lock_timeout = '30s'");
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      Bench.progress("  could not drop schema %s: %s", schema, e.getMessage());
    }
  }

  /** A connection to the PostgreSQL database outside any schema and pool. */
  static Connection admin() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", pgUser);
    p.setProperty("password", PG_PASSWORD);
    p.setProperty("ApplicationName", "almanac-bench-admin");
    p.setProperty("connectTimeout", "5");
    return DriverManager.getConnection(pgUrl, p);
  }

  /** Drops every schema whose name starts with the prefix; @return the names dropped. */
  static List<String> dropSchemasStartingWith(String prefix) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = admin()) {
      try (PreparedStatement ps = c.prepareStatement("SELECT nspname FROM pg_namespace WHERE left(nspname, ?) = ?")) {
        ps.setInt(1, prefix.length());
        ps.setString(2, prefix);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            names.add(rs.getString(1));
          }
        }
      }
      try (Statement s = c.createStatement()) {
        s.execute("SET lock_timeout = '30s'");
        for (String n : names) {
          s.execute("DROP SCHEMA IF EXISTS \"" + n + "\" CASCADE");
        }
      }
    }
    return names;
  }

  /** The server's version and its durability settings, as found (the bench does not change them). */
  static Map<String, Object> serverSettings() throws SQLException {
    Map<String, Object> m = new LinkedHashMap<>();
    try (Connection c = admin(); Statement s = c.createStatement()) {
      for (String setting : List.of("server_version", "synchronous_commit", "fsync", "wal_sync_method", "full_page_writes",
          "commit_delay", "shared_buffers", "max_connections")) {
        try (ResultSet rs = s.executeQuery("SHOW " + setting)) {
          rs.next();
          m.put(setting, rs.getString(1));
        }
      }
    }
    return m;
  }

  private static Map<String, Object> serverSettings;

  /** @return {@link #serverSettings()} once per JVM, or the error */
  static synchronized Map<String, Object> serverSettingsCached() {
    if (serverSettings == null) {
      try {
        serverSettings = serverSettings();
      } catch (SQLException e) {
        serverSettings = Map.of("error", e.getMessage());
      }
    }
    return serverSettings;
  }

  /** @return the -D options that give a child JVM this JVM's database kind and server */
  static List<String> jvmOptions() {
    List<String> o = new ArrayList<>();
    o.add("-Dalmanac.bench.db=" + kind);
    if (postgres()) {
      o.add("-Dalmanac.bench.pg.url=" + pgUrl);
      o.add("-Dalmanac.bench.pg.user=" + pgUser);
    }
    return o;
  }

  /** Runs a script: "--" comment lines dropped, split at ";", COMMIT statements skipped. */
  static void run(Connection c, String script) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String sql : statements(script)) {
        s.execute(sql);
      }
    }
  }

  static List<String> statements(String script) {
    StringBuilder code = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.strip().startsWith("--")) {
        code.append(line).append('\n');
      }
    }
    List<String> out = new ArrayList<>();
    for (String part : code.toString().split(";")) {
      String p = part.strip();
      if (!p.isEmpty() && !p.equalsIgnoreCase("COMMIT")) {
        out.add(p);
      }
    }
    return out;
  }

  static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); var rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
