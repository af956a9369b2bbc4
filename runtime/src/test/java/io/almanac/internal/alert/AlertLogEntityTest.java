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
 * The alert history (R32) keeps what fired and where it went: a batch is one write, a delivery
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

  private void append(AlertLog.Event... events) {
    kit.<Done>runCommand(r -> new AlertLogProtocol.Append(List.of(events), r));
  }

  private AlertPage page(String task, Instant since, Long before, int limit) {
    return kit.<AlertLogProtocol.Page>runCommand(r -> new AlertLogProtocol.Query(task, since, before, limit, r)).reply().page();
  }

  @Test
  @DisplayName("a batch is one write; a webhook's retry then delivery replace its state; the log sink's stays")
  void deliveriesReplacePerSink() {
    var written = kit.<Done>runCommand(r -> new AlertLogProtocol.Append(List.of(raised("a1", "report", T0),
        delivery("a1", "log", DeliveryStatus.DELIVERED, 1, null),
        delivery("a1", "webhook http://127.0.0.1:9", DeliveryStatus.RETRYING, 1, "status 503")), r));
    assertEquals(3, written.events().size());
    append(delivery("a1", "webhook http://127.0.0.1:9", DeliveryStatus.DELIVERED, 2, null));
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
  @DisplayName("a batch written again after a lost answer adds no alert; a read writes nothing")
  void batchWrittenAgainAddsNothing() {
    append(raised("a1", "report", T0));
    append(raised("a1", "report", T0));
    assertEquals(1, page(null, null, null, 10).alerts().size());
    assertTrue(kit.<AlertLogProtocol.Page>runCommand(r -> new AlertLogProtocol.Query(null, null, null, 10, r)).hasNoEvents());
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
    List<AlertLog.Event> batch = new ArrayList<>();
    for (int i = 1; i <= AlertRecord.KEPT + 10; i++) {
      batch.add(raised("a" + i, "t", T0.plusSeconds(i)));
      if (batch.size() == 200) {
        kit.<Done>runCommand(r -> new AlertLogProtocol.Append(List.copyOf(batch), r));
        batch.clear();
      }
    }
    kit.<Done>runCommand(r -> new AlertLogProtocol.Append(List.copyOf(batch), r));
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
