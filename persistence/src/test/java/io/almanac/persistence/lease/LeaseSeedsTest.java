package io.almanac.persistence.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

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
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seed node finds the running members by their live leases in the journal's database (a real H2
 * file), so that, restarted while they run, it joins them instead of forming a second cluster.
 */
class LeaseSeedsTest {

  @TempDir Path dir;

  private Config config(int port, String... seeds) {
    return ConfigFactory.load(ConfigFactory.parseString("include \"almanac-h2.conf\"\n"
        + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("db").toString()) + "\n"
        + "pekko.remote.artery.canonical { hostname = \"127.0.0.1\", port = " + port + " }\n"
        + "pekko.cluster.seed-nodes = [" + String.join(", ", List.of(seeds).stream().map(ConfigUtil::quoteString).toList())
        + "]\n"));
  }

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
  @DisplayName("cluster: the sole seed node adds the live lease holders of its journal's database to its seed nodes; expired "
      + "rows, its own earlier life and other systems' nodes are left out")
  void soleSeedAddsTheLiveHolders() throws Exception {
    String self = "pekko://almanac@127.0.0.1:2600";
    Config config = config(2600, self);
    ActorTestKit kit = ActorTestKit.create("seeds", config);
    try {
      SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
      insert(config, "almanac-trigger-lease", "almanac@127.0.0.1:2601", 60);
      insert(config, "shard-1", "almanac@127.0.0.1:2602", 60);
      insert(config, "shard-2", "almanac@127.0.0.1:2602", 60);
      insert(config, "shard-3", "almanac@127.0.0.1:2603", -60);
      insert(config, "shard-4", "almanac@127.0.0.1:2600", 60);
      insert(config, "shard-5", "other@127.0.0.1:2604", 60);
      insert(config, "shard-6", null, 60);

      Config joined = LeaseSeeds.withLiveHolders(config, "almanac");
      assertEquals(List.of(self, "pekko://almanac@127.0.0.1:2601", "pekko://almanac@127.0.0.1:2602"),
          joined.getStringList("pekko.cluster.seed-nodes"));
      // and it waits almanac.lease.jdbc.live-holders-join-timeout for them before it would form a cluster of its own
      assertEquals(Duration.ofSeconds(30), joined.getDuration("pekko.cluster.seed-node-timeout"));
      assertEquals(Duration.ofSeconds(45), LeaseSeeds.withLiveHolders(config.withValue("pekko.cluster.seed-node-timeout",
          com.typesafe.config.ConfigValueFactory.fromAnyRef("45s")), "almanac").getDuration("pekko.cluster.seed-node-timeout"),
          "a longer configured timeout is kept");

      Config notASeed = config(2605, self);
      assertSame(notASeed, LeaseSeeds.withLiveHolders(notASeed, "almanac"), "a node that is not a seed node: unchanged");
      Config listed = config(2600, self, "pekko://almanac@127.0.0.1:2601", "pekko://almanac@127.0.0.1:2602");
      assertSame(listed, LeaseSeeds.withLiveHolders(listed, "almanac"), "every holder listed already: unchanged");
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("cluster: a member that holds no shard and no singleton is found all the same, by the presence lease it holds "
      + "while it runs (announce); it is gone from the live holders once its ActorSystem terminated")
  void announcedMemberIsALiveHolder() throws Exception {
    Config config = ConfigFactory.parseString("pekko.actor.provider = cluster\n"
        + "almanac.lease.jdbc { heartbeat-timeout = 8s, heartbeat-interval = 1s }\n").withFallback(config(2610,
        "pekko://member@127.0.0.1:2699"));
    ActorTestKit kit = ActorTestKit.create("member", config);
    boolean stopped = false;
    try {
      SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
      assertEquals(List.of(), LeaseSeeds.liveHolders(config));
      LeaseSeeds.announce(kit.system()); // this node joined no cluster, hosts nothing: only the presence lease
      kit.createTestProbe().awaitAssert(Duration.ofSeconds(30), Duration.ofMillis(100), () -> {
        try {
          assertEquals(List.of("member@127.0.0.1:2610"), LeaseSeeds.liveHolders(config));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        return null;
      });
      kit.shutdownTestKit();
      stopped = true;
      assertEquals(List.of(), LeaseSeeds.liveHolders(config), "released when the ActorSystem terminated");
    } finally {
      if (!stopped) {
        kit.shutdownTestKit();
      }
    }
  }

  @Test
  @DisplayName("cluster: without a lease table (a fresh database) the seed nodes stay as configured")
  void noTable() {
    Config config = config(2600, "pekko://almanac@127.0.0.1:2600");
    assertSame(config, LeaseSeeds.withLiveHolders(config, "almanac"));
  }
}
