package io.almanac.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The database of one run: an H2 file with WRITE_DELAY=0 (the same URL form for every system:
 * H2's interrupt-safe async: file system, as Almanac's almanac-h2.conf uses).
 */
final class Db {
  /** Threads that run jobs, in every system. */
  static final int WORKERS = 8;
  /** JDBC connections per system: workers + 2, Quartz's documented minimum for its pool. */
  static final int POOL = 10;

  final Path path;

  Db(Path path) {
    this.path = path.toAbsolutePath();
  }

  /** @return the file path without .mv.db */
  String h2Path() {
    return path.toString();
  }

  /** @return the JDBC URL of the file; Almanac adds DATABASE_TO_UPPER=false, which its plugin needs */
  String url() {
    return "jdbc:h2:async:" + h2Path() + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE";
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(url(), "sa", "");
  }

  static Connection connect(String url) throws SQLException {
    return DriverManager.getConnection(url, "sa", "");
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
