package io.almanac.internal.protocol;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.almanac.InvalidSpecException;
import io.almanac.config.Settings;

/**
 * The bounds of durable steps ({@code almanac.task.max-step-result-size}, {@code
 * max-steps-per-window}, {@code max-step-name-length}; see reference.conf). A window's recorded steps
 * ride in its hot state while it may run again, so each bound is also a bound on the task's
 * snapshot. Read by the task entities (which refuse a step past them) and by the executor (which
 * refuses it in the job's own thread, before anything is sent). INTERNAL API.
 *
 * @param maxResultBytes the largest step result, in bytes of its JSON (UTF-8)
 * @param maxStepsPerWindow the most steps one window records
 * @param maxNameLength the longest step name, in characters
 */
public record StepBounds(int maxResultBytes, int maxStepsPerWindow, int maxNameLength) {

  /** The largest result any setting accepts: 16 MiB (a step's result rides in its window's snapshot). */
  public static final int MAX_RESULT_BYTES_CEILING = 16 * 1024 * 1024;

  /** The defaults of reference.conf: 64 KiB, 100 steps, 200 characters. */
  public static final StepBounds DEFAULT = new StepBounds(64 * 1024, 100, 200);

  private static final String PREFIX = "almanac.task.";

  /** Validates every bound, naming its key. */
  public StepBounds {
    Settings.atLeast(PREFIX + "max-step-result-size", maxResultBytes, 1);
    if (maxResultBytes > MAX_RESULT_BYTES_CEILING) {
      throw new InvalidSpecException(PREFIX + "max-step-result-size", maxResultBytes, "must be at most 16MiB ("
          + MAX_RESULT_BYTES_CEILING + " bytes): a step's result rides in its window's snapshot; keep large outputs "
          + "in an artifact store and record their URI");
    }
    Settings.atLeast(PREFIX + "max-steps-per-window", maxStepsPerWindow, 1);
    Settings.atLeast(PREFIX + "max-step-name-length", maxNameLength, 1);
  }

  /**
   * @param c the whole configuration (reads {@code almanac.task})
   * @return the validated bounds
   * @throws InvalidSpecException naming the key of a wrong value
   */
  public static StepBounds from(Config c) {
    return new StepBounds(bytesOf(c, PREFIX + "max-step-result-size"), Settings.intOf(c, PREFIX + "max-steps-per-window"),
        Settings.intOf(c, PREFIX + "max-step-name-length"));
  }

  /**
   * @param s a string
   * @return its length in UTF-8 bytes, counted without encoding it
   */
  public static int utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n++;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        n++; // a lone surrogate is written as '?'
      } else {
        n += 3;
      }
    }
    return (int) Math.min(Integer.MAX_VALUE, n);
  }

  private static int bytesOf(Config c, String key) {
    long bytes;
    try {
      bytes = c.getBytes(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (ConfigException.BadValue | ConfigException.WrongType e) {
      throw new InvalidSpecException(key, c.getValue(key).unwrapped(), "must be a size, e.g. 64KiB or 65536");
    }
    if (bytes > Integer.MAX_VALUE) {
      throw new InvalidSpecException(key, c.getValue(key).unwrapped(), "must be at most 16MiB");
    }
    return (int) bytes;
  }
}
