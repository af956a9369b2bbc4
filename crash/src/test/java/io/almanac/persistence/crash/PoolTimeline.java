package io.almanac.persistence.crash;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pool jobs' own lines ({@code POOL-JOB START|END <task> <window> <attempt> <node> <instant>},
 * see {@link PoolNode}) of every node, as runs with a start and an end, and how many ran at once.
 * Pure: the pool tests judge the limit from these lines alone (not from what the pool store says).
 */
final class PoolTimeline {

  /**
   * One job run.
   *
   * @param task the task
   * @param window the window's key
   * @param attempt the attempt's number
   * @param node the node it ran on
   * @param start its START line's instant
   * @param end its END line's instant, or null when there was none (the node died first)
   */
  record Run(String task, String window, int attempt, String node, Instant start, Instant end) {
    String key() {
      return task + " " + window + " " + attempt + " " + node;
    }

    @Override
    public String toString() {
      return key() + " [" + start + " .. " + (end == null ? "no end" : end) + "]";
    }
  }

  /**
   * The most runs at once, when first reached, and the runs then.
   *
   * @param count how many
   * @param at when first reached
   * @param runs the runs running at that instant
   */
  record Peak(int count, Instant at, List<Run> runs) {}

  private final List<Run> runs;
  private final List<String> unmatched;

  private PoolTimeline(List<Run> runs, List<String> unmatched) {
    this.runs = List.copyOf(runs);
    this.unmatched = List.copyOf(unmatched);
  }

  /**
   * Reads the lines (others are ignored).
   *
   * @param lines every node's output lines
   * @return the timeline
   */
  static PoolTimeline parse(List<String> lines) {
    Map<String, Instant> starts = new LinkedHashMap<>();
    Map<String, Instant> ends = new HashMap<>();
    List<String> unmatched = new ArrayList<>();
    for (String l : lines) {
      if (!l.startsWith("POOL-JOB ")) {
        continue;
      }
      String[] f = l.split(" ");
      if (f.length != 7) {
        unmatched.add(l);
        continue;
      }
      String key = f[2] + " " + f[3] + " " + f[4] + " " + f[5];
      Instant at = Instant.parse(f[6]);
      if (f[1].equals("START")) {
        if (starts.put(key, at) != null) {
          unmatched.add("a second START: " + l);
        }
      } else if (f[1].equals("END")) {
        if (ends.put(key, at) != null) {
          unmatched.add("a second END: " + l);
        }
      } else {
        unmatched.add(l);
      }
    }
    List<Run> runs = new ArrayList<>();
    starts.forEach((key, at) -> {
      String[] f = key.split(" ");
      runs.add(new Run(f[0], f[1], Integer.parseInt(f[2]), f[3], at, ends.remove(key)));
    });
    ends.forEach((key, at) -> unmatched.add("an END without its START: " + key + " " + at));
    runs.sort(Comparator.comparing(Run::start));
    return new PoolTimeline(runs, unmatched);
  }

  /** Every run, by start. */
  List<Run> runs() {
    return runs;
  }

  /** Lines that do not make a run (an END without its START, a line twice, a malformed one). */
  List<String> unmatched() {
    return unmatched;
  }

  /** The runs that have no END line. */
  List<Run> unended() {
    return runs.stream().filter(r -> r.end() == null).toList();
  }

  /** Per window ({@code task window}), its runs. */
  Map<String, List<Run>> byWindow() {
    Map<String, List<Run>> m = new TreeMap<>();
    for (Run r : runs) {
      m.computeIfAbsent(r.task() + " " + r.window(), k -> new ArrayList<>()).add(r);
    }
    return m;
  }

  /** Per node, how many runs started there. */
  Map<String, Long> startsByNode() {
    Map<String, Long> m = new TreeMap<>();
    runs.forEach(r -> m.merge(r.node(), 1L, Long::sum));
    return m;
  }

  /**
   * The most runs at once over all time. A run without an END counts until {@code openUntil} (e.g.
   * the kill of its node: a killed job runs no further).
   *
   * @param openUntil the node's death, per node, for the runs without an END (a run of a node not
   *     in the map without an END runs on forever)
   * @return the peak
   */
  Peak peak(Map<String, Instant> openUntil) {
    return peakBetween(Instant.MIN, Instant.MAX, openUntil);
  }

  /**
   * The most runs at once at any instant in {@code [from, to]}. An END and a START at the same instant
   * do not overlap (the END comes first: a job's end is printed before its hold is released).
   */
  Peak peakBetween(Instant from, Instant to, Map<String, Instant> openUntil) {
    record Edge(Instant at, int delta, Run run) {}
    List<Edge> edges = new ArrayList<>();
    for (Run r : runs) {
      Instant end = r.end() != null ? r.end() : openUntil.getOrDefault(r.node(), Instant.MAX);
      edges.add(new Edge(r.start(), 1, r));
      edges.add(new Edge(end, -1, r));
    }
    edges.sort(Comparator.comparing(Edge::at).thenComparingInt(Edge::delta));
    List<Run> running = new ArrayList<>();
    int best = 0;
    Instant bestAt = null;
    List<Run> bestRuns = List.of();
    for (int i = 0; i < edges.size(); i++) {
      Edge e = edges.get(i);
      if (e.at().isAfter(to)) {
        break;
      }
      if (e.delta() > 0) {
        running.add(e.run());
      } else {
        running.remove(e.run());
      }
      // the level after this edge holds from e.at() on: it counts once e.at() >= from, or, for the
      // last edge before from, as the level at from
      boolean beforeFromStill = e.at().isBefore(from) && i + 1 < edges.size() && edges.get(i + 1).at().isBefore(from);
      if (!beforeFromStill && running.size() > best) {
        best = running.size();
        bestAt = e.at().isBefore(from) ? from : e.at();
        bestRuns = List.copyOf(running);
      }
    }
    return new Peak(best, bestAt, bestRuns);
  }
}
