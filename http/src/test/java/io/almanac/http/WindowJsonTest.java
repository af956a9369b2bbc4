package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.almanac.InstanceStatus;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.WindowView;
import io.almanac.persistence.instances.InstanceRow;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A window's JSON shows the triggers' state: a WAITING window's deadline and the events coalesced
 * into a window, from a task's view and from an instance-table row alike; the dashboard colours
 * WAITING cells and shows their deadline.
 */
class WindowJsonTest {

  private static final Instant T = Instant.parse("2026-11-29T00:00:00Z");

  @Test
  @DisplayName("waitUntil and events in a window's JSON, null when the window has none")
  void waitUntilAndEvents() {
    WindowView waiting = view("report", T.plusSeconds(86_400), InstanceStatus.WAITING)
        .reason("waiting for upstream order-export (SAME_WINDOW)").waitUntil(T.plusSeconds(21_600))
        .events(new WindowView.Events(2000, 8000, "e0", "e9999")).build();
    JsonNode n = ApiJson.window(waiting);
    assertEquals("WAITING", n.get("status").asText());
    assertEquals("2026-11-29T06:00:00Z", n.get("waitUntil").asText());
    assertEquals("waiting for upstream order-export (SAME_WINDOW)", n.get("reason").asText());
    assertEquals(2000, n.get("events").get("received").asLong());
    assertEquals(8000, n.get("events").get("duplicates").asLong());
    assertEquals("e0", n.get("events").get("firstId").asText());
    assertEquals("e9999", n.get("events").get("lastId").asText());
    assertTrue(n.get("finishedAt").isNull(), "a WAITING window is not finished");

    WindowView plain = view("digest", T, InstanceStatus.SUCCEEDED).attempt(1).summary("ok").build();
    JsonNode p = ApiJson.window(plain);
    assertTrue(p.get("waitUntil").isNull(), p.toString());
    assertTrue(p.get("events").isNull(), p.toString());
  }

  @Test
  @DisplayName("a row of the instance table gives the same waitUntil and events as the task's view")
  void fromTheInstanceTable() {
    InstanceRow row = new InstanceRow("report", "2026-11-29", T, T.plusSeconds(86_400), InstanceStatus.WAITING, 0, 0, 0,
        RunKind.FIRST, null, "waiting for upstream order-export (SAME_WINDOW)", T, null, null, T, T, 3, null,
        T.plusSeconds(21_600), 14, 36, "e0", "e45");
    WindowView v = InstanceWindowSource.view(row);
    assertEquals(T.plusSeconds(21_600), v.waitUntil());
    assertEquals(new WindowView.Events(14, 36, "e0", "e45"), v.events());
    InstanceRow none = new InstanceRow("digest", "2026-11-29", T, T, InstanceStatus.SUCCEEDED, 1, 0, 0, RunKind.FIRST,
        "ok", null, T, T, T, T, T, 4, null);
    assertEquals(null, InstanceWindowSource.view(none).events());
    assertEquals(null, InstanceWindowSource.view(none).waitUntil());
  }

  @Test
  @DisplayName("the dashboard has a WAITING colour, lists it in the legend and shows the deadline and events")
  void dashboardKnowsWaiting() throws Exception {
    String js = scripts();
    String css = resource("app.css");
    assertTrue(css.contains(".st-WAITING { background: var(--waiting); }"), "a colour of its own");
    assertTrue(js.contains("'WAITING'"), "in the legend");
    assertTrue(js.contains("w.status === 'WAITING' && w.waitUntil"), "the deadline in the cell's title");
    assertTrue(js.contains("['wait until',") && js.contains("['events', eventsText(w)]"), "in the detail panel");
  }

  @Test
  @DisplayName("a window that missed its deadline: deadlineMissedAt in its JSON (null otherwise), and the dashboard marks "
      + "its cell LATE and shows the time in the detail panel")
  void deadlineMissedInJsonAndDashboard() throws Exception {
    WindowView late = view("digest", T.plusSeconds(86_400), InstanceStatus.RUNNING).attempt(1)
        .leaseUntil(T.plusSeconds(7200)).startedAt(T).deadlineMissedAt(T.plusSeconds(3600)).build();
    assertEquals("2026-11-29T01:00:00Z", ApiJson.window(late).get("deadlineMissedAt").asText());
    WindowView onTime = view("digest", T, InstanceStatus.SUCCEEDED).attempt(1).summary("ok").build();
    assertTrue(ApiJson.window(onTime).get("deadlineMissedAt").isNull());
    String js = scripts();
    String css = resource("app.css");
    assertTrue(js.contains("(w.deadlineMissedAt ? ' late' : '')") && js.contains("className: 'late-mark', text: 'LATE'"),
        "the cell is marked");
    assertTrue(js.contains("['deadline missed',"), "in the detail panel");
    assertTrue(css.contains(".cell.late {") && css.contains(".cell .late-mark {"), "a visible mark");
  }

