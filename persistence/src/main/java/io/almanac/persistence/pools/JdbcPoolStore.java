package io.almanac.persistence.pools;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import io.almanac.spi.PoolRules;
import io.almanac.spi.PoolStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resource pools' counts in the journal's own database (H2 or PostgreSQL), so that a pool's
 * limits hold across every node that writes the journal. Tables, created at the first {@link
 * #declare} if missing: {@code almanac_pool} (one row per pool: its limits, its pause), {@code
 * almanac_pool_start} (a pool with a rate of N per period: its starts of the last period, at most N
 * normally, for the sliding window of {@link PoolRules#untilStart}), {@code almanac_pool_hold} (one
 * row per admitted attempt and pool: task, window, the node and its incarnation, and when the hold
 * expires), and {@code almanac_pool_usage} (one row per pool and day with usage or a raise: the
 * day's cost, attempts and raises, for the pools' budgets).
 *
 * <ul>
 *   <li>An admission is ONE transaction: it locks the rows of the pools named, in name order
 *       ({@code SELECT ... FOR UPDATE}, so concurrent admissions of a pool take turns and two
 *       deciders never both see room for the last slot), counts the pool's live holds, reads its
 *       N-th latest start, checks the pause, and inserts the holds and the start.
 *   <li>A hold expires {@code hold-ttl} after the last renewal. Each node renews all its holds with
 *       one UPDATE every {@code renew-interval}, not one per attempt; a node killed with kill -9
 *       stops renewing, and its holds stop counting {@code hold-ttl} later: no slot leaks. A node
 *       deletes its holds of an earlier life (same node, other incarnation) when it declares its
 *       pools at start.
 *   <li>Every time is the database's ({@code CURRENT_TIMESTAMP}, as epoch milliseconds): expiry,
 *       starts and pauses are judged by one clock, whatever the nodes' clocks say.
 * </ul>
 *
 * Operations run on one thread of the store's own with one connection (not the journal's pool, not
 * an actor's thread), opened from the journal plugin's database settings. A node frozen past
 * {@code hold-ttl} (a long GC pause) loses its holds to others while its jobs may still run: the
 * pool may then run more than max-concurrent until they end (docs/pools.md).
 */
public final class JdbcPoolStore implements PoolStore {

  private static final Logger log = LoggerFactory.getLogger(JdbcPoolStore.class);

  /** The database's time, in epoch milliseconds (H2 and PostgreSQL). */
  static final String NOW_MS = "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000 AS BIGINT)";
  /** SQLState of a unique key violation, on H2 and PostgreSQL. */
  private static final String UNIQUE_VIOLATION = "23505";

  private static final List<String> SCHEMA = List.of(
      "CREATE TABLE IF NOT EXISTS almanac_pool (name VARCHAR(100) NOT NULL PRIMARY KEY, max_concurrent INT NOT NULL,"
          + " rate_permits INT NOT NULL, rate_per_ms BIGINT NOT NULL, paused_until BIGINT)",
      "CREATE TABLE IF NOT EXISTS almanac_pool_start (pool VARCHAR(100) NOT NULL, started_at BIGINT NOT NULL)",
      "CREATE INDEX IF NOT EXISTS almanac_pool_start_at ON almanac_pool_start (pool, started_at)",
      "CREATE TABLE IF NOT EXISTS almanac_pool_hold (pool VARCHAR(100) NOT NULL, task_id VARCHAR(100) NOT NULL,"
          + " window_key VARCHAR(512) NOT NULL, node VARCHAR(512) NOT NULL, incarnation VARCHAR(64) NOT NULL,"
          + " expires_at BIGINT NOT NULL, PRIMARY KEY (pool, task_id, window_key))",
      "CREATE INDEX IF NOT EXISTS almanac_pool_hold_node ON almanac_pool_hold (node, incarnation)",
      "CREATE TABLE IF NOT EXISTS almanac_pool_usage (pool VARCHAR(100) NOT NULL, usage_day DATE NOT NULL,"
          + " cost_micros BIGINT NOT NULL, attempts BIGINT NOT NULL, raised_micros BIGINT NOT NULL,"
          + " PRIMARY KEY (pool, usage_day))");

  private final String url;
  private final String description;
  private final Properties properties;
  private final String node;
  private final String incarnation;
  private final long ttlMillis;
  private final int queryTimeoutSeconds;
  private final ScheduledExecutorService thread;
  /** Only touched on {@link #thread}. */
  private Connection connection;

  /**
   * @param url the JDBC URL (H2 or PostgreSQL)
   * @param properties user, password and driver properties
   * @param node this node's stable name (its address): its holds are deleted by its next life
   * @param holdTtl how long a hold lives without renewal
   * @param renewInterval how often this node renews its holds
   * @param operationTimeout each statement's query timeout (rounded up to whole seconds) and, on
   *     PostgreSQL, the connect timeout (the socket timeout is twice it)
   */
  public JdbcPoolStore(String url, Properties properties, String node, Duration holdTtl, Duration renewInterval,
      Duration operationTimeout) {
    if (!url.startsWith("jdbc:h2:") && !url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("almanac.pool-store: " + redact(url) + ": the JDBC pool store supports H2 and "
          + "PostgreSQL only");
    }
    this.url = url;
    this.description = redact(url);
    this.properties = properties;
    this.node = node;
    this.incarnation = UUID.randomUUID().toString();
    this.ttlMillis = holdTtl.toMillis();
    this.queryTimeoutSeconds = (int) Math.max(1, (operationTimeout.toMillis() + 999) / 1000);
    ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
      Thread th = new Thread(r, "almanac-pool-store");
      th.setDaemon(true);
      return th;
    });
    t.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.thread = t;
    long every = renewInterval.toMillis();
    thread.scheduleWithFixedDelay(this::renewQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * The store of a node, as {@code almanac.pool-store.class} names it: the database of the journal
   * plugin {@code almanac.persistence.pool-store.journal-plugin} (its url, user, password and
   * properties), this node's address as its name.
   *
   * @param system the node's ActorSystem
   * @param config the {@code almanac.pool-store} block
   * @return the store
   */
  public static JdbcPoolStore create(ActorSystem<?> system, Config config) {
    Config all = system.settings().config();
    String pluginKey = "almanac.persistence.pool-store.journal-plugin";
    String plugin = all.hasPath(pluginKey) ? all.getString(pluginKey) : "jdbc-journal";
    if (!all.hasPath(plugin)) {
      throw new IllegalArgumentException(pluginKey + " = " + plugin + ": no such configuration; it names the "
          + "pekko-persistence-jdbc journal plugin whose database holds the pools' tables");
    }
    String shared = all.hasPath(plugin + ".use-shared-db") ? all.getString(plugin + ".use-shared-db") : "";
    String path = shared.isEmpty() ? plugin + ".slick.db" : "pekko-persistence-jdbc.shared-databases." + shared + ".db";
    if (!all.hasPath(path + ".url")) {
      throw new IllegalArgumentException(pluginKey + " = " + plugin + ": its database " + path + ".url is not configured");
    }
    Config db = all.getConfig(path);
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
    String node = ((ExtendedActorSystem) system.classicSystem()).provider().getDefaultAddress().toString();
    return new JdbcPoolStore(db.getString("url"), props, node, config.getDuration("hold-ttl"),
        config.getDuration("renew-interval"), config.getDuration("operation-timeout"));
  }

  /** @return this store's incarnation (a random UUID per instance) */
  public String incarnation() {
    return incarnation;
  }

  /** An operation on the connection. */
  @FunctionalInterface
  interface Op<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs op on the store's thread; a failure closes the connection (the next operation opens a new
   * one). The stage completes with what the database did: each statement is bounded by its query
   * timeout (operation-timeout), never by a timer of the store's own, so a transaction that commits
   * is answered as committed even after its caller gave up (the executor bounds each stage by
   * operation-timeout and gives back an admission that comes after it).
   */
  <T> CompletableFuture<T> run(Op<T> op) {
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      thread.execute(() -> {
        try {
          result.complete(op.run(connection()));
        } catch (Throwable e) {
          closeConnection();
          result.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new IllegalStateException("the pool store of " + description + " is closed"));
    }
    return result;
  }

  private Connection connection() throws SQLException {
    if (connection == null || connection.isClosed()) {
      Properties props = new Properties();
      props.putAll(properties);
      if (url.startsWith("jdbc:postgresql:")) {
        props.putIfAbsent("connectTimeout", String.valueOf(queryTimeoutSeconds));
        props.putIfAbsent("socketTimeout", String.valueOf(queryTimeoutSeconds * 2));
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

  @Override
  public CompletionStage<Void> declare(List<Limit> pools) {
    return run(c -> {
      try (Statement s = c.createStatement()) {
        s.setQueryTimeout(queryTimeoutSeconds);
        for (String ddl : SCHEMA) {
          s.execute(ddl);
        }
        if (bucketColumnsWithoutDefault(c)) {
          // a table of an earlier version keeps a token bucket in the pool's row: its columns stay, for
          // nodes of that version during a rolling upgrade (dropping them would fail their admissions),
          // with defaults so that this version's rows, which do not fill them, can be inserted
          s.execute("ALTER TABLE almanac_pool ALTER COLUMN tokens SET DEFAULT 0");
          s.execute("ALTER TABLE almanac_pool ALTER COLUMN refilled_at SET DEFAULT 0");
          log.info("pool store {}: almanac_pool's token bucket columns (tokens, refilled_at) of an earlier version are"
              + " no longer used (the rate is a sliding window of the starts in almanac_pool_start); they are kept for"
              + " nodes of that version during a rolling upgrade: drop them once every node runs this one", description);
        }
      }
      for (Limit l : pools) {
        long per = l.hasRate() ? l.ratePer().toMillis() : 0;
        int permits = l.hasRate() ? l.ratePermits() : 0;
        if (update(c, "UPDATE almanac_pool SET max_concurrent = ?, rate_permits = ?, rate_per_ms = ? WHERE name = ?",
            l.maxConcurrent(), permits, per, l.name()) == 0) {
          try {
            update(c, "INSERT INTO almanac_pool (name, max_concurrent, rate_permits, rate_per_ms, paused_until)"
                + " VALUES (?, ?, ?, ?, NULL)", l.name(), l.maxConcurrent(), permits, per);
          } catch (SQLException e) {
            if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
              throw e;
            }
            update(c, "UPDATE almanac_pool SET max_concurrent = ?, rate_permits = ?, rate_per_ms = ? WHERE name = ?",
                l.maxConcurrent(), permits, per, l.name());
          }
        }
      }
      int gone = update(c, "DELETE FROM almanac_pool_hold WHERE node = ? AND incarnation <> ?", node, incarnation);
      if (gone > 0) {
        log.info("pool store {}: deleted {} holds of node {}'s earlier life", description, gone, node);
      }
      return null;
    });
  }

  /**
   * @return whether an almanac_pool table of an earlier version (with a token bucket's columns) is
   *     visible and its columns have no default yet; checked first, so that a table is altered once
   *     (an ALTER locks it)
   */
  private static boolean bucketColumnsWithoutDefault(Connection c) throws SQLException {
    for (String table : new String[] {"almanac_pool", "ALMANAC_POOL"}) { // H2 keeps unquoted names upper case
      try (ResultSet rs = c.getMetaData().getColumns(null, null, table, null)) {
        while (rs.next()) {
          String column = rs.getString("COLUMN_NAME");
          if (("tokens".equalsIgnoreCase(column) || "refilled_at".equalsIgnoreCase(column))
              && rs.getString("COLUMN_DEF") == null) {
            return true;
          }
        }
      }
    }
    return false;
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window) {
    return acquire(pools, taskId, window, Map.of());
  }

  @Override
  public CompletionStage<Answer> acquire(List<String> pools, String taskId, String window, Map<String, Budget> budgets) {
    Map<String, Budget> checked = Map.copyOf(budgets);
    List<String> names = new ArrayList<>(new TreeSet<>(pools)); // locked in name order: no deadlock between admissions
    return run(c -> {
      c.setAutoCommit(false);
      try {
        Answer answer = admit(c, names, taskId, window, checked);
        c.commit();
        return answer;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    });
  }

  /** The admission's transaction (see the class comment). */
  private Answer admit(Connection c, List<String> names, String taskId, String window, Map<String, Budget> budgets)
      throws SQLException {
    record Row(String name, Limit limit, Long pausedUntil, long now) {}
    List<Row> rows = new ArrayList<>();
    for (String name : names) {
      try (PreparedStatement p = c.prepareStatement("SELECT max_concurrent, rate_permits, rate_per_ms, paused_until, "
          + NOW_MS + " FROM almanac_pool WHERE name = ? FOR UPDATE")) {
        p.setQueryTimeout(queryTimeoutSeconds);
        p.setString(1, name);
        try (ResultSet rs = p.executeQuery()) {
          if (!rs.next()) {
            throw new SQLException("pool '" + name + "' is not declared in " + description);
          }
          int permits = rs.getInt(2);
          long per = rs.getLong(3);
          long paused = rs.getLong(4);
          Long pausedUntil = rs.wasNull() ? null : paused;
          rows.add(new Row(name, new Limit(name, rs.getInt(1), permits, per > 0 ? Duration.ofMillis(per) : null),
              pausedUntil, rs.getLong(5)));
        }
      }
    }
    for (Row r : rows) { // the pools' rows are locked: a budget is checked before any room
      Budget b = budgets.get(r.name());
      if (b != null) {
        Answer spent = PoolRules.checkBudget(day(c, r.name(), b.day()), b);
        if (spent != null) {
          return spent;
        }
      }
    }
    for (Row r : rows) {
      Instant now = Instant.ofEpochMilli(r.now());
      int live;
      try (PreparedStatement p = c.prepareStatement("SELECT COUNT(*) FROM almanac_pool_hold WHERE pool = ? AND expires_at > ?"
          + " AND NOT (task_id = ? AND window_key = ?)")) {
        p.setQueryTimeout(queryTimeoutSeconds);
        p.setString(1, r.name());
        p.setLong(2, r.now());
        p.setString(3, taskId);
        p.setString(4, window);
        try (ResultSet rs = p.executeQuery()) {
          rs.next();
          live = rs.getInt(1);
        }
      }
      Instant nthLatest = r.limit().hasRate() ? nthLatestStart(c, r.name(), r.limit(), r.now()) : null;
      Answer refused = PoolRules.check(r.name(), r.limit(), live, nthLatest,
          r.pausedUntil() == null ? null : Instant.ofEpochMilli(r.pausedUntil()), now);
      if (refused != null) {
        return refused; // the transaction commits nothing
      }
    }
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      if (r.limit().hasRate()) { // the start is recorded; starts more than a period ago can refuse nothing: deleted
        update(c, "DELETE FROM almanac_pool_start WHERE pool = ? AND started_at < ?", r.name(),
            r.now() - r.limit().ratePer().toMillis());
        update(c, "INSERT INTO almanac_pool_start (pool, started_at) VALUES (?, ?)", r.name(), r.now());
      }
      update(c, "DELETE FROM almanac_pool_hold WHERE pool = ? AND (expires_at <= ? OR (task_id = ? AND window_key = ?))",
          r.name(), r.now(), taskId, window);
      update(c, "INSERT INTO almanac_pool_hold (pool, task_id, window_key, node, incarnation, expires_at)"
          + " VALUES (?, ?, ?, ?, ?, ?)", r.name(), taskId, window, node, incarnation, r.now() + ttlMillis);
    }
    return Answer.ADMITTED;
  }

  /**
   * @return the pool's N-th latest start within the last period (its rate's N, by the database's
   *     clock), or null when it has fewer: what {@link PoolRules#untilStart} judges
   */
  private Instant nthLatestStart(Connection c, String pool, Limit limit, long now) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT started_at FROM almanac_pool_start WHERE pool = ?"
        + " AND started_at >= ? ORDER BY started_at DESC OFFSET ? ROWS FETCH FIRST 1 ROWS ONLY")) {
      p.setQueryTimeout(queryTimeoutSeconds);
      p.setString(1, pool);
      p.setLong(2, now - limit.ratePer().toMillis());
      p.setInt(3, limit.ratePermits() - 1);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? Instant.ofEpochMilli(rs.getLong(1)) : null;
      }
    }
  }

  @Override
  public CompletionStage<Void> release(String taskId, String window) {
    return run(c -> {
      update(c, "DELETE FROM almanac_pool_hold WHERE task_id = ? AND window_key = ? AND node = ? AND incarnation = ?",
          taskId, window, node, incarnation);
      return null;
    });
  }

  /** The longest pause written: a thousand years, so that the database's now plus it never overflows. */
  static final long MAX_PAUSE_MS = java.time.Duration.ofDays(365_250).toMillis();

  @Override
  public CompletionStage<Void> pause(String pool, Duration pause) {
    // never overflows in SQL, whatever a job's result said: at most a thousand years (LATEST stays far off)
    long ms = Math.min(io.almanac.spi.Saturating.millis(pause), MAX_PAUSE_MS);
    return run(c -> {
      update(c, "UPDATE almanac_pool SET paused_until = " + NOW_MS + " + ? WHERE name = ? AND (paused_until IS NULL"
          + " OR paused_until < " + NOW_MS + " + ?)", ms, pool, ms);
      return null;
    });
  }

  @Override
  public CompletionStage<Map<String, Integer>> inUse() {
    return run(c -> {
      Map<String, Integer> out = new HashMap<>();
      try (PreparedStatement p = c.prepareStatement("SELECT p.name, (SELECT COUNT(*) FROM almanac_pool_hold h"
          + " WHERE h.pool = p.name AND h.expires_at > " + NOW_MS + ") FROM almanac_pool p")) {
        p.setQueryTimeout(queryTimeoutSeconds);
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            out.put(rs.getString(1), rs.getInt(2));
          }
        }
      }
      return out;
    });
  }

  private PoolDay day(Connection c, String pool, java.time.LocalDate day) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT cost_micros, attempts, raised_micros FROM almanac_pool_usage"
        + " WHERE pool = ? AND usage_day = ?")) {
      p.setQueryTimeout(queryTimeoutSeconds);
      p.setString(1, pool);
      p.setObject(2, day);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? new PoolDay(pool, day, rs.getLong(1), rs.getLong(2), rs.getLong(3)) : PoolDay.empty(pool, day);
      }
    }
  }

  /** Adds to the day's row (made if missing; a concurrent insert of the same row is retried as an update). */
  private void addToDay(Connection c, String pool, java.time.LocalDate day, long costMicros, long attempts, long raisedMicros)
      throws SQLException {
    String add = "UPDATE almanac_pool_usage SET cost_micros = cost_micros + ?, attempts = attempts + ?,"
        + " raised_micros = raised_micros + ? WHERE pool = ? AND usage_day = ?";
    if (update(c, add, costMicros, attempts, raisedMicros, pool, day) > 0) {
      return;
    }
    try {
      update(c, "INSERT INTO almanac_pool_usage (pool, usage_day, cost_micros, attempts, raised_micros) VALUES (?, ?, ?, ?, ?)",
          pool, day, costMicros, attempts, raisedMicros);
    } catch (SQLException e) {
      if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
        throw e;
      }
      update(c, add, costMicros, attempts, raisedMicros, pool, day);
    }
  }

  @Override
  public CompletionStage<Void> addUsage(String pool, java.time.LocalDate day, long costMicros) {
    return run(c -> {
      addToDay(c, pool, day, costMicros, 1, 0);
      return null;
    });
  }

  @Override
  public CompletionStage<PoolDay> dayUsage(String pool, java.time.LocalDate day) {
    return run(c -> day(c, pool, day));
  }

  @Override
  public CompletionStage<PoolDay> raiseBudget(String pool, java.time.LocalDate day, long amountMicros) {
    return run(c -> {
      addToDay(c, pool, day, 0, 0, amountMicros);
      return day(c, pool, day);
    });
  }

  /**
   * Extends every hold of this node: one statement, whatever the number of holds.
   *
   * @return completes with the holds renewed
   */
  public CompletionStage<Integer> renew() {
    return run(c -> update(c, "UPDATE almanac_pool_hold SET expires_at = " + NOW_MS + " + ? WHERE node = ? AND incarnation = ?",
        ttlMillis, node, incarnation));
  }

  private void renewQuietly() {
    try {
      renew().whenComplete((n, e) -> {
        if (e != null) {
          log.warn("pool store {}: renewing node {}'s holds failed ({}); they expire {} ms after the last renewal unless "
              + "the next one succeeds", description, node, e.toString(), ttlMillis);
        }
      });
    } catch (RuntimeException e) {
      log.warn("pool store {}: renewal not sent ({})", description, e.toString());
    }
  }

  private int update(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      p.setQueryTimeout(queryTimeoutSeconds);
      for (int i = 0; i < args.length; i++) {
        p.setObject(i + 1, args[i]);
      }
      return p.executeUpdate();
    }
  }

  /** A URL fit for a message: a password parameter's value is hidden. */
  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  /**
   * Stops renewing, runs the operations already asked for (the releases of attempts that ended),
   * then closes the connection and stops the thread. Deletes no hold: a hold left is a job that may
   * still run (its thread did not return), and it expires {@code hold-ttl} after the last renewal.
   */
  @Override
  public void close() {
    try {
      thread.execute(this::closeConnection);
    } catch (RejectedExecutionException ignored) {
      return; // closed already
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
}
