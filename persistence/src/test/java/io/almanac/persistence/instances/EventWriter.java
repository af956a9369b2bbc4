package io.almanac.persistence.instances;

import io.almanac.journal.TaskJournal;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;

/** Test only: persists task events under {@code task|<id>} as a task entity would. */
final class EventWriter extends EventSourcedBehavior<EventWriter.Write, TaskJournal.Event, Integer> {

  record Write(List<TaskJournal.Event> events, ActorRef<Done> replyTo) {}

  static Behavior<Write> create(String taskId) {
    return new EventWriter(taskId);
  }

  private EventWriter(String taskId) {
    super(PersistenceId.ofUniqueId(TaskJournal.persistenceId(taskId)));
  }

  @Override
  public Integer emptyState() {
    return 0;
  }

  @Override
  public CommandHandler<Write, TaskJournal.Event, Integer> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Write.class, (s, c) -> Effect().persist(c.events()).thenReply(c.replyTo(), x -> Done.getInstance()))
        .build();
  }

  @Override
  public EventHandler<Integer, TaskJournal.Event> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent((s, e) -> s + 1);
  }
}
