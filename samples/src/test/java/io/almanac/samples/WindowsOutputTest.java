package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code almanac windows}: a WAITING window's line says what it waits for and until when. */
class WindowsOutputTest {

  @Test
  void waitingWindowShowsItsDeadline() {
    ArrayNode ws = ApiClient.JSON.createArrayNode();
    ws.addObject().put("task", "report").put("window", "2026-11-29").put("status", "WAITING").put("runKind", "FIRST")
        .put("attempt", 0).put("dueAt", "2026-11-29T00:00:00Z").put("updatedAt", "2026-11-29T00:00:00Z")
        .put("reason", "waiting for upstream x").put("waitUntil", "2026-11-29T06:00:00Z");
    ws.addObject().put("task", "digest").put("window", "2026-11-29").put("status", "SUCCEEDED").put("runKind", "FIRST")
        .put("attempt", 1).put("dueAt", "2026-11-29T00:00:00Z").put("updatedAt", "2026-11-29T00:00:01Z")
        .put("summary", "ok").putNull("waitUntil");
    StringWriter s = new StringWriter();
    AlmanacCli.printWindows(new PrintWriter(s, true), ws);
    String out = s.toString();
    assertTrue(out.contains("waiting for upstream x until 2026-11-29 06:00:00"), out);
    assertTrue(out.lines().filter(l -> l.contains("digest")).noneMatch(l -> l.contains("until")), out);
  }
}
