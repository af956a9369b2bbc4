package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.cluster.ConfigValidation;
import org.apache.pekko.cluster.Invalid;
import org.apache.pekko.cluster.Valid$;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/** The join check's logic, on the configurations almanac-postgres.conf and almanac-h2.conf produce. */
class JournalJoinCheckTest {

  private static Config postgres(String url, String schema) {
    return ConfigFactory.load(ConfigFactory.parseString("include \"almanac-postgres.conf\"\n"
        + "almanac.persistence.postgres.url = " + ConfigUtil.quoteString(url) + "\n"
        + (schema == null ? "" : "almanac.persistence.postgres.schema = " + schema + "\n")));
  }

  /** What a joining node sends, as Pekko builds it: its values of the required keys only. */
  private static Config sent(Config node) {
    Map<String, ConfigValue> values = new HashMap<>();
    for (String key : CollectionConverters.asJava(new JournalJoinCheck().requiredKeys())) {
      if (node.hasPath(key)) {
        values.put(key, node.getValue(key));
      }
    }
    return ConfigFactory.parseMap(values);
  }

  /** The member's verdict on a joining node. */
  private static ConfigValidation memberChecks(Config joining, Config member) {
    return new JournalJoinCheck().check(sent(joining), member);
  }

  private static List<String> messages(ConfigValidation v) {
    return CollectionConverters.asJava(assertInstanceOf(Invalid.class, v).errorMessages());
  }

  @Test
  void theSameJournalIsCompatible() {
    Config a = postgres("jdbc:postgresql://127.0.0.1:5432/almanac", "almanac");
    assertSame(Valid$.MODULE$, memberChecks(a, a));
  }

  @Test
  void anotherSchemaIsRefusedNamingBothValues() {
    List<String> m = messages(memberChecks(postgres("jdbc:postgresql://db:5432/almanac", "tenant_b"),
        postgres("jdbc:postgresql://db:5432/almanac", "tenant_a")));
    assertEquals(1, m.size(), m.toString());
    assertTrue(m.get(0).contains("almanac.persistence.postgres.schema"), m.get(0));
    assertTrue(m.get(0).contains("'tenant_b' on the other node, 'tenant_a' on this node"), m.get(0));
  }

  @Test
  void aSchemaAgainstTheDefaultSearchPathIsRefused() {
    List<String> m = messages(memberChecks(postgres("jdbc:postgresql://db/almanac", null),
        postgres("jdbc:postgresql://db/almanac", "almanac")));
    assertTrue(m.get(0).contains("'(none: the database user's search_path)' on the other node, 'almanac' on this node"), m.get(0));
  }

  @Test
  void anotherDatabaseIsRefusedNamingBothValues() {
    List<String> m = messages(memberChecks(postgres("jdbc:postgresql://db:5432/staging", "almanac"),
        postgres("jdbc:postgresql://db:5432/almanac", "almanac")));
    assertEquals(1, m.size(), m.toString());
    assertTrue(m.get(0).contains("'staging' on the other node (jdbc:postgresql://db:5432/staging)"), m.get(0));
    assertTrue(m.get(0).contains("'almanac' on this node (jdbc:postgresql://db:5432/almanac)"), m.get(0));
  }

  @Test
  void theSameDatabaseReachedByAnotherAddressOrWithOtherParametersIsCompatible() {
    Config a = postgres("jdbc:postgresql://10.0.0.5:5432/almanac?ApplicationName=node-a", "almanac");
    Config b = postgres("jdbc:postgresql://db.example.com/almanac?ApplicationName=node-b&sslmode=require", "almanac");
    assertSame(Valid$.MODULE$, memberChecks(a, b));
    assertSame(Valid$.MODULE$, memberChecks(b, a));
  }

  @Test
  void theSchemaMayBeGivenInTheUrl() {
    Config inUrl = postgres("jdbc:postgresql://db/almanac?currentSchema=tenant_a", null);
    assertSame(Valid$.MODULE$, memberChecks(inUrl, postgres("jdbc:postgresql://db/almanac", "tenant_a")));
    assertTrue(messages(memberChecks(inUrl, postgres("jdbc:postgresql://db/almanac", "tenant_b"))).get(0)
        .contains("'tenant_a' on the other node, 'tenant_b' on this node"));
  }

  @Test
  void aPasswordInTheUrlIsNotShown() {
    List<String> m = messages(memberChecks(postgres("jdbc:postgresql://db/other?password=secret", null),
        postgres("jdbc:postgresql://db/almanac", null)));
    assertTrue(m.get(0).contains("password=***"), m.get(0));
    assertTrue(!m.get(0).contains("secret"), m.get(0));
  }

  @Test
  void anH2JournalAgainstAPostgresOneIsRefused() {
    Config h2 = ConfigFactory.load(ConfigFactory.parseString("include \"almanac-h2.conf\"\n"
        + "almanac.persistence.h2.path = \"/var/lib/almanac/db\"\n"));
    List<String> m = messages(memberChecks(h2, postgres("jdbc:postgresql://db/almanac", null)));
    assertTrue(m.get(0).contains("'async:/var/lib/almanac/db' on the other node"), m.get(0));
    assertSame(Valid$.MODULE$, memberChecks(h2, h2));
  }

  @Test
  void databaseNames() {
    assertEquals("almanac", JournalJoinCheck.database("jdbc:postgresql://h1:5432,h2:5433/almanac?targetServerType=primary"));
    assertEquals("almanac", JournalJoinCheck.database("jdbc:postgresql:almanac"));
    assertEquals("", JournalJoinCheck.database("jdbc:postgresql://db:5432/"));
    assertEquals("", JournalJoinCheck.database("jdbc:postgresql://db:5432"));
    assertEquals("mem:test", JournalJoinCheck.database("jdbc:h2:mem:test;DB_CLOSE_DELAY=-1"));
  }

  @Test
  void aNodeThatSendsNoneOfTheKeysDoesNotRunTheCheckAndIsNotJudged() {
    // e.g. an Almanac from before the check, during a rolling upgrade: it sends Pekko's keys only
    Config older = ConfigFactory.parseString("pekko.version = \"1.7.0\"");
    assertSame(Valid$.MODULE$, new JournalJoinCheck().check(older, postgres("jdbc:postgresql://db/almanac", "almanac")));
    // a node that runs it always sends the journal plugin, even with no journal configured
    assertTrue(sent(ConfigFactory.load()).hasPath(JournalJoinCheck.PLUGIN));
    assertInstanceOf(Invalid.class, memberChecks(ConfigFactory.load(), postgres("jdbc:postgresql://db/almanac", "almanac")));
  }

  @Test
  void itIsRegisteredWithPekkosJoinCheck() {
    assertEquals(JournalJoinCheck.class.getName(),
        ConfigFactory.load().getString("pekko.cluster.configuration-compatibility-check.checkers.almanac"));
  }
}
