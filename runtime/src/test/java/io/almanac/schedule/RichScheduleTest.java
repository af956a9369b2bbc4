package io.almanac.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.TaskSpec;
import io.almanac.WindowSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The union of crons, the bounds and the jitter of a task's schedule, as pure computations (docs/schedules.md). */
class RichScheduleTest {

  private static final Instant MON = Instant.parse("2027-01-04T00:00:00Z");

  private static TaskSchedule of(TaskSpec.Builder b) {
    return Schedules.of(b.job("j").build());
  }

  private static List<String> dueTimes(TaskSchedule s, Instant from, Instant to) {
    return s.dueBetween(from, to, 1_000).stream().map(d -> d.dueAt().toString()).toList();
  }

  @Test
  @DisplayName("the union of two crons fires both, in order; where they coincide, one firing and one window")
  void unionOfCrons() {
    // weekdays at 09:00, and the 1st of the month at 09:00: Friday 2027-01-01 is both
    TaskSchedule s = of(TaskSpec.builder("u").cron("0 0 9 ? * MON-FRI", "UTC").alsoCron("0 0 9 1 * ?")
        .window(WindowSpec.DAILY));
    List<DueWindow> due = s.dueBetween(Instant.parse("2026-12-31T12:00:00Z"), Instant.parse("2027-05-04T00:00:00Z"), 1_000);
    Set<String> keys = new HashSet<>();
    due.forEach(d -> assertTrue(keys.add(d.key().value()), "one window key per window: " + d.key()));
    assertEquals("2027-01-01T09:00:00Z", due.get(0).dueAt().toString(), "both crons at one instant: once");
    assertEquals("2027-01-04T09:00:00Z", due.get(1).dueAt().toString());
    assertTrue(keys.contains("2027-05-01"), "Saturday 1 May: the monthly cron alone");
    assertTrue(!keys.contains("2027-05-02"), "Sunday 2 May: neither");
    for (int i = 1; i < due.size(); i++) {
      assertTrue(due.get(i).dueAt().isAfter(due.get(i - 1).dueAt()));
    }
  }

  @Test
  @DisplayName("per-firing windows: two crons at one instant make one window, at different instants two")
  void unionPerFiring() {
    TaskSchedule s = of(TaskSpec.builder("u").cron("0 0 * * * ?", "Europe/Paris").alsoCron("0 0,30 9 * * ?")
        .window(WindowSpec.PER_FIRING));
    List<DueWindow> due = s.dueBetween(Instant.parse("2027-01-04T07:30:00Z"), Instant.parse("2027-01-04T09:00:00Z"), 100);
    // Paris is UTC+1 in January: 09:00 local (both crons) is 08:00Z, 09:30 local (the second) is 08:30Z
    assertEquals(List.of("2027-01-04T08:00:00Z", "2027-01-04T08:30:00Z", "2027-01-04T09:00:00Z"),
        due.stream().map(d -> d.dueAt().toString()).toList());
    assertEquals(3, due.stream().map(DueWindow::key).distinct().count());
  }

  @Test
  @DisplayName("no window is due outside the bounds; past the end the schedule never fires again")
  void bounds() {
    TaskSchedule s = of(TaskSpec.builder("b").cron("0 0 9 * * ?", "Asia/Shanghai").from("2027-01-01").until("2027-03-31"));
    List<String> due = dueTimes(s, Instant.parse("2026-12-01T00:00:00Z"), Instant.parse("2027-06-01T00:00:00Z"));
    assertEquals(90, due.size(), "1 January to 31 March 2027, both included");
    assertEquals("2027-01-01T01:00:00Z", due.get(0));
    assertEquals("2027-03-31T01:00:00Z", due.get(due.size() - 1));
    assertEquals(Optional.empty(), s.nextAfter(Instant.parse("2027-03-31T01:00:00Z")), "the trigger stops asking");
    assertEquals(Optional.empty(), s.nextFireAfter(Instant.parse("2030-01-01T00:00:00Z")));
    assertTrue(s.inBounds(Instant.parse("2027-03-31T15:59:59Z")), "31 March ends at midnight Shanghai");
    assertTrue(!s.inBounds(Instant.parse("2027-03-31T16:00:00Z")));
    assertTrue(!s.inBounds(Instant.parse("2026-12-31T15:59:59Z")));

    TaskSchedule instants = of(TaskSpec.builder("i").cron("0 0 * * * ?", "UTC").from("2027-01-01T10:00:00Z")
        .until("2027-01-01T12:00:00Z").window(WindowSpec.PER_FIRING));
    assertEquals(List.of("2027-01-01T10:00:00Z", "2027-01-01T11:00:00Z", "2027-01-01T12:00:00Z"),
        dueTimes(instants, Instant.parse("2027-01-01T00:00:00Z"), Instant.parse("2027-01-02T00:00:00Z")),
        "instant bounds are both included");
  }

