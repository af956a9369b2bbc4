package io.almanac.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.Almanac;
import io.almanac.ClusterView;
import java.time.Instant;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /api/nodes} (docs/http-api.md): the cluster as {@link Almanac#nodes()} sees it, for the
 * dashboard's Nodes page and {@code almanac nodes}. Each member's executor is asked over the cluster
 * with the node's ask timeout; a member that does not answer is listed with {@code "executor": null}
 * and a {@code "problem"}, and never holds the answer up. Takes no parameter.
 */
final class NodeRoutes extends AllDirectives {

  private final Almanac almanac;
  private final ApiRoutes api;

  NodeRoutes(Almanac almanac, ApiRoutes api) {
    this.almanac = almanac;
    this.api = api;
  }

  /** @return {@code nodes}, under the API's {@code /api} prefix */
  Route route() {
    return path("nodes", () -> get(() -> api.answer(almanac::nodes, null, null, v -> api.ok(json(v)))));
  }

  static ObjectNode json(ClusterView v) {
    ObjectNode root = ApiJson.JSON.createObjectNode();
    root.put("at", v.at().toString());
    root.put("self", v.self());
    root.put("triggerNode", v.triggerNode());
    root.put("triggerAnswers", v.triggerAnswers());
    ArrayNode members = root.putArray("members");
    for (ClusterView.Member m : v.members()) {
      ObjectNode n = members.addObject();
      n.put("address", m.address());
      ArrayNode roles = n.putArray("roles");
      m.roles().stream().sorted().forEach(roles::add);
      n.put("status", m.status());
      n.put("reachable", m.reachable());
      n.put("self", m.self());
      n.put("trigger", m.address().equals(v.triggerNode()));
      ClusterView.Executor e = m.executor();
      if (e == null) {
        n.putNull("executor");
        n.put("problem", m.problem());
      } else {
        ObjectNode x = n.putObject("executor");
        x.put("identity", e.identity());
        x.put("holdsLease", e.holdsLease());
        x.put("upSince", text(e.upSince()));
        x.put("slots", e.slots());
        x.put("running", e.running());
        x.put("queuedFresh", e.queuedFresh());
        x.put("queuedBacklog", e.queuedBacklog());
        x.put("stuck", e.stuck());
        ObjectNode waiting = x.putObject("poolWaiting");
        e.poolWaiting().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
            .forEach(w -> waiting.put(w.getKey(), w.getValue()));
      }
    }
    ArrayNode pools = root.putArray("pools");
    for (ClusterView.Pool p : v.pools()) {
      ObjectNode n = pools.addObject();
      n.put("pool", p.pool());
      n.put("maxConcurrent", p.maxConcurrent());
      n.put("waiting", p.waiting());
      if (p.holders() == null) {
        n.putNull("holders");
      } else {
        ArrayNode hs = n.putArray("holders");
        for (ClusterView.Holder h : p.holders()) {
          hs.addObject().put("task", h.taskId()).put("window", h.window()).put("node", h.node())
              .put("since", text(h.since())).put("expiresAt", text(h.expiresAt()));
        }
      }
    }
    return root;
  }

  private static String text(Instant t) {
    return t == null ? null : t.toString();
  }
}
