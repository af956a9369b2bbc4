package io.almanac.persistence.crash;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The closing note's table: one row per run (kill -9 cycles or a database outage, per database).
 * Each test writes its row to {@code target/crash-report/<key>.row} and re-renders
 * {@code target/crash-report.txt} from every row there (rows from earlier builds keep their time
 * stamp), and prints the table as a marked block to stdout.
 */
final class CrashReport {

  static final Path DIR = Path.of("target", "crash-report");
  static final Path FILE = Path.of("target", "crash-report.txt");

  private static final String BEGIN = "==================== ALMANAC CRASH REPORT (begin) ====================";
  private static final String END = "==================== ALMANAC CRASH REPORT (end) ======================";

  private CrashReport() {}

  /**
   * One run.
   *
   * @param key file name of the row, e.g. {@code kill9-h2}
   * @param run what was done, e.g. {@code kill -9}
   * @param database e.g. {@code H2 (file)}
   * @param cycles kill cycles, or the outage's length
   * @param windowsChecked windows due in the checked range (I2)
   * @param windowsLost I2 violations: due windows without any event (the registration race's apart)
   * @param registrationGap windows lost to the registration race before the first READY (see JournalCheck)
   * @param doubleSuccesses I1 violations
   * @param effectsRepeated ledgered effects that ran more than once (effects file)
   * @param longestPastLease longest time an attempt was RUNNING after its lease ended (audit statistics)
   * @param toFirstFire time from each restart (process start, or the database's return) to the next AttemptStarted
   * @param verdict {@code OK} or what failed
   * @param notes further facts (events read, outcome-unknown effects resolved, ...)
   */
  record Row(
      String key, String run, String database, String cycles, long windowsChecked, long windowsLost, long registrationGap,
      long doubleSuccesses,
      long effectsRepeated, Duration longestPastLease, List<Duration> toFirstFire, String verdict, String notes) {

    String firstFireMax() {
      return toFirstFire.isEmpty() ? "-" : secs(toFirstFire.stream().max(Duration::compareTo).orElseThrow());
    }

    String firstFireMedian() {
      if (toFirstFire.isEmpty()) {
        return "-";
      }
      List<Duration> s = new ArrayList<>(toFirstFire);
      s.sort(null);
      int n = s.size();
      Duration m = n % 2 == 1 ? s.get(n / 2) : s.get(n / 2 - 1).plus(s.get(n / 2)).dividedBy(2);
      return secs(m);
    }

    String line() {
      String lost = windowsLost + (registrationGap > 0 ? " (+" + registrationGap + " r)" : "");
      return String.format(Locale.ROOT, "| %-22s | %-16s | %8s | %8d | %10s | %7d | %8d | %10s | %8s / %-8s | %-7s |",
          run, database, cycles, windowsChecked, lost, doubleSuccesses, effectsRepeated, secs(longestPastLease),
          firstFireMax(), firstFireMedian(), verdict);
    }
  }

  static String secs(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  private static final String HEADER = String.format(Locale.ROOT,
      "| %-22s | %-16s | %8s | %8s | %10s | %7s | %8s | %10s | %19s | %-7s |%n"
          + "| %-22s | %-16s | %8s | %8s | %10s | %7s | %8s | %10s | %19s | %-7s |",
      "run", "database", "cycles", "windows", "lost", "double", "effects", "RUNNING", "restart -> 1st fire", "verdict",
      "", "", "", "checked", "(I2)", "success", "repeated", "past lease", "max / median", "");

  /**
   * Saves the row, re-renders the report file and prints the table.
   *
   * @param row the row
   */
  static synchronized void publish(Row row) {
    try {
      Files.createDirectories(DIR);
      String stamp = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
      Files.writeString(DIR.resolve(row.key() + ".row"), row.line() + "\n" + "    " + row.key() + " @ " + stamp + ": "
          + row.notes() + "\n", StandardCharsets.UTF_8);
      List<Path> rows = new ArrayList<>();
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(DIR, "*.row")) {
        ds.forEach(rows::add);
      }
      rows.sort(null);
      StringBuilder table = new StringBuilder();
      StringBuilder notes = new StringBuilder();
      table.append(BEGIN).append('\n').append(HEADER).append('\n');
      table.append(HEADER.lines().findFirst().orElseThrow().replaceAll("[^|]", "-")).append('\n');
      for (Path p : rows) {
        List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
        table.append(lines.get(0)).append('\n');
        for (String l : lines.subList(1, lines.size())) {
          notes.append(l).append('\n');
        }
      }
      table.append("(+N r): windows lost to the registration race before the first READY, not to the fault (see the notes)\n");
      table.append("notes:\n").append(notes).append(END).append('\n');
      Files.writeString(FILE, table.toString(), StandardCharsets.UTF_8);
      System.out.println(table);
      System.out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
