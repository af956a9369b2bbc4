package io.almanac.persistence.lease;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValueFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.Done;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.coordination.lease.javadsl.Lease;
import org.apache.pekko.coordination.lease.javadsl.LeaseProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seed nodes from the lease table: a node that is itself a seed node (typically the only one) also
 * contacts the nodes that hold a live lease in its journal's database, so that, restarted while the
 * others still run, it joins their cluster instead of forming a second one on the same journal.
 *
 * <p>Pekko's first seed node joins itself when none of the other seed nodes answers within {@code
 * pekko.cluster.seed-node-timeout}; with a single seed node there is no other to ask, so a
 * restarted sole seed node forms a new cluster, which the JDBC leases then keep from writing beside
 * the running one (it never becomes ready). With {@link #withLiveHolders} the running members, found
 * as the owners of unexpired rows of {@code almanac_lease} (the trigger singleton's, the shards' and
 * the split brain resolver's leases: Pekko names their owner by the node's {@code system@host:port}),
 * are added after the configured seed nodes: the node asks them first and joins the cluster that
 * answers. A holder that is gone does not answer, and the node goes on as before.
 *
 * <p>Call it on the node's configuration before creating its ActorSystem:
 *
 * <pre>{@code
 * Config config = LeaseSeeds.withLiveHolders(ConfigFactory.load(), "almanac");
 * ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "almanac", config);
 * }</pre>
 *
 * It reads the table once, through the journal database's url, user, password and properties (see
 * {@code almanac.lease.jdbc.journal-plugin}); when the table does not exist yet, or the database does
 * not answer within {@code almanac.lease.jdbc.lease-operation-timeout}, the configuration is
 * returned unchanged, with a log line saying why.
 */
