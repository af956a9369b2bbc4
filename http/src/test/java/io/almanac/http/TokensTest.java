package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InvalidSpecException;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The named tokens of almanac.http.tokens and almanac.http.token, checked at start: pure. */
class TokensTest {

  private static final String A = "alice-operate-token-0001";
  private static final String G = "grafana-read-token-00001";

  private static Tokens tokens(String conf) {
    return Tokens.from(AlmanacHttpTest.config(conf).resolve());
  }

  private static InvalidSpecException refused(String conf) {
    return assertThrows(InvalidSpecException.class, () -> AlmanacHttp.Settings.from(AlmanacHttpTest.config(conf).resolve()));
  }

  @Test
  @DisplayName("each token has a name and a role; almanac.http.token is the operate token 'operator'; a presented "
      + "token matches its own entry only")
  void namedTokens() {
    Tokens t = tokens("almanac.http { token = \"legacy-token-000000001\", tokens { alice { token = \"" + A
        + "\", role = operate }, grafana { token = \"" + G + "\", role = read } } }");
    assertEquals(List.of("operator", "alice", "grafana"), t.all().stream().map(Tokens.Named::name).toList());
    assertEquals(Tokens.Role.OPERATE, t.match("legacy-token-000000001").orElseThrow().role());
    assertEquals("alice", t.match(A).orElseThrow().name());
    assertEquals(Tokens.Role.READ, t.match(G).orElseThrow().role());
    assertTrue(t.match(A + "x").isEmpty());
    assertTrue(t.match("").isEmpty());
    assertFalse(t.readRequiresToken(), "reads need no token by default");
    assertFalse(t.all().get(1).toString().contains(A), "never shows a token");
    assertTrue(tokens("").isEmpty());
  }

  @Test
  @DisplayName("a named token beyond loopback is enough; none at all is refused naming almanac.http.interface")
  void loopback() {
    assertEquals("0.0.0.0", AlmanacHttp.Settings.from(AlmanacHttpTest.config("almanac.http { interface = \"0.0.0.0\", "
        + "tokens { alice { token = \"" + A + "\", role = operate } } }")).iface());
    assertEquals("almanac.http.interface", refused("almanac.http.interface = \"0.0.0.0\"").field());
  }

  @Test
  @DisplayName("bad tokens are refused at start naming the key, never the token: short, blank, empty (an unset "
      + "variable), a duplicate value, an unknown role (named with its value), a bad name, an unknown field")
  void refusals() {
    InvalidSpecException shortOne = refused("almanac.http.tokens { alice { token = \"short-secret-15\", role = operate } }");
    assertEquals("almanac.http.tokens.alice.token", shortOne.field());
    assertTrue(shortOne.getMessage().contains("15 characters long"), shortOne.getMessage());
    assertFalse(shortOne.getMessage().contains("short-secret-15"), shortOne.getMessage());

    InvalidSpecException blank = refused("almanac.http.tokens { alice { token = \"                \", role = read } }");
    assertEquals("almanac.http.tokens.alice.token", blank.field());
    assertTrue(blank.getMessage().contains("blank"), blank.getMessage());

    InvalidSpecException unset = refused("almanac.http.tokens { alice { token = ${?ALMANAC_TEST_UNSET_TOKEN_X}, "
        + "role = operate } }");
    assertEquals("almanac.http.tokens.alice.token", unset.field());
    assertTrue(unset.getMessage().contains("is missing"), unset.getMessage());

    InvalidSpecException same = refused("almanac.http { token = \"" + A + "\", tokens { bob { token = \"" + A
        + "\", role = read } } }");
    assertEquals("almanac.http.tokens.bob.token", same.field());
    assertTrue(same.getMessage().contains("is the same token as almanac.http.token"), same.getMessage());
    assertFalse(same.getMessage().contains(A), same.getMessage());
    InvalidSpecException twin = refused("almanac.http.tokens { a { token = \"" + A + "\", role = read }, b { token = \"" + A
        + "\", role = operate } }");
    assertEquals("almanac.http.tokens.b.token", twin.field());
    assertTrue(twin.getMessage().contains("almanac.http.tokens.a.token"), twin.getMessage());

    InvalidSpecException role = refused("almanac.http.tokens { alice { token = \"" + A + "\", role = admin } }");
    assertEquals("almanac.http.tokens.alice.role", role.field());
    assertEquals("admin", role.value());
    assertTrue(role.getMessage().contains("must be read or operate"), role.getMessage());
    assertEquals("almanac.http.tokens.alice.role", refused("almanac.http.tokens { alice { token = \"" + A + "\" } }")
        .field());

    InvalidSpecException name = refused("almanac.http.tokens { \"al ice\" { token = \"" + A + "\", role = read } }");
    assertEquals("al ice", name.value());
    InvalidSpecException operator = refused("almanac.http { token = \"" + G + "\", tokens { operator { token = \"" + A
        + "\", role = read } } }");
    assertEquals("almanac.http.tokens.operator", operator.field());
    InvalidSpecException field = refused("almanac.http.tokens { alice { token = \"" + A + "\", role = read, rol = x } }");
    assertEquals("almanac.http.tokens.alice.rol", field.field());
    InvalidSpecException notObject = refused("almanac.http.tokens { alice = \"" + A + "\" }");
    assertEquals("almanac.http.tokens.alice", notObject.field());
    assertFalse(notObject.getMessage().contains(A), notObject.getMessage());
  }

  @Test
  @DisplayName("read-requires-token: on needs a token (refused naming the key without one); a wrong type is refused")
  void readRequiresToken() {
    assertTrue(tokens("almanac.http { read-requires-token = on, tokens { g { token = \"" + G + "\", role = read } } }")
        .readRequiresToken());
    assertEquals("almanac.http.read-requires-token", refused("almanac.http.read-requires-token = on").field());
    InvalidSpecException bad = refused("almanac.http.read-requires-token = sometimes");
    assertEquals("almanac.http.read-requires-token", bad.field());
    assertEquals("sometimes", bad.value());
  }
}
