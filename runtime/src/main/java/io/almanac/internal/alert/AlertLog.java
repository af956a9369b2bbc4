package io.almanac.internal.alert;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.almanac.Alert;
import io.almanac.AlertRecord;
import io.almanac.journal.JournalSerializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.pcollections.PVector;
import org.pcollections.TreePVector;

/**
 * The alert history's journal: its events (past tense) and its state, folded by {@link #evolve}.
 * One event per write: a node's batch is one {@link AlertsRecorded} (one journal row), whose members
 * are the changes ({@link AlertRaised}, {@link AlertDeliveryRecorded}). Bounded: the state keeps the
 * latest {@link AlertRecord#KEPT} alerts in a persistent vector, so a change costs O(log n) whatever
 * the history's length; the entity deletes events below its snapshots.
 * Persisted: a component is never renamed without a migration. The state keeps its own records ({@link
 * Entry}, {@link DeliveryEntry}), never the public view, so that the view can grow without changing the
 * snapshot. INTERNAL API.
 */
public final class AlertLog {

  private AlertLog() {}

  /** The persistence id of the cluster's alert history. */
  public static final String PERSISTENCE_ID = "alerts|log";

  /**
   * An event of the alert history. The entity writes one {@link AlertsRecorded} per batch (one journal
   * row); the single {@link Change}s are its members, and {@link State#evolve} still reads one alone.
   */
  public sealed interface Event extends JournalSerializable permits Change, AlertsRecorded {}

  /** One change of the history, as a node reports it: an alert raised or a delivery recorded. */
  public sealed interface Change extends Event permits AlertRaised, AlertDeliveryRecorded {}

  /**
   * A node's batch of changes was recorded, in one write: the history's one event per write, folded
   * member by member in order.
   *
   * @param records the changes, in the order they happened on the node
   */
  public record AlertsRecorded(
      @JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
      @JsonSubTypes({
          @JsonSubTypes.Type(value = AlertRaised.class, name = "AlertRaised"),
          @JsonSubTypes.Type(value = AlertDeliveryRecorded.class, name = "AlertDeliveryRecorded")})
      List<Change> records) implements Event {

    /** Never null, never shared mutable. */
    public AlertsRecorded {
      records = records == null ? List.of() : List.copyOf(records);
    }
  }

  /**
   * An alert was raised.
   *
   * @param id its id (as the webhook's body carries it)
   * @param kind what happened
   * @param taskId the task, or null
   * @param window the window, or null
   * @param message the sentence
   * @param at when it happened
   * @param node the node that raised it
   */
  public record AlertRaised(String id, Alert.Kind kind, String taskId, String window, String message, Instant at,
      String node) implements Change {}

  /**
   * A sink reported where an alert stands there.
   *
   * @param id the alert's id
   * @param sink the sink's name
   * @param status where it stands
   * @param attempts attempts so far
   * @param detail why it failed or is retried, or null
   * @param at when reported
   */
  public record AlertDeliveryRecorded(String id, String sink, AlertRecord.DeliveryStatus status, int attempts, String detail,
      Instant at) implements Change {}

  /**
   * An alert as the history's state keeps it (the snapshot's shape, so persisted like the events);
   * the public {@link AlertRecord} is made from it when read ({@link #view()}).
   *
   * @param seq its place in the history, counting from 1
   * @param id its id
   * @param kind what happened
   * @param taskId the task, or null
   * @param window the window, or null
   * @param message the sentence
   * @param at when it happened
   * @param node the node that raised it
   * @param deliveries its latest state per sink (the latest reported last)
   */
  public record Entry(long seq, String id, Alert.Kind kind, String taskId, String window, String message, Instant at,
      String node, List<DeliveryEntry> deliveries) {

    /** Never null, never shared mutable. */
    public Entry {
      deliveries = deliveries == null ? List.of() : List.copyOf(deliveries);
    }

    /** @return the alert as callers read it */
    public AlertRecord view() {
      return AlertRecord.builder().seq(seq).id(id).kind(kind).taskId(taskId).window(window).message(message).at(at)
          .node(node).deliveries(deliveries.stream().map(DeliveryEntry::view).toList()).build();
    }
  }

  /**
   * An alert's latest state at one sink, as the history's state keeps it.
   *
   * @param sink the sink's name
   * @param status where it stands
   * @param attempts attempts so far
   * @param detail why it failed or is retried, or null
   * @param at when reported
   */
  public record DeliveryEntry(String sink, AlertRecord.DeliveryStatus status, int attempts, String detail, Instant at) {

