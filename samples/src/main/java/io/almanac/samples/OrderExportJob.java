package io.almanac.samples;

import io.almanac.AgentJob;
import io.almanac.JobContext;
import io.almanac.JobResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The field report's e-commerce upstream: export the day's orders for the daily report. A stand-in
 * that writes two files for its window:
 *
 * <ol>
 *   <li>the payment provider's settlement file, {@code <data-dir>/settlement/<window>.csv} (in real
 *       life it arrives from outside; here it "arrives" when the export starts, so that the report's
 *       {@value DemoTasks#SETTLEMENT_FILE_ARRIVED} condition can be met in the demo);
 *   <li>the export itself, {@code <data-dir>/exports/<window>.csv}, only when the export succeeds.
 * </ol>
 *
 * With {@code failOddMinutes} it fails every window that starts in an odd minute (UTC), the
 * compressed-time demo's "day when the warehouse database was down": the report of that day then
 * waits for it, and is SKIPPED with DEPENDENCY_NOT_MET at its deadline.
 */
public final class OrderExportJob implements AgentJob {

  private final Path dataDir;
  private final boolean failOddMinutes;

  /** The job as {@code almanac.tasks} creates it: data under {@code ./data}, never failing. */
  public OrderExportJob() {
    this(Path.of("./data"), false);
  }

  /**
   * @param dataDir where the settlement and export files are written
   * @param failOddMinutes whether windows starting in an odd minute fail
   */
  public OrderExportJob(Path dataDir, boolean failOddMinutes) {
    this.dataDir = dataDir;
    this.failOddMinutes = failOddMinutes;
  }

  @Override
  public CompletionStage<JobResult> run(JobContext ctx) throws Exception {
    write(settlementFile(dataDir, ctx.window().value()), "settlement,window\nprovider-batch," + ctx.window() + "\n");
    if (failOddMinutes && ctx.windowStart().atOffset(ZoneOffset.UTC).getMinute() % 2 == 1) {
      return CompletableFuture.completedFuture(JobResult.failure(
          "warehouse database unreachable (simulated: windows starting in an odd minute fail)"));
    }
    int orders = 100 + Math.floorMod(ctx.window().value().hashCode(), 900);
    write(exportFile(dataDir, ctx.window().value()), "orders,window\n" + orders + "," + ctx.window() + "\n");
    return CompletableFuture.completedFuture(JobResult.success("exported " + orders + " orders of " + ctx.window()));
  }

  /**
   * @param dataDir the demo's data folder
   * @param window a window key
   * @return the settlement file of that window
   */
  public static Path settlementFile(Path dataDir, String window) {
    return dataDir.resolve("settlement").resolve(window.replace(':', '-') + ".csv");
  }

  /**
   * @param dataDir the demo's data folder
   * @param window a window key
   * @return the export file of that window
   */
  public static Path exportFile(Path dataDir, String window) {
    return dataDir.resolve("exports").resolve(window.replace(':', '-') + ".csv");
  }

  /** Writes a file whole (to a temporary file, then moved): a poll never sees half of it. */
  static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
