package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** R34: a task taken out of almanac.tasks is not removed: the node says so at start, once, bounded. */
class UndeclaredTasksTest {

  private static TaskSpec declared(String id) {
    return TaskSpec.builder(id).cron("0 0 8 * * ? UTC").job("j").build();
  }

  @Test
  @DisplayName("R34: the registered tasks the configuration does not declare are named; they keep firing until removed")
  void namesRegisteredTasksNotDeclared() {
    assertEquals(Optional.of("1 registered tasks are not declared in almanac.tasks (registered through the API, or taken "
            + "out of the configuration): old; they keep firing until removed with Almanac.remove(id)"),
        io.almanac.internal.node.Node.undeclared(List.of(declared("kept")), List.of("kept", "old")));
    assertEquals(Optional.empty(), io.almanac.internal.node.Node.undeclared(List.of(declared("kept")), List.of("kept")));
  }

  @Test
  @DisplayName("principle 6: at most 10 ids are named, then the count")
  void isBounded() {
    List<String> many = IntStream.range(0, 1000).mapToObj(i -> "t" + i).toList();
    String message = io.almanac.internal.node.Node.undeclared(List.of(), many).orElseThrow();
    assertTrue(message.startsWith("1000 registered tasks"), message);
    assertTrue(message.contains("t9, ...;"), message);
    assertTrue(message.length() < 300, message);
  }
}
