package io.almanac.config;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which Pekko coordination leases a node's configuration selects (the singleton's, the shard
 * coordinator's, the shards', the split brain resolver's lease-majority), and their timing settings
 * as they stand, for messages that name them.
 */
public final class LeaseSettings {

  private LeaseSettings() {}

  /**
   * @param config the node's configuration
   * @return each configured lease's configuration path, with the key that selects it (first one
   *     wins when several select the same path)
   */
  public static Map<String, String> leasePaths(Config config) {
    Map<String, String> paths = new LinkedHashMap<>();
    for (String key : List.of("pekko.cluster.singleton.use-lease", "pekko.cluster.sharding.coordinator-singleton.use-lease",
        "pekko.cluster.sharding.use-lease")) {
      if (config.hasPath(key) && !config.getString(key).isEmpty()) {
        paths.putIfAbsent(config.getString(key), key);
      }
    }
    String sbr = "pekko.cluster.split-brain-resolver";
    if (config.hasPath("pekko.cluster.downing-provider-class")
        && config.getString("pekko.cluster.downing-provider-class").endsWith("SplitBrainResolverProvider")
        && config.hasPath(sbr + ".active-strategy") && config.getString(sbr + ".active-strategy").equals("lease-majority")
        && config.hasPath(sbr + ".lease-majority.lease-implementation")) {
      String key = sbr + ".lease-majority.lease-implementation";
      paths.putIfAbsent(config.getString(key), key);
    }
    return paths;
  }

  /**
   * A lease's timing settings as they stand, for messages: {@code path.heartbeat-timeout = 8s, ...}.
   *
   * @param config the node's configuration
   * @param path the lease's configuration path (keys it lacks come from pekko.coordination.lease)
   * @return the settings, comma separated
   */
  public static String timing(Config config, String path) {
    List<String> shown = new ArrayList<>();
    for (String key : List.of("heartbeat-timeout", "heartbeat-interval", "safety-margin", "lease-operation-timeout")) {
      String at = config.hasPath(path + "." + key) ? path + "." + key
          : config.hasPath("pekko.coordination.lease." + key) ? "pekko.coordination.lease." + key : null;
      if (at != null) {
        Object v = config.getValue(at).unwrapped();
        shown.add(at + " = " + (v instanceof String str && str.isEmpty() ? "\"\"" : v));
      }
    }
    return String.join(", ", shown);
  }
}
