package io.almanac.persistence.instances;

import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;

/**
 * Reads the instance table (R29) for operators: pages of rows by task, status and window start,
 * with keyset paging, and single rows. Reads through the journal's connection pool; thread-safe.
 * The blocking methods run JDBC on the calling thread; the {@code Async} ones on Pekko's blocking
 * dispatcher.
 *
 * <pre>{@code
 * InstanceQueries q = InstanceQueries.create(system);
 * InstancePage page = q.find(InstanceFilter.builder().task("digest").status("FINAL_FAILED").limit(50).build());
 * while (page.next() != null) {
 *   page = q.find(InstanceFilter.builder().task("digest").status("FINAL_FAILED").limit(50).after(page.next()).build());
 * }
 * }</pre>
 */
public final class InstanceQueries implements AutoCloseable {

  private final JournalDb db;
  private final Executor blocking;
  private final InstanceStore store;

  private InstanceQueries(JournalDb db, Executor blocking, InstanceStore store) {
    this.db = db;
    this.blocking = blocking;
    this.store = store;
  }

  /**
   * @param system an ActorSystem whose configuration names the journal (e.g. {@code almanac-h2.conf})
   * @return queries on its journal's database
   */
  public static InstanceQueries create(ActorSystem<?> system) {
    Objects.requireNonNull(system, "system");
    return new InstanceQueries(JournalDb.of(system), system.dispatchers().lookup(DispatcherSelector.blocking()),
        InstanceStore.of(system.settings().config()));
  }

  /**
   * One page of rows, in the order (window start, task id, window key), or its reverse for a
   * {@linkplain InstanceFilter#descending() descending} filter.
   *
   * @param filter what to select (validated when it was built)
   * @return the page; its {@code next} is null on the last page
   * @throws InstanceStoreException when the database fails
   */
  public InstancePage find(InstanceFilter filter) {
    Objects.requireNonNull(filter, "filter");
    try (Connection c = db.connect()) {
      return find(c, filter);
    } catch (SQLException e) {
      throw new InstanceStoreException("instance table query failed: " + e.getMessage(), e);
    }
  }

  /**
   * {@link #find(InstanceFilter)} on the blocking dispatcher.
   *
   * @param filter what to select
   * @return the page, or a failure with an {@link InstanceStoreException}
   */
  public CompletionStage<InstancePage> findAsync(InstanceFilter filter) {
    return CompletableFuture.supplyAsync(() -> find(filter), blocking);
  }

  /**
   * One window's row: the live one, else the one retention moved to the history table (with its
   * {@code movedAt}).
   *
   * @param taskId the task
   * @param windowKey the window's key
   * @return the row, or empty when the table has none
   * @throws InvalidSpecException naming {@code task} or {@code window} when empty
   * @throws InstanceStoreException when the database fails
   */
  public Optional<InstanceRow> row(String taskId, String windowKey) {
    if (taskId == null || taskId.isEmpty()) {
      throw new InvalidSpecException("task", taskId, "must not be empty");
    }
    if (windowKey == null || windowKey.isEmpty()) {
      throw new InvalidSpecException("window", windowKey, "must not be empty");
    }
    try (Connection c = db.connect()) {
      Optional<InstanceRow> live = store.row(c, taskId, windowKey, false);
      return live.isPresent() ? live : store.row(c, taskId, windowKey, true);
    } catch (SQLException e) {
      throw new InstanceStoreException("instance table query failed: " + e.getMessage(), e);
    }
  }

  /**
   * {@link #row(String, String)} on the blocking dispatcher.
   *
   * @param taskId the task
   * @param windowKey the window's key
   * @return the row or empty, or a failure
   */
  public CompletionStage<Optional<InstanceRow>> rowAsync(String taskId, String windowKey) {
    return CompletableFuture.supplyAsync(() -> row(taskId, windowKey), blocking);
  }

  /**
   * Whether the task has a journal (any event): true for a registered task and for a removed one,
   * false for an id never registered. One index probe on the journal table; no entity is started.
   *
   * @param taskId the task
   * @return whether the journal holds an event of the task
   * @throws InstanceStoreException when the database fails
   */
  public boolean hasTaskJournal(String taskId) {
    Objects.requireNonNull(taskId, "taskId");
    try (Connection c = db.connect()) {
      return store.hasEvents(c, io.almanac.journal.TaskJournal.persistenceId(taskId));
    } catch (SQLException e) {
      throw new InstanceStoreException("journal query failed: " + e.getMessage(), e);
    }
  }

  /**
   * {@link #hasTaskJournal(String)} on the blocking dispatcher.
   *
   * @param taskId the task
   * @return whether the journal holds an event of the task, or a failure
   */
  public CompletionStage<Boolean> hasTaskJournalAsync(String taskId) {
    return CompletableFuture.supplyAsync(() -> hasTaskJournal(taskId), blocking);
  }

  /** Closes the connection pool if it is this object's own (a journal without use-shared-db). */
  @Override
  public void close() {
    db.close();
  }