public final class LeaseSeeds {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseSeeds.class);

  private LeaseSeeds() {}

  /**
   * The configuration with the live lease holders of the journal's database appended to {@code
   * pekko.cluster.seed-nodes}, when this node (its {@code pekko.remote.artery.canonical} address) is
   * one of the seed nodes; else, or when no other node holds a live lease, the configuration
   * unchanged.
   *
   * @param config the node's configuration (resolved)
   * @param systemName the name its ActorSystem will have (the name in every node address)
   * @return the configuration to create the ActorSystem with
   */
  public static Config withLiveHolders(Config config, String systemName) {
    List<String> seeds = config.getStringList("pekko.cluster.seed-nodes");
    String self = "pekko://" + systemName + "@" + config.getString("pekko.remote.artery.canonical.hostname") + ":"
        + config.getInt("pekko.remote.artery.canonical.port");
    if (!seeds.contains(self)) {
      return config;
    }
    List<String> holders;
    try {
      holders = liveHolders(config);
    } catch (Exception e) {
      LOG.warn("seed nodes: could not read the live lease holders of the journal's database ({}); seed nodes as configured: {}",
          e.toString(), seeds);
      return config;
    }
    Set<String> all = new LinkedHashSet<>(seeds);
    for (String owner : holders) {
      if (owner.startsWith(systemName + "@")) {
        all.add("pekko://" + owner);
      }
    }
    all.remove(self);
    List<String> joined = new ArrayList<>(seeds);
    for (String a : all) {
      if (!joined.contains(a)) {
        joined.add(a);
      }
    }
    if (joined.size() == seeds.size()) {
      return config;
    }
    // The first seed node joins itself when no other seed answers within seed-node-timeout: give the
    // running members (busy taking over what this node held before it restarted) time to answer.
    Duration configured = config.getDuration("pekko.cluster.seed-node-timeout");
    Duration wait = config.hasPath("almanac.lease.jdbc.live-holders-join-timeout")
        ? config.getDuration("almanac.lease.jdbc.live-holders-join-timeout") : Duration.ofSeconds(30);
    if (wait.isZero() || wait.isNegative()) {
      throw new io.almanac.InvalidSpecException("almanac.lease.jdbc.live-holders-join-timeout", wait, "must be > 0");
    }
    Duration timeout = wait.compareTo(configured) > 0 ? wait : configured;
    LOG.info("seed nodes: {} configured, and the nodes holding a live lease in the journal's database: {} (a running cluster is "
        + "joined, not duplicated; this node forms its own only if none of them answers within {})", seeds,
        joined.subList(seeds.size(), joined.size()), timeout);
    return config.withValue("pekko.cluster.seed-nodes", ConfigValueFactory.fromIterable(joined))
        .withValue("pekko.cluster.seed-node-timeout", ConfigValueFactory.fromAnyRef(timeout.toMillis() + "ms"));
  }

  /**
   * Holds a lease of this node's own ({@code <system>-member-<host>:<port>}, owned by {@code
   * <system>@<host>:<port>}) for as long as the ActorSystem runs, so that {@link #withLiveHolders}
   * on a restarted seed node finds every running member, also one that holds no shard and no
   * singleton at that moment (without it, such members were invisible and a restarted sole seed
   * node formed a second cluster). Call it on each node of a cluster once the schema exists
   * (SchemaBootstrap); on a node that is not in a cluster it does nothing. It asks again every
   * heartbeat-interval of {@code almanac.lease.jdbc} while the lease cannot be had or after it was
   * lost (a database outage), and releases it when the ActorSystem terminates.
   *
   * @param system the node's ActorSystem
   */
  public static void announce(ActorSystem<?> system) {
    if (!"cluster".equals(system.settings().config().getString("pekko.actor.provider"))) {
      return;
    }
    Address self = Cluster.get(system).selfMember().address();
    String hostPort = self.host().get() + ":" + self.port().get();
    Presence presence = new Presence(system, system.name() + "-member-" + hostPort, system.name() + "@" + hostPort);
    presence.acquire();
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "almanac-presence-lease",
        presence::release);
  }

  /** A node's presence lease: asked for until held, and again whenever lost, until released. */
  private static final class Presence {
    private final ActorSystem<?> system;
    private final String owner;
    private final Lease lease;
    private final Duration retry;
    private final AtomicBoolean stopped = new AtomicBoolean();

    Presence(ActorSystem<?> system, String name, String owner) {
      this.system = system;
      this.owner = owner;
      this.lease = LeaseProvider.get(system).getLease(name, "almanac.lease.jdbc", owner);
      this.retry = lease.getSettings().timeoutSettings().getHeartbeatInterval();
    }

    void acquire() {
      if (stopped.get()) {
        return;
      }
      lease.acquire(lost -> {
        LOG.info("presence lease of {} lost ({})", owner, lost.map(Throwable::toString).orElse("released"));
        later();
      }).whenComplete((held, error) -> {
        if (error != null || !Boolean.TRUE.equals(held)) {
          LOG.debug("presence lease of {} not had ({})", owner, error != null ? error.toString() : "held by another owner");
          later();
        }
      });
    }

    private void later() {
      if (!stopped.get()) {
        system.scheduler().scheduleOnce(retry, this::acquire, system.executionContext());
      }
    }

    CompletionStage<Done> release() {
      stopped.set(true);
      return lease.release().handle((r, e) -> Done.getInstance());
    }
  }

  /**
   * The owners of the unexpired rows of the lease table, by the database's clock.
   *
   * @param config the node's configuration
   * @return the owners, e.g. {@code almanac@10.0.0.7:2552}, each once
   * @throws Exception when the table cannot be read in time
   */
  static List<String> liveHolders(Config config) throws Exception {
    Config lease = config.getConfig("almanac.lease.jdbc");
    String plugin = lease.getString("journal-plugin");
    String path = LeaseStores.databasePath(config, plugin);
    if (!config.hasPath(path)) {
      throw new IllegalArgumentException("almanac.lease.jdbc.journal-plugin = " + plugin + ": its database " + path
          + " is not configured");
    }
    Duration timeout = config.getDuration("almanac.lease.jdbc.lease-operation-timeout");
    LeaseStore store = LeaseStore.open(config.getConfig(path), path, "seed-lookup");
    try {
      CompletableFuture<List<String>> owners = store.run(timeout, LeaseSeeds::owners);
      return owners.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } finally {
      store.close();
    }
  }

  private static List<String> owners(Connection c) throws SQLException {
    List<String> owners = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT DISTINCT \"owner\" FROM " + LeaseStore.TABLE
        + " WHERE \"owner\" IS NOT NULL AND \"expires_at\" >= CURRENT_TIMESTAMP ORDER BY \"owner\"");
        ResultSet r = p.executeQuery()) {
      while (r.next()) {
        owners.add(r.getString(1));
      }
    }
    return owners;
  }
}
