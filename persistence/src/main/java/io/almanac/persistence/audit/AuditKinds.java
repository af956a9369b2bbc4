package io.almanac.persistence.audit;

import io.almanac.journal.TaskJournal;
import io.almanac.journal.TriggerJournal;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The audit's one table of journal event kinds: for each concrete {@link TaskJournal.Event} class,
 * the feature that owns it ({@link ScheduleNarrator}, {@link AttemptNarrator}, {@link GateNarrator},
 * {@link OperatorNarrator}) says in one place how {@link AuditEvent} words it ({@link Told}), whether
 * it places its window ({@link Placed}), what step the window's explanation ({@link Explainer})
 * tells of it, and what the verifier ({@link TaskCheck}) notes of it in its records of windows and
 * attempts. A new kind of event is one entry in one narrator (and, if it changes a status, the
 * runtime's {@code Evolve}); {@code AuditEditPlacesTest} fails until every kind of the sealed
 * hierarchy has exactly one, handled by every reader. The trigger's kinds, read only for their
 * instants, are in {@link #TRIGGER}.
 */
final class AuditKinds {

  /** An event's detail for people and the attempt it is about (0: none). */
  record Told(String detail, int attempt) {
    Told {
      detail = detail == null ? "" : detail;
    }
  }

  /** Where an event that places its window puts it: its start and due time. */
  record Placed(Instant start, Instant dueAt) {}

  /**
   * What the audit does with one kind of event.
   *
   * @param <E> the event's class
   */
  static final class Kind<E extends TaskJournal.Event> {
    final Class<E> type;
    final String feature;
    private Function<? super E, Told> told;
    private Function<? super E, Placed> placed = e -> null;
    private BiConsumer<Explainer, ? super E> narrated;
    private BiConsumer<TaskCheck, ? super E> noted;

    private Kind(Class<E> type, String feature) {
      this.type = type;
      this.feature = feature;
    }

    /** @return this kind, worded by {@code f} in {@link AuditEvent#detail()} */
    Kind<E> told(Function<? super E, Told> f) {
      this.told = Objects.requireNonNull(f);
      return this;
    }

    /** @return this kind, placing its window where {@code f} says (by default it places none) */
    Kind<E> placed(Function<? super E, Placed> f) {
      this.placed = Objects.requireNonNull(f);
      return this;
    }

    /** @return this kind, told by {@code f} in a window's explanation */
    Kind<E> narrated(BiConsumer<Explainer, ? super E> f) {
      this.narrated = Objects.requireNonNull(f);
      return this;
    }

    /** @return this kind, noted by {@code f} in the verifier's records of its window and attempts */
    Kind<E> noted(BiConsumer<TaskCheck, ? super E> f) {
      this.noted = Objects.requireNonNull(f);
      return this;
    }

    /** @return whether every reader handles it */
    boolean complete() {
      return told != null && narrated != null && noted != null;
    }
  }

  /** The table being filled by the features, each kind once. */
  static final class Table {
    private final Map<Class<?>, Kind<?>> kinds = new LinkedHashMap<>();
    private final String feature;

    Table(Map<Class<?>, Kind<?>> kinds, String feature) {
      this.feature = feature;
      this.kinds.putAll(kinds);
    }

    /**
     * @param type an event class
     * @param <E> its type
     * @return its new entry, owned by this table's feature
     * @throws IllegalStateException if another feature (or this one) has it already
     */
    <E extends TaskJournal.Event> Kind<E> kind(Class<E> type) {
      Kind<?> had = kinds.get(type);
      if (had != null) {
        throw new IllegalStateException(type.getSimpleName() + " is told by " + had.feature + " and by " + feature);
      }
      Kind<E> k = new Kind<>(type, feature);
      kinds.put(type, k);
      return k;
    }
  }

  /** Every kind, by its event class. */
  static final Map<Class<?>, Kind<?>> KINDS;

  static {
    Map<Class<?>, Kind<?>> all = new LinkedHashMap<>();
    Table t = new Table(all, "ScheduleNarrator");
    ScheduleNarrator.kinds(t);
    t = new Table(t.kinds, "AttemptNarrator");
    AttemptNarrator.kinds(t);
    t = new Table(t.kinds, "GateNarrator");
    GateNarrator.kinds(t);
    t = new Table(t.kinds, "OperatorNarrator");
    OperatorNarrator.kinds(t);
    KINDS = Collections.unmodifiableMap(new LinkedHashMap<>(t.kinds));
  }

  /**
   * The trigger's events, which the audit reads only for their writers (I5), its heartbeat (I6) and
   * the journal's end: what instant each kind records. A kind read as null is placed at its write
   * time (the journal's timestamp) instead.
   */
  static final Map<Class<?>, Function<TriggerJournal.Event, Instant>> TRIGGER = Map.of(
      TriggerJournal.Progressed.class, e -> ((TriggerJournal.Progressed) e).at(),
      TriggerJournal.TasksRegistered.class, e -> ((TriggerJournal.TasksRegistered) e).at(),
      TriggerJournal.TaskRemoved.class, e -> ((TriggerJournal.TaskRemoved) e).at(),
      TriggerJournal.TaskSetAside.class, e -> null,
      TriggerJournal.HandedOver.class, e -> null);

  private AuditKinds() {}

  /** @return the instant a trigger's event records, as {@link #TRIGGER} reads it, or null */
  static Instant triggerAt(TriggerJournal.Event e) {
    Function<TriggerJournal.Event, Instant> at = TRIGGER.get(e.getClass());
    return at == null ? null : at.apply(e);
  }

  @SuppressWarnings("unchecked")
  private static <E extends TaskJournal.Event> Kind<E> kind(E e) {
    return (Kind<E>) KINDS.get(e.getClass());
  }

  /** @return how {@link AuditEvent} words the event; its {@code toString()} for a kind the table lacks */
  static Told told(TaskJournal.Event e) {
    Kind<TaskJournal.Event> k = kind(e);
    return k == null || k.told == null ? new Told(String.valueOf(e), 0) : k.told.apply(e);
  }

  /** @return where the event places its window, or null when it places none */
  static Placed placed(TaskJournal.Event e) {
    Kind<TaskJournal.Event> k = kind(e);
    return k == null ? null : k.placed.apply(e);
  }

  /** Tells the event in the explanation being built (its context set by {@link Explainer#at}). */
  static void narrate(Explainer x, TaskJournal.Event e) {
    Kind<TaskJournal.Event> k = kind(e);
    if (k != null && k.narrated != null) {
      k.narrated.accept(x, e);
    }
  }

  /** Notes the event in the verifier's records (its context set by the task's check, {@link TaskCheck#win}). */
  static void note(TaskCheck c, TaskJournal.Event e) {
    Kind<TaskJournal.Event> k = kind(e);
    if (k != null && k.noted != null) {
      k.noted.accept(c, e);
    }
  }
}
