package io.almanac.persistence;

import com.typesafe.config.Config;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.cluster.ConfigValidation;
import org.apache.pekko.cluster.Invalid;
import org.apache.pekko.cluster.JoinConfigCompatChecker;
import org.apache.pekko.cluster.Valid$;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Pekko's join configuration check for Almanac (registered in this module's reference.conf under
 * {@code pekko.cluster.configuration-compatibility-check.checkers.almanac}): a node whose journal
 * is another database or another schema than the cluster's is refused at join, for two clusters'
 * worth of nodes on two journals would each believe they own every task.
 *
 * <p>How Pekko uses it: the joining node sends its values of {@link #requiredKeys()} with its
 * join request; the member it asks runs {@link #check} with them and its own configuration, logs
 * a warning with the messages ("Found incompatible settings when [node] tried to join: ...") and
 * answers "incompatible"; the joining node then logs an error and runs its coordinated shutdown
 * ({@code pekko.cluster.configuration-compatibility-check.enforce-on-join = on}, Pekko's default).
 * Every message names the setting and both values, the other node's and this node's.
 *
 * <p>The journal's identity is the database named in the journal's JDBC URL (its path; not the
 * host and port, which nodes may spell differently for one server, nor parameters such as
 * ApplicationName) and its schema (pgJDBC's {@code currentSchema}, in the URL or as a connection
 * property, which almanac-postgres.conf sets from {@code almanac.persistence.postgres.schema}).
 */
public final class JournalJoinCheck extends JoinConfigCompatChecker {

  /** Which journal plugin persistent actors write to. */
  static final String PLUGIN = "pekko.persistence.journal.plugin";
  /** Whether jdbc-journal uses a shared database, and which. */
  static final String SHARED = "jdbc-journal.use-shared-db";
  /** The shared database's URL (almanac-h2.conf and almanac-postgres.conf set it). */
  static final String SHARED_URL = "pekko-persistence-jdbc.shared-databases.slick.db.url";
  /** The shared database's schema (almanac-postgres.conf sets it from almanac.persistence.postgres.schema). */
  static final String SHARED_SCHEMA = "pekko-persistence-jdbc.shared-databases.slick.db.properties.currentSchema";
  /** The journal's own database's URL, without a shared one. */
  static final String OWN_URL = "jdbc-journal.slick.db.url";
  /** The journal's own database's schema, without a shared one. */
  static final String OWN_SCHEMA = "jdbc-journal.slick.db.properties.currentSchema";

  private static final List<String> KEYS = List.of(PLUGIN, SHARED, SHARED_URL, SHARED_SCHEMA, OWN_URL, OWN_SCHEMA);

  /** Pekko creates it by reflection, with no arguments. */
  public JournalJoinCheck() {}

  @Override
  public Seq<String> requiredKeys() {
    return CollectionConverters.asScala(KEYS).toList();
  }

  /**
   * @param toCheck the other node's values of the required keys (the joining node's, on a member)
   * @param actualConfig this node's configuration
   */
  @Override
  public ConfigValidation check(Config toCheck, Config actualConfig) {
    if (KEYS.stream().noneMatch(toCheck::hasPath)) {
      // The other node sent none of these keys: it does not run this check (an Almanac from before
      // it, or with the checker turned off), so it is not judged, as in a rolling upgrade. A node
      // that runs it always sends pekko.persistence.journal.plugin (pekko-persistence defines it).
      return Valid$.MODULE$;
    }
    List<String> problems = problems(Journal.of(toCheck), Journal.of(actualConfig));
    return problems.isEmpty() ? Valid$.MODULE$ : new Invalid(CollectionConverters.asScala(problems).toList());
  }

  /** The differences between the other node's journal and this node's, each naming both values. */
  static List<String> problems(Journal other, Journal self) {
    List<String> problems = new ArrayList<>();
    String same = "; every node of a cluster must write the same journal";
    if (!other.plugin().equals(self.plugin())) {
      problems.add(PLUGIN + ": '" + other.plugin() + "' on the other node, '" + self.plugin() + "' on this node" + same);
    } else if (!other.database().equals(self.database())) {
      problems.add("the journal's database (almanac.persistence.postgres.url, " + other.urlKey() + "): '" + other.database()
          + "' on the other node (" + other.url() + "), '" + self.database() + "' on this node (" + self.url() + ")" + same);
    }
    if (other.plugin().equals(self.plugin()) && !other.schema().equals(self.schema())) {
      problems.add("the journal's schema (almanac.persistence.postgres.schema, or currentSchema in the url): '"
          + shown(other.schema()) + "' on the other node, '" + shown(self.schema()) + "' on this node" + same);
    }
    return problems;
  }

  private static String shown(String schema) {
    return schema.isEmpty() ? "(none: the database user's search_path)" : schema;
  }

  /**
   * A node's journal as far as the check compares it.
   *
   * @param plugin the journal plugin's configuration path
   * @param urlKey the key of the URL it was read from
   * @param url the URL, a password parameter hidden
   * @param database the database in the URL
   * @param schema the schema, or empty for the user's default search_path
   */
  record Journal(String plugin, String urlKey, String url, String database, String schema) {

    static Journal of(Config config) {
      String plugin = string(config, PLUGIN);
      boolean shared = !string(config, SHARED).isEmpty();
      String urlKey = shared ? SHARED_URL : OWN_URL;
      String url = string(config, urlKey);
      String schema = parameter(url, "currentSchema");
      if (schema.isEmpty()) {
        schema = string(config, shared ? SHARED_SCHEMA : OWN_SCHEMA);
      }
      return new Journal(plugin, urlKey, url.replaceAll("(?i)(password=)[^&;]*", "$1***"), JournalJoinCheck.database(url), schema);
    }

    private static String string(Config config, String key) {
      return config.hasPath(key) ? Objects.toString(config.getValue(key).unwrapped(), "") : "";
    }
  }

  /**
   * The database a JDBC URL names: for PostgreSQL the path after host and port
   * ({@code jdbc:postgresql://host:port/DATABASE?...}, or {@code jdbc:postgresql:DATABASE}); for
   * H2 the database (file path or in-memory name) before its settings; otherwise the URL without
   * its parameters.
   */
  static String database(String url) {
    String rest = url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url;
    if (rest.startsWith("postgresql:")) {
      rest = rest.substring("postgresql:".length());
      String beforeQuery = rest.split("\\?", 2)[0];
      if (beforeQuery.startsWith("//")) {
        int slash = beforeQuery.indexOf('/', 2);
        beforeQuery = slash < 0 ? "" : beforeQuery.substring(slash + 1);
      }
      return URLDecoder.decode(beforeQuery, StandardCharsets.UTF_8);
    }
    if (rest.startsWith("h2:")) {
      return rest.substring("h2:".length()).split(";", 2)[0];
    }
    return url.split("[?;]", 2)[0];
  }

  /** A pgJDBC URL parameter's value, or empty. */
  static String parameter(String url, String name) {
    int q = url.indexOf('?');
    if (q < 0) {
      return "";
    }
    for (String pair : url.substring(q + 1).split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals(name)) {
        return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return "";
  }
}
