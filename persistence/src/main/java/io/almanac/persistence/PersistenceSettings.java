package io.almanac.persistence;

import com.typesafe.config.Config;
import io.almanac.internal.Settings;
import io.almanac.InvalidSpecException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Settings of Almanac's persistence wiring, from {@code almanac.persistence} (see the module's
 * reference.conf for each key's meaning and default). Validated on construction: a wrong value is
 * refused with an {@link InvalidSpecException} naming the full configuration key.
 *
 * @param autoCreateSchema whether {@link SchemaBootstrap} creates missing tables, or only checks
 * @param h2 the embedded H2 database's settings
 */
public record PersistenceSettings(boolean autoCreateSchema, H2 h2) {

  /** The configuration namespace of these settings. */
  public static final String NAMESPACE = "almanac.persistence";

  /** Largest accepted {@code almanac.persistence.h2.pool-size}. */
  public static final int MAX_POOL_SIZE = 64;

  /** Canonical constructor. */
  public PersistenceSettings {
    Objects.requireNonNull(h2, "h2");
  }

  /**
   * The embedded database, {@code almanac.persistence.h2}, used by {@code almanac-h2.conf}.
   *
   * @param path the database file's path without H2's ".mv.db" suffix
   * @param poolSize connections (and Slick threads) in the pool shared by journal, snapshots and
   *     read journal
   */
  public record H2(String path, int poolSize) {

    /** Canonical constructor: validates both settings. */
    public H2 {
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
   * @param config the whole configuration (reads {@code almanac.persistence})
   * @return the validated settings
   * @throws InvalidSpecException naming the full key of a missing or wrong value
   */
  public static PersistenceSettings from(Config config) {
    Objects.requireNonNull(config, "config");
    return new PersistenceSettings(
        Settings.booleanOf(config, NAMESPACE + ".schema.auto-create"),
        new H2(Settings.stringOf(config, NAMESPACE + ".h2.path"), Settings.intOf(config, NAMESPACE + ".h2.pool-size")));
  }
}
