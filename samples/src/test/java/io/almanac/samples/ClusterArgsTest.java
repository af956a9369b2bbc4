package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import io.almanac.persistence.lease.JdbcLease;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo node's --cluster options, and a cluster member's configuration: the operator's file over the shipped defaults. */
class ClusterArgsTest {

  @Test
  @DisplayName("without --cluster the demo stays the embedded H2 node")
  void noClusterFlag() {
    assertTrue(ClusterArgs.parse(new String[0]).isEmpty());
    assertTrue(ClusterArgs.parse(new String[] {"--digest-now"}).isEmpty());
  }

  @TempDir Path dir;

  private static ClusterArgs node2553() {
    return ClusterArgs.parse(new String[] {"--cluster", "--port", "2553", "--seed", "127.0.0.1:2552,127.0.0.1:2553",
        "--pg-url", "jdbc:postgresql://127.0.0.1:5432/test", "--pg-user", "postgres", "--pg-schema", "demo"}).orElseThrow();
  }

  /** A cluster member's configuration from a file of the operator's, as the demo loads it. */
  private Config clusterNode(String file) throws IOException {
    Path conf = dir.resolve("node.conf");
    Files.writeString(conf, file);
    return DemoNode.loadConfigFile(conf.toFile(), node2553().hocon(), true).config();
  }

