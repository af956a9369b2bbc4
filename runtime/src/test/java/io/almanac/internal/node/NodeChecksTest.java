package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Almanac;
import io.almanac.InvalidSpecException;
import java.time.Duration;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The cluster settings Almanac.start refuses before it starts anything. */
@ExtendWith(LogCapturingExtension.class)
class NodeChecksTest {

  private static Config seeds(String... seeds) {
    return ConfigFactory.parseString("pekko.cluster.seed-nodes = [" + String.join(", ",
        java.util.Arrays.stream(seeds).map(s -> "\"" + s + "\"").toList()) + "]");
  }

  @Test
  void aSeedNodeOfAnotherActorSystemNameIsRefusedNamingBothNames() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> NodeChecks.seedNodesNameThisSystem(
        seeds("pekko://almanac@10.0.0.11:2552", "pekko://scheduler@10.0.0.12:2552"), "almanac"));
    assertEquals("pekko.cluster.seed-nodes", e.field());
    assertTrue(e.getMessage().startsWith("pekko.cluster.seed-nodes 'pekko://scheduler@10.0.0.12:2552' is invalid"), e.getMessage());
    assertTrue(e.getMessage().contains("names the ActorSystem 'scheduler' but this node's ActorSystem is named 'almanac'"),
        e.getMessage());
  }

  @Test
  void seedNodesOfThisNameOrNoneAreAccepted() {
    NodeChecks.seedNodesNameThisSystem(seeds("pekko://almanac@10.0.0.11:2552", "pekko://almanac@10.0.0.12:2552"), "almanac");
    NodeChecks.seedNodesNameThisSystem(seeds(), "almanac");
    NodeChecks.seedNodesNameThisSystem(ConfigFactory.empty(), "almanac");
  }

  @Test
  void aSeedNodeThatIsNoAddressIsRefused() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> NodeChecks.seedNodesNameThisSystem(seeds("10.0.0.11:2552"), "almanac"));
    assertTrue(e.getMessage().contains("not a node address"), e.getMessage());
  }

  @Test
  void theLeasesInUseAreFoundWhereverPekkoTakesOne() {
    Config config = ConfigFactory.parseString("""
        pekko.cluster.singleton.use-lease = "a"
        pekko.cluster.sharding.coordinator-singleton.use-lease = "a"
        pekko.cluster.sharding.use-lease = "b"
        pekko.cluster.downing-provider-class = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider"
        pekko.cluster.split-brain-resolver.active-strategy = lease-majority
        pekko.cluster.split-brain-resolver.lease-majority.lease-implementation = "c"
        """).withFallback(ConfigFactory.load());
    assertEquals(Map.of("a", "pekko.cluster.singleton.use-lease", "b", "pekko.cluster.sharding.use-lease",
        "c", "pekko.cluster.split-brain-resolver.lease-majority.lease-implementation"), io.almanac.config.LeaseSettings.leasePaths(config));
    // Pekko's defaults take no lease.
    assertEquals(Map.of(), io.almanac.config.LeaseSettings.leasePaths(ConfigFactory.load()));
  }

  @Test
  void comparedSettingsShowThisNodesValuesOfTheCheckersKeysWithoutPasswords() {
    ActorTestKit kit = ActorTestKit.create("compared", ConfigFactory.parseString("""
        pekko.actor.provider = local
        pekko.cluster.configuration-compatibility-check.checkers.test = "io.almanac.internal.node.NodeChecksTest$UrlChecker"
        test.url = "jdbc:postgresql://db/almanac?user=a&password=secret&ssl=true"
        """).withFallback(ConfigFactory.load()));
    try {
      String shown = NodeChecks.comparedSettings((org.apache.pekko.actor.ExtendedActorSystem) kit.system().classicSystem());
      assertTrue(shown.contains("pekko.cluster.downing-provider-class = "), shown);
      assertTrue(shown.contains("test.url = \"jdbc:postgresql://db/almanac?user=a&password=***&ssl=true\""), shown);
      assertTrue(!shown.contains("secret"), shown);
    } finally {
      kit.shutdownTestKit();
    }
  }

  /** A checker that compares test.url. */
  public static final class UrlChecker extends org.apache.pekko.cluster.JoinConfigCompatChecker {
    @Override
    public scala.collection.immutable.Seq<String> requiredKeys() {
      return scala.jdk.javaapi.CollectionConverters.asScala(java.util.List.of("test.url")).toList();
    }

    @Override
    public org.apache.pekko.cluster.ConfigValidation check(Config toCheck, Config actualConfig) {
      return org.apache.pekko.cluster.Valid$.MODULE$;
    }
  }

  @Test
  void almanacStartRefusesASeedNodeOfAnotherName() {
    ActorTestKit kit = ActorTestKit.create("almanac", ConfigFactory.parseString("""
        pekko.actor.provider = cluster
        pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }
        pekko.cluster.jmx.multi-mbeans-in-same-jvm = on
        pekko.cluster.seed-nodes = ["pekko://scheduler@127.0.0.1:1"]
        almanac.node.join-self = off
        """).withFallback(ConfigFactory.load()));
    try {
      InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> Almanac.start(kit.system()));
      assertTrue(e.getMessage().contains("names the ActorSystem 'scheduler' but this node's ActorSystem is named 'almanac'"),
          e.getMessage());
    } finally {
      // a node that never joined takes long to leave its cluster: join itself first
      Cluster cluster = Cluster.get(kit.system());
      cluster.manager().tell(Join.create(cluster.selfMember().address()));
      ActorTestKit.shutdown(kit.system(), Duration.ofSeconds(60), true);
    }
  }
}
