package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Almanac;
import io.almanac.AlmanacException;
import io.almanac.InvalidSpecException;
import io.almanac.persistence.lease.JdbcLease;
import io.almanac.testkit.Eventually;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Bad cluster input, on real nodes (ActorSystems of this JVM on loopback ports) configured with
 * almanac-postgres.conf and almanac-cluster.conf: a node on another journal schema is refused at
 * join, and lease timing that cannot work fails the node's start. Joining touches no database, so
 * the URL need not answer.
 */
@ExtendWith(LogCapturingExtension.class)
class ClusterBadInputTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private final List<ActorTestKit> kits = new ArrayList<>();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

  @BeforeEach
  void captureLogs() {
    logs.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
  }

  @AfterEach
  void stop() {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
    for (ActorTestKit kit : kits) {
      ActorTestKit.shutdown(kit.system(), WAIT, false);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** A cluster node's configuration: the production wiring, this node's port and schema, one seed node. */
  static Config node(int port, int seedPort, String schema, String extra) {
    return ConfigFactory.load(ConfigFactory.parseString(""
        + "include \"almanac-postgres.conf\"\n"
        + "include \"almanac-cluster.conf\"\n"
        + "almanac.persistence.postgres { url = \"jdbc:postgresql://127.0.0.1:5432/test\", user = postgres, schema = "
        + schema + " }\n"
        + "pekko.remote.artery.canonical { hostname = 127.0.0.1, port = " + port + " }\n"
        + "pekko.cluster.seed-nodes = [\"pekko://almanac@127.0.0.1:" + seedPort + "\"]\n"
        // a test JVM must outlive its nodes
        + "pekko.coordinated-shutdown { exit-jvm = off, run-by-jvm-shutdown-hook = off }\n"
        + "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]\n"
        + "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"\n"
        + extra + "\n"));
  }

  private ActorTestKit kit(Config config) {
    ActorTestKit kit = ActorTestKit.create("almanac", config);
    kits.add(kit);
    return kit;
  }

  private List<String> logged(String... parts) {
    List<String> found = new ArrayList<>();
    for (ILoggingEvent e : List.copyOf(logs.list)) {
      String m = e.getFormattedMessage();
      boolean all = true;
      for (String p : parts) {
        all &= m.contains(p);
      }
      if (all) {
        found.add(e.getLevel() + " " + m);
      }
    }
    return found;
  }

  @Test
  void aNodeOnAnotherSchemaIsRefusedAtJoinNamingBothSchemasAndShutsDown() throws Exception {
    int pa = freePort();
    ActorTestKit a = kit(node(pa, pa, "almanac_join_a", ""));
    TestProbe<ClusterEvent.MemberEvent> members = a.createTestProbe();
    Cluster.get(a.system()).subscriptions().tell(Subscribe.create(members.ref(), ClusterEvent.MemberEvent.class));
    Address addressA = Cluster.get(a.system()).selfMember().address();
    members.fishForMessage(WAIT, e -> e instanceof ClusterEvent.MemberUp up && up.member().address().equals(addressA)
        ? FishingOutcomes.complete()
        : FishingOutcomes.continueAndIgnore());

    // B: same database, another schema; started as an Almanac node, as DemoNode does.
    int pb = freePort();
    ActorTestKit b = kit(node(pb, pa, "almanac_join_b", ""));
    Almanac almanacB = Almanac.start(b.system());
    String addressB = "pekko://almanac@127.0.0.1:" + pb;

    // The member names the setting and both values in its warning.
    Eventually.eventually(WAIT, () -> assertFalse(logged("Found incompatible settings when [" + addressB + "] tried to join",
        "the journal's schema", "'almanac_join_b' on the other node, 'almanac_join_a' on this node").isEmpty(),
        "the member's warning; logged: " + logged("incompatible")));
    // The refused node does not hang: Pekko shuts it down, and Almanac says why and fails ready().
    b.system().getWhenTerminated().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    ExecutionException notReady = assertThrows(ExecutionException.class,
        () -> almanacB.ready().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertTrue(notReady.getCause() instanceof AlmanacException, notReady.toString());
    String why = notReady.getCause().getMessage();
    assertTrue(why.contains("was refused by the cluster it asked to join"), why);
    assertTrue(why.contains("almanac_join_b"), "names this node's schema: " + why);
    assertFalse(logged("was refused by the cluster it asked to join", addressB).isEmpty(), "logged as an error too");

    // C: the same journal as A; joins. Up to its MemberUp, A saw no event of B: B never was a member.
    int pc = freePort();
    ActorTestKit c = kit(node(pc, pa, "almanac_join_a", ""));
    Address addressC = Cluster.get(c.system()).selfMember().address();
    List<ClusterEvent.MemberEvent> seen = members.fishForMessage(WAIT, e -> e instanceof ClusterEvent.MemberUp up
        && up.member().address().equals(addressC)
        ? FishingOutcomes.complete()
        : FishingOutcomes.continueAndCollect());
    for (ClusterEvent.MemberEvent e : seen) {
      assertFalse(e.member().address().toString().equals(addressB), "B appeared in A's membership: " + e);
    }
    Eventually.eventually(WAIT, () -> assertTrue(Cluster.get(c.system()).selfMember().status() == MemberStatus.up()));
    assertTrue(Cluster.get(a.system()).state().getMembers().toString().contains(addressC.toString()));
    assertFalse(Cluster.get(a.system()).state().getMembers().toString().contains(addressB));
  }

  @Test
  void aNodeOfAnotherActorSystemNameNeverJoinsAndItsReadyFailsSayingSo() throws Exception {
    int pa = freePort();
    ActorTestKit a = kit(node(pa, pa, "almanac_join_a", ""));
    Eventually.eventually(WAIT, () -> assertTrue(Cluster.get(a.system()).selfMember().status() == MemberStatus.up()));
    // D is named "scheduler" and its seed node names its own name, at A's address: what Pekko does
    // with it, and what Almanac says. (A seed node naming another name than the node's own is
    // refused by Almanac.start: NodeChecksTest.)
    int pd = freePort();
    String seed = "pekko://scheduler@127.0.0.1:" + pa;
    ActorTestKit d = ActorTestKit.create("scheduler", node(pd, pa, "almanac_join_a",
        "pekko.cluster.seed-nodes = [\"" + seed + "\"]\nalmanac.node.registration-timeout = 3s"));
    kits.add(d);
    Almanac almanacD = Almanac.start(d.system());

    // A drops D's handshake, naming both addresses (repeated at every attempt of D's).
    Eventually.eventually(WAIT, () -> assertFalse(logged("Dropping Handshake Request from [pekko://scheduler@127.0.0.1:" + pd,
        "addressed to unknown local address [" + seed + "]", "Local address is [pekko://almanac@127.0.0.1:" + pa + "]").isEmpty()));
    ExecutionException notReady = assertThrows(ExecutionException.class,
        () -> almanacD.ready().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS));
    String why = notReady.getCause().getMessage();
    assertTrue(why.contains("has not joined its cluster: none of the seed nodes [" + seed + "] welcomed it"), why);
    assertTrue(why.contains("ActorSystem is named 'scheduler'"), why);
    assertFalse(Cluster.get(a.system()).state().getMembers().toString().contains("scheduler"));
  }

  @Test
  void leaseTimingThatCannotWorkFailsTheStartNamingTheKeysAndValues() throws Exception {
    String bad = "almanac.lease.jdbc { heartbeat-timeout = 8s, heartbeat-interval = 3s, safety-margin = 5s }";
    // Only the trigger singleton takes the lease (no lease-majority resolver, whose lease Pekko
    // creates with the cluster): without the check at start, the node would start and its trigger
    // singleton fail later, on creating its lease.
    int p = freePort();
    ActorTestKit kit = kit(node(p, p, "almanac_timing", bad + "\n"
        + "pekko.cluster.split-brain-resolver.active-strategy = keep-majority\n"
        + "pekko.cluster.sharding.use-lease = \"\"\n"
        + "pekko.cluster.sharding.coordinator-singleton.use-lease = \"\"\n"));
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> Almanac.start(kit.system()));
    assertTrue(e.getMessage().startsWith("pekko.cluster.singleton.use-lease 'almanac.lease.jdbc' is invalid"), e.getMessage());
    assertTrue(e.getMessage().contains("heartbeat-interval (PT3S) + safety-margin (PT5S) must be less than heartbeat-timeout (PT8S)"),
        e.getMessage());
  }

  @Test
  void withTheFullClusterWiringBadLeaseTimingIsRefusedBeforeTheActorSystemStarts() throws Exception {
    int p = freePort();
    Config config = node(p, p, "almanac_timing", "almanac.lease.jdbc { heartbeat-interval = 3s, safety-margin = 5s }");
    // The check to call before ActorSystem.create (DemoNode does): the key, the rule, the values.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JdbcLease.checkSettings(config));
    assertTrue(e.getMessage().startsWith("almanac.lease.jdbc (the lease of pekko.cluster.singleton.use-lease): "), e.getMessage());
    assertTrue(e.getMessage().contains("heartbeat-interval (PT3S) + safety-margin (PT5S) must be less than heartbeat-timeout (PT8S)"),
        e.getMessage());
    assertTrue(e.getMessage().contains("almanac.lease.jdbc.heartbeat-interval = 3s"), e.getMessage());

    // Without it: almanac-cluster.conf's resolver (lease-majority) creates its lease as the cluster
    // starts, Pekko's cluster daemon crashes ("Cluster Node [...] - crashed, ... root cause message:
    // [...]") and the ActorSystem terminates: depending on the race with its own start,
    // ActorSystem.create fails with an unrelated IllegalStateException, or returns a
    // system that terminates at once, on which Almanac.start fails naming the key and the values.
    ActorSystem<Void> system = null;
    try {
      system = ActorSystem.create(Behaviors.empty(), "almanac", config);
    } catch (IllegalStateException crashedWhileStarting) {
      // "cannot enqueue after timer shutdown", "cannot create children while terminating or
      // terminated": whichever part of the start met the shutdown first
    }
    // The crash is logged through SLF4J once the system's loggers run; a crash before they start goes to
    // Pekko's stdout logger instead (seen on a loaded machine): then the system's end is the evidence.
    ActorSystem<Void> created = system;
    Eventually.eventually(WAIT, () -> assertTrue(!logged("crashed",
        "heartbeat-interval (PT3S) + safety-margin (PT5S) must be less than heartbeat-timeout (PT8S)").isEmpty()
        || created == null || created.getWhenTerminated().toCompletableFuture().isDone(),
        "the cluster did not crash on the lease's timing"));
    if (system != null) {
      ActorSystem<Void> started = system;
      started.getWhenTerminated().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      InvalidSpecException refused = assertThrows(InvalidSpecException.class, () -> Almanac.start(started));
      assertTrue(refused.getMessage().contains("almanac.lease.jdbc.heartbeat-interval = 3s"), refused.getMessage());
    }
  }

  @Test
  void theClusterWiringsOwnLeaseTimingPassesTheCheck() throws Exception {
    JdbcLease.checkSettings(node(freePort(), 2552, "almanac_timing", ""));
  }
}
