package io.almanac.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.almanac.CatchUpPolicy;
import io.almanac.DstPolicy;
import io.almanac.InstanceStatus;
import io.almanac.JobResult;
import io.almanac.MissReason;
import io.almanac.OverlapPolicy;
import io.almanac.RetryPolicy;
import io.almanac.RunKind;
import io.almanac.SkipReason;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The journal persists enum constants by name. The enums it holds are shared with the public API
 * (statuses, run kinds, reasons, the policies' modes, a job's outcome), so their names are the
 * journal's contract: this test pins every one, and finds the enums by walking the journal's
 * records, so a renamed or removed constant, or a new persisted enum, fails here before it breaks a
 * journal already written. Adding a constant is safe (extend the list); renaming one needs a
 * migration.
 */
class PersistedEnumNamesTest {

  /** Every enum the journal holds, with its constants' names in declaration order. */
  private static final Map<Class<?>, List<String>> PINNED = new LinkedHashMap<>();

  static {
    PINNED.put(InstanceStatus.class, List.of("PENDING", "RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "RETRY_WAIT",
        "FINAL_FAILED", "CANCELLED", "SKIPPED", "MISSED", "RESOLVED", "WAITING", "INTERRUPTED"));
    PINNED.put(RunKind.class, List.of("FIRST", "RETRY", "BACKFILL", "MANUAL", "RESUME"));
    PINNED.put(SkipReason.class, List.of("WINDOW_EXISTS", "PREVIOUS_RUNNING", "BUFFER_FULL", "PAUSED",
        "DEPENDENCY_NOT_MET", "CONDITION_NOT_MET", "BUDGET_EXHAUSTED", "EXCLUDED", "OUT_OF_BOUNDS"));
    PINNED.put(MissReason.class, List.of("OUTSIDE_HORIZON", "BACKFILL_NOT_ALLOWED"));
    PINNED.put(JobResult.Outcome.class, List.of("SUCCEEDED", "FAILED", "THROTTLED"));
    PINNED.put(io.almanac.PoolWaitReason.class, List.of("FULL", "RATE", "PAUSED", "BUDGET"));
    PINNED.put(OverlapPolicy.class, List.of("SKIP", "BUFFER_ONE", "ALLOW", "CANCEL_PREVIOUS"));
    PINNED.put(DstPolicy.Gap.class, List.of("SHIFT", "SKIP"));
    PINNED.put(DstPolicy.Overlap.class, List.of("FIRST", "LAST", "BOTH"));
    PINNED.put(RetryPolicy.Backoff.class, List.of("IMMEDIATE", "DELAYS", "EXPONENTIAL"));
    PINNED.put(CatchUpPolicy.Mode.class, List.of("NONE", "ALL"));
    PINNED.put(io.almanac.EventTrigger.TimeBasis.class, List.of("EVENT_TIME", "ARRIVAL_TIME"));
    PINNED.put(io.almanac.DependencyTrigger.Require.class, List.of("ALL", "ANY"));
    PINNED.put(io.almanac.DependencyTrigger.Mapping.class, List.of("SAME_WINDOW", "ALL_WITHIN", "LATEST_WITHIN"));
    PINNED.put(io.almanac.DependencyTrigger.MissingUpstream.class, List.of("REJECT", "WAIT"));
    PINNED.put(io.almanac.DependencyTrigger.Rerun.class, List.of("KEEP", "RUN_AGAIN"));
    PINNED.put(TaskJournal.CancelCause.class, List.of("OPERATOR", "TASK_REMOVED", "SUPERSEDED"));
    PINNED.put(TaskJournal.PauseCause.class, List.of("FAILURES"));
    PINNED.put(io.almanac.JobLog.Level.class, List.of("INFO", "WARN", "ERROR"));
    PINNED.put(io.almanac.InterruptCause.class, List.of("NODE_STOPPED", "NODE_LOST", "FENCED"));
    PINNED.put(io.almanac.OnInterruption.class, List.of("RESUME", "FAIL"));
    PINNED.put(io.almanac.EndCause.class, List.of("JOB_FAILED", "THROTTLED", "TIMED_OUT", "NODE_STOPPED", "NODE_LOST",
        "FENCED", "CANCELLED", "TASK_REMOVED", "SUPERSEDED"));
    // the alert history's journal
    PINNED.put(io.almanac.Alert.Kind.class, List.of("FINAL_FAILED", "REPEATED_SKIPS", "TRIGGER_STALLED", "TRIGGER_RECOVERED",
        "TASK_SET_ASIDE", "WAIT_EXPIRED", "JOB_STUCK", "DEADLINE_MISSED", "TASK_PAUSED_ON_FAILURES", "BUDGET_EXHAUSTED"));
    PINNED.put(io.almanac.AlertRecord.DeliveryStatus.class, List.of("DELIVERED", "RETRYING", "FAILED"));
  }

  @Test
  @DisplayName("every persisted enum's constant names are pinned")
  void namesArePinned() {
    for (Map.Entry<Class<?>, List<String>> e : PINNED.entrySet()) {
      List<String> names = Arrays.stream(e.getKey().getEnumConstants()).map(c -> ((Enum<?>) c).name()).toList();
      assertEquals(e.getValue(), names, e.getKey().getName() + ": a persisted constant was renamed, removed or added;"
          + " renaming or removing one needs a migration of journals already written");
    }
  }

  @Test
  @DisplayName("the pinned enums are exactly those the journal's events and snapshots hold")
  void everyPersistedEnumIsPinned() {
    assertEquals(PINNED.keySet(), enumsHeldBy(TaskJournal.class, TriggerJournal.class,
        io.almanac.internal.alert.AlertLog.class));
  }

  /** The enum types reachable through the components of the records the given classes declare. */
  private static Set<Class<?>> enumsHeldBy(Class<?>... roots) {
    Deque<Class<?>> todo = new ArrayDeque<>();
    for (Class<?> root : roots) {
      todo.addAll(Arrays.asList(root.getDeclaredClasses()));
    }
    Set<Class<?>> seen = new HashSet<>();
    Set<Class<?>> enums = new HashSet<>();
    while (!todo.isEmpty()) {
      Class<?> c = todo.pop();
      if (!seen.add(c)) {
        continue;
      }
      if (c.isEnum()) {
        enums.add(c);
      } else if (c.isRecord()) {
        for (RecordComponent rc : c.getRecordComponents()) {
          addTypes(rc.getGenericType(), todo);
        }
      }
    }
    return enums.stream().filter(c -> c.getPackageName().startsWith("io.almanac")).collect(Collectors.toSet());
  }

  private static void addTypes(Type t, Deque<Class<?>> todo) {
    if (t instanceof Class<?> c) {
      todo.add(c);
    } else if (t instanceof ParameterizedType p) {
      addTypes(p.getRawType(), todo);
      for (Type arg : p.getActualTypeArguments()) {
        addTypes(arg, todo);
      }
    }
  }
}
