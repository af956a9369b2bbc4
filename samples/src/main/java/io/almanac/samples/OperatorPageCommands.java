package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.text;
import static io.almanac.samples.AlmanacCli.time;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.samples.AlmanacCli.ApiCommand;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The operators' pages on the command line: {@code nodes} and {@code alerts}. */
final class OperatorPageCommands {

  private OperatorPageCommands() {}

  /** {@code nodes}: the cluster's members, their executors' slots and lease, the trigger, the pools' holders. */
  @Command(name = "nodes", description = {"The cluster's members (GET /api/nodes): status, roles, up since, the executor's",
      "lease and slots in use and queued, which node runs the trigger; then each pool's holders and waiters."})
  static final class Nodes extends ApiCommand {
    @Override
    public Integer call() {
      ApiClient.Answer a = api().get("/api/nodes");
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode v = a.json();
      TextTable t = new TextTable(60, "NODE", "STATUS", "ROLES", "UP SINCE (UTC)", "LEASE", "SLOTS", "QUEUED", "TRIGGER");
      for (JsonNode m : v.path("members")) {
        JsonNode ex = m.path("executor");
        List<String> roles = new ArrayList<>();
        m.path("roles").forEach(r -> roles.add(r.asText()));
        String node = text(m, "address") + (m.path("self").asBoolean() ? " (this)" : "")
            + (m.path("reachable").asBoolean(true) ? "" : " UNREACHABLE");
        if (ex.isObject()) {
          t.row(node, text(m, "status"), String.join(",", roles), time(text(ex, "upSince")),
              ex.path("holdsLease").asBoolean() ? "held" : "NOT HELD",
              ex.path("running").asInt() + "/" + ex.path("slots").asInt()
                  + (ex.path("stuck").asInt() > 0 ? " (" + ex.path("stuck").asInt() + " stuck)" : ""),
              ex.path("queuedFresh").asInt() + " fresh, " + ex.path("queuedBacklog").asInt() + " backlog",
              m.path("trigger").asBoolean() ? (v.path("triggerAnswers").asBoolean() ? "yes" : "yes (not answering)") : "");
        } else {
          t.row(node, text(m, "status"), String.join(",", roles), "?", "?", "?", text(m, "problem"),
              m.path("trigger").asBoolean() ? "yes" : "");
        }
      }
      t.print(out());
      JsonNode pools = v.path("pools");
      if (pools.size() > 0) {
        out().println();
        TextTable p = new TextTable(60, "POOL", "HELD", "WAITING", "TASK", "WINDOW", "NODE", "SINCE (UTC)", "EXPIRES (UTC)");
        for (JsonNode pool : pools) {
          JsonNode hs = pool.path("holders");
          String held = hs.isArray() ? hs.size() + "/" + pool.path("maxConcurrent").asInt() : "?/" + pool.path("maxConcurrent").asInt();
          if (!hs.isArray() || hs.size() == 0) {
            p.row(text(pool, "pool"), held, pool.path("waiting").asText(), hs.isArray() ? "-" : "(not answering)", "", "", "", "");
            continue;
          }
          boolean first = true;
          for (JsonNode h : hs) {
            p.row(first ? text(pool, "pool") : "", first ? held : "", first ? pool.path("waiting").asText() : "", text(h, "task"),
                text(h, "window"), text(h, "node"), time(text(h, "since")), time(text(h, "expiresAt")));
            first = false;
          }
        }
        p.print(out());
      }
      out().flush();
      return EXIT_OK;
    }
  }

  /** {@code alerts}: the alert history, newest first, with where each alert went. */
  @Command(name = "alerts", description = {"The cluster's alert history (GET /api/alerts), newest first: what fired, when, for",
      "which task and window, and where it was delivered (sink, status, attempts); the next page with --before."})
  static final class Alerts extends ApiCommand {
    @Option(names = "--task", description = "only this task's alerts") String task;
    @Option(names = "--since", description = "only alerts raised at or after (ISO instant)") String since;
    @Option(names = "--limit", description = "1..100 (the node's default: 50)") Integer limit;
    @Option(names = "--before", description = "the cursor printed as 'more' by the previous page") String before;

    @Override
    public Integer call() {
      StringBuilder q = new StringBuilder();
      param(q, "task", task);
      param(q, "since", since);
      param(q, "limit", limit == null ? null : limit.toString());
      param(q, "before", before);
      ApiClient.Answer a = api().get("/api/alerts" + q);
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode body = a.json();
      TextTable t = new TextTable(70, "AT (UTC)", "KIND", "TASK", "WINDOW", "DELIVERED", "MESSAGE");
      for (JsonNode al : body.path("alerts")) {
        List<String> ds = new ArrayList<>();
        for (JsonNode d : al.path("deliveries")) {
          ds.add(text(d, "sink") + ": " + text(d, "status") + " (" + d.path("attempts").asInt() + ")"
              + (text(d, "detail") == null ? "" : " " + text(d, "detail")));
        }
        t.row(time(text(al, "at")), text(al, "kind"), text(al, "task") == null ? "-" : text(al, "task"),
            text(al, "window") == null ? "-" : text(al, "window"), ds.isEmpty() ? "not yet" : String.join("; ", ds),
            text(al, "message"));
      }
      t.print(out());
      String next = text(body, "next");
      if (next != null) {
        out().println("more: almanac alerts ... --before " + next);
      }
      out().flush();
      return EXIT_OK;
    }

    private static void param(StringBuilder q, String name, String value) {
      if (value != null) {
        q.append(q.length() == 0 ? '?' : '&').append(name).append('=').append(ApiClient.enc(value));
      }
    }
  }
}
