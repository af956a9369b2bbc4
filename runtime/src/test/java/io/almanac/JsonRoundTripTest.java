package io.almanac;

import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.module.paramnames.ParameterNamesModule;
import io.almanac.journal.DurationSamples;
import io.almanac.journal.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The persisted policies survive Jackson as Pekko's serializer configures it, and plain Jackson.
 */
class JsonRoundTripTest {

  static Stream<Arguments> mappers() {
    // Pekko's jackson serializer writes Durations as ISO text (WRITE_DURATIONS_AS_TIMESTAMPS off);
    // plain Jackson writes them as numbers. Both must round-trip.
    ObjectMapper pekkoLike =
        JsonMapper.builder()
            .addModule(new ParameterNamesModule())
            .addModule(new Jdk8Module())
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
            .build();
    ObjectMapper plain = new ObjectMapper().findAndRegisterModules();
    return Stream.of(Arguments.of("pekko-like", pekkoLike), Arguments.of("plain", plain));
  }

  static Stream<Arguments> values() {
    List<Object> values = new ArrayList<>();
    values.add(RetryPolicy.none());
    values.add(RetryPolicy.immediate());
    values.add(RetryPolicy.delayed(ofMinutes(5), ofMinutes(15), ofMinutes(30)).withMaxRetries(7));
    values.add(RetryPolicy.exponential(ofMinutes(5), 2.0, ofHours(1), 0.25));
    values.add(RetryPolicy.exponential(Duration.ofMillis(1500), 1.5, Duration.ofSeconds(90), 0));
    values.add(RetryPolicy.immediate().withinSpan(ofHours(24)));
    values.add(CatchUpPolicy.DEFAULT);
    values.add(CatchUpPolicy.none().withHorizon(Duration.ZERO));
    values.add(CatchUpPolicy.all().withHorizon(ofHours(6)).withinSpan(ofHours(24)));
    values.add(LeasePolicy.DEFAULT);
    values.add(LeasePolicy.builder().floor(Duration.ofSeconds(30)).ceiling(ofHours(6)).factor(2.25).minSamples(5).build());
    values.add(DurationSamples.empty());
    values.add(DurationSamples.of(3, List.of(120_000L, 5L, 7_200_000L)));
    values.add(TaskSpec.builder("daily").cron("0 0 8 * * ? Asia/Shanghai").job("j").build());
    values.add(TaskSpec.builder("launch").once(java.time.Instant.parse("2026-12-01T08:00:00Z")).job("j").build());
    values.add(TaskSpec.builder("report").cron("0 30 0 * * ? Asia/Shanghai").job("j")
        .onEvent(EventTrigger.of("order.paid"))
        .dependsOn(DependencyTrigger.on("export").waitAtMost(java.time.Duration.ofHours(6)))
        .when(ConditionTrigger.named("settlement").debounce(2)).build());
    values.add(JobResult.success("sent 3", "s3://digests/2026-11-29"));
    values.add(JobResult.failure("upstream down"));
    values.addAll(List.of(OverlapPolicy.values()));
    values.addAll(List.of(InstanceStatus.values()));
    values.addAll(List.of(RetryPolicy.Backoff.values()));
    values.addAll(List.of(CatchUpPolicy.Mode.values()));
    values.addAll(List.of(Transition.values()));
    // a batch publish's parts that travel between nodes (the command itself carries an actor ref)
    values.add(new io.almanac.internal.protocol.TaskProtocol.BatchedEvent("order.paid", "evt-1",
        java.time.Instant.parse("2026-11-29T02:15:00Z"), "order 1 paid"));
    values.add(new io.almanac.internal.protocol.TaskProtocol.BatchedEvent("order.paid", "evt-2", null, null));
    values.add(new io.almanac.internal.protocol.TaskProtocol.EventOutcomes(List.of(new io.almanac.internal.protocol.TaskProtocol
        .EventOutcome("2026-11-29-02", PublishResult.Outcome.DUPLICATE, "event id evt-1 arrived before"))));
    return mappers()
        .flatMap(m -> values.stream().map(v -> Arguments.of(m.get()[0], m.get()[1], v)));
  }

  @ParameterizedTest(name = "R20 {0}: {2}")
  @MethodSource("values")
  @DisplayName("persisted policies and statuses round-trip through Jackson")
  void roundTrips(String mapperName, ObjectMapper mapper, Object value) throws Exception {
    String json = mapper.writeValueAsString(value);
    Object back = mapper.readValue(json, value.getClass());
    assertEquals(value, back, json);
    if (value.getClass().isEnum()
        || value.getClass().getEnclosingClass() != null
            && value.getClass().getEnclosingClass().isEnum()) {
      assertEquals('"' + ((Enum<?>) value).name() + '"', json);
    }
  }

  static Stream<Arguments> records() {
    return mappers()
        .flatMap(
            m ->
                Stream.of(
                        RetryPolicy.DEFAULT,
                        RetryPolicy.exponential(ofMinutes(5), 2.0, ofHours(1), 0.25).withinSpan(ofHours(2)),
                        CatchUpPolicy.DEFAULT,
                        LeasePolicy.DEFAULT,
                        DurationSamples.empty(),
                        TaskSpec.builder("daily").cron("0 0 8 * * ? Asia/Shanghai").job("j").build(),
                        TaskSpec.builder("launch").once(java.time.Instant.parse("2026-12-01T08:00:00Z")).build(),
                        JobResult.success("sent 3", "s3://digests/2026-11-29"))
                    .map(v -> Arguments.of(m.get()[0], m.get()[1], v)));
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("records")
  @DisplayName("records and the API's value classes serialize exactly their components, no derived properties")
  void onlyComponentsAreProperties(String mapperName, ObjectMapper mapper, Object value)
      throws Exception {
    JsonNode node = mapper.valueToTree(value);
    Set<String> names = new TreeSet<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    Set<String> components = new TreeSet<>();
    if (value.getClass().isRecord()) {
      for (var c : value.getClass().getRecordComponents()) {
        // an optional component marked to be left out when unset (the triggers of R9) is absent only then
        boolean leftOut = c.getAccessor().getAnnotation(com.fasterxml.jackson.annotation.JsonInclude.class) != null
            && c.getAccessor().invoke(value) == null;
        if (!leftOut) {
          components.add(c.getName());
        }
      }
    } else {
      // a final class of the API (no public constructor): its parts are its instance fields
      for (var f : value.getClass().getDeclaredFields()) {
        if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        f.setAccessible(true);
        boolean leftOut = f.getAnnotation(com.fasterxml.jackson.annotation.JsonInclude.class) != null && f.get(value) == null;
        if (!leftOut) {
          components.add(f.getName());
        }
      }
    }
    assertEquals(components, names);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mappers")
  @DisplayName("R33 a stored policy with a bad value is refused when read, naming the field")
  void badStoredValueIsRefused(String mapperName, ObjectMapper mapper) {
    Exception e =
        assertThrows(
            Exception.class,
            () -> mapper.readValue("{\"maxRetries\":-2,\"backoff\":\"IMMEDIATE\",\"multiplier\":1.0}", RetryPolicy.class));
    Throwable cause = e;
    while (cause != null && !(cause instanceof InvalidSpecException)) {
      cause = cause.getCause();
    }
    assertTrue(cause instanceof InvalidSpecException, String.valueOf(e));
    assertEquals("retry.maxRetries", ((InvalidSpecException) cause).field());
  }
}
