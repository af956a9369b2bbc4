package io.almanac.persistence.crash;

import io.almanac.journal.PoolJournal;
import io.almanac.journal.PoolState;
import io.almanac.persistence.audit.AuditReader;
import io.almanac.persistence.audit.PoolAudit;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the pools' journals say ({@code pool|<name>}, written by each pool's entity), read with the
 * audit's reader from the test JVM and folded with the runtime's {@link PoolState#evolve}: per pool,
 * the holds that count now (not given back, not expired), and the pool's invariants over its whole
 * journal ({@link PoolAudit}).
 */
final class PoolStoreProbe {

  private PoolStoreProbe() {}

  /**
   * @param run a run (its journal)
   * @return per pool, its live holds now (a pool without live holds is absent)
   * @throws Exception if the journal cannot be read
   */
  static Map<String, Integer> inUse(CrashRun run) throws Exception {
    Map<String, Integer> m = new TreeMap<>();
    Instant now = Instant.now();
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      for (String pool : reader.poolNames()) {
        PoolState s = PoolState.empty(pool);
        for (PoolJournal.Event e : reader.readPool(pool)) {
          s = s.evolve(e);
        }
        int live = s.liveHolds(now);
        if (live > 0) {
          m.put(pool, live);
        }
      }
    }
    return m;
  }

  /**
   * @param run a run (its journal)
   * @return each pool's audit: its invariants over its whole journal
   * @throws Exception if the journal cannot be read
   */
  static List<PoolAudit.Report> audit(CrashRun run) throws Exception {
    try (AuditReader reader = AuditReader.builder(run.journal()).start()) {
      return reader.poolNames().stream().map(p -> PoolAudit.verify(p, reader.readPool(p))).toList();
    }
  }
}
