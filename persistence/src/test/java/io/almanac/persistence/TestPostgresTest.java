package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.persistence.TestPostgres.Choice;
import io.almanac.persistence.TestPostgres.Mode;
import io.almanac.persistence.TestPostgres.Probe;
import io.almanac.persistence.TestPostgres.Settings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How the PostgreSQL tests pick their server ({@link TestPostgres}): no server is started here. */
class TestPostgresTest {

  private static final Probe ANSWERS = (url, user, password) -> Optional.empty();
  private static final Probe SILENT = (url, user, password) -> Optional.of("Connection refused");

  @Test
  void defaults() {
    Settings s = Settings.from(Map.of());
    assertEquals(Mode.AUTO, s.mode());
    assertEquals("jdbc:postgresql://127.0.0.1:5432/test", s.url());
    assertEquals("postgres", s.user());
    assertEquals("", s.password());
    assertEquals("127.0.0.1:5432", s.address());
  }

  @Test
  void autoPicksTheConfiguredServerWhenItAnswers() {
    List<String> probed = new ArrayList<>();
    Settings s = Settings.from(Map.of("ALMANAC_TEST_PG_URL", "jdbc:postgresql://db.example:6543/ci", "ALMANAC_TEST_PG_USER", "ci"));
    Choice c = TestPostgres.choose(s, (url, user, password) -> {
      probed.add(url + " " + user);
      return Optional.empty();
    });
    assertTrue(c.external(), c.why());
    assertEquals(List.of("jdbc:postgresql://db.example:6543/ci ci"), probed);
  }

  @Test
  void autoStartsEmbeddedWhenNothingAnswers() {
    Choice c = TestPostgres.choose(Settings.from(Map.of("ALMANAC_TEST_PG", "auto")), SILENT);
    assertFalse(c.external());
    assertTrue(c.why().contains("127.0.0.1:5432"), c.why());
  }

  @Test
  void embeddedDoesNotProbe() {
    Choice c = TestPostgres.choose(Settings.from(Map.of("ALMANAC_TEST_PG", "Embedded")), (url, user, password) -> {
      throw new AssertionError("probed");
    });
    assertFalse(c.external());
  }

  @Test
  void explicitExternalThatAnswersIsUsed() {
    assertTrue(TestPostgres.choose(Settings.from(Map.of("ALMANAC_TEST_PG", "external")), ANSWERS).external());
  }

  @Test
  void explicitExternalThatDoesNotAnswerFailsNamingTheAddress() {
    Settings s = Settings.from(Map.of("ALMANAC_TEST_PG", "external", "ALMANAC_TEST_PG_URL", "jdbc:postgresql://10.1.2.3:5433/x"));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> TestPostgres.choose(s, SILENT));
    assertTrue(e.getMessage().contains("10.1.2.3:5433"), e.getMessage());
    assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
  }

  /** The real probe, against a port of this machine where nothing listens: fails at once, no fallback. */
  @Test
  void explicitExternalWithNothingListeningFailsQuickly() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Settings s = Settings.from(Map.of("ALMANAC_TEST_PG", "external", "ALMANAC_TEST_PG_URL", "jdbc:postgresql://127.0.0.1:" + port + "/test"));
    long t0 = System.nanoTime();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> TestPostgres.choose(s, TestPostgres::jdbcProbe));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
    assertTrue(ms < 10_000, "took " + ms + " ms");
  }

  @Test
  void unknownModeFails() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> Settings.from(Map.of("ALMANAC_TEST_PG", "docker")));
    assertTrue(e.getMessage().contains("docker"), e.getMessage());
  }

  @Test
  void addressOfMultiHostUrl() {
    assertEquals("a:5432,b:6000", TestPostgres.address("jdbc:postgresql://a,b:6000/db"));
  }
}
