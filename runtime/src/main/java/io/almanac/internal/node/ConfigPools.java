package io.almanac.internal.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.almanac.InvalidSpecException;
import io.almanac.PoolSpec;
import io.almanac.TaskSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The resource pools declared in {@code almanac.pools}: {@code <name> { max-concurrent = 8, rate =
 * "60/1m" }} (rate optional), validated with errors naming the full key and the value. INTERNAL API.
 */
public final class ConfigPools {
  private static final String ROOT = "almanac.pools";
  private static final Set<String> KEYS = Set.of("max-concurrent", "rate", "budget-per-day", "zone");

  private ConfigPools() {}

  /**
   * @param config the whole configuration
   * @return the declared pools, sorted by name
   * @throws InvalidSpecException naming the full key and the value of the first problem
   */
  public static List<PoolSpec> parse(Config config) {
    if (!config.hasPath(ROOT)) {
      return List.of();
    }
    ConfigValue root = config.getValue(ROOT);
    if (root.valueType() != ConfigValueType.OBJECT) {
      throw new InvalidSpecException(ROOT, root.render(), "must be an object with one entry per pool, keyed by its name");
    }
    ConfigObject pools = (ConfigObject) root;
    List<PoolSpec> out = new ArrayList<>();
    for (String name : new TreeSet<>(pools.keySet())) {
      String at = ConfigUtil.joinPath("almanac", "pools", name);
      PoolSpec.validateName(name);
      ConfigValue v = pools.get(name);
      if (v.valueType() != ConfigValueType.OBJECT) {
        throw new InvalidSpecException(at, written(v), "must be an object { max-concurrent = N, rate = \"N/duration\" }");
      }
      ConfigObject p = (ConfigObject) v;
      for (String key : new TreeSet<>(p.keySet())) {
        if (!KEYS.contains(key)) {
          throw new InvalidSpecException(at + "." + key, written(p.get(key)), "unknown key; known: " + new TreeSet<>(KEYS));
        }
      }
      ConfigValue max = p.get("max-concurrent");
      if (max == null || max.valueType() == ConfigValueType.NULL) {
        throw new InvalidSpecException(at + ".max-concurrent", null, "how many attempts of the pool may run at once across "
            + "the cluster is required");
      }
      int maxConcurrent = wholeNumber(at + ".max-concurrent", max);
      PoolSpec spec = PoolSpec.of(name, maxConcurrent);
      ConfigValue rate = p.get("rate");
      if (rate != null && rate.valueType() != ConfigValueType.NULL) {
        if (rate.valueType() != ConfigValueType.STRING) {
          throw new InvalidSpecException(at + ".rate", rate.render(), "must be a string N/duration, e.g. \"60/1m\"");
        }
        spec = spec.withRate((String) rate.unwrapped());
      }
      ConfigValue budget = p.get("budget-per-day");
      if (budget != null && budget.valueType() != ConfigValueType.NULL) {
        spec = spec.withBudgetPerDay(amount(at + ".budget-per-day", p, budget));
      }
      ConfigValue zone = p.get("zone");
      if (zone != null && zone.valueType() != ConfigValueType.NULL) {
        spec = spec.withZone(zone(at + ".zone", zone));
      }
      out.add(spec);
    }
    return out;
  }

  /** A budget: a number (or a string holding one), checked further by {@link PoolSpec#withBudgetPerDay}. */
  private static java.math.BigDecimal amount(String key, ConfigObject p, ConfigValue v) {
    if (v.valueType() == ConfigValueType.NUMBER || v.valueType() == ConfigValueType.STRING) {
      String text = p.toConfig().getString("budget-per-day").trim();
      try {
        return new java.math.BigDecimal(text);
      } catch (NumberFormatException e) {
        throw new InvalidSpecException(key, text, "must be a number (an amount in the unit jobs report cost in), e.g. 5.00");
      }
    }
    throw new InvalidSpecException(key, v.render(com.typesafe.config.ConfigRenderOptions.concise()), "must be a number (an amount in the unit jobs report cost in), e.g. 5.00");
  }

  private static java.time.ZoneId zone(String key, ConfigValue v) {
    String text = v.valueType() == ConfigValueType.STRING ? ((String) v.unwrapped()).trim()
        : v.render(com.typesafe.config.ConfigRenderOptions.concise());
    if (v.valueType() != ConfigValueType.STRING || text.isEmpty()) {
      throw new InvalidSpecException(key, text, "must be a zone id, e.g. UTC or Europe/Berlin");
    }
    try {
      return java.time.ZoneId.of(text);
    } catch (java.time.DateTimeException e) {
      throw new InvalidSpecException(key, text, "is not a known zone id (e.g. UTC, Europe/Berlin)");
    }
  }

  /** A value as written, or null for none (HOCON null): a refusal then says the key is missing. */
  private static String written(ConfigValue v) {
    return v == null || v.valueType() == ConfigValueType.NULL ? null : v.render();
  }

  private static int wholeNumber(String key, ConfigValue v) {
    Object raw = v.unwrapped();
    String text = String.valueOf(raw).trim();
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new InvalidSpecException(key, text, "must be a whole number, at least 1");
    }
  }

  /**
   * Refuses a task that names a pool not declared here.
   *
   * @param spec the task
   * @param pools the pools declared on this node, by name
   * @param key how the task's pools are named in the refusal ({@code pools}, or the config key)
   * @throws InvalidSpecException naming the task, the key and the pool
   */
  public static void requireKnown(TaskSpec spec, Map<String, PoolSpec> pools, String key) {
    for (String pool : spec.pools()) {
      if (!pools.containsKey(pool)) {
        throw new InvalidSpecException(spec.id(), new InvalidSpecException(key, pool, "no pool is declared under this name "
            + "(almanac.pools." + pool + " or Almanac.Builder.pool); declared: " + new TreeSet<>(pools.keySet())));
      }
    }
  }

  /**
   * @param specs the pools
   * @return them by name
   * @throws InvalidSpecException ({@code almanac.pools}) if a name is declared twice with other limits
   */
  public static Map<String, PoolSpec> byName(Collection<PoolSpec> specs) {
    Map<String, PoolSpec> out = new java.util.LinkedHashMap<>();
    for (PoolSpec p : specs) {
      PoolSpec before = out.putIfAbsent(p.name(), p);
      if (before != null && !before.equals(p)) {
        throw new InvalidSpecException("almanac.pools." + p.name(), p.toString(), "is declared twice with other limits: "
            + before);
      }
    }
    return out;
  }
}
