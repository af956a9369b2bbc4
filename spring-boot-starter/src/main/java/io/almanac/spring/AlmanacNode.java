package io.almanac.spring;

import com.typesafe.config.Config;
import io.almanac.AgentJob;
import io.almanac.AlertSink;
import io.almanac.Almanac;
import io.almanac.Condition;
import io.almanac.ExclusionCalendar;
import io.almanac.InvalidSpecException;
import io.almanac.PoolSpec;
import io.almanac.TaskSpec;
import io.almanac.http.AlmanacHttp;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.InstanceProjection;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.web.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;

/**
 * The Almanac node of a Spring application: its ActorSystem and {@link Almanac}, started as the demo
 * node starts one (schema, {@link Almanac.Builder}, the instance table's projection, the HTTP
 * endpoints), with the application's beans as jobs, conditions, pools, calendars and tasks.
 *
 * <p>Its life: created with the context (the journal opened, jobs registered, the tasks of {@code
 * almanac.tasks} registered by {@link Almanac.Builder#start()}); started in its {@link #PHASE}
 * ({@link TaskSpec} beans registered, readiness awaited, the HTTP endpoints bound); stopped in the
 * same phase, after Spring's web server has finished its graceful shutdown and stopped: the node's
 * coordinated shutdown drains running jobs ({@code almanac.executor.shutdown-grace}) and {@link
 * #stop()} returns when the ActorSystem has terminated, so the context's close waits for the drain.
 */
public final class AlmanacNode implements SmartLifecycle, DisposableBean {

  private static final Logger LOG = LoggerFactory.getLogger(AlmanacNode.class);

  /**
   * The node's lifecycle phase: below Spring's web server ({@link
   * WebServerGracefulShutdownLifecycle#SMART_LIFECYCLE_PHASE} for the graceful shutdown, 1024 below it
   * for the server's stop), so the node starts before the server takes requests and drains after the
   * server's graceful shutdown has ended and the server has stopped.
   */
  public static final int PHASE = WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE - 2048;

  /** The coordinated shutdown's reason when the Spring context closes. */
  public static final class SpringContextClosed implements CoordinatedShutdown.Reason {
    /** The one instance. */
    public static final SpringContextClosed INSTANCE = new SpringContextClosed();

    private SpringContextClosed() {}

    @Override
    public String toString() {
      return "SpringContextClosed";
    }
  }

  private final ActorSystem<Void> system;
  private final Almanac almanac;
  private final SpringConfig.Mapped mapped;
  private final ListableBeanFactory beans;
  private final boolean http;
  private volatile ServerBinding binding;
  private volatile boolean running;

  private AlmanacNode(ActorSystem<Void> system, Almanac almanac, SpringConfig.Mapped mapped, ListableBeanFactory beans,
      boolean http) {
    this.system = system;
    this.almanac = almanac;
    this.mapped = mapped;
    this.beans = beans;
    this.http = http;
  }

  /** What the node is started with, from the context. */
  record Parts(String systemName, boolean http, Optional<Clock> clock, Optional<AlertSink> alerts,
      Optional<MeterRegistry> meters, Optional<io.opentelemetry.api.OpenTelemetry> openTelemetry) {}

