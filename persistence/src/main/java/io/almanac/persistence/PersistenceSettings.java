package io.almanac.persistence;

import com.typesafe.config.Config;
import io.almanac.config.Settings;
import io.almanac.InvalidSpecException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Settings of Almanac's persistence wiring, from {@code almanac.persistence} (see the module's
 * reference.conf for each key's meaning and default). Validated on construction: a wrong value is
 * refused with an {@link InvalidSpecException} naming the full configuration key.
 *
 * @param autoCreateSchema whether {@link SchemaBootstrap} creates missing tables, or only checks
 * @param h2 the embedded H2 database's settings
 * @param postgres the PostgreSQL database's settings
 */
public record PersistenceSettings(boolean autoCreateSchema, H2 h2, Postgres postgres) {

  /** The configuration namespace of these settings. */
  public static final String NAMESPACE = "almanac.persistence";

  /** Largest accepted {@code almanac.persistence.h2.pool-size} and {@code almanac.persistence.postgres.pool-size}. */
  public static final int MAX_POOL_SIZE = 64;

  /** Canonical constructor. */
  public PersistenceSettings {
    Objects.requireNonNull(h2, "h2");
    Objects.requireNonNull(postgres, "postgres");
  }

  /**
   * The embedded database, {@code almanac.persistence.h2}, used by {@code almanac-h2.conf}.
   *
   * @param path the database file's path without H2's ".mv.db" suffix
   * @param poolSize connections (and Slick threads) in the pool shared by journal, snapshots and
   *     read journal
   * @param compaction how the running node keeps the file near the size of its data
   */
  public record H2(String path, int poolSize, Compaction compaction) {

    /** Canonical constructor: validates every setting. */
    public H2 {
      Objects.requireNonNull(compaction, "compaction");
      String key = NAMESPACE + ".h2.path";
      if (path == null || path.isBlank()) {
        throw new InvalidSpecException(key, path, "must not be empty");
      }
      if (!path.equals(path.strip())) {
        throw new InvalidSpecException(key, path, "must not start or end with white space");
      }
      if (path.contains(";")) {
        throw new InvalidSpecException(key, path, "must not contain ';': it would end the path and start H2 URL settings");
      }
      if (path.endsWith(".mv.db")) {
        throw new InvalidSpecException(key, path, "give the path without the '.mv.db' suffix: H2 adds it");
      }
      if (!explicitPath(path)) {
        throw new InvalidSpecException(key, path,
            "must be absolute or start with ./, ../ or ~/ (H2 refuses a path implicitly relative to the working directory)");
      }
      if (poolSize < 1 || poolSize > MAX_POOL_SIZE) {
        throw new InvalidSpecException(NAMESPACE + ".h2.pool-size", poolSize, "must be between 1 and " + MAX_POOL_SIZE);
      }
    }

    private static boolean explicitPath(String path) {
      for (String prefix : new String[] {"./", "../", "~/", ".\\", "..\\", "~\\"}) {
        if (path.startsWith(prefix)) {
          return true;
        }
      }
      try {
        return Path.of(path).isAbsolute();
      } catch (InvalidPathException e) {
        return false;
      }
    }
  }

  /**
   * How the node keeps the embedded database's file near the size of its data, {@code
   * almanac.persistence.h2.compaction} (see {@link H2Compaction}).
   *
   * @param enabled whether the node compacts the file (while it runs, and before it opens it)
   * @param interval how often it compares the file's size with its live data
   * @param maxRatio the file's size over its live data above which it compacts
   * @param minFileSize the file size in bytes below which it never compacts
   * @param maxTime how long one compaction may take (it may overrun by one step)
   */
  public record Compaction(boolean enabled, Duration interval, double maxRatio, long minFileSize, Duration maxTime) {

    /** Canonical constructor: validates every setting. */
    public Compaction {
      String key = NAMESPACE + ".h2.compaction.";
      positive(key + "interval", interval);
      if (!(maxRatio >= 1.0) || Double.isInfinite(maxRatio)) {
        throw new InvalidSpecException(key + "max-ratio", maxRatio,
            "must be a number of at least 1.0 (the file can never be smaller than its data)");
      }
      if (minFileSize < 0) {
        throw new InvalidSpecException(key + "min-file-size", minFileSize, "must not be negative");
      }
      positive(key + "max-time", maxTime);
    }

