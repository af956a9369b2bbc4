package io.almanac.internal.executor;

import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket on the injected clock: {@code rate} tokens per second, at most {@code burst}
 * held. Not thread-safe (used inside one actor). INTERNAL API.
 */
final class TokenBucket {
  private final double rate;
  private final double burst;
  private double tokens;
  private Instant last;

  TokenBucket(double rate, int burst, Instant now) {
    this.rate = rate;
    this.burst = burst;
    this.tokens = burst;
    this.last = now;
  }

  private void refill(Instant now) {
    if (now.isAfter(last)) {
      double seconds = Duration.between(last, now).toNanos() / 1e9;
      tokens = Math.min(burst, tokens + seconds * rate);
      last = now;
    }
  }

  boolean available(Instant now) {
    refill(now);
    return tokens >= 1.0;
  }

  void take(Instant now) {
    refill(now);
    tokens -= 1.0;
  }
}
