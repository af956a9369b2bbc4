package io.almanac.persistence;

import com.typesafe.config.Config;
import io.almanac.spi.StoreMeters;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.jdbc.journal.JdbcAsyncWriteJournal;
import scala.concurrent.Future;
import scala.jdk.javaapi.CollectionConverters;
import scala.concurrent.ExecutionContext;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;
import scala.util.Try;

/**
 * pekko-persistence-jdbc's journal ({@code jdbc-journal}, class {@link JdbcAsyncWriteJournal}) that
 * times each of its writes (a batch of atomic writes, one database transaction) into the node's
 * meters as {@code almanac.journal.write}, tagged {@code outcome} {@code ok}, or {@code failed} when
 * the write or one of its atomic writes failed, and counts the persist calls and events it is handed
 * ({@code almanac.journal.persists}, {@code almanac.journal.events}). The node's meters are found through the ActorSystem
 * ({@link StoreMeters#of}): before {@code Almanac.start} gave them, and without Almanac, nothing is
 * recorded. Nothing else changes: events and rows are the plugin's own.
 *
 * <p>{@code almanac-h2.conf} configures it as {@code jdbc-journal.class}; {@link
 * WriterStampingJournal} (almanac-postgres.conf) extends it, so both are timed.
 */
public class MeteredJournal extends JdbcAsyncWriteJournal {

  /** Runs a callback on the thread that completes the write (it only records a meter). */
  private static final ExecutionContext SAME_THREAD = ExecutionContext.fromExecutor(Runnable::run);

  /**
   * @param config the plugin's configuration ({@code jdbc-journal})
   */
  public MeteredJournal(Config config) {
    super(config);
  }

  @Override
  public Future<scala.collection.immutable.Seq<Try<BoxedUnit>>> asyncWriteMessages(
      scala.collection.immutable.Seq<AtomicWrite> messages) {
    StoreMeters meters = StoreMeters.of(context().system());
    long start = System.nanoTime();
    int events = 0;
    for (AtomicWrite w : CollectionConverters.asJava(messages)) {
      events += w.size();
    }
    meters.journalAsked(messages.size(), events);
    Future<scala.collection.immutable.Seq<Try<BoxedUnit>>> written = super.asyncWriteMessages(messages);
    // On the completing thread, straight on the Scala future: FutureConverters.asJava's stage runs even
    // whenComplete on the common pool, which on 2 cores starts a thread per call (a thread per journal
    // write cut the persist ceiling from about 5,000/s to 2,000/s).
    written.onComplete(new AbstractFunction1<Try<scala.collection.immutable.Seq<Try<BoxedUnit>>>, Object>() {
      @Override
      public Object apply(Try<scala.collection.immutable.Seq<Try<BoxedUnit>>> result) {
        meters.journalWrite(System.nanoTime() - start,
            result.isSuccess() && CollectionConverters.asJava(result.get()).stream().allMatch(Try::isSuccess));
        return null;
      }
    }, SAME_THREAD);
    return written;
  }
}
