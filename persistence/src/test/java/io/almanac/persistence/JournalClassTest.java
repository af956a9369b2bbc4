package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Which journal stamps each event with its writer (the audit's I5): the PostgreSQL one, where two
 * clusters could write one journal; not the embedded H2 one, whose file one process holds, and
 * where the stamp's bytes cost a node at its write capacity (see almanac-h2.conf).
 */
class JournalClassTest {

  @Test
  @DisplayName("R28 I5: almanac-postgres.conf stamps writers; almanac-h2.conf keeps the plugin's own journal (timed) unless told to")
  void whichJournalStamps() {
    assertEquals("io.almanac.persistence.WriterStampingJournal",
        ConfigFactory.parseResources("almanac-postgres.conf").getString("jdbc-journal.class"));
    // the plugin's journal, only timed (almanac.journal.write): no stamp
    assertEquals("io.almanac.persistence.MeteredJournal",
        H2TestConfig.at(Path.of("unused")).getString("jdbc-journal.class"));
    assertEquals("io.almanac.persistence.WriterStampingJournal",
        H2TestConfig.at(Path.of("unused"), H2TestConfig.STAMP_WRITERS).getString("jdbc-journal.class"));
  }
}
