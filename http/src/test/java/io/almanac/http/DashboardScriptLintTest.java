package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's JavaScript passes {@link ScriptLint} (it parses as an ES module, no implicit
 * global, no loose equality but against null, no unused function), inside {@code mvn verify} with
 * Java alone; the fixtures under {@code src/test/resources/io/almanac/http/lintfixture} show each
 * check can fail.
 */
class DashboardScriptLintTest {

  private static final Path DASHBOARD = Path.of("src/main/resources/io/almanac/http/dashboard");
  private static final Path FIXTURES = Path.of("src/test/resources/io/almanac/http/lintfixture");

  private static Map<String, String> scripts(Path dir) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.filter(f -> f.toString().endsWith(".js") || f.toString().endsWith(".mjs")).toList()) {
        files.put(p.getFileName().toString(), Files.readString(p));
      }
    }
    return files;
  }

  @Test
  @DisplayName("the dashboard's scripts parse as ES modules and pass the lint")
  void dashboardPassesTheLint() throws IOException {
    Map<String, String> files = scripts(DASHBOARD);
    assertTrue(files.keySet().containsAll(List.of("app.js", "charts.js", "common.js", "window.js")), "scripts not found in " + DASHBOARD + ": " + files.keySet());
    List<ScriptLint.Finding> found = ScriptLint.lint(files);
    assertTrue(found.isEmpty(), "the dashboard's JavaScript:\n  " + found.stream().map(Object::toString).collect(Collectors.joining("\n  ")));
  }

  @Test
  @DisplayName("each fixture fails the lint for its own reason")
  void theLintCanFail() throws IOException {
    Map<String, String> expected = Map.of(
        "syntax-error.js", "syntax error",
        "implicit-global.js", "assignment to undeclared coutn",
        "loose-equality.js", "use ===",
        "unused-function.js", "function forgotten is declared and never used");
    Map<String, String> fixtures = scripts(FIXTURES);
    assertEquals(expected.keySet(), fixtures.keySet());
    for (Map.Entry<String, String> f : fixtures.entrySet()) {
      List<ScriptLint.Finding> found = ScriptLint.lint(Map.of(f.getKey(), f.getValue()));
      assertEquals(1, found.size(), f.getKey() + ": " + found);
      assertTrue(found.get(0).what().startsWith(expected.get(f.getKey())), f.getKey() + ": " + found);
    }
  }
}
