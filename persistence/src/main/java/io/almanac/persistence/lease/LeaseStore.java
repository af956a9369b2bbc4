package io.almanac.persistence.lease;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The lease table of one database, seen by one node: one JDBC connection, opened on first use and
 * again after a failure, used by one thread of its own, so that lease operations never block an
 * actor dispatcher nor wait for the journal's pool. Every {@link JdbcLease} of an ActorSystem that
 * names the same database shares it (see {@link LeaseStores}); so does the incarnation, a random
 * UUID per store (per ActorSystem), which tells a restarted node from its previous life.
 *
 * <p>Every time in the table is the database's ({@code CURRENT_TIMESTAMP}): a row's expiry is set
 * and judged by one clock, whatever the nodes' clocks say. A node only measures elapsed time on its
 * own monotonic clock ({@link System#nanoTime()}), never compares it with the database's.
 */
final class LeaseStore implements AutoCloseable {

  /** The SQL dialects the store speaks. */
  enum Dialect {
    H2, POSTGRES;

    static Dialect ofUrl(String url, String key) {
      if (url.startsWith("jdbc:h2:")) {
        return H2;
      }
      if (url.startsWith("jdbc:postgresql:")) {
        return POSTGRES;
      }
      throw new IllegalArgumentException(key + " = " + url + ": Almanac's JDBC lease supports H2 and PostgreSQL only");
    }

    /** The database's time plus a number of milliseconds (a validated long, so inlined). */
    String nowPlus(long millis) {
      return this == H2
          ? "DATEADD(MILLISECOND, " + millis + ", CURRENT_TIMESTAMP)"
          : "(CURRENT_TIMESTAMP + INTERVAL '" + millis + " milliseconds')";
    }
  }

  /** The table's name; quoted in every statement, as the bootstrap's H2 script creates it. */
  static final String TABLE = "\"almanac_lease\"";

  /** SQLState of a unique key violation, on H2 and PostgreSQL. */
  private static final String UNIQUE_VIOLATION = "23505";

  /** An operation on the connection. */
  @FunctionalInterface
  interface Op<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * The outcome of an acquire.
   *
   * @param acquired whether the row is now ours
   * @param version the row's fencing version when acquired (it grows at every change of owner)
   * @param startNanos {@link System#nanoTime()} just before the statement was sent: the database
   *     set the expiry from a time no earlier than this
   * @param holder who holds it when not acquired, for messages
   */
  record Acquired(boolean acquired, long version, long startNanos, String holder) {}

  /**
   * The outcome of a heartbeat.
   *
   * @param extended whether our row's expiry was extended; false: the row is no longer ours
   * @param startNanos as in {@link Acquired}
   * @param holder who holds it when not extended, for messages
   */
  record Heartbeat(boolean extended, long startNanos, String holder) {}

  /**
   * A row as it is, for tests and messages.
   *
   * @param owner the owner, or null when free
   * @param incarnation the owner's incarnation, or null when free
   * @param version the fencing version
   * @param expired whether the database's time is past the row's expiry
   */
  record Row(String owner, String incarnation, long version, boolean expired) {}

  private final String url;
  private final String description;
  private final Properties properties;
  private final Dialect dialect;
  private final String incarnation;
  private final ExecutorService thread;
  /** Only touched on {@link #thread}. */
  private Connection connection;

  private LeaseStore(String url, Properties properties, Dialect dialect, String incarnation, String threadName) {
    this.url = url;
    this.description = redact(url);
    this.properties = properties;
    this.dialect = dialect;
    this.incarnation = incarnation;
    this.thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * @param db a Slick {@code db} block: {@code url}, optional {@code user}, {@code password} and
   *     {@code properties}, as almanac-h2.conf and almanac-postgres.conf write them
   * @param path where the block is, for messages
   * @param incarnation this node's incarnation
   */
  static LeaseStore open(Config db, String path, String incarnation) {
    if (!db.hasPath("url")) {
      throw new IllegalArgumentException(path + ".url is missing: Almanac's JDBC lease connects with the url, user, password "
          + "and properties of the journal's Slick database (a dataSourceClass alone is not supported)");
    }
    String url = db.getString("url");
    Properties props = new Properties();
    if (db.hasPath("properties")) {
      for (Map.Entry<String, ConfigValue> e : db.getConfig("properties").entrySet()) {
        props.setProperty(e.getKey(), String.valueOf(e.getValue().unwrapped()));
      }
    }
    if (db.hasPath("user")) {
      props.setProperty("user", db.getString("user"));
    }
    if (db.hasPath("password")) {
      props.setProperty("password", db.getString("password"));
    }
    Dialect dialect = Dialect.ofUrl(url, path + ".url");
    return new LeaseStore(url, props, dialect, incarnation, "almanac-lease-jdbc");
  }

  /** The database, for messages (a password parameter hidden). */
  String database() {
    return description;
  }

  String incarnation() {
    return incarnation;
  }

  /**
   * Runs op on the store's thread with its connection. A failed operation closes the connection;
   * the next one opens a new one.
   *
   * @param timeout bounds each statement (query timeout) and, on PostgreSQL, connecting and
   *     every socket read (network timeout), so the thread is not held for long by a lost server
   */
  <T> CompletableFuture<T> run(Duration timeout, Op<T> op) {
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      thread.execute(() -> {
        try {
          Connection c = connection(timeout);
          try {
            c.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
          } catch (SQLFeatureNotSupportedException | UnsupportedOperationException ignored) {
            // H2 embedded: no socket
          }
          result.complete(op.run(c));
        } catch (Throwable e) {
          closeConnection();
          result.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new IllegalStateException("the lease store of " + description + " is closed"));
    }
    return result;
  }

  private Connection connection(Duration timeout) throws SQLException {
    if (connection == null || connection.isClosed()) {
      Properties props = new Properties();
      props.putAll(properties);
      if (dialect == Dialect.POSTGRES) {
        String seconds = String.valueOf(Math.max(1, (timeout.toMillis() + 999) / 1000));
        props.putIfAbsent("connectTimeout", seconds);
        props.putIfAbsent("loginTimeout", seconds);
      }
      connection = DriverManager.getConnection(url, props);
      connection.setAutoCommit(true);
    }
    return connection;
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException | RuntimeException ignored) {
        // it failed already
      }
      connection = null;
    }
  }

  /**
   * Takes the row when it is free, ours (same owner and incarnation: then only renewed), or
   * expired by the database's clock; inserts it when there is none. One conditional UPDATE, so of
   * concurrent acquirers one matches and the others, once its row lock is released, see its owner
   * and fresh expiry; of concurrent INSERTs the primary key lets one through.
   */
  Acquired acquire(Connection c, String name, String owner, long timeoutMillis, int queryTimeoutSeconds) throws SQLException {
    long start = System.nanoTime();
    String until = dialect.nowPlus(timeoutMillis);
    String mine = "\"owner\" = ? AND \"incarnation\" = ?";
    String update = "UPDATE " + TABLE + " SET"
        + " \"version\" = CASE WHEN " + mine + " THEN \"version\" ELSE \"version\" + 1 END,"
        + " \"acquired_at\" = CASE WHEN " + mine + " THEN \"acquired_at\" ELSE CURRENT_TIMESTAMP END,"
        + " \"owner\" = ?, \"incarnation\" = ?, \"heartbeat_at\" = CURRENT_TIMESTAMP, \"expires_at\" = " + until
        + " WHERE \"name\" = ? AND (\"owner\" IS NULL OR (" + mine + ") OR \"expires_at\" < CURRENT_TIMESTAMP)";
    c.setAutoCommit(false);
    try {
      int updated;
      try (PreparedStatement p = c.prepareStatement(update)) {
        p.setQueryTimeout(queryTimeoutSeconds);
        int i = 1;
        for (int k = 0; k < 3; k++) {
          p.setString(i++, owner);
          p.setString(i++, incarnation);
        }
        p.setString(i++, name);
        p.setString(i++, owner);
        p.setString(i, incarnation);
        updated = p.executeUpdate();
      }
      if (updated == 1) {
        long version = version(c, name, queryTimeoutSeconds);
        c.commit();
        return new Acquired(true, version, start, null);
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      rollback(c, e);
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
    String insert = "INSERT INTO " + TABLE
        + " (\"name\", \"owner\", \"incarnation\", \"version\", \"acquired_at\", \"heartbeat_at\", \"expires_at\")"
        + " VALUES (?, ?, ?, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, " + until + ")"
        + (dialect == Dialect.POSTGRES ? " ON CONFLICT (\"name\") DO NOTHING" : "");
    int inserted;
    try (PreparedStatement p = c.prepareStatement(insert)) {
      p.setQueryTimeout(queryTimeoutSeconds);
      p.setString(1, name);
      p.setString(2, owner);
      p.setString(3, incarnation);
      inserted = p.executeUpdate();
    } catch (SQLException e) {
      if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
        throw e;
      }
      inserted = 0;
    }
    if (inserted == 1) {
      return new Acquired(true, 1, start, null);
    }
    return new Acquired(false, 0, start, holder(c, name, queryTimeoutSeconds));
  }

  /** Extends our row's expiry; false when the row is no longer ours (owner, incarnation and version). */
  Heartbeat heartbeat(Connection c, String name, String owner, long version, long timeoutMillis, int queryTimeoutSeconds)
      throws SQLException {
    long start = System.nanoTime();
    String sql = "UPDATE " + TABLE + " SET \"heartbeat_at\" = CURRENT_TIMESTAMP, \"expires_at\" = " + dialect.nowPlus(timeoutMillis)
        + " WHERE \"name\" = ? AND \"owner\" = ? AND \"incarnation\" = ? AND \"version\" = ?";
    try (PreparedStatement p = c.prepareStatement(sql)) {
      p.setQueryTimeout(queryTimeoutSeconds);
      p.setString(1, name);
      p.setString(2, owner);
      p.setString(3, incarnation);
      p.setLong(4, version);
      if (p.executeUpdate() == 1) {
        return new Heartbeat(true, start, null);
      }
    }
    return new Heartbeat(false, start, holder(c, name, queryTimeoutSeconds));
  }

  /**
   * Frees the row if it is ours (owner and incarnation); never another owner's. The row stays,
   * with its version, so the version keeps growing over the lease's whole life.
   *
   * @return whether our row was freed
   */
  boolean release(Connection c, String name, String owner, int queryTimeoutSeconds) throws SQLException {
    String sql = "UPDATE " + TABLE + " SET \"owner\" = NULL, \"incarnation\" = NULL, \"acquired_at\" = NULL,"
        + " \"heartbeat_at\" = NULL, \"expires_at\" = NULL WHERE \"name\" = ? AND \"owner\" = ? AND \"incarnation\" = ?";
    try (PreparedStatement p = c.prepareStatement(sql)) {
      p.setQueryTimeout(queryTimeoutSeconds);
      p.setString(1, name);
      p.setString(2, owner);
      p.setString(3, incarnation);
      return p.executeUpdate() == 1;
    }
  }

  /** @return the row, or null when there is none */
  Row read(Connection c, String name, int queryTimeoutSeconds) throws SQLException {
    String sql = "SELECT \"owner\", \"incarnation\", \"version\", "
        + "CASE WHEN \"expires_at\" < CURRENT_TIMESTAMP THEN 1 ELSE 0 END FROM " + TABLE + " WHERE \"name\" = ?";
    try (PreparedStatement p = c.prepareStatement(sql)) {
      p.setQueryTimeout(queryTimeoutSeconds);
      p.setString(1, name);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? new Row(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getInt(4) == 1) : null;
      }
    }
  }

  private static long version(Connection c, String name, int queryTimeoutSeconds) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT \"version\" FROM " + TABLE + " WHERE \"name\" = ?")) {
      p.setQueryTimeout(queryTimeoutSeconds);
      p.setString(1, name);
      try (ResultSet rs = p.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("the lease row " + name + " vanished inside the transaction that took it");
        }
        return rs.getLong(1);
      }
    }
  }

  private String holder(Connection c, String name, int queryTimeoutSeconds) throws SQLException {
    Row row = read(c, name, queryTimeoutSeconds);
    if (row == null) {
      return "nobody (no row)";
    }
    if (row.owner() == null) {
      return "nobody (free)";
    }
    return row.owner() + " (incarnation " + row.incarnation() + (incarnation.equals(row.incarnation()) ? ", this node" : "")
        + (row.expired() ? ", expired" : "") + ")";
  }

  private static void rollback(Connection c, Exception e) {
    try {
      c.rollback();
    } catch (SQLException suppressed) {
      e.addSuppressed(suppressed);
    }
  }

  /** A URL fit for a message: a password parameter's value is hidden. */
  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  /** Closes the connection and stops the thread; later operations fail. */
  @Override
  public void close() {
    try {
      thread.execute(this::closeConnection);
    } catch (RejectedExecutionException ignored) {
      // closed already
    }
    thread.shutdown();
    try {
      if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      thread.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Table missing: PostgreSQL's SQLState 42P01; H2's 42S02 (error code 42102), 42S03 (42103: with
   * candidates of another case) and 42S04 (42104: the database has no table at all).
   */
  static boolean tableMissing(Throwable e) {
    if (!(e instanceof SQLException s)) {
      return false;
    }
    String state = s.getSQLState() == null ? "" : s.getSQLState();
    return state.equals("42P01") || state.equals("42S02") || state.equals("42S03") || state.equals("42S04")
        || state.equals("42102") || (s.getErrorCode() >= 42102 && s.getErrorCode() <= 42104);
  }
}
