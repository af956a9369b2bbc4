package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DemoTokenTest {

  @Test
  @DisplayName("the demo never opens the HTTP API's actions: without almanac.http.token it makes up a random one per run")
  void generatedWhenEmpty() {
    Config empty = ConfigFactory.parseString("almanac.http.token = \"\"");
    String first = DemoNode.withActionToken(empty).getString("almanac.http.token");
    String second = DemoNode.withActionToken(empty).getString("almanac.http.token");
    assertTrue(first.length() >= 20, "a long random token: " + first);
    assertNotEquals(first, second, "a new token per run");
    assertTrue(DemoNode.withActionToken(empty).getBoolean(DemoNode.TOKEN_GENERATED), "marked as made up (it may be logged)");
  }

  @Test
  @DisplayName("a configured token (e.g. from ALMANAC_TOKEN) is kept as it is")
  void configuredKept() {
    Config set = ConfigFactory.parseString("almanac.http.token = s3cret");
    assertEquals("s3cret", DemoNode.withActionToken(set).getString("almanac.http.token"));
    assertFalse(DemoNode.withActionToken(set).hasPath(DemoNode.TOKEN_GENERATED), "an operator's token is never logged");
  }

  @Test
  @DisplayName("named tokens (almanac.http.tokens) are the demo's tokens: none is made up beside them")
  void namedTokensKept() {
    Config named = ConfigFactory.parseString("almanac.http { token = \"\", tokens { alice { token = "
        + "alice-operate-token-0001, role = operate } } }");
    assertEquals("", DemoNode.withActionToken(named).getString("almanac.http.token"));
    assertFalse(DemoNode.withActionToken(named).hasPath(DemoNode.TOKEN_GENERATED));
  }
}
