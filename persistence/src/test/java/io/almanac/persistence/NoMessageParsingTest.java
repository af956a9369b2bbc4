package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * No main code recovers a fact from a message: facts travel as typed fields and records, and text
 * is made of them only at the edge. A source scan of every module's {@code src/main/java} for the
 * shapes such code takes: {@code getMessage().contains/startsWith/endsWith/matches/indexOf/equals(},
 * a regex matched over {@code getMessage()} or over a variable or accessor named like a detail, a
 * reason, a message or a note ({@code .matcher(detail)}, {@code Pattern.matches(re, reason)}, {@code
 * message.matches(re)}), a text test on one ({@code reason.startsWith(..)}, {@code
 * w.reason().equals(..)}, {@code "x".equals(e.getMessage())}), and {@code getMessage()} compared
 * through {@code Objects.equals} or switched on. Comments are not scanned. It reports every
 * offender at once.
 */
class NoMessageParsingTest {

  private static final String WORD = "\\w*(?i:detail|reason|message|note)\\w*";

  /** The string methods that read a fact out of a text. */
  private static final String TEXT_TEST = "(?:contains|startsWith|endsWith|matches|indexOf|lastIndexOf|equals|equalsIgnoreCase"
      + "|contentEquals|regionMatches|split|replaceFirst)";

  /** The shapes of code that parses a message, each with what it is for the report. */
  private static final List<Pattern> SHAPES = List.of(
      Pattern.compile("getMessage\\(\\)\\s*\\.\\s*(contains|startsWith|endsWith|matches|indexOf|lastIndexOf|equals|split)\\s*\\("),
      // a regex over anything inside the matcher's argument named like a message (getMessage() too)
      Pattern.compile("\\.matcher\\s*\\((?:[^()]|\\((?:[^()]|\\([^()]*\\))*\\))*?\\b" + WORD),
      Pattern.compile("Pattern\\s*\\.\\s*matches\\s*\\([^;]*?,\\s*[\\w.]*?" + WORD + "(\\(\\))?\\s*\\)"),
      Pattern.compile("\\b" + WORD + "(\\(\\))?\\s*\\.\\s*(matches|replaceFirst|split)\\s*\\(\\s*\""),
      // a text test on a variable or accessor named like a message (reason.startsWith, w.reason().equals, detail.indexOf)
      Pattern.compile("\\b" + WORD + "(\\(\\))?\\s*\\)?\\s*\\.\\s*" + TEXT_TEST + "\\s*\\("),
      // ... or with one as the argument ("x".equals(e.getMessage()), "task removed".equals(reason))
      Pattern.compile("\\.\\s*" + TEXT_TEST + "\\s*\\(\\s*[\\w.]*?\\b" + WORD + "(\\(\\))?\\s*\\)"),
      // getMessage() compared through Objects.equals, or switched on
      Pattern.compile("Objects\\s*\\.\\s*equals\\s*\\([^;]*?getMessage\\(\\)"),
      Pattern.compile("switch\\s*\\(\\s*[\\w.]*getMessage\\(\\)"));

  /** The audit's reader of legacy journals' text (see its entries in {@link #ALLOWED}). */
  private static final String LEGACY = "persistence/src/main/java/io/almanac/persistence/audit/LegacyReasons.java";

  /**
   * Offenders allowed, each naming its file and the text of the offending code: those that stay, each
   * with why (a third party's message, legacy journals' text), and those outside this slice (NOT DONE),
   * which other engineers are removing in parallel and the lead drops after merging their work. An
   * entry that matches nothing fails the test, so the list never outlives its offenders.
   */
  private static final List<Allowed> ALLOWED = List.of(
      // CronSchedule rewords cron-utils' exception text (a third party's message, no typed field)
      new Allowed("runtime/src/main/java/io/almanac/CronSchedule.java", "OUT_OF_RANGE.matcher(message)"),
      new Allowed("runtime/src/main/java/io/almanac/CronSchedule.java", "message.contains(\"Both, a day-of-week AND"),
      // LegacyReasons is the audit's one reader of the text legacy journals carry: final failures and cancels
      // written before their typed decision, lastCause and cause existed have those facts only in their reason,
      // and are explained exactly as before the fields; it is called only when the typed fields are null
      new Allowed(LEGACY, "reason.indexOf(\"; last: \")"),
      new Allowed(LEGACY, "reason.lastIndexOf(\"last: \")"),
      new Allowed(LEGACY, "reason.equals(\"task removed\")"),
      new Allowed(LEGACY, "reason.startsWith(\"superseded by window \")"));

  private record Allowed(String file, String code) {}

  /** An offending piece of code, with the whole line it starts on (what the allow-list matches). */
  private record Offence(String file, int line, String code, String source) {
    @Override
    public String toString() {
      return file + ":" + line + ": " + code;
    }
  }

  @Test
  @DisplayName("no main code matches on getMessage() or runs a regex over a detail, reason or message")
  void noCodeParsesAMessage() throws IOException {
    Path base = Path.of(System.getProperty("user.dir")).getParent();
    List<Path> roots = new ArrayList<>();
    try (Stream<Path> modules = Files.list(base)) {
      modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).forEach(roots::add);
    }
    assertTrue(roots.stream().anyMatch(r -> r.startsWith(base.resolve("runtime"))), "runtime's sources not found under " + base);
    assertTrue(roots.stream().anyMatch(r -> r.startsWith(base.resolve("http"))), "http's sources not found under " + base);
    List<Offence> found = new ArrayList<>();
    for (Path root : roots) {
      try (Stream<Path> files = Files.walk(root)) {
        files.filter(f -> f.toString().endsWith(".java")).forEach(f -> found.addAll(scan(base, f)));
      }
    }
    List<Offence> offending = new ArrayList<>();
    List<Allowed> used = new ArrayList<>();
    for (Offence o : found) {
      Allowed a = ALLOWED.stream().filter(x -> o.file().equals(x.file()) && o.source().contains(x.code())).findFirst().orElse(null);
      if (a == null) {
        offending.add(o);
      } else {
        used.add(a);
      }
    }
    List<Allowed> stale = ALLOWED.stream().filter(a -> !used.contains(a)).toList();
    assertTrue(offending.isEmpty(), "main code parses a message (carry the fact as a typed field instead):\n  "
        + String.join("\n  ", offending.stream().map(Offence::toString).toList()));
    assertTrue(stale.isEmpty(), "allow-list entries that match no code any more (remove them): " + stale);
  }

  @Test
  @DisplayName("the scan sees each shape of message parsing, and not comments or ordinary regexes")
  void theScanSeesEachShape() {
    for (String code : List.of(
        "if (e.getMessage().contains(\"unique\")) {",
        "return t.getMessage().startsWith(\"x\");",
        "Matcher m = P.matcher(refused.getMessage());",
        "Matcher m = P.matcher(\n        refused.getMessage());",
        "Matcher m = OTHER.matcher(f.detail() == null ? \"\" : f.detail());",
        "Matcher m = OTHER.matcher(detail);",
        "Matcher m = OTHER.matcher(e.reason());",
        "boolean b = Pattern.matches(\"a.*\", message);",
        "boolean b = failReason.matches(\"a.*\");",
        // the shapes found after the scan first ran (each once in main code)
        "if (reason.startsWith(\"superseded by window \")) {",
        "if (reason.equals(\"task removed\")) {",
        "int k = f.reason().lastIndexOf(LAST);",
        "int k = reason.indexOf(\"; last: \");",
        "&& (w.reason().startsWith(\"DEPENDENCY_NOT_MET\") || x);",
        "+ (\"window start out of range\".equals(e.getMessage()) ? \" (x)\" : \"\"));",
        "String.valueOf(e.getMessage()).contains(\"already in use\")",
        "boolean same = Objects.equals(e.getMessage(), \"x\");",
        "switch (e.getMessage()) {",
        "if (note.contains(\"x\")) {",
        "if (\"task removed\".equals(c.reason())) {",
        "boolean d = detail.endsWith(\"x\");")) {
      assertTrue(!offences(code).isEmpty(), "not seen: " + code);
    }
    for (String code : List.of(
        "// e.getMessage().contains(\"x\") in a comment",
        "/* P.matcher(detail) */ int x = 1;",
        "if (!ID.matcher(id).matches()) {",
        "Matcher m = HOURLY_KEY.matcher(key);",
        "String s = \"failed: \" + e.getMessage();",
        // legitimate code near the shapes: typed comparisons, null checks, rendering, a key compared
        "if (e.cause() == CancelCause.TASK_REMOVED) {",
        "String reason = e.reason() == null ? \"\" : e.reason();",
        "return reason.isEmpty() ? null : reason.strip();",
        "boolean sameKey = w.key().equals(skip.window());",
        "if (reasonCode == SkipReason.PAUSED) {",
        "out.append(detail).append(message.length());",
        "Objects.equals(a.window(), b.window())")) {
      assertTrue(offences(code).isEmpty(), "seen wrongly: " + code + " " + offences(code));
    }
  }

  private static List<Offence> scan(Path base, Path file) {
    try {
      return offences(base.relativize(file).toString().replace('\\', '/'), Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Offence> offences(String code) {
    return offences("sample.java", code);
  }

  private static List<Offence> offences(String file, String source) {
    String code = withoutComments(source);
    String[] lines = code.split("\n", -1);
    java.util.Map<Integer, Offence> out = new java.util.TreeMap<>(); // one per line, whichever shapes it has
    for (Pattern shape : SHAPES) {
      Matcher m = shape.matcher(code);
      while (m.find()) {
        int line = 1 + (int) code.substring(0, m.start()).chars().filter(c -> c == '\n').count();
        out.putIfAbsent(line, new Offence(file, line, m.group().replaceAll("\\s+", " "), lines[line - 1].strip()));
      }
    }
    return new ArrayList<>(out.values());
  }

  /** The source with its comments blanked out (line breaks kept, so line numbers hold); string literals kept. */
  static String withoutComments(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < s.length() && s.charAt(j) != c && s.charAt(j) != '\n') {
          j += s.charAt(j) == '\\' ? 2 : 1;
        }
        j = Math.min(j + 1, s.length());
        out.append(s, i, j);
        i = j;
      } else if (s.startsWith("//", i)) {
        while (i < s.length() && s.charAt(i) != '\n') {
          out.append(' ');
          i++;
        }
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        end = end < 0 ? s.length() : end + 2;
        for (; i < end; i++) {
          out.append(s.charAt(i) == '\n' ? '\n' : ' ');
        }
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
