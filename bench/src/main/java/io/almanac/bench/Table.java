package io.almanac.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The final table: one row per run, then Almanac's ratio to each peer. */
final class Table {
  private Table() {}

  @SuppressWarnings("unchecked")
  static Object get(Map<String, Object> m, String path) {
    Object o = m;
    for (String k : path.split("\\.")) {
      if (!(o instanceof Map)) {
        return null;
      }
      o = ((Map<String, Object>) o).get(k);
    }
    return o;
  }

  static Double num(Map<String, Object> m, String path) {
    Object o = get(m, path);
    return o instanceof Number n ? n.doubleValue() : null;
  }

  static String f(Double d) {
    if (d == null) {
      return "-";
    }
    double a = Math.abs(d);
    if (a >= 10000) {
      return String.format("%.1fk", d / 1000);
    }
    if (a >= 100) {
      return String.format("%.0f", d);
    }
    if (a >= 10) {
      return String.format("%.1f", d);
    }
    return String.format("%.2f", d);
  }

  /** A count, without decimals. */
  static String n(Double d) {
    return d == null ? "-" : String.format("%,d", Math.round(d));
  }

  /** A map of counts, e.g. fires per node: node1 66, node2 63. */
  @SuppressWarnings("unchecked")
  static String counts(Object o) {
    if (!(o instanceof Map)) {
      return "-";
    }
    List<String> parts = new ArrayList<>();
    for (var e : ((Map<String, Object>) o).entrySet()) {
      parts.add(e.getKey() + " " + (e.getValue() instanceof Number x ? n(x.doubleValue()) : String.valueOf(e.getValue())));
    }
    return String.join(", ", parts);
  }

  static String ms(Double d) {
    if (d == null) {
      return "-";
    }
    return Math.abs(d) >= 1000 ? String.format("%.2f s", d / 1000) : String.format("%.0f ms", d);
  }

  /**
   * The cost of the run's fires (see {@link Cost}): CPU per fire for every system, and for Almanac its
   * journal persists, events and actor messages per fire.
   */
  static String cost(Map<String, Object> r) {
    if (!(get(r, "cost") instanceof Map)) {
      return "";
    }
    StringBuilder b = new StringBuilder(" | CPU/fire " + ms3(num(r, "cost.cpu_ms_per_fire")) + ", threads started/fire "
        + f(num(r, "cost.threads_started_per_fire")));
    if (num(r, "cost.java_threads_cpu_ms_per_fire") != null) {
      b.append(String.format(" (Java threads %s; JIT %s ms, GC %s ms in the span)", ms3(num(r, "cost.java_threads_cpu_ms_per_fire")),
          f(num(r, "cost.jit_ms_in_span")), f(num(r, "cost.gc_ms_in_span"))));
    }
    if (num(r, "cost.journal_persists_per_fire") != null) {
      b.append(String.format(", persists/fire %s, events/fire %s, messages/fire %s (trigger %s, task %s, executor %s)",
          f(num(r, "cost.journal_persists_per_fire")), f(num(r, "cost.journal_events_per_fire")),
          f(num(r, "cost.messages_per_fire")), f(num(r, "cost.messages_trigger_per_fire")),
          f(num(r, "cost.messages_task_per_fire")), f(num(r, "cost.messages_executor_per_fire"))));
    }
    if (num(r, "cost.journal_rows_per_transaction") != null) {
      b.append(String.format(", journal rows/transaction %s (transactions/fire %s)", f(num(r, "cost.journal_rows_per_transaction")),
          f(num(r, "cost.journal_transactions_per_fire"))));
    }
    return b.toString();
  }

  /** Milliseconds with three significant decimals (CPU per fire is well under one). */
  static String ms3(Double d) {
    return d == null ? "-" : String.format("%.3f ms", d);
  }

