package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Almanac;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The dashboard's files over real HTTP (the page itself is tested in a browser by the samples' DashboardTest). */
class DashboardRoutesTest {

  private ActorTestKit testKit;

  @AfterEach
  void stop() {
    if (testKit != null) {
      testKit.shutdownTestKit();
    }
  }

  @Test
  @DisplayName("GET / is the page (HTML, own scripts only by CSP), /dashboard/app.js, charts.js and app.css its assets with "
      + "their types; "
      + "an unknown asset is a 404 problem, a POST to / is a 405 problem")
  void servesTheDashboard() throws Exception {
    testKit = ActorTestKit.create("dashboard-routes", AlmanacHttpTest.config(""));
    Almanac almanac = Almanac.builder(testKit.system()).start();
    ServerBinding binding = AlmanacHttp.start(testKit.system(), almanac).toCompletableFuture().get(30, TimeUnit.SECONDS);
    String base = "http://127.0.0.1:" + binding.localAddress().getPort();
    HttpClient client = HttpClient.newHttpClient();

    HttpResponse<String> page = client.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, page.statusCode());
    assertEquals("text/html; charset=UTF-8", page.headers().firstValue("Content-Type").orElse(""));
    assertTrue(page.headers().firstValue("Content-Security-Policy").orElse("").startsWith("default-src 'self'"));
    assertTrue(page.body().contains("<title>Almanac</title>") && page.body().contains("/dashboard/app.js"), page.body());

    HttpResponse<String> js = client.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/app.js")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, js.statusCode());
    assertTrue(js.headers().firstValue("Content-Type").orElse("").contains("javascript"), js.headers().map().toString());
    assertTrue(js.body().contains("/api/queue"));
    // the task list reads every task with its own latest windows in one request per refresh
    assertTrue(js.body().contains("getJson('/api/tasks?latest=' + LATEST)"), "one request for the list");
    assertTrue(page.body().contains("<script type=\"module\" src=\"/dashboard/app.js\">"), page.body());
    HttpResponse<String> charts = client.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/charts.js")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, charts.statusCode());
    assertTrue(charts.headers().firstValue("Content-Type").orElse("").contains("javascript"), "a module needs a script type");
    HttpResponse<String> css = client.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/app.css")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, css.statusCode());
    assertTrue(css.headers().firstValue("Content-Type").orElse("").startsWith("text/css"));

    HttpResponse<String> missing = client.send(HttpRequest.newBuilder(URI.create(base + "/dashboard/nothing.js")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(404, missing.statusCode());
    assertEquals("application/problem+json", missing.headers().firstValue("Content-Type").orElse(""));
    HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create(base + "/"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(405, post.statusCode(), post.body());
    binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
