package io.almanac.http;

import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.ParsingErrorHandler;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.scaladsl.model.ErrorInfo;
import org.apache.pekko.http.scaladsl.model.StatusCode;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answer to a request pekko-http's parser refuses before any route sees it (a URI or a header
 * over the parser's limits, a bad percent-encoding, a request without {@code Host}): a {@link Problem}
 * as {@code application/problem+json}, like every other error of the API. pekko-http creates it by
 * its class name ({@code pekko.http.server.parsing.error-handler}, set by {@link AlmanacHttp#start}).
 */
final class ProblemParsingErrorHandler extends ParsingErrorHandler {

  private static final Logger LOG = LoggerFactory.getLogger(ProblemParsingErrorHandler.class);

  /** How pekko-http's parser starts the summary of a request with more than max-header-count headers. */
  static final String TOO_MANY_HEADERS = "HTTP message contains more than the configured limit of";

  /** Created by pekko-http, by its class name. */
  ProblemParsingErrorHandler() {}

  @Override
  public HttpResponse handle(StatusCode status, ErrorInfo error, LoggingAdapter log, ServerSettings settings) {
    // the summary only: the detail of pekko-http's error quotes the request line or header it read,
    // which may carry a token (?token=..., Authorization: ...), and nothing a client sends as a
    // credential is logged or echoed
    Problem problem = problem(status.intValue(), status.reason(), error.summary());
    LOG.debug("HTTP request refused by the parser ({}): {}", problem.status(), error.summary());
    return Problems.response(problem);
  }

  /**
   * @param status the parser's status
   * @param reason its reason phrase
   * @param summary the parser's summary of the error
   * @return the problem answering it
   */
  static Problem problem(int status, String reason, String summary) {
    if (status == 400 && summary != null && summary.startsWith(TOO_MANY_HEADERS)) {
      // pekko-http answers too many headers with 400; they are too large a header section: 431
      return new Problem(431, "headers-too-large", "Request Header Fields Too Large", "the request was refused before it "
          + "was read: it has more headers than the " + summary.substring(TOO_MANY_HEADERS.length()).trim()
          + " a request may have (pekko.http.server.parsing.max-header-count)", null, null);
    }
    String kind = switch (status) {
      case 400 -> "invalid-input";
      case 413 -> "payload-too-large";
      case 414 -> "uri-too-long";
      case 431 -> "headers-too-large";
      default -> "http-" + status;
    };
    String detail = summary == null || summary.isBlank() ? reason : summary;
    return new Problem(status, kind, reason, "the request was refused before it was read: " + detail, null, null);
  }
}
