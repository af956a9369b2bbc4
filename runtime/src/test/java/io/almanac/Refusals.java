package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.function.Executable;

/** Asserts R33 refusals: the exception names the field and the value. */
public final class Refusals {
  private Refusals() {}

  /**
   * @param field the field the refusal must name
   * @param value the value, as text, the message must contain; null for none given: the message
   *     then says the field is missing (never {@code 'null'})
   * @param code the code that must refuse
   * @return the refusal, for further checks
   */
  public static InvalidSpecException assertRefused(String field, String value, Executable code) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, code);
    assertEquals(field, e.field(), e.getMessage());
    if (value == null) {
      assertTrue(e.getMessage().startsWith(field + " is missing"), e.getMessage());
      assertEquals(null, e.value(), e.getMessage());
      return e;
    }
    assertTrue(e.getMessage().startsWith(field + " '"), e.getMessage());
    assertTrue(e.getMessage().contains("'" + InvalidSpecException.echo(value) + "'"), e.getMessage()); // bounded as every echo is
    return e;
  }
}
