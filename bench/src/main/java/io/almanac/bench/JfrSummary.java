package io.almanac.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A text summary of a JFR recording's CPU samples (jdk.ExecutionSample): the share of samples by
 * thread pool, by the innermost frame (self time), by any frame on the stack (total time) and by
 * component (the innermost frame of a library or of Almanac). Record a run with
 * {@code ALMANAC_BENCH_JVM_OPTS="-XX:StartFlightRecording=filename=burst.jfr,settings=profile"}, then
 * {@code java -cp bench/target/almanac-bench.jar io.almanac.bench.JfrSummary burst.jfr [top]}.
 */
public final class JfrSummary {
  private JfrSummary() {}

  private static final String[][] COMPONENTS = {
    {"h2", "org.h2."}, {"slick", "slick."}, {"jackson", "com.fasterxml.jackson"},
    {"pekko-persistence-jdbc", "org.apache.pekko.persistence.jdbc"}, {"pekko-persistence", "org.apache.pekko.persistence"},
    {"pekko-sharding", "org.apache.pekko.cluster.sharding"}, {"pekko-streams", "org.apache.pekko.stream"},
    {"pekko-serialization", "org.apache.pekko.serialization"}, {"pekko-actor", "org.apache.pekko"},
    {"micrometer", "io.micrometer"}, {"logging", "ch.qos.logback"}, {"logging", "org.slf4j"}, {"hikari", "com.zaxxer"},
    {"pcollections", "org.pcollections"}, {"bench harness", "io.almanac.bench"}, {"almanac", "io.almanac"},
    {"quartz", "org.quartz"}, {"db-scheduler", "com.github.kagkarlsson"}};

  /**
   * @param args the recording; optionally how many rows of each list to print (default 25); optionally
   *     a window of wall-clock time, two ISO instants or local times of day in UTC ({@code 21:38:56 21:39:11}),
   *     to summarise one phase of a run (the bench's stderr stamps each phase)
   * @throws Exception when the recording cannot be read
   */
  public static void main(String[] args) throws Exception {
    int top = args.length > 1 ? Integer.parseInt(args[1]) : 25;
    java.time.Instant from = args.length > 3 ? instant(args[2]) : java.time.Instant.MIN;
    java.time.Instant to = args.length > 3 ? instant(args[3]) : java.time.Instant.MAX;
    Map<String, Integer> threads = new HashMap<>();
    Map<String, Integer> self = new HashMap<>();
    Map<String, Integer> total = new HashMap<>();
    Map<String, Integer> components = new HashMap<>();
    int n = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
        continue;
      }
      if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to)) {
        continue;
      }
      RecordedStackTrace st = e.getStackTrace();
      n++;
      var t = e.getThread("sampledThread");
      threads.merge(t == null || t.getJavaName() == null ? "?" : t.getJavaName().replaceAll("[0-9]+", "#"), 1, Integer::sum);
      List<RecordedFrame> frames = st.getFrames();
      if (!frames.isEmpty()) {
        self.merge(name(frames.get(0)), 1, Integer::sum);
      }
      Set<String> seen = new HashSet<>();
      String component = null;
      for (RecordedFrame f : frames) {
        String k = name(f);
        if (seen.add(k)) {
          total.merge(k, 1, Integer::sum);
        }
        if (component == null) {
          component = component(f.getMethod().getType().getName());
        }
      }
      components.merge(component == null ? "JDK only" : component, 1, Integer::sum);
    }
    System.out.println("CPU samples: " + n + " (" + args[0] + ")");
    print("by thread pool", threads, n, top);
    print("by component (innermost non-JDK frame)", components, n, top);
    print("self (innermost frame)", self, n, top);
    print("total (on the stack)", total, n, top);
  }

  private static java.time.Instant instant(String text) {
    if (text.contains("T")) {
      return java.time.Instant.parse(text);
    }
    return java.time.LocalDate.now(java.time.ZoneOffset.UTC).atTime(java.time.LocalTime.parse(text))
        .toInstant(java.time.ZoneOffset.UTC);
  }

  private static String component(String type) {
    for (String[] c : COMPONENTS) {
      if (type.startsWith(c[1])) {
        return c[0];
      }
    }
    return null;
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static void print(String title, Map<String, Integer> counts, int n, int top) {
    System.out.println("== " + title);
    counts.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(top)
        .forEach(e -> System.out.printf("%5.1f%%  %s%n", 100.0 * e.getValue() / Math.max(1, n), e.getKey()));
  }
}
