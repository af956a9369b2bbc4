package io.almanac.persistence;

import com.typesafe.config.Config;
import io.almanac.internal.NodeMeters;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.jdbc.journal.JdbcAsyncWriteJournal;
import scala.concurrent.Future;
import scala.jdk.javaapi.CollectionConverters;
import scala.jdk.javaapi.FutureConverters;
import scala.runtime.BoxedUnit;
import scala.util.Try;

/**
 * pekko-persistence-jdbc's journal ({@code jdbc-journal}, class {@link JdbcAsyncWriteJournal}) that
 * times each of its writes (a batch of atomic writes, one database transaction) into the node's
 * meters as {@code almanac.journal.write}, tagged {@code outcome} {@code ok}, or {@code failed} when
 * the write or one of its atomic writes failed. The node's meters are found through the ActorSystem
 * ({@link NodeMeters#of}): before {@code Almanac.start} gave them, and without Almanac, nothing is
 * recorded. Nothing else changes: events and rows are the plugin's own.
 *
 * <p>{@code almanac-h2.conf} configures it as {@code jdbc-journal.class}; {@link
 * WriterStampingJournal} (almanac-postgres.conf) extends it, so both are timed.
 */
public class MeteredJournal extends JdbcAsyncWriteJournal {

  /**
   * @param config the plugin's configuration ({@code jdbc-journal})
   */
  public MeteredJournal(Config config) {
    super(config);
  }

  @Override
  public Future<scala.collection.immutable.Seq<Try<BoxedUnit>>> asyncWriteMessages(
      scala.collection.immutable.Seq<AtomicWrite> messages) {
    NodeMeters meters = NodeMeters.of(context().system());
    long start = System.nanoTime();
    Future<scala.collection.immutable.Seq<Try<BoxedUnit>>> written = super.asyncWriteMessages(messages);
    FutureConverters.asJava(written).whenComplete((results, error) -> meters.journalWrite(System.nanoTime() - start,
        error == null && CollectionConverters.asJava(results).stream().allMatch(Try::isSuccess)));
    return written;
  }
}
