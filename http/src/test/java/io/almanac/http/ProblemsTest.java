package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.AlmanacException;
import io.almanac.IllegalTransitionException;
import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.OverloadedException;
import io.almanac.PublishOutcomeUnknownException;
import io.almanac.RefusedException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.pattern.AskTimeoutException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How the Java API's failures map to problems, and the token check. */
class ProblemsTest {

  @Test
  @DisplayName("InvalidSpecException 400 with its field and value; UNKNOWN_TASK and UNKNOWN_WINDOW 404; "
      + "INVALID_ARGUMENT 400 with the field and value the refusal carries; other refusals and illegal transitions 409 with the "
      + "Java API's message; an ask timeout 503")
  void mapping() {
    Problem p = Problems.of(new CompletionException(new InvalidSpecException("windowKey", "", "must not be blank")), "t", "");
    assertEquals(400, p.status());
    assertEquals("windowKey", p.field());
    p = Problems.of(new RefusedException(RefusedException.Reason.UNKNOWN_TASK, "task 'x' is unknown"), "x", null);
    assertEquals(404, p.status());
    assertEquals("task", p.field());
    assertEquals("x", p.value());
    p = Problems.of(new RefusedException(RefusedException.Reason.UNKNOWN_WINDOW, "window 'w' is unknown"), "x", "w");
    assertEquals(404, p.status());
    assertEquals("window", p.field());
    p = Problems.of(RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "to", "2027-01-01T00:00:00Z",
        "a backfill covers past windows only"), "x", null);
    assertEquals(400, p.status());
    assertEquals("to '2027-01-01T00:00:00Z' is invalid: a backfill covers past windows only", p.detail());
    assertEquals("to", p.field());
    assertEquals("2027-01-01T00:00:00Z", p.value());
    // the field and the value are the refusal's data: its message is never parsed for them
    p = Problems.of(new RefusedException(RefusedException.Reason.INVALID_ARGUMENT,
        "to '2027-01-01T00:00:00Z' is invalid: a backfill covers past windows only"), "x", null);
    assertEquals(400, p.status());
    assertEquals(null, p.field());
    assertEquals(null, p.value());
    p = Problems.of(RefusedException.invalid(RefusedException.Reason.UNKNOWN_EVENT_TYPE, "type", "order.paid",
        "no registered task listens to this event type"), null, null);
    assertEquals(404, p.status());
    assertEquals("type", p.field());
    assertEquals("order.paid", p.value());
    p = Problems.of(new RefusedException(RefusedException.Reason.REMOVED, "task 'x' was removed"), "x", null);
    assertEquals(409, p.status());
    assertEquals("task 'x' was removed", p.detail());
    p = Problems.of(new IllegalTransitionException(InstanceStatus.SUCCEEDED, InstanceStatus.CANCELLED, "w"), "x", "w");
    assertEquals(409, p.status());
    assertEquals("illegal transition SUCCEEDED -> CANCELLED for window 'w'", p.detail());
    assertEquals("https://almanac.io/problems/refused", p.type());
    p = Problems.of(new CompletionException(new AlmanacException("no answer within the ask timeout: x",
        new AskTimeoutException("timed out"))), "x", null);
    assertEquals(503, p.status());
    assertEquals("https://almanac.io/problems/unavailable", p.type());
    String json = Problems.json(Problem.invalid("limit", "0", "must be between 1 and 500"));
    assertEquals("{\"type\":\"https://almanac.io/problems/invalid-input\",\"title\":\"Invalid input\",\"status\":400,"
        + "\"detail\":\"limit: 0 must be between 1 and 500\",\"field\":\"limit\",\"value\":\"0\"}", json);
  }

  @Test
  @DisplayName("an overloaded publish is a 429 'overloaded' naming the task (none when the trigger did not answer), with Retry-After in whole seconds rounded up; "
      + "a publish with an unknown outcome a 503 'outcome-unknown' whose detail says that sending it again is safe")
  void overloadAndUnknownOutcome() {
    Problem p = Problems.of(new CompletionException(new OverloadedException("order-sync", 100, Duration.ofMillis(1500))),
        null, null);
    assertEquals(429, p.status());
    assertEquals("https://almanac.io/problems/overloaded", p.type());
    assertEquals("task", p.field());
    assertEquals("order-sync", p.value());
    assertTrue(p.detail().contains("nothing was stored"), p.detail());
    HttpResponse r = Problems.response(p);
    assertEquals(Optional.of("2"), r.getHeader("Retry-After").map(h -> h.value()));
    assertEquals(1, Problems.retryAfterSeconds(Duration.ofMillis(10)));
    assertEquals(1, Problems.retryAfterSeconds(Duration.ofSeconds(1)));
    // refused before any task was reached (the trigger did not say who listens): a 429 too, naming no task
    p = Problems.of(new CompletionException(new OverloadedException("no answer from the trigger: nothing was stored",
        Duration.ofSeconds(1))), null, null);
    assertEquals(429, p.status());
    assertEquals(null, p.field());
    assertEquals(null, p.value());
    assertEquals(Optional.of("1"), Problems.response(p).getHeader("Retry-After").map(h -> h.value()));
    p = Problems.of(new CompletionException(new PublishOutcomeUnknownException("order.paid", "e1", List.of("order-sync"),
        List.of(), new java.util.concurrent.TimeoutException("Ask timed out"))), null, null);
    assertEquals(503, p.status());
    assertEquals("https://almanac.io/problems/outcome-unknown", p.type());
    assertTrue(p.detail().contains("publish it again with the same id"), p.detail());
    assertEquals(Optional.empty(), Problems.response(p).getHeader("Retry-After"));
  }

  @Test
  @DisplayName("the token: none configured refuses every call; a missing, non-Bearer or wrong one is refused; the "
      + "right one (scheme in any case) passes")
  void token() {
    ApiRoutes none = new ApiRoutes(null, f -> null, "", 10);
    assertTrue(none.refusal(Optional.of("Bearer ")).isPresent());
    assertTrue(none.refusal(Optional.empty()).isPresent());
    ApiRoutes set = new ApiRoutes(null, f -> null, "s3cret", 10);
    assertTrue(set.refusal(Optional.empty()).isPresent());
    assertTrue(set.refusal(Optional.of("s3cret")).isPresent());
    assertTrue(set.refusal(Optional.of("Basic s3cret")).isPresent());
    assertTrue(set.refusal(Optional.of("Bearer s3cre")).isPresent());
    assertTrue(set.refusal(Optional.of("Bearer s3cretx")).isPresent());
    assertEquals(Optional.empty(), set.refusal(Optional.of("Bearer s3cret")));
    assertEquals(Optional.empty(), set.refusal(Optional.of("bearer s3cret")));
  }

  @Test
  @DisplayName("almanac.http.max-backfill-windows: 1000 by default; a wrong value is refused naming the key and the value")
  void backfillCapSetting() {
    assertEquals(1000, AlmanacHttpTest.config("").getInt("almanac.http.max-backfill-windows"));
    InvalidSpecException zero = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class,
        () -> ApiRoutes.of(null, f -> null, AlmanacHttpTest.config("almanac.http.max-backfill-windows = 0")));
    assertEquals("almanac.http.max-backfill-windows '0' is invalid: must be >= 1", zero.getMessage());
    InvalidSpecException text = org.junit.jupiter.api.Assertions.assertThrows(InvalidSpecException.class,
        () -> ApiRoutes.of(null, f -> null, AlmanacHttpTest.config("almanac.http.max-backfill-windows = many")));
    assertEquals("almanac.http.max-backfill-windows 'many' is invalid: must be an integer", text.getMessage());
  }
}
