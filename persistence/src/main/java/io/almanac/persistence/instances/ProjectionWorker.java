package io.almanac.persistence.instances;

import io.almanac.journal.Evolve;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.WindowEvent;
import io.almanac.persistence.instances.InstanceStore.JournalRow;
import io.almanac.persistence.instances.InstanceStore.TaskMeta;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One projection's work, without actors: {@link #step} reads a batch of journal rows after the
 * offset, applies them to the rows and writes rows and offset in one transaction. Single-threaded:
 * its owner runs one step at a time. An event it cannot deserialize (a newer node's, during a
 * rolling upgrade) is never passed over: the step applies the events before it and the next step
 * fails on it ({@link UnreadableEventException}, rolled back, the offset stays before it), again at
 * each retry, until a node that reads it runs the projection or the table is rebuilt. INTERNAL.
 */
final class ProjectionWorker {

  private static final Logger log = LoggerFactory.getLogger(ProjectionWorker.class);

  /** Turns a journal row's payload into its event. */
  @FunctionalInterface
  interface Deserializer {
    Object deserialize(byte[] payload, int serId, String manifest) throws Exception;
  }

  /**
   * What a step did.
   *
   * @param events journal rows applied
   * @param more whether a full batch was applied (read again at once)
   * @param atHole whether it stopped at a hole not waited for long enough (read again soon: on a
   *     busy PostgreSQL journal most holes are inserts committing a few milliseconds later)
   * @param offset the offset after the step
   * @param head the journal's head as the step saw it
   */
  record Step(int events, boolean more, boolean atHole, long offset, long head) {}

  /** Figures a step leaves for {@link InstanceProjection.Handle#lag()}; read by other threads. */
  static final class Progress {
    volatile long offset;
    volatile long head;
    /** The write time (epoch millis) of the first journal row not yet applied, or -1 when none is known. */
    volatile long pendingSinceMillis = -1;
    /** At the last commit: its time minus the write time of the oldest event it applied, or -1. */
    volatile long lastApplyDelayMillis = -1;
    volatile boolean running;
    /** Failed polls (or retention runs) in a row; 0 after a success. */
    volatile int failures;
    /** Warnings logged about failures since start. */
    volatile int warnings;
  }

  private record Slot(InstanceRow row, boolean live, boolean dirty) {}

  private final String name;
  private final InstanceStore store;
  private final Deserializer deserializer;
  private final int batchSize;
  private final GapTracker gaps;
  private final Progress progress;
  private long offset = -1; // unknown until the first step
  private Map<String, TaskMeta> tasks;

  ProjectionWorker(String name, InstanceStore store, Deserializer deserializer, InstanceSettings settings, Progress progress) {
    this.name = name;
    this.store = store;
    this.deserializer = deserializer;
    this.batchSize = settings.batchSize();
    this.gaps = new GapTracker(settings.gapWait());
    this.progress = progress;
  }

  long offset() {
    return offset;
  }

  /** Forgets what it holds in memory: the next step reads offset and tasks from the database. */
  void forget() {
    offset = -1;
    tasks = null;
    gaps.reset();
  }

