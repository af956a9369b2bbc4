package io.almanac.persistence.instances;

import io.almanac.InvalidSpecException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * A keyset cursor: the (window start, task id, window key) of the last row of a page, or its (last
 * change, task id, window key) for pages by last change, as an opaque URL-safe string. Its layout is
 * version byte 1 (by start) or 2 (by last change), the instant's epoch second (8 bytes) and nano (4),
 * then the task id and window key, each as a 2-byte length and UTF-8 bytes. INTERNAL.
 *
 * @param windowStart the last row's window start (its last change, for a cursor {@code byUpdated})
 * @param taskId its task
 * @param windowKey its window key
 * @param byUpdated whether pages run by last change ({@code updated_at}) rather than by window start
 */
record Cursor(Instant windowStart, String taskId, String windowKey, boolean byUpdated) {

  private static final byte VERSION = 1;
  private static final byte VERSION_UPDATED = 2;

  Cursor(Instant windowStart, String taskId, String windowKey) {
    this(windowStart, taskId, windowKey, false);
  }

  static Cursor of(InstanceRow r) {
    return new Cursor(r.windowStart(), r.taskId(), r.windowKey());
  }

  static Cursor of(InstanceRow r, boolean byUpdated) {
    return byUpdated ? new Cursor(r.updatedAt(), r.taskId(), r.windowKey(), true) : of(r);
  }

  String encode() {
    byte[] t = taskId.getBytes(StandardCharsets.UTF_8);
    byte[] w = windowKey.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(1 + 8 + 4 + 2 + t.length + 2 + w.length);
    b.put(byUpdated ? VERSION_UPDATED : VERSION).putLong(windowStart.getEpochSecond()).putInt(windowStart.getNano());
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
      byte version = b.get();
      if (version != VERSION && version != VERSION_UPDATED) {
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
      return new Cursor(start, task, window, version == VERSION_UPDATED);
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