  @Test
  @DisplayName("the jitter offset is SHA-256 of task id and window key modulo J: pinned, in [0, J), spread")
  void jitterFunction() {
    Duration j = Duration.ofMinutes(5);
    // pinned: a change of the function would move every jittered window of every stored task
    assertEquals(Jitter.offset("daily-digest", "2027-01-04", j), Jitter.offset("daily-digest", "2027-01-04", j));
    assertEquals(Duration.ofMillis(PINNED), Jitter.offset("daily-digest", "2027-01-04", j));
    assertEquals(Duration.ZERO, Jitter.offset("daily-digest", "2027-01-04", Duration.ZERO));
    long min = Long.MAX_VALUE;
    long max = 0;
    Set<Long> distinct = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      long ms = Jitter.offset("customer-" + i, "2027-01-04", j).toMillis();
      assertTrue(ms >= 0 && ms < j.toMillis(), "in [0, J): " + ms);
      min = Math.min(min, ms);
      max = Math.max(max, ms);
      distinct.add(ms / 1000);
    }
    assertTrue(min < 1_000 && max > j.toMillis() - 1_000, "10,000 tasks spread over the whole jitter: " + min + ".." + max);
    assertTrue(distinct.size() > 290, "about every second of 300 is used: " + distinct.size());
  }

  /** Jitter.offset("daily-digest", "2027-01-04", 5m) in milliseconds. */
  private static final long PINNED = 265_632L; // python3: int.from_bytes(sha256(b"daily-digest\n2027-01-04").digest()[:8], "big") % 300000

  @Test
  @DisplayName("with jitter a window fires at due + offset, its key and due time unchanged; next fire and firing windows follow")
  void jitteredFireTimes() {
    Duration j = Duration.ofHours(1);
    TaskSchedule s = of(TaskSpec.builder("spread").cron("0 0 9 * * ?", "UTC").jitter(j));
    DueWindow w = s.nextAfter(MON).orElseThrow();
    Duration offset = Jitter.offset("spread", w.key().value(), j);
    assertEquals(w.dueAt().plus(offset), s.fireAt(w));
    assertEquals("2027-01-04T09:00:00Z", w.dueAt().toString(), "the due time is the cron's");
    assertEquals("2027-01-04", w.key().value());
    // between its due time and its fire time it is still the next window to fire
    Instant between = w.dueAt().plus(offset.dividedBy(2));
    assertEquals(w, s.nextFireAfter(between).orElseThrow());
    assertEquals("2027-01-05", s.nextFireAfter(s.fireAt(w)).orElseThrow().key().value());
    // firing in (due, due + 1h]: the window if its offset is within, by fire time
    assertEquals(List.of(w), s.firingBetween(w.dueAt(), s.fireAt(w), 10));
    assertEquals(List.of(), s.firingBetween(s.fireAt(w), w.dueAt().plus(Duration.ofHours(23)), 10)
        .stream().filter(d -> d.key().equals(w.key())).toList());
    // without jitter: the due time
    TaskSchedule plain = of(TaskSpec.builder("plain").cron("0 0 9 * * ?", "UTC"));
    DueWindow p = plain.nextAfter(MON).orElseThrow();
    assertEquals(p.dueAt(), plain.fireAt(p));
    assertEquals(plain.dueBetween(MON, MON.plus(Duration.ofDays(9)), 100), plain.firingBetween(MON, MON.plus(Duration.ofDays(9)), 100));
  }

  @Test
  @DisplayName("a jitter equal to the interval keeps the windows in order of fire time")
  void jitterAtTheIntervalKeepsOrder() {
    TaskSchedule s = of(TaskSpec.builder("m").cron("0 * * * * ?", "UTC").window(WindowSpec.PER_FIRING)
        .jitter(Duration.ofMinutes(1)));
    List<DueWindow> due = s.dueBetween(MON, MON.plus(Duration.ofHours(3)), 1_000);
    for (int i = 1; i < due.size(); i++) {
      assertTrue(s.fireAt(due.get(i)).isAfter(s.fireAt(due.get(i - 1))), due.get(i).key().value());
    }
    List<DueWindow> firing = s.firingBetween(MON.plus(Duration.ofMinutes(30)), MON.plus(Duration.ofMinutes(90)), 1_000);
    for (DueWindow d : firing) {
      assertTrue(s.fireAt(d).isAfter(MON.plus(Duration.ofMinutes(30))) && !s.fireAt(d).isAfter(MON.plus(Duration.ofMinutes(90))));
    }
    assertEquals(60, firing.size());
  }
}
