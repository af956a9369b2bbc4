package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.apache.pekko.serialization.jackson.JacksonJsonSerializer;

/**
 * The persisted shapes' check, shared by the serialization tests: each value round-trips through the
 * serializer Pekko binds for it (Jackson JSON), and its committed fixture ({@code
 * src/test/resources/serialization/<name>.json}: the manifest, then the JSON) still reads as the same
 * value. With {@code -Dalmanac.writeFixtures=true} the fixtures are written instead.
 */
final class JournalFixtures {

  static final Path DIR = Path.of("src/test/resources/serialization");

  private JournalFixtures() {}

  static void check(Serialization serialization, Map<String, Object> shapes) throws Exception {
    boolean write = Boolean.getBoolean("almanac.writeFixtures");
    for (Map.Entry<String, Object> shape : shapes.entrySet()) {
      Object value = shape.getValue();
      Serializer serializer = serialization.findSerializerFor(value);
      assertTrue(serializer instanceof JacksonJsonSerializer, value.getClass() + " must be bound to Jackson JSON");
      String manifest = ((SerializerWithStringManifest) serializer).manifest(value);
      assertEquals(value, serialization.deserialize(serializer.toBinary(value), serializer.identifier(), manifest).get(),
          shape.getKey());
      Path file = DIR.resolve(shape.getKey() + ".json");
      if (write) {
        Files.writeString(file, manifest + "\n" + new String(serializer.toBinary(value), StandardCharsets.UTF_8) + "\n");
        continue;
      }
      assertTrue(Files.exists(file), "missing fixture " + file + ": regenerate with -Dalmanac.writeFixtures=true");
      List<String> lines = Files.readAllLines(file);
      assertEquals(manifest, lines.get(0), file.toString());
      assertEquals(value, serialization.deserialize(lines.get(1).getBytes(StandardCharsets.UTF_8), serializer.identifier(),
          lines.get(0)).get(), file + " no longer reads as the same value: a changed component needs a migration");
    }
  }
}
