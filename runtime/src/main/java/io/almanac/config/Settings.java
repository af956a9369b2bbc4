package io.almanac.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.almanac.InvalidSpecException;
import java.time.Duration;

/**
 * Reading and checking config values with errors that name the key (R33, R34): a missing or wrongly
 * typed value is refused with an {@link InvalidSpecException} whose field is the full key.
 */
public final class Settings {
  private Settings() {}

  /**
   * The longest duration any {@code almanac.*} setting accepts: 3660 days (about ten years). Bounded
   * so that adding one to an instant never overflows; a setting whose use needs less (a timer, an
   * ask) says so in its own check, and timers longer than a day are armed again when they go off.
   */
  public static final Duration MAX_DURATION = Duration.ofDays(3660);

  /**
   * @param c the configuration
   * @param key the full key
   * @return the whole-number value
   * @throws InvalidSpecException if the key is missing, not a number, or has a fraction
   */
  public static int intOf(Config c, String key) {
    try {
      if (c.hasPath(key) && c.getValue(key).unwrapped() instanceof Number n && n.doubleValue() != Math.rint(n.doubleValue())) {
        throw new InvalidSpecException(key, n, "must be a whole number"); // getInt would quietly drop the fraction
      }
      return c.getInt(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (ConfigException.WrongType e) {
      throw new InvalidSpecException(key, c.getValue(key).unwrapped(), "must be an integer");
    }
  }

  /**
   * @param c the configuration
   * @param key the full key
   * @return the number
   * @throws InvalidSpecException if the key is missing or not a number
   */
  public static double doubleOf(Config c, String key) {
    try {
      return c.getDouble(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (ConfigException.WrongType e) {
      throw new InvalidSpecException(key, c.getValue(key).unwrapped(), "must be a number");
    }
  }

  /**
   * @param c the configuration
   * @param key the full key
   * @return the string value
   * @throws InvalidSpecException if the key is missing or not a string
   */
  public static String stringOf(Config c, String key) {
    try {
      return c.getString(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (ConfigException.WrongType e) {
      throw new InvalidSpecException(key, c.getValue(key).unwrapped(), "must be a string");
    }
  }

  /**
   * @param c the configuration
   * @param key the full key
   * @return the boolean value (HOCON's on/off, true/false, yes/no)
   * @throws InvalidSpecException if the key is missing or not a boolean
   */
  public static boolean booleanOf(Config c, String key) {
    try {
      return c.getBoolean(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (ConfigException.WrongType e) {
      throw new InvalidSpecException(key, c.getValue(key).unwrapped(), "must be on or off");
    }
  }

  /**
   * @param c the configuration
   * @param key the full key
   * @return the duration, e.g. from {@code 30s}: from zero to {@link #MAX_DURATION}
   * @throws InvalidSpecException if the key is missing, not a duration, negative or above {@link
   *     #MAX_DURATION}
   */
  public static Duration durationOf(Config c, String key) {
    Duration d;
    try {
      d = c.getDuration(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key);
    } catch (ConfigException.BadValue | ConfigException.WrongType e) {
      throw new InvalidSpecException(key, c.getValue(key).unwrapped(), "must be a duration such as 30s");
    }
    if (d.isNegative()) {
      throw new InvalidSpecException(key, d, "must not be negative");
    }
    if (d.compareTo(MAX_DURATION) > 0) {
      throw new InvalidSpecException(key, c.getValue(key).unwrapped(), "must be at most " + MAX_DURATION
          + " (3660 days)");
    }
    return d;
  }

  /**
   * @param key the full key, named in the refusal
   * @param value the value read
   * @param min the smallest accepted value
   * @throws InvalidSpecException if {@code value} is below {@code min}
   */
  public static void atLeast(String key, int value, int min) {
    if (value < min) {
      throw new InvalidSpecException(key, value, "must be >= " + min);
    }
  }

  /**
   * @param key the full key, named in the refusal
   * @param value the value read
   * @throws InvalidSpecException if {@code value} is not a finite positive number
   */
  public static void positive(String key, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new InvalidSpecException(key, value, "must be a positive number");
    }
  }

  /**
   * @param key the full key, named in the refusal
   * @param value the value read
   * @throws InvalidSpecException if {@code value} is null, zero or negative
   */
  public static void positive(String key, Duration value) {
    if (value == null || value.isZero() || value.isNegative()) {
      throw new InvalidSpecException(key, value, "must be a positive duration");
    }
  }
}
