package io.almanac.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.almanac.ExclusionCalendar;
import io.almanac.TaskSpec;
import io.almanac.TaskView;
import io.almanac.journal.Evolve;
import io.almanac.journal.HotState;
import io.almanac.journal.SpecRecord;
import io.almanac.journal.TaskJournal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A task whose stored spec today's rules refuse can still be viewed: reading a stored spec never refuses. */
class StoredSpecViewTest {

  private static final Instant AT = Instant.parse("2026-12-01T00:00:00Z");

  /** A spec stored with a deadline of 0s, pause-after-failures 0 and a calendar with a date that does not exist. */
  private static SpecRecord refusedToday() throws Exception {
    TaskSpec valid = TaskSpec.builder("t").cron("0 0 9 * * ? UTC").job("j").deadline(Duration.ofHours(1))
        .pauseAfterFailures(3).exclude(ExclusionCalendar.of("holidays", "2027-01-01")).build();
    ObjectMapper mapper = new ObjectMapper().findAndRegisterModules();
    ObjectNode tree = mapper.valueToTree(SpecRecord.of(valid));
    tree.set("deadline", mapper.valueToTree(Duration.ZERO));
    tree.put("pauseAfterFailures", 0);
    ArrayNode dates = (ArrayNode) tree.get("schedule").get("calendars").get(0).get("dates");
    dates.removeAll();
    dates.add("2027-02-30");
    return mapper.treeToValue(tree, SpecRecord.class);
  }

  @Test
  @DisplayName("a stored spec with a deadline, pause-after-failures and calendar today's rules refuse: the view shows the"
      + " rest, the record keeps the stored values")
  void viewsAStoredSpecTodaysRulesRefuse() throws Exception {
    SpecRecord stored = refusedToday();
    TaskJournal.State state = Evolve.apply(TaskJournal.State.empty(10), new TaskJournal.SpecDefined(stored, AT),
        new HotState(100, Duration.ofDays(30)), Evolve.Violations.IGNORE);
    TaskViews views = new TaskViews("t", Clock.fixed(AT, ZoneOffset.UTC), LoggerFactory.getLogger(StoredSpecViewTest.class));
    TaskView view = views.view(state);
    assertEquals("0 0 9 * * ?", view.spec().cron());
    assertEquals("j", view.spec().job());
    assertNull(view.spec().deadline(), "refused today: left out of the view's spec");
    assertNull(view.spec().pauseAfterFailures());
    assertEquals(List.of(), view.spec().calendars());
    assertEquals(Duration.ZERO, state.spec().deadline(), "the stored value is kept");
    assertEquals(0, state.spec().pauseAfterFailures());
  }
}
