package io.almanac.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Iterator;
import java.util.Set;

/**
 * A request's JSON body, checked field by field: pure. Every refusal is a 400 {@link Problem}
 * naming the field and the value: malformed JSON ({@code body}), a field given twice (at any depth),
 * a field that is not one of the call's, a field that is JSON {@code null} (whatever its type: a
 * field is given a value or left out), a field missing, of the wrong JSON type, or empty.
 */
final class JsonBody {

  /** The deepest nesting of arrays and objects a body may have (the calls' bodies are flat objects). */
  static final int MAX_DEPTH = 1000;

  /** Reads bodies: a field given twice is an error, not "the last one wins". */
  private static final ObjectMapper READER = JsonMapper.builder(JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build()).build()).build();

  private final ObjectNode node;

  private JsonBody(ObjectNode node) {
    this.node = node;
  }

  /**
   * @param text the body
   * @param fields the fields the call takes
   * @return the body
   * @throws Problem.Raised when the body is missing, not JSON, not an object, or has another field
   */
  static JsonBody parse(String text, Set<String> fields) {
    if (text == null || text.isBlank()) {
      throw new Problem.Raised(Problem.invalid("body", text == null ? "" : text, "is required: a JSON object with "
          + String.join(", ", new java.util.TreeSet<>(fields))));
    }
    JsonNode parsed;
    try {
      parsed = READER.readTree(text);
    } catch (StreamConstraintsException e) {
      // Jackson's own text names its classes: the answer says it in plain words
      String why = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
      throw new Problem.Raised(Problem.invalid("body", text, why.contains("nesting depth")
          ? "is refused: body nests deeper than " + MAX_DEPTH + " levels of arrays and objects"
          : why.startsWith("Number") ? "is refused: it has a number of more than "
              + StreamReadConstraints.DEFAULT_MAX_NUM_LEN + " digits"
          : "is refused: it has a value longer than a body may hold"));
    } catch (JsonProcessingException e) {
      String duplicate = duplicateField(e);
      if (duplicate != null) {
        throw new Problem.Raised(new Problem(400, "invalid-input", "Invalid input", duplicate + ": is given more than "
            + "once: a field may appear only once in a body (nothing was done)", duplicate, null));
      }
      String why = e.getOriginalMessage();
      throw new Problem.Raised(Problem.invalid("body", text, "is not valid JSON: " + (why == null ? "" : why.lines()
          .findFirst().orElse("")) + " (line " + (e.getLocation() == null ? "?" : e.getLocation().getLineNr()) + ", column "
          + (e.getLocation() == null ? "?" : e.getLocation().getColumnNr()) + ")"));
    }
    if (!(parsed instanceof ObjectNode object)) {
      throw new Problem.Raised(Problem.invalid("body", text, "must be a JSON object"));
    }
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!fields.contains(name)) {
        throw new Problem.Raised(Problem.invalid(name, object.get(name).toString(), "is not a field of this call (it takes "
            + String.join(", ", new java.util.TreeSet<>(fields)) + ")"));
      }
    }
    // Every field of every call is a boolean, a number, a string or an instant: a JSON null is none
    // of them, and never stands for a default ("dryRun": null is not false, a real backfill).
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (object.get(name).isNull()) {
        throw new Problem.Raised(Problem.invalid(name, "null", "is refused: give the field a value, or leave it out "
            + "(a JSON null never stands for a field's default)"));
      }
    }
    return new JsonBody(object);
  }

  /**
   * A body that is a JSON array of objects, each checked as {@link #parse} checks a body; a refusal
   * names the element ({@code events[3].id}).
   *
   * @param text the body
   * @param fields the fields each element takes
   * @param name what the elements are called in a refusal ({@code events})
   * @param max the most elements taken
   * @return the elements, in order
   * @throws Problem.Raised when the body is missing, not JSON, not an array, has more than {@code max}
   *     elements, or an element is refused
   */
  static java.util.List<JsonBody> parseArray(String text, Set<String> fields, String name, int max) {
    if (text == null || text.isBlank()) {
      throw new Problem.Raised(Problem.invalid("body", text == null ? "" : text, "is required: a JSON array of objects "
          + "with " + String.join(", ", new java.util.TreeSet<>(fields))));
    }
    JsonNode parsed;
    try {
      parsed = READER.readTree(text);
    } catch (JsonProcessingException e) {
      String why = e.getOriginalMessage();
      throw new Problem.Raised(Problem.invalid("body", text, "is not valid JSON: " + (why == null ? "" : why.lines()
          .findFirst().orElse(""))));
    }
    if (!(parsed instanceof com.fasterxml.jackson.databind.node.ArrayNode array)) {
      throw new Problem.Raised(Problem.invalid("body", text, "must be a JSON array of events"));
    }
    if (array.size() > max) {
      throw new Problem.Raised(Problem.invalid(name, array.size() + " elements", "are more than the " + max
          + " one call takes (almanac.http.max-batch-events): send them in parts"));
    }
    java.util.List<JsonBody> out = new java.util.ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      try {
        out.add(parse(array.get(i).toString(), fields));
      } catch (Problem.Raised e) {
        throw new Problem.Raised(prefixed(e.problem(), name + "[" + i + "]"));
      }
    }
    return out;
  }

  /**
   * @param p a refusal of an element's field
   * @param element the element ({@code events[3]})
   * @return the refusal naming {@code events[3].field} ({@code events[3]} for the element itself)
   */
  static Problem prefixed(Problem p, String element) {
    String field = p.field() == null || p.field().equals("body") ? element : element + "." + p.field();
    // the element named ahead of the refusal's own words (its field is the typed one above)
    return new Problem(p.status(), p.kind(), p.title(), element + ": " + p.detail(), field, p.value(), p.retryAfter());
  }

  /**
   * @param e a parse failure
   * @return the field a body gave twice, when that is the failure (the strict duplicate check's), else null
   */
  private static String duplicateField(JsonProcessingException e) {
    String why = e.getOriginalMessage();
    if (why == null || !why.startsWith("Duplicate ") || !(e.getProcessor() instanceof JsonParser parser)) {
      return null;
    }
    try {
      return parser.currentName();
    } catch (java.io.IOException | RuntimeException notKnown) {
      return null;
    }
  }

  /** A required, non-blank string field. */
  String requiredText(String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      throw new Problem.Raised(Problem.invalid(field, null, "is required"));
    }
    if (!v.isTextual()) {
      throw new Problem.Raised(Problem.invalid(field, v.toString(), "must be a JSON string"));
    }
    if (v.asText().isBlank()) {
      throw new Problem.Raised(Problem.invalid(field, v.asText(), "must not be empty"));
    }
    return v.asText();
  }

  /** A required decimal amount, as a JSON number or string (e.g. {@code 2.50} or {@code "2.50"}). */
  java.math.BigDecimal requiredDecimal(String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      throw new Problem.Raised(Problem.invalid(field, null, "is required"));
    }
    String text = v.isTextual() ? v.asText().trim() : v.isNumber() ? v.decimalValue().toPlainString() : null;
    try {
      return new java.math.BigDecimal(text);
    } catch (RuntimeException e) {
      throw new Problem.Raised(Problem.invalid(field, v.isTextual() ? v.asText() : v.toString(),
          "must be a number, e.g. 2.50"));
    }
  }

  /** An optional string field (any text, also empty), null when absent. */
  String optionalText(String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new Problem.Raised(Problem.invalid(field, v.toString(), "must be a JSON string"));
    }
    return v.asText();
  }

  /** An optional ISO-8601 instant, null when absent. */
  Instant optionalInstant(String field) {
    return WindowFilter.instant(field, optionalText(field));
  }

  /** A required ISO-8601 instant. */
  Instant requiredInstant(String field) {
    return WindowFilter.instant(field, requiredText(field));
  }

  /** An optional boolean, false when absent. */
  boolean flag(String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw new Problem.Raised(Problem.invalid(field, v.toString(), "must be true or false"));
    }
    return v.asBoolean();
  }

  /** An optional whole number of at least 0, null when absent. */
  Integer optionalCount(String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < 0) {
      throw new Problem.Raised(Problem.invalid(field, v.toString(), "must be a whole number, 0 or more"));
    }
    return v.intValue();
  }
}
