package io.almanac.persistence.audit;

import static io.almanac.persistence.audit.DailyEvents.daily;
import static io.almanac.persistence.audit.DailyEvents.journal;
import static io.almanac.persistence.audit.DailyEvents.ran;
import static io.almanac.persistence.audit.DailyEvents.spec;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.OverlapPolicy;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.WriterStamp;
import io.almanac.persistence.SchemaBootstrap;
import io.almanac.persistence.WriterStampingJournal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.MemberStatus;

/**
 * Test only: the journal shape of a sole seed node restarted into a second cluster on the same
 * database, for one task: two ActorSystems ("node-a" and "node-b") on one journal, each writing the
 * task's persistence id through the journal Almanac configures ({@link WriterStampingJournal}, so
 * every row carries its writer as the runtime's rows do).
 *
 * <ol>
 *   <li>node-a's writer persists the spec and window 2026-11-29 (#1-#4);
 *   <li>node-b's writer, started on the same persistence id (recovers #1-#4), persists window
 *       2026-11-30 (#5-#7);
 *   <li>node-a's writer, still running with its stale state, persists window 2026-12-01: the
 *       journal's unique (persistence id, sequence number) refuses it (#5 is taken) and the writer
 *       stops, as a task entity does on a failed persist;
 *   <li>node-a starts the writer again (it recovers #1-#7) and persists window 2026-12-01 (#8-#10):
 *       node-a writes again after node-b had succeeded it.
 * </ol>
 *
 * Nothing in the result is wrong for I1-I4: only the writers show the two clusters.
 */
final class TwoWriters {

  /** The task's id. */
  static final String TASK = "split";

  private TwoWriters() {}

  /** The two nodes' stamps, and whether node-a's stale write was refused. */
  record Outcome(WriterStamp a, WriterStamp b, boolean staleWriteRefused) {}

  static List<TaskJournal.Event> first() {
    return journal(List.of(spec(daily(TASK, OverlapPolicy.SKIP), Instant.parse("2026-11-28T12:00:00Z"))), ran("2026-11-29"));
  }

  /**
   * Runs the scenario on a journal configuration (the journal plugin's class is set to {@link
   * WriterStampingJournal} if the configuration does not already do so) and stops both systems.
   *
   * @param clusters whether each system is a one-node cluster that joined itself (as a seed node
   *     restarted alone forms one), so the stamps name their clusters; else local systems
   */
  static Outcome write(Config config, boolean bootstrap, boolean clusters) {
    Config stamped = ConfigFactory.parseString((clusters
        ? "pekko.actor.provider = cluster\npekko.remote.artery.canonical { hostname = \"127.0.0.1\", port = 0 }\n"
            + "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on\npekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
        : "pekko.actor.provider = local\n")
        + "jdbc-journal.class = \"" + WriterStampingJournal.class.getName() + "\"").withFallback(config);
    ActorTestKit a = ActorTestKit.create("node-a", stamped);
    ActorTestKit b = null;
    try {
      if (bootstrap) {
        SchemaBootstrap.ensureSchemaBlocking(a.system(), Duration.ofSeconds(30));
      }
      b = ActorTestKit.create("node-b", stamped);
      if (clusters) {
        joinSelf(a);
        joinSelf(b);
      }
      TestProbe<Done> replies = a.createTestProbe();
      ActorRef<JournalWriter.Write> a1 = a.spawn(JournalWriter.create(TASK));
      write(a1, first(), replies);

      TestProbe<Done> repliesB = b.createTestProbe();
      write(b.spawn(JournalWriter.create(TASK)), ran("2026-11-30"), repliesB);

      TestProbe<Object> watcher = a.createTestProbe();
      a1.tell(new JournalWriter.Write(ran("2026-12-01"), replies.getRef()));
      boolean refused;
      try {
        watcher.expectTerminated(a1, Duration.ofSeconds(30));
        refused = true;
      } catch (AssertionError e) {
        refused = false;
      }
      replies.expectNoMessage(Duration.ofMillis(100));

      write(a.spawn(JournalWriter.create(TASK)), ran("2026-12-01"), replies);
      return new Outcome(stamp(a, clusters), stamp(b, clusters), refused);
    } finally {
      if (b != null) {
        b.shutdownTestKit();
      }
      a.shutdownTestKit();
    }
  }

  /** The stamp the kit's journal writes: its node, incarnation and (in a cluster) its cluster's oldest member. */
  private static WriterStamp stamp(ActorTestKit kit, boolean clusters) {
    org.apache.pekko.actor.ExtendedActorSystem system = (org.apache.pekko.actor.ExtendedActorSystem) kit.system().classicSystem();
    WriterStamp stamp = WriterStampingJournal.stampOf(system);
    return clusters ? stamp.inCluster(WriterStampingJournal.clusterName(Cluster.get(system).state())) : stamp;
  }

  private static void joinSelf(ActorTestKit kit) {
    Cluster cluster = Cluster.get(kit.system().classicSystem());
    cluster.join(cluster.selfAddress());
    kit.createTestProbe().awaitAssert(Duration.ofSeconds(30), () -> {
      if (cluster.selfMember().status() != MemberStatus.up()) {
        throw new AssertionError(cluster.selfAddress() + " is not Up yet");
      }
      return null;
    });
  }

  private static void write(ActorRef<JournalWriter.Write> writer, List<TaskJournal.Event> events, TestProbe<Done> probe) {
    writer.tell(new JournalWriter.Write(events, probe.getRef()));
    probe.expectMessage(Duration.ofSeconds(30), Done.getInstance());
  }
}
