package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The demo node's --cluster options and the configuration they lay over application.conf. */
class ClusterArgsTest {

  @Test
  @DisplayName("without --cluster the demo stays the embedded H2 node")
  void noClusterFlag() {
    assertTrue(ClusterArgs.parse(new String[0]).isEmpty());
    assertTrue(ClusterArgs.parse(new String[] {"--digest-now"}).isEmpty());
  }

  @Test
  @DisplayName("--cluster lays the PostgreSQL journal and almanac-cluster.conf over application.conf")
  void clusterConfig() {
    ClusterArgs a = ClusterArgs.parse(new String[] {"--cluster", "--port", "2553", "--seed", "127.0.0.1:2552,127.0.0.1:2553",
        "--pg-url", "jdbc:postgresql://127.0.0.1:5432/test", "--pg-user", "postgres", "--pg-schema", "demo"}).orElseThrow();
    Config c = ConfigFactory.load(ConfigFactory.parseString(a.hocon()).withFallback(ConfigFactory.defaultApplication()));
    assertEquals(List.of("pekko://almanac@127.0.0.1:2552", "pekko://almanac@127.0.0.1:2553"),
        c.getStringList("pekko.cluster.seed-nodes"));
    assertEquals(2553, c.getInt("pekko.remote.artery.canonical.port"));
    assertEquals("org.postgresql.Driver", c.getString("pekko-persistence-jdbc.shared-databases.slick.db.driver"));
    assertEquals("jdbc:postgresql://127.0.0.1:5432/test", c.getString("pekko-persistence-jdbc.shared-databases.slick.db.url"));
    assertEquals("demo", c.getString("pekko-persistence-jdbc.shared-databases.slick.db.properties.currentSchema"));
    assertEquals("lease-majority", c.getString("pekko.cluster.split-brain-resolver.active-strategy"));
    assertEquals("almanac.lease.jdbc", c.getString("pekko.cluster.singleton.use-lease"));
    assertEquals("almanac.lease.jdbc", c.getString("pekko.cluster.sharding.use-lease"));
    // the shard coordinator takes no lease (see almanac-cluster.conf and TaskShardingSettings)
    assertEquals("", c.getString("pekko.cluster.sharding.coordinator-singleton.use-lease"));
    assertEquals(false, c.getBoolean("almanac.node.join-self"));
    assertEquals("./data/node-2553", c.getString("almanac-demo.data-dir"));
    // the daily digest declared in application.conf is still there
    assertTrue(c.hasPath("almanac.tasks.daily-digest.cron"));
  }

  @Test
  @DisplayName("--cluster without a port, a seed or a PostgreSQL URL is a configuration error naming the option")
  void missing() {
    String url = "jdbc:postgresql://h/db";
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterArgs.parse(
        new String[] {"--cluster", "--seed", "h:1", "--pg-url", url})).getMessage().contains("--port"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterArgs.parse(
        new String[] {"--cluster", "--port", "2552", "--pg-url", url})).getMessage().contains("--seed"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterArgs.parse(
        new String[] {"--cluster", "--port", "2552", "--seed", "h:1"})).getMessage().contains("--pg-url"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterArgs.parse(
        new String[] {"--cluster", "--port", "x", "--seed", "h:1", "--pg-url", url})).getMessage().contains("not a port"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterArgs.parse(
        new String[] {"--cluster", "--port", "1", "--seed", "h", "--pg-url", url})).getMessage().contains("host:port"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterArgs.parse(
        new String[] {"--cluster", "--port", "1", "--seed", "h:1", "--pg-url", url, "--bogus"})).getMessage().contains("--bogus"));
  }
}
