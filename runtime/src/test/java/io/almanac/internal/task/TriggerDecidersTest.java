package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.almanac.ConditionTrigger;
import io.almanac.DependencyTrigger;
import io.almanac.EventTrigger;
import io.almanac.InstanceStatus;
import io.almanac.InvalidSpecException;
import io.almanac.PublishResult.Outcome;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import io.almanac.TaskSpec;
import io.almanac.WindowKey;
import io.almanac.internal.protocol.TaskProtocol;
import io.almanac.internal.protocol.TaskProtocol.EventOutcome;
import io.almanac.internal.protocol.TaskProtocol.Fire;
import io.almanac.internal.protocol.TaskProtocol.FireKind;
import io.almanac.internal.protocol.TaskProtocol.GateChecked;
import io.almanac.internal.protocol.TaskProtocol.PublishEvent;
import io.almanac.internal.protocol.TaskProtocol.UpstreamReport;
import io.almanac.internal.protocol.TaskProtocol.UpstreamWindow;
import io.almanac.internal.trigger.DependencyGraph;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import io.almanac.journal.TaskJournal.Event;
import io.almanac.journal.TaskJournal.SpecDefined;
import io.almanac.journal.TaskJournal.State;
import io.almanac.journal.WindowState;
import io.almanac.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The pure deciders of event, dependency and condition triggers (R9), without actors. */
class TriggerDecidersTest {

  private static final TaskSettings SETTINGS = TaskSettings.from(ConfigFactory.load());
  private static final HotState HOT = new HotState(1_000, Duration.ofDays(3650), 10_000);
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  private final FireDecider fires = new FireDecider(SETTINGS);
  private final EventDecider events = new EventDecider(fires);
  private final GateDecider gates = new GateDecider(fires);

