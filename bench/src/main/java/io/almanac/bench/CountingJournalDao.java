package io.almanac.bench;

import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.persistence.jdbc.config.JournalConfig;
import org.apache.pekko.persistence.jdbc.journal.dao.DefaultJournalDao;
import org.apache.pekko.persistence.jdbc.journal.dao.JournalTables;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.stream.Materializer;
import scala.concurrent.ExecutionContext;
import scala.concurrent.Future;
import scala.runtime.BoxedUnit;

/**
 * pekko-persistence-jdbc's own journal DAO ({@link DefaultJournalDao}), each of its batched writes
 * counted: one call of {@code writeJournalRows} is one database transaction holding every row the
 * plugin's write queue collected for it ({@code jdbc-journal.batchSize} at most). So rows per
 * transaction is {@link #ROWS} / {@link #WRITES}: the journal's group commit, as the database sees
 * it. Named by {@code jdbc-journal.dao} in the bench's node (it changes nothing else); one node per
 * JVM, so the counts are static.
 */
public final class CountingJournalDao extends DefaultJournalDao {

  /** Batched writes (transactions) ended, and the rows they held. */
  static final LongAdder WRITES = new LongAdder();
  static final LongAdder ROWS = new LongAdder();

  public CountingJournalDao(slick.jdbc.JdbcBackend.JdbcDatabaseDef db, slick.jdbc.JdbcProfile profile,
      JournalConfig journalConfig, Serialization serialization, ExecutionContext ec, Materializer mat) {
    super(db, profile, journalConfig, serialization, ec, mat);
  }

  @Override
  public Future<BoxedUnit> writeJournalRows(
      scala.collection.immutable.Seq<scala.Tuple2<JournalTables.JournalPekkoSerializationRow, scala.collection.immutable.Set<String>>> xs) {
    WRITES.increment();
    ROWS.add(xs.size());
    return super.writeJournalRows(xs);
  }
}
