package io.almanac;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The parts of one of the API's value classes ({@link Value}), named once, in order: what its
 * equals, hashCode and toString compare, hash and print, as a record's would. A value class is not a
 * record only because a record's public positional constructor of more than three parts would be
 * public API (an added part would rebind older calls); this keeps what a record gives for free.
 *
 * <p>The parts are the class's instance fields, read through the class's own lookup; {@link #of}
 * refuses a list that is not exactly those fields, so a field added without naming it here fails at
 * the class's first use, not silently in equals.
 */
final class Parts {
  private static final MethodType READ = MethodType.methodType(Object.class, Object.class);

  private final String type;
  private final String[] names;
  private final MethodHandle[] reads;

  private Parts(String type, String[] names, MethodHandle[] reads) {
    this.type = type;
    this.names = names;
    this.reads = reads;
  }

  /**
   * @param lookup the value class's own lookup ({@code MethodHandles.lookup()} in it), which may read
   *     its private fields
   * @param names its instance fields, every one, in the order toString prints them
   * @return the parts
   * @throws IllegalStateException if the names are not exactly the class's instance fields
   */
  static Parts of(MethodHandles.Lookup lookup, String... names) {
    Class<?> type = lookup.lookupClass();
    Set<String> fields = new TreeSet<>();
    for (Field f : type.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        fields.add(f.getName());
      }
    }
    if (!fields.equals(new TreeSet<>(Arrays.asList(names))) || fields.size() != names.length) {
      throw new IllegalStateException(type.getName() + ": the parts " + Arrays.toString(names)
          + " must be its instance fields " + fields + ", each once");
    }
    MethodHandle[] reads = new MethodHandle[names.length];
    try {
      for (int i = 0; i < names.length; i++) {
        reads[i] = lookup.unreflectGetter(type.getDeclaredField(names[i])).asType(READ);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(type.getName() + ": a part cannot be read", e);
    }
    return new Parts(type.getSimpleName(), names.clone(), reads);
  }

  /** Whether two values of the class have equal parts ({@link Objects#equals}, part by part). */
  boolean equal(Object a, Object b) {
    for (MethodHandle read : reads) {
      if (!Objects.equals(read(read, a), read(read, b))) {
        return false;
      }
    }
    return true;
  }

  /** A hash of every part, as {@link Objects#hash} of the parts in order. */
  int hash(Object value) {
    int h = 1;
    for (MethodHandle read : reads) {
      h = 31 * h + Objects.hashCode(read(read, value));
    }
    return h;
  }

  /** Every part, named, as a record prints them: {@code Type[a=1, b=2]}. */
  String describe(Object value) {
    StringBuilder out = new StringBuilder(type).append('[');
    for (int i = 0; i < reads.length; i++) {
      out.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(read(reads[i], value));
    }
    return out.append(']').toString();
  }

  private static Object read(MethodHandle read, Object value) {
    try {
      return read.invokeExact(value);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t); // a field getter throws nothing checked
    }
  }
}
