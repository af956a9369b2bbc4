package io.almanac.persistence.lease;

import com.typesafe.config.Config;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.AbstractExtensionId;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Extension;

/**
 * The {@link LeaseStore}s of one ActorSystem, one per database, closed when the system terminates.
 * Its incarnation, a random UUID, is this ActorSystem's: a node restarted with the same address
 * (the same lease owner name) has a new one.
 */
final class LeaseStores implements Extension {

  static final AbstractExtensionId<LeaseStores> ID = new AbstractExtensionId<>() {
    @Override
    public LeaseStores createExtension(ExtendedActorSystem system) {
      return new LeaseStores(system);
    }
  };

  private final ExtendedActorSystem system;
  private final String incarnation = UUID.randomUUID().toString();
  private final ConcurrentHashMap<String, LeaseStore> stores = new ConcurrentHashMap<>();
  private volatile boolean terminated;

  private LeaseStores(ExtendedActorSystem system) {
    this.system = system;
    system.registerOnTermination(this::closeAll);
  }

  static LeaseStores get(ActorSystem system) {
    return ID.get(system);
  }

  String incarnation() {
    return incarnation;
  }

  /**
   * @param leaseConfig a lease's configuration; its {@code journal-plugin} names the journal plugin
   *     whose database holds the lease table
   * @return the store of that database
   */
  LeaseStore storeFor(Config leaseConfig) {
    Config config = system.settings().config();
    String plugin = leaseConfig.getString("journal-plugin");
    if (!config.hasPath(plugin)) {
      throw new IllegalArgumentException("journal-plugin = " + plugin + ": no such configuration; it names the "
          + "pekko-persistence-jdbc journal plugin (normally jdbc-journal) whose database holds the lease table");
    }
    String path = databasePath(config, plugin);
    if (!config.hasPath(path)) {
      throw new IllegalArgumentException("journal-plugin = " + plugin + ": its database " + path + " is not configured");
    }
    if (terminated) {
      throw new IllegalStateException("the ActorSystem " + system.name() + " has terminated");
    }
    return stores.computeIfAbsent(path, p -> LeaseStore.open(config.getConfig(p), p, incarnation));
  }

  /** The Slick {@code db} block of a pekko-persistence-jdbc plugin: its shared database's, or its own. */
  static String databasePath(Config config, String plugin) {
    String shared = config.hasPath(plugin + ".use-shared-db") ? config.getString(plugin + ".use-shared-db") : "";
    return shared.isEmpty() ? plugin + ".slick.db" : "pekko-persistence-jdbc.shared-databases." + shared + ".db";
  }

  private void closeAll() {
    terminated = true;
    stores.values().forEach(LeaseStore::close);
    stores.clear();
  }
}
