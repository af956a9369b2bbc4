package io.almanac.persistence;

import io.almanac.persistence.H2Compaction.FileSize;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;
import org.h2.mvstore.MVStoreTool;
import org.h2.mvstore.db.Store;
import org.h2.store.fs.FileUtils;

/**
 * The file of an embedded H2 database (H2's MVStore) and the two compactions {@link H2Compaction}
 * runs on it: online in small steps, reached from one of the database's JDBC connections, and
 * offline before the node opens the file. INTERNAL.
 *
 * <p>Why it is needed (H2 2.3.232's source): with {@code WRITE_DELAY=0} every commit is written as a
 * new chunk at once, and H2 sets the MVStore's auto-commit delay to 0, which never starts the
 * MVStore's background writer thread ({@code FileStore.setAutoCommitDelay} starts it only for a
 * delay above 0). That thread is the only caller of {@code doHousekeeping}, which rewrites sparse
 * chunks and moves chunks to shrink the file ({@code AUTO_COMPACT_FILL_RATE}). So nothing compacts
 * while the database is open: an old chunk stays as long as one of its pages is live, and a dead one
 * is kept {@code RETENTION_TIME} (45 s) before its space is reused. The compaction H2 runs when it
 * closes ({@code MAX_COMPACT_TIME}) rewrites pages without committing them before it moves chunks,
 * so a stopped node's file hardly shrinks either (almanac-h2.conf turns it off); and a node killed
 * with {@code kill -9} never closes.
 *
 * <p><b>Online</b> ({@link #compact}), a step is: {@link MVStore#compact} rewrites the live pages of
 * up to {@link #STEP_BYTES} of chunks (the oldest and sparsest first; in memory, under H2's store
 * lock), a commit writes them as one new chunk at the first free place of the file (the chunks they
 * came from are dead now), an {@code fsync} puts that commit on disk, and {@code
 * FileStore.dropUnusedChunks} frees the dead chunks; the next chunk written before the end of the
 * file cuts the free end off. These are the calls H2's own background compaction makes, and the
 * commits are ordinary ones: a {@code kill -9} at any moment leaves the last commit, with every
 * chunk it references ({@code H2CompactionCrashTest}). It does not move chunks ({@code
 * RandomAccessStore.compactMoveChunks}): in 2.3.232 that can place a moved chunk over space that the
 * last stored version still references (fixed after 2.4.240 in "fix corner case with improper
 * allocation in moveChunkInside"), so a kill in between could lose it. While H2 rewrites or frees
 * (each call holding its store lock) the retention time is 0, as in H2's own {@code
 * MVStore.compactFile}; the journal's commits between the calls keep H2's 45 s.
 *
 * <p>A chunk whose pages are all live is never rewritten, so online compaction cannot shrink a file
 * past one near its end (a file grown before this compaction ran, with holes before its last
 * chunks). <b>Offline</b> ({@link #compactClosed}), before the node opens the file: H2's {@link
 * MVStoreTool#compact(String, boolean)} (what {@code SHUTDOWN COMPACT} runs) copies the live data to
 * a new file and renames it over the old one atomically; a kill during the copy leaves the old file
 * and a temporary one that H2 deletes when it next opens the database.
 */
final class H2FileStore {

  /**
   * Live bytes of pages rewritten per step while H2's store lock is held, then written by one
   * commit: the journal's commits wait for about this much I/O at most (1 MB: milliseconds on an SSD).
   */
  static final int STEP_BYTES = 1 << 20;

  private final MVStore store;

  private H2FileStore(MVStore store) {
    this.store = store;
  }

  /**
   * @param c a connection to an H2 database
   * @return the database's file, or empty when the connection is not to an embedded H2 file
   *     database of this JVM (an in-memory database, a TCP client, another database, a read-only file)
   * @throws SQLException if the connection cannot be unwrapped
   */
  static Optional<H2FileStore> of(Connection c) throws SQLException {
    if (!c.isWrapperFor(JdbcConnection.class)) {
      return Optional.empty();
    }
    // A remote (TCP) connection's session is a SessionRemote: the server's process owns the file.
    if (!(c.unwrap(JdbcConnection.class).getSession() instanceof SessionLocal local)) {
      return Optional.empty();
    }
    Store s = local.getDatabase().getStore();
    MVStore mv = s == null ? null : s.getMvStore();
    if (mv == null || mv.isReadOnly() || mv.getFileStore() == null) {
      return Optional.empty();
    }
    return Optional.of(new H2FileStore(mv));
  }

  /**
   * The file's size and how much of it is live data, by H2's own accounting: the share of the file's
   * blocks that chunks occupy ({@code info.FILL_RATE} in INFORMATION_SCHEMA.SETTINGS) times the share
   * of the chunks' bytes still referenced ({@code info.CHUNKS_FILL_RATE}). Reads counters in memory.
   *
   * @return the file's size and its live bytes
   */
  FileSize size() {
    return sizeOf(store.getFileStore());
  }

