package io.almanac.persistence.instances;

import com.typesafe.config.Config;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SQL of the instance tables, for H2 and PostgreSQL alike (the same statements run on both).
 * Every method runs on the caller's connection and transaction. INTERNAL.
 */
final class InstanceStore {

  static final String LIVE = "almanac_instance";
  static final String HISTORY = "almanac_instance_history";
  static final String TASKS = "almanac_instance_task";
  static final String OFFSETS = "almanac_projection_offset";

  /** The row's columns in {@link #read} and {@link #bind} order. */
  static final String COLUMNS = "task_id, window_key, window_start, window_end, status, attempt, retry_count, max_retry, "
      + "run_kind, result_summary, fail_reason, scheduled_at, started_at, finished_at, created_at, updated_at, last_seq, "
      + "wait_until, event_count, event_duplicates, first_event_id, last_event_id, "
      + "tokens_in, tokens_out, cost, model, deadline_missed_at, pool_wait_pool, pool_wait_reason, pool_wait_until, "
      + "reason_code";

  private static final int NCOLS = 31;

  /** A journal row: its ordering, persistence id, sequence number, write time and serialized event. */
  record JournalRow(long ordering, String persistenceId, long seq, long writeMillis, byte[] payload, int serId,
      String manifest) {}

  /** The projection's memory of a task: its retry cap and the sequence number of its last SpecDefined. */
  record TaskMeta(int maxRetry, long lastSeq) {}

  private final String journalTable;

  /** @param journalTable the journal's table, qualified with its schema when one is configured */
  InstanceStore(String journalTable) {
    this.journalTable = journalTable;
  }

  /**
   * @param config the configuration naming the journal's table ({@code jdbc-journal.tables.event_journal})
   * @return a store on that journal table
   */
  static InstanceStore of(Config config) {
    String path = "jdbc-journal.tables.event_journal.";
    String schema = config.hasPath(path + "schemaName") ? config.getString(path + "schemaName") : "";
    String name = config.getString(path + "tableName");
    return new InstanceStore(schema.isEmpty() ? name : schema + "." + name);
  }

  // ---------------------------------------------------------------------------------------------
  // Rows

  static InstanceRow read(ResultSet rs, boolean history) throws SQLException {
    return new InstanceRow(
        rs.getString(1),
        rs.getString(2),
        instant(rs, 3),
        instant(rs, 4),
        InstanceStatus.valueOf(rs.getString(5)),
        rs.getInt(6),
        rs.getInt(7),
        rs.getInt(8),
        rs.getString(9) == null ? null : RunKind.valueOf(rs.getString(9)),
        rs.getString(10),
        rs.getString(11),
        instant(rs, 12),
        instant(rs, 13),
        instant(rs, 14),
        instant(rs, 15),
        instant(rs, 16),
        rs.getLong(17),
        history ? instant(rs, NCOLS + 1) : null,
        instant(rs, 18),
        rs.getLong(19),
        rs.getLong(20),
        rs.getString(21),
        rs.getString(22),
        rs.getLong(23),
        rs.getLong(24),
        rs.getBigDecimal(25),
        rs.getString(26),
        instant(rs, 27),
        rs.getString(28),
        rs.getString(29) == null ? null : io.almanac.PoolWaitReason.valueOf(rs.getString(29)),
        instant(rs, 30),
        reasonCode(InstanceStatus.valueOf(rs.getString(5)), rs.getString(31)));
  }

  /**
   * The typed cause a {@code reason_code} column names, by the row's status (a SkipReason of a SKIPPED
   * row, a MissReason of a MISSED one, an EndCause of a failed, timed out, interrupted, retry-waiting,
   * final-failed or cancelled one); null for none, for any other status, and for a name this build
   * does not know (the row still reads).
   */
  static io.almanac.ReasonCode reasonCode(InstanceStatus status, String name) {
    if (name == null) {
      return null;
    }
    try {
      return status == InstanceStatus.SKIPPED ? io.almanac.SkipReason.valueOf(name)
          : status == InstanceStatus.MISSED ? io.almanac.MissReason.valueOf(name)
          : io.almanac.journal.WindowState.keepsEndCause(status) ? io.almanac.EndCause.valueOf(name) : null;
    } catch (IllegalArgumentException unknown) {
      return null;
    }
  }

