package io.almanac.internal.task;

import io.almanac.AlmanacException;
import io.almanac.RefusedException;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.State;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What the pure core decided about one command: the events to persist (possibly none) and the reply
 * built from the state after them, or a refusal (nothing is persisted). INTERNAL API.
 *
 * @param events the events to persist, in order
 * @param reply the reply, from the state after the events; null when refused
 * @param refusal why the command was refused, or null
 * @param <R> the reply's type
 */
public record Decided<R>(List<Event> events, Function<State, R> reply, AlmanacException refusal) {

  /** Canonical constructor: the events are never null. */
  public Decided {
    events = events == null ? List.of() : List.copyOf(events);
  }

  /**
   * @param value the reply
   * @param <R> its type
   * @return no events, this reply
   */
  public static <R> Decided<R> reply(R value) {
    return new Decided<>(List.of(), s -> value, null);
  }

  /**
   * @param events the events
   * @param value the reply
   * @param <R> its type
   * @return these events, then this reply
   */
  public static <R> Decided<R> persist(List<Event> events, R value) {
    return new Decided<>(events, s -> value, null);
  }

  /**
   * @param events the events
   * @param reply the reply from the state after them
   * @param <R> its type
   * @return these events, then the reply
   */
  public static <R> Decided<R> persistThen(List<Event> events, Function<State, R> reply) {
    return new Decided<>(events, Objects.requireNonNull(reply, "reply"), null);
  }

  /**
   * @param reason why
   * @param message what, naming the field and the value
   * @param <R> the reply's type
   * @return a refusal
   */
  public static <R> Decided<R> refuse(RefusedException.Reason reason, String message) {
    return new Decided<>(List.of(), null, new RefusedException(reason, message));
  }

  /**
   * @param refusal the refusal (an invalid spec, an illegal transition, ...)
   * @param <R> the reply's type
   * @return a refusal
   */
  public static <R> Decided<R> refuse(AlmanacException refusal) {
    return new Decided<>(List.of(), null, Objects.requireNonNull(refusal, "refusal"));
  }

  /** @return whether the command was refused */
  public boolean refused() {
    return refusal != null;
  }

  /**
   * @param before events decided first (e.g. settling dead attempts), persisted in the same write
   * @return this decision with those events ahead of its own; a refusal stays a refusal
   */
  /**
   * @param dry whether the decision is asked for without being carried out
   * @return this decision, or, for a dry run, its reply (answered on the unchanged state) with no
   *     event: what the decision would do, written nowhere
   */
  public Decided<R> dryRun(boolean dry) {
    return dry && !refused() ? new Decided<>(List.of(), reply, null) : this;
  }

  public Decided<R> after(List<Event> before) {
    if (refused() || before.isEmpty()) {
      return this;
    }
    List<Event> all = new java.util.ArrayList<>(before);
    all.addAll(events);
    return new Decided<>(all, reply, null);
  }
}
