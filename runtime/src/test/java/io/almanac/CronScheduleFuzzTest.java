package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.schedule.DueWindow;
import io.almanac.schedule.TaskSchedule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.time.zone.ZoneOffsetTransition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Fuzz (R2, R3, R33): structured Quartz crons built from every field form, in zones with 1-hour,
 * 30-minute, midnight and abolished DST, under every DST policy. Each cron is either refused at
 * construction with an {@link InvalidSpecException} on field {@code cron} whose message is bounded,
 * or it computes a year of firings with no exception at all: {@link CronSchedule#nextAfter} and
 * {@link TaskSchedule#nextAfter} strictly increasing, {@link CronSchedule#minInterval} and
 * {@link TaskSchedule#minInterval} positive. Deterministic (fixed seed); the walk over the year
 * takes a few consecutive firings at a dozen points of it, so a cron firing every second costs no
 * more than a yearly one.
 */
class CronScheduleFuzzTest {

  private static final long SEED = 0x5EED_2026_1130L;
  /**
   * How many crons: 1,000 by default, about 3.5 s of CPU (cron-utils takes 0.1-2 ms a look-up, and
   * each cron costs its construction probe plus a dozen look-ups of the walk); run more with
   * {@code -Dalmanac.fuzz.crons=5000}.
   */
  private static final int CRONS = Integer.getInteger("almanac.fuzz.crons", 1_000);
  private static final Instant FROM = Instant.parse("2026-11-30T00:00:00Z");
  private static final Instant TO = FROM.plus(Duration.ofDays(366));
  private static final int FIRINGS_PER_POINT = 2;

  private static final List<ZoneId> ZONES =
      List.of("UTC", "Europe/London", "America/New_York", "Australia/Lord_Howe", "America/Santiago",
              "Asia/Tehran", "Europe/Chisinau", "America/St_Johns", "Asia/Kolkata", "Pacific/Apia")
          .stream().map(ZoneId::of).toList();
  private static final List<DstPolicy> POLICIES = new ArrayList<>();

  static {
    for (DstPolicy.Gap gap : DstPolicy.Gap.values()) {
      for (DstPolicy.Overlap overlap : DstPolicy.Overlap.values()) {
        POLICIES.add(new DstPolicy(gap, overlap));
      }
    }
  }

  private static final String[] MONTHS =
      {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
  private static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

  @Test
  @DisplayName("R2 R3 R33: 1,000 fuzzed crons in DST zones are refused with a bounded typed message or compute a year of strictly increasing firings")
  void fuzz() {
    Random random = new Random(SEED);
    int refused = 0;
    int accepted = 0;
    long firings = 0;
    long cpuStart = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    long wallStart = System.nanoTime();
    long parseNanos = 0;
    long walkNanos = 0;
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < CRONS && failures.size() < 10; i++) {
      String cron = cron(random);
      ZoneId zone = ZONES.get(random.nextInt(ZONES.size()));
      DstPolicy policy = POLICIES.get(random.nextInt(POLICIES.size()));
      CronSchedule schedule;
      long t0 = System.nanoTime();
      try {
        schedule = CronSchedule.parse(cron, zone);
      } catch (InvalidSpecException e) {
        refused++;
        if (!"cron".equals(e.field()) || !e.getMessage().startsWith("cron '")
            || e.getMessage().length() > InvalidSpecException.MAX_MESSAGE_LENGTH
            || !e.getMessage().contains(" is invalid: ")) {
          failures.add("'" + cron + "': badly worded refusal: " + e.getMessage());
        }
        continue;
      } catch (RuntimeException e) {
        failures.add("'" + cron + "': construction threw " + e);
        continue;
      }
      finally {
        parseNanos += System.nanoTime() - t0;
      }
      accepted++;
      long t1 = System.nanoTime();
      try {
        firings += walkYear(cron, schedule, zone, policy, i, failures);
      } catch (RuntimeException e) {
        failures.add("'" + cron + "' " + zone + " " + policy + ": threw " + e);
      }
      walkNanos += System.nanoTime() - t1;
    }
    long cpu = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpuStart;
    System.out.printf("cron fuzz: %d accepted, %d refused, %d firings checked; parse %d ms, walk %d ms; wall %d ms, cpu %d ms%n",
        accepted, refused, firings, parseNanos / 1_000_000, walkNanos / 1_000_000,
        (System.nanoTime() - wallStart) / 1_000_000, cpu / 1_000_000);
    if (!failures.isEmpty()) {
      fail(failures.size() + " failures, e.g.\n" + String.join("\n", failures));
    }
    assertTrue(accepted > CRONS / 2, "most fuzzed crons are valid: " + accepted);
    assertTrue(refused > CRONS / 20, "some fuzzed crons are refused: " + refused);
  }

  /**
   * Walks the year: {@value #FIRINGS_PER_POINT} consecutive firings from its start, from an hour
   * before each of the zone's offset transitions in it and from its last day; the first firing also
   * through the task's schedule; every 10th cron also both minIntervals.
   */
  private static long walkYear(
      String cron, CronSchedule schedule, ZoneId zone, DstPolicy policy, int index, List<String> failures) {
    TaskSchedule task = new TaskSchedule(schedule, policy, WindowSpec.PER_FIRING);
    List<Instant> points = new ArrayList<>();
    points.add(FROM);
    ZoneOffsetTransition transition = zone.getRules().nextTransition(FROM);
    while (transition != null && transition.getInstant().isBefore(TO)) {
      points.add(transition.getInstant().minus(Duration.ofHours(1)));
      transition = zone.getRules().nextTransition(transition.getInstant());
    }
    points.add(TO.minus(Duration.ofDays(1)));
    points.sort(null);
    long count = 0;
    Instant previous = null;
    for (Instant point : points) {
      Instant cursor = previous != null && previous.isAfter(point) ? previous : point;
      for (int k = 0; k < FIRINGS_PER_POINT; k++) {
        Optional<Firing> next = schedule.nextAfter(cursor, policy);
        if (k == 0 && point == points.get(0)) {
          Optional<DueWindow> due = task.nextAfter(cursor);
          if (due.isPresent() != next.isPresent()
              || due.isPresent() && !due.get().dueAt().isAfter(cursor)) {
            failures.add("'" + cron + "' " + zone + " " + policy + ": from " + cursor + " cron " + next
                + " but task " + due);
            return count;
          }
        }
        if (next.isEmpty()) {
          return count;
        }
        Instant at = next.get().at();
        if (!at.isAfter(cursor)) {
          failures.add("'" + cron + "' " + zone + " " + policy + ": " + at + " not after " + cursor);
          return count;
        }
        count++;
        previous = at;
        cursor = at;
      }
    }
    if (index % 10 == 0) {
      Duration min = schedule.minInterval(policy, FROM);
      Duration taskMin = task.minInterval(FROM);
      if (min.isNegative() || min.isZero() || taskMin.isNegative() || taskMin.isZero()) {
        failures.add("'" + cron + "' " + zone + ": minInterval " + min + " / " + taskMin);
      }
    }
    return count;
  }

  // ------------------------------------------------------------------------------- generator

  static String cron(Random r) {
    String sec = timeField(r, 60, true);
    String min = timeField(r, 60, true);
    String hour = timeField(r, 24, false);
    String month = monthField(r);
    String dom;
    String dow;
    int shape = r.nextInt(100);
    if (shape < 50) {
      dom = domField(r);
      dow = "?";
    } else if (shape < 97) {
      dom = "?";
      dow = dowField(r);
    } else {
      dom = domField(r);
      dow = dowField(r);
    }
    StringBuilder cron = new StringBuilder(String.join(" ", sec, min, hour, dom, month, dow));
    if (r.nextInt(100) < 25) {
      cron.append(' ').append(yearField(r));
    }
    String text = cron.toString();
    return r.nextInt(100) < 4 ? mutate(r, text) : text;
  }

  /** Seconds, minutes or hours: mostly sparse, so a year's walk is not every second. */
  private static String timeField(Random r, int size, boolean sparse) {
    int form = r.nextInt(100);
    if (sparse && form < 55 || !sparse && form < 30) {
      return Integer.toString(r.nextInt(size));
    }
    return switch (r.nextInt(7)) {
      case 0 -> "*";
      case 1 -> range(r, 0, size - 1);
      case 2 -> "*/" + (1 + r.nextInt(size));
      case 3 -> r.nextInt(size) + "/" + (1 + r.nextInt(size));
      case 4 -> list(r, size, 0);
      case 5 -> range(r, 0, size - 1) + "/" + (1 + r.nextInt(size / 2));
      default -> Integer.toString(r.nextInt(size));
    };
  }

  private static String domField(Random r) {
    return switch (r.nextInt(12)) {
      case 0 -> "*";
      case 1 -> Integer.toString(1 + r.nextInt(31));
      case 2 -> range(r, 1, 31);
      case 3 -> list(r, 31, 1);
      case 4 -> "*/" + (1 + r.nextInt(15));
      case 5 -> (1 + r.nextInt(31)) + "/" + (1 + r.nextInt(10));
      case 6 -> "L";
      case 7 -> "L-" + (1 + r.nextInt(30));
      case 8 -> (1 + r.nextInt(31)) + "W";
      case 9 -> "LW";
      case 10 -> (1 + r.nextInt(28)) + "W";
      default -> (1 + r.nextInt(28)) + "," + (1 + r.nextInt(31));
    };
  }

  private static String monthField(Random r) {
    return switch (r.nextInt(9)) {
      case 0, 1, 2 -> "*";
      case 3 -> Integer.toString(1 + r.nextInt(12));
      case 4 -> MONTHS[r.nextInt(12)];
      case 5 -> range(r, 1, 12);
      case 6 -> MONTHS[r.nextInt(6)] + "-" + MONTHS[6 + r.nextInt(6)];
      case 7 -> list(r, 12, 1);
      default -> (1 + r.nextInt(12)) + "/" + (1 + r.nextInt(6));
    };
  }

  private static String dowField(Random r) {
    return switch (r.nextInt(10)) {
      case 0 -> "*";
      case 1 -> Integer.toString(1 + r.nextInt(7));
      case 2 -> DAYS[r.nextInt(7)];
      case 3 -> DAYS[1 + r.nextInt(3)] + "-" + DAYS[4 + r.nextInt(3)];
      case 4 -> range(r, 1, 7);
      case 5 -> list(r, 7, 1);
      case 6 -> (1 + r.nextInt(7)) + "L";
      case 7 -> (1 + r.nextInt(7)) + "#" + (1 + r.nextInt(r.nextInt(10) == 0 ? 7 : 5));
      case 8 -> DAYS[r.nextInt(7)] + "#" + (1 + r.nextInt(5));
      default -> (1 + r.nextInt(7)) + "/" + (1 + r.nextInt(3));
    };
  }

  private static String yearField(Random r) {
    return switch (r.nextInt(8)) {
      case 0 -> Integer.toString(2026 + r.nextInt(10));
      case 1 -> (2026 + r.nextInt(3)) + "-" + (2029 + r.nextInt(70));
      case 2 -> (2024 + r.nextInt(6)) + "," + (2030 + r.nextInt(6));
      case 3 -> "*";
      case 4 -> (2026 + r.nextInt(4)) + "/" + (1 + r.nextInt(4));
      case 5 -> Integer.toString(1970 + r.nextInt(130));
      case 6 -> Integer.toString(1960 + r.nextInt(160)); // sometimes out of range
      default -> "2027";
    };
  }

  private static String range(Random r, int lo, int hi) {
    int a = lo + r.nextInt(hi - lo + 1);
    int b = lo + r.nextInt(hi - lo + 1);
    return Math.min(a, b) + "-" + Math.max(a, b);
  }

  private static String list(Random r, int size, int base) {
    int n = 2 + r.nextInt(4);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < n; i++) {
      out.append(i == 0 ? "" : ",").append(base + r.nextInt(size));
    }
    return out.toString();
  }

  /** A malformed variant: a stray character, a non-ASCII digit, a control character, a huge list. */
  private static String mutate(Random r, String cron) {
    int at = r.nextInt(cron.length() + 1);
    return switch (r.nextInt(6)) {
      case 0 -> cron.substring(0, at) + "\u0663" + cron.substring(at);
      case 1 -> cron.substring(0, at) + "\uFF13" + cron.substring(at);
      case 2 -> cron + "\u0000";
      case 3 -> cron.substring(0, at) + "#" + cron.substring(at);
      case 4 -> "0 0 " + "1,".repeat(300) + "1 * * ?";
      default -> cron.substring(0, at) + (char) (0x21 + r.nextInt(0x5E)) + cron.substring(at);
    };
  }

  @Test
  @DisplayName("R2: the fuzz generator is deterministic")
  void deterministic() {
    Random a = new Random(SEED);
    Random b = new Random(SEED);
    for (int i = 0; i < 100; i++) {
      assertEquals(cron(a), cron(b));
    }
  }
}
