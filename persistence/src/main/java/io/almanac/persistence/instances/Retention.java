package io.almanac.persistence.instances;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Runs retention (R30): moves the rows {@link RetentionRule} selects to the history table, one
 * transaction per batch, holding the projection's offset row so that it never interleaves with a
 * batch of the projection. INTERNAL.
 */
final class Retention {

  private Retention() {}

  /**
   * @param c a connection of the journal's database
   * @param store the store
   * @param projection the projection whose offset row fences it
   * @param rule which rows move
   * @param now the current time (from the projection's clock)
   * @param batch rows per transaction
   * @return how many rows moved in all
   */
  static long run(Connection c, InstanceStore store, String projection, RetentionRule rule, Instant now, int batch)
      throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    long total = 0;
    try {
      while (true) {
        store.lockOffset(c, projection, now);
        int moved = store.moveBatch(c, rule, now, batch);
        c.commit();
        total += moved;
        if (moved < batch) {
          return total;
        }
      }
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }
}
