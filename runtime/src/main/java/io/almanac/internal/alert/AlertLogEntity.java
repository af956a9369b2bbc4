package io.almanac.internal.alert;

import java.time.Duration;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * The cluster's alert history as one sharded persistent entity ({@value AlertLog#PERSISTENCE_ID}):
 * the one writer of what alerts fired and where they were delivered. Each node's {@link
 * AlertRecorder} sends it batches ({@link AlertLogProtocol.Append}), each written as one event
 * ({@link AlertLog.AlertsRecorded}, one journal row); reads write nothing. Its state keeps the latest
 * alerts only, and events below a snapshot are deleted, so neither recovery nor the journal grows
 * with the cluster's history. INTERNAL API.
 */
public final class AlertLogEntity
    extends EventSourcedBehavior<AlertLogProtocol.Command, AlertLog.Event, AlertLog.State> {

  /** The entity type of the history. */
  public static final EntityTypeKey<AlertLogProtocol.Command> TYPE_KEY =
      EntityTypeKey.create(AlertLogProtocol.Command.class, "almanac-alerts");

  /** The one entity's id. */
  public static final String ENTITY_ID = "log";

  /** Events (batches) between snapshots; events below the older of the two kept snapshots are deleted. */
  static final int SNAPSHOT_EVERY = 500;

  /** @return the entity's behavior */
  public static Behavior<AlertLogProtocol.Command> create() {
    return new AlertLogEntity();
  }

  private AlertLogEntity() {
    super(PersistenceId.ofUniqueId(AlertLog.PERSISTENCE_ID),
        SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(10), 0.2));
  }

  @Override
  public AlertLog.State emptyState() {
    return AlertLog.State.empty();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(SNAPSHOT_EVERY, 2).withDeleteEventsOnSnapshot();
  }

  @Override
  public EventHandler<AlertLog.State, AlertLog.Event> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent(AlertLog.State::evolve);
  }

  @Override
  public CommandHandler<AlertLogProtocol.Command, AlertLog.Event, AlertLog.State> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(AlertLogProtocol.Append.class, this::append)
        .onCommand(AlertLogProtocol.Query.class, (s, c) -> Effect().reply(c.replyTo(),
            s.page(c.taskId(), c.since(), c.before(), c.limit())))
        .build();
  }

  private Effect<AlertLog.Event, AlertLog.State> append(AlertLog.State s, AlertLogProtocol.Append c) {
    if (c.events().isEmpty()) {
      return Effect().reply(c.replyTo(), Done.getInstance());
    }
    return Effect().persist(new AlertLog.AlertsRecorded(c.events())).thenReply(c.replyTo(), x -> Done.getInstance());
  }
}