  @Test
  @DisplayName("a pool wait and usage in a window's JSON (null otherwise), from a task's view and from an instance-table "
      + "row alike; the row's missed deadline too")
  void poolWaitAndUsageInJson() {
    WindowView waiting = view("digest", T.plusSeconds(86_400), InstanceStatus.PENDING).runKind(RunKind.RETRY)
        .attempt(1).retries(1).maxRetries(2).reason("waiting for pool openai: PAUSED until 2026-11-29T00:05:00Z")
        .startedAt(T).deadlineMissedAt(T.plusSeconds(3600))
        .poolWait(new WindowView.PoolWait("openai", io.almanac.PoolWaitReason.PAUSED, T.plusSeconds(300), T.plusSeconds(1)))
        .usage(new WindowView.Usage(1200, 340, new java.math.BigDecimal("0.0215"), "gpt-4o")).build();
    JsonNode n = ApiJson.window(waiting);
    assertEquals("openai", n.get("poolWait").get("pool").asText());
    assertEquals("PAUSED", n.get("poolWait").get("reason").asText());
    assertEquals("2026-11-29T00:05:00Z", n.get("poolWait").get("until").asText());
    assertEquals("2026-11-29T00:00:01Z", n.get("poolWait").get("since").asText());
    assertEquals(1200, n.get("usage").get("tokensIn").asLong());
    assertEquals(340, n.get("usage").get("tokensOut").asLong());
    assertEquals("0.0215", n.get("usage").get("cost").asText());
    assertEquals("gpt-4o", n.get("usage").get("model").asText());

    JsonNode none = ApiJson.window(view("digest", T, InstanceStatus.SUCCEEDED).attempt(1).summary("ok").build());
    assertTrue(none.get("poolWait").isNull(), none.toString());
    assertTrue(none.get("usage").isNull(), none.toString());

    InstanceRow row = new InstanceRow("digest", "2026-11-29", T, T.plusSeconds(86_400), InstanceStatus.PENDING, 1, 1, 2,
        RunKind.RETRY, null, "waiting for pool openai: PAUSED until 2026-11-29T00:05:00Z", T, T, null, T, T, 7, null, null,
        0, 0, null, null, 1200, 340, new java.math.BigDecimal("0.021500"), "gpt-4o", T.plusSeconds(3600), "openai",
        io.almanac.PoolWaitReason.PAUSED, T.plusSeconds(300));
    WindowView v = InstanceWindowSource.view(row);
    assertEquals(T.plusSeconds(3600), v.deadlineMissedAt());
    assertEquals(new WindowView.PoolWait("openai", io.almanac.PoolWaitReason.PAUSED, T.plusSeconds(300), null),
        v.poolWait());
    assertEquals(new WindowView.Usage(1200, 340, new java.math.BigDecimal("0.0215"), "gpt-4o"), v.usage());
    JsonNode r = ApiJson.window(v);
    assertEquals(n.get("usage"), r.get("usage"));
    assertEquals("2026-11-29T01:00:00Z", r.get("deadlineMissedAt").asText());
    assertTrue(r.get("poolWait").get("since").isNull(), "the table keeps no time of the wait");

    InstanceRow plain = new InstanceRow("digest", "2026-11-28", T, T, InstanceStatus.SUCCEEDED, 1, 0, 0, RunKind.FIRST,
        "ok", null, T, T, T, T, T, 4, null);
    assertEquals(null, InstanceWindowSource.view(plain).usage());
    assertEquals(null, InstanceWindowSource.view(plain).poolWait());
    InstanceRow tokensOnly = new InstanceRow("digest", "2026-11-28", T, T, InstanceStatus.SUCCEEDED, 1, 0, 0, RunKind.FIRST,
        "ok", null, T, T, T, T, T, 4, null, null, 0, 0, null, null, 10, 0, null, null);
    assertEquals(new WindowView.Usage(10, 0, new java.math.BigDecimal("0.00"), null),
        InstanceWindowSource.view(tokensOnly).usage());
  }

