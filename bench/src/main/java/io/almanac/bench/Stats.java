package io.almanac.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Percentiles of lags in milliseconds. */
final class Stats {
  private Stats() {}

  static Map<String, Object> lag(double[] ms) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (ms.length == 0) {
      m.put("n", 0);
      return m;
    }
    double[] s = ms.clone();
    Arrays.sort(s);
    m.put("n", s.length);
    m.put("p50_ms", pct(s, 50));
    m.put("p99_ms", pct(s, 99));
    m.put("max_ms", s[s.length - 1]);
    return m;
  }

  static double pct(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
