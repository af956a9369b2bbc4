package io.almanac.bench;

import java.time.Instant;
import java.util.Map;

/** A system under test: one scheduler, configured one way, on one database. */
interface Sut extends AutoCloseable {

  /** @return the system's name as the table shows it, e.g. quartz-jdbc-tuned */
  String name();

  /** @return whether its store survives a crash */
  boolean durable();

  /** @return the settings it runs with, for the JSON line (defaults and what was tuned) */
  Map<String, Object> settings();

  /**
   * Starts the scheduler on the database and registers the plan.
   *
   * @param db where the store lives (ignored by in-memory stores)
   * @param plan what to register, or null to register nothing (a restart on a populated store)
   * @param fresh true on a new database (create the schema); false to reuse (skip tasks that exist)
   * @param rec the job body's recorder
   */
  void start(Db db, Plan plan, boolean fresh, Recorder rec) throws Exception;

  /** Schedules one one-shot task "probe" due at {@code due}. */
  void probe(Instant due) throws Exception;

  /** @return one-shot fires of the burst whose completion is durably recorded in the store, or -1 if not knowable */
  long settled(Plan.Once plan) throws Exception;

  /** @return what the system recorded about the windows due in [from, to) (only Almanac records misses) */
  default Map<String, Object> recordedBetween(Plan plan, Instant from, Instant to) throws Exception {
    return Map.of("recorded", "nothing: the system keeps no record of missed fires");
  }

  /**
   * What a user reads back about the windows of tasks {@code prefix}* due in [from, to): the windows
   * whose success is recorded, and what was recorded for the others (Almanac: from its journal, as
   * the audit and the instance table see it). Empty for the peers, which keep no such record.
   */
  default Map<String, Object> journalView(String prefix, Instant from, Instant to) throws Exception {
    return Map.of();
  }

  /** @return rows the system has in its store, per table, for profiling (may be empty) */
  default Map<String, Object> rows() throws Exception {
    return Map.of();
  }

  /** @return where the time of each fire went (Almanac only: from its journal), or empty */
  default Map<String, Object> profile(java.util.List<Recorder.Start> starts, String taskPrefix) throws Exception {
    return Map.of();
  }

  /**
   * @return the system's own running counters (Almanac: journal persists and events, actor messages by
   *     receiver), read before and after a measured span by {@link Cost}; empty for the peers
   */
  default Map<String, Long> counters() {
    return Map.of();
  }

  @Override
  void close() throws Exception;

  static Sut create(String name) {
    return switch (name) {
      case "almanac" -> new AlmanacSut();
      case "quartz-ram" -> new QuartzSut(name, false, false);
      case "quartz-jdbc" -> new QuartzSut(name, true, false);
      case "quartz-jdbc-tuned" -> new QuartzSut(name, true, true);
      case "dbs" -> new DbSchedulerSut(name, false);
      case "dbs-tuned" -> new DbSchedulerSut(name, true);
      default -> throw new IllegalArgumentException("unknown system '" + name + "': one of " + Bench.SYSTEMS);
    };
  }
}
