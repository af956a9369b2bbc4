package io.almanac.schedule;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.almanac.CronSchedule;
import io.almanac.DstPolicy;
import io.almanac.WindowKey;
import io.almanac.WindowSpec;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Property (R1, R3, R4): iterating {@link TaskSchedule#nextAfter} over all of 2026 gives strictly
 * increasing instants, a window once left never comes back, and where the cron fires at most once
 * per window, no window key repeats at all, in zones with 1-hour, 30-minute and no DST.
 */
class ScheduleMonotonicityTest {

  private static final Instant START = Instant.parse("2025-12-31T00:00:00Z");
  private static final Instant END = Instant.parse("2027-01-02T00:00:00Z");
  private static final List<String> ZONES =
      List.of("America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Shanghai", "UTC");
  private static final DstPolicy SKIP_LAST = new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.LAST);
  private static final DstPolicy BOTH = new DstPolicy(DstPolicy.Gap.SHIFT, DstPolicy.Overlap.BOTH);

  static Stream<Arguments> cases() {
    Stream.Builder<Arguments> cases = Stream.builder();
    for (String zone : ZONES) {
      // cron, window spec, policy, fires at most once per window
      cases.add(Arguments.of("0 */7 * * * ?", zone, WindowSpec.HOURLY, DstPolicy.DEFAULT, false));
      for (DstPolicy policy : List.of(DstPolicy.DEFAULT, SKIP_LAST, BOTH)) {
        cases.add(Arguments.of("0 30 1,2,3 * * ?", zone, WindowSpec.HOURLY, policy, true));
        cases.add(Arguments.of("0 30 1,2,3 * * ?", zone, WindowSpec.DAILY, policy, false));
        cases.add(Arguments.of("0 0 8 * * ? ", zone, WindowSpec.DAILY, policy, true));
      }
    }
    return cases.build();
  }

  @ParameterizedTest(name = "R1 R3 R4 ''{0}'' {1} {2} {3}: increasing instants, no window key repeats")
  @MethodSource("cases")
  void increasingAndNoRepeatedWindow(
      String cron, String zone, WindowSpec windows, DstPolicy policy, boolean oncePerWindow) {
    TaskSchedule schedule = new TaskSchedule(CronSchedule.parse(cron, zone), policy, windows);
    Set<WindowKey> closed = new HashSet<>();
    WindowKey current = null;
    Instant previous = START;
    int count = 0;
    while (true) {
      Optional<DueWindow> next = schedule.nextAfter(previous);
      if (next.isEmpty()) {
        fail("schedule ended at " + previous);
      }
      DueWindow due = next.get();
      if (due.dueAt().isAfter(END)) {
        break;
      }
      assertTrue(due.dueAt().isAfter(previous), () -> "not increasing at " + due);
      if (!due.key().equals(current)) {
        if (current != null) {
          closed.add(current);
        }
        current = due.key();
        WindowKey key = current;
        assertTrue(!closed.contains(key), () -> "window " + key + " came back at " + due.dueAt());
      } else if (oncePerWindow) {
        fail("window " + current + " fired twice, again at " + due.dueAt());
      }
      assertTrue(!due.window().end().isBefore(due.window().start()));
      previous = due.dueAt();
      count++;
    }
    assertTrue(count > 360, "fired " + count + " times");
  }
}
