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

  /** The most the read of the lease table may take. */
  static final java.time.Duration LEASES_TIMEOUT = java.time.Duration.ofSeconds(3);

  /** @return {@code nodes}, under the API's {@code /api} prefix */
  Route route() {
    return path("nodes", () -> get(() -> extractActorSystem(system -> api.answer(
        () -> almanac.nodes().thenCombine(leases(system.settings().config()), Both::new), null, null,
        both -> api.ok(json(both.view(), both.leases()))))));
  }

  /** The view, and the lease table's rows or why they are not shown. */
  private record Both(ClusterView view, Leases leases) {}

  /** The lease table's held rows, or null with why. */
  record Leases(java.util.List<io.almanac.persistence.lease.LeaseRows.Row> rows, String problem) {}

  /** The lease table's rows when the node's journal is the JDBC database it is in; a failed read is said, never a failure. */
  private static java.util.concurrent.CompletionStage<Leases> leases(com.typesafe.config.Config config) {
    if (!io.almanac.persistence.lease.LeaseRows.available(config)) {
      return java.util.concurrent.CompletableFuture.completedFuture(new Leases(null, "no JDBC journal: the leases are "
          + "kept in the lease table of a JDBC journal's database (almanac_lease)"));
    }
    return io.almanac.persistence.lease.LeaseRows.read(config, LEASES_TIMEOUT)
        .handle((rows, error) -> error == null ? new Leases(rows, null)
            : new Leases(null, "the lease table could not be read within " + LEASES_TIMEOUT.toMillis() + " ms ("
                + (error.getCause() != null ? error.getCause() : error).getClass().getSimpleName() + ")"));
  }

  static ObjectNode json(ClusterView v, Leases leases) {
    ObjectNode root = json(v);
    java.util.Map<String, io.almanac.persistence.lease.LeaseRows.Row> byName = new java.util.HashMap<>();
    if (leases.rows() == null) {
      root.putNull("leases");
      root.put("leasesProblem", leases.problem());
    } else {
      ArrayNode ls = root.putArray("leases");
      for (io.almanac.persistence.lease.LeaseRows.Row r : leases.rows()) {
        byName.put(r.name(), r);
        ls.addObject().put("name", r.name()).put("owner", r.owner()).put("heartbeatAt", text(r.heartbeatAt()))
            .put("expiresAt", text(r.expiresAt())).put("expired", r.expired());
      }
    }
    // each executor's own lease row, by its name (ExecutorFence.leaseName): when it expires unless renewed
    String system = v.self().substring(v.self().indexOf("://") + 3, v.self().contains("@") ? v.self().indexOf('@')
        : v.self().length());
    for (com.fasterxml.jackson.databind.JsonNode m : root.get("members")) {
      com.fasterxml.jackson.databind.JsonNode ex = m.get("executor");
      if (ex != null && ex.isObject()) {
        io.almanac.persistence.lease.LeaseRows.Row row = byName.get(system + "-executor-" + ex.get("identity").asText());
        ((ObjectNode) ex).put("leaseExpiresAt", row == null ? null : text(row.expiresAt()));
      }
    }
    return root;
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