  private static State defined(TaskSpec spec) {
    return Evolve.fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), T0)), HOT);
  }

  @Test
  @DisplayName("R9/R5: 10,000 events with 2,000 distinct ids for one window make one instance; 2,000 received, 8,000 duplicates, first and last ids kept")
  void stormCoalesces() {
    TaskSpec spec = TaskSpec.builder("sync").onEvent(EventTrigger.of("order.paid")).zone("UTC").window("hourly").job("j").build();
    State s = defined(spec);
    var schedule = Schedules.of(spec);
    Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
    int instancesCreated = 0;
    for (int i = 0; i < 10_000; i++) {
      Instant now = T0.plusMillis(i);
      Decided<EventOutcome> d = events.publish(s, new PublishEvent("order.paid", "evt-" + (i % 2_000),
          T0.plusMillis(i * 100L), null, null), schedule, now);
      assertTrue(!d.refused(), () -> String.valueOf(d.refusal()));
      instancesCreated += (int) d.events().stream().filter(e -> e instanceof TaskJournal.InstanceScheduled).count();
      outcomes.merge(d.reply().apply(s).outcome(), 1, Integer::sum);
      s = Evolve.fold(s, d.events(), HOT);
    }
    assertEquals(1, instancesCreated);
    assertEquals(Map.of(Outcome.SCHEDULED, 1, Outcome.COALESCED, 1_999, Outcome.DUPLICATE, 8_000), outcomes);
    WindowState w = s.window("2026-11-29-00").orElseThrow();
    assertEquals(new WindowState.EventTally(2_000, 8_000, "evt-0", "evt-1999"), w.events());
    assertEquals(1, s.windows().size());
    assertEquals(2_000, s.eventIds().size());
  }

  @Test
  @DisplayName("R9: a batch is decided event by event in order, exactly as single publishes: duplicates against history and "
      + "inside the batch recognised, later events of a window coalesced, all in one list of events")
  void batchDecidedInOrder() {
    TaskSpec spec = TaskSpec.builder("sync").onEvent(EventTrigger.of("t")).zone("UTC").window("hourly").job("j").build();
    var schedule = Schedules.of(spec);
    State s = defined(spec);
    for (String id : List.of("h1", "h2")) { // history: window 00 has an instance
      s = Evolve.fold(s, events.publish(s, new PublishEvent("t", id, T0.plusSeconds(60), null, null), schedule, T0).events(), HOT);
    }
    Instant now = T0.plusSeconds(7200);
    List<TaskProtocol.BatchedEvent> batch = List.of(
        new TaskProtocol.BatchedEvent("t", "h1", T0.plusSeconds(120), null),          // duplicate of history
        new TaskProtocol.BatchedEvent("t", "x1", T0.plusSeconds(180), "first x1"),    // window 00: coalesced
        new TaskProtocol.BatchedEvent("t", "x2", T0.plusSeconds(3660), null),         // window 01: new
        new TaskProtocol.BatchedEvent("t", "x1", T0.plusSeconds(3700), "again"),      // duplicate inside the batch
        new TaskProtocol.BatchedEvent("t", "x3", T0.plusSeconds(3720), null),         // window 01, made by x2: coalesced
        new TaskProtocol.BatchedEvent("t", "h2", T0.plusSeconds(3720), null));        // duplicate of history
    Decided<TaskProtocol.EventOutcomes> d = events.publishAll("sync", s, batch, () -> schedule, now, HOT);
    assertTrue(!d.refused(), () -> String.valueOf(d.refusal()));
    List<Outcome> outcomes = d.reply().apply(s).outcomes().stream().map(EventOutcome::outcome).toList();
    assertEquals(Outcome.DUPLICATE, outcomes.get(0));
    assertEquals(Outcome.COALESCED, outcomes.get(1));
    assertNotEquals(Outcome.DUPLICATE, outcomes.get(2));
    assertNotEquals(Outcome.COALESCED, outcomes.get(2));
    assertEquals(Outcome.DUPLICATE, outcomes.get(3));
    assertEquals(Outcome.COALESCED, outcomes.get(4));
    assertEquals(Outcome.DUPLICATE, outcomes.get(5));
    assertEquals("2026-11-29-00", d.reply().apply(s).outcomes().get(3).window(), "x1 arrived before in window 00");
    // the same as six single publishes, one after the other
    State one = s;
    List<Event> singly = new ArrayList<>();
    List<Outcome> singleOutcomes = new ArrayList<>();
    for (TaskProtocol.BatchedEvent e : batch) {
      Decided<EventOutcome> o = events.publish(one, e.asPublish(), schedule, now);
      singly.addAll(o.events());
      singleOutcomes.add(o.reply().apply(one).outcome());
      one = Evolve.fold(one, o.events(), HOT);
    }
    assertEquals(singly, d.events());
    assertEquals(singleOutcomes, outcomes);
    State after = Evolve.fold(s, d.events(), HOT);
    assertEquals(new WindowState.EventTally(3, 3, "h1", "x1"), after.window("2026-11-29-00").orElseThrow().events());
    assertEquals(2, after.window("2026-11-29-01").orElseThrow().events().received());
    assertEquals(5, after.eventIds().size());
  }

  @Test
  @DisplayName("R9: an event of a batch refused by the task refuses the batch, naming the event; nothing is recorded")
  void batchRefusedAsAWhole() {
    TaskSpec spec = TaskSpec.builder("sync").onEvent(EventTrigger.of("t")).zone("UTC").window("hourly").job("j").build();
    State s = defined(spec);
    Decided<TaskProtocol.EventOutcomes> d = events.publishAll("sync", s, List.of(
        new TaskProtocol.BatchedEvent("t", "a", T0, null), new TaskProtocol.BatchedEvent("t", "b", null, null)),
        () -> Schedules.of(spec), T0, HOT);
    assertTrue(d.refused());
    assertEquals(List.of(), d.events());
    assertTrue(d.refusal().getMessage().contains("event 1 of the batch of 2, id 'b'"), d.refusal().getMessage());
    assertTrue(d.refusal().getMessage().contains("eventTime"), d.refusal().getMessage());
  }

  @Test
  @DisplayName("R9: event ids are remembered up to the configured number, oldest forgotten first")
  void eventIdsBounded() {
    HotState small = new HotState(1_000, Duration.ofDays(3650), 3);
    TaskSpec spec = TaskSpec.builder("sync").onEvent(EventTrigger.of("t").byArrivalTime()).zone("UTC").window("daily").job("j").build();
    State s = Evolve.fold(State.empty(20), List.of(new SpecDefined(SpecRecord.of(spec), T0)), small);
    for (int i = 0; i < 5; i++) {
      s = Evolve.fold(s, events.publish(s, new PublishEvent("t", "e" + i, null, null, null), Schedules.of(spec), T0).events(), small);
    }
    assertEquals(List.of("e2", "e3", "e4"), new ArrayList<>(s.eventIds().keySet()));
  }

  @Test
  @DisplayName("R9: an event for a window at or before the archived windows, not in the state, is answered ARCHIVED and recorded, "
      + "not COALESCED; an event for a hot window is COALESCED")
  void eventBeforeTheArchiveLine() {
    TaskSpec spec = TaskSpec.builder("sync").onEvent(EventTrigger.of("t")).zone("UTC").window("hourly").job("j").build();
    State hot = Evolve.fold(defined(spec), events.publish(defined(spec), new PublishEvent("t", "a", T0.plusSeconds(7200), null, null),
        Schedules.of(spec), T0.plusSeconds(7200)).events(), HOT);
    State s = new State(hot.spec(), false, hot.windows(), T0.plusSeconds(3600), 2, hot.samples(), null, hot.eventIds());
    Decided<EventOutcome> old = events.publish(s, new PublishEvent("t", "b", T0.plusSeconds(60), null, null), Schedules.of(spec),
        T0.plusSeconds(7300));
    EventOutcome o = old.reply().apply(s);
    assertEquals(Outcome.ARCHIVED, o.outcome());
    assertTrue(o.detail().contains("archived windows (through " + T0.plusSeconds(3600) + ")"), o.detail());
    assertInstanceOf(TaskJournal.EventReceived.class, old.events().get(0));
    assertEquals(1, old.events().size(), "recorded, nothing scheduled");
    assertEquals(Outcome.COALESCED, events.publish(s, new PublishEvent("t", "c", T0.plusSeconds(7260), null, null),
        Schedules.of(spec), T0.plusSeconds(7300)).reply().apply(s).outcome());
  }

  @Test
  @DisplayName("R9/R6: an event for a new window while another runs follows the overlap policy (SKIP records PREVIOUS_RUNNING)")
  void eventFollowsOverlap() {
    TaskSpec spec = TaskSpec.builder("sync").onEvent(EventTrigger.of("t")).zone("UTC").window("hourly").job("j").build();
    State s = defined(spec);
    s = Evolve.fold(s, events.publish(s, new PublishEvent("t", "a", T0, null, null), Schedules.of(spec), T0).events(), HOT);
    s = Evolve.fold(s, List.of(new TaskJournal.AttemptStarted("2026-11-29-00", 1, RunKind.FIRST, T0.plusSeconds(600), "x", T0)), HOT);
    Decided<EventOutcome> d = events.publish(s, new PublishEvent("t", "b", T0.plusSeconds(3600), null, null), Schedules.of(spec),
        T0.plusSeconds(3600));
    assertEquals(Outcome.SKIPPED, d.reply().apply(s).outcome());
    State after = Evolve.fold(s, d.events(), HOT);
    assertEquals(SkipReason.PREVIOUS_RUNNING, after.window("2026-11-29-01").orElseThrow().skipReason());
    assertEquals(1, after.window("2026-11-29-01").orElseThrow().events().received());
  }

  @Test
  @DisplayName("R9/R5: windows made by events are never a skip range: each skipped one is its own instance with its event, "
      + "and a later event for a window between two skipped ones runs it")
  void eventWindowsAreNoRange() {
    TaskSpec spec = TaskSpec.builder("sync").onEvent(EventTrigger.of("t")).zone("UTC").window("hourly").job("j").build();
    State s = defined(spec);
    s = Evolve.fold(s, events.publish(s, new PublishEvent("t", "a", T0, null, null), Schedules.of(spec), T0).events(), HOT);
    s = Evolve.fold(s, List.of(new TaskJournal.AttemptStarted("2026-11-29-00", 1, RunKind.FIRST, T0.plusSeconds(7200), "x", T0)),
        HOT);
    Instant now = T0.plusSeconds(4 * 3600);
    for (String[] e : new String[][] {{"b", "1"}, {"c", "3"}}) { // hours 1 and 3 while hour 0 runs: skipped
      Decided<EventOutcome> d = events.publish(s, new PublishEvent("t", e[0], T0.plusSeconds(Long.parseLong(e[1]) * 3600 + 60),
          null, null), Schedules.of(spec), now);
      assertEquals(Outcome.SKIPPED, d.reply().apply(s).outcome(), "event " + e[0]);
      s = Evolve.fold(s, d.events(), HOT);
    }
    for (String w : List.of("2026-11-29-01", "2026-11-29-03")) {
      WindowState skipped = s.window(w).orElseThrow(() -> new AssertionError("no instance of skipped window " + w));
      assertEquals(InstanceStatus.SKIPPED, skipped.status(), w);
      assertEquals(1, skipped.events().received(), w);
    }
    assertEquals(null, s.openRange(), "no skip range of event windows");
    s = Evolve.fold(s, List.of(new TaskJournal.AttemptSucceeded("2026-11-29-00", 1, Duration.ofSeconds(1), "ok", null, now, null)),
        HOT);
    Decided<EventOutcome> late = events.publish(s, new PublishEvent("t", "d", T0.plusSeconds(2 * 3600 + 60), null, null),
        Schedules.of(spec), now);
    assertEquals(Outcome.SCHEDULED, late.reply().apply(s).outcome(), "hour 2 had no event before: it runs");
  }

  private static TaskSpec dependent(DependencyTrigger dep) {
    return TaskSpec.builder("report").cron("0 30 0 * * ? UTC").window("daily").job("j").dependsOn(dep).build();
  }

  private State waiting(TaskSpec spec) {
    State s = defined(spec);
    Instant due = Instant.parse("2026-11-29T00:30:00Z");
    Decided<TaskProtocol.FireOutcome> d = fires.fire(s, new Fire(WindowKey.of("2026-11-29"), T0, T0.plus(Duration.ofDays(1)),
        due, FireKind.ON_TIME, null), due);
    s = Evolve.fold(s, d.events(), HOT);
    assertEquals(InstanceStatus.WAITING, s.window("2026-11-29").orElseThrow().status());
    return s;
  }

  private static UpstreamReport report(String task, Map<String, InstanceStatus> windows, List<String> expected) {
    List<UpstreamWindow> ws = new ArrayList<>();
    int h = 0;
    for (var e : windows.entrySet()) {
      ws.add(new UpstreamWindow(e.getKey(), T0.plusSeconds(3600L * h), T0.plusSeconds(3600L * (h + 1)), e.getValue(), T0));
      h++;
    }
    return new UpstreamReport(task, true, ws, expected);
  }

  @Test
  @DisplayName("R9: a dependency met releases the waiting window (overlap decides); not met at the deadline records DEPENDENCY_NOT_MET")
  void dependencyReleaseAndDeadline() {
    TaskSpec spec = dependent(DependencyTrigger.on("export").waitAtMost(Duration.ofHours(2)));
    State s = waiting(spec);
    assertEquals(Instant.parse("2026-11-29T02:30:00Z"), s.window("2026-11-29").orElseThrow().waitUntil());
    GateChecked notYet = new GateChecked("2026-11-29", Map.of("export", report("export", Map.of("2026-11-29",
        InstanceStatus.RUNNING), List.of())), Map.of(), null, null);
    assertTrue(gates.checked(s, notYet, null, Instant.parse("2026-11-29T01:00:00Z")).events().isEmpty());
    GateDecider.Result late = gates.checked(s, notYet, null, Instant.parse("2026-11-29T02:30:00Z"));
    TaskJournal.WaitEnded ended = assertInstanceOf(TaskJournal.WaitEnded.class, late.events().get(0));
    assertEquals(SkipReason.DEPENDENCY_NOT_MET, ended.reason());
    assertTrue(ended.detail().contains("upstream export window 2026-11-29 is RUNNING"), ended.detail());
    GateChecked met = new GateChecked("2026-11-29", Map.of("export", report("export", Map.of("2026-11-29",
        InstanceStatus.SUCCEEDED), List.of())), Map.of(), null, null);
    List<Event> released = gates.checked(s, met, null, Instant.parse("2026-11-29T01:00:00Z")).events();
    assertInstanceOf(TaskJournal.WaitSatisfied.class, released.get(0));
    assertEquals(InstanceStatus.PENDING, Evolve.fold(s, released, HOT).window("2026-11-29").orElseThrow().status());
    // released late, after DEPENDENCY_NOT_MET
    State skipped = Evolve.fold(s, late.events(), HOT);
    List<Event> lateRelease = gates.checked(skipped, met, null, Instant.parse("2026-11-29T05:00:00Z")).events();
    assertEquals(InstanceStatus.PENDING, Evolve.fold(skipped, lateRelease, HOT).window("2026-11-29").orElseThrow().status());
  }

  @Test
  @DisplayName("R9: a DEPENDENCY_NOT_MET window of a task with a debounced condition is released late when the condition holds at "
      + "the late check, and not when it does not")
  void lateReleaseWithDebouncedCondition() {
    TaskSpec spec = TaskSpec.builder("report").cron("0 30 0 * * ? UTC").window("daily").job("j")
        .dependsOn(DependencyTrigger.on("export").waitAtMost(Duration.ofHours(2)))
        .when(ConditionTrigger.named("file").every(Duration.ofSeconds(10)).debounce(3)).build();
    State s = waiting(spec);
    GateChecked running = new GateChecked("2026-11-29", Map.of("export", report("export", Map.of("2026-11-29",
        InstanceStatus.RUNNING), List.of())), Map.of(), true, null);
    State skipped = Evolve.fold(s, gates.checked(s, running, null, Instant.parse("2026-11-29T02:30:00Z")).events(), HOT);
    assertEquals(SkipReason.DEPENDENCY_NOT_MET, skipped.window("2026-11-29").orElseThrow().skipReason());
    var met = Map.of("export", report("export", Map.of("2026-11-29", InstanceStatus.SUCCEEDED), List.of()));
    assertTrue(gates.checked(skipped, new GateChecked("2026-11-29", met, Map.of(), false, null), null,
        Instant.parse("2026-11-29T05:00:00Z")).events().isEmpty(), "the condition does not hold: not released");
    List<Event> released = gates.checked(skipped, new GateChecked("2026-11-29", met, Map.of(), true, null), null,
        Instant.parse("2026-11-29T05:00:10Z")).events();
    TaskJournal.WaitSatisfied why = assertInstanceOf(TaskJournal.WaitSatisfied.class, released.get(0));
    assertTrue(why.detail().contains("released late") && why.detail().contains("condition file held at the late check"),
        why.detail());
    assertEquals(InstanceStatus.PENDING, Evolve.fold(skipped, released, HOT).window("2026-11-29").orElseThrow().status());
  }

  @Test
  @DisplayName("R9: ALL_WITHIN waits for every expected upstream window; LATEST_WITHIN for the last; ANY for one upstream")
  void mappingsAndAny() {
    WindowState w = waiting(dependent(DependencyTrigger.on("hourly"))).window("2026-11-29").orElseThrow();
    Map<String, InstanceStatus> partial = new LinkedHashMap<>();
    List<String> expected = new ArrayList<>();
    for (int h = 0; h < 24; h++) {
      String k = "2026-11-29-" + (h < 10 ? "0" : "") + h;
      expected.add(k);
      partial.put(k, h < 23 ? InstanceStatus.SUCCEEDED : InstanceStatus.RUNNING);
    }
    UpstreamReport r = report("hourly", partial, expected);
    var all = SpecRecord.Dependency.of(DependencyTrigger.on("hourly").mapping(DependencyTrigger.Mapping.ALL_WITHIN));
    DependencyCheck.Verdict v = DependencyCheck.evaluate(all, w, Map.of("hourly", r), Map.of());
    assertTrue(!v.met() && v.detail().contains("23 of 24 windows succeeded; waiting for 2026-11-29-23"), v.detail());
    var latest = SpecRecord.Dependency.of(DependencyTrigger.on("hourly").mapping(DependencyTrigger.Mapping.LATEST_WITHIN));
    assertTrue(!DependencyCheck.evaluate(latest, w, Map.of("hourly", r), Map.of()).met());
    partial.put("2026-11-29-23", InstanceStatus.SUCCEEDED);
    assertTrue(DependencyCheck.evaluate(all, w, Map.of("hourly", report("hourly", partial, expected)), Map.of()).met());
    var any = SpecRecord.Dependency.of(DependencyTrigger.on("a", "b").any());
    UpstreamReport a = report("a", Map.of("2026-11-29", InstanceStatus.FINAL_FAILED), List.of());
    UpstreamReport b = report("b", Map.of("2026-11-29", InstanceStatus.RESOLVED), List.of());
    assertTrue(DependencyCheck.evaluate(any, w, Map.of("a", a, "b", b), Map.of()).met());
    var both = SpecRecord.Dependency.of(DependencyTrigger.on("a", "b"));
    assertTrue(!DependencyCheck.evaluate(both, w, Map.of("a", a, "b", b), Map.of()).met());
  }

  @Test
  @DisplayName("R9: a flapping condition never meets a debounce of 3; three holds in a row do")
  void debounce() {
    TaskSpec spec = TaskSpec.builder("report").cron("0 30 0 * * ? UTC").window("daily").job("j")
        .when(ConditionTrigger.named("c").every(Duration.ofSeconds(10)).debounce(3)).build();
    State s = waiting(spec);
    GateDecider.Memory m = null;
    for (int i = 0; i < 40; i++) {
      GateDecider.Result r = gates.checked(s, new GateChecked("2026-11-29", null, Map.of(), i % 2 == 0, null), m,
          Instant.parse("2026-11-29T00:30:00Z").plusSeconds(10L * i));
      assertTrue(r.events().isEmpty(), "flapping fires nothing");
      m = r.memory();
    }
    m = null;
    List<Event> out = List.of();
    for (int i = 0; i < 3; i++) {
      GateDecider.Result r = gates.checked(s, new GateChecked("2026-11-29", null, Map.of(), true, null), m,
          Instant.parse("2026-11-29T00:30:00Z").plusSeconds(10L * i));
      m = r.memory();
      out = r.events();
      if (i < 2) {
        assertTrue(out.isEmpty());
      }
    }
    assertEquals(InstanceStatus.PENDING, Evolve.fold(s, out, HOT).window("2026-11-29").orElseThrow().status());
  }

  @Test
  @DisplayName("R9: a failing poll is recorded once per run of the same error and resets the debounce")
  void pollFailures() {
    TaskSpec spec = TaskSpec.builder("report").cron("0 30 0 * * ? UTC").window("daily").job("j")
        .when(ConditionTrigger.named("c").every(Duration.ofSeconds(10)).debounce(2)).build();
    State s = waiting(spec);
    Instant t = Instant.parse("2026-11-29T00:30:00Z");
    GateDecider.Result held = gates.checked(s, new GateChecked("2026-11-29", null, Map.of(), true, null), null, t);
    GateDecider.Result f1 = gates.checked(s, new GateChecked("2026-11-29", null, Map.of(), null, "boom"), held.memory(), t);
    assertInstanceOf(TaskJournal.ConditionCheckFailed.class, f1.events().get(0));
    GateDecider.Result f2 = gates.checked(s, new GateChecked("2026-11-29", null, Map.of(), null, "boom"), f1.memory(), t);
    assertTrue(f2.events().isEmpty(), "the same error again is not recorded again");
    GateDecider.Result ok = gates.checked(s, new GateChecked("2026-11-29", null, Map.of(), true, null), f2.memory(), t);
    assertTrue(ok.events().isEmpty(), "the debounce starts again after a failure");
    assertNotEquals(0, ok.memory().consecutive());
  }

  @Test
  @DisplayName("R9/R33: cycles and missing upstream tasks are refused naming them; WAIT accepts a missing one")
  void graph() {
    SpecRecord a = SpecRecord.of(dependentNamed("a", DependencyTrigger.on("c")));
    SpecRecord b = SpecRecord.of(dependentNamed("b", DependencyTrigger.on("a")));
    SpecRecord c = SpecRecord.of(dependentNamed("c", DependencyTrigger.on("b")));
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> DependencyGraph.check(Map.of(), List.of(a, b, c)));
    assertTrue(e.getMessage().contains("a -> c -> b -> a"), e.getMessage());
    InvalidSpecException missing = assertThrows(InvalidSpecException.class,
        () -> DependencyGraph.check(Map.of(), List.of(b)));
    assertTrue(missing.getMessage().contains("dependency.upstream 'a'"), missing.getMessage());
    DependencyGraph.check(Map.of(), List.of(SpecRecord.of(dependentNamed("b",
        DependencyTrigger.on("a").missingUpstream(DependencyTrigger.MissingUpstream.WAIT)))));
    InvalidSpecException self = assertThrows(InvalidSpecException.class,
        () -> dependentNamed("s", DependencyTrigger.on("s")));
    assertTrue(self.getMessage().contains("s -> s"), self.getMessage());
  }

  @Test
  @DisplayName("R9: a chain of 100,000 dependent tasks is checked without running out of stack; a cycle closed at its far end is named")
  void longChains() {
    int n = 100_000;
    SpecRecord template = SpecRecord.of(dependentNamed("t0", DependencyTrigger.on("root").missingUpstream(
        DependencyTrigger.MissingUpstream.WAIT)));
    Map<String, SpecRecord> chain = new java.util.HashMap<>();
    chain.put("t0", template);
    for (int i = 1; i < n; i++) {
      chain.put("t" + i, withUpstream(template, "t" + i, "t" + (i - 1)));
    }
    DependencyGraph.check(Map.of(), chain.values()); // no cycle, no StackOverflowError
    SpecRecord closing = withUpstream(template, "t0", "t" + (n - 1));
    InvalidSpecException e = assertThrows(InvalidSpecException.class, () -> DependencyGraph.check(chain, List.of(closing)));
    assertTrue(e.getMessage().contains("closes a dependency cycle: t0 -> t" + (n - 1) + " -> t" + (n - 2)), e.getMessage());
    assertTrue(e.getMessage().length() <= 1_200, "the message is bounded: " + e.getMessage().length());
  }

  /** The template with another id and one upstream task (as built by TaskSpec, without building 100,000 of them). */
  private static SpecRecord withUpstream(SpecRecord t, String id, String upstream) {
    SpecRecord.Dependency d = t.dependency();
    return new SpecRecord(id, t.cron(), t.zone(), t.window(), t.dst(), t.overlap(), t.retry(), t.catchUp(), t.lease(), t.job(),
        t.description(), t.once(), t.event(), new SpecRecord.Dependency(List.of(upstream), d.require(), d.mapping(),
        d.waitAtMost(), DependencyTrigger.MissingUpstream.REJECT, d.onUpstreamRerun()), t.condition());
  }

  @Test
  @DisplayName("R9/R33: a poll interval below the floor and a debounce of 0 are refused naming the field")
  void conditionBounds() {
    InvalidSpecException floor = assertThrows(InvalidSpecException.class, () -> TaskSpec.builder("r").cron("0 0 0 * * ? UTC")
        .job("j").when(ConditionTrigger.named("c").every(Duration.ofMillis(500))).build());
    assertTrue(floor.getMessage().contains("condition.every"), floor.getMessage());
    InvalidSpecException zero = assertThrows(InvalidSpecException.class, () -> TaskSpec.builder("r").cron("0 0 0 * * ? UTC")
        .job("j").when(ConditionTrigger.named("c").debounce(0)).build());
    assertTrue(zero.getMessage().contains("condition.debounce '0'"), zero.getMessage());
    InvalidSpecException none = assertThrows(InvalidSpecException.class, () -> TaskSpec.builder("r").job("j")
        .dependsOn(DependencyTrigger.on("x")).build());
    assertTrue(none.getMessage().contains("cron"), none.getMessage());
  }

  private static TaskSpec dependentNamed(String id, DependencyTrigger dep) {
    return TaskSpec.builder(id).cron("0 0 0 * * ? UTC").job("j").dependsOn(dep).build();
  }

  @Test
  @DisplayName("R9: polls of one interval spread over it by task id, each strictly after the instant asked")
  void pollPhases() {
    Instant t = Instant.parse("2026-11-29T00:00:00Z");
    java.util.Set<Long> phases = new java.util.HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      Instant next = Gates.nextPoll("task-" + i, Duration.ofSeconds(10), t);
      assertTrue(next.isAfter(t) && !next.isAfter(t.plusSeconds(10)), next.toString());
      phases.add(next.toEpochMilli() % 10_000);
    }
    assertTrue(phases.size() > 900, "spread: " + phases.size() + " distinct phases of 1,000 tasks");
  }
}
