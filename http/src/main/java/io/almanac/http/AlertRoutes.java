package io.almanac.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.Almanac;
import io.almanac.AlertPage;
import io.almanac.AlertRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /api/alerts?task=&since=&before=&limit=} (docs/http-api.md): a page of the cluster's
 * alert history ({@link Almanac#alerts}), newest first, each alert with where it was delivered; the
 * answer's {@code next} is the {@code before} of the next (older) page, or null. A bad parameter is a
 * 400 naming it and its value; an unknown one a 400 naming it.
 */
final class AlertRoutes extends AllDirectives {

  /** The parameters. */
  static final Set<String> PARAMETERS = Set.of("task", "since", "before", "limit");

  /** The page's size when {@code limit} is not given. */
  static final int DEFAULT_LIMIT = 50;

  private final Almanac almanac;
  private final ApiRoutes api;

  AlertRoutes(Almanac almanac, ApiRoutes api) {
    this.almanac = almanac;
    this.api = api;
  }

  /** @return {@code alerts}, under the API's {@code /api} prefix */
  Route route() {
    return path("alerts", () -> get(() -> parameterMultiMap(this::list)));
  }

  private Route list(Map<String, List<String>> params) {
    for (String name : params.keySet()) {
      if (!PARAMETERS.contains(name)) {
        throw new Problem.Raised(Problem.unknownParameter(name, "is not a parameter of /api/alerts: it takes task, since, "
            + "before and limit"));
      }
    }
    String task = one(params, "task");
    if (task != null && task.isBlank()) {
      throw new Problem.Raised(Problem.invalid("task", task, "must not be empty"));
    }
    Instant since = WindowFilter.instant("since", one(params, "since"));
    Long before = number(params, "before", 1, Long.MAX_VALUE);
    Long limit = number(params, "limit", 1, Almanac.MAX_ALERTS_PAGE);
    int size = limit == null ? DEFAULT_LIMIT : limit.intValue();
    return api.answer(() -> almanac.alerts(task, since, before, size), task, null, page -> api.ok(json(page)));
  }

  private static String one(Map<String, List<String>> params, String name) {
    List<String> values = params.get(name);
    if (values == null) {
      return null;
    }
    if (values.size() != 1) {
      throw new Problem.Raised(Problem.invalid(name, String.join(",", values), "is given " + values.size()
          + " times: give it once"));
    }
    return values.get(0);
  }

  private static Long number(Map<String, List<String>> params, String name, long min, long max) {
    String text = one(params, name);
    if (text == null) {
      return null;
    }
    long n;
    try {
      n = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new Problem.Raised(Problem.invalid(name, text, "must be an integer between " + min + " and " + max));
    }
    if (n < min || n > max) {
      throw new Problem.Raised(Problem.invalid(name, text, "must be between " + min + " and " + max));
    }
    return n;
  }

  static ObjectNode json(AlertPage page) {
    ObjectNode root = ApiJson.JSON.createObjectNode();
    ArrayNode alerts = root.putArray("alerts");
    for (AlertRecord a : page.alerts()) {
      ObjectNode n = alerts.addObject();
      n.put("seq", a.seq());
      n.put("id", a.id());
      n.put("kind", a.kind().name());
      n.put("task", a.taskId());
      n.put("window", a.window());
      n.put("message", a.message());
      n.put("at", a.at().toString());
      n.put("node", a.node());
      ArrayNode ds = n.putArray("deliveries");
      for (AlertRecord.Delivery d : a.deliveries()) {
        ds.addObject().put("sink", d.sink()).put("status", d.status().name()).put("attempts", d.attempts())
            .put("detail", d.detail()).put("at", d.at().toString());
      }
    }
    if (page.next() == null) {
      root.putNull("next");
    } else {
      root.put("next", String.valueOf(page.next()));
    }
    return root;
  }
}
