package io.almanac.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigValueType;
import io.almanac.BackfillPolicy;
import io.almanac.CatchUpPolicy;
import io.almanac.DstPolicy;
import io.almanac.InvalidSpecException;
import io.almanac.LeasePolicy;
import io.almanac.OverlapPolicy;
import io.almanac.TaskSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the tasks declared under {@code almanac.tasks} (R34). Every refusal names the full config
 * key and the value (R33). INTERNAL API.
 */
public final class ConfigTasks {
  private static final Set<String> KEYS = Set.of("cron", "job", "window", "overlap", "max-retries", "backfill",
      "catch-up-horizon", "lease", "dst", "description");

  private ConfigTasks() {}

  /**
   * @param config the whole configuration
   * @return the declared tasks, validated, sorted by id
   * @throws InvalidSpecException naming the key of the first problem
   */
  public static List<TaskSpec> parse(Config config) {
    if (!config.hasPath("almanac.tasks")) {
      return List.of();
    }
    Config tasks = config.getConfig("almanac.tasks");
    Set<String> ids = new TreeSet<>();
    tasks.root().keySet().forEach(ids::add);
    List<TaskSpec> out = new ArrayList<>();
    for (String id : ids) {
      String at = "almanac.tasks." + id;
      if (tasks.root().get(id).valueType() != ConfigValueType.OBJECT) {
        throw new InvalidSpecException(at, tasks.root().get(id).unwrapped(), "must be an object with cron and job");
      }
      out.add(parseOne(id, tasks.getConfig(quote(id)), at));
    }
    return out;
  }

  private static String quote(String id) {
    return "\"" + id + "\"";
  }

  private static TaskSpec parseOne(String id, Config c, String at) {
    for (String key : c.root().keySet()) {
      if (!KEYS.contains(key)) {
        throw new InvalidSpecException(at + "." + key, c.root().get(key).unwrapped(), "unknown key; known: " + new TreeSet<>(KEYS));
      }
    }
    TaskSpec.Builder b = TaskSpec.builder(id);
    b.cron(string(c, at, "cron"));
    b.job(string(c, at, "job"));
    if (c.hasPath("window")) {
      b.window(string(c, at, "window"));
    }
    if (c.hasPath("overlap")) {
      b.overlap(enumOf(OverlapPolicy.class, string(c, at, "overlap"), at + ".overlap"));
    }
    if (c.hasPath("max-retries")) {
      b.maxRetries(Settings.intOf(c, "max-retries"));
    }
    if (c.hasPath("catch-up-horizon")) {
      b.catchUp(new CatchUpPolicy(duration(c, at, "catch-up-horizon")));
    }
    if (c.hasPath("backfill")) {
      b.backfill(backfill(c.getConfig("backfill"), at + ".backfill"));
    }
    if (c.hasPath("lease")) {
      Config l = c.getConfig("lease");
      LeasePolicy d = LeasePolicy.DEFAULT;
      b.lease(new LeasePolicy(
          l.hasPath("floor") ? duration(l, at + ".lease", "floor") : d.floor(),
          l.hasPath("ceiling") ? duration(l, at + ".lease", "ceiling") : d.ceiling(),
          l.hasPath("factor") ? l.getDouble("factor") : d.factor(),
          l.hasPath("min-samples") ? l.getInt("min-samples") : d.minSamples()));
    }
    if (c.hasPath("dst")) {
      Config d = c.getConfig("dst");
      b.dst(new DstPolicy(
          d.hasPath("gap") ? enumOf(DstPolicy.Gap.class, d.getString("gap"), at + ".dst.gap") : DstPolicy.DEFAULT.gap(),
          d.hasPath("overlap") ? enumOf(DstPolicy.Overlap.class, d.getString("overlap"), at + ".dst.overlap")
              : DstPolicy.DEFAULT.overlap()));
    }
    if (c.hasPath("description")) {
      b.description(string(c, at, "description"));
    }
    return b.build();
  }

  private static BackfillPolicy backfill(Config c, String at) {
    String mode = c.hasPath("mode") ? c.getString("mode").toLowerCase(Locale.ROOT) : "none";
    switch (mode) {
      case "none":
        return BackfillPolicy.none();
      case "immediate":
        return BackfillPolicy.immediate();
      case "delayed":
        return BackfillPolicy.delayed(c.getDurationList("delays").toArray(new Duration[0]));
      case "exponential":
        return BackfillPolicy.exponential(duration(c, at, "initial"), c.getDouble("multiplier"), duration(c, at, "max"),
            c.hasPath("jitter") ? c.getDouble("jitter") : 0.0);
      case "windowed":
        return BackfillPolicy.windowed(duration(c, at, "span"));
      default:
        throw new InvalidSpecException(at + ".mode", mode, "must be none, immediate, delayed, exponential or windowed");
    }
  }

  private static String string(Config c, String at, String key) {
    try {
      return c.getString(key);
    } catch (ConfigException.Missing e) {
      throw new InvalidSpecException(at + "." + key, null, "is required");
    } catch (ConfigException.WrongType e) {
      throw new InvalidSpecException(at + "." + key, c.getValue(key).unwrapped(), "must be a string");
    }
  }

  private static Duration duration(Config c, String at, String key) {
    try {
      return c.getDuration(key);
    } catch (ConfigException.Missing e) {
      throw new InvalidSpecException(at + "." + key, null, "is required");
    } catch (ConfigException.BadValue | ConfigException.WrongType e) {
      throw new InvalidSpecException(at + "." + key, c.getValue(key).unwrapped(), "must be a duration such as 15m");
    }
  }

  private static <E extends Enum<E>> E enumOf(Class<E> type, String value, String at) {
    try {
      return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      List<String> names = new ArrayList<>();
      for (E constant : type.getEnumConstants()) {
        names.add(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'));
      }
      throw new InvalidSpecException(at, value, "must be one of " + names);
    }
  }
}