  /**
   * Creates the ActorSystem, opens the journal and starts Almanac; on any failure the ActorSystem is
   * terminated before the error is thrown.
   */
  static AlmanacNode start(SpringConfig.Mapped mapped, ListableBeanFactory beans, Parts parts) {
    // the application's beans first: one that fails to be created fails the start before any thread is started
    Map<String, AgentJob> jobs = jobs(beans);
    Map<String, Condition> conditions = beans.getBeansOfType(Condition.class);
    java.util.Collection<PoolSpec> pools = beans.getBeansOfType(PoolSpec.class).values();
    java.util.Collection<ExclusionCalendar> calendars = beans.getBeansOfType(ExclusionCalendar.class).values();
    ActorSystem<Void> system;
    try {
      system = ActorSystem.create(Behaviors.empty(), parts.systemName(), mapped.config());
    } catch (RuntimeException e) {
      throw refusal(mapped, e);
    }
    try {
      SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofSeconds(60));
      Clock clock = parts.clock().orElse(Clock.systemUTC());
      Almanac.Builder builder = Almanac.builder(system).clock(clock);
      parts.alerts().ifPresent(builder::alertSink);
      parts.meters().ifPresent(builder::meterRegistry);
      parts.openTelemetry().ifPresent(builder::openTelemetry); // the application's: its spans and the node's in one trace
      jobs.forEach(builder::job);
      conditions.forEach(builder::condition);
      pools.forEach(builder::pool);
      calendars.forEach(builder::calendar);
      Almanac almanac = builder.start();
      InstanceProjection.start(system, clock);
      if (parts.http()) {
        AlmanacHttp.Settings.from(system.settings().config()); // a wrong almanac.http setting is refused now
      }
      LOG.info("Almanac node '{}' started on {} (journal: {})", parts.systemName(), system.address(), mapped.database());
      return new AlmanacNode(system, almanac, mapped, beans, parts.http());
    } catch (RuntimeException e) {
      terminate(system, Duration.ofSeconds(30));
      throw refusal(mapped, e);
    }
  }

  /** The application's jobs by name: each {@link AgentJob} bean under its bean name or its {@link AlmanacJob}. */
  static Map<String, AgentJob> jobs(ListableBeanFactory beans) {
    Map<String, AgentJob> jobs = new TreeMap<>();
    Map<String, String> beanOf = new TreeMap<>();
    beans.getBeansOfType(AgentJob.class).forEach((bean, job) -> {
      AlmanacJob named = beans.findAnnotationOnBean(bean, AlmanacJob.class);
      String name = named == null ? bean : named.value();
      if (name.isBlank()) {
        throw new InvalidSpecException("@AlmanacJob of bean '" + bean + "'", name, "must not be blank");
      }
      String other = beanOf.putIfAbsent(name, bean);
      if (other != null) {
        throw new InvalidSpecException("@AlmanacJob of bean '" + bean + "'", name, "is the name of bean '" + other
            + "' too: each job needs a name of its own");
      }
      jobs.put(name, job);
    });
    return jobs;
  }

  /**
   * An error of the node's start: a refused configuration key as an {@link AlmanacPropertyException}
   * naming the Spring property it came from (when it came from one); anything else as it is.
   */
  private static RuntimeException refusal(SpringConfig.Mapped mapped, RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InvalidSpecException invalid && invalid.field() != null
          && SpringConfig.ROOTS.stream().anyMatch(r -> invalid.field().startsWith(r + "."))) {
        return new AlmanacPropertyException(invalid.field(), origin(mapped, invalid.field()), invalid.getMessage(), e);
      }
      if (t instanceof com.typesafe.config.ConfigException config) {
        return new AlmanacPropertyException(null, null, config.getMessage(), e);
      }
    }
    return e;
  }

  /** The Spring property a key came from: the key itself, or the nearest enclosing one (a task's block). */
  private static String origin(SpringConfig.Mapped mapped, String field) {
    for (String key = field; !key.isEmpty(); key = key.contains(".") ? key.substring(0, key.lastIndexOf('.')) : "") {
      String origin = mapped.origin(key);
      if (origin != null) {
        return origin;
      }
      if (!key.contains(".")) {
        break;
      }
    }
    return null;
  }

  /** @return the node's ActorSystem */
  public ActorSystem<Void> system() {
    return system;
  }

  /** @return the node */
  public Almanac almanac() {
    return almanac;
  }

  /** @return the node's configuration, as mapped from Spring's properties */
  public Config config() {
    return mapped.config();
  }

  /** @return the HTTP endpoints' binding, or empty when they are off or not bound (yet) */
  public Optional<ServerBinding> httpBinding() {
    return Optional.ofNullable(binding);
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** Registers the {@link TaskSpec} beans, waits until the node is ready, binds the HTTP endpoints. */
  @Override
  public void start() {
    List<TaskSpec> specs = new ArrayList<>(beans.getBeansOfType(TaskSpec.class).values());
    Duration wait = almanacTimeout();
    try {
      if (!specs.isEmpty()) {
        almanac.registerAll(specs).toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("registered {} task(s) from TaskSpec beans: {}", specs.size(), specs.stream().map(TaskSpec::id).toList());
      }
      almanac.ready().toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      if (http) {
        binding = AlmanacHttp.start(system, almanac).toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? refusal(mapped, r) : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("the Almanac node was not ready within " + wait, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the Almanac node started", e);
    }
    running = true;
  }

  /** How long a start step may take: the node's registration timeout and a margin. */
  private Duration almanacTimeout() {
    Config c = system.settings().config();
    return c.getDuration("almanac.node.registration-timeout").plusSeconds(10);
  }

  /**
   * Runs the node's coordinated shutdown (the drain of running jobs first) and returns when its
   * ActorSystem has terminated.
   */
  @Override
  public void stop() {
    running = false;
    shutdown();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** The context closes without having started this lifecycle (a failed refresh): stop the node anyway. */
  @Override
  public void destroy() {
    running = false;
    shutdown();
  }

  private void shutdown() {
    if (system.getWhenTerminated().toCompletableFuture().isDone()) {
      return;
    }
    Config c = system.settings().config();
    // the drain's phase, and the phases after it, within a minute at most each
    Duration limit = c.getDuration("pekko.coordinated-shutdown.phases.service-requests-done.timeout").plusSeconds(60);
    LOG.info("Spring context closing: the Almanac node drains (almanac.executor.shutdown-grace {}) and stops",
        c.getDuration("almanac.executor.shutdown-grace"));
    try {
      // the coordinated shutdown terminates the ActorSystem at its end
      CoordinatedShutdown.get(system).runAll(SpringContextClosed.INSTANCE).toCompletableFuture()
          .get(limit.toMillis(), TimeUnit.MILLISECONDS);
      system.getWhenTerminated().toCompletableFuture().get(limit.toMillis(), TimeUnit.MILLISECONDS);
      LOG.info("the Almanac node has stopped");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("the Almanac node did not stop within {}: {}", limit, e.toString());
      terminate(system, Duration.ofSeconds(10));
    }
  }

  private static void terminate(ActorSystem<?> system, Duration limit) {
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("the Almanac node's ActorSystem did not terminate within {}: {}", limit, e.toString());
    }
  }
}
