package io.almanac.internal.trigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.Firing;
import io.almanac.RefusedException;
import io.almanac.Window;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.schedule.DueWindow;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** At-least-once delivery of the trigger's fires, without an actor. */
class InFlightFiresTest {

  static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private static DueWindow window(Instant at) {
    return new DueWindow(new Window(WindowKey.of(at.toString()), at, at), new Firing(at.atOffset(ZoneOffset.UTC).toLocalDateTime(), at));
  }

  private static FireKey onTime(String task, Instant at) {
    return FireKey.of(task, window(at), TaskProtocol.FireKind.ON_TIME, null);
  }

  @Test
  @DisplayName("R5: a fire of a window already in flight is not sent again")
  void oneFirePerWindowInFlight() {
    InFlightFires fires = new InFlightFires();
    assertTrue(fires.add(onTime("a", T0)));
    assertFalse(fires.add(onTime("a", T0)));
    assertTrue(fires.add(onTime("b", T0)), "another task's window");
    assertEquals(2, fires.size());
    fires.done(onTime("a", T0));
    assertFalse(fires.contains(onTime("a", T0)));
    assertTrue(fires.add(onTime("a", T0)), "once done, a fire of it may be sent again");
  }

  @Test
  @DisplayName("the earliest due instant in flight holds the watermark back until its fire is done")
  void earliestDueInFlight() {
    InFlightFires fires = new InFlightFires();
    assertNull(fires.earliestDue());
    fires.add(onTime("a", T0.plusSeconds(10)));
    fires.add(onTime("b", T0));
    fires.add(onTime("c", T0));
    assertEquals(T0, fires.earliestDue());
    fires.done(onTime("b", T0));
    assertEquals(T0, fires.earliestDue(), "c is still in flight");
    fires.done(onTime("c", T0));
    assertEquals(T0.plusSeconds(10), fires.earliestDue());
    fires.done(onTime("c", T0));
    assertEquals(T0.plusSeconds(10), fires.earliestDue(), "a second answer changes nothing");
  }

  @Test
  @DisplayName("a catch-up batch is one fire, named by its first and last windows, held at its earliest")
  void catchUpBatch() {
    List<DueWindow> batch = List.of(window(T0), window(T0.plusSeconds(60)));
    FireKey key = FireKey.of("a", batch.get(0), TaskProtocol.FireKind.CATCH_UP, batch);
    assertEquals("catch-up " + T0 + " .. " + T0.plusSeconds(60), key.window());
    assertEquals(T0, key.dueAt());
    assertEquals(2, key.dueFires().size());
    InFlightFires fires = new InFlightFires();
    assertTrue(fires.add(key));
    assertTrue(fires.add(onTime("a", T0)), "the window alone is another fire");
  }

  @Test
  @DisplayName("sends are counted, retries included")
  void sendsCounted() {
    InFlightFires fires = new InFlightFires();
    fires.sent();
    fires.sent();
    assertEquals(2, fires.sentCount());
  }

  @Test
  @DisplayName("an answer with an outcome ends the fire")
  void acknowledged() {
    InFlightFires.Answer a = InFlightFires.Answer.of("SCHEDULED (FIRST)", null);
    assertEquals(InFlightFires.Answer.ACKNOWLEDGED, a);
    assertTrue(a.done());
    assertFalse(a.retried());
    assertEquals("acknowledged", a.meter());
  }

  @Test
  @DisplayName("R31: a refusal because the task was removed ends the fire")
  void refusedRemoved() {
    InFlightFires.Answer a = InFlightFires.Answer.of(null, new RefusedException(RefusedException.Reason.REMOVED, "removed"));
    assertEquals(InFlightFires.Answer.REMOVED, a);
    assertTrue(a.done());
    assertEquals("refused", a.meter());
  }

  @Test
  @DisplayName("a refusal by a task without a spec ends the fire")
  void refusedUnknownTask() {
    InFlightFires.Answer a = InFlightFires.Answer.of(null, new RefusedException(RefusedException.Reason.UNKNOWN_TASK, "?"));
    assertEquals(InFlightFires.Answer.UNKNOWN_TASK, a);
    assertTrue(a.done());
    assertEquals("refused", a.meter());
  }

  @Test
  @DisplayName("R5: any other refusal is retried, counted as refused")
  void otherRefusalRetried() {
    InFlightFires.Answer a = InFlightFires.Answer.of(null, new RefusedException(RefusedException.Reason.CONFLICT, "busy"));
    assertEquals(InFlightFires.Answer.REFUSED_RETRIED, a);
    assertTrue(a.retried());
    assertFalse(a.done());
    assertEquals("refused", a.meter());
  }

  @Test
  @DisplayName("R5: no answer (a timeout) is retried, counted as unanswered")
  void unansweredRetried() {
    InFlightFires.Answer a = InFlightFires.Answer.of(null, new TimeoutException("ask timed out"));
    assertEquals(InFlightFires.Answer.UNANSWERED, a);
    assertTrue(a.retried());
    assertFalse(a.done());
    assertEquals("unanswered", a.meter());
  }

  @Test
  @DisplayName("the end of a retry delay is no answer: not counted, the fire stays in flight")
  void retryDue() {
    InFlightFires.Answer a = InFlightFires.Answer.of(null, null);
    assertEquals(InFlightFires.Answer.RETRY_DUE, a);
    assertNull(a.meter());
    assertFalse(a.done());
    assertFalse(a.retried());
  }
}
