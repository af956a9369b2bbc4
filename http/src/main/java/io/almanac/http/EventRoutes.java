package io.almanac.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.Almanac;
import io.almanac.IncomingEvent;
import io.almanac.PublishResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code POST /api/events} (docs/http-api.md): publishes an event ({@link Almanac#publish(IncomingEvent)})
 * to the tasks whose event trigger listens to its type, with the bearer token like every mutating
 * call. The body is {@code {"type","id","eventTime","summary"}} ({@code eventTime} an ISO-8601
 * instant, optional, and {@code summary} optional); the answer is the {@link PublishResult}: {@code
 * {"type","id","tasks":[{"task","window","outcome","detail"}]}}. A malformed field is a 400 naming
 * it (nothing is stored: the node checks an event before any task sees it); a type no task listens
 * to is a 404 naming {@code type}. A listening task whose queue of publishes from this node is full
 * ({@link io.almanac.OverloadedException}) is a 429 {@code overloaded} with {@code Retry-After}:
 * nothing is stored, send it again then. A task that did not answer in time ({@link
 * io.almanac.PublishOutcomeUnknownException}) is a 503 {@code outcome-unknown}: the event may have
 * been stored; sending it again with the same id is safe.
 */
final class EventRoutes extends AllDirectives {

  /** The fields of the body. */
  static final Set<String> FIELDS = Set.of("type", "id", "eventTime", "summary");

  /** The most bytes one event of a batch may take in the body (its id, type and summary at their longest, and more). */
  static final long BYTES_PER_BATCHED_EVENT = 1024;

  private final Almanac almanac;
  private final ApiRoutes api;
  private final int maxBatchEvents;

  /**
   * @param almanac the node
   * @param api the API's plumbing: the token check, the body's parsing and the answers
   * @param maxBatchEvents the most events one {@code POST /api/events/batch} takes
   */
  EventRoutes(Almanac almanac, ApiRoutes api, int maxBatchEvents) {
    this.almanac = almanac;
    this.api = api;
    this.maxBatchEvents = maxBatchEvents;
  }

  /** @return {@code events} and {@code events/batch}, under the API's {@code /api} prefix */
  Route route() {
    return concat(
        path("events", () -> post(() -> api.authorized(() -> api.body(FIELDS, this::publish)))),
        path(PathMatchers.segment("events").slash("batch"), () -> post(() -> api.authorized(() -> api.rawBody(
            ApiRoutes.MAX_BODY_BYTES + maxBatchEvents * BYTES_PER_BATCHED_EVENT, this::publishAll)))));
  }

  /** {@code POST /api/events/batch}: a JSON array of events, published in one call ({@link Almanac#publishAll}). */
  private Route publishAll(String text) {
    List<JsonBody> bodies = JsonBody.parseArray(text, FIELDS, "events", maxBatchEvents);
    List<IncomingEvent> events = new ArrayList<>(bodies.size());
    for (int i = 0; i < bodies.size(); i++) {
      try {
        events.add(event(bodies.get(i)));
      } catch (Problem.Raised e) {
        throw new Problem.Raised(JsonBody.prefixed(e.problem(), "events[" + i + "]"));
      }
    }
    return api.answer(() -> almanac.publishAll(events), null, null, results -> {
      ObjectNode root = ApiJson.JSON.createObjectNode();
      ArrayNode list = root.putArray("results");
      for (PublishResult r : results) {
        list.add(json(r));
      }
      return api.ok(root);
    });
  }

  private Route publish(JsonBody body) {
    IncomingEvent event = event(body);
    return api.answer(() -> almanac.publish(event), null, null, result -> api.ok(json(result)));
  }

  /**
   * The event a body states; the JSON types are checked here, the values by the node.
   *
   * @throws Problem.Raised naming the field for a missing or blank type or id, a field that is not
   *     a JSON string, or an eventTime that is not an ISO-8601 instant
   */
  static IncomingEvent event(JsonBody body) {
    String type = body.requiredText("type");
    String id = body.requiredText("id");
    Instant eventTime = body.optionalInstant("eventTime");
    String summary = body.optionalText("summary");
    return IncomingEvent.of(type, id).withEventTime(eventTime).withSummary(summary);
  }

  /** {@code {"type","id","tasks":[{"task","window","outcome","detail"}]}}. */
  static ObjectNode json(PublishResult result) {
    ObjectNode root = ApiJson.JSON.createObjectNode();
    root.put("type", result.type());
    root.put("id", result.id());
    ArrayNode tasks = root.putArray("tasks");
    for (PublishResult.TaskOutcome o : result.tasks()) {
      tasks.addObject().put("task", o.taskId()).put("window", o.window() == null ? null : o.window().value())
          .put("outcome", o.outcome() == null ? null : o.outcome().name()).put("detail", o.detail());
    }
    return root;
  }
}