    /** @return the delivery as callers read it */
    public AlertRecord.Delivery view() {
      return AlertRecord.Delivery.builder().sink(sink).status(status).attempts(attempts).detail(detail).at(at).build();
    }
  }

  /**
   * The history's state: the latest alerts, oldest first, and the next alert's seq.
   *
   * @param nextSeq the seq the next alert gets
   * @param alerts the latest {@link AlertRecord#KEPT} alerts, oldest first (seqs consecutive)
   */
  public record State(long nextSeq, List<Entry> alerts) implements JournalSerializable {

    /** A persistent vector (an update shares the rest). */
    public State {
      alerts = alerts == null ? TreePVector.empty()
          : alerts instanceof PVector<Entry> v ? v : TreePVector.from(alerts);
    }

    /** @return the history before any alert */
    public static State empty() {
      return new State(1, TreePVector.empty());
    }

    private PVector<Entry> vector() {
      return (PVector<Entry>) alerts;
    }

    /**
     * The one fold of the history's journal: a batch is its members in order (a batch written again
     * after a lost answer adds nothing: a raise is found by id, a delivery replaces that sink's).
     *
     * @param e an event
     * @return the state after it
     */
    public State evolve(Event e) {
      if (e instanceof AlertsRecorded b) {
        State s = this;
        for (Change c : b.records()) {
          s = s.evolve(c);
        }
        return s;
      }
      if (e instanceof AlertRaised r) {
        if (recent(r.id()) >= 0) {
          return this; // a batch written again after a lost answer
        }
        PVector<Entry> v = vector().plus(new Entry(nextSeq, r.id(), r.kind(), r.taskId(), r.window(),
            r.message(), r.at(), r.node(), List.of()));
        if (v.size() > AlertRecord.KEPT) {
          v = v.minus(0);
        }
        return new State(nextSeq + 1, v);
      }
      AlertDeliveryRecorded d = (AlertDeliveryRecorded) e;
      PVector<Entry> v = vector();
      int i = recent(d.id());
      if (i >= 0) {
        Entry a = v.get(i);
        List<DeliveryEntry> ds = new ArrayList<>();
        for (DeliveryEntry x : a.deliveries()) {
          if (!x.sink().equals(d.sink())) {
            ds.add(x);
          }
        }
        ds.add(new DeliveryEntry(d.sink(), d.status(), d.attempts(), d.detail(), d.at()));
        return new State(nextSeq, v.with(i, new Entry(a.seq(), a.id(), a.kind(), a.taskId(), a.window(),
            a.message(), a.at(), a.node(), ds)));
      }
      return this; // an alert no longer kept, or too old to follow
    }

    /** How far back from the newest an alert is looked for by id: its deliveries come soon after it. */
    static final int LOOK_BACK = 512;

    /** @return the index of the alert with this id among the latest {@link #LOOK_BACK}, or -1 */
    private int recent(String id) {
      PVector<Entry> v = vector();
      for (int i = v.size() - 1; i >= 0 && i >= v.size() - LOOK_BACK; i--) {
        if (v.get(i).id().equals(id)) {
          return i;
        }
      }
      return -1;
    }

    /**
     * A page of the history, newest first.
     *
     * @param taskId only this task's alerts, or null
     * @param since only alerts at or after this time, or null
     * @param before only alerts with a smaller seq (the previous page's {@code next}), or null
     * @param limit the most alerts on the page
     * @return the page (the entity's reply)
     */
    public AlertLogProtocol.Page page(String taskId, Instant since, Long before, int limit) {
      List<Entry> out = new ArrayList<>();
      PVector<Entry> v = vector();
      int i = v.size() - 1;
      if (before != null && !v.isEmpty()) {
        long first = v.get(0).seq();
        i = (int) Math.min(i, Math.max(-1, before - first - 1)); // seqs are consecutive
      }
      for (; i >= 0; i--) {
        Entry a = v.get(i);
        if (since != null && a.at().isBefore(since)) {
          continue;
        }
        if (taskId != null && !taskId.equals(a.taskId())) {
          continue;
        }
        if (out.size() == limit) {
          return new AlertLogProtocol.Page(out, out.get(out.size() - 1).seq());
        }
        out.add(a);
      }
      return new AlertLogProtocol.Page(out, null);
    }
  }
}