  static String cells(Map<String, Object> r) {
    String w = String.valueOf(r.get("workload"));
    if (r.containsKey("error")) {
      return "ERROR: " + r.get("error");
    }
    if (w.startsWith("burst")) {
      return String.format("completions/s %s (fires/s %s) | lag p50 %s p99 %s max %s | started %s/%s dup %s%s",
          f(num(r, "completions_per_s")), f(num(r, "fires_per_s")), ms(num(r, "lag.p50_ms")), ms(num(r, "lag.p99_ms")),
          ms(num(r, "lag.max_ms")), f(num(r, "started")), f(num(r, "n")), f(num(r, "duplicates")),
          r.containsKey("journal_rows_per_fire") ? " | journal rows/fire " + f(num(r, "journal_rows_per_fire")) : "")
          + cost(r);
    }
    if (w.startsWith("cluster-steady")) {
      return String.format("%s node(s): lag p50 %s p99 %s max %s | missed %s of %s | doubled %s | journal rows/fire %s | fires per node %s",
          n(num(r, "nodes")), ms(num(r, "lag.p50_ms")), ms(num(r, "lag.p99_ms")), ms(num(r, "lag.max_ms")), n(num(r, "missed")),
          n(num(r, "expected")), n(num(r, "duplicates")), f(num(r, "journal_rows_per_fire")), counts(get(r, "fires_per_node")))
          + (get(r, "settle") instanceof Map<?, ?> st ? " | shards spread " + (Boolean.TRUE.equals(st.get("settled")) ? "after "
              : "NOT within ") + ms(((Number) st.get("settle_ms")).doubleValue()) : "")
          + (get(r, "nodes_downed") instanceof List<?> l && !l.isEmpty() ? " | downed by the cluster: " + l : "");
    }
    if (w.startsWith("cluster-failover")) {
      return String.format("failover median %s max %s (min %s) over %s of %s runs | kill -> trigger started median %s max %s"
              + " | doubled fires %s, windows scheduled twice %s",
          ms(num(r, "failover_ms.median")), ms(num(r, "failover_ms.max")), ms(num(r, "failover_ms.min")), n(num(r, "runs_measured")),
          n(num(r, "runs")), ms(num(r, "kill_to_trigger_started_ms.median")), ms(num(r, "kill_to_trigger_started_ms.max")),
          n(num(r, "doubled_fires")), n(num(r, "windows_scheduled_twice")));
    }
    if (w.startsWith("pool")) {
      return String.format("%s: lag p50 %s p99 %s | missed %s of %s | dup %s | journal rows/fire %s, bytes/fire %s%s",
          r.get("variant"), ms(num(r, "lag.p50_ms")), ms(num(r, "lag.p99_ms")), f(num(r, "missed")), f(num(r, "expected")),
          f(num(r, "duplicates")), f(num(r, "journal_rows_per_fire")), f(num(r, "journal_bytes_per_fire")),
          get(r, "pool_store.acquire") instanceof Map<?, ?> a && a.get("mean_ms") != null
              ? String.format(" | store acquire mean %s p99 %s, release mean %s p99 %s, acquires/fire %s, releases/fire %s",
                  ms3(num(r, "pool_store.acquire.mean_ms")), ms3(num(r, "pool_store.acquire.p99_ms")),
                  ms3(num(r, "pool_store.release.mean_ms")), ms3(num(r, "pool_store.release.p99_ms")),
                  f(num(r, "cost.pool_acquires_per_fire")), f(num(r, "cost.pool_releases_per_fire")))
              : "")
          + cost(r);
    }
    if (w.startsWith("steady")) {
      String own = r.containsKey("lag_vs_own_execution_time")
          ? String.format(" (vs own time p50 %s p99 %s)", ms(num(r, "lag_vs_own_execution_time.p50_ms")),
              ms(num(r, "lag_vs_own_execution_time.p99_ms")))
          : "";
      String journal = num(r, "missed_by_journal") != null ? " (by the journal " + f(num(r, "missed_by_journal")) + ")" : "";
      return String.format("lag p50 %s p99 %s%s | missed %s of %s%s, by 5 s %s | dup %s | misfire-handled %s",
          ms(num(r, "lag.p50_ms")), ms(num(r, "lag.p99_ms")), own, f(num(r, "missed")), f(num(r, "expected")), journal,
          get(r, "missed_by_5s"), f(num(r, "duplicates")), f(num(r, "misfire_handled_fires"))) + cost(r);
    }
    if (w.startsWith("overload")) {
      return String.format("starts/s while it lasts %s (last 10 s: %s) | its windows started %s of %s, lag p50 %s p99 %s"
              + " | recorded for the rest: %s | log lines during %s | on time again after %s s (after: missed %s, p99 %s)",
          f(num(r, "start_rate_during_per_s")), f(lastTen(get(r, "start_rate_by_second"))), n(num(r, "overload_windows_started")),
          n(num(r, "overload_windows_expected")), ms(num(r, "overload_lag.p50_ms")), ms(num(r, "overload_lag.p99_ms")),
          get(r, "recorded_for_the_overload_windows.windows_by_status") instanceof Map<?, ?> st ? Json.write(st) : "nothing",
          n(num(r, "log_lines_during")), n(num(r, "on_time_again_after_s")), n(num(r, "after_windows_not_started")),
          ms(num(r, "after_lag_from_5s.p99_ms"))) + cost(r);
    }
    if (w.startsWith("restart")) {
      return String.format("due while down %s: run late %s (p50 %s), skipped %s, recorded %s | fresh p99 %s, %s/%s fired | dup %s | stuck %s",
          f(num(r, "due_while_down")), f(num(r, "run_late")), ms(num(r, "run_late_lag.p50_ms")), f(num(r, "skipped")),
          Json.write(get(r, "recorded")), ms(num(r, "fresh_lag.p99_ms")), f(num(r, "fresh_fired")),
          f(num(r, "fresh_expected")), f(num(r, "duplicates")), f(num(r, "stuck_tasks")));
    }
    if (w.startsWith("scale")) {
      return String.format("heap %s MB | idle CPU %s%% (settled, 60 s after start: %s%%) | start->first fire %s (probe due %s after start) | registration %s",
          f(num(r, "heap_after_full_gc_mb")), f(num(r, "idle_cpu_percent_of_one_core")),
          f(num(r, "idle_cpu_settled_percent_of_one_core")), ms(num(r, "time_to_first_fire_ms")),
          ms(num(r, "probe_due_after_start_ms")), ms(num(r, "registration_ms")));
    }
    if (w.equals("event-ingest")) {
      return String.format("accepted (new ids) %s/s, calls %s/s of %s event(s) by %s publishers | duplicates recognised %s of %s | latency p50 %s p99 %s"
              + " | instances = distinct windows: %s | failed calls %s",
          f(num(r, "accepted_per_s")), f(num(r, "publish_calls_per_s")), r.getOrDefault("batch", 1), f(num(r, "publishers")),
          f(num(r, "duplicates_recognised")), f(num(r, "duplicates_sent")), ms(num(r, "latency_all.p50_ms")),
          ms(num(r, "latency_all.p99_ms")), get(r, "instances_equal_distinct_windows"), f(num(r, "failed_calls")));
    }
    if (w.equals("limit")) {
      return String.format("batched (100 rows/commit) %s rows/s | one commit per row %s rows/s",
          f(num(r, "batched_100_rows_per_s")), f(num(r, "commit_per_row_rows_per_s")));
    }
    if (w.equals("ceiling")) {
      return String.format("one event per persist: %s persists/s | three events per persist: %s persists/s (%s events/s)",
          f(num(r, "one_event_per_persist.persists_per_s")), f(num(r, "three_events_per_persist.persists_per_s")),
          f(num(r, "three_events_per_persist.events_per_s")));
    }
    if (w.equals("instance-query")) {
      List<String> parts = new ArrayList<>();
      if (get(r, "queries") instanceof Map<?, ?> q) {
        for (var e : q.entrySet()) {
          if (e.getValue() instanceof Map<?, ?> m) {
            @SuppressWarnings("unchecked")
            Map<String, Object> mm = (Map<String, Object>) m;
            parts.add(e.getKey() + ": p50 " + f(num(mm, "p50_ms")) + " ms p99 " + f(num(mm, "p99_ms")) + " ms");
          }
        }
      }
      return String.format("%s rows on %s, filled in %s | pages of 100: %s", n(num(r, "rows")), r.get("db"),
          ms(num(r, "fill_ms")), String.join("; ", parts));
    }
    if (w.startsWith("projection-lag")) {
      return String.format("%s fires/s, %s journal rows/s applied | lag p50 %s p99 %s max %s | apply delay p50 %s p99 %s max %s"
              + " | events behind p99 %s", f(num(r, "fires_per_s")), f(num(r, "journal_rows_applied_per_s")),
          ms(num(r, "lag.p50_ms")), ms(num(r, "lag.p99_ms")), ms(num(r, "lag.max_ms")), ms(num(r, "apply_delay.p50_ms")),
          ms(num(r, "apply_delay.p99_ms")), ms(num(r, "apply_delay.max_ms")), n(num(r, "events_behind.p99_ms")));
    }
    if (w.equals("audit")) {
      return Boolean.TRUE.equals(r.get("available")) ? Json.write(r) : "not available: " + r.get("reason");
    }
    return Json.write(r);
  }

