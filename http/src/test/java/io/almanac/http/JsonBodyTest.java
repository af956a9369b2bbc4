package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

  @Test
  @DisplayName("a body nested deeper than the limit is refused naming body, in plain words: no class or library names")
  void deepNesting() {
    String deep = "{\"from\":" + "[".repeat(30_000) + "]".repeat(30_000) + "}";
    Problem p = refused(deep, BACKFILL);
    assertEquals(400, p.status());
    assertEquals("body", p.field());
    assertTrue(p.detail().contains("body nests deeper than " + JsonBody.MAX_DEPTH), p.detail());
    for (String internal : new String[] {"StreamReadConstraints", "Jackson", "jackson", "getMaxNestingDepth", "`"}) {
      assertFalse(p.detail().contains(internal), p.detail());
    }
    // a number longer than the reader takes: plain words too
    Problem digits = refused("{\"from\":" + "1".repeat(2000) + "}", BACKFILL);
    assertEquals("body", digits.field());
    assertTrue(digits.detail().contains("has a number of more than 1000 digits"), digits.detail());
    assertFalse(digits.detail().contains("StreamReadConstraints"), digits.detail());
    // a body within the limit parses (its field then refused as the call's check says)
    String within = "{\"from\":" + "[".repeat(JsonBody.MAX_DEPTH - 1) + "]".repeat(JsonBody.MAX_DEPTH - 1) + "}";
    Problem notText = assertThrows(Problem.Raised.class, () -> JsonBody.parse(within, BACKFILL).requiredText("from"))
        .problem();
    assertEquals("from", notText.field());
  }

  @Test
  @DisplayName("a JSON null in any field is refused by the reader itself, naming the field, before any accessor reads "
      + "it: whether the call would read the field as a flag, a text, an instant or an amount, and whether it is required")
  void nullIsRefusedForEveryField() {
    Set<String> fields = Set.of("from", "to", "dryRun", "note", "amount");
    for (String field : fields) {
      Problem p = refused("{\"" + field + "\":null}", fields);
      assertEquals(400, p.status(), p.toString());
      assertEquals(field, p.field(), p.toString());
      assertEquals("null", p.value(), p.toString());
      assertTrue(p.detail().startsWith(field + ": null is refused"), p.detail());
      // beside valid fields too, first or last
      String other = field.equals("dryRun") ? "\"note\":\"n\"" : "\"dryRun\":true";
      assertEquals(field, refused("{" + other + ",\"" + field + "\":null}", fields).field());
      assertEquals(field, refused("{\"" + field + "\":null," + other + "}", fields).field());
    }
    // a field left out still reads as absent: the default applies
    assertFalse(JsonBody.parse("{}", fields).flag("dryRun"));
    assertEquals(null, JsonBody.parse("{}", fields).optionalText("note"));
  }
}
