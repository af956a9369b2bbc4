package io.almanac.persistence.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.Eventually;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.coordination.lease.LeaseException;
import org.apache.pekko.coordination.lease.LeaseSettings;
import org.apache.pekko.coordination.lease.LeaseTimeoutException;
import org.apache.pekko.coordination.lease.scaladsl.Lease;
import org.apache.pekko.coordination.lease.scaladsl.LeaseProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import scala.jdk.javaapi.FutureConverters;

/**
 * The lease's contract against a real database: H2 ({@link JdbcLeaseH2Test}) and PostgreSQL
 * ({@link PostgresJdbcLeaseTest}). Each "node" is a {@link LeaseStore} of its own: its own
 * connection, thread and incarnation, as a separate JVM would have. Timeouts are short (1 s) and
 * waits have deadlines.
 */
abstract class LeaseScenarios {

  static final Duration WAIT = Duration.ofSeconds(15);

  /** Short timing: expires 1 s after the last heartbeat, given up locally 200 ms before. */
  static final String SHORT = "heartbeat-timeout = 1s\nheartbeat-interval = 200ms\nsafety-margin = 200ms\n"
      + "lease-operation-timeout = 3s\n";

  ActorTestKit kit;
  private final List<LeaseStore> stores = new ArrayList<>();
  String leaseName;

  /** The test's configuration: almanac-h2.conf or almanac-postgres.conf on a fresh database. */
  abstract Config config();

