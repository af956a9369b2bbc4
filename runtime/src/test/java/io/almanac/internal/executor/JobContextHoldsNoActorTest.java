package io.almanac.internal.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;

/**
 * What a job's thread is handed holds no actor: no field of its context, of the runnable that runs
 * it, or (transitively) of the almanac types they hold is an actor type (an ActorRef, ActorContext,
 * ActorSystem, Scheduler, RecipientRef, ...), so no getSelf() or getSystem() is within a job's reach.
 * Fields are judged by their declared types, type arguments included.
 */
class JobContextHoldsNoActorTest {

  @Test
  void theJobContextHoldsNoActor() {
    assertEquals(List.of(), actorFields(JobContextImpl.class));
  }

  @Test
  void theJobsRunnerHoldsNoActor() {
    assertEquals(List.of(), actorFields(JobRun.class));
  }

  @Test
  void theCheckFindsAnActorHeldThroughAnAlmanacType() {
    List<String> found = actorFields(Holder.class);
    assertFalse(found.isEmpty());
    assertEquals(List.of("JobContextHoldsNoActorTest$Held.refs: java.util.List<org.apache.pekko.actor.typed.ActorRef<"
        + "java.lang.String>>"), found);
  }

  private static final class Holder {
    Held held;
  }

  private static final class Held {
    List<ActorRef<String>> refs;
  }

  /** The fields, anywhere below {@code root}, whose declared type mentions an actor type. */
  static List<String> actorFields(Class<?> root) {
    List<String> found = new ArrayList<>();
    Set<Class<?>> seen = new HashSet<>();
    List<Class<?>> todo = new ArrayList<>(List.of(root));
    while (!todo.isEmpty()) {
      Class<?> c = todo.remove(todo.size() - 1);
      if (!seen.add(c)) {
        continue;
      }
      for (Class<?> k = c; k != null && ours(k); k = k.getSuperclass()) {
        for (Field f : k.getDeclaredFields()) {
          if (Modifier.isStatic(f.getModifiers())) {
            continue;
          }
          List<Class<?>> mentioned = new ArrayList<>();
          mentions(f.getGenericType(), mentioned, new HashSet<>());
          if (mentioned.stream().anyMatch(JobContextHoldsNoActorTest::actor)) {
            found.add(k.getName().substring(k.getPackageName().length() + 1) + "." + f.getName() + ": "
                + f.getGenericType().getTypeName());
          }
          mentioned.stream().filter(JobContextHoldsNoActorTest::ours).forEach(todo::add);
        }
      }
    }
    return found;
  }

  private static boolean ours(Class<?> c) {
    return c.getName().startsWith("io.almanac.");
  }

  private static boolean actor(Class<?> c) {
    return c.getName().startsWith("org.apache.pekko.actor.");
  }

  private static void mentions(Type t, List<Class<?>> out, Set<Type> seen) {
    if (!seen.add(t)) {
      return;
    }
    if (t instanceof Class<?> c) {
      out.add(c.isArray() ? c.getComponentType() : c);
    } else if (t instanceof ParameterizedType p) {
      mentions(p.getRawType(), out, seen);
      for (Type a : p.getActualTypeArguments()) {
        mentions(a, out, seen);
      }
    } else if (t instanceof GenericArrayType g) {
      mentions(g.getGenericComponentType(), out, seen);
    } else if (t instanceof WildcardType w) {
      for (Type b : w.getUpperBounds()) {
        mentions(b, out, seen);
      }
      for (Type b : w.getLowerBounds()) {
        mentions(b, out, seen);
      }
    } else if (t instanceof TypeVariable<?> v) {
      for (Type b : v.getBounds()) {
        mentions(b, out, seen);
      }
    }
  }
}
