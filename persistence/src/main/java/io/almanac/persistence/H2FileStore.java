package io.almanac.persistence;

import io.almanac.persistence.H2Compaction.FileSize;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.DataUtils;
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
 * file cuts the free end off. Each step also has its commit rewrite the file's header. These are
 * the calls H2's own background compaction makes, and the commits are ordinary ones: a {@code kill
 * -9} at any moment leaves the last acknowledged commit, with every chunk it references ({@code
 * H2CompactionCrashTest}). It does not move chunks ({@code
 * RandomAccessStore.compactMoveChunks}): in 2.3.232 that can place a moved chunk over space that the
 * last stored version still references (fixed after 2.4.240 in "fix corner case with improper
 * allocation in moveChunkInside"), so a kill in between could lose it. While H2 rewrites or frees
 * (each call under its store lock, so no commit of the journal runs meanwhile) the retention time
 * is lowered only as far as the chunk named by the file's header ({@link #headerSafeRetention}):
 * H2's own {@code MVStore.compactFile} lowers it to 0, which lost acknowledged commits under kill -9
 * here. The journal's commits between the calls keep H2's 45 s.
 *
 * <p>A chunk whose pages are all live is never rewritten, so online compaction cannot shrink a file
 * past one near its end (a file grown before this compaction ran, with holes before its last
 * chunks). <b>Offline</b> ({@link #compactClosed}), before the node opens the file: H2's {@link
 * MVStoreTool#compact(String, boolean)} (what {@code SHUTDOWN COMPACT} runs) copies the live data to
 * a new file and renames it over the old one atomically; a kill during the copy leaves the old file
 * and a temporary one that H2 deletes when it next opens the database. A file that was not closed
 * cleanly is not copied but settled ({@link #settleRecovered}): H2 recovering it and closing it soon
 * after could leave a file whose next open returns an older commit.
 */
final class H2FileStore {

  /**
   * Live bytes of pages rewritten per step while H2's store lock is held, then written by one
   * commit: the journal's commits wait for about this much I/O at most (1 MB: milliseconds on an SSD).
   */
  static final int STEP_BYTES = 1 << 20;

  /**
   * The share (percent) of the chunks' bytes that is live at which a compaction stops: H2's own
   * target (AUTO_COMPACT_FILL_RATE's default).
   */
  static final int DENSE_FILL_RATE = 90;

  /**
   * The store header's "clean" flag (FileStore.HDR_CLEAN). H2 writes it into the header when it closes
   * the file. In memory, RandomAccessStore.shouldWriteStoreHeader removes it and rewrites the header,
   * naming the chunk just written, with the next chunk.
   */
  private static final String HEADER_CLEAN = "clean";

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
   * @param closedCleanly offline: whether the file had been closed cleanly (true online)
   * @param steps steps run (0 offline)
   * @param rewritten steps that rewrote pages (0 offline)
   * @param nanos how long it took
   */
  record Compacted(FileSize before, FileSize after, boolean closedCleanly, int steps, int rewritten, long nanos) {}

  /**
   * Compacts the open file in steps until nothing is left to rewrite, {@value #DENSE_FILL_RATE}% of
   * the chunks' bytes are live, or the deadline has passed (checked after each step, so it is passed
   * by one step at most).
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
      // the next chunk written (this step's commit, or one of the journal's) also rewrites the file's
      // header to name it, as H2 does on every clean close: the chunks before it become freeable
      store.executeFilestoreOperation(() -> fs.getStoreHeader().put(HEADER_CLEAN, 1));
      // 101: every chunk with a dead page may be picked, not only while the average fill rate is low
      boolean rewrote = withHeaderSafeRetention(() -> store.compact(101, STEP_BYTES));
      if (rewrote) {
        rewritten++;
        store.commit();
      }
      // the commits that made chunks dead are on disk before those chunks are freed
      store.sync();
      withHeaderSafeRetention(() -> {
        fs.dropUnusedChunks();
        return true;
      });
      // stores the layout without the freed chunks; written before the end of the file, this chunk cuts the free end off
      store.commit();
      // done when little is left to rewrite: free space between chunks is reused by the next commits
      if (!rewrote || fs.getChunksFillRate() >= DENSE_FILL_RATE || nanoTime.getAsLong() - deadline >= 0) {
        break;
      }
    }
    return new Compacted(before, size(), true, steps, rewritten, nanoTime.getAsLong() - t0);
  }

  /**
   * Runs one of H2's calls under H2's store lock (no commit of the journal runs meanwhile) with the
   * retention time lowered as far as {@link #headerSafeRetention} allows, then puts it back.
   *
   * @return the call's result, or false when the retention cannot be lowered (the call did not run)
   */
  private boolean withHeaderSafeRetention(BooleanSupplier call) {
    boolean[] result = new boolean[1];
    // executeFilestoreOperation turns anything thrown into a panic that closes the database: nothing of ours throws
    store.executeFilestoreOperation(() -> {
      int retention = store.getRetentionTime();
      int safe = headerSafeRetention();
      if (safe < 0) {
        return;
      }
      store.setRetentionTime(Math.min(safe, retention));
      try {
        result[0] = call.getAsBoolean();
      } finally {
        store.setRetentionTime(retention);
      }
    });
    return result[0];
  }

  /**
   * The retention time (ms) that lets H2 free or rewrite only chunks written before the chunk the
   * file's header names. After a crash H2 finds the last commit from that chunk, following each
   * chunk's prediction of where the next one goes, or else from the last chunk of the file: a chunk
   * on that path that is freed and overwritten before the header names a later one cuts the path,
   * and the commits after it are not found (seen with retention 0: acknowledged commits lost after
   * kill -9). H2's own 45 s retention keeps them. The header moves on whenever a chunk is not where
   * the previous one predicted (or 20 commits later), but not while chunks are appended to the end
   * of the file: each step of {@link #compact} has the next commit rewrite it.
   *
   * @return the retention time, 0 when the header names the newest chunk, or -1 when the header's
   *     chunk is not known (then nothing is freed or rewritten early)
   */
  private int headerSafeRetention() {
    try {
      FileStore<?> fs = store.getFileStore();
      Map<String, Object> header = fs.getStoreHeader();
      long version = DataUtils.readHexLong(header, "version", -1);
      if (version < 0) {
        return -1;
      }
      if (version == fs.lastChunkVersion()) {
        return 0; // every other chunk is older, and the newest is live
      }
      // as read from the file: hexadecimal text; as written since: a number
      Object id = header.get("chunk");
      int chunkId = id instanceof Number n ? n.intValue() : Integer.parseInt(String.valueOf(id), 16);
      String chunk = fs.getLayoutMap().get("chunk." + Integer.toHexString(chunkId));
      long time = chunk == null ? -1 : DataUtils.readHexLong(DataUtils.parseMap(chunk), "time", -1);
      if (time < 0) {
        return -1;
      }
      long now = store.getTimeAbsolute() - fs.getCreationTime();
      // seasoned (freeable) when chunk.time + retention <= now: only chunks strictly older than the header's
      return (int) Math.max(0, Math.min(Integer.MAX_VALUE, now - time + 1));
    } catch (RuntimeException e) {
      return -1;
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
   * Before the node opens a closed file: settles it when it was not closed cleanly ({@link
   * #settleRecovered}), else compacts it (a fresh copy, renamed over it) when {@code over} says it is
   * too large.
   *
   * <p>A file that was not closed cleanly (a {@code kill -9} or a power loss left it) is never copied
   * by H2's {@link MVStoreTool#compact(String, boolean)}: in a test that froze a writing, compacting
   * node at 800 random moments and copied its file each time, that copy of the killed file could not
   * be opened afterwards in 20 of them ("General error: Unable to read the page ...
   * NullPointerException ... MVMap.getKeyType()"), and the copy replaces the original. The node's
   * online compaction keeps such a file in bounds, and the next start after a clean stop compacts it.
   *
   * @param file the {@code .mv.db} file
   * @param over whether the file at its sizes should be compacted
   * @param nanoTime the clock of the reported duration
   * @return what was done, or empty when the file does not exist, is open (in this JVM or another),
   *     or was closed cleanly and is not too large
   */
  static Optional<Compacted> compactClosed(String file, java.util.function.Predicate<FileSize> over, LongSupplier nanoTime) {
    if (!FileUtils.exists(file)) {
      return Optional.empty();
    }
    long t0 = nanoTime.getAsLong();
    FileSize before;
    boolean clean;
    try (MVStore closed = new MVStore.Builder().fileName(file).readOnly().open()) {
      before = sizeOf(closed.getFileStore());
      clean = closedCleanly(closed.getFileStore());
    } catch (MVStoreException lockedOrUnreadable) {
      return Optional.empty(); // open already: the online compaction takes care of it; unreadable: the open says why
    }
    if (!clean) {
      FileSize after;
      try (MVStore recovered = new MVStore.Builder().fileName(file).autoCommitDisabled().open()) {
        recovered.setVersionsToKeep(0); // as H2's database sets it: only the retention time keeps dead chunks
        new H2FileStore(recovered).settleRecovered();
        after = sizeOf(recovered.getFileStore());
      }
      return Optional.of(new Compacted(before, after, false, 0, 0, nanoTime.getAsLong() - t0));
    }
    if (!over.test(before)) {
      return Optional.empty();
    }
    MVStoreTool.compact(file, false);
    FileSize after;
    try (MVStore fresh = new MVStore.Builder().fileName(file).readOnly().open()) {
      after = sizeOf(fresh.getFileStore());
    }
    return Optional.of(new Compacted(before, after, true, 0, 0, nanoTime.getAsLong() - t0));
  }

  /**
   * Settles a file that H2 has just recovered after a kill, so that closing it cleanly leaves a file
   * whose next open finds the same last commit. Its caller closes the store.
   *
   * <p>Why (H2 2.3.232; 2.4.240 and H2's later source read a file the same way): H2 opening a file
   * that was not closed cleanly finds the last commit among the chunks it can reach and takes the
   * newest whose referenced chunks are all valid. A chunk that this commit's layout still lists as
   * dead, but whose space a later write (not reachable after the kill) had already reused, is only
   * marked as gone in memory, to be dropped later. But the first commit after an open drops no dead
   * chunk (H2's oldest version to keep starts at 0), and H2 keeps dead chunks for its retention time
   * (45 s from when they were written). So a process that opens the recovered file and closes it
   * cleanly soon after writes a clean header whose layout still lists that chunk at a place that
   * now holds another. The next open trusts the clean header, checks the 20 newest chunks of the
   * layout, finds that one invalid, and then takes the last commit only among the chunks it had
   * checked before it: older ones. Seen in H2CompactionCrashTest: first open head 90 (the last
   * acknowledged commit), clean close, second open head 87. Any reuse of a dead chunk's space can
   * leave this (H2's own commits free chunks older than its retention time); the node's compaction
   * frees them sooner and so left it often.
   *
   * <p>The settling: one commit (of a setting H2's database does not read, MVStore's store version,
   * rewritten with its own value) that also rewrites the header, so that the oldest version to keep
   * moves past the recovered commit and the header names the newest chunk; then every dead chunk is
   * dropped ({@link #headerSafeRetention} is 0 now), and a second commit stores the layout without
   * them. A kill in between leaves the recovered commit, which the next start settles again.
   */
  void settleRecovered() {
    FileStore<?> fs = store.getFileStore();
    store.executeFilestoreOperation(() -> fs.getStoreHeader().put(HEADER_CLEAN, 1));
    store.setStoreVersion(store.getStoreVersion());
    store.commit();
    store.sync();
    withHeaderSafeRetention(() -> {
      fs.dropUnusedChunks();
      return true;
    });
    store.setStoreVersion(store.getStoreVersion());
    store.commit();
    store.sync();
  }

  /**
   * Whether the file's header, as read by a read-only open (which writes nothing), is the one H2
   * writes when it closes the file: the "clean" flag. The first chunk written after an open rewrites
   * the header without it, so a process killed after it wrote anything leaves it unset.
   */
  private static boolean closedCleanly(FileStore<?> fs) {
    // as read from the file: hexadecimal text ("1")
    Object clean = fs.getStoreHeader().get(HEADER_CLEAN);
    return clean != null && !"0".equals(String.valueOf(clean));
  }
}
