package io.almanac.persistence.lease;

import com.typesafe.config.Config;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The held rows of the lease table ({@code almanac_lease}) as the operators' nodes page shows them:
 * each lease's name (the trigger's, the shards', each executor's {@code <system>-executor-<identity>}),
 * its owner and when it expires unless its holder renews it, by the database's clock. Read on a
 * connection of its own, opened for the read and closed after, within a timeout.
 */
public final class LeaseRows {

  private LeaseRows() {}

  /**
   * One held lease.
   *
   * @param name the lease's name
   * @param owner its holder
   * @param heartbeatAt its latest renewal (database time), or null
   * @param expiresAt when it expires unless renewed (database time), or null
   * @param expired whether the database's time is past {@code expiresAt}
   */
  public record Row(String name, String owner, Instant heartbeatAt, Instant expiresAt, boolean expired) {}

  /**
   * @param config the node's configuration
   * @return whether the node's journal has the JDBC database the lease table is in ({@code
   *     almanac.lease.jdbc.journal-plugin}'s Slick database)
   */
  public static boolean available(Config config) {
    if (!config.hasPath("almanac.lease.jdbc.journal-plugin")) {
      return false;
    }
    String plugin = config.getString("almanac.lease.jdbc.journal-plugin");
    String path = LeaseStores.databasePath(config, plugin);
    return config.hasPath(path) && config.hasPath(path + ".url")
        && config.getString("pekko.persistence.journal.plugin").equals(plugin);
  }

  /**
   * Reads the held rows, by name.
   *
   * @param config the node's configuration ({@link #available} must hold)
   * @param timeout the most the read may take
   * @return the rows; fails when the table cannot be read in time
   */
  public static CompletionStage<List<Row>> read(Config config, Duration timeout) {
    String plugin = config.getString("almanac.lease.jdbc.journal-plugin");
    String path = LeaseStores.databasePath(config, plugin);
    LeaseStore store;
    try {
      store = LeaseStore.open(config.getConfig(path), path, "nodes-page");
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    // Closed from another thread: the read completes on the store's own thread, and close() waits for
    // that thread to end (from the store's thread it would wait out its 5 s and drop the connection's
    // close, leaking a connection on each read).
    return store.run(timeout, LeaseRows::rows)
        .orTimeout(timeout.toMillis() + 1000, java.util.concurrent.TimeUnit.MILLISECONDS)
        .whenCompleteAsync((rows, error) -> store.close(), java.util.concurrent.ForkJoinPool.commonPool());
  }

  private static List<Row> rows(Connection c) throws SQLException {
    List<Row> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT \"name\", \"owner\", \"heartbeat_at\", \"expires_at\", "
        + "CASE WHEN \"expires_at\" < CURRENT_TIMESTAMP THEN 1 ELSE 0 END FROM " + LeaseStore.TABLE
        + " WHERE \"owner\" IS NOT NULL ORDER BY \"name\"");
        ResultSet r = p.executeQuery()) {
      while (r.next()) {
        out.add(new Row(r.getString(1), r.getString(2), instant(r.getObject(3, java.time.OffsetDateTime.class)),
            instant(r.getObject(4, java.time.OffsetDateTime.class)), r.getInt(5) == 1));
      }
    }
    return out;
  }

  private static Instant instant(java.time.OffsetDateTime t) {
    return t == null ? null : t.toInstant();
  }
}
