package io.almanac.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.mock.env.MockEnvironment;

/** Spring properties onto the node's Typesafe keys of the same path ({@link SpringConfig}). */
class SpringConfigTest {

  private static MockEnvironment env(String... pairs) {
    MockEnvironment env = new MockEnvironment();
    for (int i = 0; i < pairs.length; i += 2) {
      env.setProperty(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  private static Config config(MockEnvironment env) {
    return SpringConfig.from(env).config();
  }

  @Test
  void aKebabCasePropertyIsTheTypesafeKeyOfTheSamePath() {
    Config c = config(env("almanac.executor.max-concurrent", "7"));
    assertEquals(7, c.getInt("almanac.executor.max-concurrent"));
    assertEquals(4, c.getInt("almanac.executor.max-concurrent-per-task"), "the rest from reference.conf");
  }

  @Test
  void aCamelCaseSegmentIsWrittenInKebabCaseWhenThatNamesADocumentedKey() {
    Config c = config(env("almanac.executor.maxConcurrentPerTask", "3", "almanac.tasks.dailyDigest.cron", "0 0 8 * * ? UTC"));
    assertEquals(3, c.getInt("almanac.executor.max-concurrent-per-task"));
    assertTrue(c.hasPath("almanac.tasks.dailyDigest.cron"), "a task id is an id, kept as written");
  }

  @Test
  void anEnvironmentVariableNamingADocumentedKeyIsTaken() {
    MockEnvironment env = env();
    env.getPropertySources().addLast(new SystemEnvironmentPropertySource("systemEnvironment",
        Map.of("ALMANAC_EXECUTOR_MAXCONCURRENT", "5", "ALMANAC_TOKEN", "not-a-key")));
    Config c = config(env);
    assertEquals(5, c.getInt("almanac.executor.max-concurrent"));
    assertFalse(c.hasPath("almanac.token"));
  }

  @Test
  void indexedPropertiesAreListsAndBracketedNamesAreOneKey() {
    Config c = config(env("almanac.tasks.t.retry.delays[1]", "2s", "almanac.tasks.t.retry.delays[0]", "1s",
        "pekko.actor.serialization-bindings[io.example.Event]", "jackson-json"));
    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2)), c.getDurationList("almanac.tasks.t.retry.delays"));
    assertEquals("jackson-json", c.getConfig("pekko.actor.serialization-bindings").root().get("io.example.Event").unwrapped());
  }

  @Test
  void theFirstPropertySourceWinsAsInSpring() {
    MockEnvironment env = env("almanac.executor.max-concurrent", "7");
    env.getPropertySources().addLast(new MapPropertySource("lower", Map.of("almanac.executor.max-concurrent", 9,
        "pekko.loglevel", "DEBUG")));
    Config c = config(env);
    assertEquals(7, c.getInt("almanac.executor.max-concurrent"));
    assertEquals("DEBUG", c.getString("pekko.loglevel"), "pekko.* passes through");
  }

  @Test
  void theStarterDefaultsAndItsOwnKeys() {
    SpringConfig.Mapped m = SpringConfig.from(env("almanac.spring.http.enabled", "false", "almanac.persistence.h2.path",
        "/tmp/x/almanac"));
    Config c = m.config();
    assertEquals(SpringConfig.Database.H2, m.database());
    assertTrue(c.getString("pekko-persistence-jdbc.shared-databases.slick.db.url").startsWith("jdbc:h2:async:/tmp/x/almanac;"),
        c.getString("pekko-persistence-jdbc.shared-databases.slick.db.url"));
    assertEquals("cluster", c.getString("pekko.actor.provider"), "almanac-embedded.conf");
    assertFalse(c.getBoolean("pekko.coordinated-shutdown.run-by-jvm-shutdown-hook"), "Spring's hook closes the context");
    assertFalse(c.hasPath("almanac.spring"), "the starter's own keys are not the node's");
  }

  @Test
  void postgresFromSpringDatasourceWithAlmanacKeysWinning() {
    SpringConfig.Mapped m = SpringConfig.from(env("spring.datasource.url", "jdbc:postgresql://db:5432/app",
        "spring.datasource.username", "app", "spring.datasource.password", "pw",
        "almanac.persistence.postgres.user", "almanac_user"));
    Config c = m.config();
    assertEquals(SpringConfig.Database.POSTGRES, m.database());
    assertEquals("jdbc:postgresql://db:5432/app", c.getString("pekko-persistence-jdbc.shared-databases.slick.db.url"));
    assertEquals("almanac_user", c.getString("pekko-persistence-jdbc.shared-databases.slick.db.user"));
    assertEquals("pw", c.getString("almanac.persistence.postgres.password"));
  }

  @Test
  void postgresFromAlmanacKeys() {
    SpringConfig.Mapped m = SpringConfig.from(env("almanac.persistence.postgres.url", "jdbc:postgresql://127.0.0.1/test"));
    assertEquals(SpringConfig.Database.POSTGRES, m.database());
    assertEquals("org.postgresql.Driver", m.config().getString("pekko-persistence-jdbc.shared-databases.slick.db.driver"));
  }

  @Test
  void anOriginNamesTheSpringPropertyAndItsSource() {
    SpringConfig.Mapped m = SpringConfig.from(env("almanac.executor.maxConcurrent", "lots"));
    assertEquals("Spring property 'almanac.executor.maxConcurrent' (mockProperties)", m.origin("almanac.executor.max-concurrent"));
  }

  @Test
  void anOriginFromApplicationYmlSaysTheFileLineAndColumn() throws Exception {
    MockEnvironment env = env();
    new org.springframework.boot.env.YamlPropertySourceLoader().load("application.yml",
        new org.springframework.core.io.ClassPathResource("origin-test.yml")).forEach(env.getPropertySources()::addFirst);
    SpringConfig.Mapped m = SpringConfig.from(env);
    assertEquals(3, m.config().getInt("almanac.executor.max-concurrent-per-task"));
    assertEquals("Spring property 'almanac.executor.max-concurrent-per-task' (class path resource [origin-test.yml] - 3:30)",
        m.origin("almanac.executor.max-concurrent-per-task"));
  }
}
