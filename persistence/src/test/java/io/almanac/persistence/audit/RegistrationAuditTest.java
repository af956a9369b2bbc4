package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.due;
import static io.almanac.persistence.audit.DailyEvents.history;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.OverlapPolicy;
import io.almanac.TaskSpec;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.persistence.audit.VerificationReport.Invariant;
import io.almanac.persistence.audit.VerificationReport.Violation;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Registration writes no task entity: a task records its spec with its first fire, and one never
 * fired has no journal. I2 then takes the spec from the trigger's registration (docs/registration.md).
 */
class RegistrationAuditTest {

  private static final Instant REGISTERED = Instant.parse("2026-11-28T12:00:00Z");
  private static final TaskSpec SKIP = daily("t", OverlapPolicy.SKIP);
  private static final Map<String, List<Verifier.Registration>> BY_TRIGGER =
      Map.of("t", List.of(new Verifier.Registration(SpecRecord.of(SKIP), REGISTERED)));

  @Test
  @DisplayName("I2 expects a task's windows from its registration on, though its journal records the spec with its first "
      + "fire: a window due before that fire and never recorded is lost")
  void windowsFromTheRegistrationOn() {
    // the spec recorded with the fire of 11-30; 11-29 (due after the registration) has no record
    List<TaskJournal.Event> events = journal(List.of(spec(SKIP, due("2026-11-30"))), ran("2026-11-30"));
    Instant end = Instant.parse("2026-11-30T12:00:00Z");
    VerificationReport alone = Verifier.create().check(new TaskHistory("t", history("t", events).events(), end)).report();
    assertTrue(alone.ok(), "without the registration 11-29 is before the task's first SpecDefined: " + alone.toText());
    VerificationReport r = Verifier.create().registrations(BY_TRIGGER)
        .check(new TaskHistory("t", history("t", events).events(), end)).report();
    assertEquals(1, r.violations().size(), r.toText());
    Violation v = r.violations().get(0);
    assertEquals(Invariant.I2, v.invariant());
    assertEquals("2026-11-29", v.window());
    assertEquals(2, r.stats().windowsChecked(), "11-29 and 11-30");
  }

  @Test
  @DisplayName("a fire's SpecDefined of the spec registered adds no segment; every window that ran is accounted for")
  void recordedSpecMergesWithItsRegistration() {
    List<TaskJournal.Event> events = journal(List.of(spec(SKIP, due("2026-11-29"))), ran("2026-11-29"), ran("2026-11-30"));
    VerificationReport r = Verifier.create().registrations(BY_TRIGGER)
        .check(new TaskHistory("t", history("t", events).events(), Instant.parse("2026-11-30T12:00:00Z"))).report();
    assertTrue(r.ok(), r.toText());
    assertEquals(2, r.stats().windowsChecked());
  }

  @Test
  @DisplayName("a task registered and never written (no journal of its own) is checked from its registration: its due "
      + "windows are lost")
  void neverWrittenTaskIsChecked() {
    VerificationReport r = Verifier.create().registrations(BY_TRIGGER)
        .check(new TaskHistory("t", List.of(), Instant.parse("2026-12-01T12:00:00Z"))).report();
    assertEquals(3, r.stats().windowsLost(), r.toText());
    assertEquals(List.of("2026-11-29", "2026-11-30", "2026-12-01"),
        r.violations().stream().map(Violation::window).sorted().toList());
  }
}
