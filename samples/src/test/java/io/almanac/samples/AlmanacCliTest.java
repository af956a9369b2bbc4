package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.almanac.InstanceStatus;
import io.almanac.WindowView;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code almanac} command run in-process (picocli's execute, output captured) against a real
 * node serving the HTTP API ({@link ApiTestNode}): the tables and {@code --json}, and each exit code
 * (0 ok, 1 refused, 2 bad input, 3 unreachable, 4 unauthorized, 5 overloaded).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AlmanacCliTest {

  @TempDir static Path dir;
  private ApiTestNode node;
  private final ObjectMapper json = new ObjectMapper();

  record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- out:\n" + out + "--- err:\n" + err;
    }
  }

  @BeforeAll
  void start() throws Exception {
    node = ApiTestNode.start("cli-test", dir);
  }

  @AfterAll
  void stop() {
    if (node != null) {
      node.close();
    }
  }

  /** Runs {@code almanac --url <node> args...}. */
  private Run cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--url", node.base));
    all.addAll(List.of(args));
    return raw(all.toArray(String[]::new));
  }

  private static Run raw(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = AlmanacCli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  @Order(1)
  @DisplayName("status: the node's health checks as a table, exit 0 when ready; --json prints the API's body")
  void status() throws Exception {
    Run r = cli("status");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().startsWith("node " + node.base + ": live, ready"), r.toString());
    assertTrue(r.out().contains("CHECK") && r.out().contains("DETAIL"), r.toString());
    Run j = cli("status", "--json");
    assertEquals(0, j.code(), j.toString());
    assertTrue(json.readTree(j.out()).get("ready").asBoolean(), j.toString());
  }

  @Test
  @Order(2)
  @DisplayName("tasks: a table with each task's next fire in local time (its zone) and UTC; --json is the API's JSON")
  void tasks() throws Exception {
    Run r = cli("tasks");
    assertEquals(0, r.code(), r.toString());
    String[] lines = r.out().split("\n");
    assertTrue(lines[0].startsWith("TASK") && lines[0].contains("NEXT FIRE (LOCAL)") && lines[0].contains("NEXT FIRE (UTC)"),
        r.toString());
    String digest = line(r.out(), ApiTestNode.DIGEST + " ");
    // next fire of the 08:00 Asia/Shanghai digest after 2026-11-29T00:01:30Z: 2026-11-30 08:00 local = 00:00 UTC
    assertTrue(digest.contains("2026-11-30 08:00:00+08:00 Asia/Shanghai"), r.toString());
    assertTrue(digest.contains("2026-11-30 00:00:00Z"), r.toString());
    // the columns are aligned: the UTC column starts at the same offset on every row
    int col = lines[0].indexOf("NEXT FIRE (UTC)");
    assertEquals("2026-11-30 00:00:00Z", digest.substring(col, col + 20), r.toString());

    Run j = cli("--json", "tasks");
    assertEquals(0, j.code(), j.toString());
    JsonNode tasks = json.readTree(j.out()).get("tasks");
    assertEquals(3, tasks.size(), j.toString());
  }

  @Test
  @Order(3)
  @DisplayName("windows, queue, why, timeline: tables of the node's windows; a SKIPPED window shows its reason")
  void reads() throws Exception {
    Run w = cli("windows", "--task", ApiTestNode.MINUTELY);
    assertEquals(0, w.code(), w.toString());
    String skipped = line(w.out(), ApiTestNode.SKIPPED_WINDOW);
    assertTrue(skipped.contains("SKIPPED") && skipped.contains("PREVIOUS_RUNNING"), w.toString());

    Run page = cli("windows", "--status", "SUCCEEDED,SKIPPED", "--limit", "1", "--json");
    assertEquals(0, page.code(), page.toString());
    JsonNode first = json.readTree(page.out());
    assertEquals(1, first.get("windows").size(), page.toString());
    assertTrue(first.hasNonNull("next"), page.toString());
    Run second = cli("windows", "--status", "SUCCEEDED,SKIPPED", "--limit", "1", "--after", first.get("next").asText(), "--json");
    assertEquals(0, second.code(), second.toString());
    assertTrue(!json.readTree(second.out()).get("windows").get(0).equals(first.get("windows").get(0)), second.toString());

    Run q = cli("queue");
    assertEquals(0, q.code(), q.toString());
    assertTrue(line(q.out(), ApiTestNode.BROKEN + " ").contains("FINAL_FAILED"), q.toString());

    Run why = cli("why", ApiTestNode.MINUTELY, ApiTestNode.SKIPPED_WINDOW);
    assertEquals(0, why.code(), why.toString());
    assertTrue(why.out().startsWith(ApiTestNode.MINUTELY + " " + ApiTestNode.SKIPPED_WINDOW + ": SKIPPED"), why.toString());
    Run whyJson = cli("why", ApiTestNode.MINUTELY, ApiTestNode.SKIPPED_WINDOW, "--json");
    assertEquals("SKIPPED", json.readTree(whyJson.out()).get("status").asText(), whyJson.toString());

    Run t = cli("timeline", ApiTestNode.BROKEN, ApiTestNode.DAY);
    assertEquals(0, t.code(), t.toString());
    assertTrue(t.out().startsWith("SEQ"), t.toString());
    assertTrue(t.out().split("\n").length > 2, t.toString());

    // the failing task's durable step: attempt 1 ran and recorded it, with its usage
    Run steps = cli("steps", ApiTestNode.BROKEN, ApiTestNode.DAY);
    assertEquals(0, steps.code(), steps.toString());
    assertTrue(steps.out().startsWith("ATT"), steps.toString());
    String fetch = line(steps.out(), "fetch");
    assertTrue(fetch.contains("RECORDED") && fetch.contains("120/30") && fetch.contains("0.02"), steps.toString());
    JsonNode stepsJson = json.readTree(cli("steps", ApiTestNode.BROKEN, ApiTestNode.DAY, "--json").out());
    JsonNode fetched = stepsJson.get("steps").get(0);
    assertEquals("fetch", fetched.get("name").asText(), stepsJson.toString());
    assertEquals("RECORDED", fetched.get("kind").asText(), stepsJson.toString());
    assertEquals(1, fetched.get("attempt").asInt(), stepsJson.toString());
    assertEquals("0.02", fetched.get("usage").get("cost").asText(), stepsJson.toString());
    Run none = cli("steps", ApiTestNode.DIGEST, ApiTestNode.DAY);
    assertEquals(0, none.code(), none.toString());
    assertTrue(none.out().contains("no steps recorded"), none.toString());
    Run whySteps = cli("why", ApiTestNode.BROKEN, ApiTestNode.DAY);
    assertTrue(whySteps.out().contains("ran step 'fetch'"), whySteps.toString());
  }

  @Test
  @Order(3)
  @DisplayName("windows --newest-first lists the newest windows first (GET /api/windows?order=desc) and pages on "
      + "backwards; --help prints each command's help (exit 0), windows' naming the option")
  void newestFirstAndHelp() throws Exception {
    Run help = raw("windows", "--help");
    assertEquals(0, help.code(), help.toString());
    assertTrue(help.out().startsWith("Usage: almanac windows") && help.out().contains("--newest-first"), help.toString());
    assertTrue(help.err().isEmpty(), help.toString());
    for (String c : List.of("status", "tasks", "queue", "why", "timeline", "steps", "pause", "resume", "run", "backfill", "retry",
        "resolve", "cancel", "publish", "raise-budget", "rebuild-instances")) {
      Run h = raw(c, "--help");
      assertEquals(0, h.code(), c + ": " + h);
      assertTrue(h.out().startsWith("Usage: almanac " + c), c + ": " + h);
    }

    List<String> oldest = new ArrayList<>();
    json.readTree(cli("windows", "--json").out()).get("windows").forEach(w -> oldest.add(w.get("start").asText()
        + " " + w.get("task").asText() + " " + w.get("window").asText()));
    assertTrue(oldest.size() >= 3, oldest.toString());
    Run newest = cli("windows", "--newest-first", "--json");
    assertEquals(0, newest.code(), newest.toString());
    List<String> desc = new ArrayList<>();
    json.readTree(newest.out()).get("windows").forEach(w -> desc.add(w.get("start").asText() + " "
        + w.get("task").asText() + " " + w.get("window").asText()));
    List<String> reversed = new ArrayList<>(oldest);
    java.util.Collections.reverse(reversed);
    assertEquals(reversed, desc, "newest first: the oldest-first list reversed");

    // a page of one, newest first; the hint to the next page keeps the order, and following it goes backwards
    Run first = cli("windows", "--newest-first", "--limit", "1");
    assertEquals(0, first.code(), first.toString());
    String more = line(first.out(), "more: ");
    assertTrue(more.startsWith("more: almanac windows ... --newest-first --after "), first.toString());
    String cursor = more.substring(more.lastIndexOf(' ') + 1).trim();
    Run second = cli("windows", "--newest-first", "--limit", "1", "--after", cursor, "--json");
    assertEquals(0, second.code(), second.toString());
    JsonNode w = json.readTree(second.out()).get("windows").get(0);
    assertEquals(desc.get(1), w.get("start").asText() + " " + w.get("task").asText() + " " + w.get("window").asText(),
        second.toString());
  }

  @Test
  @Order(4)
  @DisplayName("exit 4: an action without the token, or with a wrong one, is unauthorized and says to pass --token")
  void unauthorized() {
    Run r = cli("pause", ApiTestNode.DIGEST);
    assertEquals(AlmanacCli.EXIT_UNAUTHORIZED, r.code(), r.toString());
    assertTrue(r.err().contains("--token") && r.err().contains("ALMANAC_TOKEN"), r.toString());
    Run wrong = cli("--token", "not-it", "pause", ApiTestNode.DIGEST);
    assertEquals(AlmanacCli.EXIT_UNAUTHORIZED, wrong.code(), wrong.toString());
    Run reader = cli("--token", ApiTestNode.READ_TOKEN, "pause", ApiTestNode.DIGEST);
    assertEquals(AlmanacCli.EXIT_UNAUTHORIZED, reader.code(), reader.toString());
    assertTrue(reader.err().contains("forbidden (403)") && reader.err().contains("grafana") && reader.err().contains("operate"),
        reader.toString());
    assertEquals(0, cli("--token", ApiTestNode.READ_TOKEN, "tasks").code(), "a read token reads");
    assertEquals(false, ApiTestNode.await(node.almanac.task(ApiTestNode.DIGEST)).paused());
  }

  @Test
  @Order(5)
  @DisplayName("exit 1: the node refuses (409: retry of a SUCCEEDED window; 404: an unknown task) and its detail is printed")
  void refused() {
    Run r = cli("--token", ApiTestNode.TOKEN, "retry", ApiTestNode.DIGEST, ApiTestNode.DAY);
    assertEquals(AlmanacCli.EXIT_REFUSED, r.code(), r.toString());
    assertTrue(r.err().contains("refused by the node (409"), r.toString());
    Run unknown = cli("--token", ApiTestNode.TOKEN, "pause", "no-such-task");
    assertEquals(AlmanacCli.EXIT_REFUSED, unknown.code(), unknown.toString());
    assertTrue(unknown.err().contains("404") && unknown.err().contains("no-such-task"), unknown.toString());
  }

  @Test
  @Order(6)
  @DisplayName("exit 2: a usage error (unknown option, not a number, missing argument) and the API's 400 (field and value named)")
  void badInput() {
    Run unknownOption = cli("windows", "--colour", "blue");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, unknownOption.code(), unknownOption.toString());
    assertTrue(unknownOption.err().contains("--colour"), unknownOption.toString());
    Run notANumber = cli("windows", "--limit", "many");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, notANumber.code(), notANumber.toString());
    assertTrue(notANumber.err().contains("many"), notANumber.toString());
    Run missing = cli("why", ApiTestNode.DIGEST);
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, missing.code(), missing.toString());
    Run noNote = cli("--token", ApiTestNode.TOKEN, "resolve", ApiTestNode.BROKEN, ApiTestNode.DAY);
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, noNote.code(), noNote.toString());
    assertTrue(noNote.err().contains("--note"), noNote.toString());

    Run limit = cli("windows", "--limit", "0");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, limit.code(), limit.toString());
    assertTrue(limit.err().contains("field 'limit', value '0'"), limit.toString());
  }

  @Test
  @Order(7)
  @DisplayName("exit 3: a closed port, or a port that never answers (--timeout), is unreachable and the URL is printed")
  void unreachable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port;
    Run r = raw("--url", url, "tasks");
    assertEquals(AlmanacCli.EXIT_UNREACHABLE, r.code(), r.toString());
    assertTrue(r.err().contains("cannot reach the node at " + url), r.toString());
    // a node that accepts the connection and never answers: the answer's timeout, also exit 3
    try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      String silentUrl = "http://127.0.0.1:" + silent.getLocalPort();
      Run timedOut = raw("--url", silentUrl, "--timeout", "PT1S", "queue");
      assertEquals(AlmanacCli.EXIT_UNREACHABLE, timedOut.code(), timedOut.toString());
      assertTrue(timedOut.err().contains("cannot reach the node at " + silentUrl + ": no answer within 1 s"), timedOut.toString());
    }
    Run bad = raw("--url", "ftp://x", "tasks");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, bad.code(), bad.toString());
  }

  @Test
  @Order(8)
  @DisplayName("actions with the token: pause, resume, retry (the attempt grows), resolve with a note; exit 0")
  void actions() throws Exception {
    Run p = cli("--token", ApiTestNode.TOKEN, "pause", ApiTestNode.DIGEST, "--note", "maintenance");
    assertEquals(0, p.code(), p.toString());
    assertEquals(true, ApiTestNode.await(node.almanac.task(ApiTestNode.DIGEST)).paused());
    Run resumed = cli("--token", ApiTestNode.TOKEN, "resume", ApiTestNode.DIGEST);
    assertEquals(0, resumed.code(), resumed.toString());
    assertEquals(false, ApiTestNode.await(node.almanac.task(ApiTestNode.DIGEST)).paused());

    int before = node.window(ApiTestNode.BROKEN, ApiTestNode.DAY).attempt();
    Run retry = cli("--token", ApiTestNode.TOKEN, "retry", ApiTestNode.BROKEN, ApiTestNode.DAY, "--note", "provider fixed");
    assertEquals(0, retry.code(), retry.toString());
    node.node.createTestProbe().awaitAssert(java.time.Duration.ofSeconds(30), () -> {
      WindowView w = node.window(ApiTestNode.BROKEN, ApiTestNode.DAY);
      assertEquals(InstanceStatus.FINAL_FAILED, w.status());
      assertEquals(before + 1, w.attempt());
      return null;
    });
    // the operator's retry got the step's recorded result without running it
    JsonNode replayed = json.readTree(cli("steps", ApiTestNode.BROKEN, ApiTestNode.DAY, "--json").out()).get("steps");
    JsonNode last = replayed.get(replayed.size() - 1);
    assertEquals(before + 1, last.get("attempt").asInt(), replayed.toString());
    assertEquals("REPLAYED", last.get("kind").asText(), replayed.toString());
    assertEquals(1, last.get("recordedBy").asInt(), replayed.toString());
    assertTrue(last.get("usage").isNull(), "a replay uses nothing: " + replayed);
    // the token's name (almanac.http.token: operator) and the note are recorded, and "why" says them
    Run why = cli("why", ApiTestNode.BROKEN, ApiTestNode.DAY);
    assertTrue(why.out().contains("operator retried the window (note: \"provider fixed\")"), why.toString());
    Run resolve = cli("--token", ApiTestNode.TOKEN, "resolve", ApiTestNode.BROKEN, ApiTestNode.DAY, "--note", "fixed by hand");
    assertEquals(0, resolve.code(), resolve.toString());
    assertTrue(resolve.out().contains("resolve accepted"), resolve.toString());
  }

  @Test
  @Order(9)
  @DisplayName("run, backfill --dry-run (a table of decisions, nothing started) and cancel refused for a finished window")
  void runBackfillCancel() throws Exception {
    Run dry = cli("--token", ApiTestNode.TOKEN, "backfill", ApiTestNode.DIGEST, "--from", "2026-11-26T00:00:00Z",
        "--to", "2026-11-28T00:00:00Z", "--dry-run");
    assertEquals(0, dry.code(), dry.toString());
    assertTrue(dry.out().startsWith(ApiTestNode.DIGEST + " backfill (2026-11-26T00:00:00Z, 2026-11-28T00:00:00Z]"), dry.toString());
    assertTrue(dry.out().contains("(dry run: nothing started)") && dry.out().contains("WINDOW") && dry.out().contains("DECISION"),
        dry.toString());
    Run dryJson = cli("--token", ApiTestNode.TOKEN, "--json", "backfill", ApiTestNode.DIGEST, "--from", "2026-11-26T00:00:00Z",
        "--to", "2026-11-28T00:00:00Z", "--dry-run");
    assertEquals(2, json.readTree(dryJson.out()).get("windows").size(), dryJson.toString());
    Run badRange = cli("--token", ApiTestNode.TOKEN, "backfill", ApiTestNode.DIGEST, "--from", "yesterday", "--to", "2026-11-28T00:00:00Z");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, badRange.code(), badRange.toString());
    assertTrue(badRange.err().contains("yesterday"), badRange.toString());

    Run run = cli("--token", ApiTestNode.TOKEN, "run", ApiTestNode.DIGEST);
    assertEquals(0, run.code(), run.toString());
    assertTrue(run.out().startsWith(ApiTestNode.DIGEST + " " + ApiTestNode.DAY + ": "), run.toString());

    Run cancel = cli("--token", ApiTestNode.TOKEN, "cancel", ApiTestNode.MINUTELY, ApiTestNode.SKIPPED_WINDOW, "--reason", "not needed");
    assertEquals(AlmanacCli.EXIT_REFUSED, cancel.code(), cancel.toString());
  }

  @Test
  @Order(9)
  @DisplayName("cancel TASK --from --to --kind backfill: --dry-run lists what would be cancelled, then one call cancels "
      + "them all; a bulk option with WINDOW, or no --reason, is bad input (exit 2)")
  void bulkCancel() throws Exception {
    ApiTestNode.await(node.almanac.register(io.almanac.TaskSpec.builder("bulk").cron("0 * * * * ? UTC").window("per-firing")
        .job("ok").build()));
    ApiTestNode.await(node.almanac.pause("bulk")); // nothing starts: the backfill stays PENDING
    ApiTestNode.await(node.almanac.backfill("bulk", java.time.Instant.parse("2026-11-28T23:50:00Z"),
        java.time.Instant.parse("2026-11-29T00:00:00Z")));
    String[] range = {"--from", "2026-11-28T23:55:00Z", "--to", "2026-11-29T00:00:00Z", "--kind", "backfill"};
    List<String> args = new ArrayList<>(List.of("--token", ApiTestNode.TOKEN, "cancel", "bulk"));
    args.addAll(List.of(range));
    List<String> dryArgs = new ArrayList<>(args);
    dryArgs.add("--dry-run");
    Run dry = cli(dryArgs.toArray(String[]::new));
    assertEquals(0, dry.code(), dry.toString());
    assertTrue(dry.out().startsWith("bulk cancel (2026-11-28T23:55:00Z, 2026-11-29T00:00:00Z] BACKFILL: 5 windows would be "
        + "cancelled (dry run: nothing changed)"), dry.toString());
    assertTrue(dry.out().contains("2026-11-28T23:56:00Z") && !dry.out().contains("2026-11-28T23:55:00Z\n"), dry.toString());
    assertEquals(10, ApiTestNode.await(node.almanac.windows("bulk")).stream()
        .filter(w -> w.status() == InstanceStatus.PENDING).count(), "a dry run changes nothing");

    Run noReason = cli(args.toArray(String[]::new));
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, noReason.code(), noReason.toString());
    Run both = cli("--token", ApiTestNode.TOKEN, "cancel", "bulk", "2026-11-29T00:00:00Z", "--kind", "backfill", "--reason", "r");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, both.code(), both.toString());
    Run badKind = cli("--token", ApiTestNode.TOKEN, "cancel", "bulk", "--kind", "later", "--reason", "r");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, badKind.code(), badKind.toString());
    assertTrue(badKind.err().contains("later"), badKind.toString());

    args.addAll(List.of("--reason", "wrong range"));
    Run real = cli(args.toArray(String[]::new));
    assertEquals(0, real.code(), real.toString());
    assertTrue(real.out().contains(": 5 windows cancelled"), real.toString());
    assertEquals(5, ApiTestNode.await(node.almanac.windows("bulk")).stream()
        .filter(w -> w.status() == InstanceStatus.CANCELLED).count());
    Run json = cli("--token", ApiTestNode.TOKEN, "--json", "cancel", "bulk", "--dry-run");
    assertEquals(5, this.json.readTree(json.out()).get("cancelled").asInt(), json.toString());
  }

  @Test
  @Order(10)
  @DisplayName("the help lists the commands and the exit codes; no command with the demo's options runs the demo")
  void help() {
    Run h = raw("--help");
    assertEquals(0, h.code(), h.toString());
    for (String c : List.of("demo", "status", "tasks", "windows", "queue", "why", "timeline", "pause", "resume", "run",
        "backfill", "retry", "resolve", "cancel", "publish", "audit")) {
      assertTrue(h.out().contains("  " + c + " "), c + "\n" + h);
    }
    assertTrue(h.out().contains("Exit codes:") && h.out().matches("(?s).*\\n  4 +unauthorized \\(401\\).*"), h.toString());
    // audit is a subcommand with its own options and exit codes (2: a usage error)
    assertEquals(2, raw("audit", "--format", "xml").code());
    assertEquals(2, raw("audit", "--colour", "blue").code());
    assertEquals("demo", AlmanacCli.withDefault(new String[0])[0]);
    assertEquals(List.of("demo", "--digest-now"), List.of(AlmanacCli.withDefault(new String[] {"--digest-now"})));
    assertEquals(List.of("tasks"), List.of(AlmanacCli.withDefault(new String[] {"tasks"})));
  }

  @Test
  @Order(11)
  @DisplayName("publish: each listening task's outcome as a table (SCHEDULED), a second delivery DUPLICATE (--json); "
      + "exit 1 for a type no task listens to, 2 for bad input, 4 without the token; nothing stored when refused")
  void publish() throws Exception {
    ApiTestNode.await(node.almanac.register(io.almanac.TaskSpec.builder("orders")
        .onEvent(io.almanac.EventTrigger.of("order.paid")).zone("UTC").window("hourly").job("ok").build()));
    Run r = cli("--token", ApiTestNode.TOKEN, "publish", "--type", "order.paid", "--id", "evt-1",
        "--time", "2026-11-29T00:00:30Z", "--summary", "order 1 paid");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().startsWith("event order.paid evt-1: 1 task"), r.toString());
    assertTrue(r.out().contains("OUTCOME"), r.toString());
    String row = line(r.out(), "orders ");
    assertTrue(row.contains("SCHEDULED"), r.toString());
    List<WindowView> windows = ApiTestNode.await(node.almanac.windows("orders"));
    assertEquals(1, windows.size(), windows.toString());
    assertTrue(row.contains(windows.get(0).window().value()), r.toString());

    Run again = cli("--token", ApiTestNode.TOKEN, "--json", "publish", "--type", "order.paid", "--id", "evt-1",
        "--time", "2026-11-29T00:00:30Z");
    assertEquals(0, again.code(), again.toString());
    JsonNode o = json.readTree(again.out()).get("tasks").get(0);
    assertEquals("orders", o.get("task").asText(), again.toString());
    assertEquals("DUPLICATE", o.get("outcome").asText(), again.toString());

    Run unknown = cli("--token", ApiTestNode.TOKEN, "publish", "--type", "order.refunded", "--id", "evt-2",
        "--time", "2026-11-29T00:00:30Z");
    assertEquals(AlmanacCli.EXIT_REFUSED, unknown.code(), unknown.toString());
    assertTrue(unknown.err().contains("404") && unknown.err().contains("order.refunded"), unknown.toString());
    Run badTime = cli("--token", ApiTestNode.TOKEN, "publish", "--type", "order.paid", "--id", "evt-3", "--time", "yesterday");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, badTime.code(), badTime.toString());
    assertTrue(badTime.err().contains("field 'eventTime', value 'yesterday'"), badTime.toString());
    Run noId = cli("--token", ApiTestNode.TOKEN, "publish", "--type", "order.paid");
    assertEquals(AlmanacCli.EXIT_BAD_INPUT, noId.code(), noId.toString());
    assertTrue(noId.err().contains("--id"), noId.toString());
    Run noToken = cli("publish", "--type", "order.paid", "--id", "evt-4", "--time", "2026-11-29T00:00:30Z");
    assertEquals(AlmanacCli.EXIT_UNAUTHORIZED, noToken.code(), noToken.toString());

    List<WindowView> after = ApiTestNode.await(node.almanac.windows("orders"));
    assertEquals(1, after.size(), after.toString());
    assertEquals(windows.get(0).window(), after.get(0).window());
  }

  @Test
  @Order(12)
  @DisplayName("publish: a 429 'overloaded' exits 5 with the detail and the Retry-After; a 503 'outcome-unknown' exits 3 "
      + "with the detail saying that publishing the same id again is safe")
  void publishOverloadedAndUnknown() throws Exception {
    // A stub of the node: the statuses are the HTTP module's own (PublishOverloadRoutesTest); here only the CLI's reading
    com.sun.net.httpserver.HttpServer stub = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    stub.createContext("/api/events", exchange -> {
      boolean first = calls.incrementAndGet() == 1;
      String body = first
          ? "{\"type\":\"https://almanac.io/problems/overloaded\",\"title\":\"Overloaded\",\"status\":429,\"detail\":"
              + "\"task 'orders' has 100 publishes from this node waiting for its answer: nothing was stored\",\"field\":\"task\","
              + "\"value\":\"orders\"}"
          : "{\"type\":\"https://almanac.io/problems/outcome-unknown\",\"title\":\"Outcome unknown\",\"status\":503,"
              + "\"detail\":\"event 'evt-9' of type 'order.paid': no answer from task(s) orders; publish it again with the same id\"}";
      exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
      if (first) {
        exchange.getResponseHeaders().add("Retry-After", "2");
      }
      byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(first ? 429 : 503, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    });
    stub.start();
    try {
      String url = "http://127.0.0.1:" + stub.getAddress().getPort();
      Run busy = raw("--url", url, "--token", ApiTestNode.TOKEN, "publish", "--type", "order.paid", "--id", "evt-9");
      assertEquals(AlmanacCli.EXIT_OVERLOADED, busy.code(), busy.toString());
      assertTrue(busy.err().contains("overloaded (429)") && busy.err().contains("nothing was stored")
          && busy.err().contains("try again in 2 s"), busy.toString());
      Run unknown = raw("--url", url, "--token", ApiTestNode.TOKEN, "publish", "--type", "order.paid", "--id", "evt-9");
      assertEquals(AlmanacCli.EXIT_UNREACHABLE, unknown.code(), unknown.toString());
      assertTrue(unknown.err().contains("(503)") && unknown.err().contains("publish it again with the same id"),
          unknown.toString());
    } finally {
      stub.stop(0);
    }
  }

  private static String line(String text, String containing) {
    for (String l : text.split("\n")) {
      if (l.contains(containing)) {
        return l;
      }
    }
    throw new AssertionError("no line with '" + containing + "' in:\n" + text);
  }
}
