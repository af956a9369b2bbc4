package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.InstanceStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What follows a write reads a window's status change as a {@link WindowChange}, never as the class
 * of the event that made it: so a new kind of event that changes a status (it says so in {@link
 * TaskJournal.WindowEvent#statusAfter}, and {@link Evolve} names its cause) is alerted on, cancelled,
 * counted and paused on with no edit to these readers. The readers' sources must not name a kind of
 * event that can change a status; the node meters may, only for a skip or a miss recorded beside a
 * window that already has an instance (a decision that changes no status). And the decisions check
 * the events they write ({@link Transition#check(InstanceStatus, TaskJournal.WindowEvent)}), never a
 * status named by hand.
 */
class ReactionsReadChangesTest {

  private static final Path MAIN = Path.of("src/main/java/io/almanac");
  /** The readers of a write's status changes. */
  private static final List<String> READERS = List.of("internal/task/Reactions.java", "internal/task/PauseOnFailures.java",
      "internal/meter/WrittenMeters.java");
  /** The one form the node meters may name such a kind in: a record beside an existing instance. */
  private static final Pattern RECORDED_BESIDE = Pattern.compile("!changed && e instanceof TaskJournal\\.\\w+");

  /** The kinds of window event whose statusAfter is not null from some status. */
  static Set<String> statusChangingKinds() throws Exception {
    List<InstanceStatus> froms = new ArrayList<>();
    froms.add(null);
    froms.addAll(List.of(InstanceStatus.values()));
    Set<String> kinds = new TreeSet<>();
    for (Class<?> k : EventKindsTest.concreteKinds(TaskJournal.WindowEvent.class)) {
      TaskJournal.WindowEvent e = (TaskJournal.WindowEvent) EventKindsTest.sample(k);
      for (InstanceStatus from : froms) {
        if (e.statusAfter(from) != null) {
          kinds.add(k.getSimpleName());
        }
      }
    }
    return kinds;
  }

  /** The source without its comments, so a comment may speak of a kind. */
  private static String code(Path p) throws Exception {
    String s = Files.readString(p);
    return s.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
  }

  @Test
  void theReadersOfAWriteNameNoKindOfEventThatChangesAStatus() throws Exception {
    Set<String> kinds = statusChangingKinds();
    assertTrue(kinds.containsAll(Set.of("InstanceFinalFailed", "AttemptSucceeded", "AttemptTimedOut", "InstanceCancelled",
        "FireSkipped", "WaitEnded", "InstanceScheduled")), "the kinds are found: " + kinds);
    List<String> found = new ArrayList<>();
    for (String reader : READERS) {
      String code = code(MAIN.resolve(reader));
      if (reader.endsWith("WrittenMeters.java")) {
        code = RECORDED_BESIDE.matcher(code).replaceAll(" ");
      }
      for (String kind : kinds) {
        Matcher m = Pattern.compile("\\b" + kind + "\\b").matcher(code);
        if (m.find()) {
          found.add(reader + " names " + kind);
        }
      }
    }
    assertEquals(List.of(), found, "read the write's WindowChanges (to, from, cause) instead: Evolve.applyAll");
  }

  @Test
  void noDecisionNamesTheStatusItsEventWillProduce() throws Exception {
    List<String> found = new ArrayList<>();
    Pattern byHand = Pattern.compile("Transition\\.check\\([^;]*?,\\s*(?:InstanceStatus\\.)?[A-Z_]+\\s*,");
    try (var files = Files.walk(MAIN)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java") && !p.endsWith("Transition.java")).toList()) {
        Matcher m = byHand.matcher(code(f));
        while (m.find()) {
          found.add(MAIN.relativize(f) + ": " + m.group());
        }
      }
    }
    assertEquals(List.of(), found, "check the event instead: Transition.check(from, event) derives the status from it");
  }
}