  @Test
  @DisplayName("--cluster reads application.conf with almanac-cluster.conf and almanac-postgres.conf in place of the "
      + "embedded includes, the --cluster options over it")
  void clusterConfig() throws IOException {
    Config c = clusterNode("include classpath(\"application.conf\")\n");
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
  @DisplayName("a failover setting in the operator's file wins over almanac-cluster.conf's default; the --cluster "
      + "options win over the file; almanac-cluster.conf fills in what the file does not set")
  void theFileWinsOverTheShippedClusterDefaults() throws IOException {
    Config shipped = clusterNode("include classpath(\"application.conf\")\n");
    assertEquals(Duration.ofSeconds(2), shipped.getDuration("almanac.lease.jdbc.safety-margin"));
    assertEquals(Duration.ofSeconds(5), shipped.getDuration("pekko.cluster.split-brain-resolver.stable-after"));

    Config c = clusterNode("include classpath(\"application.conf\")\n"
        + "almanac.lease.jdbc { heartbeat-timeout = 6s, safety-margin = 1500ms }\n"
        + "pekko.cluster.failure-detector.acceptable-heartbeat-pause = 1500ms\n"
        + "pekko.cluster.split-brain-resolver.stable-after = 3s\n"
        + "pekko.remote.artery.canonical.port = 9999\n"
        + "almanac.persistence.postgres.password = from-the-file\n");
    assertEquals(Duration.ofMillis(1500), c.getDuration("almanac.lease.jdbc.safety-margin"), "the file's value");
    assertEquals(Duration.ofSeconds(6), c.getDuration("almanac.lease.jdbc.heartbeat-timeout"), "the file's value");
    assertEquals(Duration.ofMillis(1500), c.getDuration("pekko.cluster.failure-detector.acceptable-heartbeat-pause"));
    assertEquals(Duration.ofSeconds(3), c.getDuration("pekko.cluster.split-brain-resolver.stable-after"));
    assertEquals(Duration.ofSeconds(2), c.getDuration("almanac.lease.jdbc.heartbeat-interval"), "almanac-cluster.conf's");
    assertEquals("lease-majority", c.getString("pekko.cluster.split-brain-resolver.active-strategy"), "almanac-cluster.conf's");
    assertEquals(2553, c.getInt("pekko.remote.artery.canonical.port"), "--port wins over the file");
    if (System.getenv("ALMANAC_DB_PASSWORD") == null) {
      assertEquals("from-the-file", c.getString("almanac.persistence.postgres.password"));
    }
    JdbcLease.checkSettings(c); // a timing that works

    // an invalid value in the file is refused, naming the key and the value (the demo exits 2)
    Config bad = clusterNode("include classpath(\"application.conf\")\nalmanac.lease.jdbc.safety-margin = 7s\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JdbcLease.checkSettings(bad));
    assertTrue(e.getMessage().contains("safety-margin (PT7S)"), e.getMessage());
  }

  @Test
  @DisplayName("the README's lower-latency failover profile, in a file over application.conf, is applied and is a "
      + "timing that works: accepted at start, and the trigger's lease runs out before the survivors down its host")
  void readmeFailoverProfile() throws Exception {
    String readme = Files.readString(ReadmeSqlTest.README);
    int at = readme.indexOf("#### A faster failover");
    assertTrue(at >= 0, "README.md has a section '#### A faster failover'");
    String section = readme.substring(at, readme.indexOf("\n#", at + 1));
    List<String> blocks = ReadmeSqlTest.blocks(section, "hocon");
    assertEquals(1, blocks.size(), section);
    Config c = clusterNode("include classpath(\"application.conf\")\n" + blocks.get(0));
    Config shipped = clusterNode("include classpath(\"application.conf\")\n");
    for (String key : List.of("pekko.cluster.failure-detector.acceptable-heartbeat-pause",
        "pekko.cluster.split-brain-resolver.stable-after", "almanac.lease.jdbc.heartbeat-timeout",
        "almanac.lease.jdbc.safety-margin")) {
      assertTrue(c.getDuration(key).compareTo(shipped.getDuration(key)) < 0, key + " is lowered: " + c.getDuration(key));
      assertTrue(section.contains("default " + shipped.getString(key)), "the README names " + key + "'s default");
    }
    JdbcLease.checkSettings(c);
    // almanac-cluster.conf's rule for heartbeat-timeout: shorter than the survivors take to down a crashed node
    Duration downing = c.getDuration("pekko.cluster.failure-detector.heartbeat-interval")
        .plus(c.getDuration("pekko.cluster.failure-detector.acceptable-heartbeat-pause"))
        .plus(c.getDuration("pekko.cluster.split-brain-resolver.stable-after"))
        .plus(c.getDuration("pekko.cluster.down-removal-margin"));
    assertTrue(c.getDuration("almanac.lease.jdbc.heartbeat-timeout").compareTo(downing) < 0, "lease "
        + c.getDuration("almanac.lease.jdbc.heartbeat-timeout") + " vs downing " + downing);
    assertTrue(c.getDuration("almanac.lease.jdbc.lease-operation-timeout").compareTo(
        c.getDuration("almanac.lease.jdbc.heartbeat-interval").plus(c.getDuration("almanac.lease.jdbc.safety-margin"))) < 0);
  }

  @Test
  @DisplayName("a file that includes almanac-h2.conf and almanac-embedded.conf itself, not application.conf, gets the "
      + "cluster's files in their place; one that includes neither gets them under it")
  void includesAreSwappedWhereverTheyAre() throws IOException {
    Config own = clusterNode("include \"almanac-embedded.conf\"\ninclude classpath(\"almanac-h2.conf\")\n"
        + "almanac-demo { data-dir = x, table-interval = 5s }\n");
    assertEquals("lease-majority", own.getString("pekko.cluster.split-brain-resolver.active-strategy"));
    assertEquals("org.postgresql.Driver", own.getString("pekko-persistence-jdbc.shared-databases.slick.db.driver"));
    Config none = clusterNode("pekko.actor.provider = cluster\nalmanac-demo { data-dir = x, table-interval = 5s }\n");
    assertEquals("lease-majority", none.getString("pekko.cluster.split-brain-resolver.active-strategy"));
    assertEquals("org.postgresql.Driver", none.getString("pekko-persistence-jdbc.shared-databases.slick.db.driver"));
    // without --cluster the same file stays an embedded node on H2
    Path conf = dir.resolve("embedded.conf");
    Files.writeString(conf, "include classpath(\"application.conf\")\n");
    Config embedded = DemoNode.loadConfigFile(conf.toFile(), null, false).config();
    assertEquals("keep-majority", embedded.getString("pekko.cluster.split-brain-resolver.active-strategy"));
    assertEquals("org.h2.Driver", embedded.getString("pekko-persistence-jdbc.shared-databases.slick.db.driver"));
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
