package io.almanac.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docs/cli.md is true of the CLI: every command its table documents is a command of {@code almanac},
 * every command of {@code almanac} is documented, and every option a row shows is one its command takes.
 */
class DocumentedCliTest {

  /** A command cell of the table: `name args`, possibly two commands in one cell ("`pause TASK`, `resume TASK`"). */
  private static final Pattern CELL = Pattern.compile("`([a-z][a-z-]*)([^`]*)`");
  private static final Pattern OPTION = Pattern.compile("(--[a-z][a-z-]*)");

  @Test
  @DisplayName("every command docs/cli.md lists exists with the options it shows, and every command is listed")
  void commandsAndOptionsAreDocumented() throws Exception {
    CommandLine cli = AlmanacCli.commandLine();
    List<String> lines = Files.readAllLines(Path.of("..", "docs", "cli.md"));
    int start = lines.indexOf("## Commands");
    assertTrue(start >= 0, "docs/cli.md has a ## Commands section");
    Set<String> documented = new TreeSet<>();
    List<String> wrong = new ArrayList<>();
    for (String line : lines.subList(start + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      if (!line.startsWith("| `")) {
        continue;
      }
      Matcher m = CELL.matcher(line.split("\\|")[1]);
      while (m.find()) {
        String name = m.group(1);
        documented.add(name);
        CommandLine sub = cli.getSubcommands().get(name);
        if (sub == null) {
          wrong.add("documented command '" + name + "' is not a command of almanac");
          continue;
        }
        Matcher o = OPTION.matcher(m.group(2));
        while (o.find()) {
          String option = o.group(1);
          boolean passThrough = sub.getCommandSpec().unmatchedArgsBindings().size() > 0 || !sub.getUnmatchedArguments().isEmpty();
          if (sub.getCommandSpec().findOption(option) == null && !passThrough) {
            wrong.add("'" + name + "' does not take the documented option " + option);
          }
        }
      }
    }
    for (String name : cli.getSubcommands().keySet()) {
      if (!documented.contains(name) && !name.equals("help")) {
        wrong.add("command '" + name + "' is not in docs/cli.md's table");
      }
    }
    assertEquals(List.of(), wrong);
    assertTrue(documented.size() >= 15, "commands found: " + documented);
  }
}
