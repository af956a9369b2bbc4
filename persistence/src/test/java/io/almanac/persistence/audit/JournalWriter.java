package io.almanac.persistence.audit;

import io.almanac.internal.task.TaskEntity;
import io.almanac.journal.TaskJournal;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;

/**
 * Test only: persists the given task events under {@code task|<id>} with the same serializer a
 * task entity uses, so the read side sees exactly what a task would have written, including
 * journals a correct task never writes (the violations the audit must find).
 */
final class JournalWriter extends EventSourcedBehavior<JournalWriter.Write, TaskJournal.Event, Integer> {

  /** Persist these events atomically (one AtomicWrite), then reply. */
  record Write(List<TaskJournal.Event> events, ActorRef<Done> replyTo) {}

  static Behavior<Write> create(String taskId) {
    return new JournalWriter(taskId);
  }

  private JournalWriter(String taskId) {
    super(TaskEntity.persistenceId(taskId));
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
