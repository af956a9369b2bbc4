package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.TaskSpec;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.testkit.SettableClock;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/http-api.md is true of the running node: every endpoint its tables document is answered by a
 * node (with a task, a window and a pool named in place of {@code {task}}, {@code {window}} and
 * {@code {pool}}): a GET with 200, a POST (with the token and an empty JSON object) with 200 or a
 * problem+json that is about the request (400, 409), never 404 or 405 (no such route).
 */
class DocumentedEndpointsTest {

  private static final String TOKEN = "documented-endpoints-token";
  /** A documented endpoint in a table row: `GET /path` or `POST /path`, up to a query or the closing backtick. */
  private static final Pattern ENDPOINT = Pattern.compile("^\\|.*?`(GET|POST) (/[^`?\\s]*)");
  private static final Pattern MORE = Pattern.compile("`(GET|POST) (/[^`?\\s]*)");

  @TempDir static Path dir;

  private ActorTestKit testKit;

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  /** Every endpoint in a table row of docs/http-api.md, as "METHOD /path". */
  static Set<String> documented() throws Exception {
    Set<String> endpoints = new TreeSet<>();
    for (String line : Files.readAllLines(Path.of("..", "docs", "http-api.md"))) {
      if (!ENDPOINT.matcher(line).find()) {
        continue;
      }
      String firstCell = line.split("\\|")[1]; // the endpoint column; later columns may mention others in passing
      Matcher m = MORE.matcher(firstCell);
      while (m.find()) {
        endpoints.add(m.group(1) + " " + m.group(2));
      }
    }
    return endpoints;
  }

  @Test
  @DisplayName("every endpoint docs/http-api.md documents is answered by a running node: GETs 200, POSTs never 404/405")
  void everyDocumentedEndpointIsServed() throws Exception {
    Set<String> endpoints = documented();
    assertTrue(endpoints.size() >= 20, "endpoints found in docs/http-api.md: " + endpoints);
    // a real node on an H2 file: the timeline and "why" read the journal's database, /api/windows its instance table
    testKit = ActorTestKit.create("documented-endpoints-test", ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(dir.resolve("almanac").toString()),
        "almanac.http { port = 0, token = " + TOKEN + " }",
        "almanac.pools.llm { max-concurrent = 1, budget-per-day = 5 }",
        "almanac.trigger { max-tick-interval = 20ms, persist-interval = 20ms }",
        "almanac.executor.check-interval = 20ms"))));
    SchemaBootstrap.ensureSchemaBlocking(testKit.system(), Duration.ofSeconds(30));
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T23:59:00Z"));
    AgentJob ok = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));
    Almanac almanac = Almanac.builder(testKit.system()).clock(clock).job("ok", ok).start();
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    String base = "http://127.0.0.1:" + binding.localAddress().getPort();
    almanac.register(TaskSpec.builder("digest").cron("0 0 8 * * ? Asia/Shanghai").job("ok").pools("llm").build())
        .toCompletableFuture().get(20, TimeUnit.SECONDS);
    clock.set(Instant.parse("2026-11-29T00:00:00Z"));
    io.almanac.testkit.Eventually.eventually(Duration.ofSeconds(20), () -> assertTrue(almanac.windows("digest")
        .toCompletableFuture().get(10, TimeUnit.SECONDS).stream().anyMatch(w -> w.status() == InstanceStatus.SUCCEEDED)));
    io.almanac.testkit.Eventually.eventually(Duration.ofSeconds(20), () -> assertTrue(almanac.health()
        .toCompletableFuture().get(10, TimeUnit.SECONDS).ready()));

    HttpClient client = HttpClient.newHttpClient();
    List<String> wrong = new ArrayList<>();
    for (String endpoint : endpoints) {
      String method = endpoint.substring(0, endpoint.indexOf(' '));
      String path = endpoint.substring(endpoint.indexOf(' ') + 1).replace("{task}", "digest")
          .replace("{window}", "2026-11-29").replace("{pool}", "llm");
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
      if (method.equals("POST")) {
        request.header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{}"));
      }
      HttpResponse<String> r = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      String type = r.headers().firstValue("Content-Type").orElse("");
      boolean fine = method.equals("GET") ? r.statusCode() == 200
          : r.statusCode() == 200 || ((r.statusCode() == 400 || r.statusCode() == 409) && type.startsWith("application/problem+json"));
      if (!fine) {
        wrong.add(endpoint + " -> " + r.statusCode() + " " + type + " " + r.body().substring(0, Math.min(200, r.body().length())));
      }
    }
    assertEquals(List.of(), wrong, "documented endpoints the node does not serve as documented");
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
