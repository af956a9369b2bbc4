package io.almanac.schedule;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Objects;

/**
 * A task's jitter: the deterministic offset in {@code [0, J)} after its due time at which a window
 * fires. The offset is a function of the task's id, the window's key and {@code J} alone, the same in
 * every JVM and every version: the first 8 bytes of {@code SHA-256(UTF-8(taskId + "\n" + windowKey))},
 * read as an unsigned big-endian number, modulo {@code J} in milliseconds. A restart, a catch-up or a
 * failover computes the same offset for the same window, and the window's key and recorded due time
 * do not change. Changing the task's jitter changes its offsets (they are taken modulo the new J).
 */
public final class Jitter {
  private Jitter() {}

  /**
   * The offset of a window.
   *
   * @param taskId the task's id
   * @param windowKey the window's key, e.g. {@code 2027-01-04}
   * @param jitter the task's jitter J; zero or null for none
   * @return the offset, in whole milliseconds, from zero (inclusive) to J (exclusive); zero when J is zero or null
   */
  public static Duration offset(String taskId, String windowKey, Duration jitter) {
    if (jitter == null || jitter.isZero() || jitter.isNegative()) {
      return Duration.ZERO;
    }
    long span = jitter.toMillis();
    if (span <= 0) {
      return Duration.ZERO;
    }
    byte[] digest = sha256((Objects.requireNonNull(taskId, "taskId") + "\n" + Objects.requireNonNull(windowKey, "windowKey"))
        .getBytes(StandardCharsets.UTF_8));
    long h = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (digest[i] & 0xFF);
    }
    return Duration.ofMillis(Long.remainderUnsigned(h, span));
  }

  private static byte[] sha256(byte[] in) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(in);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
