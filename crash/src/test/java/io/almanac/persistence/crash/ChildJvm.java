package io.almanac.persistence.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * A child JVM on this JVM's class path (the test class path: {@code java.class.path}) and java
 * binary. Its stdout and stderr go, line by line, to {@code <name>.out}; the test can wait for a
 * line ({@link #nextLine}, {@link #awaitFirst}). {@link #kill9()} sends SIGKILL
 * ({@link Process#destroyForcibly()} does on Linux) and checks the exit status 137 (128 + 9), so
 * the death really was a kill -9. Children still running when this JVM exits are killed by a
 * shutdown hook (a crash node also ends when its stdin does).
 */
final class ChildJvm implements AutoCloseable {

  private final String name;
  private final Process process;
  private final Instant startedAt;
  private final Path out;
  private final PrintWriter stdin;
  private final List<Waiter> waiters = new CopyOnWriteArrayList<>();
  private final List<java.util.function.Consumer<String>> listeners = new CopyOnWriteArrayList<>();
  private final Thread reader;
  private final Object lock = new Object();
  /** Lines seen so far, but the frequent JOB-START, JOB-END and EFFECT lines (guarded by lock). */
  private final List<String> history = new ArrayList<>();
  private boolean ended;

  private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "child-jvm-reaper"));
  }

  private record Waiter(Predicate<String> match, CompletableFuture<String> line) {}

  private ChildJvm(String name, Process process, Instant startedAt, Path out) {
    this.name = name;
    this.process = process;
    this.startedAt = startedAt;
    this.out = out;
    LIVE.add(process);
    process.onExit().thenRun(() -> LIVE.remove(process));
    OutputStream os = process.getOutputStream();
    this.stdin = new PrintWriter(os, true, StandardCharsets.UTF_8);
    this.reader = new Thread(this::pump, "child-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts a child JVM.
   *
   * @param name a name for its output file and thread
   * @param dir where {@code <name>.out} goes
   * @param mainClass the main class
   * @param jvmArgs JVM options (e.g. {@code -Dlogback.configurationFile=...})
   * @param args program arguments
   * @return the running child
   */
  static ChildJvm start(String name, Path dir, Class<?> mainClass, List<String> jvmArgs, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass.getName());
    cmd.addAll(args);
    try {
      Files.createDirectories(dir);
      Path out = dir.resolve(name + ".out");
      Files.writeString(out, "# java " + String.join(" ", jvmArgs) + " -cp <test class path> " + mainClass.getName() + " "
          + String.join(" ", args) + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      Instant at = Instant.now();
      Process p = pb.start();
      return new ChildJvm(name, p, at, out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start child JVM " + name, e);
    }
  }

  /** The path of a test resource as a file (for {@code -Dlogback.configurationFile}). */
  static Path resource(String name) {
    URL url = ChildJvm.class.getClassLoader().getResource(name);
    if (url == null) {
      throw new IllegalStateException("test resource " + name + " is missing");
    }
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private void pump() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        var w = Files.newBufferedWriter(out, StandardCharsets.UTF_8, StandardOpenOption.APPEND)) {
      String line;
      while ((line = in.readLine()) != null) {
        for (java.util.function.Consumer<String> l : listeners) {
          try {
            l.accept(line);
          } catch (RuntimeException e) {
            // a faulty listener must not stop the pump (the child would block on a full pipe)
            System.err.println("child " + name + ": a line listener failed on '" + line + "': " + e);
          }
        }
        synchronized (lock) {
          if (!line.startsWith("JOB-START ") && !line.startsWith("JOB-END ") && !line.startsWith("EFFECT ")) {
            history.add(line);
          }
          for (Waiter waiter : waiters) {
            if (!waiter.line().isDone() && waiter.match().test(line)) {
              waiter.line().complete(line);
            }
          }
        }
        w.write(line);
        w.newLine();
        w.flush();
      }
    } catch (IOException e) {
      // the process died: its stream ends
    } finally {
      synchronized (lock) {
        ended = true;
        for (Waiter waiter : waiters) {
          waiter.line().completeExceptionally(new IllegalStateException("child " + name + "'s output ended (exit "
              + (process.isAlive() ? "?" : process.exitValue()) + ") before the line was seen; see " + out));
        }
      }
    }
  }

  /**
   * Calls the listener with every later line (on the reader thread).
   *
   * @param listener the listener
   */
  void onLine(java.util.function.Consumer<String> listener) {
    listeners.add(listener);
  }

  /**
   * A future of the next line that matches, from now on.
   *
   * @param match the line's test
   * @return completes with the line, or fails when the child's output ends first
   */
  CompletableFuture<String> nextLine(Predicate<String> match) {
    return waitFor(match, false);
  }

  private CompletableFuture<String> waitFor(Predicate<String> match, boolean past) {
    Waiter w = new Waiter(match, new CompletableFuture<>());
    synchronized (lock) {
      if (past) {
        for (String l : history) {
          if (match.test(l)) {
            w.line().complete(l);
            return w.line();
          }
        }
      }
      if (ended) {
        w.line().completeExceptionally(new IllegalStateException("child " + name + "'s output has ended; see " + out));
        return w.line();
      }
      waiters.add(w);
    }
    w.line().whenComplete((l, e) -> waiters.remove(w));
    return w.line();
  }

  /**
   * Waits for the first matching line since the start (not a JOB-START, JOB-END or EFFECT line: those are
   * not kept), e.g. READY.
   *
   * @param match the line's test
   * @param timeout how long
   * @return the line
   * @throws IllegalStateException naming the output file when it does not come
   */
  String awaitFirst(Predicate<String> match, Duration timeout) {
    return await(waitFor(match, true), timeout);
  }

  /** Waits for a future from {@link #nextLine}. */
  String await(CompletableFuture<String> line, Duration timeout) {
    try {
      return line.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("child " + name + ": no expected line within " + timeout + "; see " + out, e);
    } catch (Exception e) {
      throw new IllegalStateException("child " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes a line to the child's stdin (a command of CrashNode's, e.g. {@code PUBLISH ...}).
   *
   * @param line the line
   */
  void send(String line) {
    synchronized (stdin) {
      stdin.println(line);
      stdin.flush();
    }
  }

  /** When the process was started (just before {@link ProcessBuilder#start()}). */
  Instant startedAt() {
    return startedAt;
  }

  long pid() {
    return process.pid();
  }

  Path output() {
    return out;
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL, without waiting (safe from any thread, e.g. the one that saw a line). */
  void destroyNow() {
    process.destroyForcibly();
  }

  /**
   * SIGKILL, then waits for the death.
   *
   * @return the exit status (137 for a kill -9)
   */
  int kill9() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("child " + name + " (pid " + process.pid() + ") did not die within 30 s of SIGKILL");
      }
      reader.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    int status = process.exitValue();
    if (status != 137) {
      throw new IllegalStateException("child " + name + " exited with " + status + ", not 137 (SIGKILL); see " + out);
    }
    return status;
  }

  /**
   * A normal stop: the line {@code STOP} on its stdin (CrashNode terminates its ActorSystem, which
   * runs Pekko's coordinated shutdown), then waits.
   *
   * @param timeout how long to wait for the exit
   * @return the exit status
   */
  int stop(Duration timeout) {
    requestStop();
    return awaitStopped(timeout);
  }

  /** The line {@code STOP} on its stdin, without waiting: several nodes stop at once, then {@link #awaitStopped}. */
  void requestStop() {
    stdin.println("STOP");
    stdin.flush();
  }

  /**
   * Waits for the exit a {@link #requestStop} asked for.
   *
   * @param timeout how long to wait for the exit
   * @return the exit status
   */
  int awaitStopped(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        throw new IllegalStateException("child " + name + " did not stop within " + timeout + " (killed); see " + out);
      }
      reader.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return process.exitValue();
  }

  /** {@code kill -STOP}: freezes the child (every thread, its clocks keep running) until {@link #resume()}. */
  void freeze() {
    signal("STOP");
  }

  /** {@code kill -CONT}: wakes a child frozen by {@link #freeze()}. */
  void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).redirectErrorStream(true).start();
      String out = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed: " + out);
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGTERM without waiting (a normal stop, see {@link #terminate}); {@link #awaitExit} waits for it. */
  void sigterm() {
    process.destroy();
  }

  /**
   * SIGTERM (a normal stop as a service manager does it: the JVM's shutdown hook runs Pekko's
   * coordinated shutdown, the member leaves), then waits.
   *
   * @param timeout how long to wait for the exit
   * @return the exit status (143 after SIGTERM, or 0 when the node's own stop won the race)
   */
  int terminate(Duration timeout) {
    process.destroy();
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        throw new IllegalStateException("child " + name + " did not stop within " + timeout + " of SIGTERM (killed); see " + out);
      }
      reader.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return process.exitValue();
  }

  /**
   * Waits for the child's exit (e.g. after it was downed).
   *
   * @return its exit status, or empty if it still runs at the timeout
   */
  Optional<Integer> awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        return Optional.empty();
      }
      reader.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return Optional.of(process.exitValue());
  }

  /** Kills the child if it still runs (a failed test must not leave it behind). */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
