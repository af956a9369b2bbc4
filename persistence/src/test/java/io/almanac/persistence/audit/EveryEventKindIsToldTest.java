package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.RunKind;
import io.almanac.TaskSpec;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.AttemptStarted;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.InstanceScheduled;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.persistence.audit.WindowExplanation.Explanation;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Every concrete kind of journal event, found by walking the sealed hierarchy, is told by the
 * audit's readers: {@link AuditEvent} words it, the window's explanation has a step for it (a
 * task-level event's step, or what the spec says), and the verifier judges a journal holding it. The
 * readers take each kind from one table ({@link AuditKinds}), which {@link AuditEditPlacesTest}
 * checks holds every kind once; this test makes sure each is told with words.
 */
class EveryEventKindIsToldTest {

  private static final String TASK = "kinds";
  private static final String WINDOW = "2026-11-29T00:00:00Z";
  private static final Instant DUE = Instant.parse(WINDOW);
  private static final Instant AT = DUE.plusSeconds(600);

  @Test
  @DisplayName("every event kind of the sealed hierarchy is worded by AuditEvent and told by the window's explanation")
  void everyKindIsTold() throws Exception {
    Map<String, Class<?>> kinds = new TreeMap<>();
    concrete(Event.class, kinds);
    assertTrue(kinds.size() >= 27, "kinds found: " + kinds.keySet());
    for (Class<?> kind : kinds.values()) {
      Event sample = sample(kind);
      AuditEvent worded = AuditEvent.of(TASK, 4, sample, java.time.ZoneOffset.UTC);
      assertEquals(kind.getSimpleName(), worded.type());
      assertFalse(worded.detail().isBlank(), kind.getSimpleName() + " has no detail");

      List<Event> journal = new ArrayList<>(preamble());
      journal.add(sample);
      List<AuditEvent> audit = WindowExplanation.auditEvents(TASK, journal);
      Explanation why = WindowExplanation.explain(TASK, audit, WINDOW);
      assertFalse(why.verdict().isBlank(), kind.getSimpleName());
      if (sample instanceof SpecDefined) {
        assertTrue(worded.detail().startsWith("cron '0 0 * * * ?' in UTC"), worded.detail());
      } else {
        assertTrue(why.steps().stream().anyMatch(s -> s.atUtc().equals(AT) && !s.text().isBlank()),
            kind.getSimpleName() + " has no step: " + why.steps());
      }

      VerificationReport report = Verifier.create().grace(Duration.ZERO)
          .check(new TaskHistory(TASK, audit, AT.plusSeconds(60))).report();
      assertEquals(1, report.stats().tasks(), kind.getSimpleName());
    }
  }

  /** The concrete event records under a sealed type, by simple name. */
  private static void concrete(Class<?> type, Map<String, Class<?>> out) {
    if (type.isRecord()) {
      out.put(type.getSimpleName(), type);
      return;
    }
    assertTrue(type.isSealed(), type + " is neither a record nor sealed");
    for (Class<?> sub : type.getPermittedSubclasses()) {
      concrete(sub, out);
    }
  }

  /** A window that is RUNNING: every kind of event has something to say to it. */
  private static List<Event> preamble() {
    return List.of(new SpecDefined(spec(), DUE.minusSeconds(86_400)),
        new InstanceScheduled(WINDOW, DUE, DUE, DUE, RunKind.FIRST, DUE),
        new AttemptStarted(WINDOW, 1, RunKind.FIRST, DUE.plusSeconds(3600), "n1", DUE));
  }

  private static SpecRecord spec() {
    return SpecRecord.of(TaskSpec.builder(TASK).cron("0 0 * * * ? UTC").window("per-firing").build());
  }

  /** An event of that kind about the window, at {@link #AT}, its other components sample values. */
  private static Event sample(Class<?> kind) throws Exception {
    RecordComponent[] components = kind.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    Object[] args = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      args[i] = value(components[i].getName(), types[i]);
    }
    Constructor<?> c = kind.getDeclaredConstructor(types);
    return (Event) c.newInstance(args);
  }

  private static Object value(String name, Class<?> type) {
    if (type == String.class) {
      return name.equals("window") ? WINDOW : name + "-sample";
    }
    if (type == Instant.class) {
      return name.equals("at") ? AT : name.equals("start") || name.equals("end") || name.equals("dueAt") ? DUE
          : AT.plusSeconds(60);
    }
    if (type == int.class) {
      return 1;
    }
    if (type == long.class) {
      return 1L;
    }
    if (type == Duration.class) {
      return Duration.ofSeconds(30);
    }
    if (type == SpecRecord.class) {
      return spec();
    }
    if (type.isEnum()) {
      return type.getEnumConstants()[0];
    }
    if (type == io.almanac.journal.TaskJournal.FailureStreak.class) {
      return new io.almanac.journal.TaskJournal.FailureStreak(3, "2026-11-27", WINDOW);
    }
    if (type == io.almanac.journal.UsageRecord.class) {
      return new io.almanac.journal.UsageRecord("model-sample", 1_000, 200, 42_000);
    }
    if (type == java.util.List.class && name.equals("lines")) {
      return java.util.List.of(new io.almanac.journal.LogLine(AT, io.almanac.JobLog.Level.INFO, "line-sample"));
    }
    if (type == java.util.List.class && name.equals("names")) {
      return java.util.List.of("step-sample");
    }
    if (type == java.time.LocalDate.class) {
      return java.time.LocalDate.ofInstant(AT, java.time.ZoneOffset.UTC);
    }
    throw new AssertionError("no sample value for " + name + " of " + type + ": add one");
  }
}