    private static void positive(String key, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new InvalidSpecException(key, d, "must be a positive duration");
      }
    }
  }

  /**
   * The production database, {@code almanac.persistence.postgres}, used by {@code almanac-postgres.conf}.
   *
   * @param url the pgJDBC URL, {@code jdbc:postgresql://host:port/database[?parameters]}
   * @param user the database user
   * @param password the user's password; may be empty (trust, peer or certificate authentication).
   *     Left out of {@link #toString()}
   * @param poolSize connections (and Slick threads) in the pool shared by journal, snapshots and
   *     read journal, per node
   * @param schema the schema for Almanac's tables, or empty for the connection's default
   *     search_path (normally {@code public})
   */
  public record Postgres(String url, String user, String password, int poolSize, Optional<String> schema) {

    /** An unquoted PostgreSQL identifier in lower case, so it means the same quoted or not. */
    private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    /** Canonical constructor: validates every setting. */
    public Postgres {
      Objects.requireNonNull(schema, "schema");
      String urlKey = NAMESPACE + ".postgres.url";
      if (url == null || url.isBlank()) {
        throw new InvalidSpecException(urlKey, url, "must not be empty");
      }
      if (!url.equals(url.strip())) {
        throw new InvalidSpecException(urlKey, url, "must not start or end with white space");
      }
      if (!url.startsWith("jdbc:postgresql:")) {
        throw new InvalidSpecException(urlKey, url, "must be a PostgreSQL JDBC URL: jdbc:postgresql://host:port/database");
      }
      Properties parsed = org.postgresql.Driver.parseURL(url, null);
      if (parsed == null) {
        throw new InvalidSpecException(urlKey, url, "pgJDBC cannot parse it; expected jdbc:postgresql://host:port/database[?parameters]");
      }
      if (user == null || user.isBlank()) {
        throw new InvalidSpecException(NAMESPACE + ".postgres.user", user, "must not be empty");
      }
      if (!user.equals(user.strip())) {
        throw new InvalidSpecException(NAMESPACE + ".postgres.user", user, "must not start or end with white space");
      }
      Objects.requireNonNull(password, "password");
      if (poolSize < 1 || poolSize > MAX_POOL_SIZE) {
        throw new InvalidSpecException(NAMESPACE + ".postgres.pool-size", poolSize, "must be between 1 and " + MAX_POOL_SIZE);
      }
      if (schema.isPresent()) {
        String name = schema.get();
        String key = NAMESPACE + ".postgres.schema";
        if (!SCHEMA_NAME.matcher(name).matches()) {
          throw new InvalidSpecException(key, name, "must be an unquoted lower-case identifier: a-z, 0-9 and _, "
              + "not starting with a digit, at most 63 characters (leave the key out for the default search_path)");
        }
        if (name.startsWith("pg_")) {
          throw new InvalidSpecException(key, name, "names starting with pg_ are reserved for PostgreSQL's system schemas");
        }
        String inUrl = parsed.getProperty("currentSchema");
        if (inUrl != null && !inUrl.equals(name)) {
          throw new InvalidSpecException(urlKey, url, "sets currentSchema=" + inUrl + " but " + key + " is '" + name
              + "': the connections would use the url's schema and the bootstrap would create the key's; set the schema in one place");
        }
      }
    }

    /** Leaves the password out. */
    @Override
    public String toString() {
      return "Postgres[url=" + url + ", user=" + user + ", password=" + (password.isEmpty() ? "" : "***")
          + ", poolSize=" + poolSize + ", schema=" + schema.orElse("") + "]";
    }
  }

  /**
   * @param config the whole configuration (reads {@code almanac.persistence})
   * @return the validated settings
   * @throws InvalidSpecException naming the full key of a missing or wrong value
   */
  public static PersistenceSettings from(Config config) {
    Objects.requireNonNull(config, "config");
    String pg = NAMESPACE + ".postgres.";
    return new PersistenceSettings(
        Settings.booleanOf(config, NAMESPACE + ".schema.auto-create"),
        new H2(Settings.stringOf(config, NAMESPACE + ".h2.path"), Settings.intOf(config, NAMESPACE + ".h2.pool-size"),
            compaction(config, NAMESPACE + ".h2.compaction.")),
        new Postgres(
            Settings.stringOf(config, pg + "url"),
            Settings.stringOf(config, pg + "user"),
            password(config, pg + "password"),
            Settings.intOf(config, pg + "pool-size"),
            // Optional: almanac-postgres.conf reads it with ${?...}, so a missing key means "not set".
            config.hasPath(pg + "schema") ? Optional.of(Settings.stringOf(config, pg + "schema")) : Optional.empty()));
  }

  private static Compaction compaction(Config config, String key) {
    return new Compaction(
        Settings.booleanOf(config, key + "enabled"),
        Settings.durationOf(config, key + "interval"),
        Settings.doubleOf(config, key + "max-ratio"),
        bytes(config, key + "min-file-size"),
        Settings.durationOf(config, key + "max-time"));
  }

  /** A size in bytes: a number, or HOCON's size units (e.g. 4MB, 512kB). */
  private static long bytes(Config config, String key) {
    try {
      return config.getBytes(key);
    } catch (com.typesafe.config.ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (com.typesafe.config.ConfigException.BadValue | com.typesafe.config.ConfigException.WrongType e) {
      throw new InvalidSpecException(key, config.getValue(key).unwrapped(), "must be a size in bytes, e.g. 4MB");
    }
  }

  /** Like Settings.stringOf, without echoing a wrongly typed password into the message. */
  private static String password(Config config, String key) {
    try {
      return config.getString(key);
    } catch (com.typesafe.config.ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (com.typesafe.config.ConfigException.WrongType e) {
      throw new InvalidSpecException(key, "(hidden)", "must be a string");
    }
  }
}
