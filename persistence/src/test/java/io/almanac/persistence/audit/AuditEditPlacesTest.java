package io.almanac.persistence.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.journal.TaskJournal;
import io.almanac.journal.TriggerJournal;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A new kind of journal event is one edit in the audit: one entry in one narrator's part of {@link
 * AuditKinds}, from which {@link AuditEvent}'s wording, the window's placement, its step in a
 * window's explanation and the verifier's notes are all derived. This test lists the kinds the
 * table lacks, and {@link EveryEventKindIsToldTest} checks that each is told with words.
 */
class AuditEditPlacesTest {

  private static final Set<String> NARRATORS = Set.of("ScheduleNarrator", "AttemptNarrator", "GateNarrator",
      "OperatorNarrator");

  @Test
  @DisplayName("every task event kind has exactly one entry, by one narrator, handled by every reader")
  void everyTaskEventKindIsInTheTableOnce() {
    Set<String> kinds = new TreeSet<>();
    concrete(TaskJournal.Event.class, kinds);
    Set<String> table = AuditKinds.KINDS.keySet().stream().map(Class::getSimpleName)
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(kinds, table, "the audit's table of event kinds (AuditKinds, filled by the narrators)");
    for (AuditKinds.Kind<?> k : AuditKinds.KINDS.values()) {
      assertTrue(NARRATORS.contains(k.feature), k.type.getSimpleName() + " is told by " + k.feature);
      assertTrue(k.complete(), k.type.getSimpleName() + " (" + k.feature + ") lacks its wording, step or notes");
    }
  }

  @Test
  @DisplayName("a kind told by two narrators is refused")
  void aKindTwiceIsRefused() {
    AuditKinds.Table first = new AuditKinds.Table(new HashMap<>(), "ScheduleNarrator");
    first.kind(TaskJournal.TaskPaused.class);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> first.kind(TaskJournal.TaskPaused.class));
    assertTrue(e.getMessage().startsWith("TaskPaused is told by ScheduleNarrator"), e.getMessage());
  }

  @Test
  @DisplayName("every trigger event kind says what instant the audit reads of it")
  void everyTriggerEventKindIsRead() {
    Set<String> kinds = Stream.of(TriggerJournal.class.getDeclaredClasses())
        .filter(c -> c.isRecord() && TriggerJournal.Event.class.isAssignableFrom(c))
        .map(Class::getSimpleName).collect(Collectors.toCollection(TreeSet::new));
    assertTrue(kinds.size() >= 5, "trigger kinds found: " + kinds);
    Set<String> table = AuditKinds.TRIGGER.keySet().stream().map(Class::getSimpleName)
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(kinds, table, "AuditKinds.TRIGGER");
  }

  /** The concrete event records under a sealed type, by simple name. */
  private static void concrete(Class<?> type, Set<String> out) {
    if (type.isRecord()) {
      out.add(type.getSimpleName());
      return;
    }
    assertTrue(type.isSealed(), type + " is neither a record nor sealed");
    for (Class<?> sub : List.of(type.getPermittedSubclasses())) {
      concrete(sub, out);
    }
  }
}
