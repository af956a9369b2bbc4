package io.almanac.internal.alert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.almanac.Alert;
import io.almanac.AlertPage;
import io.almanac.AlertRecord;
import io.almanac.AlertRecord.DeliveryStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.JUnit5TestKitBuilder;
import org.apache.pekko.actor.testkit.typed.javadsl.TestKitJUnit5Extension;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The alert history (R32) keeps what fired and where it went: a batch is one write and one journal
 * event ({@link AlertLog.AlertsRecorded}) folding as its members would one by one, a delivery
 * replaces that sink's earlier state, a batch written again adds nothing, the history keeps the
 * latest {@link AlertRecord#KEPT} alerts only, pages are newest first by task and time with a
 * cursor, and the state survives a restart (the testkit also checks every command, event, reply and
 * the state serialize).
 */
@ExtendWith(TestKitJUnit5Extension.class)
class AlertLogEntityTest {

  static final Config CONFIG = EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load());

  @JUnit5TestKit
  public ActorTestKit testKit = new JUnit5TestKitBuilder().withCustomConfig(CONFIG).build();

  private static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");
  private static final String NODE = "pekko://almanac@10.0.0.1:25520";
  private EventSourcedBehaviorTestKit<AlertLogProtocol.Command, AlertLog.Event, AlertLog.State> kit;

  @BeforeEach
  void start() {
    kit = EventSourcedBehaviorTestKit.create(testKit.system(), AlertLogEntity.create());
  }

  static AlertLog.AlertRaised raised(String id, String task, Instant at) {
    return new AlertLog.AlertRaised(id, Alert.Kind.FINAL_FAILED, task, "2026-12-06", "window '2026-12-06' of task '" + task
        + "' failed for good", at, NODE);
  }

  static AlertLog.AlertDeliveryRecorded delivery(String id, String sink, DeliveryStatus status, int attempts, String detail) {
    return new AlertLog.AlertDeliveryRecorded(id, sink, status, attempts, detail, T0.plusSeconds(attempts));
  }

  private void append(AlertLog.Change... events) {
    kit.<Done>runCommand(r -> new AlertLogProtocol.Append(List.of(events), r));
  }

  /** What the journal holds of the history (each element one row). */
  private List<Object> journal() {
    return kit.persistenceTestKit().persistedInStorage(AlertLog.PERSISTENCE_ID);
  }

  private AlertPage page(String task, Instant since, Long before, int limit) {
    return kit.<AlertLogProtocol.Page>runCommand(r -> new AlertLogProtocol.Query(task, since, before, limit, r)).reply().page();
  }

  @Test
  @DisplayName("a batch is one write; a webhook's retry then delivery replace its state; the log sink's stays")
  void deliveriesReplacePerSink() {
    List<AlertLog.Change> batch = List.of(raised("a1", "report", T0),
        delivery("a1", "log", DeliveryStatus.DELIVERED, 1, null),
        delivery("a1", "webhook http://127.0.0.1:9", DeliveryStatus.RETRYING, 1, "status 503"));
    var written = kit.<Done>runCommand(r -> new AlertLogProtocol.Append(batch, r));
    assertEquals(List.of(new AlertLog.AlertsRecorded(batch)), written.events(), "one event, its members in order");
    append(delivery("a1", "webhook http://127.0.0.1:9", DeliveryStatus.DELIVERED, 2, null));
    assertEquals(2, journal().size(), "two writes, two journal rows");
    AlertRecord a = page(null, null, null, 10).alerts().get(0);
    assertEquals(1, a.seq());
    assertEquals("report", a.taskId());
    assertEquals(List.of("log", "webhook http://127.0.0.1:9"), a.deliveries().stream().map(AlertRecord.Delivery::sink).toList());
    AlertRecord.Delivery hook = a.deliveries().get(1);
    assertEquals(DeliveryStatus.DELIVERED, hook.status());
    assertEquals(2, hook.attempts());
    assertNull(hook.detail());
  }

  @Test
  @DisplayName("a batch of N raises and deliveries is one journal event, and folds to the state its members gave one by one")
  void aBatchIsOneEventWithTheSameFold() {
    List<AlertLog.Change> batch = new ArrayList<>();
    AlertLog.State oneByOne = AlertLog.State.empty();
    for (int i = 1; i <= 100; i++) {
      AlertLog.Change r = raised("a" + i, i % 2 == 0 ? "report" : "digest", T0.plusSeconds(i));
      AlertLog.Change d = delivery("a" + i, "log", i % 3 == 0 ? DeliveryStatus.FAILED : DeliveryStatus.DELIVERED, 1,
          i % 3 == 0 ? "boom" : null);
      batch.add(r);
      batch.add(d);
      oneByOne = oneByOne.evolve(r).evolve(d);
    }
    batch.add(delivery("a7", "webhook http://127.0.0.1:9", DeliveryStatus.RETRYING, 1, "status 503"));
    oneByOne = oneByOne.evolve(batch.get(batch.size() - 1));
    var written = kit.<Done>runCommand(r -> new AlertLogProtocol.Append(List.copyOf(batch), r));
    assertEquals(1, written.events().size());
    assertEquals(List.of(new AlertLog.AlertsRecorded(batch)), journal(), "201 changes, one journal row");
    assertEquals(oneByOne, kit.getState(), "the batch folds as its members did one by one");
    assertEquals(oneByOne, AlertLog.State.empty().evolve(new AlertLog.AlertsRecorded(batch)));
    assertEquals(101, kit.getState().nextSeq());
    assertEquals(List.of("a100", "a98"), page("report", null, null, 2).alerts().stream().map(AlertRecord::id).toList());
    AlertRecord a7 = page("digest", null, null, 100).alerts().stream().filter(a -> a.id().equals("a7")).findFirst()
        .orElseThrow();
    assertEquals(List.of("log", "webhook http://127.0.0.1:9"), a7.deliveries().stream().map(AlertRecord.Delivery::sink)
        .toList());
    kit.restart();
    assertEquals(oneByOne, kit.getState(), "replayed from the one event");
  }

  @Test
  @DisplayName("a batch written again after a lost answer adds nothing; a read writes nothing")
  void batchWrittenAgainAddsNothing() {
    List<AlertLog.Change> batch = List.of(raised("a1", "report", T0), delivery("a1", "log", DeliveryStatus.DELIVERED, 1,
        null), raised("a2", "report", T0.plusSeconds(1)), delivery("a2", "log", DeliveryStatus.FAILED, 1, "boom"));
    kit.<Done>runCommand(r -> new AlertLogProtocol.Append(batch, r));
    AlertLog.State once = kit.getState();
    kit.<Done>runCommand(r -> new AlertLogProtocol.Append(batch, r));
    assertEquals(once, kit.getState(), "the second write adds no alert, no seq and no delivery");
    assertEquals(2, journal().size(), "each write one row, whatever its members");
    assertEquals(2, page(null, null, null, 10).alerts().size());
    assertTrue(kit.<AlertLogProtocol.Page>runCommand(r -> new AlertLogProtocol.Query(null, null, null, 10, r)).hasNoEvents());
    kit.restart();
    assertEquals(once, kit.getState(), "nor on replay");
  }

  @Test
  @DisplayName("the fold still reads a single raise or delivery (a journal written before batches were one event)")
  void singleChangesStillFold() {
    List<AlertLog.Change> changes = List.of(raised("a1", "report", T0), delivery("a1", "log", DeliveryStatus.DELIVERED, 1,
        null));
    AlertLog.State single = AlertLog.State.empty();
    for (AlertLog.Change c : changes) {
      single = single.evolve(c);
    }
    assertEquals(AlertLog.State.empty().evolve(new AlertLog.AlertsRecorded(changes)), single);
    assertEquals(DeliveryStatus.DELIVERED, single.alerts().get(0).deliveries().get(0).status());
    assertSame(single, single.evolve(new AlertLog.AlertsRecorded(List.of())), "an empty batch changes nothing");
  }

  @Test
  @DisplayName("pages: newest first, by task and since, with a cursor to the older ones")
  void pagesNewestFirstWithCursor() {
    for (int i = 1; i <= 5; i++) {
      append(raised("r" + i, "report", T0.plusSeconds(i)), raised("d" + i, "digest", T0.plusSeconds(i)));
    }
    AlertPage first = page("report", null, null, 2);
    assertEquals(List.of("r5", "r4"), first.alerts().stream().map(AlertRecord::id).toList());
    AlertPage second = page("report", null, first.next(), 2);
    assertEquals(List.of("r3", "r2"), second.alerts().stream().map(AlertRecord::id).toList());
    AlertPage last = page("report", null, second.next(), 2);
    assertEquals(List.of("r1"), last.alerts().stream().map(AlertRecord::id).toList());
    assertNull(last.next());
    assertEquals(List.of("d5", "r5", "d4", "r4"), page(null, T0.plusSeconds(4), null, 10).alerts().stream()
        .map(AlertRecord::id).toList());
  }

  @Test
  @DisplayName("the history keeps the latest KEPT alerts: the oldest are forgotten, seqs go on, and it survives a restart")
  void boundedAndRecovered() {
    List<AlertLog.Change> batch = new ArrayList<>();
    for (int i = 1; i <= AlertRecord.KEPT + 10; i++) {
      batch.add(raised("a" + i, "t", T0.plusSeconds(i)));
      if (batch.size() == 200) {
        kit.<Done>runCommand(r -> new AlertLogProtocol.Append(List.copyOf(batch), r));
        batch.clear();
      }
    }
    kit.<Done>runCommand(r -> new AlertLogProtocol.Append(List.copyOf(batch), r));
    assertEquals(6, journal().size(), "1,010 raises in writes of at most 200: 6 rows");
    AlertLog.State s = kit.getState();
    assertEquals(AlertRecord.KEPT, s.alerts().size());
    assertEquals(11, s.alerts().get(0).seq(), "the 10 oldest are forgotten");
    assertEquals(AlertRecord.KEPT + 11, s.nextSeq());
    kit.restart();
    assertEquals(AlertRecord.KEPT, kit.getState().alerts().size());
    assertEquals("a" + (AlertRecord.KEPT + 10), page(null, null, null, 1).alerts().get(0).id());
    AlertLog.State full = kit.getState();
    AlertLog.State after = full.evolve(delivery("unknown", "log", DeliveryStatus.DELIVERED, 1, null));
    assertSame(full, after, "a delivery of an alert no longer kept changes nothing");
  }
}
