package io.almanac.internal.alert;

import io.almanac.Alert;
import io.almanac.AlertRecord;
import io.almanac.AlertSink;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * A node's recorder of its alerts into the cluster's history ({@link AlertLogEntity}): what its sinks
 * report (a raise, each sink's delivery) is queued here and sent in batches, one batch in flight, each
 * one write (one journal event, {@link AlertLog.AlertsRecorded}). Off the alert's path: a sink only
 * tells this actor. Bounded: at most {@link #MAX_QUEUED} records wait (the oldest are dropped beyond,
 * and counted in the log), at most {@link #MAX_BATCH} per write; a failed write is tried again after
 * {@link #RETRY_AFTER}. Stops sending at the node's drain ({@link Close}), so a message buffered by a
 * stopping shard region never holds the node's stop. INTERNAL API.
 */
public final class AlertRecorder extends AbstractBehavior<AlertRecorder.Command> {

  static final int MAX_QUEUED = 2000;
  static final int MAX_BATCH = 200;
  static final Duration RETRY_AFTER = Duration.ofSeconds(1);
  static final Duration WRITE_TIMEOUT = Duration.ofSeconds(5);

  /** What the recorder is told. */
  public sealed interface Command permits Record, Close, Written, Retry {}

  /** @param event a raise or a delivery, to record */
  public record Record(AlertLog.Change event) implements Command {}

  /** The node drains: nothing more is sent. */
  public enum Close implements Command { INSTANCE }

  private record Written(boolean ok, int count) implements Command {}

  /** A failed write's wait ended: the same batch is sent again. */
  private enum Retry implements Command { INSTANCE }

  private final ActorContext<Command> ctx;
  private final RecipientRef<AlertLogProtocol.Command> log;
  private final ArrayDeque<AlertLog.Change> queue = new ArrayDeque<>();
  private boolean inFlight;
  /** How many records at the queue's head the batch being written holds (fewer if an overflow dropped some). */
  private int inFlightCount;
  private boolean closed;
  private long dropped;

  /**
   * @param log the cluster's history
   * @return the recorder's behavior
   */
  public static Behavior<Command> create(RecipientRef<AlertLogProtocol.Command> log) {
    return Behaviors.setup(ctx -> new AlertRecorder(ctx, log));
  }

  private AlertRecorder(ActorContext<Command> ctx, RecipientRef<AlertLogProtocol.Command> log) {
    super(ctx);
    this.ctx = ctx;
    this.log = log;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Record.class, this::onRecord)
        .onMessage(Written.class, this::onWritten)
        .onMessageEquals(Retry.INSTANCE, () -> {
          inFlight = false;
          send();
          return this;
        })
        .onMessageEquals(Close.INSTANCE, () -> {
          closed = true;
          queue.clear();
          return this;
        })
        .build();
  }

  private Behavior<Command> onRecord(Record m) {
    if (closed) {
      return this;
    }
    if (queue.size() >= MAX_QUEUED) {
      queue.pollFirst();
      if (inFlightCount > 0) {
        inFlightCount--; // the dropped one was in the batch being written: it is not removed again when that is done
      }
      if (dropped++ % 1000 == 0) {
        ctx.getLog().warn("alert history: {} records waiting to be written, the oldest dropped ({} so far)", MAX_QUEUED,
            dropped);
      }
    }
    queue.addLast(m.event());
    send();
    return this;
  }

  private void send() {
    if (inFlight || closed || queue.isEmpty()) {
      return;
    }
    List<AlertLog.Change> batch = new ArrayList<>();
    for (AlertLog.Change e : queue) {
      if (batch.size() == MAX_BATCH) {
        break;
      }
      batch.add(e);
    }
    inFlight = true;
    int n = batch.size();
    inFlightCount = n;
    ctx.pipeToSelf(AskPattern.<AlertLogProtocol.Command, Done>ask(log, r -> new AlertLogProtocol.Append(batch, r),
        WRITE_TIMEOUT, ctx.getSystem().scheduler()), (done, error) -> new Written(error == null, n));
  }

  private Behavior<Command> onWritten(Written m) {
    inFlight = false;
    if (m.ok()) {
      // the batch's records still queued (an overflow may have dropped some of them meanwhile), not newer ones
      for (int i = 0; i < inFlightCount && !queue.isEmpty(); i++) {
        queue.pollFirst();
      }
      inFlightCount = 0;
      send();
    } else if (!closed) {
      // the same batch again later (a batch written twice adds nothing: a raise is found by id, a delivery replaces)
      inFlight = true;
      ctx.scheduleOnce(RETRY_AFTER, ctx.getSelf(), Retry.INSTANCE);
    }
    return this;
  }

  /**
   * The node's sink, recorded: each alert is recorded raised, then given to {@code sink}, whose
   * outcome is recorded as its delivery.
   *
   * @param recorder the node's recorder
   * @param sink the node's sink (the logging one or the application's)
   * @param sinkName its name in the history ({@code log} or {@code sink})
   * @param node this node's address
   * @param clock the node's clock
   * @return the recording sink
   */
  public static AlertSink recording(ActorRef<Command> recorder, AlertSink sink, String sinkName, String node, Clock clock) {
    return alert -> {
      String id = alertId(alert, node);
      recorder.tell(new Record(new AlertLog.AlertRaised(id, alert.kind(), alert.taskId(), alert.window(), alert.message(),
          alert.at(), node)));
      try {
        sink.alert(alert);
        recorder.tell(new Record(new AlertLog.AlertDeliveryRecorded(id, sinkName, AlertRecord.DeliveryStatus.DELIVERED, 1,
            null, clock.instant())));
      } catch (RuntimeException e) {
        recorder.tell(new Record(new AlertLog.AlertDeliveryRecorded(id, sinkName, AlertRecord.DeliveryStatus.FAILED, 1,
            cut(String.valueOf(e)), clock.instant())));
        throw e;
      }
    };
  }

  /** @return the alert's stable id, the webhook's (a name-based UUID of node, kind, task, window and time) */
  public static String alertId(Alert alert, String node) {
    String key = node + "\n" + alert.kind().name() + "\n" + alert.taskId() + "\n" + alert.window() + "\n" + alert.at();
    return java.util.UUID.nameUUIDFromBytes(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
  }

  /** A detail, at most 200 characters. */
  public static String cut(String detail) {
    return detail == null || detail.length() <= 200 ? detail : detail.substring(0, 200) + "…";
  }
}
