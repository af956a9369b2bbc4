package io.almanac.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.AlmanacException;
import io.almanac.IllegalTransitionException;
import io.almanac.InvalidSpecException;
import io.almanac.RefusedException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.Directives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.MalformedQueryParamRejection;
import org.apache.pekko.http.javadsl.server.MalformedRequestContentRejection;
import org.apache.pekko.http.javadsl.server.MethodRejection;
import org.apache.pekko.http.javadsl.server.RejectionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every error of the HTTP API as {@code application/problem+json} (RFC 9457), with the fields of
 * docs/http-api.md ({@code type, title, status, detail, field, value}): the node's refusals mapped
 * to their status (an overloaded call 429 with {@code Retry-After}, a publish with an unknown outcome
 * 503), and pekko-http's own rejections (unknown path, method not allowed, missing or
 * unsupported entity) and exceptions too, through {@link #handled(Route)}.
 */
public final class Problems {

  private static final Logger LOG = LoggerFactory.getLogger(Problems.class);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** {@code application/problem+json}. */
  public static final ContentType.NonBinary PROBLEM_JSON =
      MediaTypes.applicationWithFixedCharset("problem+json", org.apache.pekko.http.javadsl.model.HttpCharsets.UTF_8)
          .toContentType();

  private Problems() {}

  /**
   * @param problem the problem
   * @return its JSON text
   */
  public static String json(Problem problem) {
    ObjectNode root = JSON.createObjectNode();
    root.put("type", problem.type());
    root.put("title", problem.title());
    root.put("status", problem.status());
    root.put("detail", problem.detail());
    if (problem.field() != null) {
      root.put("field", problem.field());
    }
    if (problem.value() != null) {
      root.put("value", problem.value());
    }
    return root.toString();
  }

  /**
   * @param problem the problem
   * @return the HTTP response answering it (401 with {@code WWW-Authenticate: Bearer})
   */
  public static HttpResponse response(Problem problem) {
    HttpResponse response = HttpResponse.create().withStatus(problem.status())
        .withEntity(HttpEntities.create(PROBLEM_JSON, json(problem)));
    if (problem.status() == 401) {
      response = response.addHeader(RawHeader.create("WWW-Authenticate", "Bearer realm=\"almanac\""));
    }
    if (problem.retryAfter() != null) {
      response = response.addHeader(RawHeader.create("Retry-After", String.valueOf(retryAfterSeconds(problem.retryAfter()))));
    }
    return response;
  }

  /**
   * @param wait a duration
   * @return it in whole seconds, rounded up, at least 1 (the {@code Retry-After} header's unit)
   */
  static long retryAfterSeconds(java.time.Duration wait) {
    long s = wait.getSeconds() + (wait.getNano() > 0 ? 1 : 0);
    return Math.max(1, s);
  }

  /**
   * @param problem the problem
   * @return a route that answers it
   */
  public static Route complete(Problem problem) {
    return Directives.complete(response(problem));
  }

  /**
   * The problem a failure of the Java API (or of the parsing) answers.
   *
   * @param error the failure (a CompletionException is unwrapped)
   * @param task the task the call was about, or null
   * @param window the window the call was about, or null
   * @return the problem
   */
  public static Problem of(Throwable error, String task, String window) {
    Throwable e = unwrap(error);
    if (e instanceof Problem.Raised raised) {
      return raised.problem();
    }
    if (e instanceof io.almanac.OverloadedException overloaded) {
      return Problem.overloaded(overloaded.getMessage(), overloaded.taskId() == null ? null : "task", overloaded.taskId(),
          overloaded.retryAfter());
    }
    if (e instanceof io.almanac.PublishOutcomeUnknownException unknown) {
      return Problem.outcomeUnknown(unknown.getMessage());
    }
    if (e instanceof InvalidSpecException invalid) {
      return new Problem(400, "invalid-input", "Invalid input", invalid.getMessage(), invalid.field(), invalid.value());
    }
    if (e instanceof IllegalTransitionException illegal) {
      return Problem.refused(illegal.getMessage(), window != null ? "window" : "task", window != null ? window : task);
    }
    if (e instanceof RefusedException refused) {
      return switch (refused.reason()) {
        case UNKNOWN_TASK -> Problem.notFound(refused.getMessage(), "task", task);
        case UNKNOWN_WINDOW -> Problem.notFound(refused.getMessage(), "window", window);
        case INVALID_ARGUMENT -> invalidArgument(refused);
        case UNKNOWN_EVENT_TYPE -> unknownEventType(refused);
        case STALE_WINDOW -> new Problem(412, "precondition-failed", "Precondition failed", refused.getMessage(), "If-Match",
            refused.value());
        default -> Problem.refused(refused.getMessage(), window != null ? "window" : "task", window != null ? window : task);
      };
    }
    if (e instanceof org.apache.pekko.http.scaladsl.model.EntityStreamSizeException big) {
      return new Problem(413, "payload-too-large", "Payload too large", "the body is larger than " + big.limit()
          + " bytes", "body", null);
    }
    if (e instanceof org.apache.pekko.http.scaladsl.model.IllegalRequestException bad
        && "Request too large".equals(bad.info().summary())) {
      // a chunked body read to its limit (extractStrictEntity): pekko says 400, the contract 413
      // (a body read by ApiRoutes is answered there, naming its call's own limit; this is any other's)
      return new Problem(413, "payload-too-large", "Payload too large", "body: the body is larger than the call "
          + "takes (" + ApiRoutes.limitText(ApiRoutes.MAX_BODY_BYTES) + " for an action; a batch of events takes more, "
          + "see almanac.http.max-batch-events)", "body", null);
    }
    if (e instanceof org.apache.pekko.http.scaladsl.model.IllegalRequestException bad) {
      int status = bad.status().intValue();
      // the summary only: the info's detail may quote the request, which may carry a credential
      return new Problem(status, status == 413 ? "payload-too-large" : status == 400 ? "invalid-input" : "http-" + status,
          bad.status().reason(), bad.info().summary(), "body", null);
    }
    if (e instanceof org.apache.pekko.http.scaladsl.model.IllegalUriException bad) {
      // a query the route could not decode: 400, by the summary only (the detail quotes the URI, e.g. ?token=...)
      return new Problem(400, "invalid-input", "Invalid input", "the request's URI was refused: " + bad.info().summary(),
          null, null);
    }
    if (e instanceof io.almanac.persistence.instances.InstanceStoreException store) {
      String id = correlationId();
      LOG.warn("HTTP API: the instance table could not be read [{}]", id, store);
      return Problem.unavailable("the instance table could not be read; see the node's log (" + id + ")");
    }
    if (timedOut(e)) {
      return Problem.unavailable("the node did not answer in time: " + e.getMessage());
    }
    if (e instanceof AlmanacException) {
      return Problem.refused(e.getMessage(), window != null ? "window" : "task", window != null ? window : task);
    }
    String id = correlationId();
    LOG.error("HTTP API: unexpected failure [{}]", id, e);
    return new Problem(500, "internal-error", "Internal error", "an unexpected failure; see the node's log (" + id + ")",
        null, null);
  }

  /** A short id that ties an answer to its line in the node's log, e.g. {@code err-3f9a1c2b}. */
  static String correlationId() {
    return "err-" + String.format("%08x", java.util.concurrent.ThreadLocalRandom.current().nextInt());
  }

  /** An INVALID_ARGUMENT refusal: 400, with the field and the value the refusal carries. */
  private static Problem invalidArgument(RefusedException refused) {
    return new Problem(400, "invalid-input", "Invalid input", refused.getMessage(), refused.field(), refused.value());
  }

  /** An event type no task listens to: 404 naming {@code type}, with the value the refusal carries. */
  private static Problem unknownEventType(RefusedException refused) {
    // a batch's refusal names the event (events[i].type)
    return Problem.notFound(refused.getMessage(), refused.field() != null ? refused.field() : "type", refused.value());
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** Whether the failure is an ask that found no answer in time. */
  static boolean timedOut(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof java.util.concurrent.TimeoutException || t instanceof org.apache.pekko.pattern.AskTimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * The routes with every rejection and exception answered as problem+json: an unknown path (404),
   * a method not allowed (405), a body that is not JSON (400), a missing or unsupported entity, and
   * whatever pekko-http's default handler answers, with its status and its text as the detail.
   *
   * @param routes the routes
   * @return the routes, handled
   */
  public static Route handled(Route routes) {
    return Directives.handleExceptions(exceptions(), () -> Directives.handleRejections(rejections(), () -> routes));
  }

  static ExceptionHandler exceptions() {
    return ExceptionHandler.newBuilder().matchAny(e -> complete(of(e, null, null))).build();
  }

  static RejectionHandler rejections() {
    RejectionHandler own = RejectionHandler.newBuilder()
        .handleAll(MethodRejection.class, rs -> {
          List<String> allowed = rs.stream().map(r -> r.supported().name()).distinct().toList();
          HttpResponse response = response(new Problem(405, "method-not-allowed", "Method not allowed",
              "this path answers only " + String.join(", ", allowed), "method", null));
          List<HttpHeader> allow = List.of(RawHeader.create("Allow", String.join(", ", allowed)));
          return Directives.complete(response.addHeaders(allow));
        })
        .handle(MalformedRequestContentRejection.class, r -> complete(Problem.invalid("body", null,
            "is not valid JSON: " + r.message())))
        .handle(MalformedQueryParamRejection.class, r -> complete(Problem.invalid(r.parameterName(), null,
            r.errorMsg())))
        .handleNotFound(Directives.extractUri(uri -> complete(Problem.notFound("no such path: " + uri.path(), "path",
            uri.path()))))
        .build();
    // Everything else as pekko-http answers it, its text as the detail.
    RejectionHandler fallback = RejectionHandler.defaultHandler().mapRejectionResponse(Problems::asProblem);
    return own.withFallback(fallback).seal();
  }

  /** A response of pekko-http's default rejection handler, as problem+json. */
  private static HttpResponse asProblem(HttpResponse response) {
    if (response.entity().getContentType().equals(PROBLEM_JSON)) {
      return response;
    }
    String text = response.entity() instanceof HttpEntity.Strict strict ? strict.getData().utf8String() : "";
    int status = response.status().intValue();
    String kind = switch (status) {
      case 400 -> "invalid-input";
      case 401, 403 -> "unauthorized";
      case 404 -> "not-found";
      default -> "http-" + status;
    };
    Problem p = new Problem(status, kind, response.status().reason(), text.isEmpty() ? response.status().reason() : text,
        null, null);
    return response.withEntity(HttpEntities.create(PROBLEM_JSON, json(p)));
  }
}
