package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A job's reported usage ({@link Usage}) and its place on {@link JobResult}: validation and the result's JSON. */
class UsageTest {

  private final ObjectMapper json = new ObjectMapper();

  @Test
  @DisplayName("usage keeps its cost exactly in millionths; a cost of 0.42 is 420000 micros and prints as 0.42")
  void costKeptExactly() {
    Usage u = Usage.of("gpt-4o", 12_000, 1_500, new BigDecimal("0.42"));
    assertEquals(420_000, u.costMicros());
    assertEquals(new BigDecimal("0.42"), u.cost());
    assertEquals(u, Usage.ofMicros("gpt-4o", 12_000, 1_500, 420_000));
    assertEquals(0, Usage.of(null, 0, 0, null).costMicros());
    assertNull(Usage.of(" ", 1, 1, BigDecimal.ZERO).model(), "a blank model is no model");
  }

  @Test
  @DisplayName("bad usage is refused naming the field and the value: negative tokens or cost, a cost finer than a "
      + "millionth or too large, an over-long model name")
  void badUsageRefused() {
    refused("usage.tokensIn", "-1", () -> Usage.of("m", -1, 0, BigDecimal.ZERO));
    refused("usage.tokensOut", "-5", () -> Usage.of("m", 0, -5, BigDecimal.ZERO));
    refused("usage.cost", "-0.01", () -> Usage.of("m", 0, 0, new BigDecimal("-0.01")));
    refused("usage.cost", "0.0000001", () -> Usage.of("m", 0, 0, new BigDecimal("0.0000001")));
    refused("usage.cost", "-0.000001", () -> Usage.ofMicros("m", 0, 0, -1));
    refused("usage.cost", "2000000", () -> Usage.of("m", 0, 0, new BigDecimal("2000000")));
    refused("usage.model", "x".repeat(Usage.MAX_MODEL_LENGTH + 1).substring(0, 10),
        () -> Usage.of("x".repeat(Usage.MAX_MODEL_LENGTH + 1), 0, 0, BigDecimal.ZERO));
  }

  private static void refused(String field, String value, Runnable code) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, code::run);
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(field) && e.getMessage().contains(value), e.getMessage());
  }

  @Test
  @DisplayName("a result carries usage when the job reports it, and none (null) otherwise")
  void resultWithUsage() {
    Usage u = Usage.of("gpt-4o", 10, 20, new BigDecimal("0.01"));
    JobResult r = JobResult.success("ok", "s3://b/k").withUsage(u);
    assertEquals(u, r.usage());
    assertEquals("ok", r.summary());
    assertEquals("s3://b/k", r.artifactUri());
    assertNull(JobResult.success("ok").usage());
    assertFalse(JobResult.success("ok").equals(JobResult.success("ok").withUsage(u)));
    assertEquals(JobResult.failure("x").withUsage(u), JobResult.failure("x").withUsage(u));
    assertNull(r.withUsage(null).usage());
  }

  @Test
  @DisplayName("a result's JSON: one written before usage existed still reads (usage null), one without usage is "
      + "written in that shape, and the committed fixture with usage reads as the same value")
  void resultJson() throws Exception {
    Path dir = Path.of("src/test/resources/serialization");
    JobResult old = json.readValue(Files.readString(dir.resolve("JobResult.json")), JobResult.class);
    assertEquals(JobResult.success("12 items", "s3://b/k"), old);
    assertNull(old.usage());
    assertFalse(json.writeValueAsString(JobResult.success("ok")).contains("usage"), "no usage: the old shape");
    JobResult withUsage = JobResult.failure("429 from the model").withUsage(Usage.ofMicros("gpt-4o", 12_000, 1_500, 420_000));
    assertEquals(withUsage, json.readValue(Files.readString(dir.resolve("JobResult.usage.json")), JobResult.class));
    assertEquals(withUsage, json.readValue(json.writeValueAsString(withUsage), JobResult.class));
  }

  @Test
  @DisplayName("a task's budget per day: kept without trailing zeros; a negative or too fine one is refused naming budgetPerDay")
  void budgetInSpec() {
    TaskSpec s = TaskSpec.builder("t").cron("0 0 8 * * ? UTC").budgetPerDay(new BigDecimal("5.00")).build();
    assertEquals(new BigDecimal("5"), s.budgetPerDay());
    assertEquals(s, io.almanac.journal.SpecRecord.of(s).toSpec(), "the record gives the same spec back");
    assertEquals(5_000_000L, io.almanac.journal.SpecRecord.of(s).budgetPerDayMicros());
    InvalidSpecException neg = assertThrows(InvalidSpecException.class,
        () -> TaskSpec.builder("t").cron("0 0 8 * * ? UTC").budgetPerDay(new BigDecimal("-1")).build());
    assertTrue(neg.getMessage().contains("budgetPerDay") && neg.getMessage().contains("-1"), neg.getMessage());
    InvalidSpecException fine = assertThrows(InvalidSpecException.class,
        () -> TaskSpec.builder("t").cron("0 0 8 * * ? UTC").budgetPerDay(new BigDecimal("0.0000001")).build());
    assertTrue(fine.getMessage().contains("budgetPerDay"), fine.getMessage());
    assertNull(TaskSpec.builder("t").cron("0 0 8 * * ? UTC").build().budgetPerDay());
  }
}
