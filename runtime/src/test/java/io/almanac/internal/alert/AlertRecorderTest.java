package io.almanac.internal.alert;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.almanac.Alert;
import io.almanac.AlertRecord;
import io.almanac.testkit.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A node's recorder sends its sinks' reports to the history one batch at a time (what came while a
 * batch was written goes in the next, one write), records a raise before its sink's delivery, and
 * sends nothing after the node's drain.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AlertRecorderTest {

  private final ActorTestKit testKit = ActorTestKit.create();
  private static final Instant AT = Instant.parse("2026-12-06T10:00:00Z");
  private static final String NODE = "pekko://almanac@10.0.0.1:25520";

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  @DisplayName("a raise and its log delivery are recorded in order; what comes while a batch is written goes in the next")
  void batchesOneWriteAtATime() {
    TestProbe<AlertLogProtocol.Command> log = testKit.createTestProbe();
    ActorRef<AlertRecorder.Command> recorder = testKit.spawn(AlertRecorder.create(log.ref()));
    var sink = AlertRecorder.recording(recorder, alert -> { }, "log", NODE, new SettableClock(AT));
    Alert a = new Alert(Alert.Kind.FINAL_FAILED, "report", "2026-12-06", "failed for good", AT);
    sink.alert(a);
    AlertLogProtocol.Append first = log.expectMessageClass(AlertLogProtocol.Append.class);
    String id = AlertRecorder.alertId(a, NODE);
    assertEquals(new AlertLog.AlertRaised(id, Alert.Kind.FINAL_FAILED, "report", "2026-12-06", "failed for good", AT, NODE),
        first.events().get(0));
    List<AlertLog.Change> rest = new java.util.ArrayList<>(first.events().subList(1, first.events().size()));
    if (rest.isEmpty()) { // the delivery came after the first batch left: it waits for its answer
      log.expectNoMessage(Duration.ofMillis(100));
      first.replyTo().tell(Done.getInstance());
      AlertLogProtocol.Append second = log.expectMessageClass(AlertLogProtocol.Append.class);
      rest.addAll(second.events());
      second.replyTo().tell(Done.getInstance());
    } else {
      first.replyTo().tell(Done.getInstance());
    }
    assertEquals(List.of(new AlertLog.AlertDeliveryRecorded(id, "log", AlertRecord.DeliveryStatus.DELIVERED, 1, null, AT)),
        rest);
    recorder.tell(AlertRecorder.Close.INSTANCE);
    sink.alert(new Alert(Alert.Kind.FINAL_FAILED, "report", "2026-12-07", "failed for good", AT));
    log.expectNoMessage(Duration.ofMillis(200));
  }

  @Test
  @DisplayName("an overflow while a batch is written drops the oldest record, and the batch's answer then removes "
      + "only what the batch still holds: no newer record is lost with it")
  void anOverflowDuringAWriteLosesOnlyTheDroppedRecord() {
    TestProbe<AlertLogProtocol.Command> log = testKit.createTestProbe();
    ActorRef<AlertRecorder.Command> recorder = testKit.spawn(AlertRecorder.create(log.ref()));
    java.util.function.IntFunction<AlertLog.Change> raised = i ->
        new AlertLog.AlertRaised("a" + i, Alert.Kind.FINAL_FAILED, "report", "w" + i, "m", AT, NODE);
    recorder.tell(new AlertRecorder.Record(raised.apply(0)));
    AlertLogProtocol.Append first = log.expectMessageClass(AlertLogProtocol.Append.class);
    assertEquals(List.of(raised.apply(0)), first.events());
    for (int i = 1; i <= AlertRecorder.MAX_QUEUED; i++) { // the last one overflows: a0, in the batch, is dropped
      recorder.tell(new AlertRecorder.Record(raised.apply(i)));
    }
    first.replyTo().tell(Done.getInstance());
    AlertLogProtocol.Append second = log.expectMessageClass(AlertLogProtocol.Append.class);
    assertEquals(raised.apply(1), second.events().get(0), "a1, the oldest record not yet written, is the next batch's first");
    assertEquals(AlertRecorder.MAX_BATCH, second.events().size());
    second.replyTo().tell(Done.getInstance());
    testKit.stop(recorder);
  }
}