  /**
   * Applies the next batch: rows, tasks' memory and offset commit together, or nothing does.
   *
   * @param c a connection of the journal's database (its auto-commit is restored afterwards)
   * @param now the current time (the offset's updated_at); holes are waited for in real time
   * @return what it did
   * @throws SQLException when the database fails; the transaction is rolled back and memory forgotten
   */
  Step step(Connection c, Instant now) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      long stored = store.lockOffset(c, name, now);
      if (stored != offset) {
        if (offset >= 0) {
          log.info("instance projection '{}': the stored offset is {} where this instance had {}; continuing from it",
              name, stored, offset);
        }
        offset = stored;
        tasks = null;
        gaps.reset();
      }
      if (tasks == null) {
        tasks = store.tasks(c);
      }
      long head = store.head(c);
      // Holes are waited for in real time (how long a commit can take), not on the business clock.
      Instant real = Instant.now();
      gaps.observe(real, head);
      List<JournalRow> rows = store.after(c, offset, batchSize);
      long settled = gaps.settledThrough(real);
      long next = offset;
      int applied = 0;
      long oldestWrite = Long.MAX_VALUE;
      long pendingSince = -1;
      List<JournalRow> take = new ArrayList<>(rows.size());
      for (JournalRow r : rows) {
        if (r.ordering() != next + 1 && r.ordering() - 1 > settled) {
          pendingSince = r.writeMillis(); // a hole not yet waited for long enough
          break;
        }
        take.add(r);
        next = r.ordering();
      }
      // Decode first, then read every window's row the batch touches in a few queries.
      List<Object> events = new ArrayList<>(take.size());
      Map<String, String[]> keys = new LinkedHashMap<>();
      boolean stoppedAtUnreadable = false;
      for (int i = 0; i < take.size(); i++) {
        JournalRow r = take.get(i);
        Object e;
        try {
          e = decode(r);
        } catch (UnreadableEventException unreadable) {
          if (i == 0) {
            throw unreadable; // rolled back below: the offset stays before it
          }
          // apply the events before it; the next step starts at it, and fails
          take = take.subList(0, i);
          next = take.get(i - 1).ordering();
          pendingSince = r.writeMillis();
          stoppedAtUnreadable = true;
          break;
        }
        events.add(e);
        if (e instanceof WindowEvent we) {
          String taskId = r.persistenceId().substring(TASK_PREFIX.length());
          keys.putIfAbsent(taskId + '\u0000' + we.window(), new String[] {taskId, we.window()});
        }
      }
      Map<String, Slot> slots = new LinkedHashMap<>();
      Map<String, InstanceRow> live = store.rows(c, keys.values(), false);
      List<String[]> notLive = new ArrayList<>();
      keys.forEach((k, v) -> {
        if (!live.containsKey(k)) {
          notLive.add(v);
        }
      });
      Map<String, InstanceRow> moved = store.rows(c, notLive, true);
      keys.forEach((k, v) -> slots.put(k, live.containsKey(k) ? new Slot(live.get(k), true, false)
          : new Slot(moved.get(k), false, false)));
      Map<String, TaskMeta> changedTasks = new LinkedHashMap<>();
      Map<String, Boolean> taskExisted = new HashMap<>();
      for (int i = 0; i < take.size(); i++) {
        JournalRow r = take.get(i);
        apply(r, events.get(i), slots, changedTasks, taskExisted);
        applied++;
        oldestWrite = Math.min(oldestWrite, r.writeMillis());
      }
      boolean stoppedAtGap = applied < rows.size() && !stoppedAtUnreadable;
      if (!stoppedAtGap && !stoppedAtUnreadable && applied > 0 && next < head) {
        pendingSince = rows.get(applied - 1).writeMillis(); // more to read: at least as old as the last one read
      }
      if (next != offset) {
        List<InstanceRow> inserts = new ArrayList<>();
        List<InstanceRow> updates = new ArrayList<>();
        for (Slot s : slots.values()) {
          if (s.dirty()) {
            (s.live() ? updates : inserts).add(s.row());
          }
        }
        store.update(c, updates);
        store.insert(c, inserts);
        store.saveTasks(c, changedTasks, taskExisted);
        store.saveOffset(c, name, next, now);
      }
      c.commit();
      tasks.putAll(changedTasks);
      offset = next;
      progress.offset = next;
      progress.head = head;
      progress.pendingSinceMillis = pendingSince;
      if (applied > 0) {
        progress.lastApplyDelayMillis = Math.max(0, System.currentTimeMillis() - oldestWrite);
      }
      return new Step(applied, stoppedAtUnreadable || !stoppedAtGap && rows.size() == batchSize, stoppedAtGap, next, head);
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      forget();
      throw e;
    } finally {
      try {
        c.setAutoCommit(autoCommit);
      } catch (SQLException ignored) {
        // the connection goes back to the pool, which resets it
      }
    }
  }

  private static final String TASK_PREFIX = "task|";

  /**
   * @return the row's event, or null for another journal than a task's
   * @throws UnreadableEventException for a task event that cannot be deserialized: the step fails
   *     (rolled back, the offset stays before the row), so it is not passed over for good; a node
   *     that reads it (e.g. a newer version, after a rolling upgrade) or a rebuild applies it
   */
  private Object decode(JournalRow r) {
    if (!r.persistenceId().startsWith(TASK_PREFIX)) {
      return null; // the trigger's journal and others
    }
    try {
      return deserializer.deserialize(r.payload(), r.serId(), r.manifest());
    } catch (Exception e) {
      throw new UnreadableEventException("journal row " + r.ordering() + " (" + r.persistenceId() + " #" + r.seq()
          + ", serializer " + r.serId() + ", manifest '" + r.manifest() + "') cannot be deserialized on this node ("
          + e + "); the projection stays before it until a node that reads it takes over (a newer version) or the "
          + "table is rebuilt", e);
    }
  }

  /** A task event this node cannot deserialize: the step that meets it fails. */
  static final class UnreadableEventException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableEventException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private void apply(JournalRow r, Object event, Map<String, Slot> slots, Map<String, TaskMeta> changedTasks,
      Map<String, Boolean> taskExisted) {
    if (event == null) {
      return;
    }
    String taskId = r.persistenceId().substring(TASK_PREFIX.length());
    if (event instanceof SpecDefined d) {
      TaskMeta known = changedTasks.containsKey(taskId) ? changedTasks.get(taskId) : tasks.get(taskId);
      if (known == null || r.seq() > known.lastSeq()) {
        taskExisted.putIfAbsent(taskId, tasks.containsKey(taskId));
        changedTasks.put(taskId, new TaskMeta(d.spec().retry().maxRetries(), r.seq()));
      }
      return;
    }
    if (!(event instanceof WindowEvent we)) {
      return;
    }
    String key = taskId + '\u0000' + we.window();
    Slot slot = slots.get(key);
    TaskMeta meta = changedTasks.containsKey(taskId) ? changedTasks.get(taskId) : tasks.get(taskId);
    int maxRetry = meta == null ? 0 : meta.maxRetry();
    Optional<InstanceRow> next = RowMapping.apply(slot.row(), taskId, maxRetry, r.seq(), we,
        Evolve.Violations.logTo(log, "instance projection: task '" + taskId + "'"));
    if (next.isPresent()) {
      slots.put(key, new Slot(next.get(), slot.live(), true));
    } else {
      slots.put(key, slot);
    }
  }
}
