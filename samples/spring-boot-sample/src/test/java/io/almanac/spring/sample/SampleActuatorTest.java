package io.almanac.spring.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Almanac;
import io.almanac.spring.AlmanacNode;
import io.almanac.testkit.Eventually;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample under Actuator: the node's liveness and readiness in Actuator's probe groups, its meters
 * in Spring's {@link MeterRegistry}, its own HTTP endpoints on their own port.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "almanac.http.port=0", "management.endpoints.web.exposure.include=health,metrics"})
class SampleActuatorTest {

  @DynamicPropertySource
  static void dataDir(DynamicPropertyRegistry registry) throws IOException {
    // under target/ (the context, cached by Spring's test framework, holds the H2 file open until the JVM ends)
    Path dir = Files.createDirectories(Path.of("target", "actuator-" + System.nanoTime()).toAbsolutePath());
    registry.add("sample.data-dir", dir::toString);
  }

  @LocalServerPort
  int port;

  @Autowired
  MeterRegistry registry;

  @Autowired
  AlmanacNode node;

  @Autowired
  Almanac almanac;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void livenessAndReadinessGroupsHoldTheNodesChecks() throws Exception {
    Eventually.eventually(Duration.ofSeconds(15), () -> {
      HttpResponse<String> ready = get(port, "/actuator/health/readiness");
      assertEquals(200, ready.statusCode(), ready.body());
      assertTrue(ready.body().contains("\"almanacReadiness\":{\"status\":\"UP\""), ready.body());
      assertTrue(ready.body().contains("\"readinessState\""), ready.body());
      // the node's own checks, as its GET /health/ready lists them
      assertTrue(ready.body().contains("\"tasks-registered\":{\"ok\":true"), ready.body());
      assertTrue(ready.body().contains("\"trigger\":{\"ok\":true"), ready.body());
    });
    HttpResponse<String> live = get(port, "/actuator/health/liveness");
    assertEquals(200, live.statusCode(), live.body());
    assertTrue(live.body().contains("\"almanacLiveness\":{\"status\":\"UP\""), live.body());
    assertTrue(live.body().contains("\"actor-system\":{\"ok\":true"), live.body());
    assertFalse(live.body().contains("almanacReadiness"), "readiness is not in the liveness group: " + live.body());

    // the node's own endpoints, on their own port, agree
    int nodePort = node.httpBinding().orElseThrow().localAddress().getPort();
    HttpResponse<String> own = get(nodePort, "/health/ready");
    assertEquals(200, own.statusCode(), own.body());
  }

  @Test
  void theNodesMetersAreInSpringsRegistry() throws Exception {
    Eventually.eventually(Duration.ofSeconds(15), () -> {
      // one series per run kind, each from the task's registration at 0: their sum counts the attempts
      java.util.Collection<Counter> started = registry.find("almanac.attempts.started").tag("task", "heartbeat").counters();
      assertFalse(started.isEmpty(), "almanac.attempts.started{task=heartbeat} in Spring's registry");
      double count = started.stream().mapToDouble(Counter::count).sum();
      assertTrue(count >= 1, "counted: " + count);
    });
    assertTrue(almanac.meterRegistry().getRegistries().contains(registry), "Spring's registry is a member of the node's");
    HttpResponse<String> metric = get(port, "/actuator/metrics/almanac.attempts.started?tag=task:heartbeat");
    assertEquals(200, metric.statusCode(), metric.body());
    assertTrue(metric.body().contains("\"name\":\"almanac.attempts.started\""), metric.body());
  }

  private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
