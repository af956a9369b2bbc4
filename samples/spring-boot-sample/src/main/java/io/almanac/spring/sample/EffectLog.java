package io.almanac.spring.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The jobs' own record of what they did: one line {@code <task> <window> <attempt>} per effect, in
 * {@code effects.log} under {@code sample.data-dir}. Each job writes its line through its window's
 * effect ledger, so a window's line is written at most once whatever happens to its attempts; a
 * window that ran twice would show twice.
 */
@Component
public class EffectLog {

  /** The file's name under the data folder. */
  public static final String FILE = "effects.log";

  private final Path file;

  /** @param dataDir the sample's data folder ({@code sample.data-dir}) */
  public EffectLog(@Value("${sample.data-dir}") String dataDir) {
    this.file = Path.of(dataDir).resolve(FILE);
  }

  /**
   * Appends one line.
   *
   * @param task the task
   * @param window the window's key
   * @param attempt the attempt
   * @return the line written
   */
  public synchronized String append(String task, String window, int attempt) {
    String line = task + " " + window + " " + attempt;
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return line;
  }

  /** @return every line written so far (none when the file does not exist) */
  public synchronized List<String> lines() {
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
