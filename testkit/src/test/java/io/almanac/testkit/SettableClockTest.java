package io.almanac.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class SettableClockTest {
  private static final Instant T0 = Instant.parse("2026-11-28T23:59:00Z");

  @Test
  void showsTheStartUntilMoved() {
    SettableClock clock = new SettableClock(T0);
    assertEquals(T0, clock.instant());
    assertEquals(T0.toEpochMilli(), clock.millis());
  }

  @Test
  void advanceMovesForwardAndReturnsTheNewTime() {
    SettableClock clock = new SettableClock(T0);
    assertEquals(T0.plusSeconds(60), clock.advance(Duration.ofMinutes(1)));
    assertEquals(T0.plusSeconds(60), clock.instant());
  }

  @Test
  void setMayMoveBackwards() {
    SettableClock clock = new SettableClock(T0);
    clock.set(T0.minusSeconds(3600));
    assertEquals(T0.minusSeconds(3600), clock.instant());
  }

  @Test
  void isAlwaysUtc() {
    SettableClock clock = new SettableClock(T0);
    assertEquals(ZoneOffset.UTC, clock.getZone());
    assertThrows(UnsupportedOperationException.class, () -> clock.withZone(ZoneId.of("Asia/Shanghai")));
  }

  @Test
  void refusesNull() {
    assertThrows(NullPointerException.class, () -> new SettableClock(null));
    assertThrows(NullPointerException.class, () -> new SettableClock(T0).set(null));
  }
}
