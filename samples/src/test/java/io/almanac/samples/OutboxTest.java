package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.almanac.EffectLedger;
import io.almanac.EffectOutcomeUnknownException;
import io.almanac.JobContext;
import io.almanac.RunKind;
import io.almanac.WindowKey;
import io.almanac.testkit.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbox's push through the effect ledger when an earlier attempt died between starting the
 * push and recording it (kill -9): the ledger cannot tell, so the outbox file decides.
 */
class OutboxTest {

  private static final Duration WAIT = Duration.ofSeconds(5);

  @Test
  void unknownOutcomeFoundInTheOutboxIsRecordedNotPushedAgain(@TempDir Path dir) throws Exception {
    Outbox outbox = Outbox.in(dir, new SettableClock(Instant.parse("2026-11-29T00:00:00Z")));
    String earlier = Outbox.await(outbox.push("t/w1", "push:outbox", 1, "hello"), WAIT);
    FakeContext ctx = new FakeContext("t", "w1", true);

    assertEquals(earlier, outbox.pushOnce(ctx, "push:outbox", "hello", WAIT));
    assertEquals(Map.of("push:outbox", earlier), ctx.recorded);
    assertEquals(1, outbox.lines().size(), "not pushed again");
  }

  @Test
  void unknownOutcomeMissingFromTheOutboxIsPushedOnceAndRecorded(@TempDir Path dir) throws Exception {
    Outbox outbox = Outbox.in(dir, new SettableClock(Instant.parse("2026-11-29T00:00:00Z")));
    FakeContext ctx = new FakeContext("t", "w2", true);

    String id = outbox.pushOnce(ctx, "push:outbox", "hello", WAIT);
    assertEquals(Map.of("push:outbox", id), ctx.recorded);
    assertEquals(1, outbox.lines().size());
    assertEquals(Optional.of(id), outbox.find("t/w2", "push:outbox"));
  }

  @Test
  void recordedEffectIsNotPushedAgain(@TempDir Path dir) throws Exception {
    Outbox outbox = Outbox.in(dir, new SettableClock(Instant.parse("2026-11-29T00:00:00Z")));
    FakeContext ctx = new FakeContext("t", "w3", false);

    String first = outbox.pushOnce(ctx, "push:outbox", "hello", WAIT);
    String second = outbox.pushOnce(ctx, "push:outbox", "hello", WAIT);
    assertEquals(first, second);
    assertEquals(1, outbox.lines().size());
  }

  /** A context whose ledger behaves like Almanac's, optionally with the key's outcome unknown. */
  private static final class FakeContext implements JobContext, EffectLedger {
    final String task;
    final String window;
    boolean unknown;
    final Map<String, String> recorded = new HashMap<>();

    FakeContext(String task, String window, boolean unknown) {
      this.task = task;
      this.window = window;
      this.unknown = unknown;
    }

    @Override
    public Optional<String> recorded(String key) {
      return Optional.ofNullable(recorded.get(key));
    }

    @Override
    public CompletionStage<String> once(String key, Supplier<CompletionStage<String>> effect) {
      if (recorded.containsKey(key)) {
        return CompletableFuture.completedFuture(recorded.get(key));
      }
      if (unknown) {
        return CompletableFuture.failedFuture(new EffectOutcomeUnknownException(task, window, key));
      }
      return effect.get().thenApply(v -> {
        recorded.put(key, v);
        return v;
      });
    }

    @Override
    public CompletionStage<String> record(String key, String value) {
      recorded.putIfAbsent(key, value);
      unknown = false;
      return CompletableFuture.completedFuture(recorded.get(key));
    }

    @Override
    public String taskId() {
      return task;
    }

    @Override
    public WindowKey window() {
      return WindowKey.of(window);
    }

    @Override
    public Instant windowStart() {
      return Instant.EPOCH;
    }

    @Override
    public Instant windowEnd() {
      return Instant.EPOCH;
    }

    @Override
    public Instant scheduledAt() {
      return Instant.EPOCH;
    }

    @Override
    public ZoneId zone() {
      return ZoneOffset.UTC;
    }

    @Override
    public int attempt() {
      return 2;
    }

    @Override
    public RunKind runKind() {
      return RunKind.RETRY;
    }

    @Override
    public String idempotencyKey() {
      return task + "/" + window;
    }

    @Override
    public Instant deadline() {
      return Instant.MAX;
    }

    @Override
    public CompletionStage<Instant> heartbeat() {
      return CompletableFuture.completedFuture(Instant.MAX);
    }

    @Override
    public boolean holdsLease() {
      return true;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public CompletionStage<Void> cancellation() {
      return new CompletableFuture<>();
    }

    @Override
    public EffectLedger ledger() {
      return this;
    }

    @Override
    public io.almanac.JobLog log() {
      return new io.almanac.JobLog() {
        @Override
        public void info(String format, Object... args) {}

        @Override
        public void warn(String format, Object... args) {}

        @Override
        public void error(String format, Object... args) {}
      };
    }

    @Override
    public void progress(double fraction, String text) {}
  }
}
