package io.almanac.persistence;

import io.almanac.persistence.H2FileStore.Compacted;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.Done;
import org.apache.pekko.actor.AbstractExtensionId;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Extension;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.persistence.jdbc.db.SlickDatabase;
import org.apache.pekko.persistence.jdbc.db.SlickExtension;
import org.apache.pekko.persistence.jdbc.db.SlickExtensionImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an embedded H2 journal's file near the size of its data. With {@code WRITE_DELAY=0}
 * (almanac-h2.conf: every acknowledged commit survives {@code kill -9}) H2 writes each commit as a
 * new chunk and never compacts the open file, so it grew to 406 MB for 2 MB of data after 10,000
 * events, and stopping the node did not shrink it.
 *
 * <ul>
 *   <li>While the node runs, this component looks at the file every {@code
 *       almanac.persistence.h2.compaction.interval}; when the file is more than {@code max-ratio}
 *       times its live data (and at least {@code min-file-size}) it compacts it online for up to
 *       {@code max-time}, in steps during which the journal's commits wait (about 1 MB of I/O each);
 *       the journal writes between the steps. It looks once more when the node stops (coordinated
 *       shutdown, before the pool closes). almanac-h2.conf turns H2's own compaction on close off
 *       ({@code MAX_COMPACT_TIME=0}).
 *   <li>Before the node opens the file, {@link SchemaBootstrap} has H2 compact a closed file that is
 *       over the same bounds offline (a fresh copy renamed over it): the online steps cannot shrink
 *       a file past a chunk near its end whose pages are all live, e.g. a file grown before. A file
 *       that was not closed cleanly (the node was killed) is not copied but settled, compaction on or
 *       off: without it, H2 recovering it and closing it soon after could lose acknowledged commits
 *       at the next open ({@code H2FileStore.settleRecovered}).
 * </ul>
 *
 * The mechanism, and why it is safe against {@code kill -9} at any moment, is described at {@code
 * H2FileStore}.
 *
 * <p>{@link SchemaBootstrap#ensureSchema} starts it when the journal's database is H2; it runs on a
 * thread of its own (never an actor's) and borrows a connection of the journal's pool for each
 * look. A database that is not an embedded file (in memory, a TCP server's) is left alone: a server
 * compacts its own files. A failed look is logged (at most once a minute) and the next one tries
 * again.
 */
public final class H2Compaction implements Extension {

  private static final Logger log = LoggerFactory.getLogger(H2Compaction.class);

  /** How often a look that keeps failing is logged. */
  private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private static final AbstractExtensionId<H2Compaction> ID = new AbstractExtensionId<>() {
    @Override
    public H2Compaction createExtension(ExtendedActorSystem system) {
      return new H2Compaction(system);
    }
  };

  /**
   * An H2 file's size and the part of it that is live data, by H2's own accounting (the blocks
   * used by chunks times the share of their bytes still referenced).
   *
   * @param fileBytes the file's length
   * @param liveBytes the bytes of data H2 still references
   */
  public record FileSize(long fileBytes, long liveBytes) {

    /** @return the file's size over its live data (infinite for a file without live data) */
    public double ratio() {
      return liveBytes == 0 ? Double.POSITIVE_INFINITY : (double) fileBytes / liveBytes;
    }

    @Override
    public String toString() {
      return String.format(java.util.Locale.ROOT, "%.1f MB (live data %.1f MB)", fileBytes / 1e6, liveBytes / 1e6);
    }
  }

  /**
   * What the node's compaction has seen and done.
   *
   * @param running whether it looks at the file (started on an embedded H2 file, not stopped)
   * @param lastLook the file at the last look (after its compaction, if one ran), or empty before the first
   * @param compactions compactions run since the start
   * @param compactionTime their total time
   */
  public record Status(boolean running, Optional<FileSize> lastLook, long compactions, Duration compactionTime) {}

  private final ExtendedActorSystem system;
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile ScheduledExecutorService thread;
  /** The journal's database (its pool), from the start. */
  private volatile SlickDatabase db;
  private volatile PersistenceSettings.Compaction settings;
  private volatile boolean running;
  private volatile FileSize lastLook;
  private volatile long compactions;
  private volatile long compactionNanos;
  private long lastWarnNanos = Long.MIN_VALUE;
  /**
   * The file's size when a compaction found nothing to rewrite and did not shrink it (its chunks are
   * all live: only the offline compaction at the next start shrinks it), or -1. Until the file has
   * grown a tenth past it, the looks do not compact again.
   */
  private long stuckAt = -1;

  private H2Compaction(ExtendedActorSystem system) {
    this.system = system;
  }

  /**
   * @param system a node's ActorSystem
   * @return its compaction component (started only on an H2 journal by {@link SchemaBootstrap})
   */
  public static H2Compaction get(ActorSystem<?> system) {
    return ID.get(Adapter.toClassic(Objects.requireNonNull(system, "system")));
  }

  /** @return what it has seen and done so far */
  public Status status() {
    return new Status(running, Optional.ofNullable(lastLook), compactions, Duration.ofNanos(compactionNanos));
  }

  /**
   * Starts the looks on the system's H2 journal, once per system; later calls do nothing.
   *
   * @param system the node's ActorSystem, whose journal's database is H2
   * @param settings the validated settings
   */
  static void start(ActorSystem<?> system, PersistenceSettings settings) {
    get(system).startOnce(settings.h2().compaction());
  }

  private void startOnce(PersistenceSettings.Compaction settings) {
    if (!settings.enabled() || !started.compareAndSet(false, true)) {
      return;
    }
    this.settings = settings;
    SlickExtensionImpl slick = (SlickExtensionImpl) SlickExtension.get(system);
    db = slick.database(system.settings().config().getConfig("jdbc-journal"));
    ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread th = new Thread(r, "almanac-h2-compaction");
      th.setDaemon(true);
      return th;
    });
    thread = t;
    running = true;
    long every = settings.interval().toNanos();
    t.scheduleWithFixedDelay(this::look, every, every, TimeUnit.NANOSECONDS);
    log.info("H2 file compaction: every {} the node compacts the file when it is over {}x its live data and {} bytes, "
        + "for up to {} (almanac.persistence.h2.compaction)", settings.interval(), settings.maxRatio(),
        settings.minFileSize(), settings.maxTime());
    // The pool is still open in this phase: it closes when the ActorSystem terminates.
    CoordinatedShutdown.get(system).addTask(CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "almanac-h2-compaction",
        () -> stop(t));
    system.registerOnTermination(() -> {
      t.shutdown();
      if (db.allowShutdown()) {
        db.database().close(); // a pool of our own: the journal plugin is configured without use-shared-db
      }
    });
  }

  /** A last look (the node has stopped writing), then the thread ends; completes when it has. */
  private CompletableFuture<Done> stop(ScheduledExecutorService t) {
    try {
      t.execute(this::look);
    } catch (RejectedExecutionException stoppedAlready) {
      // shut down already
    }
    t.shutdown(); // no interrupt: a thread inside H2 must not be interrupted
    return CompletableFuture.supplyAsync(() -> {
      try {
        t.awaitTermination(settings.maxTime().toMillis() + 10_000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      running = false;
      return Done.getInstance();
    });
  }

  /** One look: compacts when the file is over its bounds. Never throws (that would end the schedule). */
  private void look() {
    if (!running) {
      return;
    }
    try (Connection c = connect()) {
      Optional<H2FileStore> store = H2FileStore.of(c);
      if (store.isEmpty()) {
        running = false;
        thread.shutdown();
        log.info("H2 file compaction: the journal's database {} is not an embedded H2 file; nothing to compact here",
            SchemaBootstrap.redact(c.getMetaData().getURL()));
        return;
      }
      FileSize size = store.get().size();
      if (over(settings, size) && (stuckAt < 0 || size.fileBytes() > stuckAt + stuckAt / 10)) {
        long t0 = System.nanoTime();
        Compacted done = store.get().compact(t0 + settings.maxTime().toNanos(), System::nanoTime);
        compactions++;
        compactionNanos += done.nanos();
        size = done.after();
        stuckAt = done.rewritten() == 0 && size.fileBytes() >= done.before().fileBytes() ? size.fileBytes() : -1;
        log.debug("H2 file compacted from {} to {} in {} ms, {} steps{}", done.before(), done.after(),
            done.nanos() / 1_000_000, done.steps(), stuckAt < 0 ? "" : "; nothing to rewrite: waits until it grows");
      }
      lastLook = size;
    } catch (SQLException | RuntimeException | LinkageError e) {
      long now = System.nanoTime();
      if (lastWarnNanos == Long.MIN_VALUE || now - lastWarnNanos >= WARN_EVERY_NANOS) {
        lastWarnNanos = now;
        log.warn("H2 file compaction: a look at the file failed, next in {}: {}", settings.interval(), e.toString());
      }
    }
  }

  private static boolean over(PersistenceSettings.Compaction settings, FileSize size) {
    return size.fileBytes() >= settings.minFileSize() && size.fileBytes() > settings.maxRatio() * size.liveBytes();
  }

  /**
   * Before the node opens its H2 file (by {@link SchemaBootstrap}, before the journal's pool
   * exists): a file that was not closed cleanly (the node was killed) is settled (recovered, its
   * dead chunks dropped, closed cleanly; a matter of durability, so with compaction off too: see
   * {@code H2FileStore.settleRecovered}); a file closed cleanly and over the bounds, with compaction
   * on, is copied by H2 to a fresh file that replaces it. Does nothing when the URL is not an
   * embedded H2 file or the file is open already.
   *
   * @param url the journal's JDBC URL
   * @param settings the validated settings
   */
  static void beforeOpen(String url, PersistenceSettings settings) {
    PersistenceSettings.Compaction c = settings.h2().compaction();
    Optional<String> file = H2FileStore.fileOf(url);
    if (file.isEmpty()) {
      return;
    }
    try {
      H2FileStore.compactClosed(file.get(), size -> c.enabled() && over(c, size), System::nanoTime).ifPresent(done ->
          log.info("H2 file {} before the node opened it: from {} to {} in {} ms ({})",
              done.closedCleanly() ? "compacted" : "not closed cleanly, settled",
              done.before(), done.after(), done.nanos() / 1_000_000, file.get()));
    } catch (RuntimeException e) {
      // the node runs on the file as it is; the looks compact what they can
      log.warn("H2 file {}: compaction before opening it failed: {}", file.get(), e.toString());
    }
  }

  private Connection connect() throws SQLException {
    return db.database().source().createConnection();
  }
}
