package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_BAD_INPUT;
import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.samples.AlmanacCli.ApiCommand;

/**
 * The bulk actions of {@code retry} and {@code resolve} over the HTTP API's bulk endpoints (docs/http-api.md,
 * "Bulk actions"): {@code --all [--task T]}, the whole intervention queue or one task's part of it, and
 * {@code retry TASK --from --to [--status]}, a task's range. Without {@code --yes} a bulk action is a
 * dry run: it prints how many windows it would act on, which, and the command to act; with it, it acts
 * in one call and prints how many were done and which were refused and why. Part of {@link AlmanacCli}.
 */
final class BulkCommands {

  private BulkCommands() {}

  /** The options a bulk action shares, as given. */
  record Bulk(String note, boolean dryRun, boolean yes, Integer expectCount) {}

  /**
   * {@code retry --all} or {@code resolve --all}: POST /api/queue/{action}.
   *
   * @return the exit code
   */
  static int queue(ApiCommand c, String action, String task, Bulk b) {
    ObjectNode body = ApiClient.JSON.createObjectNode();
    if (task != null) {
      body.put("task", task);
    }
    String what = (task == null ? "the intervention queue" : "the queue of task " + task);
    return send(c, "/api/queue/" + action, body, action, what, b);
  }

  /**
   * {@code retry TASK --from --to [--status]}: POST /api/tasks/{task}/retry.
   *
   * @return the exit code
   */
  static int range(ApiCommand c, String task, String from, String to, String status, Bulk b) {
    ObjectNode body = ApiClient.JSON.createObjectNode();
    if (from != null) {
      body.put("from", from);
    }
    if (to != null) {
      body.put("to", to);
    }
    if (status != null) {
      body.put("status", status);
    }
    return send(c, ApiCommand.task(task) + "/retry", body, "retry", "task " + task, b);
  }

  private static int send(ApiCommand c, String path, ObjectNode body, String action, String what, Bulk b) {
    if (b.dryRun() && b.yes()) {
      throw new CliException(EXIT_BAD_INPUT, "almanac: --dry-run and --yes exclude each other");
    }
    if (b.note() != null) {
      body.put("note", b.note());
    }
    if (b.expectCount() != null) {
      if (b.expectCount() < 0) {
        throw new CliException(EXIT_BAD_INPUT, "almanac: --expect-count " + b.expectCount() + " must be 0 or more");
      }
      body.put("expect", b.expectCount());
    }
    boolean dry = !b.yes();
    if (!dry && action.equals("resolve") && b.note() == null) {
      throw new CliException(EXIT_BAD_INPUT, "almanac: --note is needed to resolve windows");
    }
    body.put("dryRun", dry);
    ApiClient.Answer a = c.api().post(path, body.toString());
    if (c.printedJson(a)) {
      return EXIT_OK;
    }
    JsonNode r = a.json();
    int matched = r.path("matched").asInt();
    String range = text(r, "range") == null ? "" : " " + text(r, "range");
    if (dry) {
      c.out().println(what + range + ": " + matched + (matched == 1 ? " window" : " windows") + " would be " + done(action)
          + " (dry run: nothing changed)" + (matched > 0 && !b.dryRun()
              ? "; pass --yes to " + action + " them (add --expect-count " + matched + " to act only on that many)" : ""));
      TextTable t = new TextTable(100, "TASK", "WINDOW", "STATUS");
      for (JsonNode w : r.path("windows")) {
        t.row(text(w, "task"), text(w, "window"), text(w, "status"));
      }
      t.print(c.out());
      return EXIT_OK;
    }
    JsonNode refused = r.path("refused");
    c.out().println(what + range + ": " + r.path("done").asInt() + " of " + matched + " windows " + done(action)
        + (refused.isEmpty() ? "" : ", " + refused.size() + " refused"));
    if (!refused.isEmpty()) {
      TextTable t = new TextTable(100, "TASK", "WINDOW", "REFUSED", "WHY");
      for (JsonNode f : refused) {
        t.row(text(f, "task"), text(f, "window"), text(f, "status"), text(f, "detail"));
      }
      t.print(c.out());
    }
    c.out().flush();
    return refused.isEmpty() ? EXIT_OK : AlmanacCli.EXIT_REFUSED;
  }

  private static String done(String action) {
    return action.equals("retry") ? "retried" : "resolved";
  }
}
