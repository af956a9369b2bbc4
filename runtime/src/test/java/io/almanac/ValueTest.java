package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The API's value classes compare, hash and print by their parts ({@link Parts}), as records would. */
class ValueTest {

  @Test
  @DisplayName("toString names every part in order, as a record prints them")
  void describesEveryPart() {
    assertEquals("LeasePolicy[floor=PT1M, ceiling=PT2H, factor=1.5, minSamples=20]", LeasePolicy.DEFAULT.toString());
    assertEquals("RetryPolicy[maxRetries=0, backoff=IMMEDIATE, delays=[], initialDelay=PT0S, multiplier=1.0, "
        + "maxDelay=PT0S, jitter=0.0, span=PT0S]", RetryPolicy.DEFAULT.toString());
    assertEquals("JobResult[outcome=FAILED, summary=, artifactUri=null, reason=down, retryAfter=null, pool=null, usage=null]",
        JobResult.failure("down").toString());
    assertEquals("IncomingEvent[type=order.paid, id=o-1, eventTime=2026-11-29T00:00:00Z, summary=null]",
        IncomingEvent.of("order.paid", "o-1").withEventTime(Instant.parse("2026-11-29T00:00:00Z")).toString());
    assertEquals("ConditionTrigger[name=settled, every=PT1M, timeout=PT10S, debounce=1, holdFor=PT0S, waitAtMost=null]",
        ConditionTrigger.named("settled").toString());
    assertEquals("DependencyTrigger[upstream=[export], require=ANY, mapping=SAME_WINDOW, waitAtMost=null, "
        + "missingUpstream=REJECT, onUpstreamRerun=KEEP]", DependencyTrigger.on("export").any().toString());
    assertEquals("TaskOutcome[taskId=t, window=2026-11-29, outcome=SCHEDULED, detail=created]",
        new PublishResult.TaskOutcome("t", new WindowKey("2026-11-29"), PublishResult.Outcome.SCHEDULED, "created")
            .toString());
    TaskSpec spec = TaskSpec.builder("daily").cron("0 0 8 * * ? Asia/Shanghai").job("j").build();
    assertTrue(spec.toString().startsWith("TaskSpec[id=daily, cron=0 0 8 * * ?, zone=Asia/Shanghai, window=daily, "),
        spec.toString());
    assertTrue(spec.toString().endsWith(", event=null, dependency=null, condition=null, pools=null, deadline=null, "
        + "pauseAfterFailures=null, budgetPerDay=null, alsoCrons=null, from=null, until=null, calendars=null, "
        + "jitter=null, onInterruption=null]"), spec.toString());
  }

  @Test
  @DisplayName("equal parts are equal values with equal hashes (Objects.hash of the parts); any other part or class is not")
  void equalityIsByParts() {
    LeasePolicy a = LeasePolicy.builder().factor(2.0).build();
    LeasePolicy b = LeasePolicy.builder().factor(2.0).build();
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertEquals(Objects.hash(a.floor(), a.ceiling(), a.factor(), a.minSamples()), a.hashCode());
    assertNotEquals(a, LeasePolicy.DEFAULT);
    assertNotEquals(a, null);
    assertNotEquals(JobResult.success("x"), JobResult.failure("x"));
    assertNotEquals((Object) JobResult.success("x"), IncomingEvent.of("x", "x"));
    assertEquals(RetryPolicy.delayed(Duration.ofMinutes(5)), RetryPolicy.delayed(Duration.ofMinutes(5)));
    assertNotEquals(RetryPolicy.delayed(Duration.ofMinutes(5)), RetryPolicy.delayed(Duration.ofMinutes(6)));
    assertEquals(DependencyTrigger.on("a", "b"), DependencyTrigger.on(List.of("a", "b").toArray(String[]::new)));
  }

  static final class Forgot {
    final String named = "n";
    final String forgotten = "f";
  }

  @Test
  @DisplayName("the parts must be exactly the class's instance fields, each once")
  void partsAreEveryField() {
    MethodHandles.Lookup lookup = lookupIn(Forgot.class);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> Parts.of(lookup, "named"));
    assertTrue(e.getMessage().contains("[forgotten, named]"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> Parts.of(lookup, "named", "forgotten", "named"));
    assertThrows(IllegalStateException.class, () -> Parts.of(lookup, "named", "forgotten", "other"));
    assertEquals("Forgot[named=n, forgotten=f]", Parts.of(lookup, "named", "forgotten").describe(new Forgot()));
  }

  private static MethodHandles.Lookup lookupIn(Class<?> type) {
    try {
      return MethodHandles.privateLookupIn(type, MethodHandles.lookup());
    } catch (IllegalAccessException e) {
      throw new AssertionError(e);
    }
  }
}
