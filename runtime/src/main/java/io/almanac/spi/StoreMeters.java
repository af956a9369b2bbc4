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

  /**
   * @param system an actor system
   * @return the meters of the node started on it, or meters that record nothing before it started
   */
  static StoreMeters of(ClassicActorSystemProvider system) {
    return io.almanac.internal.NodeMeters.of(system);
  }
}
