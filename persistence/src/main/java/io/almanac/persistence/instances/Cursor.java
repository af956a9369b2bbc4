package io.almanac.persistence.instances;

import io.almanac.InvalidSpecException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * A keyset cursor: the (window start, task id, window key) of the last row of a page, as an opaque
 * URL-safe string. Its layout is version byte 1, the start's epoch second (8 bytes) and nano (4),
 * then the task id and window key, each as a 2-byte length and UTF-8 bytes. INTERNAL.
 *
 * @param windowStart the last row's window start
 * @param taskId its task
 * @param windowKey its window key
 */
record Cursor(Instant windowStart, String taskId, String windowKey) {

  private static final byte VERSION = 1;

  static Cursor of(InstanceRow r) {
    return new Cursor(r.windowStart(), r.taskId(), r.windowKey());
  }

  String encode() {
    byte[] t = taskId.getBytes(StandardCharsets.UTF_8);
    byte[] w = windowKey.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(1 + 8 + 4 + 2 + t.length + 2 + w.length);
    b.put(VERSION).putLong(windowStart.getEpochSecond()).putInt(windowStart.getNano());
    b.putShort((short) t.length).put(t).putShort((short) w.length).put(w);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
  }

  /**
   * @param text a cursor from {@link #encode()}
   * @return the cursor
   * @throws InvalidSpecException naming field {@code after} when it is not one
   */
  static Cursor decode(String text) {
    try {
      if (text.length() > 2048) {
        throw new IllegalArgumentException("too long");
      }
      ByteBuffer b = ByteBuffer.wrap(Base64.getUrlDecoder().decode(text));
      if (b.get() != VERSION) {
        throw new IllegalArgumentException("unknown version");
      }
      Instant start = Instant.ofEpochSecond(b.getLong(), b.getInt());
      if (start.isBefore(InstanceFilter.MIN_INSTANT) || !start.isBefore(InstanceFilter.MAX_INSTANT)) {
        throw new StartOutOfRange();
      }
      String task = string(b);
      String window = string(b);
      if (b.hasRemaining() || task.isEmpty() || window.isEmpty()) {
        throw new IllegalArgumentException("bad layout");
      }
      return new Cursor(start, task, window);
    } catch (RuntimeException e) {
      throw new InvalidSpecException("after", text, "is not a cursor from a previous page's next"
          + (e instanceof StartOutOfRange ? " (its instant is outside the years 0001..9999)" : ""));
    }
  }

  /** A cursor whose window start is outside the years the instance table holds: told by its type. */
  private static final class StartOutOfRange extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    StartOutOfRange() {
      super("window start out of range");
    }
  }

  private static String string(ByteBuffer b) {
    int n = Short.toUnsignedInt(b.getShort());
    byte[] bytes = new byte[n];
    b.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
