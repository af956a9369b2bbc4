package io.almanac.persistence.instances;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.AlmanacException;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.instances.ProjectionWorker.Progress;
import io.almanac.persistence.instances.ProjectionWorker.Step;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the instance table from the journal (R29): in one transaction it empties {@code
 * almanac_instance}, its history, the projection's task memory and its offset; then it replays
 * every journal event from the start (all tasks, events written before tagging or any other
 * change alike) exactly as {@link InstanceProjection} applies them, through the journal's head as
 * it was when the rebuild began, and finally runs retention with the given clock. The result equals
 * the table the live projection keeps, row for row (rows already moved by retention come back as
 * they were and move again if they are due).
 *
 * <p>A projection running meanwhile (PostgreSQL, another node) sees its offset reset and replays
 * too; both apply batches in turn under the offset row's lock, and rows are idempotent by
 * {@code last_seq}. Events that the journal no longer holds (deleted below a snapshot with
 * {@code almanac.task.delete-events-below-snapshot = on}) cannot be replayed: their windows'
 * rows are rebuilt from the events that remain.
 *
 * <p>From a command line (the {@code almanac} CLI's subcommand calls {@link #run(Config)}):
 * <pre>{@code
 * java -cp ... io.almanac.persistence.instances.InstanceRebuild    # reads application.conf
 * }</pre>
 */
public final class InstanceRebuild {

  private static final Logger log = LoggerFactory.getLogger(InstanceRebuild.class);

  private InstanceRebuild() {}

  /**
   * What a rebuild did.
   *
   * @param events journal rows read (all persistence ids)
   * @param offset the journal ordering it replayed through
   * @param rows rows in {@code almanac_instance} afterwards
   * @param moved rows retention then moved to the history table
   * @param took how long it took
   */
  public record Result(long events, long offset, long rows, long moved, Duration took) {
    @Override
    public String toString() {
      return "rebuilt almanac_instance from " + events + " journal event(s) through ordering " + offset + ": " + rows
          + " row(s), " + moved + " moved to almanac_instance_history by retention, in " + took.toMillis() + " ms";
    }
  }

  /**
   * Rebuilds with a local ActorSystem of its own on {@code config} (the node's configuration may be
   * passed as it is: the provider is overridden with {@code local}). An H2 file can be open in one
   * JVM only: stop the node first. Creates the tables if they are missing.
   *
   * @param config the configuration naming the journal (e.g. {@code include "almanac-h2.conf"})
   * @return what it did
   * @throws io.almanac.InvalidSpecException for a wrong setting, naming key and value
   * @throws AlmanacException when the database fails
   */
  public static Result run(Config config) {
    return run(config, Clock.systemUTC());
  }

  /**
   * {@link #run(Config)} with the clock retention judges by.
   *
   * @param config the configuration naming the journal
   * @param clock retention's clock
   * @return what it did
   */
  public static Result run(Config config, Clock clock) {
    Objects.requireNonNull(config, "config");
    Config local = ConfigFactory.parseString(String.join("\n",
        "pekko.actor.provider = local",
        "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off",
        "pekko.log-dead-letters = off"));
    InstanceSettings.from(config.withFallback(ConfigFactory.defaultReference())); // refuse bad settings first
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "almanac-instance-rebuild",
        ConfigFactory.load(local.withFallback(config)));
    try {
      SchemaBootstrap.ensureSchemaBlocking(system, Duration.ofMinutes(2));
      return run(system, clock);
    } finally {
      system.terminate();
      try {
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.warn("instance rebuild: the ActorSystem did not terminate in 30 s: {}", e.toString());
      }
    }
  }

  /**
   * Rebuilds on a caller's ActorSystem (whose configuration names the journal), e.g. a running
   * node's. The tables must exist ({@link SchemaBootstrap}).
   *
   * @param system the ActorSystem
   * @param clock retention's clock
   * @return what it did
   * @throws AlmanacException when the database fails
   */
  public static Result run(ActorSystem<?> system, Clock clock) {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(clock, "clock");
    InstanceSettings settings = InstanceSettings.from(system.settings().config());
    long began = System.nanoTime();
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(system));
    InstanceStore store = InstanceStore.of(system.settings().config());
    ProjectionWorker worker = new ProjectionWorker(InstanceProjection.NAME, store,
        (bytes, id, manifest) -> serialization.deserialize(bytes, id, manifest).get(), settings, new Progress());
    try (JournalDb db = JournalDb.of(system); Connection c = db.connect()) {
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        store.lockOffset(c, InstanceProjection.NAME, clock.instant());
        store.truncate(c);
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(autoCommit);
      }
      long target = store.head(c);
      log.info("instance rebuild: emptied the instance tables; replaying the journal through ordering {}", target);
      long events = 0;
      long lastLog = System.nanoTime();
      while (worker.offset() < target) {
        Step step = worker.step(c, clock.instant());
        events += step.events();
        if (step.events() == 0 && !step.more()) {
          Thread.sleep(Math.max(10, settings.pollInterval().toMillis())); // a hole not waited for long enough yet
        }
        if (System.nanoTime() - lastLog > TimeUnit.SECONDS.toNanos(10)) {
          lastLog = System.nanoTime();
          log.info("instance rebuild: at ordering {} of {} ({} events)", worker.offset(), target, events);
        }
      }
      long moved = Retention.run(c, store, InstanceProjection.NAME, new RetentionRule(settings.retention()), clock.instant(),
          settings.retentionBatchSize());
      long rows;
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + InstanceStore.LIVE)) {
        rs.next();
        rows = rs.getLong(1);
      }
      Result result = new Result(events, worker.offset(), rows, moved, Duration.ofNanos(System.nanoTime() - began));
      log.info("instance rebuild: {}", result);
      return result;
    } catch (SQLException e) {
      throw new AlmanacException("instance rebuild failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AlmanacException("instance rebuild interrupted", e);
    }
  }

  /**
   * Rebuilds the table of the journal that {@code application.conf} (and the system properties)
   * name, printing what it did; exits 1 on failure, naming why.
   *
   * @param args none
   */
  public static void main(String[] args) {
    try {
      System.out.println(run(ConfigFactory.load()));
    } catch (RuntimeException e) {
      System.err.println("instance rebuild failed: " + e.getMessage());
      System.exit(1);
    }
  }

}