  static InstancePage find(Connection c, InstanceFilter f) throws SQLException {
    String table = f.history() ? InstanceStore.HISTORY : InstanceStore.LIVE;
    String cols = InstanceStore.COLUMNS + (f.history() ? ", moved_at" : "");
    int fetch = f.limit() + 1;
    List<Object> args = new ArrayList<>();
    String sql;
    if (f.statuses().size() <= 1) {
      sql = select(cols, table, f, f.statuses().isEmpty() ? null : f.statuses().iterator().next(), args) + " LIMIT " + fetch;
    } else {
      // One ordered, limited scan per status (each on the status index), merged: an IN list would
      // have to read every matching row and sort them.
      StringBuilder u = new StringBuilder("SELECT " + cols + " FROM (");
      boolean first = true;
      for (InstanceStatus s : f.statuses()) {
        u.append(first ? "" : " UNION ALL ").append('(').append(select(cols, table, f, s, args)).append(" LIMIT ")
            .append(fetch).append(')');
        first = false;
      }
      String dir = f.descending() ? " DESC" : "";
      u.append(") u ORDER BY ").append(f.byUpdated() ? "updated_at" : "window_start").append(dir).append(", task_id").append(dir).append(", window_key").append(dir)
          .append(" LIMIT ").append(fetch);
      sql = u.toString();
    }
    List<InstanceRow> rows = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement(sql)) {
      for (int i = 0; i < args.size(); i++) {
        Object a = args.get(i);
        if (a instanceof java.time.Instant t) {
          InstanceStore.time(p, i + 1, t);
        } else {
          p.setString(i + 1, (String) a);
        }
      }
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          rows.add(InstanceStore.read(rs, f.history()));
        }
      }
    }
    if (rows.size() > f.limit()) {
      List<InstanceRow> page = rows.subList(0, f.limit());
      return new InstancePage(page, Cursor.of(page.get(page.size() - 1), f.byUpdated()).encode());
    }
    return new InstancePage(rows, null);
  }

  private static String select(String cols, String table, InstanceFilter f, InstanceStatus status, List<Object> args) {
    StringBuilder sql = new StringBuilder("SELECT ").append(cols).append(" FROM ").append(table).append(" WHERE 1 = 1");
    if (f.taskId() != null) {
      sql.append(" AND task_id = ?");
      args.add(f.taskId());
    }
    if (status != null) {
      sql.append(" AND status = ?");
      args.add(status.name());
    }
    String at = f.byUpdated() ? "updated_at" : "window_start";
    if (f.from() != null) {
      sql.append(" AND ").append(at).append(" >= ?");
      args.add(f.from());
    }
    if (f.to() != null) {
      sql.append(" AND ").append(at).append(" < ?");
      args.add(f.to());
    }
    Optional<Cursor> after = f.cursor();
    if (after.isPresent()) {
      // The first condition is implied by the second; it gives the index scan its start (its end,
      // scanning backwards for a descending page).
      sql.append(f.descending() ? " AND " + at + " <= ? AND (" + at + ", task_id, window_key) < (?, ?, ?)"
          : " AND " + at + " >= ? AND (" + at + ", task_id, window_key) > (?, ?, ?)");
      args.add(after.get().windowStart());
      args.add(after.get().windowStart());
      args.add(after.get().taskId());
      args.add(after.get().windowKey());
    }
    if (f.byUpdated()) {
      // almanac_instance_updated_key_idx, read over the range [from, to) only (both bounds are required and
      // at most InstanceFilter.MAX_UPDATED_RANGE apart): a task or status is a filter on the rows it reads
      String dir = f.descending() ? " DESC" : "";
      return sql.append(" ORDER BY updated_at").append(dir).append(", task_id").append(dir).append(", window_key")
          .append(dir).toString();
    }
    return sql.append(" ORDER BY ").append(order(f.taskId() != null, status != null, f.descending())).toString();
  }

  /**
   * The page order (window_start, task_id, window_key), written as the columns of the index that
   * serves the filter: with the task (or the status) fixed by the filter, leading with that column
   * is the same order, and lets a database that sorts by index only when the ORDER BY is a prefix of
   * the index (H2) read the first rows of the index instead of sorting every matching row.
   * Descending, every column is DESC: the same index, scanned backwards.
   */
  static String order(boolean taskFixed, boolean statusFixed, boolean descending) {
    String asc = order(taskFixed, statusFixed);
    return descending ? asc.replace(",", " DESC,") + " DESC" : asc;
  }

  private static String order(boolean taskFixed, boolean statusFixed) {
    if (taskFixed && statusFixed) {
      return "task_id, status, window_start, window_key"; // almanac_instance_task_status_idx
    }
    if (taskFixed) {
      return "task_id, window_start, window_key"; // almanac_instance_task_idx
    }
    if (statusFixed) {
      return "status, window_start, task_id, window_key"; // almanac_instance_status_idx
    }
    return "window_start, task_id, window_key"; // almanac_instance_start_idx
  }
}
