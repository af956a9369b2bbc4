package io.almanac.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The modules built on the runtime (persistence, http, samples, the Spring Boot starter and its sample) use its published packages only:
 * the API ({@code io.almanac}), the journal's format ({@code io.almanac.journal}), configuration
 * reading ({@code io.almanac.config}), schedules ({@code io.almanac.schedule}) and the store plugins'
 * interface ({@code io.almanac.spi}); never {@code io.almanac.internal}, whose classes may change
 * shape or move at any time.
 */
class ModuleBoundaryTest {

  @Test
  void noMainCodeOutsideTheRuntimeNamesItsInternals() throws IOException {
    Path root = Path.of(System.getProperty("user.dir")).getParent();
    List<String> offenders = new ArrayList<>();
    int files = 0;
    for (String module : List.of("persistence", "http", "samples", "spring-boot-starter", "samples/spring-boot-sample")) {
      Path src = root.resolve(module).resolve("src/main/java");
      assertTrue(Files.isDirectory(src), src + " exists");
      try (Stream<Path> all = Files.walk(src)) {
        for (Path f : (Iterable<Path>) all.filter(p -> p.toString().endsWith(".java"))::iterator) {
          files++;
          List<String> lines = Files.readAllLines(f);
          for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (line.startsWith("*") || line.startsWith("//")) {
              continue; // a comment may name where a rule lives
            }
            if (line.contains("io.almanac.internal")) {
              offenders.add(root.relativize(f) + ":" + (i + 1) + ": " + line);
            }
          }
        }
      }
    }
    assertTrue(files > 50, "scanned the modules' sources (" + files + " files)");
    assertEquals(List.of(), offenders);
  }
}
