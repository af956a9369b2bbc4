package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.almanac.internal.executor.JobRegistry;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A spec's job ({@link TaskSpec#job()}) is a registered name or an {@link AgentJob} class name in
 * every entry point: the spec itself, the job registry, {@link Almanac#register(TaskSpec)} and
 * tasks declared in configuration. A name that is neither is refused naming the field {@code job}
 * and the value.
 */
class JobNamesTest {

  /** A job that does nothing, created by its class name. */
  public static final class NoopJob implements AgentJob {
    @Override
    public CompletionStage<JobResult> run(JobContext context) {
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    }
  }

  /** A job class that cannot be created by name: it has no no-argument constructor. */
  public static final class NeedsArgumentJob implements AgentJob {
    /** @param ignored anything */
    public NeedsArgumentJob(String ignored) {}

    @Override
    public CompletionStage<JobResult> run(JobContext context) {
      return CompletableFuture.completedFuture(JobResult.success("ok"));
    }
  }

  private static final AgentJob NOOP = ctx -> CompletableFuture.completedFuture(JobResult.success("ok"));

  private static InvalidSpecException refusedJob(String value, Runnable call) {
    InvalidSpecException e = assertThrows(InvalidSpecException.class, call::run);
    assertEquals("job", e.field(), e.getMessage());
    assertEquals(value, e.value(), e.getMessage());
    return e;
  }

  @Nested
  @DisplayName("the spec")
  class Spec {
    @Test
    @DisplayName("a spec that names no job runs the job registered under its id")
    void jobDefaultsToTheTaskId() {
      assertEquals("digest", TaskSpec.builder("digest").cron("0 0 8 * * ? UTC").build().job());
    }

    @Test
    @DisplayName("validate() refuses a spec without a job, naming the field job")
    void validateRefusesASpecWithoutAJob() {
      InvalidSpecException e = refusedJob(null, () -> TaskSpec.builder("digest").cron("0 0 8 * * ? UTC").job(null).build());
      assertTrue(e.getMessage().startsWith("task 'digest': job is missing: "), e.getMessage());
      refusedJob(null, () -> TaskSpec.builder("digest").cron("0 0 8 * * ?", "UTC").job(null).buildUnvalidated().validate());
      refusedJob("  ", () -> TaskSpec.builder("digest").cron("0 0 8 * * ? UTC").job("  ").build());
    }
  }

  @Nested
  @DisplayName("the job registry")
  class Registry {
    @Test
    @DisplayName("a registered name resolves to its job")
    void registeredNameResolves() {
      JobRegistry jobs = new JobRegistry();
      jobs.register("digest", NOOP);
      assertSame(NOOP, jobs.resolve("digest", "t"));
    }

    @Test
    @DisplayName("an AgentJob class name resolves to an instance, registered under that name for every later attempt")
    void classNameResolves() {
      JobRegistry jobs = new JobRegistry();
      AgentJob job = jobs.resolve(NoopJob.class.getName(), "t");
      assertInstanceOf(NoopJob.class, job);
      assertSame(job, jobs.find(NoopJob.class.getName(), "t"));
      assertTrue(jobs.has(NoopJob.class.getName()));
    }

    @Test
    @DisplayName("a node that never resolved a class name still finds its job at the attempt (another node registered the task)")
    void findResolvesAClassNameLazily() {
      assertInstanceOf(NoopJob.class, new JobRegistry().find(NoopJob.class.getName(), "t"));
      assertNull(new JobRegistry().find("no.such.Job", "t"), "no job: the attempt fails with a reason, nothing throws");
      assertNull(new JobRegistry().find(String.class.getName(), "t"));
    }

    @Test
    @DisplayName("a name that is neither registered nor a class falls back to the job registered under the task id")
    void taskIdFallback() {
      JobRegistry jobs = new JobRegistry();
      jobs.register("t", NOOP);
      assertSame(NOOP, jobs.resolve("unregistered", "t"));
    }

    @Test
    @DisplayName("an unknown name is refused naming job and the value")
    void unknownNameRefused() {
      InvalidSpecException e = refusedJob("digest", () -> new JobRegistry().resolve("digest", "t"));
      assertTrue(e.getMessage().contains("no job is registered under this name"), e.getMessage());
    }

    @Test
    @DisplayName("a class that is not an AgentJob is refused naming job and the value")
    void classThatIsNotAJobRefused() {
      InvalidSpecException e = refusedJob(String.class.getName(), () -> new JobRegistry().resolve(String.class.getName(), "t"));
      assertTrue(e.getMessage().contains("not an io.almanac.AgentJob"), e.getMessage());
    }

    @Test
    @DisplayName("an AgentJob class without a public no-argument constructor is refused naming job and the value")
    void classWithoutNoArgumentConstructorRefused() {
      String name = NeedsArgumentJob.class.getName();
      InvalidSpecException e = refusedJob(name, () -> new JobRegistry().resolve(name, "t"));
      assertTrue(e.getMessage().contains("public no-argument constructor"), e.getMessage());
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  @ExtendWith(LogCapturingExtension.class)
  @DisplayName("the entry points: the Java API and configuration")
  class EntryPoints {
    private final ActorTestKit testKit = ActorTestKit.create("job-names", AlmanacNodeTest.config(String.join("\n",
        "almanac.tasks.by-class { cron = \"0 0 8 * * ? UTC\", job = \"" + NoopJob.class.getName() + "\" }",
        "almanac.tasks.by-name { cron = \"0 0 9 * * ? UTC\", job = \"registered\" }")));
    private final Almanac almanac = Almanac.builder(testKit.system())
        .clock(new SettableClock(Instant.parse("2026-11-28T23:59:00Z"))).alertSink(a -> { })
        .job("registered", NOOP).start();

    @AfterAll
    void stop() {
      ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30), true);
    }

    private <T> T await(CompletionStage<T> stage) {
      return stage.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
    }

    @Test
    @DisplayName("configuration: a task naming its job by class and one naming a registered job both start")
    void configTakesClassAndRegisteredNames() {
      await(almanac.ready());
      assertEquals(NoopJob.class.getName(), await(almanac.task("by-class")).spec().job());
      assertEquals("registered", await(almanac.task("by-name")).spec().job());
    }

    @Test
    @DisplayName("Java: register takes a registered name and an AgentJob class name")
    void registerTakesClassAndRegisteredNames() {
      await(almanac.register(TaskSpec.builder("java-by-class").cron("0 0 10 * * ? UTC").job(NoopJob.class.getName()).build()));
      await(almanac.register(TaskSpec.builder("java-by-name").cron("0 0 11 * * ? UTC").job("registered").build()));
      assertEquals(NoopJob.class.getName(), await(almanac.task("java-by-class")).spec().job());
    }

    @Test
    @DisplayName("Java: register refuses, before anything is stored, a job that is neither, naming job and the value")
    void registerRefusesAnUnknownJob() {
      InvalidSpecException e = refusedJob("nightly-export", () -> almanac.register(
          TaskSpec.builder("unknown-job").cron("0 0 10 * * ? UTC").job("nightly-export").build()));
      assertTrue(e.getMessage().startsWith("task 'unknown-job': job 'nightly-export' is invalid"), e.getMessage());
      refusedJob(String.class.getName(), () -> almanac.register(
          TaskSpec.builder("not-a-job").cron("0 0 10 * * ? UTC").job(String.class.getName()).build()));
    }
  }

  @Test
  @DisplayName("configuration: a node whose declared task names an unknown job does not start, naming the task, job and the value")
  void configRefusesAnUnknownJob() {
    ActorTestKit testKit = ActorTestKit.create("job-names-bad", AlmanacNodeTest.config(
        "almanac.tasks.bad { cron = \"0 0 8 * * ? UTC\", job = \"no.such.DigestJob\" }"));
    try {
      InvalidSpecException e = refusedJob("no.such.DigestJob", () -> Almanac.builder(testKit.system()).start());
      assertTrue(e.getMessage().startsWith("task 'bad': job 'no.such.DigestJob' is invalid"), e.getMessage());
    } finally {
      ActorTestKit.shutdown(testKit.system(), Duration.ofSeconds(30), true);
    }
  }
}
