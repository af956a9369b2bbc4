package io.almanac.samples;

import com.typesafe.config.ConfigUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The demo node's cluster options: with {@code --cluster} it runs as one member of a multi-node
 * cluster on a shared PostgreSQL journal (its configuration read with {@code almanac-cluster.conf}
 * and {@code almanac-postgres.conf} in place of {@code almanac-embedded.conf} and {@code
 * almanac-h2.conf}, {@link DemoNode#loadConfig(String, boolean)}) instead of the embedded one-node
 * cluster on H2.
 *
 * <pre>
 * java -jar samples/target/almanac-demo.jar --cluster --port 2552 \
 *     --seed 127.0.0.1:2552 --seed 127.0.0.1:2553 \
 *     --pg-url jdbc:postgresql://127.0.0.1:5432/almanac --pg-user almanac [--pg-schema demo] \
 *     [--host 127.0.0.1] [--data-dir ./data/node-2552]
 * </pre>
 *
 * The password comes from the environment variable {@code ALMANAC_DB_PASSWORD} (never a command
 * line argument: it would show in {@code ps}). Every node must name the same seed nodes, in the
 * same order, and the same database and schema.
 *
 * @param host the address other nodes reach this node at (canonical hostname)
 * @param port this node's cluster port
 * @param seeds seed nodes, {@code host:port}
 * @param pgUrl the PostgreSQL JDBC URL
 * @param pgUser the database user
 * @param pgSchema the schema, if any
 * @param dataDir the demo's data folder (outbox, digests) for this node
 */
record ClusterArgs(String host, int port, List<String> seeds, String pgUrl, String pgUser, Optional<String> pgSchema,
    String dataDir) {

  /** The ActorSystem's name, part of every node address ({@code pekko://almanac@host:port}). */
  static final String SYSTEM_NAME = "almanac";

  /**
   * The cluster options, if {@code --cluster} is among the arguments.
   *
   * @param args the command line
   * @return the options, or empty for the embedded demo
   * @throws IllegalArgumentException for a missing or malformed option (a configuration error)
   */
  static Optional<ClusterArgs> parse(String[] args) {
    if (!List.of(args).contains("--cluster")) {
      return Optional.empty();
    }
    String host = "127.0.0.1";
    Integer port = null;
    List<String> seeds = new ArrayList<>();
    String url = null;
    String user = "almanac";
    String schema = null;
    String dataDir = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--cluster", "--digest-now" -> { }
        case "--host" -> host = value(args, ++i, a);
        case "--port" -> port = port(value(args, ++i, a), a);
        case "--seed" -> {
          for (String s : value(args, ++i, a).split(",")) {
            String seed = s.trim();
            int colon = seed.lastIndexOf(':');
            if (colon <= 0) {
              throw new IllegalArgumentException("--seed must be host:port, not '" + seed + "'");
            }
            port(seed.substring(colon + 1), "--seed");
            seeds.add(seed);
          }
        }
        case "--pg-url" -> url = value(args, ++i, a);
        case "--pg-user" -> user = value(args, ++i, a);
        case "--pg-schema" -> schema = value(args, ++i, a);
        case "--data-dir" -> dataDir = value(args, ++i, a);
        default -> throw new IllegalArgumentException("unknown option '" + a + "' (cluster mode: --cluster --port P "
            + "--seed host:port [--seed ...] --pg-url jdbc:postgresql://... [--pg-user U] [--pg-schema S] [--host H] "
            + "[--data-dir D] [--digest-now])");
      }
    }
    if (port == null) {
      throw new IllegalArgumentException("--cluster needs --port (this node's cluster port, e.g. 2552)");
    }
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("--cluster needs --seed host:port (at least one; list two or more, the same on every node)");
    }
    if (url == null || !url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("--cluster needs --pg-url jdbc:postgresql://host:port/database (a cluster shares one PostgreSQL journal)");
    }
    return Optional.of(new ClusterArgs(host, port, List.copyOf(seeds), url, user, Optional.ofNullable(schema),
        dataDir != null ? dataDir : "./data/node-" + port));
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length || args[i].startsWith("--")) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  private static int port(String s, String option) {
    try {
      int p = Integer.parseInt(s);
      if (p < 1 || p > 65535) {
        throw new NumberFormatException();
      }
      return p;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + ": '" + s + "' is not a port (1-65535)");
    }
  }

  /** The seed nodes' full addresses. */
  List<String> seedAddresses() {
    return seeds.stream().map(s -> "pekko://" + SYSTEM_NAME + "@" + s).toList();
  }

  /**
   * The options as configuration, laid over the node's configuration file (they win over it): the
   * PostgreSQL journal's URL, user and schema, the password from {@code ALMANAC_DB_PASSWORD} when it
   * is set, this node's address and the seed nodes, this node's data folder. The cluster wiring
   * itself (almanac-cluster.conf, almanac-postgres.conf) goes under the file: see {@link
   * DemoNode#loadConfig(String, boolean)}.
   */
  String hocon() {
    StringBuilder b = new StringBuilder();
    b.append("almanac.persistence.postgres {\n");
    b.append("  url = ").append(ConfigUtil.quoteString(pgUrl)).append('\n');
    b.append("  user = ").append(ConfigUtil.quoteString(pgUser)).append('\n');
    b.append("  password = ${?ALMANAC_DB_PASSWORD}\n");
    pgSchema.ifPresent(s -> b.append("  schema = ").append(ConfigUtil.quoteString(s)).append('\n'));
    b.append("}\n");
    b.append("pekko.remote.artery.canonical.hostname = ").append(ConfigUtil.quoteString(host)).append('\n');
    b.append("pekko.remote.artery.canonical.port = ").append(port).append('\n');
    b.append("pekko.cluster.seed-nodes = [")
        .append(String.join(", ", seedAddresses().stream().map(ConfigUtil::quoteString).toList())).append("]\n");
    b.append("almanac-demo.data-dir = ").append(ConfigUtil.quoteString(dataDir)).append('\n');
    return b.toString();
  }
}
