package io.almanac.samples.parsingfixture;

import java.util.regex.Pattern;

/**
 * Test fixture, never run: code that recovers facts from a message, in the shapes {@link
 * io.almanac.samples.NoMessageParsingRulesTest}'s rules must report (imported alone by that test).
 */
public final class ParsesAMessage {

  private static final Pattern CODE = Pattern.compile("code (\\d+)");

  private ParsesAMessage() {}

  /** Reads a fact out of an exception's message: both rules report it. */
  static boolean isUnique(RuntimeException e) {
    return e.getMessage().contains("unique");
  }

  /** A regex over a message kept in a local first: both rules report it. */
  static boolean hasCode(Exception e) {
    String text = e.getMessage();
    String trimmed = text == null ? "" : text.strip();
    return CODE.matcher(trimmed).find();
  }

  /** Hands the message to a helper: only the precise rule (it follows the text into {@link #parse}). */
  static int viaHelper(Exception e) {
    return parse(e.getMessage());
  }

  private static int parse(String s) {
    return s.indexOf(':');
  }

  /** Compares a message with a text: only the precise rule (equals is everywhere, the broad rule skips it). */
  static boolean compares(Exception e) {
    return "boom".equals(e.getMessage());
  }

  /** A text named like a reason, from a map: only the precise rule (by the local's name). */
  static boolean named(java.util.Map<String, String> fields) {
    String failReason = fields.get("r");
    return failReason != null && failReason.startsWith("TIMEOUT");
  }

  /** A record of this package: its reason() is a text accessor of an io.almanac type. */
  record Outcome(String reason) {}

  /** A text test on an io.almanac type's reason accessor: both rules. */
  static boolean onAccessor(Outcome o) {
    return o.reason().startsWith("DEPENDENCY_NOT_MET");
  }

  /** Objects.equals, a switch and Pattern.matches over a message: both rules (the broad one by Pattern.matches). */
  static int compared(Exception e) {
    if (java.util.Objects.equals(e.getMessage(), "x")) {
      return 1;
    }
    switch (String.valueOf(e.getMessage())) {
      case "a":
        return 2;
      default:
        return Pattern.matches("b.*", e.getLocalizedMessage()) ? 3 : 0;
    }
  }

  /** A message captured by a lambda and tested there: the broad rule reports this method, the precise one the lambda. */
  static java.util.function.BooleanSupplier captured(Exception e) {
    String m = e.getMessage();
    return () -> m.endsWith("!");
  }

  /** Rendering only, reported by neither rule: a message shown, a reason stripped, a key tested. */
  static String renders(Exception e, Outcome o, String key) {
    String reason = o.reason() == null ? "" : o.reason().strip();
    return "failed: " + e.getMessage() + " " + reason.length() + (key.isEmpty() ? "" : key);
  }

  /** Reads a message and parses another text: the broad rule reports it, the precise rule does not. */
  static String unrelated(Exception e, String key) {
    return key.startsWith("x") ? key : e.getMessage();
  }
}
