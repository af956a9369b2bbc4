package io.almanac.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.journal.TaskJournal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What each actor is told is a closed set: the task entity's commands, the trigger's and the
 * executor's messages and the task journal's events are sealed hierarchies, so a handler that
 * misses a kind is found by the compiler or by the kinds' tests, not in production. The only opening
 * is each actor's own {@code Internal} interface for the messages it sends itself.
 */
class ProtocolsAreSealedTest {

  private static List<Class<?>> opened(Class<?> root) {
    List<Class<?>> out = new ArrayList<>();
    assertTrue(root.isSealed(), root + " is sealed");
    for (Class<?> c : root.getPermittedSubclasses()) {
      if (c.isInterface() && !c.isSealed()) {
        out.add(c);
      } else if (c.isSealed()) {
        out.addAll(opened(c));
      } else {
        assertTrue(c.isRecord() || c.isEnum(), c + " is a record or an enum (data only)");
      }
    }
    return out;
  }

  @Test
  void theTaskEntitysCommandsAndTheJournalsEventsAreClosed() {
    assertEquals(List.of(), opened(TaskProtocol.Command.class));
    assertEquals(List.of(), opened(TaskJournal.Event.class));
  }

  @Test
  void theTriggerAndTheExecutorAreOpenOnlyToTheirOwnMessages() {
    assertEquals(List.of(TriggerProtocol.Internal.class), opened(TriggerProtocol.Command.class));
    assertEquals(List.of(ExecutorProtocol.Internal.class), opened(ExecutorProtocol.Command.class));
  }
}
