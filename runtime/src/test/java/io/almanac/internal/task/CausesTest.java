package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.almanac.InstanceStatus;
import io.almanac.MissReason;
import io.almanac.SkipReason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The journal's skip and miss texts are rendered from typed causes. The texts are pinned: journals
 * written before the causes were typed hold exactly these words, and the audit shows them as they are.
 */
class CausesTest {

  private static final Instant DUE = Instant.parse("2026-11-29T00:00:00Z");

  @Test
  void previousRunningNamesTheRunningWindowAndKeepsItsAttemptAndLeaseAsFacts() {
    Causes.PreviousRunning c = new Causes.PreviousRunning("2026-11-28", 3, DUE.plusSeconds(60));
    assertEquals(SkipReason.PREVIOUS_RUNNING, c.reason());
    assertEquals("window 2026-11-28 is RUNNING", c.detail());
    assertEquals("PREVIOUS_RUNNING: window 2026-11-28 is RUNNING", c.text());
    assertEquals(3, c.attempt());
  }

  @Test
  void aFullStartQueueListsTheWaitingWindowsAndTheCap() {
    Causes.StartQueueFull c = new Causes.StartQueueFull(List.of("a", "b"), 2);
    assertEquals(SkipReason.BUFFER_FULL, c.reason());
    assertEquals("windows a, b are waiting to start (overlap SKIP queues at most 2 not yet started)", c.detail());
  }

  @Test
  void bufferOneNamesTheWindowAlreadyWaiting() {
    assertEquals("BUFFER_FULL: window a is already waiting", new Causes.AlreadyWaiting("a").text());
  }

  @Test
  void pausedAndExistingWindowsHaveTheirFixedWords() {
    assertEquals("PAUSED: task is paused", new Causes.Paused().text());
    assertEquals("WINDOW_EXISTS: window is SUCCEEDED", new Causes.WindowExists(InstanceStatus.SUCCEEDED).text());
  }

  @Test
  void missesSayWhenTheWindowWasDueAndWhichLimitItPassed() {
    Causes.OutsideHorizon h = new Causes.OutsideHorizon(DUE, Duration.ofHours(6));
    assertEquals(MissReason.OUTSIDE_HORIZON, h.reason());
    assertEquals("due 2026-11-29T00:00:00Z, older than the catch-up horizon PT6H", h.detail());
    assertEquals(MissReason.BACKFILL_NOT_ALLOWED, new Causes.NoCatchUp(DUE).reason());
    assertEquals("due 2026-11-29T00:00:00Z and not fired on time (the trigger was down or behind, or the task was"
        + " registered later); the task does not catch up missed windows (catch-up mode NONE)",
        new Causes.NoCatchUp(DUE).detail());
    assertEquals("BACKFILL_NOT_ALLOWED: due 2026-11-29T00:00:00Z, outside the catch-up span PT1H after the window's start",
        new Causes.OutsideSpan(DUE, Duration.ofHours(1)).text());
  }
}
