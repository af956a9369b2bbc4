package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.journal.WriterStamp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.apache.pekko.serialization.jackson.JacksonJsonSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The writer stamp the persistence module's journal attaches to every event as metadata (for the
 * audit's I5) is serialized like the events (Jackson JSON) and its committed fixture still reads:
 * journals hold it in their rows' {@code meta_payload}. Regenerate with {@code
 * -Dalmanac.writeFixtures=true} after an intended, migrated change.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriterStampSerializationTest {

  private final ActorTestKit testKit = ActorTestKit.create(ConfigFactory.load());
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());

  static final WriterStamp STAMP = new WriterStamp("pekko://almanac@10.0.0.7:7355", -4395839463578135616L,
      "pekko://almanac@10.0.0.5:7355#8801398120923451235");

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  @DisplayName("I5: the writer stamp is JSON through the events' serializer, and its committed fixture still reads")
  void fixtureStillReads() throws Exception {
    Serializer serializer = serialization.findSerializerFor(STAMP);
    assertTrue(serializer instanceof JacksonJsonSerializer, serializer.getClass().getName());
    String manifest = ((SerializerWithStringManifest) serializer).manifest(STAMP);
    assertEquals(STAMP, serialization.deserialize(serializer.toBinary(STAMP), serializer.identifier(), manifest).get());
    Path file = Path.of("src/test/resources/serialization/WriterStamp.json");
    if (Boolean.getBoolean("almanac.writeFixtures")) {
      Files.writeString(file, manifest + "\n" + new String(serializer.toBinary(STAMP), StandardCharsets.UTF_8) + "\n");
      return;
    }
    List<String> lines = Files.readAllLines(file);
    assertEquals(manifest, lines.get(0), "the manifest (class name) of " + file + " changed: a rename needs a migration");
    assertEquals("{\"node\":\"pekko://almanac@10.0.0.7:7355\",\"incarnation\":-4395839463578135616,"
        + "\"cluster\":\"pekko://almanac@10.0.0.5:7355#8801398120923451235\"}", lines.get(1));
    assertEquals(STAMP, serialization.deserialize(lines.get(1).getBytes(StandardCharsets.UTF_8), serializer.identifier(),
        lines.get(0)).get(), file + " no longer reads as the same value");
  }

  @Test
  @DisplayName("I5: a stamp outside any cluster round-trips (cluster null), and JSON without the cluster reads as such")
  void withoutCluster() {
    WriterStamp local = new WriterStamp("pekko://almanac", 42L);
    Serializer serializer = serialization.findSerializerFor(local);
    String manifest = ((SerializerWithStringManifest) serializer).manifest(local);
    assertEquals(local, serialization.deserialize(serializer.toBinary(local), serializer.identifier(), manifest).get());
    assertEquals(local, serialization.deserialize("{\"node\":\"pekko://almanac\",\"incarnation\":42}".getBytes(StandardCharsets.UTF_8),
        serializer.identifier(), manifest).get());
  }
}
