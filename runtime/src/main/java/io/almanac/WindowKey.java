package io.almanac;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The unique, computable key of a business window (R4), e.g. {@code 2026-11-29} (daily),
 * {@code 2026-11-29-08} (hourly) or {@code 2026-11-29T00:00:00Z} (per firing). At most one instance
 * exists per (task, window key) (R5). Serialized as a plain JSON string.
 *
 * @param value the key's text: not blank, at most {@value #MAX_LENGTH} characters
 */
public record WindowKey(String value) {

  /** The longest key accepted. */
  public static final int MAX_LENGTH = 200;

  /**
   * Validates the key.
   *
   * @param value the key's text
   * @throws InvalidSpecException if the value is null, blank or longer than {@value #MAX_LENGTH}
   */
  public WindowKey {
    if (value == null || value.isBlank()) {
      throw new InvalidSpecException("windowKey", value, "must not be blank");
    }
    if (value.length() > MAX_LENGTH) {
      throw new InvalidSpecException(
          "windowKey", value, "is " + value.length() + " characters long; at most " + MAX_LENGTH);
    }
  }

  /**
   * Makes a key.
   *
   * @param value the key's text
   * @return the key
   * @throws InvalidSpecException if the value is null, blank or too long
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static WindowKey of(String value) {
    return new WindowKey(value);
  }

  /**
   * The key's text (also its JSON form).
   *
   * @return the key's text
   */
  @Override
  @JsonValue
  public String value() {
    return value;
  }

  /**
   * The key's text.
   *
   * @return the key's text, e.g. {@code 2026-11-29}
   */
  @Override
  public String toString() {
    return value;
  }
}
