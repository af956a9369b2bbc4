package io.almanac.persistence.crash;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What the journal database's pool store holds (io.almanac.persistence.pools.JdbcPoolStore's
 * table {@code almanac_pool_hold}), read with plain SQL from the test JVM: per pool, the holds that
 * are live by the database's clock (not expired), as the store counts them when it admits.
 */
final class PoolStoreProbe {

  private PoolStoreProbe() {}

  /** The database's time in epoch milliseconds, as the store reads it. */
  private static final String NOW_MS = "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";

  /**
   * @param run a PostgreSQL run (its options name the database, user and schema)
   * @return per pool, its live holds now (a pool without live holds is absent)
   * @throws SQLException if the database cannot be read
   */
  static Map<String, Integer> inUse(CrashRun run) throws SQLException {
    return count(run, "SELECT pool, COUNT(*) FROM almanac_pool_hold WHERE expires_at > " + NOW_MS + " GROUP BY pool");
  }

  /**
   * @param run a PostgreSQL run
   * @return per pool, its rows, live or expired (expired ones are deleted by the next admission)
   * @throws SQLException if the database cannot be read
   */
  static Map<String, Integer> rows(CrashRun run) throws SQLException {
    return count(run, "SELECT pool, COUNT(*) FROM almanac_pool_hold GROUP BY pool");
  }

  private static Map<String, Integer> count(CrashRun run, String sql) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", run.options.get("pg-user"));
    p.setProperty("password", run.options.getOrDefault("pg-password", ""));
    Map<String, Integer> m = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(run.options.get("pg-url"), p); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        m.put(rs.getString(1), rs.getInt(2));
      }
    }
    return m;
  }
}
