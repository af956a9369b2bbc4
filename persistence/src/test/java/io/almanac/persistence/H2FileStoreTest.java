package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which JDBC URLs name an embedded H2 file that the node may compact before it opens it. */
class H2FileStoreTest {

  @Test
  void fileOfTheShippedUrlKeepsH2sFileSystemPrefix() {
    assertEquals(Optional.of("async:./data/almanac.mv.db"), H2FileStore.fileOf(
        "jdbc:h2:async:./data/almanac;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE;DATABASE_TO_UPPER=false;MAX_COMPACT_TIME=0"));
    assertEquals(Optional.of("/var/lib/almanac/db.mv.db"), H2FileStore.fileOf("jdbc:h2:/var/lib/almanac/db"));
    assertEquals(Optional.of("file:~/db.mv.db"), H2FileStore.fileOf("jdbc:h2:file:~/db;MODE=PostgreSQL"));
  }

  @Test
  void noFileForInMemoryServerOrOtherDatabases() {
    assertEquals(Optional.empty(), H2FileStore.fileOf("jdbc:h2:mem:test;DB_CLOSE_DELAY=-1"));
    assertEquals(Optional.empty(), H2FileStore.fileOf("jdbc:h2:tcp://127.0.0.1:9092/async:/data/almanac"));
    assertEquals(Optional.empty(), H2FileStore.fileOf("jdbc:h2:ssl://db.example.com/almanac"));
    assertEquals(Optional.empty(), H2FileStore.fileOf("jdbc:postgresql://127.0.0.1:5432/almanac"));
    assertEquals(Optional.empty(), H2FileStore.fileOf(""));
  }
}
