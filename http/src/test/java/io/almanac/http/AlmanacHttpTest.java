package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Almanac;
import io.almanac.InvalidSpecException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.persistence.testkit.PersistenceTestKitPlugin;
import org.apache.pekko.persistence.testkit.PersistenceTestKitSnapshotPlugin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The health endpoints over real HTTP, on a one-node Almanac with an in-memory journal. */
class AlmanacHttpTest {

  private ActorTestKit testKit;

  static Config config(String extra) {
    // the test's own settings last: they win
    return ConfigFactory.parseString("pekko.actor.provider = cluster\n"
            + "pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }\n"
            + "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on\n"
            + "almanac.http.port = 0\n" + extra + "\n")
        .withFallback(PersistenceTestKitPlugin.getInstance().config())
        .withFallback(PersistenceTestKitSnapshotPlugin.config())
        .withFallback(ConfigFactory.load());
  }

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("GET /health/live and /health/ready answer over HTTP on 127.0.0.1: live at once, ready (200) once the node "
      + "joined and its trigger ticks, with every check in the JSON body")
  void healthOverHttp() throws Exception {
    testKit = ActorTestKit.create("http-test", config(""));
    Almanac almanac = Almanac.builder(testKit.system()).start();
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertEquals("127.0.0.1", binding.localAddress().getAddress().getHostAddress());
    String base = "http://127.0.0.1:" + binding.localAddress().getPort();
    HttpClient client = HttpClient.newHttpClient();

    HttpResponse<String> live = client.send(HttpRequest.newBuilder(URI.create(base + "/health/live")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, live.statusCode(), live.body());
    assertEquals("application/json", live.headers().firstValue("Content-Type").orElse(""));
    assertTrue(new ObjectMapper().readTree(live.body()).get("live").asBoolean());

    // ready once the node joined its (one-node) cluster and the trigger ticked: waited for with a deadline
    Instant deadline = Instant.now().plusSeconds(30);
    HttpResponse<String> ready;
    do {
      ready = client.send(HttpRequest.newBuilder(URI.create(base + "/health/ready")).build(), HttpResponse.BodyHandlers.ofString());
      if (ready.statusCode() != 200) {
        assertEquals(503, ready.statusCode(), ready.body());
        Thread.sleep(100); // polling an external endpoint until its deadline, not waiting for time to pass
      }
    } while (ready.statusCode() != 200 && Instant.now().isBefore(deadline));
    assertEquals(200, ready.statusCode(), ready.body());
    JsonNode body = new ObjectMapper().readTree(ready.body());
    assertTrue(body.get("ready").asBoolean());
    assertEquals(6, body.get("checks").size(), ready.body()); // actor system, member, tasks, trigger, journal, executor
    for (JsonNode check : body.get("checks")) {
      assertTrue(check.get("ok").asBoolean(), ready.body());
      assertTrue(!check.get("detail").asText().isEmpty(), ready.body());
    }

    HttpResponse<String> unknown = client.send(HttpRequest.newBuilder(URI.create(base + "/nothing")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(404, unknown.statusCode());

    // DNS rebinding: a page of another site whose name resolves to 127.0.0.1 sends its own name as Host
    int port = binding.localAddress().getPort();
    String rebound = rawGet(port, "/api/tasks", "evil.example:" + port);
    assertTrue(rebound.startsWith("HTTP/1.1 403"), rebound);
    assertTrue(rebound.contains("application/problem+json") && rebound.contains("forbidden-host")
        && rebound.contains("evil.example"), rebound);
    assertTrue(rawGet(port, "/health/live", "localhost:" + port).startsWith("HTTP/1.1 200"), "localhost is answered");
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** A GET over a plain socket (java.net.http does not let a caller set Host). */
  private static String rawGet(int port, String path, String host) throws Exception {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  @DisplayName("a loopback-bound node answers Host names of loopback and of its interface only")
  void allowedHosts() {
    for (String ok : new String[] {"localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "[::1]", "::1", "my-box"}) {
      assertTrue(AlmanacHttp.allowedHost(ok, "my-box"), ok);
    }
    for (String no : new String[] {"evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.1", ""}) {
      assertTrue(!AlmanacHttp.allowedHost(no, "127.0.0.1"), no);
    }
  }

  @Test
  @DisplayName("bad settings are refused naming the key and the value, before anything listens: beyond loopback "
      + "without a token, a port out of range, a port that is not a number")
  void badSettings() {
    InvalidSpecException open = assertThrows(InvalidSpecException.class,
        () -> AlmanacHttp.Settings.from(config("almanac.http.interface = \"0.0.0.0\"")));
    assertTrue(open.getMessage().startsWith("almanac.http.interface '0.0.0.0' is invalid: is beyond loopback while "
        + "almanac.http.token is empty"), open.getMessage());
    assertEquals("0.0.0.0", AlmanacHttp.Settings.from(config("almanac.http { interface = \"0.0.0.0\", token = s3cret-token-0123 }"))
        .iface(), "with a token it may listen beyond loopback");
    InvalidSpecException port = assertThrows(InvalidSpecException.class,
        () -> AlmanacHttp.Settings.from(config("almanac.http.port = 70000")));
    assertEquals("almanac.http.port '70000' is invalid: must be between 0 and 65535", port.getMessage());
    InvalidSpecException notANumber = assertThrows(InvalidSpecException.class,
        () -> AlmanacHttp.Settings.from(config("almanac.http.port = eighty")));
    assertEquals("almanac.http.port 'eighty' is invalid: must be an integer", notANumber.getMessage());
  }

  @Test
  @DisplayName("a blank token, or one of fewer than 16 characters, is refused naming almanac.http.token and its length, "
      + "never its value")
  void weakTokens() {
    InvalidSpecException blank = assertThrows(InvalidSpecException.class,
        () -> AlmanacHttp.Settings.from(config("almanac.http { interface = \"0.0.0.0\", token = \"    \" }")));
    assertEquals("almanac.http.token", blank.field());
    assertTrue(blank.getMessage().contains("is blank (4 white-space characters)"), blank.getMessage());
    InvalidSpecException shortOne = assertThrows(InvalidSpecException.class,
        () -> AlmanacHttp.Settings.from(config("almanac.http.token = \"short-secret-15\"")));
    assertEquals("almanac.http.token", shortOne.field());
    assertTrue(shortOne.getMessage().contains("is 15 characters long: it must have at least 16"), shortOne.getMessage());
    assertFalse(shortOne.getMessage().contains("short-secret-15"), "the token is not echoed: " + shortOne.getMessage());
    assertEquals(null, shortOne.value());
    assertEquals("sixteen-chars-ok", AlmanacHttp.Settings.from(config("almanac.http.token = sixteen-chars-ok")).token());
    assertEquals("", AlmanacHttp.Settings.from(config("almanac.http.token = \"\"")).token(), "empty: actions refused");
  }

  @Test
  @DisplayName("the 2-argument start reads /api/windows from the Java API without a JDBC journal")
  void windowSourceWithoutJdbc() {
    testKit = ActorTestKit.create("http-source", config(""));
    Almanac almanac = Almanac.builder(testKit.system()).start();
    assertTrue(AlmanacHttp.windowSource(testKit.system(), almanac) instanceof AlmanacWindowSource);
  }
}
