package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The HTTP request meter's tags are bounded: a path's names become their kind, unknown paths one value. */
class HttpMetersTest {

  @Test
  @DisplayName("uri: task ids, window keys and pools become {task}, {window}, {pool}; a task named like a word too")
  void uriTemplates() {
    assertEquals("/api/tasks", HttpMeters.uri("/api/tasks"));
    assertEquals("/api/tasks/{task}/pause", HttpMeters.uri("/api/tasks/daily-digest/pause"));
    assertEquals("/api/tasks/{task}/windows/{window}/why", HttpMeters.uri("/api/tasks/d/windows/2026-11-29/why"));
    assertEquals("/api/tasks/{task}/windows/{window}/logs", HttpMeters.uri("/api/tasks/d/windows/2026-11-29/logs"));
    assertEquals("/api/tasks/{task}/windows/{window}/retry", HttpMeters.uri("/api/tasks/pause/windows/retry/retry"));
    assertEquals("/api/pools/{pool}/raise-budget", HttpMeters.uri("/api/pools/openai/raise-budget"));
    assertEquals("/dashboard/**", HttpMeters.uri("/dashboard/app.js"));
    assertEquals("/metrics", HttpMeters.uri("/metrics"));
    assertEquals("/health/ready", HttpMeters.uri("/health/ready"));
    assertEquals("NOT_FOUND", HttpMeters.uri("/wp-admin/login.php"));
    assertEquals("NOT_FOUND", HttpMeters.uri("/api/" + "x/".repeat(100)));
    assertEquals("OTHER", HttpMeters.method("BREW"));
    assertEquals("CLIENT_ERROR", HttpMeters.outcome(404));
    assertEquals("SERVER_ERROR", HttpMeters.outcome(503));
  }
}
