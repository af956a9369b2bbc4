package io.almanac.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The restart workload: a node (a child JVM) runs M tasks every second; after 10 s it is killed
 * with SIGKILL (Process.destroyForcibly), stays down 10 s, and a new node on the same store runs
 * 10 s more. Each start is printed by the node as it happens, so the parent sees every fire up to
 * the kill.
 */
final class Restart {
  private Restart() {}

  /** The node: java -cp ... io.almanac.bench.Restart system dbLocation tasks fresh (the H2 file or the schema) */
  public static void main(String[] args) throws Exception {
    String system = args[0];
    Db db = Db.of(args[1]);
    int m = Integer.parseInt(args[2]);
    boolean fresh = Boolean.parseBoolean(args[3]);
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    Recorder rec = new Recorder();
    rec.onStart(s -> {
      synchronized (out) {
        out.println("S " + s.task() + " " + s.ownDueMs() + " " + s.startMicros());
        out.flush();
      }
    });
    Sut sut = Sut.create(system);
    sut.start(db, new Plan.EverySecond(m), fresh, rec);
    synchronized (out) {
      out.println("READY " + System.currentTimeMillis());
      out.flush();
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.startsWith("REPORT ")) {
        String[] p = line.split(" ");
        Map<String, Object> r = sut.recordedBetween(new Plan.EverySecond(m), Instant.ofEpochMilli(Long.parseLong(p[1])),
            Instant.ofEpochMilli(Long.parseLong(p[2])));
        synchronized (out) {
          out.println("R " + Json.write(r));
          out.flush();
        }
      } else if (line.equals("EXIT")) {
        break;
      }
    }
    sut.close();
    System.exit(0);
  }

  private record Node(Process process, List<Recorder.Start> starts, AtomicLong ready, List<String> reports) {}

  private static Node spawn(String system, Db db, int m, boolean fresh) throws Exception {
    List<String> cmd = new ArrayList<>(Bench.javaCommand("1g"));
    cmd.add("io.almanac.bench.Restart");
    cmd.add(system);
    cmd.add(db.location());
    cmd.add(String.valueOf(m));
    cmd.add(String.valueOf(fresh));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    Node n = new Node(p, new CopyOnWriteArrayList<>(), new AtomicLong(-1), new CopyOnWriteArrayList<>());
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.startsWith("S ")) {
            String[] f = line.split(" ");
            n.starts.add(new Recorder.Start(f[1], Long.parseLong(f[2]), Long.parseLong(f[3])));
          } else if (line.startsWith("READY ")) {
            n.ready.set(Long.parseLong(line.substring(6).trim()));
          } else if (line.startsWith("R ")) {
            n.reports.add(line.substring(2));
          }
        }
      } catch (Exception e) {
        // the node was killed
      }
    }, "restart-node-reader");
    t.setDaemon(true);
    t.start();
    long deadline = System.currentTimeMillis() + 180_000;
    while (n.ready.get() < 0) {
      if (!p.isAlive() || System.currentTimeMillis() > deadline) {
        p.destroyForcibly();
        throw new IllegalStateException("the " + system + " node did not start");
      }
      Thread.sleep(20);
    }
    return n;
  }

  static Map<String, Object> run(String system, int m, int upS, int downS, int againS, Path dir) throws Exception {
    Sut probe = Sut.create(system);
    Map<String, Object> out = Workloads.head(system, "restart-" + m, probe);
    Db db = Db.at(dir, "restart");
    db.createEmpty();
    List<Process> nodes = new ArrayList<>();
    try {
      return run(system, m, upS, downS, againS, db, out, nodes);
    } finally {
      for (Process p : nodes) {
        if (p.isAlive()) {
          p.destroyForcibly();
          p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
        }
      }
      db.drop();
    }
  }

  private static Map<String, Object> run(String system, int m, int upS, int downS, int againS, Db db, Map<String, Object> out,
      List<Process> nodes) throws Exception {
    long spawn1 = System.currentTimeMillis();
    Node a = spawn(system, db, m, true);
    nodes.add(a.process);
    Bench.progress("  %s: node 1 ready in %d ms; running %d s, then kill -9", system, a.ready.get() - spawn1, upS);
    Thread.sleep(upS * 1000L);
    long killAt = System.currentTimeMillis();
    a.process.destroyForcibly(); // SIGKILL
    a.process.waitFor();
    Bench.progress("  %s: node 1 killed (SIGKILL); down %d s", system, downS);
    Thread.sleep(downS * 1000L);
    long spawn2 = System.currentTimeMillis();
    Node b = spawn(system, db, m, false);
    nodes.add(b.process);
    long ready2 = b.ready.get();
    Bench.progress("  %s: node 2 ready after %d ms; running %d s", system, ready2 - spawn2, againS);
    Thread.sleep(againS * 1000L);
    long end = System.currentTimeMillis();
    long firstSec = (a.ready.get() / 1000 + 1) * 1000;
    long killSec = (killAt / 1000 + 1) * 1000; // first whole second due after the kill
    long readySec = (ready2 / 1000 + 1) * 1000; // first whole second due after node 2 is up
    long lastSec = (end / 1000 - 3) * 1000; // fires due in the last 3 s may still be starting
    PrintWriter w = new PrintWriter(b.process.getOutputStream(), true, StandardCharsets.UTF_8);
    w.println("REPORT " + killSec + " " + readySec);
    long rd = System.currentTimeMillis() + 60_000;
    while (b.reports.isEmpty() && System.currentTimeMillis() < rd && b.process.isAlive()) {
      Thread.sleep(20);
    }
    w.println("EXIT");
    if (!b.process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
      b.process.destroyForcibly();
    }

    boolean aligned = system.startsWith("quartz") || system.equals("almanac");
    List<Recorder.Start> all = new ArrayList<>(a.starts);
    all.addAll(b.starts);
    // due seconds while down: [killSec, readySec); fresh: [readySec, lastSec)
    Map<String, Integer> perKey = new HashMap<>();
    int lateRuns = 0;
    int misfireFires = 0;
    List<Double> lateLag = new ArrayList<>();
    List<Double> freshLag = new ArrayList<>();
    Set<String> freshKeys = new HashSet<>();
    Map<String, Integer> lateByTask = new HashMap<>();
    Set<String> recentTasks = new HashSet<>();
    for (Recorder.Start s : all) {
      if (aligned && s.ownDueMs() % 1000 != 0) {
        misfireFires++; // Quartz "fire once now" after a misfire: due time replaced by the fire time
        if (s.startMicros() / 1000 >= ready2 - 5000) {
          lateByTask.merge(s.task(), 1, Integer::sum);
        }
        continue;
      }
      long sec = s.secondMs();
      perKey.merge(s.task() + "@" + sec, 1, Integer::sum);
      double lag = s.startMicros() / 1000.0 - sec;
      if (sec >= killSec && sec < readySec) {
        lateRuns++;
        lateLag.add(lag);
        lateByTask.merge(s.task(), 1, Integer::sum);
      } else if (sec >= readySec && sec < lastSec) {
        freshLag.add(lag);
        freshKeys.add(s.task() + "@" + sec);
      }
      if (sec >= lastSec - 3000 && sec < lastSec) {
        recentTasks.add(s.task());
      }
    }
    int dups = 0;
    for (int c : perKey.values()) {
      dups += c - 1;
    }
    long downSeconds = (readySec - killSec) / 1000;
    long freshSeconds = (lastSec - readySec) / 1000;
    out.put("tasks", m);
    out.put("node1_up_ms", killAt - a.ready.get());
    out.put("down_ms", ready2 - killAt);
    out.put("node2_start_ms", ready2 - spawn2);
    out.put("due_while_down", downSeconds * m);
    out.put("run_late", lateRuns);
    out.put("run_late_lag", Stats.lag(lateLag.stream().mapToDouble(Double::doubleValue).toArray()));
    out.put("misfire_handled_fires", misfireFires);
    out.put("tasks_with_a_late_run", lateByTask.size());
    out.put("skipped", downSeconds * m - lateRuns);
    out.put("recorded", b.reports.isEmpty() ? "no report" : Json.parse(b.reports.get(0)));
    out.put("fresh_expected", freshSeconds * m);
    out.put("fresh_fired", freshKeys.size());
    out.put("fresh_lag", Stats.lag(freshLag.stream().mapToDouble(Double::doubleValue).toArray()));
    out.put("duplicates", dups);
    out.put("stuck_tasks", m - recentTasks.size());
    out.put("stuck_note", "tasks with no fire due in the last 3 measured seconds");
    out.put("first_measured_second", Instant.ofEpochMilli(firstSec).toString());
    return out;
  }
}
