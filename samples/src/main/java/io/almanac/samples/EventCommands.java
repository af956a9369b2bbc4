package io.almanac.samples;

import static io.almanac.samples.AlmanacCli.EXIT_OK;
import static io.almanac.samples.AlmanacCli.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.samples.AlmanacCli.ApiCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The commands on events over the HTTP API: {@code publish}.
 * Part of {@link AlmanacCli}; package-private.
 */
final class EventCommands {

  private EventCommands() {}

  /** {@code publish}: an event for the tasks that listen to its type. */
  @Command(name = "publish", description = {
      "Publishes an event to the tasks whose event trigger listens to its type (POST /api/events, needs the token)",
      "and prints what each task did: SCHEDULED, COALESCED, DUPLICATE, SKIPPED, MISSED or ARCHIVED. A second delivery of an id",
      "is a DUPLICATE and makes no second instance. A type no task listens to exits 1; bad input exits 2; a task whose",
      "queue of publishes is full exits 5 (nothing stored: try again after the Retry-After printed); a task that did not",
      "answer exits 3 (the outcome is unknown: publishing the same id again is safe)."})
  static final class Publish extends ApiCommand {
    @Option(names = "--type", required = true, paramLabel = "TYPE", description = "the event type, e.g. order.paid")
    String type;
    @Option(names = "--id", required = true, paramLabel = "ID", description = "the event's id (duplicates are recognised by it)")
    String id;
    @Option(names = "--time", paramLabel = "ISO", description = "when the event happened, an ISO instant, e.g. "
        + "2026-11-29T02:15:00Z (needed by tasks that map events by event time)")
    String time;
    @Option(names = "--summary", paramLabel = "TEXT", description = "a short description kept in the journal")
    String summary;

    @Override
    public Integer call() {
      ObjectNode body = ApiClient.JSON.createObjectNode().put("type", required("--type", type)).put("id", required("--id", id));
      if (time != null) {
        body.put("eventTime", time);
      }
      if (summary != null) {
        body.put("summary", summary);
      }
      ApiClient.Answer a = api().post("/api/events", body.toString());
      if (printedJson(a)) {
        return EXIT_OK;
      }
      JsonNode r = a.json();
      out().println("event " + text(r, "type") + " " + text(r, "id") + ": " + r.path("tasks").size()
          + (r.path("tasks").size() == 1 ? " task" : " tasks"));
      TextTable t = new TextTable(100, "TASK", "WINDOW", "OUTCOME", "DETAIL");
      for (JsonNode o : r.path("tasks")) {
        t.row(text(o, "task"), text(o, "window"), text(o, "outcome"), text(o, "detail"));
      }
      t.print(out());
      return EXIT_OK;
    }
  }
}