  private static Double diff(Double a, Double b) {
    return a == null || b == null ? null : a - b;
  }

  static String render(List<Map<String, Object>> results) {
    StringBuilder b = new StringBuilder();
    b.append("| workload | system | result |\n|---|---|---|\n");
    for (Map<String, Object> r : results) {
      b.append("| ").append(r.get("workload")).append(" | ").append(r.get("system")).append(" | ").append(cells(r)).append(" |\n");
    }
    // ratios
    Map<String, Map<String, Map<String, Object>>> byWorkload = new LinkedHashMap<>();
    for (Map<String, Object> r : results) {
      byWorkload.computeIfAbsent(String.valueOf(r.get("workload")), k -> new LinkedHashMap<>())
          .put(String.valueOf(r.get("system")), r);
    }
    b.append("\nAlmanac's ratio to each peer (throughput: Almanac / peer, higher is better;"
        + " lag: peer / Almanac, higher is better for Almanac)\n\n");
    b.append("| workload | peer | ratio |\n|---|---|---|\n");
    Double limit = null;
    if (byWorkload.containsKey("limit")) {
      limit = num(byWorkload.get("limit").get("jdbc"), "batched_100_rows_per_s");
    }
    Double ceiling = null;
    if (byWorkload.containsKey("ceiling")) {
      ceiling = num(byWorkload.get("ceiling").get("pekko-persistence"), "one_event_per_persist.persists_per_s");
    }
    for (var e : byWorkload.entrySet()) {
      Map<String, Object> c3 = e.getValue().get("almanac-3nodes");
      Map<String, Object> c1 = e.getValue().get("almanac-1node");
      if (e.getKey().startsWith("cluster-steady") && c3 != null && c1 != null && !c3.containsKey("error") && !c1.containsKey("error")) {
        b.append("| ").append(e.getKey()).append(" | 3 nodes vs 1 node | p99 lag x").append(ratio(num(c1, "lag.p99_ms"), num(c3, "lag.p99_ms")))
            .append(" (1 node / 3 nodes); missed ").append(n(num(c3, "missed"))).append(" vs ").append(n(num(c1, "missed")))
            .append("; journal rows/fire ").append(f(num(c3, "journal_rows_per_fire"))).append(" vs ")
            .append(f(num(c1, "journal_rows_per_fire"))).append(" |\n");
      }
      Map<String, Object> none = e.getValue().get("almanac-no-pools");
      if (e.getKey().startsWith("pool") && none != null && !none.containsKey("error")) {
        for (String v : List.of("almanac-pools-unused", "almanac-pool")) {
          Map<String, Object> q = e.getValue().get(v);
          if (q == null || q.containsKey("error")) {
            continue;
          }
          b.append("| ").append(e.getKey()).append(" | ").append(v).append(" vs almanac-no-pools | lag p50 ")
              .append(ms(diff(num(q, "lag.p50_ms"), num(none, "lag.p50_ms")))).append(" added, p99 ")
              .append(ms(diff(num(q, "lag.p99_ms"), num(none, "lag.p99_ms")))).append(" added; per fire: persists ")
              .append(f(num(q, "cost.journal_persists_per_fire"))).append(" vs ").append(f(num(none, "cost.journal_persists_per_fire")))
              .append(", events ").append(f(num(q, "cost.journal_events_per_fire"))).append(" vs ")
              .append(f(num(none, "cost.journal_events_per_fire"))).append(", journal rows ").append(f(num(q, "journal_rows_per_fire")))
              .append(" vs ").append(f(num(none, "journal_rows_per_fire"))).append(", bytes ").append(f(num(q, "journal_bytes_per_fire")))
              .append(" vs ").append(f(num(none, "journal_bytes_per_fire"))).append(", messages ")
              .append(f(num(q, "cost.messages_per_fire"))).append(" vs ").append(f(num(none, "cost.messages_per_fire")))
              .append(", CPU ").append(ms3(num(q, "cost.cpu_ms_per_fire"))).append(" vs ").append(ms3(num(none, "cost.cpu_ms_per_fire")))
              .append(" |\n");
        }
      }
      Map<String, Object> a = e.getValue().get("almanac");
      if (a == null || a.containsKey("error")) {
        continue;
      }
      for (var p : e.getValue().entrySet()) {
        if (p.getKey().equals("almanac") || p.getValue().containsKey("error")) {
          continue;
        }
        Map<String, Object> q = p.getValue();
        List<String> parts = new ArrayList<>();
        String w = e.getKey();
        if (w.startsWith("burst")) {
          parts.add("completions/s x" + ratio(num(a, "completions_per_s"), num(q, "completions_per_s")));
          parts.add("p99 lag x" + ratio(num(q, "lag.p99_ms"), num(a, "lag.p99_ms")));
        } else if (w.startsWith("steady")) {
          parts.add("p99 lag x" + ratio(num(q, "lag.p99_ms"), num(a, "lag.p99_ms")));
          parts.add("missed " + f(num(a, "missed")) + " vs " + f(num(q, "missed")));
        } else if (w.startsWith("overload")) {
          parts.add("starts/s x" + ratio(num(a, "start_rate_during_per_s"), num(q, "start_rate_during_per_s")));
          parts.add("not started " + n(num(a, "overload_windows_not_started")) + " vs " + n(num(q, "overload_windows_not_started")));
          parts.add("on time again after " + n(num(a, "on_time_again_after_s")) + " s vs " + n(num(q, "on_time_again_after_s")) + " s");
        } else if (w.startsWith("restart")) {
          parts.add("fresh p99 lag x" + ratio(num(q, "fresh_lag.p99_ms"), num(a, "fresh_lag.p99_ms")));
          parts.add("dup " + f(num(a, "duplicates")) + " vs " + f(num(q, "duplicates")));
        } else if (w.startsWith("scale")) {
          parts.add("heap x" + ratio(num(a, "heap_after_full_gc_mb"), num(q, "heap_after_full_gc_mb")) + " (Almanac/peer)");
          parts.add("idle CPU " + f(num(a, "idle_cpu_percent_of_one_core")) + "% vs "
              + f(num(q, "idle_cpu_percent_of_one_core")) + "%");
        }
        if (!parts.isEmpty()) {
          b.append("| ").append(w).append(" | ").append(p.getKey()).append(" | ").append(String.join("; ", parts)).append(" |\n");
        }
      }
      if (e.getKey().startsWith("overload")) {
        Double best = null;
        for (var other : byWorkload.entrySet()) {
          Map<String, Object> ab = other.getValue().get("almanac");
          if (other.getKey().startsWith("burst") && ab != null && num(ab, "completions_per_s") != null) {
            best = best == null ? num(ab, "completions_per_s") : Math.max(best, num(ab, "completions_per_s"));
          }
        }
        if (best != null) {
          b.append("| ").append(e.getKey()).append(" | Almanac's own best burst | starts/s while overloaded = ")
              .append(String.format("%.0f%%", 100 * num(a, "start_rate_during_per_s") / best)).append(" of its burst's completions/s |\n");
        }
      }
      if (limit != null && e.getKey().startsWith("burst")) {
        Double c = num(a, "completions_per_s");
        if (c != null) {
          b.append("| ").append(e.getKey()).append(" | limit (batched JDBC rows/s) | Almanac completions/s = ")
              .append(String.format("%.1f%%", 100 * c / limit)).append(" of the row ceiling (")
              .append(String.format("%.1f%%", 100 * c / (limit / 2))).append(" of the 2-rows-per-fire ceiling) |\n");
        }
      }
      if (ceiling != null && e.getKey().startsWith("burst")) {
        Double c = num(a, "completions_per_s");
        Double writes = num(a, "journal_rows_per_fire");
        if (c != null) {
          b.append("| ").append(e.getKey()).append(" | ceiling (persists/s of the persistence stack) | Almanac completions/s = ")
              .append(String.format("%.1f%%", 100 * c / ceiling)).append(" of one persist per fire, ")
              .append(String.format("%.1f%%", 100 * c / (ceiling / 3))).append(" of three")
              .append(writes == null ? "" : String.format(" (%.2f journal rows per fire)", writes)).append(" |\n");
        }
      }
    }
    return b.toString();
  }

  /** The mean of the last ten numbers of a list (the overload's start rate once it settled). */
  static Double lastTen(Object o) {
    if (!(o instanceof List<?> l) || l.size() < 10) {
      return null;
    }
    double sum = 0;
    for (Object x : l.subList(l.size() - 10, l.size())) {
      sum += ((Number) x).doubleValue();
    }
    return sum / 10;
  }

  static String ratio(Double x, Double y) {
    if (x == null || y == null || y == 0) {
      return "-";
    }
    return String.format("%.2f", x / y);
  }
}
