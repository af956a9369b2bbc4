package io.almanac.persistence.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.almanac.persistence.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Two workers that lock a projection's offset before its row exists (the live projection and a
 * rebuild starting together), on PostgreSQL: the second one's FOR UPDATE does not see the first one's
 * uncommitted row, so both insert it, and the second insert waits on the first and then hits the
 * unique key. The loser must lock the winner's row, not fail the rebuild with a duplicate key (seen in
 * InstanceTablePostgresTest on a loaded machine).
 */
class OffsetRaceTest {

  @Test
  @DisplayName("the second worker to insert the offset row locks the first one's instead of failing")
  void loserLocksTheWinnersRow() throws Exception {
    TestPostgres.Server pg = TestPostgres.server();
    String schema = "almanac_race_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection admin = DriverManager.getConnection(pg.url(), pg.user(), pg.password());
        Statement s = admin.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
      s.execute("CREATE TABLE " + schema + "." + InstanceStore.OFFSETS + " (projection_name VARCHAR(255) NOT NULL,"
          + " current_offset BIGINT NOT NULL, updated_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,"
          + " PRIMARY KEY(projection_name))");
    }
    String url = pg.url() + (pg.url().contains("?") ? "&" : "?") + "currentSchema=" + schema;
    InstanceStore store = new InstanceStore("event_journal");
    Instant now = Instant.parse("2026-12-06T10:00:00Z");
    try (Connection first = DriverManager.getConnection(url, pg.user(), pg.password());
        Connection second = DriverManager.getConnection(url, pg.user(), pg.password())) {
      first.setAutoCommit(false);
      second.setAutoCommit(false);
      assertEquals(0, store.lockOffset(first, "almanac-instances", now)); // inserted, not committed yet
      int secondPid = pid(second);
      CompletableFuture<Long> loser = CompletableFuture.supplyAsync(() -> {
        try {
          return store.lockOffset(second, "almanac-instances", now); // its insert waits on the first one's row
        } catch (java.sql.SQLException e) {
          throw new CompletionException(e);
        }
      });
      awaitWaitingOnALock(first, secondPid);
      store.saveOffset(first, "almanac-instances", 42, now);
      first.commit();
      assertEquals(42L, loser.get(30, TimeUnit.SECONDS), "the loser locks and reads the winner's row");
      second.commit();
    } finally {
      try (Connection admin = DriverManager.getConnection(pg.url(), pg.user(), pg.password());
          Statement s = admin.createStatement()) {
        s.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  private static int pid(Connection c) throws Exception {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      int pid = rs.getInt(1);
      c.commit();
      return pid;
    }
  }

  /** Waits (up to 20 s) until the backend waits on a lock (pg_stat_activity), i.e. its insert reached the row. */
  private static void awaitWaitingOnALock(Connection c, int pid) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = " + pid + " AND wait_event_type = 'Lock'")) {
        rs.next();
        if (rs.getInt(1) > 0) {
          return;
        }
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("the second worker never waited on the first one's row");
  }
}
