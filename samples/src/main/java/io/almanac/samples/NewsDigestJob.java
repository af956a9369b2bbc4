package io.almanac.samples;

import io.almanac.AgentJob;
import io.almanac.JobContext;
import io.almanac.JobResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The field report's agent job: every morning, pull the news, summarise it with a model, push the
 * digest to subscribers. Here the three steps are stand-ins that behave like the real ones where it
 * matters to the scheduler:
 *
 * <ol>
 *   <li><b>pull</b>: deterministic fake headlines for the window's date (the same day gives the same
 *       headlines, so a retry summarises the same input);
 *   <li><b>summarise</b>: a small deterministic "model" that takes a while (1.5 s by default),
 *       working in small steps, heartbeating to keep its lease and stopping when cancelled;
 *   <li><b>push</b>: one line in the outbox through the window's effect ledger ({@code push:outbox}),
 *       so a retry or a catch-up of the same day never pushes the digest twice (R19).
 * </ol>
 *
 * The full digest goes to {@code <data-dir>/digests/<window>.md} (written again by a retry, which
 * is harmless); the window keeps only a short summary and that file's URI (R22).
 */
public final class NewsDigestJob implements AgentJob {

  /** The ledger key of the digest's push. */
  public static final String PUSH_KEY = "push:outbox";

  /** Longest summary this job reports. */
  public static final int MAX_SUMMARY = 200;

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final String[] SUBJECTS = {"Central bank", "Port of Shanghai", "Chip makers", "Rail operator",
      "Weather service", "Solar industry", "City council", "Tech regulator", "Football league", "Space agency"};
  private static final String[] VERBS = {"raises", "delays", "announces", "expands", "cuts", "reviews", "opens",
      "tests", "doubles", "pauses"};
  private static final String[] OBJECTS = {"lending rates", "a new terminal", "export forecasts", "night trains",
      "a typhoon warning", "panel prices", "metro line 19", "AI model rules", "the spring season", "a lunar probe"};

  private final Path dataDir;
  private final Duration modelTime;

  /** The job as {@code almanac.tasks} creates it: data under {@code ./data}, a 1.5 s model. */
  public NewsDigestJob() {
    this(Path.of("./data"), Duration.ofMillis(1500));
  }

  /**
   * @param dataDir where the outbox and the digests are written
   * @param modelTime how long the stand-in model takes per summary
   */
  public NewsDigestJob(Path dataDir, Duration modelTime) {
    this.dataDir = dataDir;
    this.modelTime = modelTime;
  }

  @Override
  public CompletionStage<JobResult> run(JobContext ctx) throws Exception {
    LocalDate day = LocalDate.ofInstant(ctx.windowStart(), ctx.zone());
    List<String> headlines = pull(day);
    String digest = summarise(headlines, ctx);
    Path file = writeDigest(ctx, day, headlines, digest);
    String messageId = Outbox.in(dataDir, Clock.systemUTC())
        .pushOnce(ctx, PUSH_KEY, "digest " + ctx.window() + ": " + digest, WAIT);
    String summary = shorten(digest, MAX_SUMMARY - messageId.length() - 3) + " [" + messageId + "]";
    return CompletableFuture.completedFuture(JobResult.success(summary, uriOf(file)));
  }

  /**
   * The stand-in for pulling the news: eight headlines, the same for the same day.
   *
   * @param day the business day
   * @return the day's headlines
   */
  static List<String> pull(LocalDate day) {
    SplittableRandom random = new SplittableRandom(day.toEpochDay() * 31 + 7);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      out.add(SUBJECTS[random.nextInt(SUBJECTS.length)] + " " + VERBS[random.nextInt(VERBS.length)] + " "
          + OBJECTS[random.nextInt(OBJECTS.length)]);
    }
    return out;
  }

  /**
   * The stand-in for the model: picks the three headlines with the most "weight" (a deterministic
   * score), taking {@code modelTime} in steps of 100 ms, heartbeating halfway and stopping as soon
   * as the attempt is cancelled.
   */
  private String summarise(List<String> headlines, JobContext ctx) throws InterruptedException {
    long steps = Math.max(1, modelTime.toMillis() / 100);
    for (long i = 0; i < steps; i++) {
      if (ctx.isCancelled()) {
        throw new CancellationException("cancelled while summarising");
      }
      if (i == steps / 2) {
        ctx.heartbeat(); // a real model call is long: tell Almanac the attempt is alive (R23)
      }
      Thread.sleep(100);
    }
    List<String> ranked = new ArrayList<>(headlines);
    ranked.sort((a, b) -> Integer.compare(Math.floorMod(b.hashCode(), 97), Math.floorMod(a.hashCode(), 97)));
    return "Top stories: " + String.join("; ", ranked.subList(0, Math.min(3, ranked.size()))) + ".";
  }

  private Path writeDigest(JobContext ctx, LocalDate day, List<String> headlines, String digest) throws IOException {
    Path dir = dataDir.resolve("digests");
    Files.createDirectories(dir);
    Path file = dir.resolve(ctx.window().value().replace(':', '-') + ".md");
    StringBuilder md = new StringBuilder()
        .append("# News digest ").append(day).append(" (").append(ctx.zone()).append(")\n\n")
        .append(digest).append("\n\n## All headlines\n\n");
    headlines.forEach(h -> md.append("- ").append(h).append('\n'));
    md.append("\n_window ").append(ctx.window()).append(", attempt ").append(ctx.attempt()).append(" (")
        .append(ctx.runKind()).append(")_\n");
    Path tmp = dir.resolve(file.getFileName() + ".tmp");
    Files.writeString(tmp, md, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return file;
  }

  /** {@code file:./data/digests/2026-11-29.md} for a relative data folder, else an absolute file URI. */
  private String uriOf(Path file) {
    if (file.isAbsolute()) {
      return file.toUri().toString();
    }
    String path = file.normalize().toString().replace('\\', '/');
    return "file:" + (path.startsWith(".") ? path : "./" + path);
  }

  static String shorten(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 3) + "...";
  }
}
