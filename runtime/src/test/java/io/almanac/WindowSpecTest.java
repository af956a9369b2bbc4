package io.almanac;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class WindowSpecTest {

  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

  @Test
  @DisplayName("R4 R26 daily window in Asia/Shanghai: key 2026-11-29, local midnight to midnight in UTC")
  void daily() {
    Window w =
        WindowSpec.DAILY.windowOf(
            LocalDateTime.parse("2026-11-29T08:00"), Instant.parse("2026-11-29T00:00:00Z"), SHANGHAI);
    assertEquals(WindowKey.of("2026-11-29"), w.key());
    assertEquals(Instant.parse("2026-11-28T16:00:00Z"), w.start());
    assertEquals(Instant.parse("2026-11-29T16:00:00Z"), w.end());
    assertEquals("daily", WindowSpec.DAILY.name());
  }

  @Test
  @DisplayName("R4 R26 hourly window in Asia/Shanghai: key 2026-11-29-08")
  void hourly() {
    Window w =
        WindowSpec.HOURLY.windowOf(
            LocalDateTime.parse("2026-11-29T08:30:15"), Instant.parse("2026-11-29T00:30:15Z"), SHANGHAI);
    assertEquals("2026-11-29-08", w.key().value());
    assertEquals(Instant.parse("2026-11-29T00:00:00Z"), w.start());
    assertEquals(Instant.parse("2026-11-29T01:00:00Z"), w.end());
    assertEquals("hourly", WindowSpec.HOURLY.name());
  }

  @Test
  @DisplayName("R4 per-firing window: key is the ISO UTC instant, empty range")
  void perFiring() {
    Instant firedAt = Instant.parse("2026-11-29T00:00:00Z");
    Window w = WindowSpec.PER_FIRING.windowOf(LocalDateTime.parse("2026-11-29T08:00"), firedAt, SHANGHAI);
    assertEquals("2026-11-29T00:00:00Z", w.key().toString());
    assertEquals(firedAt, w.start());
    assertEquals(firedAt, w.end());
    assertEquals("per-firing", WindowSpec.PER_FIRING.name());
  }

  @Test
  @DisplayName("R3 R4 hourly windows across DST: the missing hour is empty, the repeated hour spans two")
  void hourlyAcrossDst() {
    Window missing =
        WindowSpec.HOURLY.windowOf(
            LocalDateTime.parse("2026-03-08T02:30"), Instant.parse("2026-03-08T07:30:00Z"), NEW_YORK);
    assertEquals("2026-03-08-02", missing.key().value());
    assertEquals(missing.start(), missing.end());
    assertEquals(Instant.parse("2026-03-08T07:00:00Z"), missing.start());
    Window repeated =
        WindowSpec.HOURLY.windowOf(
            LocalDateTime.parse("2026-11-01T01:30"), Instant.parse("2026-11-01T05:30:00Z"), NEW_YORK);
    assertEquals(Instant.parse("2026-11-01T05:00:00Z"), repeated.start());
    assertEquals(Instant.parse("2026-11-01T07:00:00Z"), repeated.end());
    Window shortDay =
        WindowSpec.DAILY.windowOf(
            LocalDateTime.parse("2026-03-08T12:00"), Instant.parse("2026-03-08T16:00:00Z"), NEW_YORK);
    assertEquals(23, java.time.Duration.between(shortDay.start(), shortDay.end()).toHours());
  }

  @Test
  @DisplayName("R4 built-ins are found by name")
  void byName() {
    assertSame(WindowSpec.DAILY, WindowSpec.byName("daily"));
    assertSame(WindowSpec.HOURLY, WindowSpec.byName("hourly"));
    assertSame(WindowSpec.PER_FIRING, WindowSpec.byName("per-firing"));
  }

  /** ISO week windows, e.g. 2026-W48. */
  private static final WindowSpec WEEKLY =
      new WindowSpec() {
        @Override
        public String name() {
          return "weekly-test";
        }

        @Override
        public Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone) {
          LocalDate monday = nominal.toLocalDate().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
          String key =
              String.format(
                  "%d-W%02d",
                  monday.get(IsoFields.WEEK_BASED_YEAR), monday.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
          return new Window(
              WindowKey.of(key),
              monday.atStartOfDay(zone).toInstant(),
              monday.plusWeeks(1).atStartOfDay(zone).toInstant());
        }
      };

  @Test
  @DisplayName("R4 a custom window spec can be registered and found by name")
  void registerCustom() {
    WindowSpec.register(WEEKLY);
    assertDoesNotThrow(() -> WindowSpec.register(WEEKLY), "registering the same instance again is fine");
    assertSame(WEEKLY, WindowSpec.byName("weekly-test"));
    Window w =
        WindowSpec.byName("weekly-test")
            .windowOf(LocalDateTime.parse("2026-11-29T08:00"), Instant.parse("2026-11-29T00:00:00Z"), SHANGHAI);
    assertEquals("2026-W48", w.key().value());

    WindowSpec impostor =
        new WindowSpec() {
          @Override
          public String name() {
            return "weekly-test";
          }

          @Override
          public Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone) {
            return WindowSpec.DAILY.windowOf(nominal, firedAt, zone);
          }
        };
    InvalidSpecException taken = assertThrows(InvalidSpecException.class, () -> WindowSpec.register(impostor));
    assertEquals("window", taken.field());
    InvalidSpecException builtin =
        assertThrows(
            InvalidSpecException.class,
            () ->
                WindowSpec.register(
                    new WindowSpec() {
                      @Override
                      public String name() {
                        return "daily";
                      }

                      @Override
                      public Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone) {
                        return WindowSpec.DAILY.windowOf(nominal, firedAt, zone);
                      }
                    }));
    assertTrue(builtin.getMessage().contains("already taken"));
    assertThrows(InvalidSpecException.class, () -> WindowSpec.register(null));
  }

  @Test
  @DisplayName("R4 R33 an unknown window spec name is refused, listing the known ones")
  void unknownName() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> WindowSpec.byName("fortnightly"));
    assertEquals("window", e.field());
    assertEquals("fortnightly", e.value());
    assertTrue(e.getMessage().contains("unknown window spec; known: daily, hourly, per-firing"), e::getMessage);
    assertThrows(InvalidSpecException.class, () -> WindowSpec.byName(null));
  }

  @Test
  @DisplayName("R4 window keys are non-blank and at most 200 characters; windows never end before start")
  void keyAndWindowValidation() {
    assertThrows(InvalidSpecException.class, () -> WindowKey.of(" "));
    assertThrows(InvalidSpecException.class, () -> WindowKey.of(null));
    assertThrows(InvalidSpecException.class, () -> WindowKey.of("x".repeat(201)));
    assertEquals(200, WindowKey.of("x".repeat(200)).value().length());
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    assertThrows(InvalidSpecException.class, () -> new Window(WindowKey.of("k"), t, t.minusSeconds(1)));
  }

  @Test
  @DisplayName("R3 DstPolicy refuses missing parts")
  void dstPolicyValidation() {
    InvalidSpecException gap =
        assertThrows(InvalidSpecException.class, () -> new DstPolicy(null, DstPolicy.Overlap.FIRST));
    assertEquals("dstPolicy.gap", gap.field());
    InvalidSpecException overlap =
        assertThrows(InvalidSpecException.class, () -> new DstPolicy(DstPolicy.Gap.SHIFT, null));
    assertEquals("dstPolicy.overlap", overlap.field());
  }

  @Test
  @DisplayName("R4 a window key is a plain JSON string")
  void windowKeyJson() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    assertEquals("\"2026-11-29\"", mapper.writeValueAsString(WindowKey.of("2026-11-29")));
    assertEquals(WindowKey.of("2026-11-29-08"), mapper.readValue("\"2026-11-29-08\"", WindowKey.class));
  }
}
