package io.almanac.bench;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a run's fires cost, printed next to its throughput: the process's CPU time, and for Almanac
 * its node's counters (journal persist calls and events, actor messages by receiver), each divided
 * by the fires of the measured span. A snapshot is taken at the span's start and at its end; every
 * system runs in a JVM of its own, so the process's CPU is the system's (and the harness's polling,
 * the same for every system).
 */
final class Cost {
  private Cost() {}

  /** The counters now: "cpu_ns" and "threads_started" (the JVM's) for every system, plus what the system counts (see {@link Sut#counters()}). */
  static Map<String, Long> snapshot(Sut sut) {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("cpu_ns", cpuNanos());
    m.put("java_threads_cpu_ns", javaThreadsCpuNanos());
    m.put("jit_ms", ManagementFactory.getCompilationMXBean() == null ? -1
        : ManagementFactory.getCompilationMXBean().getTotalCompilationTime());
    long gc = 0;
    for (var b : ManagementFactory.getGarbageCollectorMXBeans()) {
      gc += Math.max(0, b.getCollectionTime());
    }
    m.put("gc_ms", gc);
    m.put("threads_started", ManagementFactory.getThreadMXBean().getTotalStartedThreadCount());
    m.putAll(sut.counters());
    return m;
  }

  /**
   * CPU time of the JVM's live Java threads (actors, the database pool, jobs, the harness): the
   * process's CPU without the JIT compiler's and the GC's threads, which a burst right after start
   * spends a varying share on (a thread that ended since the last snapshot is not counted).
   */
  static long javaThreadsCpuNanos() {
    if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t && t.isThreadCpuTimeEnabled()) {
      long sum = 0;
      for (long ns : t.getThreadCpuTime(t.getAllThreadIds())) {
        sum += Math.max(0, ns);
      }
      return sum;
    }
    return -1;
  }

  static long cpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /**
   * @param before the snapshot at the span's start
   * @param after the snapshot at its end
   * @param fires fires in the span
   * @return per fire: cpu_ms_per_fire, and each counter's name with "_per_fire"
   */
  static Map<String, Object> perFire(Map<String, Long> before, Map<String, Long> after, long fires) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("fires", fires);
    if (fires <= 0) {
      return m;
    }
    Long w0 = before.get("journal_writes_ended");
    Long t0 = before.get("journal_write_ns");
    if (w0 != null && t0 != null && after.get("journal_writes_ended") > w0) {
      // not per fire: the mean time a persist waited for its write in the span
      m.put("journal_write_ms_mean", (after.get("journal_write_ns") - t0) / 1e6 / (after.get("journal_writes_ended") - w0));
    }
    Long x0 = before.get("journal_transactions");
    Long r0 = before.get("journal_transaction_rows");
    if (x0 != null && r0 != null && after.get("journal_transactions") > x0) {
      // not per fire: the journal's group commit in the span, rows (events) per database transaction
      m.put("journal_rows_per_transaction", (after.get("journal_transaction_rows") - r0)
          / (double) (after.get("journal_transactions") - x0));
    }
    Long k0 = before.get("slot_takes");
    if (k0 != null && after.get("slot_takes") > k0) {
      // not per fire: where a started attempt spent its time on the executor in the span (means), and
      // the longest wait and the most waiting at once since the node started (registration included)
      m.put("slot_wait_ms_mean", (after.get("slot_wait_ns") - before.get("slot_wait_ns")) / 1e6
          / (after.get("slot_takes") - k0));
      m.put("slot_wait_ms_max", after.get("slot_wait_max_ns") / 1e6);
      m.put("slot_waiting_max", after.get("slot_waiting_max"));
    }
    Long h0 = before.get("slot_releases");
    if (h0 != null && after.get("slot_releases") > h0) {
      long n = after.get("slot_releases") - h0;
      double hold = (after.get("slot_hold_ns") - before.get("slot_hold_ns")) / 1e6 / n;
      double job = (after.get("slot_job_ns") - before.get("slot_job_ns")) / 1e6 / n;
      m.put("slot_hold_ms_mean", hold);
      m.put("slot_job_ms_mean", job);
      m.put("slot_result_ms_mean", hold - job); // the slot held after the job ended: its result's write
    }
    for (Map.Entry<String, Long> e : after.entrySet()) {
      if (e.getKey().equals("journal_writes_ended") || e.getKey().equals("journal_write_ns") || e.getKey().startsWith("slot_")) {
        continue;
      }
      Long b = before.get(e.getKey());
      if (b == null || b < 0 || e.getValue() < 0) {
        continue;
      }
      double d = (e.getValue() - b) / (double) fires;
      if (e.getKey().equals("cpu_ns")) {
        m.put("cpu_ms_per_fire", d / 1e6);
      } else if (e.getKey().equals("java_threads_cpu_ns")) {
        m.put("java_threads_cpu_ms_per_fire", d / 1e6);
      } else if (e.getKey().equals("jit_ms") || e.getKey().equals("gc_ms")) {
        m.put(e.getKey() + "_in_span", (double) (e.getValue() - b)); // not per fire: JIT compile / GC time in the span
      } else {
        m.put(e.getKey() + "_per_fire", d);
      }
    }
    return m;
  }
}
