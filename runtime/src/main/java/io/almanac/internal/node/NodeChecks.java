package io.almanac.internal.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigValue;
import io.almanac.InvalidSpecException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.cluster.JoinConfigCompatChecker;
import org.apache.pekko.coordination.lease.scaladsl.LeaseProvider;

/**
 * Checks of a node's cluster configuration that {@code Almanac.start} runs before it starts
 * anything, so that a setting that cannot work fails the start, naming the key and the value,
 * instead of leaving a node that never joins or never takes the trigger.
 */
public final class NodeChecks {

  private NodeChecks() {}

  /**
   * The {@code almanac.*} durations that no settings class reads (the node's own, the alerts', the
   * JDBC lease's and the HTTP module's): each positive and at most {@link
   * io.almanac.config.Settings#MAX_DURATION}, refused at start naming the key and the value, as the
   * settings classes refuse theirs. A key of a module that is not on the class path is skipped.
   */
  public static final List<String> NODE_DURATIONS = List.of("almanac.alerts.summary-interval",
      "almanac.alerts.watchdog-interval", "almanac.alerts.trigger-stall-after", "almanac.node.registration-timeout",
      "almanac.lease.jdbc.heartbeat-timeout", "almanac.lease.jdbc.heartbeat-interval",
      "almanac.lease.jdbc.lease-operation-timeout", "almanac.lease.jdbc.live-holders-join-timeout",
      "almanac.lease.jdbc.safety-margin",
      "almanac.http.history-timeout");

  /**
   * Checks {@link #NODE_DURATIONS}.
   *
   * @param config the node's configuration
   * @throws InvalidSpecException naming the key and the value of one that is not a positive duration of at most
   *     {@link io.almanac.config.Settings#MAX_DURATION}
   */
  public static void durations(Config config) {
    for (String key : NODE_DURATIONS) {
      if (!config.hasPath(key) || "".equals(config.getValue(key).unwrapped())) {
        continue; // a module not on the class path, or "" for its documented default
      }
      java.time.Duration d = io.almanac.config.Settings.durationOf(config, key);
      if (d.isZero()) {
        throw new InvalidSpecException(key, config.getValue(key).unwrapped(), "must be a positive duration");
      }
    }
  }

  /**
   * Every seed node must name this node's ActorSystem: Pekko ignores the welcome of a seed node
   * whose ActorSystem has another name (one warning, "Trying to join member with wrong ActorSystem
   * name, but was ignored"), and the node then waits for ever without joining.
   *
   * @param config the node's configuration
   * @param systemName this node's ActorSystem name
   * @throws InvalidSpecException naming pekko.cluster.seed-nodes, the seed node and both names
   */
  public static void seedNodesNameThisSystem(Config config, String systemName) {
    if (!config.hasPath("pekko.cluster.seed-nodes")) {
      return;
    }
    for (String seed : config.getStringList("pekko.cluster.seed-nodes")) {
      Address address;
      try {
        address = AddressFromURIString.parse(seed);
      } catch (Exception e) { // MalformedURLException, thrown unchecked from Scala
        throw new InvalidSpecException("pekko.cluster.seed-nodes", seed,
            "not a node address \"pekko://<ActorSystem name>@host:port\" (" + e.getMessage() + ")");
      }
      if (!address.system().equals(systemName)) {
        throw new InvalidSpecException("pekko.cluster.seed-nodes", seed, "it names the ActorSystem '" + address.system()
            + "' but this node's ActorSystem is named '" + systemName + "': every node of a cluster must use one "
            + "ActorSystem name and name it in its seed nodes (Pekko ignores a seed node of another name and the node "
            + "never joins)");
      }
    }
  }

  /**
   * Creates each configured lease once, as Pekko will (LeaseProvider, with the lease's own
   * validation of its settings, e.g. JdbcLease's timing), without acquiring it: a lease whose
   * settings cannot work fails the node's start instead of the singleton or shard that first
   * needs it, later, with the trigger never started.
   *
   * @throws InvalidSpecException naming the key that selects the lease, its configuration path and
   *     the lease's own reason (which names its keys and values)
   */
  public static void leasesCanWork(ExtendedActorSystem system, String owner) {
    Config config = system.settings().config();
    for (Map.Entry<String, String> e : io.almanac.config.LeaseSettings.leasePaths(config).entrySet()) {
      String path = e.getKey();
      if (!config.hasPath(path)) {
        throw new InvalidSpecException(e.getValue(), path, "no lease is configured at this path");
      }
      try {
        LeaseProvider.get(system).getLease(system.name() + "-almanac-settings-check", path, owner);
      } catch (Exception error) { // also ClassNotFoundException for a wrong lease-class, thrown unchecked from Scala
        if (error instanceof IllegalArgumentException || error instanceof com.typesafe.config.ConfigException
            || error instanceof ReflectiveOperationException) {
          throw new InvalidSpecException(e.getValue(), path, "the lease's settings are refused: " + error.getMessage()
              + " (" + io.almanac.config.LeaseSettings.timing(config, path) + ")");
        }
        if (system.whenTerminated().isCompleted()) {
          return; // Almanac.start reports the terminated system
        }
        throw new InvalidSpecException(e.getValue(), path, "the lease could not be created: " + error);
      }
    }
  }

  /**
   * This node's values of the settings Pekko's join configuration check compares (the keys of the
   * checkers under pekko.cluster.configuration-compatibility-check.checkers, less the sensitive
   * paths), for the message of a node that the cluster refused.
   */
  public static String comparedSettings(ExtendedActorSystem system) {
    Config config = system.settings().config();
    String base = "pekko.cluster.configuration-compatibility-check";
    Set<String> keys = new LinkedHashSet<>();
    if (config.hasPath(base + ".checkers")) {
      for (Map.Entry<String, ConfigValue> e : config.getConfig(base + ".checkers").root().entrySet()) {
        Object fqcn = e.getValue().unwrapped();
        if (!(fqcn instanceof String name) || name.isEmpty()) {
          continue;
        }
        try {
          Class<?> c = Class.forName(name, true, system.dynamicAccess().classLoader());
          JoinConfigCompatChecker checker = (JoinConfigCompatChecker) c.getDeclaredConstructor().newInstance();
          keys.addAll(scala.jdk.javaapi.CollectionConverters.asJava(checker.requiredKeys()));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError ignored) {
          // Pekko itself reports a checker it cannot load
        }
      }
    }
    List<String> sensitive = new ArrayList<>();
    if (config.hasPath(base + ".sensitive-config-paths")) {
      for (String group : config.getConfig(base + ".sensitive-config-paths").root().keySet()) {
        sensitive.addAll(config.getStringList(base + ".sensitive-config-paths." + quote(group)));
      }
    }
    List<String> shown = new ArrayList<>();
    for (String key : keys) {
      if (sensitive.stream().anyMatch(key::startsWith)) {
        continue;
      }
      shown.add(key + " = " + (config.hasPath(key) ? config.getValue(key).render(
          com.typesafe.config.ConfigRenderOptions.concise()) : "(not set)"));
    }
    // a password given as a URL parameter is not repeated in a log
    return String.join(", ", shown).replaceAll("(?i)(password=)[^&;\"]*", "$1***");
  }

  private static String quote(String key) {
    return com.typesafe.config.ConfigUtil.quoteString(key);
  }
}
