package io.almanac.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.BackfillPolicy;
import io.almanac.DstPolicy;
import io.almanac.InvalidSpecException;
import io.almanac.OverlapPolicy;
import io.almanac.TaskSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** R34: tasks declared in application.conf; R33: a wrong value names its full key. */
class ConfigTasksTest {

  @Test
  @DisplayName("R34: a task declared in almanac.tasks becomes the same spec as one built in Java")
  void parsesDeclaredTasks() {
    List<TaskSpec> specs = ConfigTasks.parse(ConfigFactory.parseString("""
        almanac.tasks {
          daily-digest {
            cron = "0 0 8 * * ? Asia/Shanghai"
            job = "com.example.DigestJob"
            window = daily
            overlap = buffer-one
            max-retries = 3
            backfill { mode = delayed, delays = [5m, 15m, 30m] }
            catch-up-horizon = 12h
            dst { gap = skip, overlap = last }
            description = "the field report's digest"
          }
          ping { cron = "*/10 * * * * ? UTC", job = "com.example.Ping", window = per-firing }
        }
        """));
    assertEquals(2, specs.size());
    TaskSpec digest = specs.get(0);
    TaskSpec expected = TaskSpec.builder("daily-digest").cron("0 0 8 * * ? Asia/Shanghai").job("com.example.DigestJob")
        .overlap(OverlapPolicy.BUFFER_ONE).maxRetries(3)
        .backfill(BackfillPolicy.delayed(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)))
        .catchUp(new io.almanac.CatchUpPolicy(Duration.ofHours(12)))
        .dst(new DstPolicy(DstPolicy.Gap.SKIP, DstPolicy.Overlap.LAST))
        .description("the field report's digest").build();
    assertEquals(expected, digest);
    assertEquals("ping", specs.get(1).id());
    assertEquals("per-firing", specs.get(1).window());
  }

  @ParameterizedTest(name = "R33: {0} is refused naming {1}")
  @CsvSource(delimiter = '|', value = {
      "t { cron = \"0 0 25 * * ? UTC\", job = J }                          | cron",
      "t { cron = \"0 0 8 * * ? Mars/Olympus\", job = J }                  | zone",
      "t { cron = \"0 0 8 * * ? UTC\" }                                     | almanac.tasks.t.job",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, overlap = sometimes }      | almanac.tasks.t.overlap",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, colour = blue }            | almanac.tasks.t.colour",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, max-retries = -1 }         | maxRetries",
      "t { cron = \"0 0 8 * * ? UTC\", job = J, backfill { mode = later } } | almanac.tasks.t.backfill.mode",
      "t = 5                                                                | almanac.tasks.t"})
  void refusesBadDeclarations(String hocon, String field) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class,
        () -> ConfigTasks.parse(ConfigFactory.parseString("almanac.tasks { " + hocon + " }")));
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(field), e.getMessage());
  }
}