  /** Binds the row's columns at 1..31 in {@link #COLUMNS} order. */
  static void bind(PreparedStatement p, InstanceRow r) throws SQLException {
    p.setString(1, r.taskId());
    p.setString(2, r.windowKey());
    time(p, 3, r.windowStart());
    time(p, 4, r.windowEnd());
    p.setString(5, r.status().name());
    p.setInt(6, r.attempt());
    p.setInt(7, r.retryCount());
    p.setInt(8, r.maxRetry());
    p.setString(9, r.runKind() == null ? null : r.runKind().name());
    p.setString(10, r.resultSummary());
    p.setString(11, r.failReason());
    time(p, 12, r.scheduledAt());
    time(p, 13, r.startedAt());
    time(p, 14, r.finishedAt());
    time(p, 15, r.createdAt());
    time(p, 16, r.updatedAt());
    p.setLong(17, r.lastSeq());
    time(p, 18, r.waitUntil());
    p.setLong(19, r.eventCount());
    p.setLong(20, r.eventDuplicates());
    p.setString(21, r.firstEventId());
    p.setString(22, r.lastEventId());
    p.setLong(23, r.tokensIn());
    p.setLong(24, r.tokensOut());
    p.setBigDecimal(25, r.cost());
    p.setString(26, r.model());
    time(p, 27, r.deadlineMissedAt());
    p.setString(28, r.poolWaitPool());
    p.setString(29, r.poolWaitReason() == null ? null : r.poolWaitReason().name());
    time(p, 30, r.poolWaitUntil());
    p.setString(31, r.reasonCode() == null ? null : r.reasonCode().name());
  }

  static void time(PreparedStatement p, int i, Instant t) throws SQLException {
    if (t == null) {
      p.setNull(i, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      p.setObject(i, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
    }
  }

  static Instant instant(ResultSet rs, int i) throws SQLException {
    OffsetDateTime t = rs.getObject(i, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /** @return the live row, else the history row, of a window */
  Optional<InstanceRow> row(Connection c, String taskId, String windowKey, boolean history) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT " + COLUMNS + (history ? ", moved_at" : "") + " FROM "
        + (history ? HISTORY : LIVE) + " WHERE task_id = ? AND window_key = ?")) {
      p.setString(1, taskId);
      p.setString(2, windowKey);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? Optional.of(read(rs, history)) : Optional.empty();
      }
    }
  }

  /** Keys per query of {@link #rows}. */
  private static final int KEYS_PER_QUERY = 100;

