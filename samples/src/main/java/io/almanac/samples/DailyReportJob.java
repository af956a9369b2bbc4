package io.almanac.samples;

import io.almanac.AgentJob;
import io.almanac.JobContext;
import io.almanac.JobResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The field report's daily report: runs only once the day's order export succeeded (its dependency)
 * and the settlement file arrived (its condition). It reads the export, checks the settlement file
 * is there and writes {@code <data-dir>/reports/<window>.md}.
 */
public final class DailyReportJob implements AgentJob {

  private final Path dataDir;

  /** The job as {@code almanac.tasks} creates it: data under {@code ./data}. */
  public DailyReportJob() {
    this(Path.of("./data"));
  }

  /** @param dataDir where the export and settlement files are read and the report written */
  public DailyReportJob(Path dataDir) {
    this.dataDir = dataDir;
  }

  @Override
  public CompletionStage<JobResult> run(JobContext ctx) throws Exception {
    String window = ctx.window().value();
    Path export = OrderExportJob.exportFile(dataDir, window);
    if (!Files.exists(export) || !Files.exists(OrderExportJob.settlementFile(dataDir, window))) {
      // Almanac released the window, so both were there: a missing file means someone removed it.
      return CompletableFuture.completedFuture(JobResult.failure("export or settlement file of " + window + " is missing"));
    }
    String orders = Files.readAllLines(export, StandardCharsets.UTF_8).get(1).split(",")[0];
    Path report = dataDir.resolve("reports").resolve(window.replace(':', '-') + ".md");
    OrderExportJob.write(report, "# Daily report " + window + "\n\n" + orders + " orders, settlement reconciled\n");
    return CompletableFuture.completedFuture(JobResult.success("report of " + window + ": " + orders
        + " orders, settlement reconciled"));
  }
}
