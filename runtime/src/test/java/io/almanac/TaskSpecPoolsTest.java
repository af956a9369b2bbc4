package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The pools a spec names: bad names are refused naming {@code pools}, never with a NullPointerException. */
class TaskSpecPoolsTest {

  private static TaskSpec.Builder daily() {
    return TaskSpec.builder("t").cron("0 0 8 * * ? UTC").job("j");
  }

  @Test
  @DisplayName("a null pool name is refused naming pools, by the varargs and the list builder")
  void nullPoolNameIsRefusedNamingPools() {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> daily().pools("openai", null).build());
    assertEquals("pools", e.field());
    assertEquals("[openai, null]", e.value(), "the list as given, its null name shown");
    assertTrue(e.getMessage().contains("pools"), e.getMessage());
    InvalidSpecException list = assertThrows(InvalidSpecException.class,
        () -> daily().pools(Arrays.asList(null, "openai")).build());
    assertEquals("pools", list.field());
    assertEquals(java.util.List.of("openai"), daily().pools("openai").build().pools());
  }
}
