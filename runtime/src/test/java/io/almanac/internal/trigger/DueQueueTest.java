package io.almanac.internal.trigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.TaskSpec;
import io.almanac.Window;
import io.almanac.WindowSpec;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.journal.SpecRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The trigger's due queue, without an actor: time is passed in, set-asides are collected. */
class DueQueueTest {

  static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  static final Duration GRACE = Duration.ofSeconds(60);

  /** Counts the windows computed: each next firing of a task computes one. */
  static final AtomicLong COMPUTED = new AtomicLong();

  static final WindowSpec COUNTING = new WindowSpec() {
    @Override
    public String name() {
      return "due-queue-test-counting";
    }

    @Override
    public Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone) {
      COMPUTED.incrementAndGet();
      return WindowSpec.PER_FIRING.windowOf(nominal, firedAt, zone);
    }
  };

  /** A user's window spec with a bug: it throws for firings from T0 + 1 h on. */
  static final WindowSpec BREAKS_LATER = new WindowSpec() {
    @Override
    public String name() {
      return "due-queue-test-breaks-later";
    }

    @Override
    public Window windowOf(LocalDateTime nominal, Instant firedAt, ZoneId zone) {
      if (!firedAt.isBefore(T0.plus(Duration.ofHours(1)))) {
        throw new IllegalStateException("no window for " + firedAt);
      }
      return WindowSpec.PER_FIRING.windowOf(nominal, firedAt, zone);
    }
  };

  static {
    WindowSpec.register(COUNTING);
    WindowSpec.register(BREAKS_LATER);
  }

  private final List<String> setAside = new ArrayList<>();

  private DueQueue queue(int maxCatchUpPerTask, Duration grace) {
    return new DueQueue(maxCatchUpPerTask, grace, (taskId, cause) -> setAside.add(taskId + ": " + cause.getMessage()));
  }

  private static SpecRecord spec(String id, String cron) {
    return spec(id, cron, "per-firing");
  }

  private static SpecRecord spec(String id, String cron, String window) {
    return SpecRecord.of(TaskSpec.builder(id).cron(cron + " UTC").window(window).build());
  }

  private static String at(long seconds) {
    return T0.plusSeconds(seconds).toString();
  }

  /** The fires of every step due at {@code now}, as "task KIND window" (a wake-up as "task WAKE"). */
  private static List<String> drain(DueQueue queue, Instant now) {
    List<String> taken = new ArrayList<>();
    DueQueue.Step step;
    while ((step = queue.next(now)) != null) {
      if (step.wake()) {
        taken.add(step.taskId() + " WAKE");
      }
      for (FireKey f : step.fires()) {
        taken.add(f.taskId() + " " + f.kind() + " " + (f.batch() == null ? f.window()
            : f.batch().stream().map(d -> d.key().value()).toList().toString()));
      }
    }
    return taken;
  }

  @Test
  @DisplayName("entries are taken by due instant, whatever the order the tasks were registered in")
  void takesEntriesByDueInstant() {
    DueQueue queue = queue(1000, Duration.ofDays(1));
    queue.register(spec("c", "0 45 * * * ?"), null, T0, T0);
    queue.register(spec("a", "0 15 * * * ?"), null, T0, T0);
    queue.register(spec("b", "0 30 * * * ?"), null, T0, T0);
    assertEquals("a", queue.head().taskId());
    assertEquals(T0.plus(Duration.ofMinutes(15)), queue.head().at());
    assertEquals(List.of("a ON_TIME " + at(900), "b ON_TIME " + at(1800), "c ON_TIME " + at(2700)),
        drain(queue, T0.plus(Duration.ofMinutes(50))));
  }

  @Test
  @DisplayName("entries due at the same instant are taken in the order they were queued")
  void tiesInQueueOrder() {
    DueQueue queue = queue(1000, GRACE);
    for (String id : List.of("z", "x", "y")) {
      queue.register(spec(id, "0 0 * * * ?"), null, T0, T0);
    }
    queue.reportWakes("x", T0.plus(Duration.ofHours(1)), 1);
    assertEquals(List.of("z ON_TIME " + at(3600), "x ON_TIME " + at(3600), "y ON_TIME " + at(3600), "x WAKE"),
        drain(queue, T0.plus(Duration.ofHours(1))));
  }

  @Test
  @DisplayName("R25: the heartbeat names the earliest entry with its local time in the task's zone")
  void describesTheHead() {
    DueQueue queue = queue(1000, GRACE);
    assertEquals("nothing", queue.describeHead());
    queue.register(SpecRecord.of(TaskSpec.builder("a").cron("0 0 12 * * ? Europe/Paris").window("daily").build()), null, T0, T0);
    assertEquals("'a' window 2026-11-29 at 2026-11-29T11:00:00Z (2026-11-29T12:00 Europe/Paris)", queue.describeHead());
    queue.reportWakes("a", T0.plusSeconds(5), 1);
    assertEquals("'a' wake-up at " + at(5) + " (2026-11-29T01:00:05 Europe/Paris)", queue.describeHead());
  }

  @Test
  @DisplayName("nothing is taken before it is due")
  void nothingBeforeItIsDue() {
    DueQueue queue = queue(1000, GRACE);
    queue.register(spec("a", "0 0 * * * ?"), null, T0, T0);
    assertNull(queue.next(T0.plus(Duration.ofHours(1)).minusNanos(1)));
    assertEquals(1, queue.size());
  }

  @Test
  @DisplayName("a firing taken is replaced by the task's next one: one entry per task, each window once")
  void reschedulesAfterAFire() {
    DueQueue queue = queue(1000, GRACE);
    queue.register(spec("a", "0 */5 * * * ?"), null, T0, T0);
    assertEquals(List.of("a ON_TIME " + at(300)), drain(queue, T0.plusSeconds(300)));
    assertEquals(1, queue.size());
    assertEquals(T0.plusSeconds(600), queue.head().at());
    assertEquals(List.of("a ON_TIME " + at(600)), drain(queue, T0.plusSeconds(600)));
  }

  @Test
  @DisplayName("a tick late within the on-time grace fires every window due meanwhile, each once, in order")
  void lateTickWithinTheGrace() {
    DueQueue queue = queue(1000, Duration.ofMinutes(10));
    queue.register(spec("a", "0 * * * * ?"), null, T0, T0);
    assertEquals(List.of("a ON_TIME " + at(60), "a ON_TIME " + at(120), "a ON_TIME " + at(180)),
        drain(queue, T0.plusSeconds(190)));
    assertEquals(T0.plusSeconds(240), queue.head().at());
  }

  @Test
  @DisplayName("the clock stepped forward beyond the grace: the windows due since are planned as after downtime, "
      + "the latest on time, the older ones in one catch-up; the next firing is after now")
  void clockStepsForward() {
    DueQueue queue = queue(1000, GRACE);
    queue.register(spec("a", "0 */5 * * * ?"), null, T0, T0);
    Instant now = T0.plusSeconds(30 * 60 + 30);
    DueQueue.Step step = queue.next(now);
    assertEquals(T0.plusSeconds(300), step.behind().since());
    assertEquals(1, step.behind().plan().onTime().size());
    assertEquals(5, step.behind().plan().catchUp().size());
    assertEquals(2, step.fires().size());
    // the catch-up first: the task decides its older windows before its on-time one (docs/skip-ranges.md)
    assertEquals(TaskProtocol.FireKind.CATCH_UP, step.fires().get(0).kind());
    assertEquals("catch-up " + at(300) + " .. " + at(1500), step.fires().get(0).window());
    assertEquals(T0.plusSeconds(300), step.fires().get(0).dueAt(), "the batch holds the watermark at its earliest");
    assertEquals(TaskProtocol.FireKind.ON_TIME, step.fires().get(1).kind());
    assertEquals(at(1800), step.fires().get(1).window());
    assertNull(queue.next(now));
    assertEquals(T0.plusSeconds(35 * 60), queue.head().at());
  }

  @Test
  @DisplayName("behind a schedule by more windows than max-catch-up-per-task: only the latest are handed over")
  void clockStepForwardIsCapped() {
    DueQueue queue = queue(3, GRACE);
    queue.register(spec("a", "0 */5 * * * ?"), null, T0, T0);
    DueQueue.Step step = queue.next(T0.plusSeconds(30 * 60));
    assertEquals(List.of(T0.plusSeconds(1800)), step.behind().plan().onTime().stream().map(w -> w.dueAt()).toList());
    assertEquals(List.of(T0.plusSeconds(1200), T0.plusSeconds(1500)),
        step.behind().plan().catchUp().stream().map(w -> w.dueAt()).toList());
  }

  @Test
  @DisplayName("the clock stepped back: nothing is due until it reaches the queued firing again; no window fires twice")
  void clockStepsBack() {
    DueQueue queue = queue(1000, GRACE);
    queue.register(spec("a", "0 */5 * * * ?"), null, T0, T0);
    assertEquals(List.of("a ON_TIME " + at(300)), drain(queue, T0.plusSeconds(300)));
    assertEquals(List.of(), drain(queue, T0.minus(Duration.ofMinutes(10))));
    assertEquals(List.of(), drain(queue, T0.plusSeconds(300)));
    assertEquals(List.of("a ON_TIME " + at(600)), drain(queue, T0.plusSeconds(600)));
  }

  @Test
  @DisplayName("a task's wake-up is replaced in place; an older report is ignored, null removes it, an unknown task is ignored")
  void wakeUps() {
    DueQueue queue = queue(1000, GRACE);
    queue.register(spec("a", "0 0 12 * * ?"), null, T0, T0);
    assertTrue(queue.reportWakes("a", T0.plusSeconds(30), 5));
    assertTrue(queue.reportWakes("a", T0.plusSeconds(20), 6));
    assertEquals(2, queue.size(), "its firing and one wake-up");
    assertFalse(queue.reportWakes("a", T0.plusSeconds(10), 4), "overtaken by a later report");
    assertEquals(T0.plusSeconds(20), queue.head().at());
    assertFalse(queue.reportWakes("unknown", T0, 1));
    assertTrue(queue.reportWakes("a", null, 7));
    assertEquals(1, queue.size());
    queue.reportWakes("a", T0.plusSeconds(20), 8);
    assertEquals(List.of("a WAKE"), drain(queue, T0.plusSeconds(20)));
    assertEquals(1, queue.size(), "a wake-up taken is gone");
  }

  @Test
  @DisplayName("a wake-up not acknowledged is retried, unless an earlier one is queued")
  void wakeRetries() {
    DueQueue queue = queue(1000, GRACE);
    queue.register(spec("a", "0 0 12 * * ?"), null, T0, T0);
    queue.retryWake("a", T0.plusSeconds(5));
    assertEquals(T0.plusSeconds(5), queue.head().at());
    queue.retryWake("a", T0.plusSeconds(9));
    assertEquals(T0.plusSeconds(5), queue.head().at(), "the earlier one stays");
    queue.retryWake("a", T0.plusSeconds(2));
    assertEquals(T0.plusSeconds(2), queue.head().at());
    assertEquals(2, queue.size());
    queue.retryWake("removed", T0);
    assertEquals(2, queue.size());
  }

  @Test
  @DisplayName("a removed task's firing, wake-up and recovery fires go, and nothing else")
  void removal() {
    DueQueue queue = queue(1000, GRACE);
    Instant now = T0.plusSeconds(610);
    queue.recover(List.of(spec("a", "0 */5 * * * ?"), spec("b", "0 */5 * * * ?")), List.of("a"), T0, now, false);
    assertEquals(7, queue.size(), "per task its firing, an on-time fire and a catch-up; a's wake-up");
    assertTrue(queue.remove("a"));
    assertFalse(queue.contains("a"));
    assertEquals(3, queue.size());
    assertEquals(List.of("b CATCH_UP [" + at(300) + "]", "b ON_TIME " + at(600)), drain(queue, now));
    assertFalse(queue.remove("a"), "not registered any more");
    assertEquals(List.of("b ON_TIME " + at(900)), drain(queue, T0.plusSeconds(900)));
  }

  @Test
  @DisplayName("Principle 8: a task whose schedule throws is set aside once, its entries go, every other task goes on; "
      + "a changed spec brings it back")
  void scheduleThatThrows() {
    DueQueue queue = queue(1000, GRACE);
    queue.register(spec("broken", "0 0 * * * ?", BREAKS_LATER.name()), null, T0.minusSeconds(1), T0.minusSeconds(1));
    queue.register(spec("healthy", "0 0 * * * ?"), null, T0.minusSeconds(1), T0.minusSeconds(1));
    queue.reportWakes("broken", T0.plus(Duration.ofHours(5)), 1);
    // broken's window at T0 computes; its next one (T0 + 1 h) throws
    assertEquals(List.of("broken ON_TIME " + at(0), "healthy ON_TIME " + at(0)), drain(queue, T0));
    assertEquals(1, setAside.size());
    assertTrue(setAside.get(0).startsWith("broken: ") && setAside.get(0).contains("no window for " + at(3600)), setAside::toString);
    assertEquals(1, queue.size(), "its firing and its wake-up went");
    assertTrue(queue.reportWakes("broken", T0.plus(Duration.ofHours(2)), 2));
    assertEquals(1, queue.size(), "a task set aside is not woken");
    for (int h = 1; h <= 3; h++) {
      assertEquals(List.of("healthy ON_TIME " + at(3600L * h)), drain(queue, T0.plus(Duration.ofHours(h))));
    }
    assertEquals(1, setAside.size(), "told once, not once per tick");

    queue.register(spec("broken", "0 0 * * * ?"), spec("broken", "0 0 * * * ?", BREAKS_LATER.name()),
        T0.plus(Duration.ofHours(3)), T0.plus(Duration.ofHours(3)));
    assertEquals(List.of("healthy ON_TIME " + at(4 * 3600), "broken ON_TIME " + at(4 * 3600)),
        drain(queue, T0.plus(Duration.ofHours(4))));
  }

  @Test
  @DisplayName("a task whose next firing throws at registration is set aside there and queues nothing")
  void setAsideAtRegistration() {
    DueQueue queue = queue(1000, GRACE);
    Instant late = T0.plus(Duration.ofHours(2));
    assertNull(queue.register(spec("broken", "0 0 * * * ?", BREAKS_LATER.name()), null, late, late));
    assertEquals(1, setAside.size());
    assertEquals(0, queue.size());
    assertTrue(queue.contains("broken"), "still registered: set aside, not removed");
  }

  @Test
  @DisplayName("with 10,000 tasks queued, a tick takes only what is due: one schedule computed per due window")
  void onlyTheDueAreVisited() {
    DueQueue queue = queue(1000, GRACE);
    for (int i = 0; i < 10_000; i++) {
      queue.register(spec("noon-" + i, "0 0 12 * * ?", COUNTING.name()), null, T0, T0);
    }
    queue.register(spec("minutely", "0 * * * * ?", COUNTING.name()), null, T0, T0);
    assertEquals(10_001, queue.size());
    COMPUTED.set(0);
    assertEquals(List.of("minutely ON_TIME " + at(60)), drain(queue, T0.plusSeconds(60)));
    assertEquals(1, COMPUTED.get(), "the due task's next firing, nothing for the others");
    assertEquals(List.of("minutely ON_TIME " + at(120)), drain(queue, T0.plusSeconds(120)));
    assertEquals(2, COMPUTED.get());
    assertEquals(10_001, queue.size());
  }

  @Test
  @DisplayName("R12 R11: after downtime, per task the older windows go first in one catch-up, then the latest recent window "
      + "fires on time (a skip range left open closes before the windows handed over); tasks with active windows are woken")
  void recoveryAfterDowntime() {
    DueQueue queue = queue(1000, GRACE);
    Instant now = T0.plusSeconds(20 * 60 + 10);
    DueQueue.Recovered r = queue.recover(List.of(spec("a", "0 */5 * * * ?"), spec("b", "0 */10 * * * ?")), List.of("b", "gone"),
        T0, now, false);
    assertEquals(new DueQueue.Recovered(2, 4, 0), r);
    assertEquals(List.of("a CATCH_UP " + List.of(at(300), at(600), at(900)), "a ON_TIME " + at(1200),
        "b CATCH_UP " + List.of(at(600)), "b ON_TIME " + at(1200), "b WAKE"), drain(queue, now));
    assertEquals(List.of("a ON_TIME " + at(1500)), drain(queue, T0.plusSeconds(1500)));
  }

  @Test
  @DisplayName("R28: after downtime only the latest max-catch-up-per-task windows are handed over; the task is counted")
  void recoveryIsCapped() {
    DueQueue queue = queue(2, GRACE);
    Instant now = T0.plusSeconds(20 * 60 + 10);
    assertEquals(new DueQueue.Recovered(1, 1, 1), queue.recover(List.of(spec("a", "0 */5 * * * ?")), List.of(), T0, now, false));
    assertEquals(List.of("a CATCH_UP " + List.of(at(900)), "a ON_TIME " + at(1200)), drain(queue, now));
  }

  @Test
  @DisplayName("R12: after a planned hand-over every window within the grace fires on time")
  void recoveryAfterHandOver() {
    DueQueue queue = queue(1000, Duration.ofMinutes(10));
    Instant now = T0.plusSeconds(20 * 60 + 10);
    assertEquals(new DueQueue.Recovered(2, 2, 0), queue.recover(List.of(spec("a", "0 */5 * * * ?")), List.of(), T0, now, true));
    assertEquals(List.of("a CATCH_UP " + List.of(at(300), at(600)), "a ON_TIME " + at(900), "a ON_TIME " + at(1200)),
        drain(queue, now));
  }

  @Test
  @DisplayName("R14: a one-shot registered after its instant is planned like a missed window, once; before it, it is queued")
  void oneShotRegisteredLate() {
    DueQueue queue = queue(1000, GRACE);
    SpecRecord recent = SpecRecord.of(TaskSpec.builder("recent").once(T0.minusSeconds(30)).build());
    CatchUpPlan plan = queue.register(recent, null, T0, T0);
    assertEquals(List.of(T0.minusSeconds(30)), plan.onTime().stream().map(w -> w.dueAt()).toList());
    SpecRecord old = SpecRecord.of(TaskSpec.builder("old").once(T0.minus(Duration.ofDays(3))).build());
    assertEquals(1, queue.register(old, null, T0, T0).catchUp().size());
    SpecRecord changed = SpecRecord.of(TaskSpec.builder("old").once(T0.minus(Duration.ofDays(3))).description("x").build());
    assertNull(queue.register(changed, old, T0, T0), "the same instant again is not a new window");
    assertEquals(0, queue.size());
    SpecRecord later = SpecRecord.of(TaskSpec.builder("later").once(T0.plusSeconds(10)).build());
    assertNull(queue.register(later, null, T0, T0));
    assertEquals(List.of("later ON_TIME " + at(10)), drain(queue, T0.plusSeconds(10)));
    assertEquals(0, queue.size(), "fired once, then no longer queued");
  }
}
