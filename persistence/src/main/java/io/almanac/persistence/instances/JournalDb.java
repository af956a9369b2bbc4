package io.almanac.persistence.instances;

import java.sql.Connection;
import java.sql.SQLException;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.jdbc.db.SlickDatabase;
import org.apache.pekko.persistence.jdbc.db.SlickExtension;
import org.apache.pekko.persistence.jdbc.db.SlickExtensionImpl;

/**
 * Connections of the journal's database: the pool of the {@code jdbc-journal} plugin (shared with
 * the journal by {@code almanac-h2.conf} and {@code almanac-postgres.conf}). INTERNAL.
 */
final class JournalDb implements AutoCloseable {

  /** JournalDb objects opened and not closed yet, all systems together (tests watch it for leaks). */
  static final java.util.concurrent.atomic.AtomicInteger OPEN = new java.util.concurrent.atomic.AtomicInteger();

  /** JournalDb objects ever opened, all systems together (tests count the projection's set-ups by it). */
  static final java.util.concurrent.atomic.AtomicInteger OPENED = new java.util.concurrent.atomic.AtomicInteger();

  private final SlickDatabase db;
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  private JournalDb(SlickDatabase db) {
    this.db = db;
    OPEN.incrementAndGet();
    OPENED.incrementAndGet();
  }

  static JournalDb of(ActorSystem<?> system) {
    SlickExtensionImpl slick = (SlickExtensionImpl) SlickExtension.get(system);
    return new JournalDb(slick.database(system.settings().config().getConfig("jdbc-journal")));
  }

  /** @return a connection from the pool; close it to give it back */
  Connection connect() throws SQLException {
    return db.database().source().createConnection();
  }

  /** Closes the pool if it is this object's own (a plugin without use-shared-db). */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return; // closed already (PreRestart, then PostStop)
    }
    OPEN.decrementAndGet();
    if (db.allowShutdown()) {
      db.database().close();
    }
  }
}
