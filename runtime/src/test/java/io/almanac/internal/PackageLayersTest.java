package io.almanac.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The internal packages import one way, as docs/architecture.md draws them: node wires the actors'
 * packages; task, trigger and executor never name each other; meter sits below them; lease and
 * protocol name nothing of io.almanac.internal. A source scan of runtime's main code for every
 * {@code io.almanac.internal.<package>} an import or a qualified name reaches (comments left out).
 */
class PackageLayersTest {

  /** Each package and the internal packages it may use. */
  private static final Map<String, Set<String>> MAY_USE = Map.of(
      "protocol", Set.of(),
      "lease", Set.of(),
      "meter", Set.of("lease", "protocol"),
      "task", Set.of("meter", "lease", "protocol"),
      "trigger", Set.of("meter", "lease", "protocol"),
      "executor", Set.of("meter", "lease", "protocol", "trace"),
      "trace", Set.of(),
      "pool", Set.of("protocol"),
      "alert", Set.of("protocol"),
      "node", Set.of("task", "trigger", "executor", "pool", "alert", "meter", "lease", "protocol"));

  private static final Pattern USE = Pattern.compile("\\bio\\.almanac\\.internal\\.([a-z]\\w*)\\.[A-Z]");

  private static final Path ROOT = Path.of("src/main/java/io/almanac/internal");

  @Test
  @DisplayName("the internal packages are the drawn ones, and none uses a package it may not")
  void packagesImportOneWay() throws IOException {
    Set<String> found = new TreeSet<>();
    try (Stream<Path> dirs = Files.list(ROOT)) {
      dirs.filter(Files::isDirectory).forEach(d -> found.add(d.getFileName().toString()));
    }
    assertEquals(new TreeSet<>(MAY_USE.keySet()), found, "a package of io.almanac.internal is not in the drawing");
    try (Stream<Path> top = Files.list(ROOT)) {
      assertEquals(List.of("package-info.java"), top.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList(),
          "io.almanac.internal itself holds no class: each belongs to one of its packages");
    }
    List<String> offending = new ArrayList<>();
    for (String pkg : found) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(pkg))) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          for (String used : uses(Files.readString(f))) {
            if (!used.equals(pkg) && !MAY_USE.get(pkg).contains(used)) {
              offending.add(pkg + "/" + f.getFileName() + " uses internal." + used);
            }
          }
        }
      }
    }
    assertTrue(offending.isEmpty(), "packages used against the drawing:\n" + String.join("\n", offending));
  }

  @Test
  @DisplayName("the scan sees an import and a qualified name, and not a comment")
  void theScanSeesWhatItMust() {
    assertEquals(Set.of("task", "executor"), uses("""
        import io.almanac.internal.task.TaskEntity;
        class X { Object o = io.almanac.internal.executor.Executor.class; }
        // io.almanac.internal.node.Node
        /** {@link io.almanac.internal.trigger.TriggerActor} */
        """));
  }

  private static Set<String> uses(String source) {
    String code = source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
    Set<String> out = new TreeSet<>();
    Matcher m = USE.matcher(code);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }
}
