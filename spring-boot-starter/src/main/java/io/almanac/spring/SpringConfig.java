package io.almanac.spring;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginLookup;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The node's Typesafe configuration from Spring's environment: every Spring property under {@value
 * #ALMANAC}, {@code pekko.} and pekko-persistence-jdbc's roots becomes the Typesafe key of the same
 * path (so each key keeps its one meaning, documented in docs/configuration.md), over the starter's
 * layer ({@code almanac-embedded.conf}, the journal's include, {@link #STARTER_DEFAULTS}) and every
 * library's reference.conf.
 *
 * <p>Spring's precedence holds (the first property source that has a key wins). Keys are taken as
 * written ({@code almanac.executor.max-concurrent}); a camel-case segment ({@code maxConcurrent}) is
 * written in kebab case when that makes a key of a reference.conf; an environment variable ({@code
 * ALMANAC_EXECUTOR_MAXCONCURRENT}) is taken when it names a key of a reference.conf by Spring's rule
 * (dots to underscores, dashes removed, upper case). Indexed properties ({@code delays[0]}) become
 * lists; a bracketed name that is not an index ({@code serialization-bindings[io.x.Event]}) is one
 * key. {@value #STARTER} keys are the starter's own and are not passed on.
 */
final class SpringConfig {

  static final String ALMANAC = "almanac";
  /** The starter's own keys (not Typesafe keys): see docs/spring-boot.md. */
  static final String STARTER = "almanac.spring";

  /** The roots passed to the node's configuration. */
  static final List<String> ROOTS = List.of(ALMANAC, "pekko", "pekko-persistence-jdbc", "jdbc-journal",
      "jdbc-snapshot-store", "jdbc-read-journal");

  /**
   * What the starter sets under the user's keys: Spring's own JVM shutdown hook closes the context,
   * whose lifecycle runs the node's coordinated shutdown after the web server's graceful shutdown
   * (Pekko's hook would start it at once, beside Spring's); Spring Boot binds the JVM meters.
   */
  static final String STARTER_DEFAULTS = String.join("\n",
      "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off",
      "almanac.metrics.jvm = off");

  /** The journal the node writes to. */
  enum Database {
    H2("almanac-h2.conf"),
    POSTGRES("almanac-postgres.conf");

    final String include;

    Database(String include) {
      this.include = include;
    }
  }

  /**
   * The mapped configuration.
   *
   * @param config the node's configuration, resolved
   * @param database the journal chosen
   * @param origins for each Typesafe key taken from Spring: the Spring property and where it was set
   */
  record Mapped(Config config, Database database, Map<String, String> origins) {

    /**
     * @param key a Typesafe key
     * @return the Spring property it came from and where that was set, or null
     */
    String origin(String key) {
      return origins.get(key);
    }
  }

  private SpringConfig() {}

  /**
   * @param env Spring's environment
   * @return the node's configuration
   * @throws AlmanacPropertyException naming the property when the configuration does not resolve
   */
  static Mapped from(ConfigurableEnvironment env) {
    Config reference = ConfigFactory.defaultReference().withFallback(ConfigFactory.parseString(
        "include \"almanac-embedded.conf\"\ninclude \"almanac-h2.conf\"\ninclude \"almanac-postgres.conf\"\n"
            + STARTER_DEFAULTS));
    Map<String, String> known = new HashMap<>(); // a known key in Spring's environment-variable form -> the key
    Set<String> knownKeys = new java.util.HashSet<>();
    for (Map.Entry<String, ConfigValue> e : reference.entrySet()) {
      String key = e.getKey();
      if (ROOTS.stream().anyMatch(r -> key.startsWith(r + "."))) {
        knownKeys.add(key);
        known.putIfAbsent(envForm(key), key);
      }
    }

    Map<List<String>, Leaf> leaves = new LinkedHashMap<>();
    for (PropertySource<?> source : env.getPropertySources()) {
      if (!(source instanceof EnumerablePropertySource<?> names) || source.getName().equals("configurationProperties")) {
        continue;
      }
      boolean environment = source.getName().equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)
          || source.getName().startsWith(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
      for (String name : names.getPropertyNames()) {
        List<String> path;
        if (environment) {
          String key = known.get(name.toUpperCase(Locale.ROOT));
          if (key == null) {
            continue; // not a documented key (ALMANAC_TOKEN read by an application.conf, ...)
          }
          path = List.of(key.split("\\."));
        } else {
          if (ROOTS.stream().noneMatch(r -> name.startsWith(r + ".")) || name.startsWith(STARTER + ".")) {
            continue;
          }
          path = kebab(segments(name), knownKeys);
        }
        Object value = source.getProperty(name);
        if (value instanceof String s) {
          value = env.resolvePlaceholders(s);
        }
        if (value == null) {
          continue;
        }
        leaves.putIfAbsent(path, new Leaf(name, value, where(source, name)));
      }
    }

    Database database = database(env, leaves);
    if (database == Database.POSTGRES && env.getProperty("spring.datasource.url", "").startsWith("jdbc:postgresql:")) {
      fromDatasource(env, leaves, "url", "url");
      fromDatasource(env, leaves, "username", "user");
      fromDatasource(env, leaves, "password", "password");
    }

    Map<String, Object> tree = new LinkedHashMap<>();
    Map<String, String> origins = new LinkedHashMap<>();
    leaves.forEach((path, leaf) -> {
      put(tree, path, 0, ConfigValueFactory.fromAnyRef(leaf.value(), leaf.describe()));
      origins.put(com.typesafe.config.ConfigUtil.joinPath(path.stream().filter(s -> !s.startsWith("[")).toList()),
          leaf.describe());
    });
    Config spring = ConfigValueFactory.fromMap(freeze(tree), "Spring properties").toConfig();
    Config starter = ConfigFactory.parseString("include \"almanac-embedded.conf\"\ninclude \"" + database.include
        + "\"\n" + STARTER_DEFAULTS);
    try {
      Config config = ConfigFactory.load(spring.withFallback(ConfigFactory.defaultApplication()).withFallback(starter));
      return new Mapped(config, database, Map.copyOf(origins));
    } catch (com.typesafe.config.ConfigException e) {
      throw new AlmanacPropertyException(null, null, e.getMessage(), e);
    }
  }

  /** PostgreSQL when almanac.persistence.postgres.url or a jdbc:postgresql spring.datasource.url is set. */
  private static Database database(ConfigurableEnvironment env, Map<List<String>, Leaf> leaves) {
    if (leaves.containsKey(List.of("almanac", "persistence", "postgres", "url"))
        || env.getProperty("spring.datasource.url", "").startsWith("jdbc:postgresql:")) {
      return Database.POSTGRES;
    }
    return Database.H2;
  }

  private static void fromDatasource(ConfigurableEnvironment env, Map<List<String>, Leaf> leaves, String spring,
      String almanac) {
    String value = env.getProperty("spring.datasource." + spring);
    if (value != null) {
      leaves.putIfAbsent(List.of("almanac", "persistence", "postgres", almanac),
          new Leaf("spring.datasource." + spring, value, null));
    }
  }

  /** One Spring property. */
  private record Leaf(String property, Object value, String origin) {
    String describe() {
      return "Spring property '" + property + "'" + (origin == null ? "" : " (" + origin + ")");
    }
  }

  private static String where(PropertySource<?> source, String name) {
    if (source instanceof OriginLookup<?>) {
      @SuppressWarnings("unchecked")
      Origin origin = ((OriginLookup<String>) source).getOrigin(name);
      if (origin != null) {
        return origin.toString();
      }
    }
    return source.getName();
  }

  /** ALMANAC_EXECUTOR_MAXCONCURRENT for almanac.executor.max-concurrent (Spring's rule for environment variables). */
  static String envForm(String key) {
    return key.replace("-", "").replace('.', '_').toUpperCase(Locale.ROOT);
  }

  /**
   * A property name's segments: {@code a.b[0].c} is a, b, [0], c; {@code a.b[x.y]} is a, b, x.y (a
   * bracketed name that is not an index is one key).
   */
  static List<String> segments(String name) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '.') {
        if (current.length() > 0) {
          out.add(current.toString());
          current.setLength(0);
        }
      } else if (c == '[') {
        if (current.length() > 0) {
          out.add(current.toString());
          current.setLength(0);
        }
        int end = name.indexOf(']', i);
        if (end < 0) {
          throw new AlmanacPropertyException(name, null, "has a '[' without its ']'", null);
        }
        String inner = name.substring(i + 1, end);
        out.add(inner.matches("\\d+") ? "[" + inner + "]" : inner);
        i = end;
      } else {
        current.append(c);
      }
    }
    if (current.length() > 0) {
      out.add(current.toString());
    }
    return out;
  }

  /** Writes camel-case segments in kebab case, one at a time, where that makes a key of a reference.conf. */
  private static List<String> kebab(List<String> path, Set<String> knownKeys) {
    List<String> out = new ArrayList<>(path);
    for (int i = 0; i < out.size(); i++) {
      String s = out.get(i);
      if (!s.startsWith("[") && !s.equals(s.toLowerCase(Locale.ROOT))) {
        String dashed = s.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
        List<String> tried = new ArrayList<>(out);
        tried.set(i, dashed);
        String prefix = String.join(".", tried.subList(0, i + 1));
        if (knownKeys.stream().anyMatch(k -> k.equals(prefix) || k.startsWith(prefix + "."))) {
          out.set(i, dashed);
        }
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static void put(Map<String, Object> node, List<String> path, int at, ConfigValue value) {
    String key = path.get(at);
    if (at + 1 == path.size()) {
      node.putIfAbsent(key, value);
      return;
    }
    Object child = node.computeIfAbsent(key, k -> path.get(at + 1).startsWith("[") ? new TreeMap<Integer, Object>()
        : new LinkedHashMap<String, Object>());
    if (child instanceof TreeMap<?, ?> list && path.get(at + 1).startsWith("[")) {
      putIndexed((TreeMap<Integer, Object>) list, path, at + 1, value);
    } else if (child instanceof LinkedHashMap<?, ?> map && !path.get(at + 1).startsWith("[")) {
      put((Map<String, Object>) map, path, at + 1, value);
    } // else: a value and an object at one key; the first source's (already put) stays
  }

  @SuppressWarnings("unchecked")
  private static void putIndexed(TreeMap<Integer, Object> list, List<String> path, int at, ConfigValue value) {
    String segment = path.get(at);
    int index = Integer.parseInt(segment.substring(1, segment.length() - 1));
    if (at + 1 == path.size()) {
      list.putIfAbsent(index, value);
      return;
    }
    boolean nextIndexed = path.get(at + 1).startsWith("[");
    Object child = list.computeIfAbsent(index, k -> nextIndexed ? new TreeMap<Integer, Object>()
        : new LinkedHashMap<String, Object>());
    if (child instanceof TreeMap<?, ?> inner && nextIndexed) {
      putIndexed((TreeMap<Integer, Object>) inner, path, at + 1, value);
    } else if (child instanceof LinkedHashMap<?, ?> map && !nextIndexed) {
      put((Map<String, Object>) map, path, at + 1, value);
    }
  }

  /** Maps stay maps (keys are keys, never paths); index maps become lists in index order. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> freeze(Map<String, Object> tree) {
    Map<String, Object> out = new LinkedHashMap<>();
    tree.forEach((k, v) -> out.put(k, freezeValue(v)));
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Object freezeValue(Object v) {
    if (v instanceof TreeMap<?, ?> list) {
      List<Object> out = new ArrayList<>();
      for (Object e : list.values()) {
        out.add(freezeValue(e));
      }
      return out;
    }
    if (v instanceof LinkedHashMap<?, ?> map) {
      return freeze((Map<String, Object>) map);
    }
    return v;
  }
}
