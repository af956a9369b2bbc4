package io.almanac.persistence.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.persistence.SchemaBootstrap;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The nodes page's read of the lease table (a real H2 file): the held rows by name, each with its expiry; free rows left out. */
class LeaseRowsTest {

  @TempDir Path dir;

  private void insert(Config config, String name, String owner, int expiresInSeconds) throws Exception {
    Config db = config.getConfig(LeaseStores.databasePath(config, "jdbc-journal"));
    try (Connection c = DriverManager.getConnection(db.getString("url"), db.hasPath("user") ? db.getString("user") : "",
        db.hasPath("password") ? db.getString("password") : "");
        PreparedStatement p = c.prepareStatement("INSERT INTO \"almanac_lease\" (\"name\", \"owner\", \"incarnation\", "
            + "\"version\", \"acquired_at\", \"heartbeat_at\", \"expires_at\") VALUES (?, ?, 'i', 1, CURRENT_TIMESTAMP, "
            + "CURRENT_TIMESTAMP, DATEADD('SECOND', " + expiresInSeconds + ", CURRENT_TIMESTAMP))")) {
      p.setString(1, name);
      p.setString(2, owner);
      p.executeUpdate();
    }
  }

  @Test
  @DisplayName("the held leases by name with their expiry by the database's clock; an expired one says so; a free one is "
      + "not listed; a node without a JDBC journal has none to read")
  void heldRowsWithTheirExpiry() throws Exception {
    Config config = ConfigFactory.load(ConfigFactory.parseString("include \"almanac-h2.conf\"\n"
        + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("db").toString()) + "\n"
        + "pekko.remote.artery.canonical { hostname = \"127.0.0.1\", port = 0 }\n"));
    ActorTestKit kit = ActorTestKit.create("lease-rows", config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
      insert(config, "almanac-executor-pekko://almanac@10.0.0.1:2552#1", "almanac@10.0.0.1:2552", 20);
      insert(config, "almanac-trigger-lease", "almanac@10.0.0.2:2552", -5);
      insert(config, "shard-9", null, 20);
      assertTrue(LeaseRows.available(config));
      List<LeaseRows.Row> rows = LeaseRows.read(config, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(List.of("almanac-executor-pekko://almanac@10.0.0.1:2552#1", "almanac-trigger-lease"),
          rows.stream().map(LeaseRows.Row::name).toList());
      LeaseRows.Row executor = rows.get(0);
      assertEquals("almanac@10.0.0.1:2552", executor.owner());
      assertFalse(executor.expired());
      long left = Duration.between(executor.heartbeatAt(), executor.expiresAt()).toSeconds();
      assertEquals(20, left, "expires 20 s after its heartbeat");
      assertTrue(rows.get(1).expired(), rows.get(1).toString());
      assertFalse(LeaseRows.available(ConfigFactory.load()), "the in-memory journal of the defaults has no lease table");
      // The read's answer comes after its connection is closed, and the close does not wait on the
      // store's own thread (that wait was 5 s, after which the connection was dropped unclosed).
      for (int i = 0; i < 3; i++) {
        long start = System.nanoTime();
        LeaseRows.read(config, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMillis < 4_000, "a read and its close took " + tookMillis + " ms (a close waiting on its own thread takes 5 s)");
      }
    } finally {
      kit.shutdownTestKit();
    }
  }
}