  /**
   * @param keys (task id, window key) pairs
   * @param history whether to read the history table
   * @return the rows found, by task id + NUL + window key
   */
  Map<String, InstanceRow> rows(Connection c, Collection<String[]> keys, boolean history) throws SQLException {
    Map<String, InstanceRow> out = new HashMap<>();
    List<String[]> all = new ArrayList<>(keys);
    for (int from = 0; from < all.size(); from += KEYS_PER_QUERY) {
      List<String[]> chunk = all.subList(from, Math.min(all.size(), from + KEYS_PER_QUERY));
      String sql = "SELECT " + COLUMNS + (history ? ", moved_at" : "") + " FROM " + (history ? HISTORY : LIVE)
          + " WHERE (task_id, window_key) IN (" + String.join(", ", java.util.Collections.nCopies(chunk.size(), "(?, ?)")) + ")";
      try (PreparedStatement p = c.prepareStatement(sql)) {
        int i = 1;
        for (String[] k : chunk) {
          p.setString(i++, k[0]);
          p.setString(i++, k[1]);
        }
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            InstanceRow r = read(rs, history);
            out.put(r.taskId() + '\u0000' + r.windowKey(), r);
          }
        }
      }
    }
    return out;
  }

  /** Inserts live rows (batched). */
  void insert(Connection c, Collection<InstanceRow> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    try (PreparedStatement p = c.prepareStatement("INSERT INTO " + LIVE + " (" + COLUMNS + ") VALUES ("
        + "?, ".repeat(NCOLS - 1) + "?)")) {
      for (InstanceRow r : rows) {
        bind(p, r);
        p.addBatch();
      }
      p.executeBatch();
    }
  }

  /** Updates live rows by key (batched). */
  void update(Connection c, Collection<InstanceRow> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    try (PreparedStatement p = c.prepareStatement("UPDATE " + LIVE + " SET window_start = ?, window_end = ?, status = ?, "
        + "attempt = ?, retry_count = ?, max_retry = ?, run_kind = ?, result_summary = ?, fail_reason = ?, scheduled_at = ?, "
        + "started_at = ?, finished_at = ?, created_at = ?, updated_at = ?, last_seq = ?, wait_until = ?, event_count = ?, "
        + "event_duplicates = ?, first_event_id = ?, last_event_id = ?, tokens_in = ?, tokens_out = ?, cost = ?, model = ?, "
        + "deadline_missed_at = ?, pool_wait_pool = ?, pool_wait_reason = ?, pool_wait_until = ?, "
        + "reason_code = ? WHERE task_id = ? AND window_key = ?")) {
      for (InstanceRow r : rows) {
        time(p, 1, r.windowStart());
        time(p, 2, r.windowEnd());
        p.setString(3, r.status().name());
        p.setInt(4, r.attempt());
        p.setInt(5, r.retryCount());
        p.setInt(6, r.maxRetry());
        p.setString(7, r.runKind() == null ? null : r.runKind().name());
        p.setString(8, r.resultSummary());
        p.setString(9, r.failReason());
        time(p, 10, r.scheduledAt());
        time(p, 11, r.startedAt());
        time(p, 12, r.finishedAt());
        time(p, 13, r.createdAt());
        time(p, 14, r.updatedAt());
        p.setLong(15, r.lastSeq());
        time(p, 16, r.waitUntil());
        p.setLong(17, r.eventCount());
        p.setLong(18, r.eventDuplicates());
        p.setString(19, r.firstEventId());
        p.setString(20, r.lastEventId());
        p.setLong(21, r.tokensIn());
        p.setLong(22, r.tokensOut());
        p.setBigDecimal(23, r.cost());
        p.setString(24, r.model());
        time(p, 25, r.deadlineMissedAt());
        p.setString(26, r.poolWaitPool());
        p.setString(27, r.poolWaitReason() == null ? null : r.poolWaitReason().name());
        time(p, 28, r.poolWaitUntil());
        p.setString(29, r.reasonCode() == null ? null : r.reasonCode().name());
        p.setString(30, r.taskId());
        p.setString(31, r.windowKey());
        p.addBatch();
      }
      p.executeBatch();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Tasks and offset

  Map<String, TaskMeta> tasks(Connection c) throws SQLException {
    Map<String, TaskMeta> out = new HashMap<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT task_id, max_retry, last_seq FROM " + TASKS)) {
      while (rs.next()) {
        out.put(rs.getString(1), new TaskMeta(rs.getInt(2), rs.getLong(3)));
      }
    }
    return out;
  }

  void saveTasks(Connection c, Map<String, TaskMeta> changed, Map<String, Boolean> existed) throws SQLException {
    if (changed.isEmpty()) {
      return;
    }
    try (PreparedStatement up = c.prepareStatement("UPDATE " + TASKS + " SET max_retry = ?, last_seq = ? WHERE task_id = ?");
        PreparedStatement in = c.prepareStatement("INSERT INTO " + TASKS + " (task_id, max_retry, last_seq) VALUES (?, ?, ?)")) {
      for (Map.Entry<String, TaskMeta> e : changed.entrySet()) {
        if (Boolean.TRUE.equals(existed.get(e.getKey()))) {
          up.setInt(1, e.getValue().maxRetry());
          up.setLong(2, e.getValue().lastSeq());
          up.setString(3, e.getKey());
          up.executeUpdate();
        } else {
          in.setString(1, e.getKey());
          in.setInt(2, e.getValue().maxRetry());
          in.setLong(3, e.getValue().lastSeq());
          in.executeUpdate();
        }
      }
    }
  }

  /**
   * Locks the projection's offset row for this transaction (creating it at 0), so that two
   * instances of a projection (a singleton's hand-over) apply batches one after the other.
   *
   * @return the stored offset
   */
  long lockOffset(Connection c, String name, Instant now) throws SQLException {
    Long stored = selectOffsetForUpdate(c, name);
    if (stored != null) {
      return stored;
    }
    // No row yet: a FOR UPDATE of a missing row locks nothing, so two workers (the live projection and a
    // rebuild) may both insert it. The loser's insert is undone to a savepoint (PostgreSQL would abort the
    // whole transaction on the error) and it locks the winner's row instead.
    java.sql.Savepoint before = c.getAutoCommit() ? null : c.setSavepoint();
    try (PreparedStatement p = c.prepareStatement("INSERT INTO " + OFFSETS
        + " (projection_name, current_offset, updated_at) VALUES (?, 0, ?)")) {
      p.setString(1, name);
      time(p, 2, now);
      p.executeUpdate();
    } catch (SQLException e) {
      if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
        throw e;
      }
      if (before != null) {
        c.rollback(before);
      }
      Long theirs = selectOffsetForUpdate(c, name);
      if (theirs == null) {
        throw e;
      }
      return theirs;
    }
    if (before != null) {
      c.releaseSavepoint(before);
    }
    return 0;
  }

  /** SQLState of a unique key violation, on H2 and PostgreSQL. */
  private static final String UNIQUE_VIOLATION = "23505";

  private static Long selectOffsetForUpdate(Connection c, String name) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT current_offset FROM " + OFFSETS
        + " WHERE projection_name = ? FOR UPDATE")) {
      p.setString(1, name);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  void saveOffset(Connection c, String name, long offset, Instant now) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("UPDATE " + OFFSETS
        + " SET current_offset = ?, updated_at = ? WHERE projection_name = ?")) {
      p.setLong(1, offset);
      time(p, 2, now);
      p.setString(3, name);
      p.executeUpdate();
    }
  }

  /** @return the stored offset of a projection, 0 when it has none */
  long offset(Connection c, String name) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT current_offset FROM " + OFFSETS + " WHERE projection_name = ?")) {
      p.setString(1, name);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /** Empties the rows, the history, the tasks' memory and every offset. */
  void truncate(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String t : List.of(LIVE, HISTORY, TASKS, OFFSETS)) {
        s.executeUpdate("DELETE FROM " + t);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Journal

  /** @return whether the journal holds an event of this persistence id (one index probe) */
  boolean hasEvents(Connection c, String persistenceId) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT 1 FROM " + journalTable
        + " WHERE persistence_id = ? AND sequence_number >= 1 LIMIT 1")) {
      p.setString(1, persistenceId);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** @return the journal's highest ordering, 0 when it is empty */
  long head(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT MAX(ordering) FROM " + journalTable)) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  /** @return up to {@code limit} journal rows after {@code offset}, by ordering */
  List<JournalRow> after(Connection c, long offset, int limit) throws SQLException {
    List<JournalRow> out = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("SELECT ordering, persistence_id, sequence_number, write_timestamp, "
        + "event_payload, event_ser_id, event_ser_manifest FROM " + journalTable
        + " WHERE ordering > ? ORDER BY ordering LIMIT ?")) {
      p.setLong(1, offset);
      p.setInt(2, limit);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          out.add(new JournalRow(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getBytes(5), rs.getInt(6),
              rs.getString(7)));
        }
      }
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Retention

  /**
   * Moves one batch of the rows {@link RetentionRule} selects to the history table (a row already
   * there for the same window is replaced by the newer one).
   *
   * @return how many rows moved
   */
  int moveBatch(Connection c, RetentionRule rule, Instant now, int batch) throws SQLException {
    List<String[]> keys = new ArrayList<>();
    StringBuilder in = new StringBuilder();
    for (InstanceStatus s : RetentionRule.STATUSES) {
      in.append(in.length() == 0 ? "" : ", ").append('\'').append(s.name()).append('\'');
    }
    try (PreparedStatement p = c.prepareStatement("SELECT task_id, window_key FROM " + LIVE + " WHERE updated_at < ? AND status IN ("
        + in + ") ORDER BY updated_at, task_id, window_key LIMIT ?")) {
      time(p, 1, rule.cutoff(now));
      p.setInt(2, batch);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          keys.add(new String[] {rs.getString(1), rs.getString(2)});
        }
      }
    }
    if (keys.isEmpty()) {
      return 0;
    }
    try (PreparedStatement del = c.prepareStatement("DELETE FROM " + HISTORY + " WHERE task_id = ? AND window_key = ?");
        PreparedStatement copy = c.prepareStatement("INSERT INTO " + HISTORY + " (" + COLUMNS + ", moved_at) SELECT " + COLUMNS
            + ", ? FROM " + LIVE + " WHERE task_id = ? AND window_key = ?");
        PreparedStatement drop = c.prepareStatement("DELETE FROM " + LIVE + " WHERE task_id = ? AND window_key = ?")) {
      for (String[] k : keys) {
        del.setString(1, k[0]);
        del.setString(2, k[1]);
        del.addBatch();
        time(copy, 1, now);
        copy.setString(2, k[0]);
        copy.setString(3, k[1]);
        copy.addBatch();
        drop.setString(1, k[0]);
        drop.setString(2, k[1]);
        drop.addBatch();
      }
      del.executeBatch();
      copy.executeBatch();
      drop.executeBatch();
    }
    return keys.size();
  }

}
