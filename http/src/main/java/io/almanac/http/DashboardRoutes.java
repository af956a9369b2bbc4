package io.almanac.http;

import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import java.util.List;

/**
 * The web dashboard: plain HTML, CSS and JavaScript from this module's class path ({@code
 * io/almanac/http/dashboard/}), served at {@code GET /} and {@code GET /dashboard/*}. The page reads
 * and acts through the HTTP API only (docs/http-api.md), sending the token the operator types (kept
 * in the browser's sessionStorage) as a bearer token on actions; it needs no build step.
 */
final class DashboardRoutes extends AllDirectives {

  private static final String DIR = "io/almanac/http/dashboard";

  /** The page's own files only; scripts and styles from elsewhere are not run. */
  private static final List<org.apache.pekko.http.javadsl.model.HttpHeader> HEADERS = List.of(
      RawHeader.create("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'"),
      RawHeader.create("X-Content-Type-Options", "nosniff"),
      RawHeader.create("Cache-Control", "no-cache"));

  /**
   * The paths are matched before the method: a {@code get} that passes cancels the other routes'
   * method rejections, and a POST-only API path asked with GET would answer 404 instead of 405.
   *
   * @return {@code GET /} (the page) and {@code GET /dashboard/*} (its assets)
   */
  Route routes() {
    return concat(
        pathSingleSlash(() -> get(() -> respondWithHeaders(HEADERS,
            () -> getFromResource(DIR + "/index.html", ContentTypes.TEXT_HTML_UTF8)))),
        pathPrefix("dashboard", () -> get(() -> respondWithHeaders(HEADERS, () -> getFromResourceDirectory(DIR)))));
  }
}