  @Test
  @DisplayName("a SKIPPED or MISSED window's typed cause is its JSON's reasonCode (and skipReason for a skip), from a "
      + "task's view and from an instance-table row alike; null for other windows and for rows without the column; the "
      + "dashboard reads reasonCode, not the reason's text")
  void reasonCodeInJsonAndDashboard() throws Exception {
    JsonNode skipped = ApiJson.window(view("digest", T, InstanceStatus.SKIPPED).reason("PREVIOUS_RUNNING: still running")
        .skipReason(io.almanac.SkipReason.PREVIOUS_RUNNING).build());
    assertEquals("PREVIOUS_RUNNING", skipped.get("reasonCode").asText());
    assertEquals("PREVIOUS_RUNNING", skipped.get("skipReason").asText());
    JsonNode missed = ApiJson.window(view("digest", T, InstanceStatus.MISSED).reason("OUTSIDE_HORIZON: too old")
        .missReason(io.almanac.MissReason.OUTSIDE_HORIZON).build());
    assertEquals("OUTSIDE_HORIZON", missed.get("reasonCode").asText());
    assertTrue(missed.get("skipReason").isNull(), missed.toString());
    assertTrue(ApiJson.window(view("digest", T, InstanceStatus.SUCCEEDED).build()).get("reasonCode").isNull());

    InstanceRow skippedRow = row(InstanceStatus.SKIPPED, "PAUSED: task is paused", io.almanac.SkipReason.PAUSED);
    WindowView fromRow = InstanceWindowSource.view(skippedRow);
    assertEquals(io.almanac.SkipReason.PAUSED, fromRow.skipReason(), "the table's skip reason is passed through");
    JsonNode r = ApiJson.window(fromRow);
    assertEquals("PAUSED", r.get("reasonCode").asText());
    assertEquals("PAUSED", r.get("skipReason").asText());
    InstanceRow missedRow = row(InstanceStatus.MISSED, "BACKFILL_NOT_ALLOWED: catch-up NONE",
        io.almanac.MissReason.BACKFILL_NOT_ALLOWED);
    assertEquals("BACKFILL_NOT_ALLOWED", ApiJson.window(InstanceWindowSource.view(missedRow)).get("reasonCode").asText());
    InstanceRow older = row(InstanceStatus.SKIPPED, "PAUSED: task is paused", null);
    assertTrue(ApiJson.window(InstanceWindowSource.view(older)).get("reasonCode").isNull(), "no code is made from text");

    String js = scripts();
    String head = js.substring(js.indexOf("function reasonHead(w)"), js.indexOf("}", js.indexOf("function reasonHead(w)")));
    assertTrue(head.contains("w.reasonCode"), head);
    assertTrue(!head.contains("w.reason ") && !head.contains("indexOf(':')"), "the text is not cut: " + head);
  }

  private static InstanceRow row(InstanceStatus status, String reason, io.almanac.ReasonCode code) {
    return new InstanceRow("digest", "2026-11-29", T, T.plusSeconds(86_400), status, 0, 0, 0, RunKind.FIRST, null, reason,
        T, null, T, T, T, 3, null, null, 0, 0, null, null, 0, 0, null, null, null, null, null, null, code);
  }

  /** A view of window 2026-11-29 starting and due at T, first run, created and updated at T. */
  private static WindowView.Builder view(String task, Instant end, InstanceStatus status) {
    return WindowView.builder().taskId(task).window(WindowKey.of("2026-11-29")).start(T).end(end).dueAt(T).status(status)
        .runKind(RunKind.FIRST).effects(Map.of()).createdAt(T).updatedAt(T);
  }

  /** The dashboard's scripts together (its modules: app.js, window.js, common.js). */
  private static String scripts() throws Exception {
    return resource("app.js") + resource("window.js") + resource("common.js");
  }

  private static String resource(String name) throws Exception {
    try (InputStream in = WindowJsonTest.class.getResourceAsStream("/io/almanac/http/dashboard/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  @DisplayName("a running attempt's progress in a window's JSON: attempt, fraction (null when it only logged), text, at "
      + "and its latest lines; null without one")
  void progressInJson() {
    WindowView running = view("brief", T.plusSeconds(86_400), InstanceStatus.RUNNING).attempt(1)
        .leaseUntil(T.plusSeconds(600)).startedAt(T).build();
    assertTrue(ApiJson.window(running).get("progress").isNull());
    JsonNode n = ApiJson.window(running.withProgress(new WindowView.Progress(1, 0.25, "drafting", T.plusSeconds(5),
        java.util.List.of(new io.almanac.journal.LogLine(T.plusSeconds(4), io.almanac.JobLog.Level.WARN, "429")))));
    JsonNode p = n.get("progress");
    assertEquals(1, p.get("attempt").asInt());
    assertEquals(0.25, p.get("fraction").asDouble());
    assertEquals("drafting", p.get("text").asText());
    assertEquals("2026-11-29T00:00:05Z", p.get("at").asText());
    assertEquals("WARN", p.get("latest").get(0).get("level").asText());
    assertEquals("2026-11-29T00:00:04Z", p.get("latest").get(0).get("at").asText());
    JsonNode onlyLogged = ApiJson.window(running.withProgress(new WindowView.Progress(1, null, null, T, null)));
    assertTrue(onlyLogged.get("progress").get("fraction").isNull(), onlyLogged.toString());
    assertEquals(0, onlyLogged.get("progress").get("latest").size());
  }
}
