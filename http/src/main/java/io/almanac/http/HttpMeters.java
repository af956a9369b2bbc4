package io.almanac.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Times every request the node's HTTP endpoints answer, as Micrometer's HTTP server meters do
 * ({@code http.server.requests}, in Prometheus {@code http_server_requests_seconds}), with bounded
 * tags: {@code method} (GET, POST, ... or OTHER), {@code uri} (the route's template, e.g.
 * {@code /api/tasks/{task}/windows/{window}/why}; a path no route knows is {@code NOT_FOUND}, a
 * dashboard file {@code /dashboard/**}), {@code status} (the code) and {@code outcome}
 * (SUCCESS, REDIRECTION, CLIENT_ERROR, SERVER_ERROR, INFORMATIONAL). Never a task id or window key.
 */
final class HttpMeters extends AllDirectives {

  private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH");

  /** The API's fixed path segments: any other segment of an /api path is a name (task, window, pool). */
  private static final Set<String> API_WORDS = Set.of("api", "tasks", "windows", "queue", "events", "pools", "pause",
      "resume", "run", "backfill", "usage", "raise-budget", "retry", "resolve", "cancel", "timeline", "why", "history",
      "steps", "logs");

  private final MeterRegistry registry;

  HttpMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * @param inner the routes
   * @return them, each answer timed
   */
  Route timed(Route inner) {
    return extractRequest(request -> {
      long start = System.nanoTime();
      String method = method(request.method().value());
      String uri = uri(request.getUri().path());
      return mapResponse(response -> {
        int status = response.status().intValue();
        Timer.builder("http.server.requests").description("requests the node's HTTP endpoints answered")
            .tag("method", method).tag("uri", status == 404 && !uri.startsWith("/api/tasks/") ? "NOT_FOUND" : uri)
            .tag("status", String.valueOf(status)).tag("outcome", outcome(status))
            .register(registry).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        return response;
      }, () -> inner);
    });
  }

  static String method(String m) {
    String u = m.toUpperCase(Locale.ROOT);
    return METHODS.contains(u) ? u : "OTHER";
  }

  /**
   * @param path a request's path
   * @return its route template: names (task ids, window keys, pools) replaced by their kind in braces
   */
  static String uri(String path) {
    if (path.equals("/") || path.isEmpty()) {
      return "/";
    }
    if (path.equals("/metrics") || path.equals("/health/live") || path.equals("/health/ready")) {
      return path;
    }
    if (path.equals("/dashboard") || path.startsWith("/dashboard/")) {
      return "/dashboard/**";
    }
    if (!path.startsWith("/api/") && !path.equals("/api")) {
      return "NOT_FOUND";
    }
    String[] parts = path.substring(1).split("/", -1);
    StringBuilder b = new StringBuilder();
    String previous = "";
    for (String p : parts) {
      b.append('/');
      if (API_WORDS.contains(p) && !isName(previous)) {
        b.append(p);
      } else {
        b.append(switch (previous) {
          case "tasks" -> "{task}";
          case "windows" -> "{window}";
          case "pools" -> "{pool}";
          default -> "{name}";
        });
      }
      previous = API_WORDS.contains(p) && !isName(previous) ? p : "";
    }
    return b.length() > 200 ? "NOT_FOUND" : b.toString();
  }

  /** Whether the segment after this one is a name (a task, window or pool), not a fixed word. */
  private static boolean isName(String previous) {
    return previous.equals("tasks") || previous.equals("windows") || previous.equals("pools");
  }

  static String outcome(int status) {
    if (status < 200) {
      return "INFORMATIONAL";
    }
    if (status < 300) {
      return "SUCCESS";
    }
    if (status < 400) {
      return "REDIRECTION";
    }
    return status < 500 ? "CLIENT_ERROR" : "SERVER_ERROR";
  }
}
