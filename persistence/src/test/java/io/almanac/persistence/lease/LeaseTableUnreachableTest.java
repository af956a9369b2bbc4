package io.almanac.persistence.lease;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.Eventually;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.SingletonActor;
import org.apache.pekko.coordination.lease.LeaseException;
import org.apache.pekko.coordination.lease.LeaseSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A lease table that cannot be reached: the acquire fails naming the table, the database and the
 * cause, and a singleton guarded by the lease (as the trigger is) stays unstarted while Pekko logs
 * the failure at every retry, then starts once the table is there.
 */
@ExtendWith(LogCapturingExtension.class)
class LeaseTableUnreachableTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private ActorTestKit kit;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

  @BeforeEach
  void captureLogs() {
    logs.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
  }

  @AfterEach
  void stop() {
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
    if (kit != null) {
      ActorTestKit.shutdown(kit.system(), WAIT, false);
    }
  }

  /** A one-node cluster on an H2 file whose schema was never created (no SchemaBootstrap). */
  private Config node(String extra) {
    return ConfigFactory.load(ConfigFactory.parseString("include \"almanac-h2.conf\"\n"
        + "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("db").toString()) + "\n"
        + "pekko.actor.provider = cluster\n"
        + "pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }\n"
        + "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on\n"
        + "pekko.loggers = [\"org.apache.pekko.event.slf4j.Slf4jLogger\"]\n"
        + "pekko.logging-filter = \"org.apache.pekko.event.slf4j.Slf4jLoggingFilter\"\n"
        + extra));
  }

  @Test
  void anUnreachableDatabaseFailsTheAcquireNamingTableDatabaseAndCause() throws Exception {
    kit = ActorTestKit.create("lease-down", node(""));
    // A PostgreSQL that is not there: nothing listens on port 1.
    String url = "jdbc:postgresql://127.0.0.1:1/almanac";
    LeaseStore store = LeaseStore.open(ConfigFactory.parseString("url = " + ConfigUtil.quoteString(url) + "\nuser = almanac"),
        "test.db", UUID.randomUUID().toString());
    try {
      Config leaseConfig = ConfigFactory.parseString("lease-operation-timeout = 3s")
          .withFallback(kit.system().settings().config().getConfig("almanac.lease.jdbc"));
      JdbcLease lease = new JdbcLease(LeaseSettings.apply(leaseConfig, "almanac-singleton-trigger", "node-a"),
          (ExtendedActorSystem) kit.system().classicSystem(), store);
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> lease.acquireRow(cause -> {}).get(WAIT.toSeconds(), TimeUnit.SECONDS));
      LeaseException failed = assertInstanceOf(LeaseException.class, e.getCause());
      String m = failed.getMessage();
      assertTrue(m.startsWith("acquire of lease [almanac-singleton-trigger]"), m);
      assertTrue(m.contains("in table almanac_lease of database [" + url + "]"), m);
      assertTrue(m.contains("Connection to 127.0.0.1:1 refused"), "the cause: " + m);
      assertFalse(lease.checkLease());
    } finally {
      store.close();
    }
  }

  @Test
  void aSingletonGuardedByAMissingLeaseTableDoesNotStartAndSaysSoAtEveryRetry() throws Exception {
    kit = ActorTestKit.create("lease-missing", node("""
        pekko.cluster.singleton { use-lease = "almanac.lease.jdbc", lease-retry-interval = 300ms }
        """));
    Cluster cluster = Cluster.get(kit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    AtomicInteger started = new AtomicInteger();
    ClusterSingleton.get(kit.system()).init(SingletonActor.of(Behaviors.setup(ctx -> {
      started.incrementAndGet();
      return Behaviors.empty();
    }), "guarded"));

    // Pekko's singleton manager logs each failed acquire at ERROR, with JdbcLease's exception:
    // the table, the database, the cure.
    Eventually.eventually(WAIT, () -> assertTrue(leaseFailures().size() >= 3, "failures logged: " + leaseFailures()));
    assertTrue(started.get() == 0, "the singleton must not run without its lease");
    String failure = leaseFailures().get(0);
    assertTrue(failure.contains("in table almanac_lease of database [jdbc:h2:"), failure);
    assertTrue(failure.contains("the lease table is missing: SchemaBootstrap.ensureSchema creates it"), failure);

    // Once the table is there, the next retry takes the lease and the singleton starts.
    SchemaBootstrap.ensureSchemaBlocking(kit.system(), WAIT);
    Eventually.eventually(WAIT, () -> assertTrue(started.get() == 1, "started once the table exists"));
  }

  @Test
  void anAlmanacNodeWhoseLeaseTableIsGoneDoesNotRunTheTriggerAndRaisesTriggerStalled() throws Exception {
    kit = ActorTestKit.create("lease-gone", node("""
        pekko.cluster.singleton { use-lease = "almanac.lease.jdbc", lease-retry-interval = 300ms }
        almanac.alerts { watchdog-interval = 200ms, trigger-stall-after = 2s }
        """));
    SchemaBootstrap.ensureSchemaBlocking(kit.system(), WAIT);
    // The journal is there; the lease table is not (dropped, or another schema than the journal's).
    String url = kit.system().settings().config().getString("pekko-persistence-jdbc.shared-databases.slick.db.url");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url, "sa", ""); java.sql.Statement st = c.createStatement()) {
      st.executeUpdate("DROP TABLE \"almanac_lease\"");
    }
    List<io.almanac.Alert> alerts = new java.util.concurrent.CopyOnWriteArrayList<>();
    io.almanac.Almanac almanac = io.almanac.Almanac.builder(kit.system()).alertSink(alerts::add).start();

    // Pekko's singleton manager says at every retry why the trigger does not start, and Almanac's
    // watchdog raises TRIGGER_STALLED: the node does not stop taking the trigger silently.
    Eventually.eventually(WAIT, () -> assertTrue(alerts.stream().anyMatch(a -> a.kind() == io.almanac.Alert.Kind.TRIGGER_STALLED),
        "alerts: " + alerts));
    assertTrue(leaseFailures().size() >= 2, "failures logged: " + leaseFailures());
    assertTrue(leaseFailures().get(0).contains("in table almanac_lease of database [jdbc:h2:"), leaseFailures().get(0));
    assertTrue(leaseFailures().get(0).contains("the lease table is missing"), leaseFailures().get(0));

    // With the table back, the trigger takes its lease, starts and answers: ready, and RECOVERED.
    SchemaBootstrap.ensureSchemaBlocking(kit.system(), WAIT);
    // readiness as the node reports it: ready() ends by itself at almanac.node.registration-timeout
    almanac.ready().toCompletableFuture().get(kit.system().settings().config()
        .getDuration("almanac.node.registration-timeout").plus(WAIT).toSeconds(), TimeUnit.SECONDS);
    Eventually.eventually(WAIT, () -> assertTrue(alerts.stream().anyMatch(a -> a.kind() == io.almanac.Alert.Kind.TRIGGER_RECOVERED),
        "alerts: " + alerts));
  }

  /** Pekko's "failed to get lease (will be retried)" errors, each with its exception's text. */
  private List<String> leaseFailures() {
    return List.copyOf(logs.list).stream()
        .filter(e -> e.getLevel() == Level.ERROR && e.getFormattedMessage().contains("failed to get lease"))
        .map(e -> e.getFormattedMessage() + " " + (e.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(e.getThrowableProxy())))
        .toList();
  }
}
