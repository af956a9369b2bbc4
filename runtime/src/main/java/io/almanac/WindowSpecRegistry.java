package io.almanac;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/** The process-wide registry behind {@link WindowSpec#byName} and {@link WindowSpec#register}. */
final class WindowSpecRegistry {

  private static final Map<String, WindowSpec> SPECS = new ConcurrentHashMap<>();

  static {
    for (WindowSpec builtin :
        new WindowSpec[] {
          BuiltinWindowSpec.DAILY, BuiltinWindowSpec.HOURLY, BuiltinWindowSpec.PER_FIRING
        }) {
      SPECS.put(builtin.name(), builtin);
    }
  }

  private WindowSpecRegistry() {}

  static WindowSpec byName(String name) {
    WindowSpec spec = name == null ? null : SPECS.get(name);
    if (spec == null) {
      throw new InvalidSpecException(
          "window", name, "unknown window spec; known: " + String.join(", ", knownNames()));
    }
    return spec;
  }

  static void register(WindowSpec spec) {
    if (spec == null) {
      throw new InvalidSpecException("window", null, "a window spec to register must be given");
    }
    String name = spec.name();
    if (name == null || name.isBlank()) {
      throw new InvalidSpecException("window", name, "a window spec needs a non-blank name");
    }
    WindowSpec previous = SPECS.putIfAbsent(name, spec);
    if (previous != null && previous != spec) {
      throw new InvalidSpecException(
          "window", name, "name already taken by another window spec (" + previous + ")");
    }
  }

  /** Built-ins first, in their documented order, then the custom ones sorted. */
  private static Iterable<String> knownNames() {
    TreeSet<String> custom = new TreeSet<>(SPECS.keySet());
    custom.remove("daily");
    custom.remove("hourly");
    custom.remove("per-firing");
    List<String> names = new ArrayList<>();
    names.add("daily");
    names.add("hourly");
    names.add("per-firing");
    names.addAll(custom);
    return names;
  }
}