  private static FileSize sizeOf(FileStore<?> fs) {
    long bytes = fs.size();
    return new FileSize(bytes, bytes * fs.getFillRate() / 100 * fs.getChunksFillRate() / 100);
  }

  /**
   * What one compaction did.
   *
   * @param before the sizes before
   * @param after the sizes after
   * @param steps steps run (0 offline)
   * @param rewritten steps that rewrote pages (0 offline)
   * @param nanos how long it took
   */
  record Compacted(FileSize before, FileSize after, int steps, int rewritten, long nanos) {}

  /**
   * Compacts the open file in steps until nothing is left to rewrite or the deadline has passed
   * (checked after each step, so it is passed by one step at most).
   *
   * @param deadline a {@code nanoTime} value
   * @param nanoTime the clock of the deadline
   * @return the sizes before and after
   */
  Compacted compact(long deadline, LongSupplier nanoTime) {
    long t0 = nanoTime.getAsLong();
    FileSize before = size();
    FileStore<?> fs = store.getFileStore();
    int steps = 0;
    int rewritten = 0;
    while (true) {
      steps++;
      // 101: every chunk with a dead page may be picked, not only while the average fill rate is low
      boolean rewrote = withoutRetention(() -> store.compact(101, STEP_BYTES));
      if (rewrote) {
        rewritten++;
        store.commit();
      }
      // the commits that made chunks dead are on disk before those chunks are freed
      store.sync();
      withoutRetention(() -> {
        store.executeFilestoreOperation(fs::dropUnusedChunks);
        return null;
      });
      // stores the layout without the freed chunks; written before the end of the file, this chunk cuts the free end off
      store.commit();
      if (!rewrote || nanoTime.getAsLong() - deadline >= 0) {
        break;
      }
    }
    return new Compacted(before, size(), steps, rewritten, nanoTime.getAsLong() - t0);
  }

  /**
   * Runs one of H2's compaction calls (each holds H2's store lock throughout) with the retention
   * time 0, as H2's own MVStore.compactFile does, so that young chunks can be rewritten and dead ones
   * freed at once; the journal's commits between the calls keep H2's margin.
   */
  private <T> T withoutRetention(Supplier<T> call) {
    int retention = store.getRetentionTime();
    store.setRetentionTime(0);
    try {
      return call.get();
    } finally {
      store.setRetentionTime(retention);
    }
  }

  /**
   * The database file of an H2 URL, when it names an embedded file database.
   *
   * @param url a JDBC URL
   * @return the {@code .mv.db} file (with H2's file system prefix, e.g. {@code async:}), or empty for
   *     another database, an in-memory one or a server's (tcp:, ssl:)
   */
  static Optional<String> fileOf(String url) {
    if (url == null || !url.startsWith("jdbc:h2:")) {
      return Optional.empty();
    }
    String name = url.substring("jdbc:h2:".length());
    int settings = name.indexOf(';');
    name = settings < 0 ? name : name.substring(0, settings);
    for (String other : new String[] {"mem:", "tcp:", "ssl:", "zip:"}) {
      if (name.startsWith(other)) {
        return Optional.empty();
      }
    }
    return name.isBlank() ? Optional.empty() : Optional.of(name + ".mv.db");
  }

  /**
   * Compacts a closed file (a fresh copy, renamed over it) when {@code over} says it is too large.
   *
   * @param file the {@code .mv.db} file
   * @param over whether the file at its sizes should be compacted
   * @param nanoTime the clock of the reported duration
   * @return what was done, or empty when the file does not exist, is open (in this JVM or another),
   *     or is not too large
   */
  static Optional<Compacted> compactClosed(String file, java.util.function.Predicate<FileSize> over, LongSupplier nanoTime) {
    if (!FileUtils.exists(file)) {
      return Optional.empty();
    }
    long t0 = nanoTime.getAsLong();
    FileSize before;
    try (MVStore closed = new MVStore.Builder().fileName(file).readOnly().open()) {
      before = sizeOf(closed.getFileStore());
    } catch (MVStoreException lockedOrUnreadable) {
      return Optional.empty(); // open already: the online compaction takes care of it; unreadable: the open says why
    }
    if (!over.test(before)) {
      return Optional.empty();
    }
    MVStoreTool.compact(file, false);
    FileSize after;
    try (MVStore fresh = new MVStore.Builder().fileName(file).readOnly().open()) {
      after = sizeOf(fresh.getFileStore());
    }
    return Optional.of(new Compacted(before, after, 0, 0, nanoTime.getAsLong() - t0));
  }
}
