package io.almanac.samples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigUtil;
import io.almanac.AgentJob;
import io.almanac.Almanac;
import io.almanac.JobContext;
import io.almanac.JobResult;
import io.almanac.RetryPolicy;
import io.almanac.TaskSpec;
import io.almanac.http.AlmanacHttp;
import io.almanac.persistence.SchemaBootstrap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * What a job did, in plain sight (docs/long-jobs/logs.md): a node on a fresh H2 file with the HTTP
 * API and dashboard on 127.0.0.1:8558, and one task, {@code brief}, run at once. Its job drafts five
 * sections for about 10 s, saying how far it is ({@code ctx.progress}) and what it did ({@code
 * ctx.log()}); its first attempt fails when it publishes, and its retry 10 s later succeeds. Watch
 * the progress bar and then each attempt's log on the window's page, or run {@code almanac logs brief
 * WINDOW}. Stop with Ctrl-C.
 *
 * <pre>
 * java -cp samples/target/almanac-demo.jar io.almanac.samples.LogsExample
 * </pre>
 */
public final class LogsExample {

  private LogsExample() {}

  /** Drafts a brief in five sections; the first attempt's publish is refused. */
  static final class BriefJob implements AgentJob {
    private final Duration perSection;

    BriefJob(Duration perSection) {
      this.perSection = perSection;
    }

    @Override
    public CompletionStage<JobResult> run(JobContext ctx) {
      ctx.log().info("gathered {} sources for window {}", 14, ctx.window().value());
      for (int section = 1; section <= 5; section++) {
        ctx.progress((section - 1) / 5.0, "drafting section " + section + " of 5");
        if (!pause(ctx)) {
          return CompletableFuture.completedFuture(JobResult.failure("cancelled while drafting"));
        }
        ctx.log().info("section {} drafted ({} words)", section, 120 + 10 * section);
      }
      ctx.progress(1.0, "publishing");
      if (ctx.attempt() == 1) {
        ctx.log().error("publish refused: HTTP 409 from cms.example.com");
        throw new IllegalStateException("tool 'publish' refused the draft: a draft with this title exists");
      }
      ctx.log().info("published as a new revision");
      return CompletableFuture.completedFuture(JobResult.success("brief published (attempt " + ctx.attempt() + ")"));
    }

    /** A section's work: here a wait, cut short when the attempt is cancelled. */
    private boolean pause(JobContext ctx) {
      try {
        ctx.cancellation().toCompletableFuture().get(perSection.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        return false;
      } catch (java.util.concurrent.TimeoutException e) {
        return true;
      } catch (Exception e) {
        return false;
      }
    }
  }

  /**
   * Starts the node and runs the task once.
   *
   * @param args none
   * @throws Exception if the node cannot start
   */
  public static void main(String[] args) throws Exception {
    Path data = Files.createTempDirectory("almanac-logs-example");
    Config config = ConfigFactory.load(ConfigFactory.parseString(String.join("\n",
        "include \"almanac-h2.conf\"",
        "include \"almanac-embedded.conf\"",
        "almanac.persistence.h2.path = " + ConfigUtil.quoteString(data.resolve("almanac").toString()))));
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "almanac", config);
    SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(30));
    Almanac almanac = Almanac.builder(system).job("brief", new BriefJob(Duration.ofSeconds(2))).start();
    AlmanacHttp.start(system, almanac).toCompletableFuture().join();
    almanac.register(TaskSpec.builder("brief").cron("0 0 * * * ? UTC").window("per-firing")
        .retry(RetryPolicy.delayed(Duration.ofSeconds(10))).maxRetries(1).job("brief").build())
        .toCompletableFuture().join();
    String window = almanac.runNow("brief").toCompletableFuture().join().window().value();
    System.out.println("brief runs window " + window + ": open http://127.0.0.1:8558/#/tasks/brief/windows/"
        + java.net.URLEncoder.encode(window, java.nio.charset.StandardCharsets.UTF_8)
        + " or run: almanac logs brief " + window + "   (Ctrl-C to stop; data in " + data + ")");
  }
}
