package io.almanac.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.InvalidSpecException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** almanac.alerts.webhook: its defaults, and each bad value refused naming the key and the value. */
class WebhookSettingsTest {

  private static WebhookSettings read(String webhook) {
    return WebhookSettings.from(ConfigFactory.parseString("almanac.alerts.webhook { " + webhook + " }")
        .withFallback(ConfigFactory.defaultReference()).resolve());
  }

  @Test
  @DisplayName("webhook: no url (the default) is no webhook")
  void emptyUrlIsNoWebhook() {
    assertNull(WebhookSettings.from(ConfigFactory.defaultReference()));
    assertNull(read("url = \"  \""));
  }

  @Test
  @DisplayName("webhook: the defaults of reference.conf; every kind when kinds is empty")
  void defaults() {
    WebhookSettings s = read("url = \"https://alerts.example.com/almanac/T0K3N?key=x\"");
    assertEquals(Duration.ofSeconds(5), s.timeout());
    assertEquals(5, s.maxAttempts());
    assertEquals(Duration.ofSeconds(1), s.backoff());
    assertEquals(Duration.ofMinutes(1), s.maxBackoff());
    assertEquals(1000, s.queueSize());
    assertTrue(s.kinds().isEmpty());
    for (Alert.Kind k : Alert.Kind.values()) {
      assertTrue(s.sends(k), k.name());
    }
    assertEquals(Map.of(), s.headers());
    assertEquals("https://alerts.example.com/…", s.target(), "logs never show the path or query");
    assertEquals(Duration.ofSeconds(1), s.backoffAfter(1));
    assertEquals(Duration.ofSeconds(8), s.backoffAfter(4));
    assertEquals(Duration.ofMinutes(1), s.backoffAfter(40), "at most max-backoff");
  }

  @Test
  @DisplayName("webhook: kinds and headers as given; a header from an unset environment variable (${?VAR}) is left out")
  void kindsAndHeaders() {
    WebhookSettings s = read("url = \"http://127.0.0.1:9/x\", kinds = [FINAL_FAILED, TRIGGER_STALLED], "
        + "headers { Authorization = ${?ALMANAC_TEST_UNSET_TOKEN_VARIABLE}, X-Count = 3 }");
    assertEquals(Set.of(Alert.Kind.FINAL_FAILED, Alert.Kind.TRIGGER_STALLED), s.kinds());
    assertFalse(s.sends(Alert.Kind.REPEATED_SKIPS));
    assertEquals(Map.of("X-Count", "3"), s.headers());
  }

  @ParameterizedTest(name = "{0} = {1}")
  @DisplayName("webhook: a bad value is refused at start, naming the key and the value")
  @CsvSource(delimiter = '|', value = {
      "url | \"ftp://files.example.com/alerts\" | ftp://files.example.com/alerts | must be an http or https URL",
      "url | \"alerts.example.com/hook\" | alerts.example.com/hook | must be an http or https URL",
      "url | \"http://exa mple.com/\" | http://exa mple.com/ | is not a URL",
      "url | \"http:///nohost\" | http:///nohost | has no host",
      "timeout | -1s | PT-1S | must not be negative",
      "timeout | 3661d | 3661d | must be at most PT87840H",
      "timeout | 0s | PT0S | must be a positive duration",
      "timeout | soon | soon | must be a duration",
      "backoff | 0s | PT0S | must be a positive duration",
      "max-backoff | 10ms | PT0.01S | must be >= almanac.alerts.webhook.backoff",
      "max-attempts | 0 | 0 | must be >= 1",
      "max-attempts | 2.5 | 2.5 | must be a whole number",
      "queue-size | 0 | 0 | must be >= 1",
      "queue-size | -5 | -5 | must be >= 1",
      "kinds | [FINAL_FAILED, NOT_A_KIND] | NOT_A_KIND | is not an alert kind",
      "kinds | FINAL_FAILED | FINAL_FAILED | must be a list of alert kinds",
  })
  void badValues(String key, String value, String shown, String reason) {
    String url = key.equals("url") ? "" : "url = \"http://127.0.0.1:9/alerts\"\n";
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> read(url + key + " = " + value));
    assertEquals("almanac.alerts.webhook." + key, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains("almanac.alerts.webhook." + key), e.getMessage());
    assertTrue(e.getMessage().contains(shown), e.getMessage());
    assertTrue(e.getMessage().contains(reason), e.getMessage());
  }

  @Test
  @DisplayName("webhook: an unknown key is refused naming it, without showing its value (a misplaced header may be a secret)")
  void unknownKey() {
    InvalidSpecException typo = assertThrows(InvalidSpecException.class, () -> read("url = \"http://127.0.0.1:9/x\", max-attempt = 3"));
    assertEquals("almanac.alerts.webhook.max-attempt", typo.field());
    assertTrue(typo.getMessage().contains("unknown key") && typo.getMessage().contains("max-attempts"), typo.getMessage());
    InvalidSpecException misplaced = assertThrows(InvalidSpecException.class, () -> read("Authorization = \"Bearer s3cret\""));
    assertEquals("almanac.alerts.webhook.Authorization", misplaced.field(), "refused even without a url");
    assertFalse(misplaced.getMessage().contains("s3cret"), misplaced.getMessage());
  }

  @Test
  @DisplayName("webhook: a bad header is refused naming it, without showing its value (it may be a secret)")
  void badHeaders() {
    InvalidSpecException restricted = assertThrows(InvalidSpecException.class,
        () -> read("url = \"http://127.0.0.1:9/x\", headers { Host = \"s3cret-host\" }"));
    assertEquals("almanac.alerts.webhook.headers.Host", restricted.field());
    assertFalse(restricted.getMessage().contains("s3cret"), restricted.getMessage());
    InvalidSpecException object = assertThrows(InvalidSpecException.class,
        () -> read("url = \"http://127.0.0.1:9/x\", headers { X-Token { value = s3cret } }"));
    assertEquals("almanac.alerts.webhook.headers.X-Token", object.field());
    assertFalse(object.getMessage().contains("s3cret"), object.getMessage());
    InvalidSpecException notObject = assertThrows(InvalidSpecException.class,
        () -> read("url = \"http://127.0.0.1:9/x\", headers = \"Authorization: s3cret\""));
    assertEquals("almanac.alerts.webhook.headers", notObject.field());
    assertFalse(notObject.getMessage().contains("s3cret"), notObject.getMessage());
  }
}
