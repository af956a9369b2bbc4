package io.almanac.spi;

import java.time.Duration;
import java.util.function.Supplier;
import org.apache.pekko.actor.ClassicActorSystemProvider;

/**
 * The node's meters as a store plugin sees them: the journal's writes and the projection's lag.
 * Implemented by the node's meters; a node that has not started yet answers a set that records
 * nothing ({@link #installed()} false).
 */
public interface StoreMeters {

  /**
   * Records one write of the journal.
   *
   * @param nanos how long it took
   * @param ok whether it succeeded
   */
  void journalWrite(long nanos, boolean ok);

  /**
   * Counts what the journal was asked to write, as it is handed the write, whatever the outcome.
   *
   * @param persists atomic writes in this call of the journal (one per persist of an actor)
   * @param events events (rows) in them
   */
  void journalAsked(int persists, int events);

  /**
   * Registers the gauge of how far the projection that feeds the instance table is behind the
   * journal; register once per node.
   *
   * @param lag read at each scrape; null or a failure reads as NaN
   */
  void projectionLag(Supplier<Duration> lag);

  /** @return whether these are a started node's meters (false: they record nothing) */
  boolean installed();

  /** Meters that record nothing: what a store plugin sees before the node's start installs its own. */
  StoreMeters NONE = new StoreMeters() {
    @Override
    public void journalWrite(long nanos, boolean ok) {}

    @Override
    public void journalAsked(int persists, int events) {}

    @Override
    public void projectionLag(Supplier<Duration> lag) {}

    @Override
    public boolean installed() {
      return false;
    }
  };

  /**
   * @param system an actor system
   * @return the meters of the node started on it, or {@link #NONE} before it started
   */
  static StoreMeters of(ClassicActorSystemProvider system) {
    return Installed.ID.get(system.classicSystem()).meters;
  }

  /**
   * Makes these the meters store plugins on that system report to (the node's start does this).
   *
   * @param system the node's actor system
   * @param meters its meters
   */
  static void install(ClassicActorSystemProvider system, StoreMeters meters) {
    Installed.ID.get(system.classicSystem()).meters = java.util.Objects.requireNonNull(meters, "meters");
  }

  /** The meters installed on one actor system. */
  final class Installed implements org.apache.pekko.actor.Extension {
    private static final org.apache.pekko.actor.AbstractExtensionId<Installed> ID =
        new org.apache.pekko.actor.AbstractExtensionId<>() {
          @Override
          public Installed createExtension(org.apache.pekko.actor.ExtendedActorSystem system) {
            return new Installed();
          }
        };

    private volatile StoreMeters meters = NONE;

    private Installed() {}
  }
}
