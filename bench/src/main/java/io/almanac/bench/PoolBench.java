package io.almanac.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code pool} workload (Almanac only): what admission through a resource pool costs per
 * attempt, and that a task without pools costs what it did. The steady workload ({@code n} tasks
 * every second, one window per firing) in three variants, each in its own JVM on a new database:
 *
 * <ul>
 *   <li>{@code almanac-no-pools}: no pool declared, the in-memory pool store ({@code
 *       almanac.pool-store.class = ""}): the node as before pools existed;
 *   <li>{@code almanac-pools-unused}: a pool declared and the node's journaled pool store (counted
 *       by {@link CountingPoolStore}), but no task names it: the fire path's counters must equal the
 *       first variant's;
 *   <li>{@code almanac-pool}: every task names the pool, whose limit ({@link #ROOM}) never refuses: each
 *       attempt is admitted through the store and released after it, the cost of admission alone.
 * </ul>
 *
 * Each prints the steady workload's figures (start lag p50/p99 from the due second, journal persists,
 * events, rows and bytes and actor messages per fire) and, with the store, its calls per fire and
 * each call's latency (mean, p50, p99), from the call to its completion.
 */
final class PoolBench {
  private PoolBench() {}

  /** The variants, in the order they run. */
  static final List<String> VARIANTS = List.of("almanac-no-pools", "almanac-pools-unused", "almanac-pool");

  /** The pool's room: more than can ever run at once, so it only admits. */
  static final int ROOM = 100_000;

  /** The node's own pool store (each pool a journaled entity), wrapped to be counted. */
  static final String DELEGATE = "io.almanac.internal.pool.JournalPoolStore";

  static String poolHocon() {
    return String.join("\n",
        "almanac.pools.bench { max-concurrent = " + ROOM + " }",
        "almanac.pool-store.class = \"" + CountingPoolStore.class.getName() + "\"",
        "almanac.pool-store.delegate = \"" + DELEGATE + "\"");
  }

  static Map<String, Object> run(String variant, int n, int seconds, Path dir) throws Exception {
    AlmanacSut sut = switch (variant) {
      case "almanac-no-pools" -> new AlmanacSut(variant, "almanac.pool-store.class = \"\"", List.of());
      case "almanac-pools-unused" -> new AlmanacSut(variant, poolHocon(), List.of());
      case "almanac-pool" -> new AlmanacSut(variant, poolHocon(), List.of("bench"));
      default -> throw new IllegalArgumentException("pool workload variant '" + variant + "': one of " + VARIANTS);
    };
    Map<String, Object> out = Workloads.steady(sut, "pool-" + n, n, seconds, dir);
    if (!variant.equals("almanac-no-pools")) {
      Map<String, Object> store = new LinkedHashMap<>(CountingPoolStore.latencies());
      store.put("delegate", DELEGATE);
      out.put("pool_store", store);
    }
    out.put("variant", variant);
    return out;
  }
}
