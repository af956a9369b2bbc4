package io.almanac.persistence;

import static io.almanac.testkit.Eventually.eventually;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.jdbc.db.SlickDatabase;
import org.apache.pekko.persistence.jdbc.db.SlickExtension;
import org.apache.pekko.persistence.jdbc.db.SlickExtensionImpl;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import slick.jdbc.hikaricp.HikariCPJdbcDataSource;

/**
 * The connection arithmetic of almanac-postgres.conf: one pool per node, shared by journal,
 * snapshots and read journal, of almanac.persistence.postgres.pool-size connections, so three
 * nodes hold 3 x pool-size (30 by default) of PostgreSQL's default 100. Fails, never skips, when
 * PostgreSQL is not reachable.
 */
@ExtendWith(LogCapturingExtension.class)
class PostgresPoolTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final String DB = PostgresTestDb.SLICK_DB;

  private static PostgresTestDb db;
  private static String schema;

  @BeforeAll
  static void server() {
    db = PostgresTestDb.require();
    schema = db.newSchema();
  }

  @AfterAll
  static void dropSchemas() throws SQLException {
    if (db != null) {
      db.dropAll();
    }
  }

  @Test
  void includeWiresOnePostgresPoolFromTheAlmanacKeys() {
    Config defaults = ConfigFactory.load(ConfigFactory.parseString("include \"almanac-postgres.conf\""));
    assertEquals("jdbc-journal", defaults.getString("pekko.persistence.journal.plugin"));
    assertEquals("jdbc-snapshot-store", defaults.getString("pekko.persistence.snapshot-store.plugin"));
    for (String plugin : new String[] {"jdbc-journal", "jdbc-snapshot-store", "jdbc-read-journal"}) {
      assertEquals("slick", defaults.getString(plugin + ".use-shared-db"), plugin);
    }
    assertEquals("slick.jdbc.PostgresProfile$", defaults.getString("pekko-persistence-jdbc.shared-databases.slick.profile"));
    assertEquals("org.postgresql.Driver", defaults.getString(DB + ".driver"));
    assertEquals("jdbc:postgresql://127.0.0.1:5432/almanac", defaults.getString(DB + ".url"));
    assertEquals("almanac", defaults.getString(DB + ".user"));
    assertEquals("", defaults.getString(DB + ".password"));
    for (String key : new String[] {"numThreads", "maxConnections", "minConnections"}) {
      assertEquals(10, defaults.getInt(DB + "." + key), key);
    }
    assertFalse(defaults.hasPath(DB + ".properties.currentSchema"), "no schema key: the user's search_path");
    assertEquals("almanac", defaults.getString(DB + ".properties.ApplicationName"));
    assertTrue(defaults.getDuration(DB + ".validationTimeout").compareTo(defaults.getDuration(DB + ".connectionTimeout")) < 0);

    String keys = "almanac.persistence.postgres { url = \"jdbc:postgresql://db:5432/prod\", user = u, password = p, "
        + "pool-size = 7, schema = almanac }";
    Config before = ConfigFactory.load(ConfigFactory.parseString(keys + "\ninclude \"almanac-postgres.conf\""));
    Config after = ConfigFactory.load(ConfigFactory.parseString("include \"almanac-postgres.conf\"\n" + keys));
    for (Config c : List.of(before, after)) {
      assertEquals("jdbc:postgresql://db:5432/prod", c.getString(DB + ".url"));
      assertEquals("u", c.getString(DB + ".user"));
      assertEquals("p", c.getString(DB + ".password"));
      assertEquals("almanac", c.getString(DB + ".properties.currentSchema"));
      for (String key : new String[] {"numThreads", "maxConnections", "minConnections"}) {
        assertEquals(7, c.getInt(DB + "." + key), key);
      }
    }
    assertFalse(PersistenceSettings.from(after).postgres().toString().contains("=p,"), "password hidden");
  }

  private static SlickDatabase database(ActorSystem<?> system, String plugin) {
    return ((SlickExtensionImpl) SlickExtension.get(system)).database(system.settings().config().getConfig(plugin));
  }

  private static HikariDataSource pool(SlickDatabase database) {
    return ((HikariCPJdbcDataSource) database.database().source()).ds();
  }

  @Test
  void effectivePoolIsTheConfiguredSizeAndSharedByTheThreePlugins() throws Exception {
    for (int size : new int[] {10, 3}) {
      String extra = size == 10 ? "" : "almanac.persistence.postgres.pool-size = " + size;
      ActorTestKit kit = ActorTestKit.create("pg-pool-size", PostgresTestDb.config(schema, "almanac-pool-size", extra));
      try {
        SchemaBootstrap.ensureSchemaBlocking(kit.system(), TIMEOUT);
        Config used = kit.system().settings().config();
        assertEquals(size, PersistenceSettings.from(used).postgres().poolSize());
        assertEquals(size, used.getInt(DB + ".maxConnections"));
        SlickDatabase journal = database(kit.system(), "jdbc-journal");
        assertSame(journal, database(kit.system(), "jdbc-snapshot-store"), "snapshot store shares the journal's pool");
        assertSame(journal, database(kit.system(), "jdbc-read-journal"), "read journal shares the journal's pool");
        assertFalse(journal.allowShutdown(), "shared: the plugins do not close it");
        HikariDataSource pool = pool(journal);
        assertEquals(size, pool.getMaximumPoolSize(), "HikariCP's maximumPoolSize");
        assertEquals(size, pool.getMinimumIdle(), "fixed-size pool");
        assertEquals(5_000, pool.getConnectionTimeout());
        assertEquals(2_000, pool.getValidationTimeout());
        assertEquals(schema, pool.getDataSourceProperties().getProperty("currentSchema"));
        // Every connection of the pool really is in the schema, with the test's application name.
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
            java.sql.ResultSet rs = s.executeQuery("SELECT current_schema(), current_setting('application_name')")) {
          rs.next();
          assertEquals(schema, rs.getString(1));
          assertEquals("almanac-pool-size", rs.getString(2), "the url's ApplicationName wins over the conf's");
        }
      } finally {
        kit.shutdownTestKit();
      }
    }
  }

  /** A tiny event-sourced actor, so the journal plugin writes through the pool. */
  record Add(String value, ActorRef<Done> replyTo) {}

  static EventSourcedBehavior<Add, String, Integer> counter(String id) {
    return new EventSourcedBehavior<Add, String, Integer>(PersistenceId.ofUniqueId(id)) {
      @Override
      public Integer emptyState() {
        return 0;
      }

      @Override
      public CommandHandler<Add, String, Integer> commandHandler() {
        return newCommandHandlerBuilder().forAnyState()
            .onCommand(Add.class, (state, add) -> Effect().persist(add.value()).thenReply(add.replyTo(), s -> Done.getInstance()))
            .build();
      }

      @Override
      public EventHandler<Integer, String> eventHandler() {
        return newEventHandlerBuilder().forAnyState().onEvent(String.class, (state, event) -> state + 1).build();
      }
    };
  }

  /**
   * Three nodes' worth at once: three ActorSystems started concurrently on one schema, each
   * bootstrapping, writing events, reading them back through the read journal and putting its pool
   * under more demand than it has connections. pg_stat_activity never shows more than 3 x
   * pool-size connections of theirs, reaches exactly that (the pools are fixed-size), and drops to
   * none when the systems terminate.
   */
  @Test
  void threeNodesHoldAtMostThreeTimesPoolSizeConnections() throws Exception {
    String app = "almanac-pool-" + schema.substring(schema.length() - 6);
    Config config = PostgresTestDb.config(schema, app, "");
    int poolSize = PersistenceSettings.from(config).postgres().poolSize();
    int nodes = 3;
    int limit = nodes * poolSize;
    assertEquals(30, limit, "the documented arithmetic: 3 nodes x 10");

    AtomicInteger peak = new AtomicInteger();
    AtomicBoolean sampling = new AtomicBoolean(true);
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        try {
          peak.accumulateAndGet(PostgresTestDb.connections(app), Math::max);
          Thread.sleep(10); // the sampling period, not a wait: the loop ends when the test clears `sampling`
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "pg-stat-activity-sampler");
    sampler.start();

    ExecutorService threads = Executors.newFixedThreadPool(nodes * 4);
    List<ActorTestKit> kits = new ArrayList<>();
    try {
      List<CompletableFuture<ActorTestKit>> starting = new ArrayList<>();
      for (int n = 0; n < nodes; n++) {
        int node = n;
        starting.add(CompletableFuture.supplyAsync(() -> {
          ActorTestKit kit = ActorTestKit.create("pg-node-" + node, config);
          SchemaBootstrap.ensureSchemaBlocking(kit.system(), TIMEOUT);
          return kit;
        }, threads));
      }
      for (CompletableFuture<ActorTestKit> s : starting) {
        kits.add(s.get(60, TimeUnit.SECONDS));
      }

      List<Future<?>> work = new ArrayList<>();
      for (int n = 0; n < nodes; n++) {
        ActorTestKit kit = kits.get(n);
        String id = "pool-probe-" + n;
        work.add(threads.submit(() -> {
          ActorRef<Add> counter = kit.spawn(counter(id));
          TestProbe<Done> probe = kit.createTestProbe();
          for (int i = 0; i < 50; i++) {
            counter.tell(new Add("event " + i, probe.ref()));
          }
          for (int i = 0; i < 50; i++) {
            probe.expectMessage(TIMEOUT, Done.getInstance());
          }
          JdbcReadJournal readJournal = PersistenceQuery.get(kit.system().classicSystem())
              .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
          long read = readJournal.currentEventsByPersistenceId(id, 0, Long.MAX_VALUE)
              .runWith(Sink.seq(), kit.system()).toCompletableFuture().get(20, TimeUnit.SECONDS).size();
          assertEquals(50, read, "events read back through the read journal");
          return null;
        }));
        // More borrowers than connections: 3 x pool-size sessions that each hold one for 100 ms.
        HikariDataSource pool = pool(database(kit.system(), "jdbc-journal"));
        for (int t = 0; t < 3; t++) {
          work.add(threads.submit(() -> {
            for (int i = 0; i < poolSize; i++) {
              try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("SELECT pg_sleep(0.1)");
              }
            }
            return null;
          }));
        }
      }
      for (Future<?> w : work) {
        w.get(60, TimeUnit.SECONDS);
      }
      eventually(Duration.ofSeconds(10), () -> assertEquals(limit, PostgresTestDb.connections(app), "three full fixed-size pools"));
    } finally {
      for (ActorTestKit kit : kits) {
        kit.shutdownTestKit();
      }
      threads.shutdownNow();
      sampling.set(false);
      sampler.join(5_000);
    }
    System.out.println("PostgresPoolTest: " + nodes + " nodes x pool-size " + poolSize + ": peak " + peak.get()
        + " connections in pg_stat_activity (limit " + limit + ")");
    assertTrue(peak.get() <= limit, "peak " + peak.get() + " connections for " + nodes + " nodes of pool-size " + poolSize);
    assertTrue(peak.get() > 0, "the sampler saw the nodes' connections");
    eventually(Duration.ofSeconds(10), () -> assertEquals(0, PostgresTestDb.connections(app), "terminated nodes close their pools"));
  }
}
