package io.almanac.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import io.almanac.InvalidSpecException;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.persistence.audit.AuditEvent;
import io.almanac.persistence.audit.HistoryTooLargeException;
import io.almanac.persistence.audit.JournalReadException;
import io.almanac.persistence.audit.Timeline;
import io.almanac.persistence.audit.WindowExplanation;
import io.almanac.persistence.audit.WindowHistory;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A window's history from the task's journal (see docs/http-api.md), read on the node's own
 * ActorSystem ({@link WindowHistory}):
 *
 * <ul>
 *   <li>{@code GET /api/tasks/{task}/windows/{window}/timeline}: {@code {"events":[{"seq","event","attempt",
 *       "atUtc","atLocal","detail"}]}}; 404 for an unknown task or a window the journal has no event of;
 *   <li>{@code GET /api/tasks/{task}/windows/{window}/why}: {@code {"task","window","status","verdict",
 *       "steps":[{"atUtc","atLocal","text"}]}}; 404 for an unknown task, 200 with a "no such window"
 *       explanation for a window the journal has no record of;
 *   <li>{@code GET /api/tasks/{task}/windows/{window}/logs[?attempt=N]}: {@code {"task","window","attempts":[
 *       {"attempt","at","lines":[{"at","level","text"}],"droppedLines","dropped","stackTrace"}]}}, what each
 *       attempt logged and its failure's stack trace (an attempt that logged nothing and did not throw has
 *       no entry); 404 for an unknown task, 400 naming {@code attempt} when it is not an integer >= 1.
 * </ul>
 *
 * The window's key is percent-decoded from the path. Errors answer {@code application/problem+json}:
 * 400 for a task id or a window key that is not valid (naming the field), 503 when the journal
 * cannot be read in time ({@code almanac.http.history-timeout}) or the window's history holds more
 * events than one read keeps ({@code almanac.http.history-max-events}), as {@link Problems#of}
 * otherwise.
 */
public final class HistoryRoutes extends AllDirectives {

  private static final Logger LOG = LoggerFactory.getLogger(HistoryRoutes.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<WindowHistory> history;

  private HistoryRoutes(Supplier<WindowHistory> history) {
    this.history = history;
  }

  /**
   * The routes on a node's ActorSystem. The journal reader starts at the first request (a node
   * without a JDBC read journal answers 503 then, naming why, and serves its other routes).
   *
   * @param system the node's ActorSystem
   * @return the routes
   */
  public static HistoryRoutes of(ActorSystem<?> system) {
    Objects.requireNonNull(system, "system");
    return new HistoryRoutes(new Supplier<>() {
      private volatile WindowHistory started;

      @Override
      public synchronized WindowHistory get() {
        if (started == null) {
          Config c = system.settings().config();
          long max = c.hasPath("almanac.http.history-max-events") ? c.getLong("almanac.http.history-max-events")
              : WindowHistory.DEFAULT_MAX_EVENTS;
          Duration timeout = c.hasPath("almanac.http.history-timeout") ? c.getDuration("almanac.http.history-timeout")
              : WindowHistory.DEFAULT_TIMEOUT;
          started = WindowHistory.of(system, max, timeout);
        }
        return started;
      }
    });
  }

  /**
   * The routes on a given history reader.
   *
   * @param history the reader
   * @return the routes
   */
  public static HistoryRoutes of(WindowHistory history) {
    Objects.requireNonNull(history, "history");
    return new HistoryRoutes(() -> history);
  }

  /** @return {@code /api/tasks/{task}/windows/{window}/timeline}, {@code .../why}, {@code .../steps} and {@code .../logs} */
  public Route routes() {
    return pathPrefix("api", () -> pathPrefix("tasks", () -> pathPrefix(PathMatchers.segment(), task ->
        pathPrefix("windows", () -> pathPrefix(PathMatchers.segment(), window -> concat(
            path("timeline", () -> get(() -> timeline(task, window))),
            path("why", () -> get(() -> why(task, window))),
            path("steps", () -> get(() -> steps(task, window))),
            path("logs", () -> get(() -> parameterOptional("attempt", attempt -> logs(task, window, attempt))))))))));
  }

  private Route logs(String task, String window, java.util.Optional<String> attempt) {
    Integer only = null;
    if (attempt.isPresent()) {
      try {
        only = Integer.parseInt(attempt.get().trim());
      } catch (NumberFormatException e) {
        only = 0;
      }
      if (only < 1) {
        return Problems.complete(Problem.invalid("attempt", attempt.get(), "attempt '" + attempt.get()
            + "' is invalid: must be an attempt's number, an integer >= 1"));
      }
    }
    Integer which = only;
    return answer(task, window, h -> h.logs(task, window), found -> found.isEmpty()
        ? notFound("task", task, "task '" + task + "' has no events in the journal")
        : ok(logsJson(task, window, found.get().stream().filter(l -> which == null || l.attempt() == which).toList())));
  }

  static ObjectNode logsJson(String task, String window, List<io.almanac.journal.TaskJournal.AttemptLogged> logs) {
    ObjectNode root = JSON.createObjectNode();
    root.put("task", task);
    root.put("window", window);
    ArrayNode out = root.putArray("attempts");
    for (io.almanac.journal.TaskJournal.AttemptLogged l : logs) {
      ObjectNode a = out.addObject();
      a.put("attempt", l.attempt());
      a.put("at", l.at() == null ? null : l.at().toString());
      ApiJson.lines(a.putArray("lines"), l.lines());
      a.put("droppedLines", l.droppedLines());
      a.put("dropped", l.droppedLines() == 0 ? null : io.almanac.journal.AttemptLog.droppedMarker(l.droppedLines()));
      a.put("stackTrace", l.stackTrace());
    }
    return root;
  }

  private Route timeline(String task, String window) {
    return answer(task, window, h -> h.timeline(task, window), found -> {
      if (found.isEmpty()) {
        return notFound("task", task, "task '" + task + "' has no events in the journal");
      }
      List<AuditEvent> events = found.get();
      if (events.isEmpty()) {
        return notFound("window", window, "task '" + task + "' has no events about window '" + window + "'");
      }
      return ok(timelineJson(events));
    });
  }

  private Route steps(String task, String window) {
    return answer(task, window, h -> h.steps(task, window), found -> found.isEmpty()
        ? notFound("task", task, "task '" + task + "' has no events in the journal")
        : ok(stepsJson(task, window, found.get())));
  }

  /**
   * A window's durable steps per attempt: {@code {"task","window","steps":[{"attempt","name","kind",
   * "recordedBy","durationMs","usage":{"model","tokensIn","tokensOut","cost"},"resultChars","atUtc"}]}},
   * {@code kind} RECORDED (the attempt ran it) or REPLAYED (it got the recorded result); {@code usage}
   * only on a RECORDED step that reported one, else null; {@code durationMs} null when unknown.
   */
  static ObjectNode stepsJson(String task, String window, List<io.almanac.persistence.audit.WindowSteps.Step> steps) {
    ObjectNode root = JSON.createObjectNode();
    root.put("task", task);
    root.put("window", window);
    ArrayNode out = root.putArray("steps");
    for (io.almanac.persistence.audit.WindowSteps.Step s : steps) {
      ObjectNode o = out.addObject()
          .put("attempt", s.attempt())
          .put("name", s.name())
          .put("kind", s.kind().name())
          .put("recordedBy", s.recordedBy());
      if (s.duration() == null) {
        o.putNull("durationMs");
      } else {
        o.put("durationMs", s.duration().toMillis());
      }
      if (s.usage() == null) {
        o.putNull("usage");
      } else {
        o.putObject("usage").put("model", s.usage().model()).put("tokensIn", s.usage().tokensIn())
            .put("tokensOut", s.usage().tokensOut()).put("cost", s.usage().cost().toPlainString());
      }
      o.put("resultChars", s.resultBytes()).put("atUtc", s.at() == null ? null : s.at().toString());
    }
    return root;
  }

  private Route why(String task, String window) {
    return answer(task, window, h -> h.why(task, window), found -> found.isEmpty()
        ? notFound("task", task, "task '" + task + "' has no events in the journal")
        : ok(whyJson(found.get())));
  }

  /**
   * Validates the task id and the window key (400 naming the field), runs a read and answers with its
   * result, or 503 when the journal could not be read (in time, or within the events one read keeps),
   * or the problem {@link Problems#of} makes of another failure.
   */
  private <T> Route answer(String task, String window, Function<WindowHistory, CompletionStage<T>> read,
      Function<T, Route> render) {
    try {
      TaskSpec.validateId(task);
    } catch (InvalidSpecException e) {
      return Problems.complete(Problem.invalid("task", task, e.getMessage()));
    }
    try {
      WindowKey.of(window);
    } catch (InvalidSpecException e) {
      return Problems.complete(Problem.invalid("window", window, e.getMessage()));
    }
    CompletionStage<T> stage;
    try {
      stage = read.apply(history.get());
    } catch (RuntimeException e) {
      stage = CompletableFuture.failedFuture(e);
    }
    return onComplete(stage, t -> {
      if (t.isSuccess()) {
        return render.apply(t.get());
      }
      Throwable error = unwrap(t.failed().get());
      if (error instanceof HistoryTooLargeException) {
        LOG.warn("history of task '{}' window '{}' not answered: {}", task, window, error.getMessage());
        return Problems.complete(Problem.unavailable(error.getMessage()
            + " (almanac.http.history-max-events); use the offline audit (almanac audit) for this task"));
      }
      if (error instanceof JournalReadException || Problems.timedOut(error)) {
        // the cause (SQL text, hosts) goes to the log only; the answer names the log line
        String id = Problems.correlationId();
        LOG.warn("{}: the journal of task '{}' could not be read for window '{}': {}", id, task, window, error.toString());
        return Problems.complete(Problem.unavailable("the journal could not be read"
            + (Problems.timedOut(error) ? " within almanac.http.history-timeout" : "") + "; see the node's log (" + id + ")"));
      }
      return Problems.complete(Problems.of(error, task, window));
    });
  }

  private Route ok(ObjectNode body) {
    return complete(StatusCodes.OK, HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString()));
  }

  private Route notFound(String field, String value, String detail) {
    return Problems.complete(Problem.notFound(detail, field, value));
  }

  static ObjectNode timelineJson(List<AuditEvent> events) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode out = root.putArray("events");
    for (AuditEvent e : events) {
      out.addObject()
          .put("seq", e.sequenceNr())
          .put("event", e.type())
          .put("attempt", e.attempt())
          .put("atUtc", e.at() == null ? null : e.at().toString())
          .put("atLocal", e.at() == null ? null : Timeline.local(e.at(), e.zone()))
          .put("detail", e.detail())
          .put("actor", e.actor());
    }
    return root;
  }

  static ObjectNode whyJson(WindowExplanation.Explanation why) {
    ObjectNode root = JSON.createObjectNode();
    root.put("task", why.task());
    root.put("window", why.window());
    root.put("status", why.status());
    root.put("verdict", why.verdict());
    ArrayNode steps = root.putArray("steps");
    for (WindowExplanation.Step s : why.steps()) {
      steps.addObject()
          .put("atUtc", s.atUtc() == null ? null : s.atUtc().toString())
          .put("atLocal", s.atLocal())
          .put("text", s.text());
    }
    return root;
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof java.util.concurrent.CompletionException || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
