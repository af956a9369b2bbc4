package io.almanac.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EventuallyTest {

  @Test
  void retriesUntilTheAssertionHolds() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    Eventually.eventually(Duration.ofSeconds(10), () -> {
      int n = tries.incrementAndGet();
      if (n == 1) {
        throw new AssertionError("not yet");
      }
      if (n == 2) {
        throw new IllegalStateException("not there yet");
      }
    });
    assertEquals(3, tries.get());
  }

  @Test
  void failsWithTheLastFailureAtTheDeadline() {
    AssertionError e = assertThrows(AssertionError.class,
        () -> Eventually.eventually(Duration.ofMillis(60), () -> {
          throw new AssertionError("expected 5 but was 4");
        }));
    assertTrue(e.getMessage().startsWith("still failing after PT0.06S: expected 5 but was 4"), e.getMessage());
  }

  @Test
  void aCheckedExceptionEndsTheWaitAtOnce() {
    IOException io = new IOException("database gone");
    AtomicInteger tries = new AtomicInteger();
    assertSame(io, assertThrows(IOException.class, () -> Eventually.eventually(Duration.ofSeconds(10), () -> {
      tries.incrementAndGet();
      throw io;
    })));
    assertEquals(1, tries.get());
  }
}
