package io.almanac.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The {@code almanac} command's only way to the node: its HTTP API (docs/http-api.md), with
 * {@link HttpClient} and timeouts. Every answer that is not a success becomes a {@link CliException}
 * with the exit code {@link AlmanacCli} documents and the problem's detail.
 */
final class ApiClient {

  static final ObjectMapper JSON = new ObjectMapper();

  private final URI base;
  private final String token;
  private final Duration timeout;
  private final HttpClient http;

  /**
   * One answer: its status, body and {@code Retry-After} header.
   *
   * @param status the HTTP status
   * @param body the body
   * @param retryAfter the {@code Retry-After} header as sent (seconds), or null
   */
  record Answer(int status, String body, String retryAfter) {
    Answer(int status, String body) {
      this(status, body, null);
    }

    /** @return the body as JSON */
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new CliException(AlmanacCli.EXIT_REFUSED, "the node answered " + status + " with a body that is not JSON: "
            + LiveTable.shorten(body, 200));
      }
    }
  }

  /**
   * @param url the node's base URL, e.g. http://127.0.0.1:8558
   * @param token the bearer token for mutating calls, or null/empty
   * @param timeout how long to wait for the connection and for each answer
   * @throws CliException (bad input) when the URL is not an http(s) URL
   */
  ApiClient(String url, String token, Duration timeout) {
    URI parsed;
    try {
      parsed = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
    } catch (IllegalArgumentException e) {
      throw new CliException(AlmanacCli.EXIT_BAD_INPUT, "--url '" + url + "' is invalid: " + e.getMessage());
    }
    if (parsed.getScheme() == null || !(parsed.getScheme().equals("http") || parsed.getScheme().equals("https"))
        || parsed.getHost() == null) {
      throw new CliException(AlmanacCli.EXIT_BAD_INPUT, "--url '" + url + "' is invalid: must be http://host:port or https://host:port");
    }
    this.base = parsed;
    this.token = token == null || token.isBlank() ? null : token.trim();
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  /** @return the base URL */
  URI base() {
    return base;
  }

  /**
   * @param part a path segment or query value
   * @return it percent-encoded (a window key's ':' included)
   */
  static String enc(String part) {
    return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /**
   * GET, expecting a success.
   *
   * @param path the path and query, starting with /
   * @return the answer
   */
  Answer get(String path) {
    return checked(send(authorized(HttpRequest.newBuilder(uri(path)).GET())));
  }

  /**
   * The bearer token, when one is given, on every call to the API: actions need it, and reads too
   * on a node with {@code almanac.http.read-requires-token} on.
   */
  private HttpRequest.Builder authorized(HttpRequest.Builder b) {
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return b;
  }

  /**
   * GET, whatever the status (health answers 503 with a body).
   *
   * @param path the path and query, starting with /
   * @return the answer
   */
  Answer getAny(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  /**
   * POST with the bearer token, expecting a success.
   *
   * @param path the path, starting with /
   * @param body a JSON body, or null for none
   * @return the answer
   */
  Answer post(String path, String body) {
    return post(path, body, null);
  }

  /**
   * POST with the bearer token and an {@code If-Match} header, expecting a success.
   *
   * @param path the path, starting with /
   * @param body a JSON body, or null for none
   * @param ifMatch the window's ETag the action expects, or null for none
   * @return the answer
   */
  Answer post(String path, String body, String ifMatch) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
        .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    if (ifMatch != null) {
      b.header("If-Match", ifMatch);
    }
    return checked(send(authorized(b)));
  }

  private URI uri(String path) {
    return URI.create(base + path);
  }

  private Answer send(HttpRequest.Builder request) {
    HttpRequest r = request.timeout(timeout).header("Accept", "application/json").build();
    try {
      HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Answer(response.statusCode(), response.body(), response.headers().firstValue("Retry-After").orElse(null));
    } catch (HttpConnectTimeoutException e) {
      throw unreachable("no connection within " + timeout.toSeconds() + " s");
    } catch (HttpTimeoutException e) {
      throw unreachable("no answer within " + timeout.toSeconds() + " s");
    } catch (ConnectException e) {
      throw unreachable("connection refused");
    } catch (IOException e) {
      throw unreachable(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable("interrupted");
    }
  }

  private CliException unreachable(String why) {
    return new CliException(AlmanacCli.EXIT_UNREACHABLE, "almanac: cannot reach the node at " + base + ": " + why
        + " (is it running? pass --url or set ALMANAC_URL)");
  }

  /** A success as is; else the problem as a {@link CliException} with its exit code. */
  private Answer checked(Answer a) {
    if (a.status() >= 200 && a.status() < 300) {
      return a;
    }
    Problem p = Problem.of(a);
    String detail = p.detail();
    if (a.status() == 401) {
      throw new CliException(AlmanacCli.EXIT_UNAUTHORIZED, "almanac: unauthorized (401): " + detail
          + "; pass the node's token with --token or set ALMANAC_TOKEN");
    }
    if (a.status() == 403 && "Forbidden".equals(p.title())) { // a read token on an action (not forbidden-host)
      throw new CliException(AlmanacCli.EXIT_UNAUTHORIZED, "almanac: forbidden (403): " + detail
          + "; pass a token of role operate with --token or ALMANAC_TOKEN");
    }
    if (a.status() == 400) {
      String named = p.field() == null ? "" : " (field '" + p.field() + "', value '" + p.value() + "')";
      throw new CliException(AlmanacCli.EXIT_BAD_INPUT, "almanac: invalid input" + named + ": " + detail);
    }
    if (a.status() == 429) {
      throw new CliException(AlmanacCli.EXIT_OVERLOADED, "almanac: the node is overloaded (429): " + detail
          + (a.retryAfter() == null ? "" : "; try again in " + a.retryAfter() + " s (Retry-After)"));
    }
    if (a.status() >= 500) {
      throw new CliException(AlmanacCli.EXIT_UNREACHABLE, "almanac: the node at " + base + " could not answer (" + a.status()
          + "): " + detail);
    }
    throw new CliException(AlmanacCli.EXIT_REFUSED, "almanac: refused by the node (" + a.status() + " "
        + (p.title() == null ? "" : p.title()) + "): " + detail);
  }

  /** An RFC 9457 problem, or what a non-problem error body says. */
  record Problem(String title, String detail, String field, String value) {
    static Problem of(Answer a) {
      try {
        JsonNode n = JSON.readTree(a.body());
        if (n != null && n.isObject()) {
          return new Problem(text(n, "title"), n.hasNonNull("detail") ? n.get("detail").asText() : text(n, "title"),
              text(n, "field"), text(n, "value"));
        }
      } catch (IOException notJson) {
        // a plain-text error, e.g. pekko-http's own 404 for a path it does not serve
      }
      String body = a.body() == null || a.body().isBlank() ? "(no detail)" : LiveTable.shorten(a.body().strip(), 300);
      return new Problem(null, body, null, null);
    }

    private static String text(JsonNode n, String f) {
      return n.hasNonNull(f) ? n.get(f).asText() : null;
    }
  }
}