  @BeforeEach
  void start(TestInfo info) {
    kit = ActorTestKit.create("lease", config());
    SchemaBootstrap.ensureSchemaBlocking(kit.system(), Duration.ofSeconds(30));
    leaseName = "almanac-" + info.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void stop() throws Exception {
    stores.forEach(LeaseStore::close);
    stores.clear();
    if (kit != null) {
      kit.shutdownTestKit();
    }
    cleanUp();
  }

  /** After the test's ActorSystem has terminated. */
  void cleanUp() throws Exception {}

  ExtendedActorSystem system() {
    return (ExtendedActorSystem) kit.system().classicSystem();
  }

  /** A node: a store with its own connection and a new incarnation. */
  LeaseStore node() {
    Config config = kit.system().settings().config();
    String path = LeaseStores.databasePath(config, "jdbc-journal");
    LeaseStore store = LeaseStore.open(config.getConfig(path), path, UUID.randomUUID().toString());
    stores.add(store);
    return store;
  }

  JdbcLease lease(LeaseStore node, String owner) {
    return lease(node, owner, SHORT);
  }

  JdbcLease lease(LeaseStore node, String owner, String timing) {
    Config leaseConfig = ConfigFactory.parseString(timing)
        .withFallback(kit.system().settings().config().getConfig("almanac.lease.jdbc"));
    return new JdbcLease(LeaseSettings.apply(leaseConfig, leaseName, owner), system(), node);
  }

  static boolean acquire(JdbcLease lease) throws Exception {
    return lease.acquireRow(cause -> {}).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  static boolean release(JdbcLease lease) throws Exception {
    return lease.releaseRow().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  LeaseStore.Row row(LeaseStore via) throws Exception {
    return via.run(WAIT, c -> via.read(c, leaseName, 5)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Sets the row's expiry into the past, as if its holder had been frozen for longer than heartbeat-timeout. */
  void expireInDatabase(LeaseStore via) throws Exception {
    via.run(WAIT, c -> {
      String past = c.getMetaData().getURL().startsWith("jdbc:h2:")
          ? "DATEADD(MILLISECOND, -1000, CURRENT_TIMESTAMP)" : "(CURRENT_TIMESTAMP - INTERVAL '1 second')";
      try (var s = c.createStatement()) {
        return s.executeUpdate("UPDATE \"almanac_lease\" SET \"expires_at\" = " + past + " WHERE \"name\" = '" + leaseName + "'");
      }
    }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void onlyOneOfTwoOwnersAcquiresAndTheOtherAfterTheHolderReleases() throws Exception {
    JdbcLease a = lease(node(), "node-a");
    JdbcLease b = lease(node(), "node-b");
    assertFalse(a.checkLease(), "false before any acquire");

    assertTrue(acquire(a));
    assertFalse(acquire(b));
    assertTrue(a.checkLease());
    assertFalse(b.checkLease());
    long first = a.version();

    assertTrue(release(a));
    assertFalse(a.checkLease(), "false from release on");
    LeaseStore.Row free = row(a.store());
    assertNull(free.owner(), "the row is freed");
    assertTrue(acquire(b));
    assertTrue(b.checkLease());
    assertTrue(b.version() > first, "the fencing version grows with every new owner: " + first + " -> " + b.version());
    assertEquals("node-b", row(a.store()).owner());
    assertFalse(acquire(a), "a released it; b holds it now");
  }

  @Test
  void acquireBySameOwnerIsReentrantAndRenews() throws Exception {
    JdbcLease a = lease(node(), "node-a");
    assertTrue(acquire(a));
    long version = a.version();
    assertTrue(acquire(a));
    assertTrue(acquire(a));
    assertEquals(version, a.version(), "renewing does not change the owner's version");
    assertTrue(a.checkLease());
    assertFalse(acquire(lease(node(), "node-b")));
  }

  @Test
  void releaseByANonOwnerLeavesTheRow() throws Exception {
    JdbcLease a = lease(node(), "node-a");
    JdbcLease b = lease(node(), "node-b");
    assertTrue(acquire(a));
    assertFalse(release(b), "b does not hold it: definitely not released");
    LeaseStore.Row row = row(b.store());
    assertEquals("node-a", row.owner());
    assertEquals(a.store().incarnation(), row.incarnation());
    assertTrue(a.checkLease());
    assertFalse(acquire(b));
    // Nor does the same owner name from another incarnation release it.
    assertFalse(release(lease(node(), "node-a")));
    assertEquals("node-a", row(b.store()).owner());
    assertTrue(a.checkLease());
  }

  @Test
  void heartbeatsKeepTheLeaseWellPastHeartbeatTimeout() throws Exception {
    JdbcLease a = lease(node(), "node-a");
    JdbcLease b = lease(node(), "node-b");
    AtomicInteger lost = new AtomicInteger();
    assertTrue(a.acquireRow(cause -> lost.incrementAndGet()).get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    long until = System.nanoTime() + Duration.ofMillis(2500).toNanos();
    while (System.nanoTime() - until < 0) {
      assertTrue(a.checkLease(), "held across heartbeats");
      assertFalse(acquire(b), "the row is extended by heartbeats, so never expired");
      Thread.sleep(100);
    }
    assertEquals(0, lost.get());
  }

  @Test
  void aFrozenHolderLosesItsLeaseAndAnotherOwnerAcquiresAfterExpiry() throws Exception {
    JdbcLease a = lease(node(), "node-a");
    JdbcLease b = lease(node(), "node-b");
    AtomicInteger lost = new AtomicInteger();
    List<Throwable> causes = new CopyOnWriteArrayList<>();
    assertTrue(a.acquireRow(cause -> {
      lost.incrementAndGet();
      causes.add(cause);
    }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    assertFalse(acquire(b));

    a.suspendHeartbeatWrites();
    long frozen = System.nanoTime();
    Eventually.eventually(WAIT, () -> {
      boolean won = acquire(b);
      if (won) {
        // The invariant: once another owner could acquire, the holder's local view has given up.
        assertFalse(a.checkLease(), "b acquired while a still believed it held the lease");
      }
      assertTrue(won, "b acquires once the row expired");
    });
    long tookMillis = (System.nanoTime() - frozen) / 1_000_000;
    // The last heartbeat started at most one interval (200 ms) before the freeze; the row lives 1 s after it.
    assertTrue(tookMillis >= 700, "the row expired no sooner than heartbeat-timeout after the last heartbeat: " + tookMillis + " ms");
    assertTrue(b.checkLease());
    Eventually.eventually(WAIT, () -> assertEquals(1, lost.get(), "the callback ran"));
    assertInstanceOf(LeaseTimeoutException.class, causes.get(0));
    assertTrue(causes.get(0).getMessage().contains(leaseName), causes.get(0).getMessage());
    // Later activity does not call it again.
    assertTrue(acquire(b));
    assertFalse(acquire(a));
    assertFalse(a.checkLease());
    assertEquals(1, lost.get(), "the callback ran exactly once");
  }

  @Test
  void failingHeartbeatsAreRetriedUntilTheLocalDeadlineThenTheLeaseIsLost() throws Exception {
    JdbcLease a = lease(node(), "node-a");
    AtomicInteger lost = new AtomicInteger();
    List<Throwable> causes = new CopyOnWriteArrayList<>();
    assertTrue(a.acquireRow(cause -> {
      lost.incrementAndGet();
      causes.add(cause);
    }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    // Every heartbeat fails from now on, as with the database out of reach.
    renameTable(a.store(), "\"almanac_lease\"", "\"almanac_lease_away\"");
    long broken = System.nanoTime();
    Eventually.eventually(WAIT, () -> assertFalse(a.checkLease()));
    long gaveUpMillis = (System.nanoTime() - broken) / 1_000_000;
    // The last good heartbeat started at most one interval (200 ms) before; the local view lasts
    // 800 ms after it: failed heartbeats in between were tolerated.
    assertTrue(gaveUpMillis >= 450, "the lease was kept through failed heartbeats until its deadline: " + gaveUpMillis + " ms");
    Eventually.eventually(WAIT, () -> assertEquals(1, lost.get()));
    assertInstanceOf(LeaseTimeoutException.class, causes.get(0));
    assertTrue(causes.get(0).getMessage().contains("no heartbeat succeeded"), causes.get(0).getMessage());
    renameTable(a.store(), "\"almanac_lease_away\"", "\"almanac_lease\"");
    // A new acquire succeeds again (the row is still this incarnation's), with a fresh callback.
    assertTrue(acquire(a));
    assertTrue(a.checkLease());
    assertEquals(1, lost.get());
  }

  private static void renameTable(LeaseStore via, String from, String to) throws Exception {
    via.run(WAIT, c -> {
      try (var s = c.createStatement()) {
        return s.executeUpdate("ALTER TABLE " + from + " RENAME TO " + to);
      }
    }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void aRestartedOwnerWaitsForExpiryAndTheStaleIncarnationFindsItsLeaseTaken() throws Exception {
    JdbcLease old = lease(node(), "pekko://almanac@10.0.0.1:7355");
    AtomicInteger lost = new AtomicInteger();
    List<Throwable> causes = new CopyOnWriteArrayList<>();
    assertTrue(old.acquireRow(cause -> {
      lost.incrementAndGet();
      causes.add(cause);
    }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS));

    // The same address after a restart: a new incarnation, so another owner. No silent inheritance.
    JdbcLease restarted = lease(node(), "pekko://almanac@10.0.0.1:7355");
    assertNotEquals(old.store().incarnation(), restarted.store().incarnation());
    assertFalse(acquire(restarted), "the old incarnation's lease has not expired");
    assertTrue(old.checkLease());

    // The old JVM was paused past the expiry (its heartbeats did not reach the database in time),
    // and the restarted one took the row. When the old one's heartbeat runs again, it finds the
    // row taken and loses the lease, however its local deadline stands.
    expireInDatabase(restarted.store());
    assertTrue(acquire(restarted));
    Eventually.eventually(WAIT, () -> assertEquals(1, lost.get()));
    assertFalse(old.checkLease());
    assertInstanceOf(LeaseException.class, causes.get(0));
    assertTrue(causes.get(0).getMessage().contains("taken over"), causes.get(0).getMessage());
    assertTrue(causes.get(0).getMessage().contains(restarted.store().incarnation()), causes.get(0).getMessage());
    assertTrue(restarted.checkLease());
    assertFalse(release(old), "the stale incarnation cannot free the new one's row");
    assertEquals(restarted.store().incarnation(), row(old.store()).incarnation());
    assertEquals(1, lost.get());
  }

  @Test
  void manyConcurrentAcquirersHaveExactlyOneWinner() throws Exception {
    int n = 8;
    List<LeaseStore> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(node());
    }
    String base = leaseName;
    for (int repetition = 0; repetition < 3; repetition++) {
      leaseName = base + "-" + repetition;
      List<JdbcLease> leases = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        leases.add(lease(nodes.get(i), "node-" + i));
      }
      raceThreeTimes(leases);
    }
  }

  private void raceThreeTimes(List<JdbcLease> leases) throws Exception {
    int n = leases.size();
    // Round 1 races on the INSERT of a new row, round 2 on the UPDATE of a freed row, round 3 on
    // the UPDATE of an expired row.
    for (int round = 1; round <= 3; round++) {
      int winner = race(leases);
      JdbcLease won = leases.get(winner);
      assertEquals("node-" + winner, row(won.store()).owner(), "round " + round);
      for (int i = 0; i < n; i++) {
        assertEquals(i == winner, leases.get(i).checkLease(), "round " + round + ", node-" + i);
      }
      if (round == 1) {
        assertTrue(release(won));
      } else if (round == 2) {
        won.suspendHeartbeatWrites();
        expireInDatabase(won.store());
      }
    }
  }

  /** @return the index of the one lease that acquired; fails unless exactly one did */
  private static int race(List<JdbcLease> leases) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Boolean>> results = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (JdbcLease lease : leases) {
      CompletableFuture<Boolean> result = new CompletableFuture<>();
      results.add(result);
      Thread t = new Thread(() -> {
        try {
          go.await();
          result.complete(acquire(lease));
        } catch (Throwable e) {
          result.completeExceptionally(e);
        }
      });
      t.start();
      threads.add(t);
    }
    go.countDown();
    int winner = -1;
    int winners = 0;
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i).get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        winners++;
        winner = i;
      }
    }
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(1, winners, "exactly one of " + leases.size() + " concurrent acquirers wins");
    return winner;
  }

  @Test
  void pekkosLeaseProviderLoadsItFromTheReferenceConfiguration() throws Exception {
    Lease lease = LeaseProvider.get(system()).getLease(leaseName, "almanac.lease.jdbc", "pekko://lease@127.0.0.1:2552");
    JdbcLease jdbc = assertInstanceOf(JdbcLease.class, lease);
    assertEquals(leaseName, lease.settings().leaseName());
    assertEquals(Duration.ofSeconds(120), lease.settings().timeoutSettings().getHeartbeatTimeout());
    assertEquals(LeaseStores.get(system()).incarnation(), jdbc.store().incarnation());

    AtomicInteger lost = new AtomicInteger();
    assertEquals(Boolean.TRUE, FutureConverters.asJava(lease.acquire(cause -> {
      lost.incrementAndGet();
      return scala.runtime.BoxedUnit.UNIT;
    })).toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    assertTrue(lease.checkLease());
    assertFalse(acquire(lease(node(), "pekko://lease@127.0.0.1:2553")));

    // The Java API of the provider wraps the same lease.
    org.apache.pekko.coordination.lease.javadsl.Lease javaLease = org.apache.pekko.coordination.lease.javadsl.LeaseProvider
        .get(system()).getLease(leaseName, "almanac.lease.jdbc", "pekko://lease@127.0.0.1:2552");
    assertTrue(javaLease.checkLease());
    assertTrue(javaLease.acquire().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS), "re-entrant");

    assertEquals(Boolean.TRUE, FutureConverters.asJava(lease.release()).toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    assertFalse(lease.checkLease());
    assertNull(row(node()).owner());
    assertEquals(0, lost.get(), "a release is no loss");
  }

  @Test
  void aMissingTableFailsTheAcquireNamingLeaseDatabaseAndCure() throws Exception {
    LeaseStore node = node();
    node.run(WAIT, c -> {
      try (var s = c.createStatement()) {
        return s.executeUpdate("DROP TABLE \"almanac_lease\"");
      }
    }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    JdbcLease a = lease(node, "node-a");
    Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
        () -> a.acquireRow(cause -> {}).get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    LeaseException cause = assertInstanceOf(LeaseException.class, e.getCause());
    assertTrue(cause.getMessage().contains("lease [" + leaseName + "]"), cause.getMessage());
    assertTrue(cause.getMessage().contains(node.database()), cause.getMessage());
    assertTrue(cause.getMessage().contains("SchemaBootstrap.ensureSchema"), cause.getMessage());
    assertNotNull(cause.getCause());
    assertFalse(a.checkLease());
  }
}
