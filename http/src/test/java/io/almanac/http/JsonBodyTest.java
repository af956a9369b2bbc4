package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The checks of a request's JSON body: pure. */
class JsonBodyTest {

  private static final Set<String> BACKFILL = Set.of("from", "to", "dryRun");

  private static Problem refused(String text, Set<String> fields) {
    return assertThrows(Problem.Raised.class, () -> JsonBody.parse(text, fields)).problem();
  }

  @Test
  @DisplayName("a field given twice is refused naming it, whichever value comes last: a duplicated dryRun never runs a "
      + "real backfill")
  void duplicateKeys() {
    Problem p = refused("{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\",\"dryRun\":true,"
        + "\"dryRun\":false}", BACKFILL);
    assertEquals(400, p.status());
    assertEquals("invalid-input", p.kind());
    assertEquals("dryRun", p.field(), p.toString());
    assertTrue(p.detail().startsWith("dryRun: "), p.detail());
    assertTrue(p.detail().contains("is given more than once"), p.detail());
    // a field of no call, given twice, is refused too, naming it
    assertEquals("x", refused("{\"x\":1,\"x\":2}", BACKFILL).field());
    // nested objects are not exempt
    assertEquals("a", refused("{\"from\":{\"a\":1,\"a\":2}}", BACKFILL).field());
    // once each is fine
    assertTrue(JsonBody.parse("{\"from\":\"2026-11-29T20:00:00Z\",\"to\":\"2026-11-30T00:00:00Z\",\"dryRun\":true}",
        BACKFILL).flag("dryRun"));
  }
}
