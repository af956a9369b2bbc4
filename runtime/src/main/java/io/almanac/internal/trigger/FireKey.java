package io.almanac.internal.trigger;

import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.schedule.DueWindow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A fire the trigger sends and tracks until it is acknowledged: one window, or a task's catch-up
 * batch (then {@code window} names the batch and {@code due} is its earliest window, whose due
 * instant holds the watermark back until the batch is acknowledged). INTERNAL API.
 *
 * @param taskId the task
 * @param window the window's key, or the batch's name
 * @param dueAt when the window (the batch's earliest) was due
 * @param kind on time or catch-up
 * @param due the window (the batch's earliest)
 * @param batch a catch-up's windows, oldest first, or null
 */
record FireKey(String taskId, String window, Instant dueAt, TaskProtocol.FireKind kind, DueWindow due,
               List<DueWindow> batch) {

  static FireKey of(String taskId, DueWindow due, TaskProtocol.FireKind kind, List<DueWindow> batch) {
    String window = batch == null ? due.key().value()
        : "catch-up " + batch.get(0).key().value() + " .. " + batch.get(batch.size() - 1).key().value();
    return new FireKey(taskId, window, due.dueAt(), kind, due, batch);
  }

  /** A plan's fires: each on-time window alone, the catch-up windows in one batch (the task records them in one write). */
  static List<FireKey> of(String taskId, CatchUpPlan plan) {
    List<FireKey> fires = new ArrayList<>(plan.onTime().size() + 1);
    // the older windows first: the task decides its catch-up before its on-time windows, so that a skip range
    // left open (docs/skip-ranges.md) is closed before the windows the trigger hands over
    if (!plan.catchUp().isEmpty()) {
      fires.add(of(taskId, plan.catchUp().get(0), TaskProtocol.FireKind.CATCH_UP, plan.catchUp()));
    }
    for (DueWindow w : plan.onTime()) {
      fires.add(of(taskId, w, TaskProtocol.FireKind.ON_TIME, null));
    }
    return fires;
  }

  /** Unique among the fires in flight: a fire already in flight is not sent again (the entity would deduplicate it). */
  String id() {
    return taskId + "|" + window;
  }

  /** A catch-up batch's windows as the task's {@link TaskProtocol.CatchUp} carries them. */
  List<TaskProtocol.DueFire> dueFires() {
    return batch.stream().map(d -> new TaskProtocol.DueFire(d.key(), d.window().start(), d.window().end(), d.dueAt())).toList();
  }
}
